"""The same review classifier after the audit: the encoder hides the padding, so a prediction does not depend
on the batch it comes in."""

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, WIDTH, CLASSES, PAD = 1000, 64, 3, 0


class ReviewClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH, padding_idx=PAD)
        layer = nn.TransformerEncoderLayer(WIDTH, 4, 4 * WIDTH, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(WIDTH, CLASSES)

    def forward(self, input_ids, attention_mask):
        # attention_mask is 1 at real tokens; src_key_padding_mask wants True where a token is padding
        h = self.encoder(self.embed(input_ids), src_key_padding_mask=attention_mask == 0)
        real = attention_mask.unsqueeze(-1).float()
        pooled = (h * real).sum(dim=1) / real.sum(dim=1).clamp(min=1.0)  # the mean over the real tokens
        return self.head(pooled)


def build_model():
    return ReviewClassifier()


def sample_batch():
    """Three tokenised reviews, padded to the longest, as a tokenizer returns them."""
    ids = torch.tensor(
        [
            [101, 734, 56, 982, 17, 7, 102, PAD, PAD, PAD],
            [101, 45, 288, 288, 903, 61, 12, 530, 9, 102],
            [101, 610, 4, 102, PAD, PAD, PAD, PAD, PAD, PAD],
        ]
    )
    return {"input_ids": ids, "attention_mask": (ids != PAD).long(), "labels": torch.tensor([2, 0, 1])}


def loss_fn(logits, labels):
    return F.cross_entropy(logits, labels)


def make_optimizer(model):
    return torch.optim.AdamW(model.parameters(), lr=3e-4)
