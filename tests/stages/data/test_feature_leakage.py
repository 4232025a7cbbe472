"""feature_leakage: label proxies, identifier-like columns that predict the label, features that encode the split;
and no finding on real data split at random."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from auditor import load_config, run_audit
from auditor.core.findings import Report
from auditor.render.html import render_html
from tests.conftest import codes, finding, write_config, write_table

STAGE = ["feature_leakage"]


def _table(n: int = 1200, seed: int = 0, holdout: float = 0.3) -> pd.DataFrame:
    """A customer-like table: two weak real features, a categorical, a binary label, a random split."""
    rng = np.random.default_rng(seed)
    label = rng.random(n) < 0.35
    return pd.DataFrame(
        {
            "sid": [f"s{i:05d}" for i in rng.permutation(n)],
            "split": np.where(rng.random(n) < holdout, "test", "train"),
            "tenure": np.round(rng.normal(24, 10, n) - 6 * label, 1),
            "calls": rng.poisson(2 + label, n),
            "plan": rng.choice(["basic", "plus", "pro"], n),
            "label": np.where(label, "yes", "no"),
        }
    )


def _run(tmp_path: Path, frame: pd.DataFrame, keys: dict[str, Any] | None = None, **extra: Any) -> Report:
    write_table(tmp_path / "m.csv", frame)
    config = {
        "version": 1,
        "manifest": {"path": "m.csv", "split": "split", **extra.pop("manifest", {})},
        "keys": {"label": "label", "features": "auto", **(keys or {})},
        **extra,
    }
    return run_audit(load_config(write_config(tmp_path, config)), only=STAGE)


def _flags(report: Report) -> dict[str, str]:
    return finding(report, "FLK000").evidence["flagged"]


def test_a_feature_that_is_the_label_with_one_percent_noise_is_a_proxy(tmp_path: Path) -> None:
    frame = _table(n=4000)
    rng = np.random.default_rng(1)
    flip = rng.random(len(frame)) < 0.01
    truth = (frame["label"] == "yes").to_numpy()
    frame["retention_offer"] = np.where(truth ^ flip, "accepted", "none")
    report = _run(tmp_path, frame, manifest={"id": "sid"})
    f = finding(report, "FLK001")
    assert f.key == "retention_offer" and f.severity.value == "error"
    assert f.evidence["metric"] == "ROC AUC" and 0.97 <= f.evidence["score"] <= 1.0
    assert f.evidence["best_legitimate"]["column"] in {"tenure", "calls"}
    assert f.evidence["base_rate"]["class"] == "yes" and 0.3 < f.evidence["base_rate"]["share"] < 0.4
    assert _flags(report) == {"retention_offer": "proxy"}
    assert report.exit_code == 1


def test_a_numeric_proxy_is_found_and_the_score_table_is_sorted_by_power(tmp_path: Path) -> None:
    frame = _table()
    rng = np.random.default_rng(2)
    frame["refund_amount"] = np.where(frame["label"] == "yes", rng.uniform(20, 80, len(frame)), 0.0)
    report = _run(tmp_path, frame)
    assert finding(report, "FLK001").key == "refund_amount"
    table = finding(report, "FLK000").tables[0]
    assert table.rows[0][0] == "refund_amount" and table.rows[0][-1] == "proxy"
    skills = [row[4] for row in table.rows]
    assert skills == sorted(skills, reverse=True)
    page = render_html(report)
    assert 'class="figure power"' in page and "▲ proxy" in page


def test_an_id_column_sorted_by_class_is_a_warning_not_a_proxy(tmp_path: Path) -> None:
    frame = _table().sort_values("label", kind="stable").reset_index(drop=True)
    frame["sid"] = [f"C{i:05d}" for i in range(len(frame))]  # numbered after sorting by class
    report = _run(tmp_path, frame, manifest={"id": "sid"})
    f = finding(report, "FLK002")
    assert f.key == "sid" and f.severity.value == "warning" and f.evidence["role"] == "id"
    assert f.evidence["read_as"] == "its digits"
    assert "FLK001" not in codes(report)


def test_a_row_number_feature_sorted_by_class_is_identifier_like(tmp_path: Path) -> None:
    frame = _table().sort_values("label", kind="stable").reset_index(drop=True)
    frame["record_no"] = np.arange(len(frame)) + 1
    frame = frame.sample(frac=1, random_state=0)  # the file's order is shuffled; the numbers stay
    report = _run(tmp_path, frame, manifest={"id": "sid"})
    assert _flags(report) == {"record_no": "proxy"}  # a feature the model sees: near-perfect is an error
    assert "it also looks like an identifier: a row number" in finding(report, "FLK001").message
    row = next(r for r in finding(report, "FLK000").tables[0].rows if r[0] == "record_no")
    assert "row number" in row[1]


def test_ids_in_random_order_are_not_a_finding(tmp_path: Path) -> None:
    report = _run(tmp_path, _table(), manifest={"id": "sid"})
    assert codes(report) == ["FLK000"]
    assert report.exit_code == 0


def test_a_time_column_is_scored_though_it_is_not_a_feature(tmp_path: Path) -> None:
    frame = _table().sort_values("label", kind="stable").reset_index(drop=True)
    frame["signed_up"] = pd.date_range("2023-01-01", periods=len(frame), freq="h").strftime("%Y-%m-%dT%H:%M:%S")
    report = _run(tmp_path, frame, keys={"time": "signed_up"})
    found = {f.key: f for f in report.findings if f.code == "FLK002"}
    assert found["signed_up"].evidence["role"] == "time"
    # No id column: the row number stands for it, and the file is in label order too.
    assert found["(row number)"].evidence["identifier"] == "the row number in the manifest"


def test_paths_with_a_folder_per_class_are_read_by_their_folder(tmp_path: Path) -> None:
    frame = _table()
    features = {"features": ["tenure", "calls", "image_path"]}
    frame["image_path"] = [f"scans/{lab}/{i:05d}.png" for i, lab in enumerate(frame["label"])]
    proxy = finding(_run(tmp_path, frame, keys=features), "FLK001")
    assert proxy.key == "image_path" and proxy.evidence["read_as"] == "its folder"
    # Folders that only lean towards the class (three in four rows): an identifier-like column that predicts.
    lean = np.where(np.random.default_rng(9).random(len(frame)) < 0.75, frame["label"], "mixed")
    frame["image_path"] = [f"scans/{d}/{i:05d}.png" for i, d in enumerate(lean)]
    report = _run(tmp_path, frame, keys=features)
    assert _flags(report) == {"image_path": "identifier"}
    f = finding(report, "FLK002")
    assert f.evidence["identifier"] == "paths or file names" and f.evidence["read_as"] == "its folder"


@pytest.mark.parametrize("placeholder", ["?", "-", "unknown", "Missing", "#N/A"])
def test_a_numeric_proxy_with_a_placeholder_for_missing_is_still_a_proxy(tmp_path: Path, placeholder: str) -> None:
    # A spreadsheet export writes a stand-in where the number is missing: the column is text, but still the label's.
    frame = _table(n=2000)
    rng = np.random.default_rng(3)
    refund = np.where(frame["label"] == "yes", rng.uniform(20, 80, len(frame)), rng.uniform(0, 5, len(frame)))
    refund_text = np.round(refund, 1).astype(str).astype(object)
    refund_text[rng.random(len(frame)) < 0.02] = placeholder
    frame["refund_amount"] = refund_text
    report = _run(tmp_path, frame)
    f = finding(report, "FLK001")
    assert f.key == "refund_amount" and f.evidence["read_as"] == "numeric"
    assert _flags(report) == {"refund_amount": "proxy"}
    assert report.exit_code == 1


def test_a_real_feature_with_a_placeholder_for_missing_is_read_as_numbers_and_not_flagged(tmp_path: Path) -> None:
    frame = _table()
    rng = np.random.default_rng(4)
    tenure = np.array(frame["tenure"].astype(str), dtype=object)
    tenure[rng.random(len(frame)) < 0.05] = "?"
    frame["tenure"] = tenure
    report = _run(tmp_path, frame)
    row = next(r for r in finding(report, "FLK000").tables[0].rows if r[0] == "tenure")
    assert row[1] == "feature" and row[2] == "numeric"  # not a high-cardinality code, nor file names
    assert codes(report) == ["FLK000"] and report.exit_code == 0


def test_a_strong_real_code_with_a_dot_is_not_a_file_name(tmp_path: Path) -> None:
    # Diagnosis codes (ICD-10 'E11.9') predict the outcome well and rightly: a feature, not an identifier.
    frame = _table(n=2000)
    rng = np.random.default_rng(5)
    codes_yes, codes_no = ["E11.9", "I10.0", "J45.2"], ["E11.9", "I10.0", "J45.2", "K21.9", "M54.5", "N39.0"]
    frame["diagnosis"] = np.where(
        frame["label"] == "yes", rng.choice(codes_yes, len(frame), p=[0.6, 0.3, 0.1]), rng.choice(codes_no, len(frame))
    )
    report = _run(tmp_path, frame)
    row = next(r for r in finding(report, "FLK000").tables[0].rows if r[0] == "diagnosis")
    assert row[1] == "feature" and row[4] > 0.3  # strong, and read as a category
    assert codes(report) == ["FLK000"] and report.exit_code == 0


def test_bare_file_names_numbered_in_class_order_are_still_identifier_like(tmp_path: Path) -> None:
    frame = _table().sort_values("label", kind="stable").reset_index(drop=True)
    frame["image"] = [f"scan_{i:05d}.png" for i in range(len(frame))]
    frame = frame.sample(frac=1, random_state=0)
    report = _run(tmp_path, frame, keys={"features": ["tenure", "calls", "image"]})
    assert _flags(report) == {"image": "proxy"}  # numbered in class order: its digits give the label away
    f = finding(report, "FLK001")
    assert (
        f.evidence["read_as"] == "its digits" and "it also looks like an identifier: paths or file names" in f.message
    )


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("dataset", ["breast_cancer", "wine", "diabetes"])
def test_real_data_split_at_random_has_no_finding(tmp_path: Path, dataset: str, seed: int) -> None:
    from sklearn import datasets

    data = getattr(datasets, f"load_{dataset}")(as_frame=True)
    frame = data.frame.rename(columns={"target": "label"})
    rng = np.random.default_rng(seed)
    frame.insert(0, "split", np.where(rng.random(len(frame)) < 0.3, "test", "train"))
    frame.insert(0, "sid", [f"r{i}" for i in rng.permutation(len(frame))])
    report = _run(tmp_path, frame, manifest={"id": "sid"})
    assert codes(report) == ["FLK000"], [f.message for f in report.findings]
    info = finding(report, "FLK000")
    expected = {"breast_cancer": "ROC AUC", "wine": "balanced accuracy", "diabetes": "R²"}[dataset]
    assert info.evidence["metric"] == expected
    assert info.evidence["columns"] == data.frame.shape[1]  # every feature and the id
    assert info.evidence["best_legitimate"]["score"] > 0.15  # the real signal is measured, not missed


def test_a_categorical_with_a_split_specific_code_encodes_the_split(tmp_path: Path) -> None:
    frame = _table(n=2000)
    rng = np.random.default_rng(3)
    churned = frame["label"] == "yes"
    # Train: the branch code follows the label (its branches closed); test rows all carry the new system's code.
    train_code = np.where(churned ^ (rng.random(len(frame)) < 0.1), "BR-CLOSED", "BR-OPEN")
    frame["branch"] = np.where(frame["split"] == "train", train_code, "BR-2024")
    report = _run(tmp_path, frame)
    f = finding(report, "FLK003")
    assert f.key == "branch" and f.evidence["train_skill"] > 0.6 and abs(f.evidence["skill"]) < 0.1
    assert "FLK001" not in codes(report)


def _drifting(n: int = 3000) -> pd.DataFrame:
    """Customers in sign-up order, split by time (the last quarter is the test), whose churn rate rose sharply during
    the training period: a sign-up date predicts churn within train, and test is all after train."""
    rng = np.random.default_rng(6)
    signed = pd.date_range("2021-01-01", periods=n, freq="7h")
    rate = np.select([np.arange(n) < n // 3, np.arange(n) < 3 * n // 4], [0.08, 0.75], 0.5)
    label = rng.random(n) < rate
    return pd.DataFrame(
        {
            "split": np.where(np.arange(n) < 3 * n // 4, "train", "test"),
            "tenure": np.round(rng.normal(24, 10, n) - 6 * label, 1),
            "signup_date": signed.strftime("%Y-%m-%d"),
            "label": np.where(label, "yes", "no"),
        }
    )


def test_a_date_feature_in_a_split_by_time_does_not_encode_the_split(tmp_path: Path) -> None:
    # Every test date is after every training date: a tree fitted on train predicts one value for all of them, so
    # its holdout skill is 0 whatever the dates mean; that says the split is by time, which it is.
    report = _run(tmp_path, _drifting())
    row = next(r for r in finding(report, "FLK000").tables[0].rows if r[0] == "signup_date")
    assert row[2] == "time" and row[5] > 0.5 and row[4] == 0  # strong on train, nothing to say on test
    assert codes(report) == ["FLK000"] and report.exit_code == 0


def test_a_date_filled_in_afterwards_for_the_test_rows_still_encodes_the_split(tmp_path: Path) -> None:
    frame = _drifting()
    # The test rows' date was overwritten by the export date: one value, after every training date.
    frame.loc[frame["split"] == "test", "signup_date"] = "2024-06-30"
    f = finding(_run(tmp_path, frame), "FLK003")
    assert f.key == "signup_date" and f.evidence["train_skill"] > 0.5 and f.evidence["skill"] == 0


def test_regression_labels_are_scored_by_r2(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    n = 1500
    size = rng.uniform(30, 200, n)
    price = 3000 * size + rng.normal(0, 60000, n)
    frame = pd.DataFrame(
        {
            "split": np.where(rng.random(n) < 0.3, "test", "train"),
            "size_m2": np.round(size, 1),
            "rooms": np.clip(np.round(size / 30 + rng.normal(0, 1, n)), 1, None),
            "price_per_m2_times_size": np.round(price * (1 + rng.normal(0, 0.005, n)), 0),  # the label, rescaled
            "label": np.round(price, 0),
        }
    )
    report = _run(tmp_path, frame)
    f = finding(report, "FLK001")
    assert f.key == "price_per_m2_times_size" and f.evidence["metric"] == "R²" and f.evidence["score"] > 0.99
    assert f.evidence["best_legitimate"]["column"] == "size_m2"
    assert "mean" in f.evidence["base_rate"]


def _diabetes(seed: int, holdout: float, copies: int = 1) -> pd.DataFrame:
    """sklearn's diabetes progression (442 rows, R² of its best feature about 0.35), with a random split; copies
    are jittered so a large holdout is not the same rows again; a leak (the label floored to tens) and a strong
    legitimate feature (R² about 0.9) beside the real ones."""
    from sklearn.datasets import load_diabetes

    base = load_diabetes(as_frame=True).frame.rename(columns={"target": "label"})
    rng = np.random.default_rng(seed)
    frame = pd.concat([base] * copies, ignore_index=True)
    if copies > 1:
        frame["label"] += rng.normal(0, 1, len(frame))
    frame.insert(0, "split", np.where(rng.random(len(frame)) < holdout, "test", "train"))
    frame["progression_band"] = np.floor(frame["label"] / 10) * 10
    frame["follow_up_score"] = np.round(frame["label"] + rng.normal(0, 0.33 * base["label"].std(), len(frame)), 1)
    return frame


@pytest.mark.parametrize(
    ("seed", "holdout", "copies", "rows"),
    [(0, 0.09, 1, (30, 50)), (0, 0.28, 1, (100, 140)), (1, 0.28, 1, (100, 140)), (2, 0.215, 10, (900, 1000))],
    ids=["about 40 rows", "about 110 rows", "about 130 rows", "about 950 rows"],
)
def test_a_regression_label_floored_to_tens_is_a_proxy_on_any_holdout(
    tmp_path: Path, seed: int, holdout: float, copies: int, rows: tuple[int, int]
) -> None:
    # 1 - R² is a share of the variance, not of the rows: R² 0.99 on a hundred rows is a bound well under 0.03,
    # though 1% of a hundred rows is one row, and one "error" in a hundred rows bounds nothing below 0.03.
    report = _run(tmp_path, _diabetes(seed, holdout, copies))
    info = finding(report, "FLK000")
    assert rows[0] <= info.evidence["holdout_rows"] <= rows[1]
    f = finding(report, "FLK001")
    assert f.key == "progression_band" and 0.98 < f.evidence["score"] < 0.999 and f.evidence["error_bound"] < 0.03
    # The strong legitimate feature is measured (R² about 0.9) and is not a proxy.
    assert _flags(report) == {"progression_band": "proxy"}
    assert info.evidence["best_legitimate"]["column"] == "follow_up_score"
    assert 0.8 < info.evidence["best_legitimate"]["score"] < 0.95


@pytest.mark.parametrize("holdout", [0.1, 0.28])
def test_strong_legitimate_regression_features_on_small_holdouts_are_not_proxies(
    tmp_path: Path, holdout: float
) -> None:
    # R² 0.95 on 30-odd rows, and 0.9 on a hundred: strong, and their bounds stay above 0.03.
    frame = _diabetes(3, holdout).drop(columns="progression_band")
    rng = np.random.default_rng(4)
    frame["repeat_measure"] = frame["label"] + rng.normal(0, 0.22 * frame["label"].std(), len(frame))
    report = _run(tmp_path, frame)
    info = finding(report, "FLK000")
    assert codes(report) == ["FLK000"], [f.message for f in report.findings]
    assert info.evidence["best_legitimate"]["score"] > 0.9 and info.evidence["holdout_rows"] < 140


@pytest.mark.parametrize("n", [30, 124, 1000])
@pytest.mark.parametrize("share", [0.01, 0.03, 0.1])
def test_the_regression_bound_covers_the_true_unexplained_share(n: int, share: float) -> None:
    """On Gaussian data with a known unexplained share, the 95% bound is at or above it about 95% of the time."""
    from auditor.stages.data.feature_leakage import _variance_share_bound

    rng = np.random.default_rng(n)
    x = rng.normal(size=(2000, n))
    y = x + rng.normal(size=(2000, n)) * np.sqrt(share / (1 - share))  # the share of y's variance x leaves
    total = ((y - y.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    r2 = 1 - ((y - x) ** 2).sum(axis=1) / total
    covered = np.mean([_variance_share_bound(1 - r, n) >= share for r in r2])
    assert 0.93 <= covered <= 0.98


def test_missing_values_are_scored_and_missingness_that_tells_the_label_is_found(tmp_path: Path) -> None:
    frame = _table()
    rng = np.random.default_rng(5)
    frame.loc[rng.random(len(frame)) < 0.2, "tenure"] = np.nan  # missing at random: no leak
    closed = pd.Series(pd.date_range("2024-01-01", periods=len(frame), freq="D").strftime("%Y-%m-%d"))
    frame["closed_on"] = closed.where(frame["label"] == "yes", "")  # present for churned customers only
    report = _run(tmp_path, frame)
    assert finding(report, "FLK001").key == "closed_on"
    kinds = {r[0]: r[2] for r in finding(report, "FLK000").tables[0].rows}
    assert kinds["closed_on"] == "time" and kinds["tenure"] == "numeric"


def test_a_constant_feature_scores_chance_and_is_no_finding(tmp_path: Path) -> None:
    frame = _table()
    frame["country"] = "NL"
    frame["version"] = 3
    report = _run(tmp_path, frame)
    assert codes(report) == ["FLK000"]
    rows = {r[0]: r for r in finding(report, "FLK000").tables[0].rows}
    assert rows["country"][2] == "constant" and rows["version"][2] == "constant"
    assert rows["country"][4] == 0.0


def test_a_label_with_one_class_in_holdout_is_not_scored_and_says_why(tmp_path: Path) -> None:
    frame = _table()
    frame.loc[frame["split"] == "test", "label"] = "no"
    frame["perfect_in_train"] = np.where(frame["label"] == "yes", 1, 0)
    report = _run(tmp_path, frame)
    f = finding(report, "FLK004")
    assert f.severity.value == "info" and "one class" in f.message and f.evidence["split"] == "test"
    assert codes(report) == ["FLK004"] and report.exit_code == 0


def test_a_multiclass_label_with_one_class_in_holdout_is_not_a_perfect_score(tmp_path: Path) -> None:
    frame = _table()
    frame["label"] = np.where(frame["split"] == "test", "b", np.array(["a", "b", "c"])[np.arange(len(frame)) % 3])
    frame["noise"] = np.random.default_rng(6).normal(size=len(frame))
    report = _run(tmp_path, frame)
    assert "FLK004" in codes(report) and "FLK001" not in codes(report)


def test_a_strong_real_feature_near_perfect_on_a_small_holdout_is_not_a_proxy(tmp_path: Path) -> None:
    """A marker two spreads apart (true ROC AUC 0.92, error 0.08) scores 0.97 on 40 holdout rows: near perfect, but
    it errs on a whole row's worth of the 20 'pos', so it is not a proxy, and FLK000 says why."""
    rng = np.random.default_rng(90)
    n = 400
    label = rng.random(n) < 0.5
    frame = pd.DataFrame(
        {
            "split": ["test"] * 40 + ["train"] * (n - 40),
            "marker": np.where(label, rng.normal(2, 1, n), rng.normal(0, 1, n)),
            "label": np.where(label, "pos", "neg"),
        }
    )
    report = _run(tmp_path, frame)
    assert "FLK001" not in codes(report) and report.exit_code == 0
    info = finding(report, "FLK000")
    assert info.evidence["best_legitimate"] == {"column": "marker", "score": 0.9725}
    assert info.evidence["smallest_class"] == {"class": "neg", "rows": 20}
    assert "'marker', reaches ROC AUC 0.973, near perfect on these rows but not shown to be a proxy" in info.message
    assert "its error is not shown below 0.03" in info.message


# -- label proxies on holdouts with few rows of a class -----------------------------------------------------------


def _two_classes(n: int, share: float, seed: int, holdout: float = 0.2) -> pd.DataFrame:
    """A random split of rows with a rare class 'pos' (``share`` of the rows) and one weak real feature."""
    rng = np.random.default_rng(seed)
    rare = rng.random(n) < share
    return pd.DataFrame(
        {
            "split": np.where(rng.random(n) < holdout, "test", "train"),
            "amount": np.round(rng.lognormal(3, 1, n), 2),
            "label": np.where(rare, "pos", "neg"),
        }
    )


def _rare(report: Report) -> dict[str, Any]:
    return finding(report, "FLK000").evidence["smallest_class"]


def test_a_copy_of_the_label_is_a_proxy_when_each_class_has_under_a_hundred_holdout_rows(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    n = 600
    frame = pd.DataFrame({"x": rng.normal(size=n), "label": rng.choice(["pos", "neg"], n)})
    frame["target_copy"] = frame["label"]
    frame["split"] = np.where(np.arange(n) < 480, "train", "test")
    report = _run(tmp_path, frame)
    f = finding(report, "FLK001")
    assert f.key == "target_copy" and f.evidence["score"] == 1.0 and report.exit_code == 1
    assert f.evidence["error_bound"] > 0.03  # the bound alone cannot show it on 47 rows of 'pos'
    assert f.evidence["smallest_class"] == {"class": "pos", "rows": 47}
    assert 0 < f.evidence["p_value"] < 1e-30  # 1 / C(120, 47): every 'pos' ranked above every 'neg' by chance
    assert "a column unrelated to the label would score as well with a chance of 2e-34" in f.message
    assert _flags(report) == {"target_copy": "proxy"}
    assert finding(report, "FLK000").evidence["best_legitimate"]["column"] == "x"


def test_a_yes_no_copy_of_a_one_percent_label_on_twenty_thousand_rows_is_a_proxy(tmp_path: Path) -> None:
    frame = _two_classes(20_000, 0.01, seed=1)
    frame["chargeback_flag"] = np.where(frame["label"] == "pos", "Y", "N")
    report = _run(tmp_path, frame)
    assert _rare(report)["class"] == "pos" and 20 <= _rare(report)["rows"] < 99
    f = finding(report, "FLK001")
    assert f.key == "chargeback_flag" and f.evidence["score"] == 1.0 and f.evidence["p_value"] < 1e-50
    assert _flags(report) == {"chargeback_flag": "proxy"} and report.exit_code == 1


def test_a_column_filled_only_for_the_rare_class_is_a_proxy_on_few_holdout_rows(tmp_path: Path) -> None:
    frame = _two_classes(5000, 0.11, seed=2, holdout=0.1)
    reasons = np.random.default_rng(3).choice(["price", "moved", "service", "other"], len(frame))
    frame["cancel_reason"] = np.where(frame["label"] == "pos", reasons, "")
    report = _run(tmp_path, frame)
    assert _rare(report)["rows"] < 99
    f = finding(report, "FLK001")
    assert f.key == "cancel_reason" and f.evidence["read_as"] == "categorical" and f.evidence["p_value"] < 1e-50
    assert report.exit_code == 1


def test_a_copy_of_a_multiclass_label_with_a_rare_class_is_a_proxy(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    n = 900
    label = rng.choice(["a", "b", "c"], n, p=[0.47, 0.47, 0.06])
    frame = pd.DataFrame({"x": rng.normal(size=n), "label": label, "code": np.char.add("k", label)})
    frame["split"] = np.where(rng.random(n) < 0.2, "test", "train")
    report = _run(tmp_path, frame)
    assert _rare(report)["class"] == "c" and _rare(report)["rows"] < 20
    f = finding(report, "FLK001")
    assert f.key == "code" and f.evidence["metric"] == "balanced accuracy" and f.evidence["score"] == 1.0
    assert f.evidence["error_bound"] > 0.03 and f.evidence["p_value"] < 1e-10


def test_a_moderately_predictive_feature_on_few_rare_rows_is_not_a_proxy(tmp_path: Path) -> None:
    frame = _two_classes(2000, 0.03, seed=4)
    rare = (frame["label"] == "pos").to_numpy()
    frame["risk_score"] = np.round(np.random.default_rng(5).normal(0, 1, len(frame)) + 0.75 * rare, 3)
    report = _run(tmp_path, frame)
    assert codes(report) == ["FLK000"] and report.exit_code == 0
    info = finding(report, "FLK000")
    assert info.evidence["best_legitimate"]["column"] == "risk_score"
    assert 0.6 < info.evidence["best_legitimate"]["score"] < 0.85
    assert _rare(report)["rows"] < 99
    assert "too few for even a perfect score to bound the error below 0.03 at 95% confidence (99 needed)" in (
        info.message
    )


def test_noise_that_ranks_ten_rare_rows_well_by_chance_is_not_a_proxy(tmp_path: Path) -> None:
    """Seed 583: a column of noise reaches ROC AUC 0.84 on 10 'pos' among 30 holdout rows. Neither its error nor its
    chance (7e-4 that noise does as well) comes near what a proxy needs."""
    import pyarrow as pa

    from auditor.manifest.featurepower import chance_of_score, encode, predict

    rng = np.random.default_rng(583)
    y = np.r_[(rng.random(400) < 0.3).astype(float), np.ones(10), np.zeros(20)]
    noise = rng.normal(size=len(y))
    train, holdout = np.arange(400), np.arange(400, 430)
    pred = predict(encode(pa.array(noise), "noise"), train, y[train], "binary", 2)
    chance = chance_of_score(pred[holdout], y[holdout], "binary")
    assert 1e-4 < chance < 1e-3  # far from max_p_value (1e-6)
    frame = pd.DataFrame(
        {
            "split": ["train"] * 400 + ["test"] * 30,
            "noise": noise,
            "label": np.where(y == 1, "pos", "neg"),
        }
    )
    report = _run(tmp_path, frame)
    assert codes(report) == ["FLK000"] and report.exit_code == 0
    info = finding(report, "FLK000")
    assert info.evidence["best_legitimate"] == {"column": "noise", "score": 0.8375}
    assert _rare(report) == {"class": "pos", "rows": 10}


def test_a_constant_feature_on_few_rare_rows_is_not_a_proxy(tmp_path: Path) -> None:
    frame = _two_classes(2000, 0.03, seed=6)
    frame["country"] = "NL"
    report = _run(tmp_path, frame)
    assert codes(report) == ["FLK000"] and report.exit_code == 0
    rows = {r[0]: r for r in finding(report, "FLK000").tables[0].rows}
    assert rows["country"][2] == "constant" and rows["country"][4] == 0.0
    assert _rare(report)["rows"] < 99


def test_a_perfect_score_on_too_few_rare_rows_to_tell_from_chance_is_not_called_legitimate(tmp_path: Path) -> None:
    """Four 'pos' among 30 holdout rows, every one ranked first: a column of noise would do that once in 27,405
    draws. Not a proxy, and not "legitimate-looking" either: FLK000 says it is near perfect and why unflagged."""
    rng = np.random.default_rng(8)
    y = np.r_[rng.random(400) < 0.3, np.ones(4, bool), np.zeros(26, bool)]
    frame = pd.DataFrame(
        {
            "split": ["train"] * 400 + ["test"] * 30,
            "status_code": np.where(y, "closed", "open"),
            "label": np.where(y, "pos", "neg"),
        }
    )
    report = _run(tmp_path, frame)
    assert codes(report) == ["FLK000"]
    info = finding(report, "FLK000")
    assert "legitimate-looking" not in info.message
    assert "the best feature not flagged, 'status_code', reaches ROC AUC 1.000, near perfect on these rows" in (
        info.message
    )


def test_without_features_or_label_the_stage_is_skipped_with_the_reason(tmp_path: Path) -> None:
    frame = _table()
    write_table(tmp_path / "m.csv", frame)
    for keys, reason in (({"label": "label"}, "keys.features"), ({"features": "auto"}, "keys.label")):
        path = write_config(tmp_path, {"manifest": {"path": "m.csv", "split": "split"}, "keys": keys})
        (result,) = run_audit(load_config(path), only=STAGE).stages
        assert result.status == "skipped" and reason in (result.skip_reason or "")


def test_the_sample_is_bounded_and_the_report_says_so(tmp_path: Path) -> None:
    frame = _table(n=3000)
    report = _run(tmp_path, frame, stages={"feature_leakage": {"max_rows": 500}})
    info = finding(report, "FLK000")
    assert info.evidence["train_rows"] == 500 and info.evidence["holdout_rows"] == 500
    assert "at most 500 per split" in info.message


def test_the_report_is_the_same_on_every_run(tmp_path: Path) -> None:
    frame = _table()
    first = _run(tmp_path, frame, stages={"feature_leakage": {"max_rows": 300}})
    second = _run(tmp_path, frame, stages={"feature_leakage": {"max_rows": 300}})
    assert [f.model_dump() for f in first.findings] == [f.model_dump() for f in second.findings]


def test_accept_by_column_accepts_the_proxy(tmp_path: Path) -> None:
    frame = _table()
    frame["refund"] = np.where(frame["label"] == "yes", 1.0, 0.0)
    accept = [{"code": "FLK001", "key": "refund", "reason": "refunds are decided before the churn date"}]
    report = _run(tmp_path, frame, accept=accept)
    assert [(f.code, f.accepted) for f in report.findings if f.code == "FLK001"] == [("FLK001", True)]
    assert report.exit_code == 0


def test_each_cross_validation_fold_is_scored(tmp_path: Path) -> None:
    frame = _table(n=1500).drop(columns="split")
    frame["fold"] = np.arange(len(frame)) % 3
    frame["refund"] = np.where(frame["label"] == "yes", 1.0, 0.0)
    write_table(tmp_path / "m.csv", frame)
    config = {"manifest": {"path": "m.csv", "folds": "fold"}, "keys": {"label": "label", "features": "auto"}}
    report = run_audit(load_config(write_config(tmp_path, config)), only=STAGE)
    proxies = [f for f in report.findings if f.code == "FLK001"]
    assert sorted(f.evidence["fold"] for f in proxies) == sorted({f.evidence["fold"] for f in report.findings})
    assert len(proxies) == 3 and {f.key for f in proxies} == {"refund"}


def test_out_of_core_the_same_sample_gives_the_same_findings(tmp_path: Path) -> None:
    from auditor.backends.engines import EngineSettings

    frame = _table()
    frame["refund"] = np.where(frame["label"] == "yes", 1.0, 0.0)
    write_table(tmp_path / "m.parquet", frame)
    config = write_config(
        tmp_path,
        {
            "manifest": {"path": "m.parquet", "split": "split", "id": "sid"},
            "keys": {"label": "label", "features": "auto"},
        },
    )
    memory = run_audit(load_config(config), only=STAGE)
    duck = run_audit(load_config(config), only=STAGE, engine=EngineSettings("duckdb"))
    assert [f.model_dump() for f in duck.findings] == [f.model_dump() for f in memory.findings]
    assert "FLK001" in codes(duck)


def test_each_holdout_split_is_scored_against_the_training_rows(tmp_path: Path) -> None:
    frame = _table(n=2400)
    frame["split"] = np.random.default_rng(8).choice(["train", "train", "val", "test"], len(frame))
    frame["refund"] = np.where(frame["label"] == "yes", 1.0, 0.0)
    report = _run(tmp_path, frame)
    assert sorted(f.evidence["split"] for f in report.findings if f.code == "FLK000") == ["test", "val"]
    assert sorted(f.evidence["split"] for f in report.findings if f.code == "FLK001") == ["test", "val"]
    assert len({f.fingerprint for f in report.findings if f.code == "FLK001"}) == 2


def test_task_regression_reads_a_few_integer_values_as_numbers(tmp_path: Path) -> None:
    frame = _table()
    frame["label"] = frame["calls"].clip(upper=5)  # 0..5: classes by default
    frame = frame.drop(columns="calls")
    assert finding(_run(tmp_path, frame), "FLK000").evidence["metric"] == "balanced accuracy"
    as_numbers = _run(tmp_path, frame, stages={"feature_leakage": {"task": "regression"}})
    assert finding(as_numbers, "FLK000").evidence["metric"] == "R²"


def test_the_stage_says_all_it_checks() -> None:
    from auditor.stages.data.feature_leakage import FeatureLeakage

    assert FeatureLeakage.summary.endswith("features that encode the split")


def test_real_data_in_its_shipped_order_is_numbered_by_class(tmp_path: Path) -> None:
    """load_wine comes sorted by class: without an id, the row number predicts the label, and only it."""
    from sklearn.datasets import load_wine

    frame = load_wine(as_frame=True).frame.rename(columns={"target": "label"})
    frame.insert(0, "split", np.where(np.random.default_rng(0).random(len(frame)) < 0.5, "test", "train"))
    report = _run(tmp_path, frame)
    assert [(f.code, f.key) for f in report.findings if f.code != "FLK000"] == [("FLK002", "(row number)")]


def _run_parquet(tmp_path: Path, frame: pd.DataFrame) -> Report:
    """Through Parquet: infinities and 64-bit integers reach the stage exactly as written."""
    write_table(tmp_path / "m.parquet", frame)
    config = {
        "version": 1,
        "manifest": {"path": "m.parquet", "split": "split"},
        "keys": {"label": "label", "features": "auto"},
    }
    return run_audit(load_config(write_config(tmp_path, config)), only=STAGE)


def test_infinities_in_a_feature_are_ordered_not_an_error(tmp_path: Path) -> None:
    frame = _table()
    frame.loc[[3, 7], "tenure"] = [np.inf, -np.inf]  # a few overflowed ratios: scored, no finding
    frame["overflowed"] = np.where(frame["label"] == "yes", np.inf, -np.inf)  # the label, as ±inf
    frame["huge"] = np.where(frame["label"] == "yes", 1e300, -1e300)  # past float32, which the trees read
    report = _run_parquet(tmp_path, frame)
    assert report.stages[0].status == "failed" and report.exit_code == 1
    assert _flags(report) == {"huge": "proxy", "overflowed": "proxy"}
    kinds = {r[0]: r[2] for r in finding(report, "FLK000").tables[0].rows}
    assert kinds["tenure"] == kinds["overflowed"] == "numeric"


def test_integers_past_2_to_the_53_are_numbers_and_exact_classes(tmp_path: Path) -> None:
    frame = _table()
    yes = (frame["label"] == "yes").to_numpy()
    frame["snowflake"] = (2**62 + yes * 2**50 + np.arange(len(frame)) * 7).astype(np.int64)  # ordered by class
    frame["account"] = (2**60 + np.random.default_rng(8).integers(0, 1000, len(frame))).astype(np.int64)
    report = _run_parquet(tmp_path, frame)
    assert report.stages[0].status != "error" and _flags(report) == {"snowflake": "proxy"}
    labels = frame.assign(label=(2**60 + yes).astype(np.int64))  # two classes one apart, past float64's precision
    info = finding(_run_parquet(tmp_path, labels), "FLK000")
    assert info.evidence["task"] == "binary" and info.evidence["base_rate"]["class"] == str(2**60 + 1)


def test_a_label_with_no_value_or_infinite_values_is_not_an_error(tmp_path: Path) -> None:
    frame = _table().assign(label=np.nan)
    f = finding(_run_parquet(tmp_path, frame), "FLK004")
    assert f.message == "the features were not scored against 'test': the training rows: no training row has a label."
    rng = np.random.default_rng(9)
    target = rng.normal(100, 10, 1200)
    target[[1, 2]] = [np.inf, -np.inf]  # a regression target with two overflowed values: missing, not a crash
    report = _run_parquet(tmp_path, _table().assign(label=target))
    info = finding(report, "FLK000")
    assert report.exit_code == 0 and info.evidence["task"] == "regression"
    assert info.evidence["train_rows"] + info.evidence["holdout_rows"] == 1198


def test_a_proxy_is_found_when_test_writes_the_label_1_0_and_train_1(tmp_path: Path) -> None:
    # test.csv was written from floats (an integer column with a missing value): its classes are 0.0 and 1.0.
    frame = _table(n=2000)
    rng = np.random.default_rng(7)
    frame["label"] = (frame["label"] == "yes").astype(int)
    frame["refund_amount"] = np.where(frame["label"] == 1, rng.uniform(20, 80, len(frame)), 0.0)
    write_table(tmp_path / "train.csv", frame[frame["split"] == "train"].drop(columns="split"))
    test = frame[frame["split"] == "test"].drop(columns="split").astype({"label": float})
    test.iloc[0, test.columns.get_loc("label")] = np.nan
    write_table(tmp_path / "test.csv", test)
    config = {
        "version": 1,
        "manifest": {"paths": {"train": "train.csv", "test": "test.csv"}, "id": "sid"},
        "keys": {"label": "label", "features": "auto"},
    }
    report = run_audit(load_config(write_config(tmp_path, config)), only=STAGE)
    assert _flags(report) == {"refund_amount": "proxy"}  # was FLK003: the test's classes were not train's
    f = finding(report, "FLK001")
    assert f.evidence["base_rate"]["class"] == "1" and report.exit_code == 1
