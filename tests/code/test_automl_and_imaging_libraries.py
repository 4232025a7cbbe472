"""Libraries whose calls hide a choice or a test file: FLAML's AutoML keeps the learner and settings best on the
`X_val` it is given; `load_svmlight_file` reads a file's rows as (X, y), `glob.glob("test/*.nii.gz")` the files
of a folder named as a test set; MONAI's networks and losses train as
torch's do, its `DiceMetric` keeps each batch's score until `aggregate()`, and its post-processing transforms and
`decollate_batch` keep a model's predictions. Each beside its correct use."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import lightgbm as lgb
import pandas as pd
import torch
from flaml import AutoML
from monai.data import DataLoader, Dataset, decollate_batch
from monai.losses import DiceLoss
from monai.metrics import DiceMetric
from monai.networks.nets import UNet
from monai.transforms import AsDiscrete
import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.metrics import mean_squared_error, roc_auc_score
from sklearn.model_selection import train_test_split
"""

_TABLE = """
        df = pd.read_csv("churn.csv")
        X_train, X_test, y_train, y_test = train_test_split(df.drop(columns=["churn"]), df["churn"], random_state=0)
        automl = AutoML()
        """

_SLICES = """
        index = pd.read_csv("slices.csv")
        patients = index["patient_id"].unique()
        test_patients = set(patients[:20])
        val_patients = set(patients[20:40])
        train_ids = set(patients[40:])
        train_files = [{"image": r.image, "label": r.mask} for r in index.itertuples() if r.patient_id in train_ids]
        val_files = [{"image": r.image, "label": r.mask} for r in index.itertuples() if r.patient_id in val_patients]
        test_files = [{"image": r.image, "label": r.mask} for r in index.itertuples() if r.patient_id in test_patients]
        train_loader = DataLoader(Dataset(train_files), batch_size=16, shuffle=True)
        model = UNet(spatial_dims=2, in_channels=1, out_channels=2, channels=(16, 32), strides=(2,))
        loss_function = DiceLoss(to_onehot_y=True, softmax=True)
        optimizer = torch.optim.Adam(model.parameters(), 1e-4)
        dice_metric = DiceMetric(include_background=False)
        post_pred = AsDiscrete(argmax=True, to_onehot=2)
        best = -1.0
        for epoch in range(100):
            for batch in train_loader:
                optimizer.zero_grad()
                loss = loss_function(model(batch["image"]), batch["label"])
                loss.backward()
                optimizer.step()
            with torch.no_grad():
                for batch in DataLoader(Dataset({held}_files), batch_size=16):
                    outputs = [post_pred(i) for i in decollate_batch(model(batch["image"]))]
                    dice_metric(y_pred=outputs, y=batch["label"])
                metric = dice_metric.aggregate().item()
                dice_metric.reset()
            if metric > best:
                best = metric
                torch.save(model.state_dict(), "best.pth")
        """

_GLOBBED = """
        import glob
        train_files = [{{"image": p, "label": p.replace("i", "s")}} for p in sorted(glob.glob("train/img_*.nii.gz"))]
        test_files = [{{"image": p, "label": p.replace("i", "s")}} for p in sorted(glob.glob("test/img_*.nii.gz"))]
        train_loader = DataLoader(Dataset({trained}), batch_size=4)
        net = UNet(spatial_dims=2, in_channels=1, out_channels=2, channels=(16, 32), strides=(2,))
        loss_fn = DiceLoss(to_onehot_y=True, softmax=True)
        opt = torch.optim.Adam(net.parameters())
        for b in train_loader:
            opt.zero_grad()
            loss_fn(net(b["image"]), b["label"]).backward()
            opt.step()
        dice = DiceMetric()
        for b in DataLoader(Dataset(test_files), batch_size=1):
            dice(y_pred=net(b["image"]), y=b["label"])
        print(dice.aggregate().item())
        """

_NORMALISED = """
        import glob
        import nibabel as nib
        from monai.transforms import Compose, LoadImaged, NormalizeIntensityd
        files = [{{"image": p, "label": p.replace("i", "s")}} for p in sorted(glob.glob("img_*.nii.gz"))]
        train_files, test_files = train_test_split(files, test_size=0.25, random_state=1)
        vols = [nib.load(f["image"]).get_fdata() for f in {measured}]
        prep = Compose([LoadImaged(keys=["image", "label"]), NormalizeIntensityd(keys="image",
                        subtrahend=float(np.stack(vols).mean()), divisor=1.0)])
        net = UNet(spatial_dims=3, in_channels=1, out_channels=2, channels=(8, 16), strides=(2,))
        loss_fn = DiceLoss(to_onehot_y=True, softmax=True)
        opt = torch.optim.Adam(net.parameters())
        for b in DataLoader(Dataset(train_files, transform=prep), batch_size=2):
            opt.zero_grad()
            loss_fn(net(b["image"]), b["label"]).backward()
            opt.step()
        dice = DiceMetric()
        for b in DataLoader(Dataset(test_files, transform=prep), batch_size=1):
            dice(y_pred=net(b["image"]), y=b["label"])
        print(dice.aggregate().item())
        """

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: MONAI's NormalizeIntensityd built with the mean of every volume": (
        _NORMALISED.format(measured="files"),
        [("preprocessing", 8)],
    ),
    "MONAI's NormalizeIntensityd built with the mean of the training volumes": (
        _NORMALISED.format(measured="train_files"),
        [],
    ),
    "LEAK: NormalizeIntensityd built with the mean of every volume's own mean": (
        _NORMALISED.format(measured="files").replace(
            "float(np.stack(vols).mean())", "float(np.mean([v.mean() for v in vols]))"
        ),
        [("preprocessing", 8)],
    ),
    "NormalizeIntensityd built with the mean of the training volumes' own means": (
        _NORMALISED.format(measured="train_files").replace(
            "float(np.stack(vols).mean())", "float(np.mean([v.mean() for v in vols]))"
        ),
        [],
    ),
    "LEAK: the files of a test folder listed by glob among those trained on": (
        _GLOBBED.format(trained="train_files + test_files"),
        [("overlap", 10)],
    ),
    "the files of a train folder listed by glob trained on, a test folder's scored": (
        _GLOBBED.format(trained="train_files"),
        [],
    ),
    "LEAK: FLAML's AutoML given the test part as X_val": (
        _TABLE
        + """
        automl.fit(X_train=X_train, y_train=y_train, X_val=X_test, y_val=y_test, task="classification")
        print(roc_auc_score(y_test, automl.predict_proba(X_test)[:, 1]))
        """,
        [("multi_test", 5)],
    ),
    "FLAML's AutoML given a validation part carved from the training part": (
        _TABLE
        + """
        X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train, random_state=1)
        automl.fit(X_train=X_fit, y_train=y_fit, X_val=X_val, y_val=y_val, task="classification")
        print(roc_auc_score(y_test, automl.predict_proba(X_test)[:, 1]))
        """,
        [],
    ),
    "FLAML's AutoML cross-validating on the training part": (
        _TABLE
        + """
        automl.fit(X_train, y_train, task="classification", eval_method="cv")
        print(roc_auc_score(y_test, automl.predict_proba(X_test)[:, 1]))
        """,
        [],
    ),
    "LEAK: an svmlight test file watched for early stopping": (
        """
        X_tr, y_tr = load_svmlight_file("Fold1/train.txt")
        X_te, y_te = load_svmlight_file("Fold1/test.txt")
        m = lgb.LGBMRegressor().fit(X_tr, y_tr, eval_set=[(X_te, y_te)], callbacks=[lgb.early_stopping(50)])
        print(mean_squared_error(y_te, m.predict(X_te)))
        """,
        [("multi_test", 3)],
    ),
    "an svmlight validation file watched for early stopping, the test file scored once": (
        """
        X_tr, y_tr = load_svmlight_file("Fold1/train.txt")
        X_va, y_va = load_svmlight_file("Fold1/vali.txt")
        X_te, y_te = load_svmlight_file("Fold1/test.txt")
        m = lgb.LGBMRegressor().fit(X_tr, y_tr, eval_set=[(X_va, y_va)], callbacks=[lgb.early_stopping(50)])
        print(mean_squared_error(y_te, m.predict(X_te)))
        """,
        [],
    ),
    "LEAK: MONAI's best epoch kept by the Dice of the test patients": (
        _SLICES.replace("{held}", "test"),
        [("multi_test", 25)],
    ),
    "MONAI's best epoch kept by the Dice of the validation patients": (
        _SLICES.replace("{held}", "val"),
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_libraries_that_hide_a_choice_or_a_test_file(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
