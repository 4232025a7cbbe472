"""A small review-sentiment classifier, as first written: its validation accuracy changes on every run."""

import torch
import torch.nn as nn
import torch.nn.functional as F

FEATURES, HIDDEN, CLASSES = 12, 32, 3


class Sentiment(nn.Module):
    """Bag-of-words features through two layers with dropout between them."""

    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(FEATURES, HIDDEN)
        self.out = nn.Linear(HIDDEN, CLASSES)

    def forward(self, x):
        h = torch.relu(self.hidden(x))
        h = F.dropout(h, p=0.3, training=True)  # fault: stays on after model.eval()
        return self.out(h)


def build_model():
    return Sentiment()


def sample_batch():
    g = torch.Generator().manual_seed(0)
    counts = torch.poisson(torch.full((8, FEATURES), 0.7), generator=g)  # word counts per review
    labels = torch.tensor([0, 1, 2, 1, 0, 2, 1, 0])
    return counts, labels


def loss_fn(logits, labels):
    return F.cross_entropy(logits, labels)


def make_optimizer(model):
    return torch.optim.AdamW(model.parameters(), lr=1e-3)
