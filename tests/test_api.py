"""The in-code entry points: a DataFrame, an Arrow table, a DatasetDict and a splitter reach the same config and
the same report as a YAML file and its manifest."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import yaml

import auditor
from auditor import load_config, run_audit
from auditor.api import SplitterFolds, fold_columns, loaded_config, splitter_table, to_arrow
from auditor.core.config import ManifestSpec, config_from_mapping
from auditor.core.errors import ArgumentError, ConfigError, ManifestError
from auditor.core.findings import Report
from auditor.core.output import REPORT_JSON, read_report_state
from auditor.manifest.memory import table_sha256
from auditor.manifest.table import load_manifest
from tests.conftest import REPO

SAMPLES = REPO / "sample_data"
FOLDS_IN_CONFIG = "folds" in ManifestSpec.model_fields
needs_folds = pytest.mark.skipif(
    not FOLDS_IN_CONFIG, reason="the config does not yet accept manifest.folds (ManifestSpec has no `folds`)"
)


def _sample(name: str) -> tuple[Path, dict[str, Any], dict[str, Any], pd.DataFrame]:
    """A sample's folder, its manifest section, its other sections, and its manifest read as the file form
    reads a CSV: every column as text, an empty field as missing."""
    folder = SAMPLES / name
    sections = yaml.safe_load((folder / "audit.yaml").read_text(encoding="utf-8"))
    manifest = sections.pop("manifest")
    frame = pd.read_csv(folder / manifest["path"], dtype=str, keep_default_na=False, na_values=[""])
    return folder, manifest, sections, frame


def _shares(finding: Any, column: str, value: str) -> bool:
    """Whether ``finding`` is group_overlap's GRP001 on ``column`` naming ``value`` among the shared groups."""
    examples = [e.get("group") for e in finding.examples]
    return finding.code == "GRP001" and finding.evidence.get("key") == column and value in examples


def _comparable(report: Report, config_location: str | None = None) -> dict[str, Any]:
    """The report's JSON without what must differ between the file and the in-code form: when it was made,
    the config's path and digest (and where a config line is cited), the manifest's files, source and digest,
    and the stages' durations."""
    text = report.model_dump_json()
    if config_location is not None:  # a config line is cited as 'config' when there is no file
        text = re.sub(re.escape(json.dumps(config_location)[1:-1]) + r"(:\d+:\d+)?", "config", text)
    data = json.loads(text)
    for name in ("generated_at", "config_path", "config_sha256"):
        data.pop(name)
    for name in ("paths", "sha256", "source"):
        data["manifest"].pop(name)
    for stage in data["stages"]:
        stage.pop("duration_s")
    return data


@pytest.mark.parametrize("name", ["handwriting", "clinic", "support_tickets", "video_frames", "customer_churn"])
def test_a_samples_manifest_as_a_dataframe_gives_the_files_report(name: str) -> None:
    folder, manifest, sections, frame = _sample(name)
    from_file = run_audit(load_config(folder / "audit.yaml"))
    in_code = auditor.audit(frame, split=manifest["split"], id=manifest.get("id"), base_dir=folder, **sections)
    assert from_file.exit_code == in_code.exit_code == 1
    assert in_code.findings, "the sample's leaks are found"
    assert _comparable(in_code) == _comparable(from_file, str(folder / "audit.yaml"))
    assert (
        in_code.manifest is not None and in_code.manifest.paths == () and in_code.manifest.source == "pandas.DataFrame"
    )
    assert in_code.config_path is None and in_code.config_sha256 is None


@pytest.mark.parametrize("name", ["handwriting", "clinic"])
def test_the_in_code_config_is_the_files_config(name: str) -> None:
    folder, manifest, sections, frame = _sample(name)
    from_file = load_config(folder / "audit.yaml").config
    in_code = loaded_config(frame, split=manifest["split"], id=manifest.get("id"), base_dir=folder, **sections)
    assert in_code.config.model_copy(update={"manifest": from_file.manifest}) == from_file
    assert in_code.config.manifest == from_file.manifest.model_copy(update={"path": None})  # type: ignore[union-attr]
    assert in_code.base_dir == folder.resolve()


def test_a_clean_table_passes_and_a_leaking_one_fails() -> None:
    """Exit codes are the auditor's: writer w2 in train and test fails the run; the same rows with each writer
    in one split pass, though ids and labels look alike across splits."""
    leaking = pa.table(
        {
            "id": ["a1", "a2", "b1", "b2"],
            "writer": ["w1", "w2", "w2", "w3"],
            "split": ["train", "train", "test", "test"],
        }
    )
    clean = leaking.set_column(1, "writer", pa.array(["w1", "w1", "w2", "w2"]))
    failed = auditor.audit(leaking, id="id", keys={"groups": ["writer"]})
    passed = auditor.audit(clean, id="id", keys={"groups": ["writer"]})
    assert failed.exit_code == 1 and any(_shares(f, "writer", "w2") for f in failed.findings)
    assert passed.exit_code == 0 and not any(f.code == "GRP001" for f in passed.findings)
    assert auditor.audit(leaking, id="id", keys={"groups": ["writer"]}, report={"fail_on": "never"}).exit_code == 0
    with pytest.raises(ConfigError, match="unknown key 'exit_code'"):  # the verdict is never the caller's
        auditor.audit(leaking, id="id", exit_code=0)


def test_the_report_shows_itself_in_a_notebook_and_is_frozen() -> None:
    report = auditor.audit(pa.table({"split": ["train", "test"], "g": ["x", "x"]}), keys={"groups": ["g"]})
    html = report._repr_html_()
    assert "<title>split-auditor report</title>" in html and "in memory" in html
    with pytest.raises(Exception, match="frozen"):
        report.exit_code = 0  # type: ignore[misc]


def test_the_numeric_section_runs_beside_rows_given_in_code() -> None:
    """The user's code runs in its own process, which is given the config without the rows."""
    pytest.importorskip("torch")
    folder = SAMPLES / "numeric" / "regression" / "buggy"
    numeric = yaml.safe_load((folder / "audit.yaml").read_text(encoding="utf-8"))["numeric"]
    table = pa.table({"split": ["train", "test"], "g": ["a", "b"]})
    report = auditor.audit(table, keys={"groups": ["g"]}, numeric=numeric, base_dir=folder)
    codes = {f.code for f in report.findings}
    assert {"BRD001", "NAN001", "GRD004"} <= codes and not any(r.status == "error" for r in report.stages)


# -- the manifest layer: a table in memory, its digest ------------------------------------------------


def test_the_manifest_takes_the_tables_columns_without_a_copy() -> None:
    table = pa.table(
        {"sample": ["a", "b", "c"], "writer": ["w1", "w2", "w2"], "split": ["train", "test", "test"], "x": [1, 2, 3]}
    )
    loaded = loaded_config(table, id="sample", keys={"groups": ["writer"]})
    manifest = load_manifest(loaded)
    assert manifest.table.column_names == ["sample", "split", "writer", "__split__"]  # no `x`: only named columns
    address = table["writer"].chunks[0].buffers()[1].address
    assert manifest.table["writer"].chunks[0].buffers()[1].address == address
    assert manifest.files == () and manifest.where == "auditor.audit(data=…)"


def test_the_digest_is_of_the_rows_not_of_their_layout() -> None:
    rows = {"id": [f"s{i}" for i in range(10)], "split": ["train"] * 6 + ["test"] * 4, "n": list(range(10))}
    one = pa.table(rows)
    chunked = pa.concat_tables([one.slice(0, 3), one.slice(3)])
    encoded = one.set_column(1, "split", one["split"].dictionary_encode())
    large = one.set_column(0, "id", one["id"].cast(pa.large_string()))
    from_pandas = pa.Table.from_pandas(pd.DataFrame(rows))
    digests = {table_sha256(t) for t in (one, chunked, encoded, large, from_pandas)}
    assert len(digests) == 1
    changed = one.set_column(2, "n", pa.array([*range(9), 99]))
    assert table_sha256(changed) not in digests
    assert table_sha256(one.select(["split", "id", "n"])) not in digests  # another column order
    report = auditor.audit(pd.DataFrame(rows), id="id", keys={"label": "n"})
    assert report.manifest is not None
    assert report.manifest.sha256 == table_sha256(one.select(["id", "split", "n"]))


def test_a_config_with_rows_in_code_names_no_file() -> None:
    placeholder = to_arrow(pa.table({"split": ["train"]}), ["split"], "data")[0]
    from auditor.core.source import TableSource

    source = TableSource(placeholder, "data", "pyarrow.Table")
    with pytest.raises(ConfigError, match="names no file; drop 'path'"):
        config_from_mapping({"manifest": {"path": "m.csv", "split": "split"}}, source=source)
    with pytest.raises(ConfigError, match="`split` is needed"):
        config_from_mapping({"manifest": {"id": "id"}}, source=source)
    with pytest.raises(ConfigError, match="give either `path`"):  # the file form is unchanged
        config_from_mapping({"manifest": {"split": "split"}})


# -- bad arguments: typed errors naming the argument and the form expected --------------------------


def test_a_missing_column_names_the_argument_and_the_closest_column() -> None:
    frame = pd.DataFrame({"writer": ["a", "b"], "split": ["train", "test"]})
    with pytest.raises(ManifestError) as caught:
        auditor.audit(frame, keys={"groups": ["writr"]})
    message = str(caught.value)
    assert "auditor.audit(data=…): no column 'writr' (did you mean 'writer'?)" in message
    assert "'writr' is named by keys.groups[0]" in message


def test_a_split_column_absent_is_named() -> None:
    frame = pd.DataFrame({"writer": ["a", "b"], "fold": ["train", "test"]})
    with pytest.raises(ManifestError, match=r"(?s)no column 'split'.*'split' is named by manifest\.split"):
        auditor.audit(frame)
    assert auditor.audit(frame, split="fold").manifest.rows_per_split == {"train": 1, "test": 1}  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("data", "named"),
    [([{"split": "train"}], "list"), (np.zeros((2, 2)), "numpy.ndarray"), ({"split": ["train"]}, "dict")],
)
def test_an_unsupported_object_names_the_types_accepted(data: Any, named: str) -> None:
    with pytest.raises(ArgumentError) as caught:
        auditor.audit(data)
    assert str(caught.value) == (
        f"auditor.audit(data=…): expected a pandas.DataFrame, a polars.DataFrame or a pyarrow.Table, got {named}"
    )


def test_a_bad_section_is_refused_by_the_configs_own_model() -> None:
    table = pa.table({"split": ["train", "test"]})
    with pytest.raises(ConfigError, match=r"^auditor\.audit\(\): unknown key 'keys\.grups'; did you mean 'groups'\?"):
        auditor.audit(table, keys={"grups": ["w"]})
    with pytest.raises(ConfigError, match=r"unknown key 'splts'; did you mean 'splits'\?"):
        auditor.audit(table, splts={"train": ["train"]})
    with pytest.raises(ConfigError, match=r"report\.fail_on: Input should be 'error', 'warning' or 'never'"):
        auditor.audit(table, report={"fail_on": "sometimes"})
    with pytest.raises(ArgumentError, match=r"auditor\.audit\(manifest=…\): the rows are the data argument"):
        auditor.audit(table, manifest={"path": "m.csv"})


def test_a_column_arrow_cannot_hold_is_named() -> None:
    frame = pd.DataFrame({"split": ["train", "test"], "g": [object(), object()], "unused": [object(), 1]})
    with pytest.raises(ManifestError, match=r"auditor\.audit\(data=…\): cannot read column 'g' as Arrow"):
        auditor.audit(frame, keys={"groups": ["g"]})
    surrogate = frame.assign(g=pd.Series(["a\udcff", "b"], dtype=object))  # a lone surrogate: not UTF-8
    with pytest.raises(ManifestError, match=r"cannot read column 'g' as Arrow \('utf-8' codec can't encode"):
        auditor.audit(surrogate, keys={"groups": ["g"]})
    # A column nobody names is never converted: an image column of objects does not stop the audit.
    assert auditor.audit(frame.assign(g=["a", "b"]), keys={"groups": ["g"]}).exit_code == 0


def test_a_categorical_split_with_an_unused_category_is_no_empty_split() -> None:
    """Correct input that looks suspicious: integer ids and a pandas Categorical split whose categories name a
    split no row is in; each group stays in one split, so the audit passes."""
    splits = pd.Categorical(["train", "train", "test", "test"], categories=["train", "val", "test"])
    frame = pd.DataFrame({"id": [1, 2, 3, 4], "g": ["a", "a", "b", "b"], "split": splits})
    report = auditor.audit(frame, id="id", keys={"groups": ["g"]})
    assert report.manifest is not None and report.manifest.rows_per_split == {"train": 2, "test": 2}
    assert report.exit_code == 0, [f.code for f in report.findings if f.severity == "error"]


def test_duplicate_column_names_are_named() -> None:
    table = pa.table([pa.array(["train", "test"]), pa.array(["a", "b"])], names=["split", "split"])
    with pytest.raises(ManifestError, match=r"auditor\.audit\(data=…\): column name 'split' occurs twice"):
        auditor.audit(table)
    rows = [["1", "w1", "train", "x"], ["2", "b", "train", "y"], ["3", "w1", "test", "z"]]
    frame = pd.DataFrame(rows, columns=["sample_id", "writer", "split", "writer"])
    with pytest.raises(ManifestError, match=r"auditor\.audit\(data=…\): column name 'writer' occurs twice"):
        auditor.audit(frame, id="sample_id", keys={"groups": ["writer"]})
    assert auditor.audit(frame, id="sample_id").exit_code == 0  # a column named by no role may be repeated


def test_an_id_kept_as_the_index_is_read() -> None:
    frame = pd.DataFrame({"sample": ["a", "a", "b"], "split": ["train", "test", "test"]}).set_index("sample")
    report = auditor.audit(frame, id="sample")
    assert any(f.code.startswith("SPL") and "a" in json.dumps(f.examples) for f in report.findings)
    assert report.exit_code == 1  # id a is in train and test


def test_an_id_kept_both_as_the_index_and_as_a_column_is_read() -> None:
    """set_index(..., drop=False) keeps the ids twice, with the same values: the audit reads them (was a bare
    pandas ValueError), and reports what the plain frame gives."""
    frame = pd.DataFrame(
        {"sample": ["a", "a", "b", "c"], "writer": ["w1", "w2", "w1", "w3"], "split": ["train", "test", "test", "val"]}
    )
    plain = auditor.audit(frame, id="sample", keys={"groups": ["writer"]})
    assert plain.exit_code == 1 and {"SPL001", "GRP001"} <= {f.code for f in plain.findings}
    for indexed in (frame.set_index("sample", drop=False), frame.set_index(["writer", "sample"], drop=False)):
        report = auditor.audit(indexed, id="sample", keys={"groups": ["writer"], "features": "auto"})
        expected = auditor.audit(frame, id="sample", keys={"groups": ["writer"], "features": "auto"})
        assert [(f.code, f.message) for f in report.findings] == [(f.code, f.message) for f in expected.findings]


def test_interval_and_period_columns_are_read_as_the_text_a_csv_holds(tmp_path: Path) -> None:
    """pd.cut bins and monthly periods (pandas types Arrow keeps as extensions) as groups are audited as their
    text, as the same frame written to CSV is (was: a bare ArrowNotImplementedError)."""
    frame = pd.DataFrame({"score": [float(i) for i in range(12)], "split": ["train"] * 8 + ["test"] * 4})
    frame["band"] = pd.cut(frame["score"], [-1, 5, 8, 11])  # (5, 8] holds train rows 6, 7 and test row 8
    frame["month"] = pd.Series(pd.date_range("2021-01-01", periods=12, freq="10D")).dt.to_period("M")
    keys = {"groups": ["band", "month"]}
    in_code = auditor.audit(frame, keys=keys, only=["group_overlap"])
    frame.to_csv(tmp_path / "m.csv", index=False)
    (tmp_path / "audit.yaml").write_text(
        yaml.safe_dump({"manifest": {"path": "m.csv", "split": "split"}, "keys": keys}), encoding="utf-8"
    )
    from_csv = auditor.audit_config(tmp_path / "audit.yaml", only=["group_overlap"])
    shared = {f.evidence["key"]: [e["group"] for e in f.examples] for f in in_code.findings if f.code == "GRP001"}
    assert shared == {"band": ["(5, 8]"], "month": ["2021-03"]}
    assert [(f.code, f.message) for f in in_code.findings] == [(f.code, f.message) for f in from_csv.findings]
    clean = frame.assign(band=pd.cut(frame["score"], [-1, 7, 11]))  # one band per split: no finding on it
    assert not [f for f in auditor.audit(clean, keys={"groups": ["band"]}, only=["group_overlap"]).findings]


def test_an_index_level_and_a_column_of_one_name_with_different_values_is_refused_naming_it() -> None:
    frame = pd.DataFrame({"sample": ["a", "b", "c"], "split": ["train", "test", "test"]})
    frame.index = pd.Index(["x", "y", "z"], name="sample")  # which of the two is the id?
    with pytest.raises(ManifestError) as caught:
        auditor.audit(frame, id="sample")
    assert str(caught.value) == (
        "auditor.audit(data=…): 'sample' is both an index level and a column, with different values (row 0: "
        "index 'x', column 'a'); expected one of them: drop the index (reset_index(drop=True)) or the column"
    )


@pytest.mark.skipif(importlib.util.find_spec("polars") is None, reason="polars is not installed")
def test_a_polars_frame_gives_the_pandas_frames_report() -> None:
    import polars as pl

    folder, manifest, sections, frame = _sample("handwriting")
    kwargs = {"split": manifest["split"], "id": manifest.get("id"), "base_dir": folder, **sections}
    assert _comparable(auditor.audit(pl.from_pandas(frame), **kwargs)) == _comparable(auditor.audit(frame, **kwargs))


def test_polars_categorical_and_enum_columns_give_the_plain_texts_report() -> None:
    """polars' Categorical and Enum reach Arrow as dictionaries with unsigned indices (uint32, uint8), nulls
    among them: as a split, a group key or a label they give the report of the same columns as plain text."""
    import polars as pl

    plain = pl.DataFrame(
        {
            "id": ["a", "b", "c", "d", "e"],
            "split": ["train", "train", "test", "test", None],
            "writer": ["w1", "w2", "w1", None, "w3"],
            "label": ["x", "y", "x", "y", "x"],
        }
    )
    keys = {"groups": ["writer"], "label": "label"}
    expected = _comparable(auditor.audit(plain, split="split", id="id", keys=keys))
    assert expected["exit_code"] == 1  # w1 is in train and test
    for split in (pl.Categorical, pl.Enum(["train", "test"])):
        coded = plain.with_columns(
            pl.col("split").cast(split), pl.col("writer").cast(pl.Categorical), pl.col("label").cast(pl.Categorical)
        )
        assert _comparable(auditor.audit(coded, split="split", id="id", keys=keys)) == expected


def test_an_arrow_table_with_unsigned_dictionary_indices_is_audited() -> None:
    split = pa.DictionaryArray.from_arrays(pa.array([0, 0, 1, None], pa.uint32()), pa.array(["train", "test"]))
    report = auditor.audit(pa.table({"id": [1, 2, 3, 4], "split": split}), split="split", id="id")
    assert report.exit_code == 0 and report.manifest is not None
    assert report.manifest.rows_per_split == {"train": 2, "test": 1}


def test_an_arrow_table_of_string_views_gives_the_plain_texts_report() -> None:
    """string_view and binary_view columns (as polars may hand over) hold the same values as string ones."""
    plain = pa.table(
        {
            "id": ["a", "b", "c", "d"],
            "split": ["train", "train", "test", "test"],
            "writer": ["w1", "w2", "w1", None],
        }
    )
    views = plain.cast(pa.schema([pa.field(n, pa.string_view()) for n in plain.column_names]))
    keys = {"groups": ["writer"]}
    expected = auditor.audit(plain, id="id", keys=keys)
    report = auditor.audit(views, id="id", keys=keys)
    assert expected.exit_code == 1 and _comparable(report) == _comparable(expected)
    assert report.manifest is not None and expected.manifest is not None
    assert report.manifest.sha256 == expected.manifest.sha256
    raw = pa.table({"split": ["train", "test"], "digest": pa.array([b"\x01", b"\x02"], pa.binary_view())})
    with pytest.raises(ManifestError, match=r"column 'digest' holds large_binary values.*bytes\.hex\(\)"):
        auditor.audit(raw, keys={"content_hash": "digest"})


def test_the_libraries_load_only_when_used() -> None:
    """`import auditor` and reaching its entry points load no data library; auditing an Arrow table loads
    neither polars nor datasets nor scikit-learn."""
    code = (
        "import sys, auditor\n"
        "entry = (auditor.audit, auditor.audit_splitter, auditor.audit_dataset_dict, auditor.write_report)\n"
        "heavy = ('pandas', 'pyarrow', 'numpy', 'polars', 'datasets', 'sklearn')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
        "import pyarrow as pa\n"
        "auditor.audit(pa.table({'split': ['train', 'test'], 'g': ['a', 'b']}), keys={'groups': ['g']})\n"
        "print(sorted(m for m in ('polars', 'datasets', 'sklearn') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.split("\n")[:2] == ["[]", "[]"]


# -- writing and submitting ---------------------------------------------------------------------------


def test_write_report_writes_like_the_cli_and_never_over_a_foreign_file(tmp_path: Path) -> None:
    report = auditor.audit(pa.table({"split": ["train", "test"], "g": ["a", "a"]}), keys={"groups": ["g"]})
    written = auditor.write_report(report, tmp_path / "out", ["json", "html"])
    assert [p.name for p in written] == ["report.html", REPORT_JSON]  # report.json last
    assert read_report_state(tmp_path / "out" / REPORT_JSON).is_verdict
    assert Report.model_validate_json((tmp_path / "out" / REPORT_JSON).read_text()) == report
    auditor.write_report(report, tmp_path / "out", ["markdown"])
    assert not (tmp_path / "out" / "report.html").exists()  # an earlier report file would contradict this one
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [REPORT_JSON, "report.md"]  # the verdict too
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "report.md").write_text("my notes\n")
    with pytest.raises(Exception, match="not a file split-auditor wrote"):
        auditor.write_report(report, foreign, ["markdown"])
    assert (foreign / "report.md").read_text() == "my notes\n"
    with pytest.raises(ArgumentError, match=r"formats=…\): 'pdf'; expected some of json, markdown"):
        auditor.write_report(report, tmp_path / "x", ["pdf"])


def test_submit_report_uploads_to_the_service(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from tests.service.harness import LiveServer, run_cli

    report = auditor.audit(pa.table({"split": ["train", "test"], "g": ["a", "a"]}), keys={"groups": ["g"]})
    server = LiveServer(tmp_path / "data", extra=["--workers", "0"])
    server.start()
    try:
        made = run_cli("token", "create", "--role", "submitter", "--name", "Sam", "--data-dir", str(server.data_dir))
        token = made.stdout.strip()
        page = auditor.submit_report(report, server.url, project="notebook", token=token)
        assert page.startswith(server.url)
        with server.client(token) as c:
            run = c.get(f"/api/projects/notebook/runs/{page.rstrip('/').rsplit('/', 1)[-1]}").json()
        assert run["exit_code"] == 1 and run["state"] == "completed"
    finally:
        server.stop()


# -- a Hugging Face DatasetDict -----------------------------------------------------------------------

try:
    import datasets
except ImportError:  # the `hf` extra
    datasets = None
needs_datasets = pytest.mark.skipif(datasets is None, reason="datasets (the hf extra) is not installed")


def _dataset_dict() -> Any:
    return datasets.DatasetDict(
        {
            "train": datasets.Dataset.from_dict(
                {"id": ["a", "b", "c"], "writer": ["w1", "w1", "w2"], "label": [0, 1, 0]}
            ),
            "test": datasets.Dataset.from_pandas(
                pd.DataFrame({"id": ["d", "e"], "writer": ["w2", "w3"], "label": [1, 2]}), preserve_index=False
            ),
        }
    )


@needs_datasets
def test_a_dataset_dict_is_audited_split_by_split() -> None:
    report = auditor.audit_dataset_dict(_dataset_dict(), id="id", keys={"groups": ["writer"], "label": "label"})
    assert report.manifest is not None
    assert report.manifest.rows_per_split == {"train": 3, "test": 2}
    assert report.manifest.source == "datasets.DatasetDict"
    assert any(_shares(f, "writer", "w2") for f in report.findings)
    assert report.exit_code == 1


@needs_datasets
def test_a_dataset_dict_gives_the_report_of_the_same_rows_as_a_dataframe() -> None:
    dd = _dataset_dict()
    frame = pd.concat([dd[name].to_pandas().assign(split=name) for name in dd], ignore_index=True)
    kwargs: dict[str, Any] = {"id": "id", "keys": {"groups": ["writer"], "label": "label"}}
    from_dd = _comparable(auditor.audit_dataset_dict(dd, **kwargs))
    assert from_dd == _comparable(auditor.audit(frame, **kwargs))


@needs_datasets
def test_a_dataset_dicts_columns_come_through_arrow_without_a_copy() -> None:
    from auditor.api import _dataset_dict_table

    dd = _dataset_dict()
    table = _dataset_dict_table(dd, "f", "split", ["id", "split", "writer"])
    own = dd["train"].data.table["writer"].chunks[0].buffers()[2].address
    assert table["writer"].chunks[0].buffers()[2].address == own
    assert table["split"].to_pylist() == ["train"] * 3 + ["test"] * 2


@needs_datasets
def test_a_dataset_split_by_train_test_split_is_read_through_its_indices() -> None:
    whole = datasets.Dataset.from_dict({"id": [f"s{i}" for i in range(20)], "writer": [f"w{i % 4}" for i in range(20)]})
    dd = whole.train_test_split(test_size=0.25, seed=0)
    report = auditor.audit_dataset_dict(dd, id="id", keys={"groups": ["writer"]})
    assert report.manifest is not None and report.manifest.rows_per_split == {"train": 15, "test": 5}
    assert not any(f.code.startswith("SPL00") and f.severity == "error" for f in report.findings)  # ids unique
    assert any(f.code == "GRP001" for f in report.findings)  # row-wise split of 4 writers shares them


def _writers(train: Sequence[str | None], test: Sequence[str | None], encode: tuple[str, ...]) -> Any:
    """A DatasetDict of writers and labels, the splits in ``encode`` class-encoded each on its own (so a code
    stands for another name in each)."""
    parts = {"train": train, "test": test}
    dd = {}
    for name, writers in parts.items():
        rows = {
            "id": [f"{name}{i}" for i in range(len(writers))],
            "writer": writers,
            "label": [None if w is None else ("neg", "pos")[i % 2] for i, w in enumerate(writers)],
        }
        dataset = datasets.Dataset.from_dict(rows)
        dd[name] = dataset.class_encode_column("writer").class_encode_column("label") if name in encode else dataset
    return datasets.DatasetDict(dd)


_ENCODED = [("test",), ("train", "test")]  # one split class-encoded, or each on its own


@pytest.mark.parametrize("encode", _ENCODED)
@needs_datasets
def test_class_label_columns_are_compared_by_name_in_every_split(encode: tuple[str, ...]) -> None:
    """A writer shared by name is found whatever the codes (was: test's codes beside train's names, no finding;
    each split encoded alone, codes 0 and 1 reported as shared), and the report is the plain texts' report."""
    train, test = ["alice", "bob", "carol"], ["carol", "dave"]
    if encode == ("test",):
        train, test = ["alice", "bob"], ["alice", "dave"]
    kwargs: dict[str, Any] = {"id": "id", "keys": {"groups": ["writer"], "label": "label"}}
    encoded = auditor.audit_dataset_dict(_writers(train, test, encode), **kwargs)
    shared = [f for f in encoded.findings if f.code == "GRP001"]
    assert encoded.exit_code == 1 and len(shared) == 1
    assert f"1 'writer' value ('{test[0]}') occurs in both" in shared[0].message
    plain = auditor.audit_dataset_dict(_writers(train, test, ()), **kwargs)
    assert [(f.code, f.message) for f in encoded.findings] == [(f.code, f.message) for f in plain.findings]


@pytest.mark.parametrize("encode", _ENCODED)
@needs_datasets
def test_class_label_columns_whose_codes_coincide_share_no_name(encode: tuple[str, ...]) -> None:
    """Codes 0 and 1 in both splits, or names beside codes 0, 1: no writer is shared, so none is reported, and a
    label missing (None, code -1) is missing, as in the plain texts."""
    train, test = ["alice", "bob", "0"], ["carol", "dave", None]
    kwargs: dict[str, Any] = {"id": "id", "keys": {"groups": ["writer"], "label": "label"}}
    encoded = auditor.audit_dataset_dict(_writers(train, test, encode), **kwargs)
    assert not [f for f in encoded.findings if f.code == "GRP001"]
    plain = auditor.audit_dataset_dict(_writers(train, test, ()), **kwargs)
    assert [(f.code, f.message) for f in encoded.findings] == [(f.code, f.message) for f in plain.findings]


@needs_datasets
def test_a_class_encoded_dataset_split_by_train_test_split_names_its_writers() -> None:
    """Both splits share one ClassLabel, read through the indices mapping: the shared writers are named, not coded."""
    whole = datasets.Dataset.from_dict({"id": [f"s{i}" for i in range(20)], "writer": [f"w{i % 4}" for i in range(20)]})
    dd = whole.class_encode_column("writer").train_test_split(test_size=0.25, seed=0)
    report = auditor.audit_dataset_dict(dd, id="id", keys={"groups": ["writer"]})
    (shared,) = [f for f in report.findings if f.code == "GRP001"]
    assert {e["group"] for e in shared.examples} <= {"w0", "w1", "w2", "w3"} and shared.examples


@needs_datasets
def test_a_class_label_code_of_minus_one_is_no_label_as_in_an_unlabelled_test_split() -> None:
    """A test split released without labels holds the code -1 (GLUE's): no label, as None in plain text (was: the
    label '-1', unseen in training)."""
    features = datasets.Features({"id": datasets.Value("string"), "label": datasets.ClassLabel(names=["neg", "pos"])})

    def coded(ids: list[str], codes: list[int]) -> Any:
        return datasets.Dataset(pa.table({"id": ids, "label": codes}), info=datasets.DatasetInfo(features=features))

    encoded = datasets.DatasetDict({"train": coded(["a", "b", "c"], [0, 1, 0]), "test": coded(["d", "e"], [-1, -1])})
    plain = datasets.DatasetDict(
        {
            "train": datasets.Dataset.from_dict({"id": ["a", "b", "c"], "label": ["neg", "pos", "neg"]}),
            "test": datasets.Dataset.from_dict({"id": ["d", "e"], "label": [None, None]}),
        }
    )
    kwargs: dict[str, Any] = {"id": "id", "keys": {"label": "label"}}
    from_codes, from_text = (auditor.audit_dataset_dict(dd, **kwargs) for dd in (encoded, plain))
    assert not any("'-1'" in f.message for f in from_codes.findings)
    assert [(f.code, f.message) for f in from_codes.findings] == [(f.code, f.message) for f in from_text.findings]


@needs_datasets
def test_a_class_label_code_past_its_names_is_refused_naming_the_split_and_column() -> None:
    features = datasets.Features({"id": datasets.Value("int64"), "writer": datasets.ClassLabel(names=["a", "b"])})
    bad = datasets.Dataset(pa.table({"id": [1, 2], "writer": [0, 5]}), info=datasets.DatasetInfo(features=features))
    no_label = datasets.Dataset(pa.table({"id": [3], "writer": [-1]}), info=datasets.DatasetInfo(features=features))
    with pytest.raises(
        ManifestError, match=r"dd\['train'\]\): column 'writer' is a ClassLabel of 2 names, but holds the code 5"
    ):
        auditor.audit_dataset_dict(datasets.DatasetDict({"train": bad, "test": no_label}), keys={"groups": ["writer"]})


@needs_datasets
def test_a_tokenized_dataset_dict_under_features_auto_gives_the_report_of_its_parquet_file(tmp_path: Path) -> None:
    """input_ids and attention_mask (lists of token ids) are no features under `auto`: a tokenized DatasetDict is
    audited (was: refused as if the config named input_ids as a key) and its file gives the same report (was:
    two stages crashed on the list column)."""
    parts = {
        "train": {"id": ["a", "b", "c", "d"], "writer": ["w1", "w1", "w2", "w4"], "label": [0, 1, 0, 1]},
        "validation": {"id": ["e", "f"], "writer": ["w2", "w3"], "label": [1, 0]},  # w2 is also in train
    }
    frames = {
        name: pd.DataFrame(
            {
                **rows,
                "length": [len(i) * 3 for i in rows["id"]],
                "input_ids": [[101, 7 + k, 102] for k in range(len(rows["id"]))],
                "attention_mask": [[1, 1, 1]] * len(rows["id"]),
            }
        )
        for name, rows in parts.items()
    }
    dd = datasets.DatasetDict({n: datasets.Dataset.from_pandas(f, preserve_index=False) for n, f in frames.items()})
    keys = {"groups": ["writer"], "label": "label", "features": "auto"}
    in_code = auditor.audit_dataset_dict(dd, id="id", keys=keys)
    pd.concat([f.assign(split=n) for n, f in frames.items()], ignore_index=True).to_parquet(tmp_path / "m.parquet")
    (tmp_path / "audit.yaml").write_text(
        yaml.safe_dump({"manifest": {"path": "m.parquet", "id": "id", "split": "split"}, "keys": keys}),
        encoding="utf-8",
    )
    from_file = auditor.audit_config(tmp_path / "audit.yaml")
    assert not [s.stage for s in from_file.stages if s.status == "error"]
    assert in_code.exit_code == from_file.exit_code == 1
    assert any(f.code == "GRP001" for f in in_code.findings)  # the writer in both splits is still found
    assert [(f.code, f.message) for f in in_code.findings] == [(f.code, f.message) for f in from_file.findings]


@needs_datasets
def test_a_dataset_dict_missing_a_column_names_the_split() -> None:
    with pytest.raises(
        ManifestError, match=r"audit_dataset_dict\(dd\['train'\]\): no column 'writr' \(did you mean 'writer'\?\)"
    ):
        auditor.audit_dataset_dict(_dataset_dict(), keys={"groups": ["writr"]})
    with pytest.raises(ArgumentError, match=r"expected a datasets\.DatasetDict, got pandas\.DataFrame"):
        auditor.audit_dataset_dict(pd.DataFrame({"a": [1]}))
    with pytest.raises(ArgumentError, match="audit it with auditor.audit_dataset_dict"):
        auditor.audit(_dataset_dict())


def test_the_hf_extra_names_datasets() -> None:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert 'hf = ["datasets>=2.19"]' in text


# -- sklearn-style splitters: one column per fold -----------------------------------------------------

try:
    from sklearn import model_selection as sklearn
except ImportError:
    sklearn = None
needs_sklearn = pytest.mark.skipif(sklearn is None, reason="scikit-learn is not installed")


def _patients(n_patients: int = 6, visits: int = 4) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "visit": [f"v{i:03d}" for i in range(n_patients * visits)],
            "patient": [f"p{i // visits}" for i in range(n_patients * visits)],
            "label": [i % 2 for i in range(n_patients * visits)],
        }
    )


def _columns(folds: SplitterFolds) -> dict[str, np.ndarray]:
    assert folds.overlaps == ()  # no fold trains on its own holdout rows
    return {name: np.asarray(column.cast(pa.string()).to_pylist()) for name, column in folds.columns.items()}


@needs_sklearn
def test_group_kfold_holds_each_patient_out_once_and_never_trains_on_it() -> None:
    frame = _patients()
    folds = _columns(fold_columns(sklearn.GroupKFold(n_splits=3), frame, groups=frame["patient"]))
    assert list(folds) == ["fold_0", "fold_1", "fold_2"]
    holdouts = np.stack([col == "holdout" for col in folds.values()])
    assert (holdouts.sum(axis=0) == 1).all()  # every row is in exactly one fold's holdout
    for col in folds.values():
        assert set(col) == {"train", "holdout"}
        held = set(frame["patient"][col == "holdout"])
        assert held and held.isdisjoint(set(frame["patient"][col == "train"]))


@needs_sklearn
def test_time_series_split_leaves_the_future_unused() -> None:
    X = np.arange(12).reshape(-1, 1)
    folds = _columns(fold_columns(sklearn.TimeSeriesSplit(n_splits=3, gap=1), X))
    first = folds["fold_0"]
    assert list(first) == ["train"] * 2 + ["unused"] + ["holdout"] * 3 + ["unused"] * 6
    assert list(folds["fold_2"][-3:]) == ["holdout"] * 3 and folds["fold_2"][8] == "unused"  # the gap


@needs_sklearn
def test_leave_one_group_out_makes_one_fold_per_group() -> None:
    frame = _patients(n_patients=4)
    folds = _columns(fold_columns(sklearn.LeaveOneGroupOut(), frame, groups=frame["patient"]))
    assert len(folds) == 4
    assert [sorted(set(frame["patient"][c == "holdout"])) for c in folds.values()] == [["p0"], ["p1"], ["p2"], ["p3"]]


@needs_sklearn
def test_train_test_split_indices_are_one_fold() -> None:
    from sklearn.model_selection import train_test_split

    rows = np.arange(10)
    train, test = train_test_split(rows, test_size=0.3, random_state=0)

    class Indices:
        def split(self, X: Any, y: Any = None, groups: Any = None) -> Any:
            yield train, test

    folds = _columns(fold_columns(Indices(), rows))
    assert list(folds) == ["fold_0"]
    assert sorted(np.flatnonzero(folds["fold_0"] == "holdout")) == sorted(test)
    assert (folds["fold_0"] != "unused").all()


@needs_sklearn
def test_repeated_kfold_is_named_and_partitioned_repetition_by_repetition() -> None:
    X = np.zeros((12, 1))
    folds = _columns(fold_columns(sklearn.RepeatedKFold(n_splits=3, n_repeats=2, random_state=0), X))
    assert list(folds) == [f"rep_{r}_fold_{k}" for r in range(2) for k in range(3)]
    for r in range(2):
        held = np.stack([folds[f"rep_{r}_fold_{k}"] == "holdout" for k in range(3)])
        assert (held.sum(axis=0) == 1).all()  # each repetition is a partition of the rows
    assert not (folds["rep_0_fold_0"] == folds["rep_1_fold_0"]).all()  # the repetitions shuffle differently


@needs_sklearn
def test_groups_and_y_become_keys_and_other_keys_come_from_x() -> None:
    frame = _patients().assign(hospital_visit=lambda f: [f"h{i % 3}" for i in range(len(f))])
    table, keys, folds = splitter_table(
        sklearn.GroupKFold(n_splits=2), frame, frame["label"], frame["patient"], keys={"groups": ["hospital_visit"]}
    )
    # Columns of X given as y and groups are those columns, named as a file form names them.
    assert keys == {"groups": ["patient", "hospital_visit"], "label": "label"}
    assert list(folds.columns) == ["fold_0", "fold_1"] and folds.overlaps == ()
    assert sorted(table.column_names) == ["fold_0", "fold_1", "hospital_visit", "label", "patient"]
    # Arrays have no name: they are the columns `groups` and `y`.
    table, keys, _ = splitter_table(
        sklearn.GroupKFold(n_splits=2),
        frame,
        frame["label"].to_numpy(),
        frame["patient"].to_numpy(),
        keys={"groups": ["hospital_visit"]},
    )
    assert keys == {"groups": ["groups", "hospital_visit"], "label": "y"}
    assert table.column_names == ["hospital_visit", "groups", "y", "fold_0", "fold_1"]
    assert table["groups"].to_pylist() == list(frame["patient"])


_MISSING = {
    "str": lambda v: pd.Series(v, dtype="str"),
    "object with NaN": lambda v: pd.Series([np.nan if x is None else x for x in v], dtype=object),
    "string[pyarrow]": lambda v: pd.Series(v, dtype="string[pyarrow]"),
    "category": lambda v: pd.Series(v, dtype=pd.CategoricalDtype([*sorted({x for x in v if x}), "never"])),
    "array": lambda v: np.array(v, dtype=object),
}


@pytest.mark.parametrize("kind", list(_MISSING))
@needs_sklearn
@needs_folds
def test_groups_and_y_with_missing_values_outside_x_give_the_report_of_the_same_columns_in_x(kind: str) -> None:
    """A patient id or a label missing on some rows (None, NaN, pd.NA) is audited as a missing value, as the
    same column of X is: rows that cannot be checked, not a refusal and not a group named 'nan'."""
    frame = _patients()
    patients = [None if i % 5 == 0 else p for i, p in enumerate(frame["patient"])]
    labels = [None if i % 7 == 0 else str(v) for i, v in enumerate(frame["label"])]
    cv = sklearn.KFold(n_splits=3, shuffle=True, random_state=0)  # rows of one patient in several folds: leaks
    given = _MISSING[kind]
    groups, y = given(patients), given(labels)
    if not isinstance(groups, np.ndarray):
        groups, y = groups.rename("patient"), y.rename("label")
    names = ("groups", "y") if isinstance(groups, np.ndarray) else ("patient", "label")  # as each is audited
    in_x = frame[["visit"]].assign(
        **{names[0]: pd.Series(patients, dtype="str"), names[1]: pd.Series(labels, dtype="str")}
    )
    only = ["group_overlap", "label_coverage"]
    apart = auditor.audit_splitter(cv, frame[["visit"]], y, groups, id="visit", only=only)
    together = auditor.audit_splitter(cv, in_x, in_x[names[1]], in_x[names[0]], id="visit", only=only)
    codes = sorted(f.code for f in apart.findings)
    assert apart.exit_code == 1 and "GRP001" in codes and "GRP004" in codes  # the leak, and rows with no patient
    assert [(f.code, f.message) for f in apart.findings] == [(f.code, f.message) for f in together.findings]


@needs_sklearn
@needs_folds
def test_a_splitter_that_keeps_each_patient_in_one_fold_is_clean_though_some_rows_have_no_patient() -> None:
    frame = _patients()
    patients = pd.Series([None if i % 5 == 0 else p for i, p in enumerate(frame["patient"])], dtype="str")
    by_patient = sklearn.PredefinedSplit([int(p[1:]) % 3 if isinstance(p, str) else 0 for p in patients])
    report = auditor.audit_splitter(by_patient, frame[["visit"]], groups=patients.rename("patient"), id="visit")
    assert report.exit_code == 0, [f.message for f in report.findings if f.severity != "info"]
    assert [f.evidence.get("key") for f in report.findings if f.code == "GRP004"] == ["patient"]


@needs_sklearn
@needs_folds
def test_groups_and_y_given_as_column_names_are_those_columns() -> None:
    """groups="patient" names a column of X (or data=), as keys do: the splitter groups by it (was: '7 rows for
    24 rows of X')."""
    frame = _patients()
    by_name = auditor.audit_splitter(sklearn.GroupKFold(n_splits=3), frame, "label", "patient", id="visit")
    by_series = auditor.audit_splitter(
        sklearn.GroupKFold(n_splits=3), frame, frame["label"], frame["patient"], id="visit"
    )
    assert by_name.exit_code == 0
    assert [(f.code, f.message) for f in by_name.findings] == [(f.code, f.message) for f in by_series.findings]
    X = np.zeros((len(frame), 1))
    leaking = auditor.audit_splitter(
        sklearn.KFold(n_splits=3, shuffle=True, random_state=0), X, groups="patient", data=frame
    )
    assert any(f.code == "GRP001" and f.evidence["key"] == "patient" for f in leaking.findings)
    from_arrow = auditor.audit_splitter(
        sklearn.KFold(n_splits=3, shuffle=True, random_state=0), X, groups="patient", data=pa.Table.from_pandas(frame)
    )
    assert [(f.code, f.message) for f in from_arrow.findings] == [(f.code, f.message) for f in leaking.findings]
    with pytest.raises(
        ManifestError, match=r"audit_splitter\(groups=…\): no column 'patiant' \(did you mean 'patient'\?\)"
    ):
        auditor.audit_splitter(sklearn.GroupKFold(n_splits=3), frame, groups="patiant")
    with pytest.raises(
        ArgumentError, match=r"groups=…\): 'patient' names a column, but X is an array; pass the rows' "
    ):
        auditor.audit_splitter(sklearn.GroupKFold(n_splits=3), X, groups="patient")


@needs_sklearn
@needs_folds
def test_groups_of_pd_cut_bins_given_apart_from_x_are_audited_as_their_text() -> None:
    frame = pd.DataFrame({"score": [float(i) for i in range(12)]})
    bins = pd.cut(frame["score"], [-1, 3, 7, 11]).rename("band")
    clean = auditor.audit_splitter(sklearn.GroupKFold(n_splits=3), frame, groups=bins, only=["group_overlap"])
    assert clean.exit_code == 0 and not clean.findings
    leaking = auditor.audit_splitter(
        sklearn.KFold(n_splits=3, shuffle=True, random_state=0), frame, groups=bins, only=["group_overlap"]
    )
    assert leaking.exit_code == 1
    assert {e["group"] for f in leaking.findings for e in f.examples} <= {"(-1, 3]", "(3, 7]", "(7, 11]"}
    # The bins as a pandas array (Series.values: a Categorical of intervals): the same text, the same findings
    # (was: AttributeError, as any pandas array).
    for values in (bins.values, bins.array, pd.IntervalIndex(bins.values)):
        as_array = auditor.audit_splitter(
            sklearn.KFold(n_splits=3, shuffle=True, random_state=0), frame, groups=values, only=["group_overlap"]
        )
        unnamed = auditor.audit_splitter(
            sklearn.KFold(n_splits=3, shuffle=True, random_state=0),
            frame,
            groups=bins.rename(None),
            only=["group_overlap"],
        )
        assert [(f.code, f.message) for f in as_array.findings] == [(f.code, f.message) for f in unnamed.findings]


@pytest.mark.parametrize(
    "make",
    [
        lambda g: sklearn.GroupShuffleSplit(n_splits=1, test_size=0.3, random_state=0),
        lambda g: sklearn.PredefinedSplit(np.where(np.isin(g, ["p4", "p5"]), 0, -1)),  # a fixed validation set
    ],
    ids=["GroupShuffleSplit(n_splits=1)", "PredefinedSplit"],
)
@needs_sklearn
@needs_folds
def test_a_splitter_that_yields_one_train_test_split_is_audited_as_one_fold(tmp_path: Path, make: Any) -> None:
    """GroupShuffleSplit(n_splits=1) or a PredefinedSplit with one test fold is one train/holdout split: audited
    as fold 0 (was: a ConfigError, 'manifest.folds.columns: List should have at least 2 items'), and as the same
    column written to a file."""
    frame = _patients()
    cv = make(frame["patient"].to_numpy())
    report = auditor.audit_splitter(cv, frame[["visit"]], groups=frame["patient"], id="visit")
    assert report.exit_code == 0, [f.message for f in report.findings if f.severity != "info"]
    sizes = next(f for f in report.findings if f.code == "SPL012")
    assert sizes.evidence["folds"].keys() == {"fold 0"} and sizes.message.startswith("1 cross-validation fold: ")
    ((train, test),) = cv.split(frame, groups=frame["patient"])
    written = frame.assign(fold_0="unused")
    written.loc[train, "fold_0"], written.loc[test, "fold_0"] = "train", "holdout"
    written.to_csv(tmp_path / "m.csv", index=False)
    manifest = {"path": "m.csv", "id": "visit", "folds": {"columns": ["fold_0"]}}
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump({"manifest": manifest, "keys": {"groups": ["patient"]}}))
    from_file = auditor.audit_config(tmp_path / "audit.yaml")
    assert [(f.code, f.message) for f in from_file.findings] == [(f.code, f.message) for f in report.findings]


@needs_sklearn
@needs_folds
def test_one_row_wise_train_test_split_of_patients_leaks_them() -> None:
    frame = _patients()
    one = sklearn.ShuffleSplit(n_splits=1, test_size=0.25, random_state=0)
    report = auditor.audit_splitter(one, frame[["visit"]], groups=frame["patient"], id="visit")
    assert report.exit_code == 1
    assert [f.evidence["fold"] for f in report.findings if f.code == "GRP001"] == ["fold 0"]


class _LeaveOneYearOut:
    """A hand-written splitter that reads its folds from X's own column, as time-based ones do."""

    def split(self, X: Any, y: Any = None, groups: Any = None) -> Any:
        years = np.asarray(X["year"])
        for year in np.unique(years):
            yield np.flatnonzero(years != year), np.flatnonzero(years == year)


@needs_folds
def test_a_splitter_is_given_an_arrow_x_itself_not_a_stand_in() -> None:
    """A splitter reading X's values gets the Arrow table's values (was: an array of zeros of X's length, so a
    leave-one-year-out made one fold and stopped with a ConfigError, or folds that were not the splitter's)."""
    frame = pd.DataFrame({"year": [2019 + i % 3 for i in range(24)], "patient": [f"p{i % 8}" for i in range(24)]})
    by_frame = auditor.audit_splitter(_LeaveOneYearOut(), frame, groups=frame["patient"])
    by_table = auditor.audit_splitter(_LeaveOneYearOut(), pa.Table.from_pandas(frame), groups="patient")
    assert by_frame.exit_code == 1 and any(f.code == "GRP001" for f in by_frame.findings)  # patients in every year
    assert [(f.code, f.message) for f in by_table.findings] == [(f.code, f.message) for f in by_frame.findings]


def _visits_in_two_orders() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Visits' metadata indexed by visit id, and their features indexed alike but in another row order (sorted by
    a feature, as after a join or a sort_values)."""
    meta = _patients().set_index("visit", drop=False).rename_axis(None)
    features = pd.DataFrame({"f1": np.random.default_rng(0).normal(size=len(meta))}, index=meta.index)
    return meta, features.sort_values("f1")


@pytest.mark.parametrize("argument", ["groups", "y", "data"])
@needs_sklearn
def test_an_argument_whose_index_holds_xs_rows_in_another_order_is_refused_not_paired_by_position(
    argument: str,
) -> None:
    """scikit-learn pairs X, y and groups by position: groups indexed by the same visits as X in another order
    give each row of X another visit's patient, so a GroupKFold that looks clean leaks every patient."""
    meta, features = _visits_in_two_orders()
    cv = sklearn.GroupKFold(n_splits=3)
    leaked = {  # what the splitter really does to the visits' own patients
        p
        for train, test in cv.split(features, groups=meta["patient"])
        for p in set(meta.loc[features.index[train], "patient"]) & set(meta.loc[features.index[test], "patient"])
    }
    assert leaked  # the leak the audit must not call clean
    given = {"groups": meta["patient"], "y": meta["label"], "data": meta[["visit"]]}
    groups = meta["patient"].to_numpy() if argument != "groups" else given["groups"]
    arguments = {"groups": groups, argument: given[argument]}
    with pytest.raises(ArgumentError) as caught:
        auditor.audit_splitter(cv, features, **arguments)
    first = next(k for k in range(len(meta)) if features.index[k] != meta.index[k])
    assert str(caught.value).startswith(
        f"auditor.audit_splitter({argument}=…): its index holds X's row labels in another order (row {first} of X "
        f"is {features.index[first]!r}, of {argument} {meta.index[first]!r})"
    )
    assert f"{argument}.loc[X.index]" in str(caught.value)


@needs_sklearn
@needs_folds
def test_arguments_indexed_as_x_or_by_other_labels_are_paired_by_position() -> None:
    """Indexes that are X's own (shuffled strings, repeated labels) agree with the positions; an index of other
    labels (a frame whose index was reset, not X's) can only mean its positions: each is audited as given."""
    meta, features = _visits_in_two_orders()
    aligned = meta.loc[features.index]
    report = auditor.audit_splitter(
        sklearn.GroupKFold(n_splits=3), features, aligned["label"], aligned["patient"], data=aligned[["visit"]]
    )
    assert report.exit_code == 0, [f.message for f in report.findings if f.severity != "info"]
    repeated = features.set_axis(["same"] * len(features))
    report = auditor.audit_splitter(
        sklearn.GroupKFold(n_splits=3), repeated, groups=aligned["patient"].set_axis(repeated.index)
    )
    assert report.exit_code == 0
    reset = aligned.reset_index(drop=True)  # 0, 1, ...: not the labels X's rows carry
    report = auditor.audit_splitter(sklearn.GroupKFold(n_splits=3), features, reset["label"], reset["patient"])
    assert report.exit_code == 0
    leaking = auditor.audit_splitter(sklearn.KFold(n_splits=3), features, groups=reset["patient"])
    assert leaking.exit_code == 1 and any(f.code == "GRP001" for f in leaking.findings)


# pandas arrays, not Series: no index, so nothing to pair by label (Series.values of text is an ArrowStringArray).
_PANDAS_ARRAYS: dict[str, Any] = {
    "str values": lambda v: pd.Series(v, dtype="str").values,
    "Categorical": lambda v: pd.Categorical(v),
    "Int64": lambda v: pd.array([None if x is None else int(x[1:]) for x in v], "Int64"),
}


def _as_numpy(values: Any) -> np.ndarray:
    """The numpy form of a pandas array: its values (of their own dtype), objects with None where one is missing."""
    items = [None if pd.isna(x) else x for x in values]
    return np.array(items, dtype=object) if None in items else np.array(items)


@pytest.mark.parametrize("kind", list(_PANDAS_ARRAYS))
@needs_sklearn
@needs_folds
def test_groups_and_y_as_pandas_arrays_give_the_report_of_their_numpy_form(kind: str) -> None:
    """groups=df.patient.values (an ArrowStringArray), a Categorical or an Int64 array are accepted as
    scikit-learn accepts them (was: AttributeError 'ArrowStringArray' object has no attribute 'index'); a missing
    value (pd.NA) is a missing value, and the leak is found as in the numpy form."""
    frame = _patients()
    patients = [None if i % 5 == 0 else p for i, p in enumerate(frame["patient"])]
    groups, y = _PANDAS_ARRAYS[kind](patients), _PANDAS_ARRAYS[kind]([f"p{v}" for v in frame["label"]])
    cv = sklearn.KFold(n_splits=3, shuffle=True, random_state=0)  # rows of one patient in several folds: leaks
    only = ["group_overlap", "label_coverage"]
    given = auditor.audit_splitter(cv, frame[["visit"]], y, groups, id="visit", only=only)
    numpy = auditor.audit_splitter(cv, frame[["visit"]], _as_numpy(y), _as_numpy(groups), id="visit", only=only)
    codes = sorted(f.code for f in given.findings)
    assert given.exit_code == 1 and "GRP001" in codes and "GRP004" in codes  # the leak, and rows with no patient
    assert [(f.code, f.message) for f in given.findings] == [(f.code, f.message) for f in numpy.findings]


@pytest.mark.parametrize("kind", list(_PANDAS_ARRAYS))
@needs_sklearn
@needs_folds
def test_a_group_kfold_on_pandas_arrays_is_clean_and_an_array_x_is_read(kind: str) -> None:
    """The same arrays where each patient stays in one fold: clean, as the numpy form is; X given as a pandas
    array (one feature) is its own feature column under `features: auto`, as its numpy form."""
    frame = _patients()
    groups = _PANDAS_ARRAYS[kind](list(frame["patient"]))
    report = auditor.audit_splitter(sklearn.GroupKFold(n_splits=3), frame[["visit"]], groups=groups, data=frame)
    assert report.exit_code == 0, [f.message for f in report.findings if f.severity != "info"]
    y = _PANDAS_ARRAYS[kind]([f"p{v}" for v in frame["label"]])
    cv = sklearn.StratifiedKFold(n_splits=2)
    as_x = auditor.audit_splitter(cv, groups, y, keys={"features": "auto"}, only=["near_duplicates"])
    numpy = auditor.audit_splitter(
        cv, _as_numpy(groups), _as_numpy(y), keys={"features": "auto"}, only=["near_duplicates"]
    )
    assert as_x.exit_code == numpy.exit_code
    assert [(f.code, f.message) for f in as_x.findings] == [(f.code, f.message) for f in numpy.findings]


@needs_sklearn
def test_the_id_and_fitted_columns_come_from_x_and_a_bad_section_stops_before_the_split() -> None:
    frame = _patients().assign(age=lambda f: range(len(f)), unused=0.5)
    fitted = [{"name": "scaler", "kind": "standardize", "artifact": "s.json", "columns": ["age"]}]
    table, _, _ = splitter_table(sklearn.KFold(n_splits=2), frame, id="visit", fitted=fitted)
    assert table.column_names == ["visit", "age", "fold_0", "fold_1"]

    class Unused:
        def split(self, X: Any, y: Any = None, groups: Any = None) -> Any:
            raise AssertionError("the splitter ran before the arguments were checked")

    with pytest.raises(ConfigError, match="unknown key 'keys.grups'"):
        auditor.audit_splitter(Unused(), frame, keys={"grups": ["patient"]})


@needs_sklearn
def test_an_array_x_takes_its_key_columns_from_data() -> None:
    frame = _patients()
    X = np.zeros((len(frame), 2))
    with pytest.raises(ArgumentError, match=r"names columns \(patient\), but X is an array; pass them as data="):
        splitter_table(sklearn.KFold(n_splits=2), X, keys={"groups": ["patient"]})
    table, _, _ = splitter_table(sklearn.KFold(n_splits=2), X, data=frame, keys={"groups": ["patient"]})
    assert table.column_names == ["patient", "fold_0", "fold_1"]


@pytest.mark.parametrize("argument", ["y", "groups", "data"])
@needs_sklearn
def test_a_length_that_differs_from_x_names_the_argument(argument: str) -> None:
    frame = _patients()
    short = frame.iloc[:-1] if argument == "data" else frame["patient"].iloc[:-1]
    with pytest.raises(ArgumentError) as caught:
        auditor.audit_splitter(sklearn.GroupKFold(n_splits=2), frame, **{argument: short})
    assert str(caught.value) == (
        f"auditor.audit_splitter({argument}=…): 23 rows for 24 rows of X; expected one per row of X"
    )


@needs_sklearn
def test_a_splitter_is_checked_before_it_runs() -> None:
    with pytest.raises(
        ArgumentError, match=r"audit_splitter\(cv=…\): expected a splitter with a split\(X, y, groups\)"
    ):
        auditor.audit_splitter([1, 2], np.zeros((3, 1)))
    with pytest.raises(ArgumentError, match=r"GroupKFold\.split\(X, y, groups\) refused the data: .*groups"):
        auditor.audit_splitter(sklearn.GroupKFold(n_splits=2), np.zeros((4, 1)))


@needs_sklearn
def test_folds_that_overlap_are_reported_not_crashed() -> None:
    class Overlapping:
        def split(self, X: Any, y: Any = None, groups: Any = None) -> Any:
            yield np.array([0, 1, 2]), np.array([2, 3])

    folds = fold_columns(Overlapping(), np.zeros((4, 1)))
    assert folds.columns["fold_0"].cast(pa.string()).to_pylist() == ["train", "train", "holdout", "holdout"]
    assert [(o.fold, o.rows) for o in folds.overlaps] == [("fold 0", (2,))]  # the fold as findings name it

    class OutOfRange:
        def split(self, X: Any, y: Any = None, groups: Any = None) -> Any:
            yield np.array([0, 1]), np.array([7])

    with pytest.raises(ArgumentError, match=r"fold 0: row index 7 is outside X's 4 rows"):
        fold_columns(OutOfRange(), np.zeros((4, 1)))


@needs_sklearn
@needs_folds
def test_kfold_on_rows_of_patients_leaks_and_group_kfold_does_not() -> None:
    frame = _patients()
    leaking = auditor.audit_splitter(
        sklearn.KFold(n_splits=3, shuffle=True, random_state=0), frame, groups=frame["patient"]
    )
    clean = auditor.audit_splitter(sklearn.GroupKFold(n_splits=3), frame, groups=frame["patient"])
    assert leaking.exit_code == 1 and any(f.code == "GRP001" for f in leaking.findings)
    assert clean.exit_code == 0 and not any(f.code == "GRP001" for f in clean.findings)


@needs_sklearn
@needs_folds
def test_a_group_kfold_on_patients_that_shares_another_key_is_found() -> None:
    frame = _patients().assign(hospital_visit=lambda f: [f"h{i % 3}" for i in range(len(f))])
    report = auditor.audit_splitter(
        sklearn.GroupKFold(n_splits=3), frame, groups=frame["patient"], keys={"groups": ["hospital_visit"]}
    )
    assert any(f.code == "GRP001" and f.evidence.get("key") == "hospital_visit" for f in report.findings)


class _TrainsOnItsHoldout:
    """sklearn's KFold, except that fold 1 also trains on its first two holdout rows (a hand-made CV loop's bug)."""

    def split(self, X: Any, y: Any = None, groups: Any = None) -> Any:
        for k, (train, test) in enumerate(sklearn.KFold(n_splits=3).split(X)):
            yield (np.concatenate([train, test[:2]]) if k == 1 else train), test


@needs_sklearn
@needs_folds
def test_a_fold_that_trains_on_its_holdout_rows_is_an_error_naming_the_fold_and_ids() -> None:
    frame = _patients()
    report = auditor.audit_splitter(_TrainsOnItsHoldout(), frame, id="visit", only=["split_integrity"])
    assert report.exit_code == 1
    (found,) = [f for f in report.findings if f.code == "SPL013"]
    assert found.severity == "error" and found.evidence == {"fold": "fold 1", "rows": 2}
    assert [e["id"] for e in found.examples] == ["v008", "v009"]  # KFold(3) holds rows 8-15 out in fold 1
    assert "fold 1:" in found.message and "v008, v009" in found.message
    assert found.scope is not None and found.scope.values == ("v008", "v009")
    sizes = next(f for f in report.findings if f.code == "SPL012").evidence["folds"]["fold 1"]
    assert sizes == {"holdout": 8, "train": 16, "unused": 0}  # the rows in both are counted as holdout rows


@pytest.mark.parametrize(
    "make",
    [
        lambda: sklearn.ShuffleSplit(n_splits=4, test_size=0.3, random_state=0),
        lambda: sklearn.RepeatedKFold(n_splits=3, n_repeats=2, random_state=0),
        lambda: sklearn.RepeatedStratifiedKFold(n_splits=2, n_repeats=3, random_state=0),
    ],
    ids=["ShuffleSplit", "RepeatedKFold", "RepeatedStratifiedKFold"],
)
@needs_sklearn
@needs_folds
def test_test_sets_that_overlap_across_folds_by_design_are_no_overlap_finding(make: Any) -> None:
    """A row in several folds' holdouts (ShuffleSplit draws each fold anew; a repeated splitter repeats): each
    fold still keeps its training and holdout indices apart, so nothing is reported."""
    frame = _patients()
    cv = make()
    held = np.zeros(len(frame), dtype=int)
    for _, test in cv.split(frame, frame["label"]):
        held[test] += 1
    assert held.max() > 1  # the holdouts really overlap across folds
    report = auditor.audit_splitter(cv, frame, frame["label"], id="visit", only=["split_integrity"])
    assert not [f for f in report.findings if f.code == "SPL013"]
    assert report.exit_code == 0, [f.message for f in report.findings if f.severity != "info"]


def test_an_endless_splitter_is_refused_after_the_fold_limit_not_run_to_the_end() -> None:
    from auditor.manifest.folds import MAX_FOLDS

    drawn = 0

    class Endless:
        def split(self, X: Any, y: Any = None, groups: Any = None) -> Any:
            nonlocal drawn
            while True:  # a generator that never stops (a bug in a custom splitter)
                drawn += 1
                yield np.arange(0, 2), np.arange(2, 4)

    with pytest.raises(ArgumentError, match=rf"Endless\.split yielded more than {MAX_FOLDS} folds; at most"):
        auditor.audit_splitter(Endless(), np.zeros((4, 1)))
    assert drawn == MAX_FOLDS + 1


def test_an_id_column_named_as_the_split_is_refused_before_any_stage_runs() -> None:
    from auditor.manifest.table import MAX_SPLITS

    table = pa.table({"sample_id": [f"s{i}" for i in range(MAX_SPLITS + 1)]})
    with pytest.raises(ManifestError) as caught:
        auditor.audit(table, split="sample_id")
    assert str(caught.value) == (
        f"auditor.audit(data=…): the split column 'sample_id' holds {MAX_SPLITS + 1:,} distinct values; at most "
        f"{MAX_SPLITS:,} splits are audited (every pair of splits is compared). Is it an id column? Name the column "
        "that says which split each row is in (train, val, test)."
    )
    fine = pa.table({"sample_id": [f"s{i}" for i in range(MAX_SPLITS + 1)], "split": ["train", "test"] * 1000 + ["x"]})
    assert auditor.audit(fine, split="split", id="sample_id").exit_code in (0, 1)


def test_audit_config_is_audit_run_of_the_file_without_report_files(tmp_path: Path) -> None:
    """auditor.audit_config gives the report `audit run` judges, --only and --fail-on included, and writes nothing."""
    sample = REPO / "sample_data" / "handwriting"
    for name in ("audit.yaml", "manifest.csv"):
        (tmp_path / name).write_bytes((sample / name).read_bytes())
    report = auditor.audit_config(tmp_path / "audit.yaml")
    same = run_audit(load_config(tmp_path / "audit.yaml"))
    assert report.findings == same.findings and report.summary == same.summary
    assert [(r.stage, r.status) for r in report.stages] == [(r.stage, r.status) for r in same.stages]
    assert report.exit_code == 1 and sorted(p.name for p in tmp_path.iterdir()) == ["audit.yaml", "manifest.csv"]
    judged = auditor.audit_config(tmp_path / "audit.yaml", only="group_overlap", fail_on="never")
    assert [r.stage for r in judged.stages] == ["group_overlap"] and judged.exit_code == 0
    with pytest.raises(ConfigError, match="fail_on 'errors'"):
        auditor.audit_config(tmp_path / "audit.yaml", fail_on="errors")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="not found"):
        auditor.audit_config(tmp_path / "missing.yaml")
