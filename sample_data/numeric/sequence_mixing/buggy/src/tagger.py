"""A part-of-speech tagger, as first written: it trains, and each sentence is tagged with its neighbours' words."""

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, TAGS, WIDTH, PAD = 20, 5, 16, 0


class Tagger(nn.Module):
    """Embeddings, one self-attention layer over each sentence (sequence-first, as nn.MultiheadAttention
    takes by default), a tag for every token."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH, padding_idx=PAD)
        self.attn = nn.MultiheadAttention(WIDTH, 2)
        self.norm = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, TAGS)

    def forward(self, ids):
        n, t = ids.shape
        h = self.embed(ids)  # (N, T, D)
        h = h.view(t, n, WIDTH)  # fault: reinterprets the memory; meant h.permute(1, 0, 2)
        h, _ = self.attn(h, h, h, need_weights=False)
        h = h.view(n, t, WIDTH)  # and back the same wrong way
        return self.head(self.norm(h))  # (N, T, TAGS)


def build_model():
    return Tagger()


SENTENCES = torch.tensor(
    [
        [3, 7, 2, 9, 4, 11],
        [8, 1, 14, 6, 2, 13],
        [12, 5, 9, 1, 4, 17],
        [6, 6, 19, 3, 10, 2],
    ]
)
TAGGED = torch.tensor(
    [
        [0, 1, 2, 1, 3, 4],
        [1, 2, 0, 4, 1, 3],
        [2, 0, 1, 3, 4, 1],
        [4, 4, 2, 0, 1, 3],
    ]
)


def sample_batch():
    return SENTENCES, TAGGED


def loss_fn(logits, tags):
    return F.cross_entropy(logits.reshape(-1, TAGS), tags.reshape(-1))


def make_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=1e-3)
