"""A small spam filter, as first written: four faults that raise no error."""

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
        return torch.sigmoid(self.head(self.body(x))).squeeze(-1)  # fault: BCEWithLogitsLoss applies its own sigmoid


def build_model():
    return SpamNet()


def sample_batch():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(8, FEATURES, generator=g)  # standardised message features
    y = torch.tensor([1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0])  # 1 = spam
    return x, y


criterion = nn.BCEWithLogitsLoss()


def loss_fn(scores, labels):
    confidence_penalty = 0.03 * scores.pow(2).sum()  # fault: summed over the batch, the BCE term is averaged
    return criterion(scores, labels) + confidence_penalty


def make_optimizer(model):
    return torch.optim.SGD(model.parameters(), lr=BASE_LR * BATCH_SIZE // 256, momentum=0.9)  # fault: // gives 0.0


def train_step(model, optimizer, batch):
    inputs, labels = batch  # fault: no model.train(), so after an evaluation dropout stays off
    optimizer.zero_grad()
    loss = loss_fn(model(inputs), labels)
    loss.backward()
    optimizer.step()
    return loss.item()
