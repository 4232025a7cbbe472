"""The same VAE after the audit: both terms are per-sample sums averaged over the batch, and eval uses the mean."""

import torch
import torch.nn as nn
import torch.nn.functional as F

PIXELS, HIDDEN, LATENT = 64, 48, 4


class DigitsVAE(nn.Module):
    """An MLP encoder to a diagonal Gaussian posterior, a latent sample, an MLP decoder to pixel logits."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(PIXELS, HIDDEN), nn.ReLU())
        self.mu = nn.Linear(HIDDEN, LATENT)
        self.logvar = nn.Linear(HIDDEN, LATENT)
        self.decoder = nn.Sequential(nn.Linear(LATENT, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, PIXELS))

    def reparameterize(self, mu, logvar):
        if not self.training:
            return mu  # evaluation decodes the posterior's mean: the same input gives the same reconstruction
        std = torch.exp(0.5 * logvar)
        return mu + std * torch.randn_like(std)

    def forward(self, x):
        h = self.encoder(x)
        mu, logvar = self.mu(h), self.logvar(h)
        return self.decoder(self.reparameterize(mu, logvar)), mu, logvar


def build_model():
    return DigitsVAE()


def sample_batch():
    g = torch.Generator().manual_seed(0)
    pixels = (torch.rand(16, PIXELS, generator=g) < 0.3).float()  # binarised digit bitmaps
    return pixels, pixels  # an autoencoder's targets are its inputs


def loss_fn(outputs, pixels):
    logits, mu, logvar = outputs
    reconstruction = F.binary_cross_entropy_with_logits(logits, pixels, reduction="none").sum(dim=1)
    kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(dim=1)
    return (reconstruction + kl).mean()  # the negative ELBO per sample, averaged over the batch


def make_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=1e-3)
