from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from auditor.core.errors import ManifestError
from auditor.fitted.fitmatch import written_rounding
from tests.conftest import codes, finding

ONLY = ["fitted_statistics"]
MANIFEST = {"id": "id"}


def frame(n_train: int = 60, n_val: int = 20, n_test: int = 20, seed: int = 0) -> pd.DataFrame:
    """Numeric features whose holdout rows are shifted, so train and all-rows statistics differ."""
    rng = np.random.default_rng(seed)
    n = n_train + n_val + n_test
    split = ["train"] * n_train + ["val"] * n_val + ["test"] * n_test
    df = pd.DataFrame(
        {
            "id": [f"s{i}" for i in range(n)],
            "split": split,
            "f1": rng.normal(5, 2, n),
            "f2": rng.normal(100, 10, n),
        }
    )
    df.loc[n_train:, "f1"] += 3.0
    return df


def rows(df: pd.DataFrame, *splits: str) -> pd.DataFrame:
    return df[df["split"].isin(splits)] if splits else df


def scaler(part: pd.DataFrame, ddof: int = 0, columns: tuple[str, ...] = ("f1", "f2")) -> dict[str, Any]:
    x = part[list(columns)]
    return {
        "feature_names_in_": list(columns),
        "mean_": x.mean().tolist(),
        "scale_": x.std(ddof=ddof).tolist(),
        "n_samples_seen_": x.count().tolist(),  # per column when values are missing, as scikit-learn
    }


def write(path: Path, content: Any) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path.name


def entry(name: str, kind: str, artifact: str, **more: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"name": name, "kind": kind, "artifact": artifact}
    if kind != "vocabulary":
        base["columns"] = ["f1", "f2"]
    base.update(more)
    return base


# -- standardize --------------------------------------------------------------------------------------


def test_scaler_fitted_on_all_rows_is_an_error_with_numbers_side_by_side(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    write(tmp_path / "scaler.json", scaler(rows(df)))
    r = audit(df, manifest=MANIFEST, fitted=[entry("norm", "standardize", "scaler.json")], only=ONLY)
    f = finding(r, "FIT001")
    assert f.severity == "error" and f.key == "norm"
    assert f.evidence["reproduces_from"] == ["all rows"]
    table = f.tables[0]
    assert table.columns[:4] == ("column", "statistic", "artifact", "train (claimed)")
    mean_f1 = next(row for row in table.rows if row[:2] == ("f1", "mean"))
    train_mean, all_mean = rows(df, "train")["f1"].mean(), df["f1"].mean()
    assert mean_f1[2] == pytest.approx(all_mean, rel=1e-6) and mean_f1[3] == pytest.approx(train_mean, rel=1e-6)
    assert r.exit_code == 1
    # Each candidate set's size, and its count beside the artifact's (it was "—" where the count differs).
    sizes = {"train": 60, "train+val": 80, "train+test": 80, "all rows": 100}
    assert f.evidence["rows_per_set"] == sizes
    counts = next(row for row in table.rows if row[:2] == ("f1", "count"))
    assert counts[2:] == (100, 60, 80, 80, 100)
    assert not any("rows_per_set" in k for k in f.scope.counts)  # more rows do not grow what an acceptance covers


def test_scaler_fitted_on_train_passes_with_either_std_convention(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    write(tmp_path / "sk.json", scaler(rows(df, "train"), ddof=0))
    write(tmp_path / "pd.json", scaler(rows(df, "train"), ddof=1))
    fitted = [entry("sk", "standardize", "sk.json"), entry("pd", "standardize", "pd.json")]
    r = audit(df, manifest=MANIFEST, fitted=fitted, only=ONLY)
    assert codes(r) == ["FIT000", "FIT000"] and r.exit_code == 0
    variants = {f.key: f.evidence["conventions"] for f in r.findings}
    assert variants == {"sk": "ddof=0, count of values", "pd": "ddof=1, count of values"}


def test_float32_rounding_still_matches(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    values = scaler(rows(df, "train"))
    rounded = {k: [float(np.float32(x)) for x in v] if k in ("mean_", "scale_") else v for k, v in values.items()}
    write(tmp_path / "f32.json", rounded)
    r = audit(df, manifest=MANIFEST, fitted=[entry("n", "standardize", "f32.json")], only=ONLY)
    assert codes(r) == ["FIT000"]


def rounded(values: dict[str, Any], decimals: int) -> dict[str, Any]:
    """The scaler as an export that writes its statistics to a few decimals (``round(x, 2)`` before json.dump)."""
    return {k: [round(x, decimals) for x in v] if k in ("mean_", "scale_") else v for k, v in values.items()}


def test_statistics_rounded_on_export_match_their_rows(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A mean written as 5.12 stands for 5.115 to 5.125: it reproduces from train (it was FIT002, matching
    nothing, off by over 100 times the tolerance)."""
    df = frame()
    write(tmp_path / "r2.json", rounded(scaler(rows(df, "train")), 2))
    r = audit(df, manifest=MANIFEST, fitted=[entry("n", "standardize", "r2.json")], only=ONLY)
    assert codes(r) == ["FIT000"]


def test_statistics_rounded_on_export_from_all_rows_are_still_a_leak(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    write(tmp_path / "r2.json", rounded(scaler(rows(df)), 2))
    r = audit(df, manifest=MANIFEST, fitted=[entry("n", "standardize", "r2.json")], only=ONLY)
    assert finding(r, "FIT001").evidence["reproduces_from"] == ["all rows"]


def test_written_rounding_is_half_the_last_written_digit() -> None:
    assert written_rounding(5.12) == pytest.approx(0.005)
    assert written_rounding(18.0) == pytest.approx(0.05)
    assert written_rounding(1.5e-5) == pytest.approx(5e-7)
    assert written_rounding(5.123456789012345) == 0.0  # full precision: nothing rounded
    assert written_rounding(float("nan")) == 0.0


def test_statistics_from_other_data_match_nothing(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    write(tmp_path / "old.json", {"feature_names_in_": ["f1", "f2"], "mean_": [4.0, 99.0], "scale_": [2.0, 10.0]})
    r = audit(df, manifest=MANIFEST, fitted=[entry("n", "standardize", "old.json")], only=ONLY)
    f = finding(r, "FIT002")
    assert f.severity == "warning" and "Closest: train, mean, scale off by" in f.message and r.exit_code == 0


def test_fitted_on_train_plus_val_is_named(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    write(tmp_path / "s.json", scaler(rows(df, "train", "val")))
    r = audit(df, manifest=MANIFEST, fitted=[entry("n", "standardize", "s.json")], only=ONLY)
    assert finding(r, "FIT001").evidence["reproduces_from"] == ["train+val"]


def test_claim_that_includes_a_holdout_split_is_an_error(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    write(tmp_path / "s.json", scaler(rows(df, "train", "val")))
    r = audit(
        df, manifest=MANIFEST, fitted=[entry("n", "standardize", "s.json", fitted_on=["train", "val"])], only=ONLY
    )
    assert finding(r, "FIT005").evidence["holdout"] == ["val"]
    assert "FIT000" in codes(r)  # the claim itself is true


def test_other_training_rows_than_claimed_is_a_warning(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    df.loc[:9, "split"] = "extra"
    write(tmp_path / "s.json", scaler(rows(df, "train")))
    r = audit(
        df,
        manifest=MANIFEST,
        splits={"train": ["train", "extra"], "holdout": ["val", "test"]},
        fitted=[entry("n", "standardize", "s.json", fitted_on=["train", "extra"])],
        only=ONLY,
    )
    assert finding(r, "FIT003").severity == "warning"


def test_indistinguishable_row_sets_are_info(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame(n_train=4, n_val=0, n_test=4)
    df.loc[4:, ["f1", "f2"]] = df.loc[:3, ["f1", "f2"]].to_numpy()  # test rows repeat train values
    values = scaler(rows(df, "train"))
    del values["n_samples_seen_"]  # the row count alone would tell them apart
    write(tmp_path / "s.json", values)
    r = audit(df, manifest=MANIFEST, fitted=[entry("n", "standardize", "s.json")], only=ONLY)
    f = finding(r, "FIT004")
    assert f.severity == "info" and f.evidence["reproduces_from"] == ["train", "all rows"]


def test_missing_values_are_ignored_as_scalers_do(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    df.loc[[1, 5, 70], "f1"] = np.nan
    write(tmp_path / "s.json", scaler(rows(df, "train")))
    r = audit(df, fmt="parquet", manifest=MANIFEST, fitted=[entry("n", "standardize", "s.json")], only=ONLY)
    assert codes(r) == ["FIT000"]


def test_constant_column_scale_one_as_scikit_learn_writes(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    df["f2"] = 7.0
    values = scaler(rows(df, "train"))
    values["scale_"][1] = 1.0
    write(tmp_path / "s.json", values)
    assert codes(audit(df, manifest=MANIFEST, fitted=[entry("n", "standardize", "s.json")], only=ONLY)) == ["FIT000"]


def test_sample_count_tells_row_sets_apart(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    values = scaler(rows(df, "train"))
    values["n_samples_seen_"] = len(df)
    write(tmp_path / "s.json", values)
    r = audit(df, manifest=MANIFEST, fitted=[entry("n", "standardize", "s.json")], only=ONLY)
    assert codes(r) == ["FIT002"]


# -- formats ------------------------------------------------------------------------------------------


def test_per_column_objects_and_csv_tables(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    train, everything = rows(df, "train"), rows(df)
    write(
        tmp_path / "cols.json",
        {"columns": {c: {"mean": everything[c].mean(), "std": everything[c].std()} for c in ("f2", "f1")}},
    )
    lines = ["column,mean,std"] + [
        f"{c},{float(train[c].mean())!r},{float(train[c].std(ddof=0))!r}" for c in ("f1", "f2")
    ]
    write(tmp_path / "stats.csv", "\n".join(lines) + "\n")
    write(tmp_path / "positional.json", {"mean_": [train.f1.mean(), train.f2.mean()]})
    fitted = [
        entry("cols", "standardize", "cols.json"),
        entry("table", "standardize", "stats.csv"),
        entry("positional", "standardize", "positional.json"),
    ]
    r = audit(df, manifest=MANIFEST, fitted=fitted, only=ONLY)
    assert {(f.code, f.key) for f in r.findings} == {("FIT001", "cols"), ("FIT000", "table"), ("FIT000", "positional")}


def test_minmax_csv(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    for name, part in (("all", rows(df)), ("train", rows(df, "train"))):
        lines = ["feature,data_min_,data_max_"] + [
            f"{c},{float(part[c].min())!r},{float(part[c].max())!r}" for c in ("f1", "f2")
        ]
        write(tmp_path / f"{name}.csv", "\n".join(lines))
    fitted = [entry("all", "minmax", "all.csv"), entry("train", "minmax", "train.csv")]
    r = audit(df, manifest=MANIFEST, fitted=fitted, only=ONLY)
    assert {(f.code, f.key) for f in r.findings} == {("FIT001", "all"), ("FIT000", "train")}


@pytest.mark.parametrize("strategy", ["mean", "median", "most_frequent"])
def test_imputer_strategy_is_recognized(audit, tmp_path: Path, strategy: str) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    df["f1"] = df["f1"].round(0)
    df["f2"] = df["f2"].round(0)
    df.loc[60:, "f1"] += 5

    def fill(part: pd.DataFrame) -> list[float]:
        if strategy == "most_frequent":
            return [float(part[c].value_counts().sort_index().idxmax()) for c in ("f1", "f2")]
        return [float(getattr(part[c], strategy)()) for c in ("f1", "f2")]

    write(tmp_path / "all.json", {"feature_names_in_": ["f1", "f2"], "statistics_": fill(rows(df))})
    write(tmp_path / "train.json", {"statistics_": fill(rows(df, "train")), "strategy": strategy})
    fitted = [entry("all", "impute", "all.json"), entry("train", "impute", "train.json")]
    r = audit(df, manifest=MANIFEST, fitted=fitted, only=ONLY)
    assert {(f.code, f.key) for f in r.findings} == {("FIT001", "all"), ("FIT000", "train")}


def test_imputer_of_a_text_column(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    df["f1"] = ["a"] * 30 + ["b"] * 30 + ["c"] * 40  # 'c' is the mode only with holdout rows
    write(tmp_path / "imp.json", {"feature_names_in_": ["f1"], "statistics_": ["c"], "strategy": "most_frequent"})
    r = audit(df, manifest=MANIFEST, fitted=[entry("imp", "impute", "imp.json", columns=["f1"])], only=ONLY)
    # train alone ties a/b (the smallest, 'a', wins); only with every holdout row is 'c' the mode
    assert finding(r, "FIT001").evidence["reproduces_from"] == ["all rows"]


# -- vocabulary ---------------------------------------------------------------------------------------


def texts() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "id": [f"d{i}" for i in range(6)],
            "split": ["train", "train", "train", "val", "test", "test"],
            "text": ["the cat sat", "The dog ran", "a cat", "zebra crossing", "the quokka", None],
        }
    )


def test_vocabulary_with_holdout_only_tokens(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write(tmp_path / "vocab.txt", "[PAD]\n[UNK]\nthe\ncat\nsat\nThe\ndog\nran\na\nzebra\ncrossing\nquokka\n")
    r = audit(texts(), manifest=MANIFEST, fitted=[entry("v", "vocabulary", "vocab.txt", text="text")], only=ONLY)
    f = finding(r, "FIT006")
    assert f.evidence["only_in_holdout"] == 3 and f.evidence["never_in_text"] == 2
    assert {e["token"] for e in f.examples} == {"zebra", "crossing", "quokka"}
    assert next(e for e in f.examples if e["token"] == "quokka")["test"] == 1


def test_vocabulary_json_from_train_rows_passes(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vocab = {t: i for i, t in enumerate(["<pad>", "the", "cat", "sat", "dog", "ran", "a"])}
    write(tmp_path / "vocab.json", vocab)
    fitted = [entry("v", "vocabulary", "vocab.json", text="text", tokenizer={"lowercase": True})]
    assert codes(audit(texts(), manifest=MANIFEST, fitted=fitted, only=ONLY)) == ["FIT000"]


def test_vocabulary_min_frequency(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # 'cat' occurs twice in train: kept with min_frequency 2. 'the' reaches 2 only with the test row.
    write(tmp_path / "v.json", {"vocabulary_": {"cat": 0, "the": 1}})
    spec = entry("v", "vocabulary", "v.json", text="text", tokenizer={"lowercase": True, "min_frequency": 3})
    fitted = [spec]
    r = audit(texts(), manifest=MANIFEST, fitted=fitted, only=ONLY)
    assert finding(r, "FIT006").examples[0]["token"] == "the"
    spec["tokenizer"]["min_frequency"] = 2
    assert codes(audit(texts(), manifest=MANIFEST, fitted=fitted, only=ONLY)) == ["FIT000"]


def test_vocabulary_document_frequency(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = texts()
    df.loc[0, "text"] = "cat cat cat"
    df.loc[4, "text"] = "the quokka cat"
    write(tmp_path / "v.json", ["cat"])
    spec = entry("v", "vocabulary", "v.json", text="text", tokenizer={"min_frequency": 3})
    assert codes(audit(df, manifest=MANIFEST, fitted=[spec], only=ONLY)) == ["FIT000"]  # 4 occurrences in train
    spec["tokenizer"]["frequency"] = "rows"  # but only 2 train rows hold it; the third is a test row
    assert codes(audit(df, manifest=MANIFEST, fitted=[spec], only=ONLY)) == ["FIT006"]


def test_vocabulary_token_pattern_and_split_pattern(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = texts()
    df.loc[3, "text"] = "zebra,crossing"
    write(tmp_path / "v.txt", "cat\nzebra\n")
    for tokenizer in ({"token_pattern": r"(?u)\b\w\w+\b"}, {"split_pattern": r"[\s,]+"}):
        spec = entry("v", "vocabulary", "v.txt", text="text", tokenizer=tokenizer)
        f = finding(audit(df, manifest=MANIFEST, fitted=[spec], only=ONLY), "FIT006")
        assert [e["token"] for e in f.examples] == ["zebra"]
    # Split on whitespace only, "zebra,crossing" is one token and 'zebra' is never seen.
    spec = entry("v", "vocabulary", "v.txt", text="text", tokenizer={"split_pattern": r"\s+"})
    assert "FIT006" not in codes(audit(df, manifest=MANIFEST, fitted=[spec], only=ONLY))
    # Without a tokenizer, the common one under which most tokens occur is chosen: here words, as scikit-learn.
    f = finding(
        audit(df, manifest=MANIFEST, fitted=[entry("v", "vocabulary", "v.txt", text="text")], only=ONLY), "FIT006"
    )
    assert [e["token"] for e in f.examples] == ["zebra"] and "scikit-learn" in f.evidence["tokenizer"]


def test_vocabulary_of_another_tokenizer_is_flagged(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write(tmp_path / "wp.txt", "\n".join(["[CLS]", "[SEP]", "##s", "##ing", "ca", "##t", "cat"]) + "\n")
    r = audit(texts(), manifest=MANIFEST, fitted=[entry("v", "vocabulary", "wp.txt", text="text")], only=ONLY)
    assert finding(r, "FIT007").evidence["in_text"] == 1


def test_tokenizers_json_shape(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write(
        tmp_path / "tokenizer.json",
        {"version": "1.0", "model": {"type": "WordLevel", "vocab": {"the": 0, "quokka": 1}}},
    )
    r = audit(texts(), manifest=MANIFEST, fitted=[entry("v", "vocabulary", "tokenizer.json", text="text")], only=ONLY)
    assert finding(r, "FIT006").examples[0]["token"] == "quokka"


# -- categories ---------------------------------------------------------------------------------------


def test_label_encoder_with_a_holdout_only_class(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = pd.DataFrame({"id": list(range(6)), "split": ["train"] * 3 + ["test"] * 3, "c": [1, 2, 1, 3, 2, 3]})
    write(tmp_path / "le.json", {"classes_": [1, 2, 3]})
    write(tmp_path / "ok.json", {"classes_": [1, 2]})
    fitted = [
        {"name": "le", "kind": "categories", "artifact": "le.json", "columns": ["c"]},
        {"name": "ok", "kind": "categories", "artifact": "ok.json", "columns": ["c"]},
    ]
    r = audit(df, fmt="parquet", manifest=MANIFEST, fitted=fitted, only=ONLY)
    f = finding(r, "FIT008")
    assert f.key == "le" and f.examples == ({"column": "c", "category": 3, "test": 2},)
    assert {(x.code, x.key) for x in r.findings} == {("FIT008", "le"), ("FIT000", "ok")}


def test_one_hot_categories_per_column_and_csv(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = pd.DataFrame(
        {
            "id": list(range(6)),
            "split": ["train"] * 3 + ["test"] * 3,
            "colour": ["red", "blue", "red", "green", "red", None],
            "size": ["S", "M", "L", "S", "XL", "M"],
        }
    )
    write(tmp_path / "ohe.json", {"categories_": [["blue", "red"], ["L", "M", "S", "XL"]]})
    write(tmp_path / "ohe.csv", "column,category\ncolour,blue\ncolour,green\ncolour,red\nsize,S\nsize,M\nsize,L\n")
    fitted = [
        {"name": "json", "kind": "categories", "artifact": "ohe.json", "columns": ["colour", "size"]},
        {"name": "csv", "kind": "categories", "artifact": "ohe.csv", "columns": ["colour", "size"]},
    ]
    r = audit(df, manifest=MANIFEST, fitted=fitted, only=ONLY)
    by_key = {f.key: f for f in r.findings}
    assert by_key["json"].examples == ({"column": "size", "category": "XL", "test": 1},)
    assert by_key["csv"].examples == ({"column": "colour", "category": "green", "test": 1},)


# -- selected features --------------------------------------------------------------------------------


def selection_frame() -> pd.DataFrame:
    """'leak' predicts y only on test rows; 'honest' predicts it a little everywhere."""
    rng = np.random.default_rng(3)
    n_train, n_test = 200, 200
    y = rng.integers(0, 2, n_train + n_test)
    honest = y * 0.3 + rng.normal(0, 1, len(y))
    leak = rng.normal(0, 1, len(y))
    leak[n_train:] = y[n_train:] * 4 + rng.normal(0, 0.1, n_test)
    noise = rng.normal(0, 1, len(y))
    return pd.DataFrame(
        {
            "id": range(len(y)),
            "split": ["train"] * n_train + ["test"] * n_test,
            "y": y,
            "honest": honest,
            "leak": leak,
            "noise": noise,
        }
    )


@pytest.mark.parametrize("method", ["correlation", "anova_f"])
def test_selection_that_reproduces_only_with_holdout_rows(audit, tmp_path: Path, method: str) -> None:  # type: ignore[no-untyped-def]
    write(tmp_path / "bad.json", {"selected": ["leak"]})
    write(tmp_path / "good.json", {"feature_names_in_": ["honest", "leak", "noise"], "support_": [True, False, False]})
    fitted = [
        {
            "name": n,
            "kind": "selected_features",
            "artifact": f"{n}.json",
            "columns": ["honest", "leak", "noise"],
            "method": method,
            "label": "y",
        }
        for n in ("bad", "good")
    ]
    r = audit(selection_frame(), manifest=MANIFEST, fitted=fitted, only=ONLY)
    assert {(f.code, f.key) for f in r.findings} == {("FIT001", "bad"), ("FIT000", "good")}
    assert finding(r, "FIT001").tables[0].columns == ("column", "selected", "train (claimed)", "all rows")


def test_selection_without_method_is_not_verified(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write(tmp_path / "sel.txt", "honest\n")
    fitted = [{"name": "s", "kind": "selected_features", "artifact": "sel.txt", "columns": ["honest", "leak"]}]
    f = finding(audit(selection_frame(), manifest=MANIFEST, fitted=fitted, only=ONLY), "FIT009")
    assert f.severity == "info" and f.evidence["selected"] == ["honest"]


# -- ids ----------------------------------------------------------------------------------------------


def test_fitted_ids_that_include_holdout_samples(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    values = scaler(rows(df, "train"))
    values["fitted_ids"] = ["s0", "s1", "s95", "ghost"]
    write(tmp_path / "s.json", values)
    r = audit(df, manifest=MANIFEST, fitted=[entry("n", "standardize", "s.json")], only=ONLY)
    f = finding(r, "FIT010")
    assert f.evidence["holdout_ids"] == {"test": 1} and f.examples == ({"id": "s95", "split": "test"},)
    assert finding(r, "FIT011").examples == ({"id": "ghost"},)


def test_integer_ids_are_matched_as_text(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = pd.DataFrame({"id": [1, 2, 3], "split": ["train", "train", "test"], "c": ["a", "b", "c"]})
    write(tmp_path / "c.json", {"classes_": ["a", "b"], "fitted_ids": [1, 3]})
    fitted = [{"name": "c", "kind": "categories", "artifact": "c.json", "columns": ["c"]}]
    assert finding(audit(df, fmt="parquet", manifest=MANIFEST, fitted=fitted, only=ONLY), "FIT010").examples == (
        {"id": 3, "split": "test"},
    )


# -- bad input ----------------------------------------------------------------------------------------


def errored(report) -> str:  # type: ignore[no-untyped-def]
    result = next(r for r in report.stages if r.stage == "fitted_statistics")
    assert result.status == "error" and report.exit_code == 2, result
    assert result.error is not None and result.error.traceback == ""
    return result.error.message


def test_missing_artifact_names_the_path_and_the_config_line(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    message = errored(audit(frame(), manifest=MANIFEST, fitted=[entry("n", "standardize", "nope.json")], only=ONLY))
    assert str(tmp_path / "nope.json") in message and "not found" in message
    assert "audit.yaml:" in message


def test_pickle_is_refused_with_an_export_hint(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "scaler.pkl").write_bytes(b"\x80\x04K\x01.")
    message = errored(audit(frame(), manifest=MANIFEST, fitted=[entry("n", "standardize", "scaler.pkl")], only=ONLY))
    assert "runs code" in message and "json.dump" in message


def test_every_artifact_problem_is_reported_at_once(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write(tmp_path / "broken.json", '{"mean_": [1.0,\n  2.0,,]}')
    write(tmp_path / "bad.csv", "column,mean\nf1,1.5\nf2,abc\n")
    fitted = [entry("a", "standardize", "broken.json"), entry("b", "standardize", "bad.csv")]
    message = errored(audit(frame(), manifest=MANIFEST, fitted=fitted, only=ONLY))
    assert "broken.json:2:" in message and "not valid JSON" in message
    assert "bad.csv:3: fitted 'b'" in message and "expected a number, got 'abc'" in message


def test_artifact_columns_the_config_does_not_list(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    df["f3"] = 1.0
    write(tmp_path / "s.json", scaler(rows(df, "train"), columns=("f1", "f2", "f3")))
    message = errored(audit(df, manifest=MANIFEST, fitted=[entry("n", "standardize", "s.json")], only=ONLY))
    assert "['f3']" in message and "does not list" in message


def test_positional_values_of_the_wrong_length(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write(tmp_path / "s.json", {"mean_": [1.0, 2.0, 3.0]})
    message = errored(audit(frame(), manifest=MANIFEST, fitted=[entry("n", "standardize", "s.json")], only=ONLY))
    assert "names no columns" in message and "feature_names_in_" in message


def test_column_missing_from_the_manifest(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write(tmp_path / "s.json", scaler(rows(frame(), "train")))
    with pytest.raises(ManifestError, match=r"'f9'.*fitted\[0\]|f9.*audit.yaml:\d+:\d+"):
        audit(frame(), manifest=MANIFEST, fitted=[entry("n", "standardize", "s.json", columns=["f1", "f9"])], only=ONLY)


def test_non_numeric_column_names_the_value_and_row(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    df["f2"] = df["f2"].astype(object)
    df.loc[42, "f2"] = "f2"  # a header line repeated inside the file
    write(tmp_path / "s.json", scaler(rows(frame(), "train")))
    message = errored(audit(df, manifest=MANIFEST, fitted=[entry("n", "standardize", "s.json")], only=ONLY))
    assert "column 'f2'" in message and "'f2' at row 42" in message


def test_claimed_split_that_does_not_exist(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write(tmp_path / "s.json", scaler(rows(frame(), "train")))
    fitted = [entry("n", "standardize", "s.json", fitted_on=["training"])]
    message = errored(audit(frame(), manifest=MANIFEST, fitted=fitted, only=ONLY))
    assert "['training']" in message and "do not occur" in message


def test_fitted_ids_need_an_id_column(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    values = scaler(rows(df, "train"))
    values["fitted_ids"] = ["s1"]
    write(tmp_path / "s.json", values)
    message = errored(audit(df, fitted=[entry("n", "standardize", "s.json")], only=ONLY))
    assert "manifest.id" in message


def test_artifact_is_never_modified(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    write(tmp_path / "s.json", scaler(rows(df)))
    before = (tmp_path / "s.json").read_bytes()
    audit(df, manifest=MANIFEST, fitted=[entry("n", "standardize", "s.json")], only=ONLY)
    assert (tmp_path / "s.json").read_bytes() == before


# -- conventions real exports follow ----------------------------------------------------------------------


def test_most_frequent_numbers_from_a_csv_break_ties_numerically(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = pd.DataFrame(
        {
            "id": [f"r{i}" for i in range(9)],
            "split": ["train"] * 6 + ["test"] * 3,
            "age": [30, 30, 40, 41, 42, None, 5, 5, 7],
            "x": [2.5, 2.5, 10, 10, 3, 4, 1, 1, 1],
        }
    )
    write(
        tmp_path / "all.json",
        {"feature_names_in_": ["age", "x"], "statistics_": [5.0, 1.0], "strategy": "most_frequent"},
    )
    write(tmp_path / "train.json", {"statistics_": [30.0, 2.5], "strategy": "most_frequent"})
    fitted = [
        entry("all", "impute", "all.json", columns=["age", "x"]),
        entry("train", "impute", "train.json", columns=["age", "x"]),
    ]
    r = audit(df, manifest=MANIFEST, fitted=fitted, only=ONLY)  # CSV: the columns are read as text
    assert {(f.code, f.key) for f in r.findings} == {("FIT001", "all"), ("FIT000", "train")}


def test_minmax_count_of_rows_including_missing_values(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    df.loc[[3, 70], "f2"] = np.nan
    # MinMaxScaler counts every row in n_samples_seen_, missing values included.
    everything = {
        "data_min_": [df.f1.min(), df.f2.min()],
        "data_max_": [df.f1.max(), df.f2.max()],
        "n_samples_seen_": len(df),
    }
    write(tmp_path / "mm.json", {"feature_names_in_": ["f1", "f2"], **everything})
    r = audit(df, manifest=MANIFEST, fitted=[entry("mm", "minmax", "mm.json")], only=ONLY)
    assert finding(r, "FIT001").evidence["conventions"] == "count of rows"


def test_rows_with_a_missing_value_dropped_before_fitting(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    df.loc[[3, 70, 90], "f2"] = np.nan
    complete = df.dropna(subset=["f1", "f2"])
    write(tmp_path / "s.json", scaler(complete))  # fitted on all rows after dropna()
    r = audit(df, fmt="parquet", manifest=MANIFEST, fitted=[entry("n", "standardize", "s.json")], only=ONLY)
    f = finding(r, "FIT001")
    assert "rows with a missing value dropped" in f.tables[0].title


def test_missing_value_spellings_in_a_csv_are_missing(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    df["f1"] = df["f1"].astype(object)
    df.loc[[2, 5, 8], "f1"] = ["NaN", "NA", "null"]
    train = rows(df, "train").copy()
    train["f1"] = pd.to_numeric(train["f1"], errors="coerce")
    write(tmp_path / "s.json", scaler(train))
    assert codes(audit(df, manifest=MANIFEST, fitted=[entry("n", "standardize", "s.json")], only=ONLY)) == ["FIT000"]


def test_pandas_statistic_major_json(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    train = rows(df, "train")[["f1", "f2"]]
    write(tmp_path / "pd.json", train.agg(["mean", "std"]).to_json())  # {"f1": {"mean":..}, ...}
    write(tmp_path / "pd2.json", {"mean": train.mean().to_dict(), "std": train.std().to_dict()})
    fitted = [entry("a", "standardize", "pd.json"), entry("b", "standardize", "pd2.json")]
    assert codes(audit(df, manifest=MANIFEST, fitted=fitted, only=ONLY)) == ["FIT000", "FIT000"]


def test_a_sample_count_alone_is_not_a_statistic(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    write(tmp_path / "typo.json", {"feature_names_in_": ["f1", "f2"], "means_": [1, 2], "n_samples_seen_": 60})
    write(tmp_path / "scaler.json", scaler(rows(df, "train")))
    fitted = [entry("typo", "standardize", "typo.json"), entry("kind", "minmax", "scaler.json")]
    message = errored(audit(df, manifest=MANIFEST, fitted=fitted, only=ONLY))
    assert "no standardize statistics found" in message and "means_" in message
    assert "no minmax statistics found" in message and "look like kind standardize: is `kind` right?" in message


def test_imputer_strategy_conflict_and_constant_fill(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    write(tmp_path / "med.json", {"statistics_": [1.0, 2.0], "strategy": "median"})
    message = errored(
        audit(df, manifest=MANIFEST, fitted=[entry("m", "impute", "med.json", strategy="mean")], only=ONLY)
    )
    assert "config says strategy 'mean' but the artifact says 'median'" in message
    write(tmp_path / "const.json", {"statistics_": [0.0, 0.0], "strategy": "constant"})
    f = finding(audit(df, manifest=MANIFEST, fitted=[entry("c", "impute", "const.json")], only=ONLY), "FIT009")
    assert f.severity == "info" and f.evidence["strategy"] == "constant"


def test_count_vectorizer_vocabulary_without_tokenizer_settings(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = pd.DataFrame(
        {
            "id": range(6),
            "split": ["train"] * 4 + ["test"] * 2,
            "text": ["good movie", "bad movie", "Good plot!", "bad acting", "Terrible movie!", "Boring, bad."],
        }
    )
    vocabulary = {t: i for i, t in enumerate(["acting", "bad", "boring", "good", "movie", "plot", "terrible"])}
    write(tmp_path / "cv.json", {"vocabulary_": vocabulary})
    f = finding(
        audit(df, manifest=MANIFEST, fitted=[entry("cv", "vocabulary", "cv.json", text="text")], only=ONLY), "FIT006"
    )
    assert sorted(e["token"] for e in f.examples) == ["boring", "terrible"]


def test_text_without_any_token_does_not_crash(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = pd.DataFrame({"id": [1, 2], "split": ["train", "test"], "text": ["", ""]})
    write(tmp_path / "v.json", ["a", "b"])
    r = audit(df, manifest=MANIFEST, fitted=[entry("v", "vocabulary", "v.json", text="text")], only=ONLY)
    assert codes(r) == ["FIT007"] and finding(r, "FIT007").evidence["in_text"] == 0
    spec = entry("v", "vocabulary", "v.json", text="text", tokenizer={"token_pattern": "zzz"})
    assert codes(audit(df, manifest=MANIFEST, fitted=[spec], only=ONLY)) == ["FIT007"]


def test_correlation_with_a_text_label_suggests_anova(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = selection_frame()
    df["y"] = np.where(df["y"] == 1, "yes", "no")
    write(tmp_path / "sel.json", {"selected": ["leak"]})
    fitted = [
        {"name": "s", "kind": "selected_features", "artifact": "sel.json", "columns": ["honest", "leak"],
         "method": "correlation", "label": "y"}
    ]  # fmt: skip
    assert "use `method: anova_f`" in errored(audit(df, manifest=MANIFEST, fitted=fitted, only=ONLY))


def test_a_null_in_an_artifact_is_not_compared_and_the_leak_still_shows(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = frame()
    values = scaler(rows(df))
    values["scale_"][1] = None
    write(tmp_path / "s.json", values)
    f = finding(audit(df, manifest=MANIFEST, fitted=[entry("n", "standardize", "s.json")], only=ONLY), "FIT001")
    assert f.evidence["not_compared"] == ["scale of f2"] and "ddof=0" in f.tables[0].title
    write(tmp_path / "all_null.json", {"feature_names_in_": ["f1", "f2"], "mean_": [None, None]})
    message = errored(audit(df, manifest=MANIFEST, fitted=[entry("n", "standardize", "all_null.json")], only=ONLY))
    assert "every value is null, NaN or inf" in message


def test_empty_vocabularies_and_empty_json_are_input_errors(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write(tmp_path / "blank.txt", "\n\n")
    write(tmp_path / "empty.json", "")
    write(tmp_path / "list.json", [])
    fitted = [
        entry("blank", "vocabulary", "blank.txt", text="text"),
        entry("empty", "vocabulary", "empty.json", text="text"),
        entry("list", "vocabulary", "list.json", text="text"),
    ]
    message = errored(audit(texts(), manifest=MANIFEST, fitted=fitted, only=ONLY))
    assert "blank.txt: fitted 'blank'" in message and "the vocabulary holds no token" in message
    assert "empty.json: fitted 'empty'" in message and "the file is empty" in message
    assert "list.json: fitted 'list'" in message and "empty JSON object or list" in message


def test_a_misspelled_claimed_split_gets_a_suggestion(audit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write(tmp_path / "s.json", scaler(rows(frame(), "train")))
    fitted = [entry("n", "standardize", "s.json", fitted_on=["trian"])]
    assert "did you mean 'train'?" in errored(audit(frame(), manifest=MANIFEST, fitted=fitted, only=ONLY))
