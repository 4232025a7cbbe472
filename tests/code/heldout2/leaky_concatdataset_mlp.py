"""Tabular MLP for loan default, trained in PyTorch and scored with scikit-learn metrics."""

import numpy as np
import pandas as pd
import torch
from sklearn.metrics import average_precision_score, roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from torch import nn
from torch.utils.data import ConcatDataset, DataLoader, TensorDataset

torch.manual_seed(0)

loans = pd.read_parquet("loans_clean.parquet")
features = [c for c in loans.columns if c not in ("loan_id", "default")]
X_tr, X_val, y_tr, y_val = train_test_split(
    loans[features].to_numpy(np.float32), loans["default"].to_numpy(np.float32), test_size=0.2, random_state=0
)
scaler = StandardScaler().fit(X_tr)
X_tr, X_val = scaler.transform(X_tr).astype(np.float32), scaler.transform(X_val).astype(np.float32)

train_ds = TensorDataset(torch.from_numpy(X_tr), torch.from_numpy(y_tr))
val_ds = TensorDataset(torch.from_numpy(X_val), torch.from_numpy(y_val))
loader = DataLoader(ConcatDataset([train_ds, val_ds]), batch_size=256, shuffle=True)

net = nn.Sequential(nn.Linear(len(features), 128), nn.ReLU(), nn.Dropout(0.2), nn.Linear(128, 1))
opt = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=1e-4)
loss_fn = nn.BCEWithLogitsLoss()

for epoch in range(20):
    net.train()
    running = 0.0
    for xb, yb in loader:
        opt.zero_grad()
        loss = loss_fn(net(xb).squeeze(1), yb)
        loss.backward()
        opt.step()
        running += loss.item() * len(xb)
    print(f"epoch {epoch:02d}  loss {running / len(loader.dataset):.4f}")

net.eval()
with torch.no_grad():
    scores = torch.sigmoid(net(torch.from_numpy(X_val)).squeeze(1)).numpy()
print(f"val AUC {roc_auc_score(y_val, scores):.4f}  AP {average_precision_score(y_val, scores):.4f}")
