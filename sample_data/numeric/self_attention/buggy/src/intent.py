"""A one-block transformer that tags chat messages with an intent, as first written: it trains, slowly."""

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, LENGTH, WIDTH, HEADS, INTENTS = 500, 12, 128, 2, 5


class SelfAttention(nn.Module):
    """Multi-head self-attention written out: one projection to queries, keys and values, one back."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(WIDTH, 3 * WIDTH)
        self.proj = nn.Linear(WIDTH, WIDTH)

    def forward(self, x):
        n, t, _ = x.shape
        q, k, v = self.qkv(x).view(n, t, 3, HEADS, WIDTH // HEADS).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1)  # fault: not divided by sqrt(WIDTH // HEADS)
        weights = scores.softmax(dim=-1)
        return self.proj((weights @ v).transpose(1, 2).reshape(n, t, WIDTH))


class IntentTagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH)
        self.position = nn.Parameter(torch.zeros(LENGTH, WIDTH))
        self.norm1, self.norm2 = nn.LayerNorm(WIDTH), nn.LayerNorm(WIDTH)
        self.attn = SelfAttention()
        self.mlp = nn.Sequential(nn.Linear(WIDTH, 4 * WIDTH), nn.GELU(), nn.Linear(4 * WIDTH, WIDTH))
        self.head = nn.Linear(WIDTH, INTENTS)

    def forward(self, ids):
        h = self.embed(ids) + self.position[: ids.shape[1]]
        h = h + self.attn(self.norm1(h))
        h = h + self.mlp(self.norm2(h))
        return self.head(h.mean(dim=1))


def build_model():
    return IntentTagger()


def sample_batch():
    g = torch.Generator().manual_seed(0)
    messages = torch.randint(1, VOCAB, (6, LENGTH), generator=g)  # token ids of six chat messages
    return messages, torch.tensor([0, 3, 1, 4, 2, 1])


def loss_fn(logits, intents):
    return F.cross_entropy(logits, intents)


def make_optimizer(model):
    return torch.optim.AdamW(model.parameters(), lr=3e-4)
