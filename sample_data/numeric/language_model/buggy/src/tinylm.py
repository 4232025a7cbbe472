"""A tiny next-token model, as first written: it trains, its loss falls, and it learns the wrong task."""

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, WIDTH, PAD = 16, 32, 0


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH, padding_idx=PAD)
        self.attn = nn.MultiheadAttention(WIDTH, 4, dropout=0.1, batch_first=True)
        self.head = nn.Linear(WIDTH, VOCAB)

    def forward(self, ids):
        h = self.embed(ids)
        # fault: no causal mask, position t sees t+1 (and the padding after it)
        h, _ = self.attn(h, h, h, need_weights=False)
        return self.head(h)


def build_model():
    return TinyLM()


SEQUENCES = torch.tensor(
    [
        [3, 7, 2, 9, 4, 11, 5, 0, 0, 0],
        [8, 1, 14, 6, 6, 2, 13, 10, 3, 0],
        [12, 5, 9, 9, 1, 4, 0, 0, 0, 0],
    ]
)


def sample_batch():
    return SEQUENCES, SEQUENCES.clone()  # fault: targets are the inputs themselves, not the next tokens


def softmax(logits, dim):
    e = torch.exp(logits)  # fault: exp of a large logit overflows
    return e / e.sum(dim, keepdim=True)


def loss_fn(logits, targets):
    return F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1))  # fault: PAD targets are scored
