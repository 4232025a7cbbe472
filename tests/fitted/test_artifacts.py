from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from auditor.core.config import FittedSpec
from auditor.fitted.artifacts import ArtifactError, load_artifact


def load(tmp_path: Path, name: str, content: Any, kind: str = "standardize", **spec: Any):  # type: ignore[no-untyped-def]
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    if kind == "vocabulary":
        spec.setdefault("text", "t")
    else:
        spec.setdefault("columns", ["a", "b"])
    return load_artifact(path, FittedSpec(name="x", kind=kind, artifact=name, **spec), "audit.yaml:3:5")


def test_named_arrays_are_reordered_to_the_config(tmp_path: Path) -> None:
    a = load(tmp_path, "s.json", {"feature_names_in_": ["b", "a"], "mean_": [2.0, 1.0], "var_": [4, 1]})
    assert a.columns == ("a", "b") and a.stats == {"mean": (1.0, 2.0), "var": (1.0, 4.0)}


def test_scalar_sample_count_and_disabled_mean(tmp_path: Path) -> None:
    a = load(tmp_path, "s.json", {"mean_": None, "scale_": [1, 2], "n_samples_seen_": 7})
    assert a.stats == {"scale": (1.0, 2.0), "count": (7.0, 7.0)}


def test_per_column_objects_at_top_level(tmp_path: Path) -> None:
    a = load(tmp_path, "s.json", {"a": {"min": 0, "max": 1}, "b": {"minimum": -1, "maximum": 5}}, kind="minmax")
    assert a.stats == {"min": (0.0, -1.0), "max": (1.0, 5.0)}


def test_imputer_csv_with_strategy_and_text_fill(tmp_path: Path) -> None:
    a = load(
        tmp_path, "i.tsv", "column\tvalue\tstrategy\na\t3.5\tmost_frequent\nb\tred\tmost_frequent\n", kind="impute"
    )
    assert a.stats == {"fill": (3.5, "red")} and a.strategy == "most_frequent"


def test_missing_value_in_csv_is_nan(tmp_path: Path) -> None:
    a = load(tmp_path, "s.csv", "column,mean,std\na,,1\nb,2,1\n")
    assert math.isnan(a.stats["mean"][0])


@pytest.mark.parametrize(
    ("content", "tokens"),
    [
        ({"[PAD]": 0, "cat": 1}, ("[PAD]", "cat")),
        (["cat", "dog"], ("cat", "dog")),
        ({"model": {"type": "Unigram", "vocab": [["<unk>", 0.0], ["cat", -2.5]]}}, ("<unk>", "cat")),
        ({"vocabulary_": {"cat": 0}}, ("cat",)),
    ],
)
def test_vocabulary_json_shapes(tmp_path: Path, content: Any, tokens: tuple[str, ...]) -> None:
    assert load(tmp_path, "v.json", content, kind="vocabulary").tokens == tokens


def test_vocab_txt_keeps_tokens_exactly(tmp_path: Path) -> None:
    a = load(tmp_path, "vocab.txt", "[PAD]\r\n \r\n##ing\r\n", kind="vocabulary")
    assert a.tokens == ("[PAD]", " ", "##ing")


def test_categories_shapes(tmp_path: Path) -> None:
    per_column = load(
        tmp_path, "c.json", {"columns": {"a": {"categories": ["x"]}, "b": ["y", None]}}, kind="categories"
    )
    assert per_column.categories == (("x",), ("y",))
    single = load(tmp_path, "c.txt", "x\ny\n", kind="categories", columns=["a"])
    assert single.categories == (("x", "y"),)
    with pytest.raises(ArtifactError, match="one list, for one column"):
        load(tmp_path, "le.json", {"classes_": [1, 2]}, kind="categories")


def test_selection_shapes(tmp_path: Path) -> None:
    mask = load(tmp_path, "s.json", {"support_": [False, True]}, kind="selected_features")
    assert mask.selected == ("b",)
    listed = load(tmp_path, "s.csv", "feature\nb\n", kind="selected_features")
    assert listed.selected == ("b",)
    with pytest.raises(ArtifactError, match=r"\['zz'\] are not among the candidates"):
        load(tmp_path, "bad.json", {"selected": ["zz"]}, kind="selected_features")


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("s.json", {"feature_names_in_": ["a"], "mean_": [1.0]}, r"config lists column\(s\) \['b'\]"),
        ("s.json", {"mean_": "1.0"}, "must be a list"),
        ("s.json", {"mean_": [1.0, "x"]}, "holds 'x'; expected a number"),
        ("s.json", {"foo": [1]}, "no standardize statistics found"),
        ("s.json", [1, 2], "expected a JSON object"),
        ("s.csv", "column,mean\na,1,2\n", "s.csv:2: .*3 field"),
        ("s.csv", "column,whatever\na,1\n", "names no statistic"),
        ("s.txt", "1\n2\n", "a plain list holds"),
        ("s.npz", "x", "unknown artifact format"),
        ("s.joblib", "x", "is a pickle"),
        ("s.json", {"mean_": [1, 2], "fitted_ids": "s1"}, "list of sample ids"),
    ],
)
def test_bad_artifacts_name_file_and_problem(tmp_path: Path, name: str, content: Any, message: str) -> None:
    with pytest.raises(ArtifactError, match=message) as info:
        load(tmp_path, name, content)
    assert str(tmp_path / name) in str(info.value) and "fitted 'x'" in str(info.value)


def test_not_utf8_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "v.txt").write_bytes(b"cat\ndog\n\xff\xfe\n")
    with pytest.raises(ArtifactError, match=r"v.txt:3: .*not UTF-8"):
        load_artifact(tmp_path / "v.txt", FittedSpec(name="x", kind="vocabulary", artifact="v.txt", text="t"), "here")


def test_deeply_nested_json_names_where_it_gets_too_deep(tmp_path: Path) -> None:
    deep = '{"mean_":\n' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(ArtifactError, match=r"scaler\.json:2:100: .*nested more than 100 levels deep"):
        load(tmp_path, "scaler.json", deep)


@pytest.mark.parametrize("command", ["run", "validate"])
def test_deeply_nested_artifact_exits_2_with_its_position(tmp_path: Path, command: str) -> None:
    import shutil

    from typer.testing import CliRunner

    from auditor.cli import app
    from tests.conftest import REPO

    target = tmp_path / "clinic"
    shutil.copytree(REPO / "sample_data" / "clinic", target, ignore=shutil.ignore_patterns("audit-report"))
    (target / "artifacts" / "scaler.json").write_text("[" * 50_000 + "]" * 50_000, encoding="utf-8")
    args = [command, str(target / "audit.yaml")] + (["--only", "fitted_statistics"] if command == "run" else [])
    result = CliRunner().invoke(app, args, env={"COLUMNS": "300"})
    assert result.exit_code == 2
    flat = "".join(result.output.split())  # the terminal wraps long lines wherever its width falls
    assert "scaler.json:1:101:" in flat and "nestedmorethan100levelsdeep" in flat
    assert "RecursionError" not in result.output
