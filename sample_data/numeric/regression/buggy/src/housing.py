"""A small house-price regressor, as first written: three faults that raise no error."""

import torch
import torch.nn as nn


class LogFeatures(nn.Module):
    """Log-scales the features (areas and prices are skewed)."""

    def forward(self, x):
        return torch.log(x)  # fault: a centred feature is negative, log gives NaN


class PriceModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.logfeat = LogFeatures()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
        self.head = nn.Linear(8, 1)

    def forward(self, x):
        return self.head(self.body(self.logfeat(x)))  # (N, 1)


def build_model():
    return PriceModel()


def sample_batch():
    g = torch.Generator().manual_seed(0)
    x = torch.rand(8, 4, generator=g) * 3 + 0.5
    x[:, 3] -= 2.0  # the fourth feature is centred: some values are negative
    y = x[:, 0] * 2.0 + 1.0  # (N,)
    return x, y


def loss_fn(pred, target):
    return ((pred - target) ** 2).mean()  # fault: (N, 1) - (N,) broadcasts to (N, N)


def make_optimizer(model):
    return torch.optim.SGD(model.body.parameters(), lr=0.01)  # fault: the head is never updated
