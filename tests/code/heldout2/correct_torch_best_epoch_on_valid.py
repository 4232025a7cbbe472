"""Keyword spotting on MFCC frames: a small GRU, best epoch picked on the validation speakers."""

import copy

import numpy as np
import torch
from sklearn.metrics import accuracy_score, confusion_matrix
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class KeywordGRU(nn.Module):
    def __init__(self, n_mfcc=40, hidden=128, n_classes=12):
        super().__init__()
        self.gru = nn.GRU(n_mfcc, hidden, num_layers=2, batch_first=True, dropout=0.1)
        self.out = nn.Linear(hidden, n_classes)

    def forward(self, x):
        _, h = self.gru(x)
        return self.out(h[-1])


def load(path):
    d = np.load(path)
    return TensorDataset(torch.tensor(d["mfcc"], dtype=torch.float32), torch.tensor(d["label"]))


@torch.no_grad()
def predict(model, ds):
    model.eval()
    out = [model(xb).argmax(1) for xb, _ in DataLoader(ds, batch_size=512)]
    return torch.cat(out).numpy()


def labels(ds):
    return ds.tensors[1].numpy()


if __name__ == "__main__":
    torch.manual_seed(0)
    # the official lists split by speaker hash
    train_set, val_set, test_set = (load(f"kws_{part}.npz") for part in ("train", "valid", "test"))
    train_dl = DataLoader(train_set, batch_size=128, shuffle=True)
    model = KeywordGRU()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=25)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    y_val, y_test = labels(val_set), labels(test_set)

    best_acc, best_state, patience = 0.0, None, 0
    for epoch in range(25):
        model.train()
        for xb, yb in train_dl:
            opt.zero_grad()
            loss_fn(model(xb), yb).backward()
            opt.step()
        sched.step()
        val_acc = accuracy_score(y_val, predict(model, val_set))
        print(f"epoch {epoch:02d}  val acc {val_acc:.4f}")
        if val_acc > best_acc:
            best_acc, best_state, patience = val_acc, copy.deepcopy(model.state_dict()), 0
        else:
            patience += 1
            if patience == 5:
                break

    model.load_state_dict(best_state)
    test_pred = predict(model, test_set)
    print(f"test accuracy {accuracy_score(y_test, test_pred):.4f}")
    print(confusion_matrix(y_test, test_pred))
