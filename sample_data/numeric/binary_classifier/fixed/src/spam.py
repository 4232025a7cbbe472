"""The same spam filter after the audit: every fault fixed where it was made."""

import torch
import torch.nn as nn

FEATURES, HIDDEN = 10, 32
BASE_LR, BATCH_SIZE = 0.1, 32  # the linear scaling rule: lr = BASE_LR * BATCH_SIZE / 256


class SpamNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.ReLU(), nn.Dropout(0.2))
        self.head = nn.Linear(HIDDEN, 1)

    def forward(self, x):
        return self.head(self.body(x)).squeeze(-1)  # raw logits: BCEWithLogitsLoss applies the sigmoid itself


def build_model():
    return SpamNet()


def sample_batch():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(8, FEATURES, generator=g)  # standardised message features
    y = torch.tensor([1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0])  # 1 = spam
    return x, y


criterion = nn.BCEWithLogitsLoss()


def loss_fn(scores, labels):
    confidence_penalty = 0.03 * scores.pow(2).mean()  # averaged, as the BCE term is
    return criterion(scores, labels) + confidence_penalty


def make_optimizer(model):
    return torch.optim.SGD(model.parameters(), lr=BASE_LR * BATCH_SIZE / 256, momentum=0.9)


def train_step(model, optimizer, batch):
    inputs, labels = batch
    model.train()
    optimizer.zero_grad()
    loss = loss_fn(model(inputs), labels)
    loss.backward()
    optimizer.step()
    return loss.item()
