"""The same DQN after the audit: the optimizer's step is called."""

import torch
import torch.nn as nn
import torch.nn.functional as F

OBS, ACTIONS, HIDDEN, GAMMA = 4, 2, 64, 0.99


def q_network():
    return nn.Sequential(nn.Linear(OBS, HIDDEN), nn.BatchNorm1d(HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, ACTIONS))


class QNetworks(nn.Module):
    """The online Q-network and its target copy: the target is synced by copying every few thousand steps."""

    def __init__(self):
        super().__init__()
        self.online = q_network()
        self.target = q_network()
        self.sync()

    def sync(self):
        self.target.load_state_dict(self.online.state_dict())

    def forward(self, transitions):
        obs, action, reward, next_obs, done = transitions
        q = self.online(obs).gather(1, action[:, None]).squeeze(1)
        with torch.no_grad():  # the bootstrap target is a fixed label for this step
            best_next = self.target(next_obs).max(1).values
            td_target = reward + GAMMA * (1.0 - done) * best_next
        return q, td_target


def build_model():
    return QNetworks()


def replay_batch():
    """Eight transitions as the replay buffer hands them out."""
    g = torch.Generator().manual_seed(0)
    obs, next_obs = torch.randn(8, OBS, generator=g), torch.randn(8, OBS, generator=g)
    action = torch.randint(0, ACTIONS, (8,), generator=g)
    reward = torch.ones(8)
    done = torch.tensor([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0])
    return ((obs, action, reward, next_obs, done),), torch.zeros(8)  # the targets are built in forward


def td_loss(outputs, _targets):
    q, td_target = outputs
    return F.smooth_l1_loss(q, td_target)


def make_optimizer(model):
    return torch.optim.Adam(model.online.parameters(), lr=1e-3)  # the target network is not trained


def train_step(model, optimizer, batch):
    inputs, targets = batch
    model.train()
    optimizer.zero_grad()
    loss = td_loss(model(*inputs), targets)
    loss.backward()
    nn.utils.clip_grad_norm_(model.online.parameters(), 10.0)
    optimizer.step()
    return loss.item()
