"""Every other engine reports what the in-memory engine reports: on the samples and on generated manifests.

The Dask engine runs here on the synchronous scheduler (every task in this process); tests/backends/test_cluster.py
runs it on a local cluster of worker processes.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib.util
import json
import shutil
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from auditor.backends.engines import EngineSettings
from auditor.backends.files import parquet_sources
from auditor.cli import app
from auditor.core.config import load_config
from auditor.core.errors import ManifestError
from auditor.manifest.readers import column_names, read_files
from auditor.pipeline.runner import run_audit


def _needs(module: str, extra: str) -> pytest.MarkDecorator:
    missing = importlib.util.find_spec(module) is None
    return pytest.mark.skipif(missing, reason=f"this engine's tests need the `{extra}` extra")


ENGINES = [
    pytest.param(EngineSettings("duckdb"), id="duckdb", marks=_needs("duckdb", "duckdb")),
    pytest.param(EngineSettings("dask", scheduler="synchronous"), id="dask", marks=_needs("distributed", "dask")),
]

REPO = Path(__file__).resolve().parents[2]
OUT_OF_CORE = [
    "split_integrity",
    "group_overlap",
    "duplicate_content",
    "label_coverage",
    "shared_upstream",
    "temporal_order",
    "test_exposure",
]


def comparable(report: Any) -> dict[str, Any]:
    """The report without what differs by nature between two runs: times, the clock and the engine's name."""
    data = json.loads(report.model_dump_json())
    data.pop("generated_at")
    data["manifest"].pop("engine")
    data["manifest"].pop("engine_notes")
    for stage in data["stages"]:
        stage["duration_s"] = 0
    return data


def assert_same(memory: dict[str, Any], other: dict[str, Any], name: str = "other") -> None:
    """Equal reports, or the lines that differ."""
    if other != memory:
        left = json.dumps(memory, indent=1, sort_keys=True).splitlines()
        right = json.dumps(other, indent=1, sort_keys=True).splitlines()
        diff = "\n".join(difflib.unified_diff(left, right, "memory", name, lineterm="", n=4))
        pytest.fail(f"the engines' reports differ:\n{diff[:6000]}")


def both(config: Path, engine: EngineSettings, only: list[str] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    memory = run_audit(config, only=only, engine=EngineSettings("memory"))
    other = run_audit(config, only=only, engine=engine)
    assert memory.manifest is not None and other.manifest is not None
    assert (memory.manifest.engine, other.manifest.engine) == ("memory", engine.engine)
    return comparable(memory), comparable(other)


def as_parquet(sample: str, tmp_path: Path, config: str = "audit.yaml") -> Path:
    """A copy of a sample whose manifest is Parquet, read with the project's own reader so types agree."""
    folder = tmp_path / sample
    shutil.copytree(REPO / "sample_data" / sample, folder)
    config_path = folder / config
    data = yaml.safe_load(config_path.read_text())
    source = folder / data["manifest"]["path"]
    table = read_files([source], column_names(source, None), None)
    pq.write_table(table, folder / "manifest.parquet", row_group_size=7)  # several row groups, on purpose
    data["manifest"]["path"] = "manifest.parquet"
    config_path.write_text(yaml.safe_dump(data, sort_keys=False))
    return config_path


# Near copies (texts, images) need every value in memory: shared_upstream links by them only in memory.
NEAR_COPIES = {"support_tickets", "video_frames"}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("sample", ["handwriting", "clinic", "support_tickets", "video_frames", "forecast_horizon"])
def test_every_sample_reports_alike_on_every_engine(sample: str, engine: EngineSettings, tmp_path: Path) -> None:
    config = as_parquet(sample, tmp_path)
    stages = [s for s in OUT_OF_CORE if not (sample in NEAR_COPIES and s == "shared_upstream")]
    memory, other = both(config, engine, only=stages)
    assert_same(memory, other, engine.engine)
    ran = [s for s in memory["stages"] if s["status"] in ("passed", "failed")]
    assert ran, f"no stage ran on {sample}: the comparison would prove nothing"


@pytest.mark.parametrize("engine", ENGINES)
def test_contamination_reports_alike_on_every_engine(engine: EngineSettings, tmp_path: Path) -> None:
    """Only the holdout texts come from the manifest: the stage runs out of core and names the same items."""
    memory, other = both(as_parquet("benchmark_contamination", tmp_path), engine, only=["contamination"])
    assert_same(memory, other, engine.engine)
    assert [s["status"] for s in other["stages"]] == ["failed"]  # the planted items were found, not skipped


@pytest.mark.parametrize("engine", ENGINES)
def test_contamination_against_the_training_rows_reports_alike_on_every_engine(
    engine: EngineSettings, tmp_path: Path
) -> None:
    """The training rows are the corpus and the template rule counts the words of every row: the same tickets are
    cleared (CTM007) and the same copy found on every engine."""
    from tests.stages.data.test_contamination import _form_tickets

    config = _form_tickets(tmp_path, [(330, lambda t: t)])
    data = yaml.safe_load(config.read_text())
    source = tmp_path / data["manifest"]["path"]
    pq.write_table(read_files([source], column_names(source, None), None), tmp_path / "m.parquet", row_group_size=50)
    data["manifest"]["path"] = "m.parquet"
    config.write_text(yaml.safe_dump(data, sort_keys=False))
    memory, other = both(config, engine, only=["contamination"])
    assert_same(memory, other, engine.engine)
    found = [f for s in other["stages"] for f in s["findings"]]
    assert [f["code"] for f in found] == ["CTM001", "CTM003", "CTM007"]
    assert [e["id"] for e in found[0]["examples"]] == ["T0330"]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_stage_that_needs_the_table_is_an_error_out_of_core(engine: EngineSettings, tmp_path: Path) -> None:
    """near_duplicates always (known before it starts), shared_upstream when near copies link rows (found while
    it runs): an error (exit 2), never a pass, in one wording that names the stage, why and what to do."""
    config = as_parquet("video_frames", tmp_path)
    stages = ["near_duplicates", "shared_upstream"]
    report = run_audit(config, only=stages, engine=engine)
    assert report.exit_code == 2
    errors = {r.stage: r.error for r in report.stages}
    for stage in stages:
        error = errors[stage]
        assert error is not None and error.type == "engine"
        assert error.message == (
            f"{stage} needs the whole manifest as one table in memory, which the {engine.engine} engine never "
            "holds (it keeps the manifest out of core); run it with --engine memory on a machine with enough "
            "memory, or leave it out with --only"
        )


# -- cross-validation folds ---------------------------------------------------------------------------------


def _ran(report: dict[str, Any]) -> list[str]:
    return [s["stage"] for s in report["stages"] if s["status"] in ("passed", "failed")]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("config", ["audit.yaml", "audit_grouped.yaml"])
def test_the_cv_patients_folds_report_alike_on_every_engine(
    config: str, engine: EngineSettings, tmp_path: Path
) -> None:
    """A row-wise KFold that leaks patients into every fold, and a GroupKFold that does not."""
    path = as_parquet("cv_patients", tmp_path, config)
    memory, other = both(path, engine, only=OUT_OF_CORE)
    assert_same(memory, other, engine.engine)
    found = {f["code"] for s in memory["stages"] for f in s["findings"]}
    assert ("GRP001" in found) == (config == "audit.yaml")  # the leak is found, not only reported alike
    assert {"split_integrity", "group_overlap", "label_coverage"} <= set(_ran(memory))


def _forecast_folds(tmp_path: Path, form: str) -> Path:
    """The forecast sample's training days cut into 4 consecutive folds beside its fixed test split: a fold id
    column read as a rolling scheme (TimeSeriesSplit), or one column per fold saying each row's role."""
    path = as_parquet("forecast_horizon", tmp_path)
    table = pq.read_table(path.parent / "manifest.parquet")
    dates = table.column("date").to_pylist()
    train = [s == "train" for s in table.column("split").to_pylist()]
    days = sorted({d for d, t in zip(dates, train, strict=True) if t})
    fold_of = {d: min(4 * i // len(days), 3) for i, d in enumerate(days)}
    folds = [fold_of[d] if t else None for d, t in zip(dates, train, strict=True)]
    data = yaml.safe_load(path.read_text())
    if form == "rolling":
        table = table.append_column("fold", pa.array(folds, pa.int64()))
        data["manifest"]["folds"] = {"column": "fold", "scheme": "rolling"}
    else:
        names = []
        for k in range(1, 4):  # fold k: the stretches before it train, stretch k is the holdout, later ones unused
            role = ["" if f is None else "train" if f < k else "holdout" if f == k else "unused" for f in folds]
            table = table.append_column(f"cv{k}", pa.array(role))
            names.append(f"cv{k}")
        data["manifest"]["folds"] = {"columns": names}
    pq.write_table(table, path.parent / "manifest.parquet", row_group_size=50)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("form", ["rolling", "columns"])
def test_time_series_folds_beside_a_test_split_report_alike_on_every_engine(
    form: str, engine: EngineSettings, tmp_path: Path
) -> None:
    """The forecast sample's folds in both forms the config has for a TimeSeriesSplit: the 7-day label horizon
    purges the end of each training stretch on every engine."""
    path = _forecast_folds(tmp_path, form)
    memory, other = both(path, engine, only=OUT_OF_CORE)
    assert_same(memory, other, engine.engine)
    assert "temporal_order" in _ran(memory)
    found = {f["code"] for s in memory["stages"] for f in s["findings"]}
    assert "TMP005" in found


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("form", ["column", "rolling", "columns", "alone"])
def test_folds_over_every_key_report_alike_on_every_engine(form: str, engine: EngineSettings, tmp_path: Path) -> None:
    """Groups, sources, content digests, labels and times across folds beside a fixed test split (and folds
    alone), each fold form: the same findings, figures and counts from every engine, in several files."""
    n = 60
    fold = [None if i % 6 == 5 else i % 3 for i in range(n)]  # every sixth row in the test split
    data: dict[str, Any] = {
        "sample_id": [f"s{i:03d}" for i in range(n)],
        "split": ["test" if f is None else "train" for f in fold],
        "fold": fold,
        "writer": [f"w{i % 7}" for i in range(n)],
        "source": [f"doc{i // 4}" for i in range(n)],
        "sha": [f"{i % 23:032x}" for i in range(n)],
        "label": [["a", "b", "c"][i % 3] if i % 11 else "rare" for i in range(n)],
        "ts": pa.array([1_700_000_000 + 86_400 * ((i * 7) % n) for i in range(n)], pa.int64()).cast(pa.timestamp("s")),
    }
    for k in range(3):
        data[f"cv{k}"] = ["" if f is None else "holdout" if f == k else "train" for f in fold]
    manifest: dict[str, Any] = {"path": "part-*.parquet", "id": "sample_id", "split": "split"}
    if form == "column":
        manifest["folds"] = "fold"
    elif form == "rolling":
        manifest["folds"] = {"column": "fold", "scheme": "rolling"}
    elif form == "columns":
        manifest["folds"] = {"columns": ["cv0", "cv1", "cv2"]}
    else:
        del manifest["split"]
        data["fold"] = [i % 3 for i in range(n)]
        manifest["folds"] = "fold"
    table = pa.table(data)
    for i in range(3):
        pq.write_table(table.slice(i * 20, 20), tmp_path / f"part-{i}.parquet", row_group_size=7)
    config = {
        "version": 1,
        "manifest": manifest,
        "splits": {"train": ["train"], "holdout": ["test"]},
        "keys": {
            "groups": ["writer", ["writer", "label"]],
            "sources": ["source"],
            "content_hash": "sha",
            "label": "label",
            "time": "ts",
            "entity": "writer",
        },
        "report": {"formats": ["json"]},
    }
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    memory, other = both(tmp_path / "audit.yaml", engine, only=OUT_OF_CORE)
    assert_same(memory, other, engine.engine)
    ran = set(_ran(memory))
    assert {"split_integrity", "group_overlap", "duplicate_content", "label_coverage", "shared_upstream"} <= ran
    found = {f["code"] for s in memory["stages"] for f in s["findings"]}
    assert {"GRP001", "DUP001", "UPS001"} <= found, found


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("folds", "values"),
    [("fold", [1, 1, 1, 1]), ("fold", [0.5, 1, 0, 1]), ({"columns": ["a", "b"]}, ["train", "holdout", "x", "unused"])],
)
def test_a_fold_layout_that_cannot_be_audited_is_refused_alike_on_every_engine(
    folds: Any, values: list[Any], engine: EngineSettings, tmp_path: Path
) -> None:
    """One fold, fractional fold ids, a role that is no role: the in-memory engine's message on every engine."""
    table = {"sample_id": ["a", "b", "c", "d"], "fold": values, "a": values, "b": values}
    pq.write_table(pa.table(table), tmp_path / "m.parquet")
    config = {"version": 1, "manifest": {"path": "m.parquet", "id": "sample_id", "folds": folds}}
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    messages = []
    for settings_ in (EngineSettings("memory"), engine):
        with pytest.raises(ManifestError) as raised:
            run_audit(tmp_path / "audit.yaml", only=["split_integrity"], engine=settings_)
        messages.append(str(raised.value))
    assert messages[0] == messages[1] and "fold" in messages[0]


# -- generated manifests ------------------------------------------------------------------------------------

SPELLINGS = ["a", "A", " a", "a ", "b", "B", "É", "É", "0", "00", "1.50", "1.5", "+1.5", "", "  ", None]
# One value in each spelling kind: format characters, full-width forms, a ligature, other digits, ß, exponents.
VARIANTS = ["w1", "w\u200b1", "\uff57\uff11", "file", "\ufb01le", "1", "\u0661", "strasse", "stra\u00dfe", "1e3"]
IDS = [f"id{i}" for i in range(6)]
DIGESTS = ["ab" * 8, ("ab" * 8).upper(), "cd" * 8, "ef" * 8 + " ", "10" * 8, None]


@st.composite
def manifests(draw: st.DrawFn) -> dict[str, list[Any]]:
    n = draw(st.integers(min_value=1, max_value=40))
    text = st.one_of(
        st.sampled_from(SPELLINGS), st.sampled_from(VARIANTS), st.text(alphabet="aAbB é0.1e\u200b ", max_size=4)
    )
    return {
        "sample_id": draw(
            st.lists(st.one_of(text, st.sampled_from([f"id{i}" for i in range(6)])), min_size=n, max_size=n)
        ),
        "split": draw(st.lists(st.sampled_from(["train", "val", "test", "Train", "", None]), min_size=n, max_size=n)),
        "writer": draw(st.lists(text, min_size=n, max_size=n)),
        "source": draw(st.lists(st.sampled_from(["s1", "s2", "S1", "s3", None]), min_size=n, max_size=n)),
        "sha": draw(st.lists(st.sampled_from(DIGESTS), min_size=n, max_size=n)),
        "label": draw(st.lists(st.sampled_from(["cat", "dog", None]), min_size=n, max_size=n)),
        "ts": draw(st.lists(st.integers(min_value=1_600_000_000, max_value=1_700_000_000), min_size=n, max_size=n)),
        # Label horizons up to about four months (some negative: windows that end before they start).
        "horizon": draw(st.lists(st.one_of(st.integers(-86_400, 10_000_000), st.none()), min_size=n, max_size=n)),
    }


@pytest.mark.slow  # a property run over every engine: the longest tests of the suite, run in CI
@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=manifests(), files=st.integers(min_value=1, max_value=3))
def test_generated_manifests_report_alike_on_every_engine(
    engine: EngineSettings, data: dict[str, list[Any]], files: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp("generated")
    ends = [t + h if h is not None else None for t, h in zip(data["ts"], data.pop("horizon"), strict=True)]
    table = pa.table(
        {
            **data,
            "ts": pa.array(data["ts"], pa.int64()).cast(pa.timestamp("s")),
            "ts_end": pa.array(ends, pa.int64()).cast(pa.timestamp("s")),
        }
    )
    step = -(-table.num_rows // files)
    names = []
    for i in range(files):
        part = table.slice(i * step, step)
        if part.num_rows or i == 0:
            pq.write_table(part, folder / f"part-{i}.parquet", row_group_size=5)
            names.append(f"part-{i}.parquet")
    config = {
        "version": 1,
        "manifest": {"path": "part-*.parquet", "id": "sample_id", "split": "split"},
        "splits": {"train": ["train"], "holdout": ["val", "test", "Train"], "gap": "30d"},
        "keys": {
            "groups": ["writer", ["writer", "source"]],
            "sources": ["source"],
            "content_hash": "sha",
            "label": "label",
            "time": "ts",
            "time_end": "ts_end",
            "entity": "source",
        },
        "report": {"formats": ["json"]},
    }
    path = folder / "audit.yaml"
    path.write_text(yaml.safe_dump(config))
    memory, other = both(path, engine, only=OUT_OF_CORE)
    assert_same(memory, other, engine.engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_every_spelling_kind_is_found_alike_on_every_engine(engine: EngineSettings, tmp_path: Path) -> None:
    """Group values (coded from their distinct values) and sample ids (scanned row by row, out of core by the
    engine's own query) in each spelling kind: the same findings, with both spellings, on every engine."""
    # Beside them, values that are different and look alike (a symbol at an end, a fraction's last zero).
    plain = ["w1", "w1", "12", "file", "1", "strasse", "1000", "strasse", "deep", "7", "A+", "C++", "1.1", "$5"]
    respelled = [
        *("w\u200b1", "w\ufeff1", "\uff11\uff12", "\ufb01le", "\u0661", "stra\u00dfe", "1e3", "1000.0"),
        *('"deeP."', "7.0", "A-", "C", "1.10", "5"),
    ]
    ids = ["w1", "12", "file", "1", "strasse", "1000", "coop", "7", "k9", "Q7", "b+", "s1.1", "2.5", "x"]
    respelled_ids = [
        *("w1\u200d", "\uff11\uff12", "\ufb01le", "\u0661", "stra\u00dfe", "1e3", "co\u00adop", "7e0", "?k9"),
        *("q7 ", "b-", "s1.10", "2.50", "x%"),
    ]
    n = len(plain)
    pq.write_table(
        pa.table(
            {"sample_id": ids + respelled_ids, "split": ["train"] * n + ["test"] * n, "writer": plain + respelled}
        ),
        tmp_path / "m.parquet",
        row_group_size=5,
    )
    config = {
        "version": 1,
        "manifest": {"path": "m.parquet", "id": "sample_id", "split": "split"},
        "keys": {"groups": ["writer"]},
        "stages": {"group_overlap": {"max_examples": 10}, "split_integrity": {"max_examples": 10}},
        "report": {"formats": ["json"]},
    }
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    memory, other = both(tmp_path / "audit.yaml", engine, only=["group_overlap", "split_integrity"])
    assert_same(memory, other, engine.engine)
    found = {f["code"]: f for s in memory["stages"] for f in s["findings"]}
    shown = {e["value"]: sorted(s["spelling"] for s in e["spellings"]) for e in found["GRP005"]["examples"]}
    assert found["GRP005"]["evidence"]["values"] == 8
    assert shown == {
        "deep": ['"deeP."', "deep"],
        "7": ["7", "7.0"],
        "w1": ["w1", "w\u200b1", "w\ufeff1"],
        "12": ["12", "\uff11\uff12"],
        "file": ["file", "\ufb01le"],
        "1": ["1", "\u0661"],
        "strasse": ["strasse", "stra\u00dfe"],
        "1000": ["1000", "1000.0", "1e3"],
    }
    ids_shown = {e["value"]: [s["spelling"] for s in e["spellings"]] for e in found["SPL010"]["examples"]}
    spelled = {i: [i, r] for i, r in zip(ids, respelled_ids, strict=True) if i not in ("b+", "s1.1", "2.5", "x")}
    assert ids_shown == {i.lower(): s for i, s in spelled.items()}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("folds", [False, True])
def test_entities_spelled_two_ways_are_one_entity_alike_on_every_engine(
    folds: bool, engine: EngineSettings, tmp_path: Path
) -> None:
    """Stores written 'S1' in training rows and 's1' or ' S1' in test rows are one store on every engine, in its
    order checks and its label windows; 'S10' stays another store."""
    n = 48
    day = [(i * 5) % n for i in range(n)]
    test = [i % 3 == 2 for i in range(n)]
    stores = [f"S{i % 4}" if i % 7 else "S10" for i in range(n)]
    spelled = [
        (f" {x}" if i % 2 else x.lower()) if t and x != "S10" else x
        for i, (x, t) in enumerate(zip(stores, test, strict=True))
    ]
    data: dict[str, Any] = {
        "sample_id": [f"r{i:02d}" for i in range(n)],
        "split": ["test" if t else "train" for t in test],
        "fold": [i % 3 for i in range(n)],
        "store": spelled,
        "ts": pa.array([1_700_000_000 + 86_400 * d for d in day], pa.int64()).cast(pa.timestamp("s")),
        "ts_end": pa.array([1_700_000_000 + 86_400 * (d + 8) for d in day], pa.int64()).cast(pa.timestamp("s")),
    }
    pq.write_table(pa.table(data), tmp_path / "m.parquet", row_group_size=7)
    manifest: dict[str, Any] = {"path": "m.parquet", "id": "sample_id", "split": "split"}
    if folds:
        del manifest["split"]
        manifest["folds"] = "fold"
    config = {
        "version": 1,
        "manifest": manifest,
        "keys": {"time": "ts", "time_end": "ts_end", "entity": "store"},
        "report": {"formats": ["json"]},
    }
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    memory, other = both(tmp_path / "audit.yaml", engine, only=["temporal_order"])
    assert_same(memory, other, engine.engine)
    found = [f for s in memory["stages"] for f in s["findings"]]
    per_entity = [f for f in found if f["code"] == "TMP002"]
    assert any(" / " in f["message"] for f in per_entity)
    assert any(e.get("spellings") for f in per_entity for e in f["examples"])
    assert any(f["code"] == "TMP005" and f["evidence"]["scope"] == "per entity" for f in found)


@pytest.mark.slow  # a property run over every engine, run in CI
@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=manifests(),
    folds=st.lists(st.sampled_from([0, 1, 2, None]), min_size=40, max_size=40),
    form=st.sampled_from(["column", "rolling", "alone"]),
    files=st.integers(min_value=1, max_value=3),
)
def test_generated_folds_report_alike_on_every_engine(
    engine: EngineSettings,
    data: dict[str, list[Any]],
    folds: list[int | None],
    form: str,
    files: int,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Generated manifests with folds beside the split (test rows carry none) or alone: the same report from
    every engine, or the same refusal (a fold without holdout or training rows)."""
    folder = tmp_path_factory.mktemp("generated-folds")
    data.pop("horizon")
    n = len(data["sample_id"])
    fold = folds[:n]
    if form != "alone":
        fold = [None if s in ("test", "Test") else f for s, f in zip(data["split"], fold, strict=True)]
    table = pa.table({**data, "ts": pa.array(data["ts"], pa.int64()).cast(pa.timestamp("s")), "fold": fold})
    step = -(-table.num_rows // files)
    for i in range(files):
        part = table.slice(i * step, step)
        if part.num_rows or i == 0:
            pq.write_table(part, folder / f"part-{i}.parquet", row_group_size=5)
    manifest: dict[str, Any] = {"path": "part-*.parquet", "id": "sample_id", "split": "split", "folds": "fold"}
    if form == "rolling":
        manifest["folds"] = {"column": "fold", "scheme": "rolling"}
    elif form == "alone":
        del manifest["split"]
    config = {
        "version": 1,
        "manifest": manifest,
        "splits": {"train": ["train", "val", ""], "holdout": ["test", "Test"]},
        "keys": {"groups": ["writer"], "sources": ["source"], "content_hash": "sha", "label": "label", "time": "ts"},
        "report": {"formats": ["json"]},
    }
    path = folder / "audit.yaml"
    path.write_text(yaml.safe_dump(config))
    outcomes = []
    for settings_ in (EngineSettings("memory"), engine):
        try:
            outcomes.append(comparable(run_audit(path, only=OUT_OF_CORE, engine=settings_)))
        except ManifestError as exc:
            outcomes.append({"refused": str(exc)})
    assert_same(outcomes[0], outcomes[1], engine.engine)


# -- values that are not text ---------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "split",
    [
        pa.array([0.0, 1.0] * 4 + [-0.0, None]),  # DuckDB writes 0.0 as the text `0.0`, Arrow as `0`
        pa.array([1, 2] * 4 + [3, None]).cast(pa.timestamp("s", "UTC")),
        pa.array([3600, 7200] * 4 + [60, None], pa.int32()).cast(pa.time32("s")),
        pa.array([1, 2] * 4 + [3, None], pa.duration("s")),  # an integer in Parquet, and so to DuckDB
        pa.array([0.5, 1.5] * 4 + [2.5, None], pa.float16()),  # a float to DuckDB
    ],
    ids=["float", "timestamp", "time", "duration", "half-float"],
)
def test_a_split_column_of_numbers_or_times_reports_alike_on_every_engine(
    split: pa.Array, engine: EngineSettings, tmp_path: Path
) -> None:
    """A split column that holds numbers or times, not text: every row lands in its split on every engine, so
    the writers shared between them are found (never a pass from rows left in no split)."""
    writers = ["w1", "w1", "w2", "w2", "w3", "w4", "w5", "w6", "w1", "w7"]
    pq.write_table(
        pa.table({"sample_id": [f"s{i}" for i in range(10)], "split": split, "writer": writers}),
        tmp_path / "m.parquet",
        row_group_size=3,
    )
    config = {
        "version": 1,
        "manifest": {"path": "m.parquet", "id": "sample_id", "split": "split"},
        "keys": {"groups": ["writer"]},
        "report": {"formats": ["json"]},
    }
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    memory, other = both(tmp_path / "audit.yaml", engine, only=["split_integrity", "group_overlap"])
    assert_same(memory, other, engine.engine)
    found = {f["code"] for s in memory["stages"] for f in s["findings"]}
    assert "GRP002" in found, found  # no split is named train: each is a holdout split


@pytest.mark.parametrize("engine", ENGINES)
def test_float_keys_with_nan_and_signed_zeros_report_alike_on_every_engine(
    engine: EngineSettings, tmp_path: Path
) -> None:
    """NaN is no value on every engine, though Parquet statistics leave NaN out (DuckDB judges isnan() by them);
    -0.0 and 0.0 are two values, as Arrow holds them, each shared here by train and test."""
    values = [-0.0, 0.0, 3.0, float("nan"), 0.0, -0.0, float("nan"), 5.0]
    pq.write_table(
        pa.table({"sample_id": [f"s{i}" for i in range(8)], "split": ["train"] * 4 + ["test"] * 4, "k": values}),
        tmp_path / "m.parquet",
        row_group_size=3,  # the NaN sits in row groups whose statistics say 0.0 to 3.0
    )
    config = {
        "version": 1,
        "manifest": {"path": "m.parquet", "id": "sample_id", "split": "split"},
        "keys": {"groups": ["k"], "sources": ["k"]},
        "report": {"formats": ["json"]},
    }
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    memory, other = both(tmp_path / "audit.yaml", engine, only=["group_overlap", "shared_upstream"])
    assert_same(memory, other, engine.engine)
    shared = {f["code"]: f for s in memory["stages"] for f in s["findings"]}
    assert [e["group"] for e in shared["GRP001"]["examples"]] == ["-0.0", "0.0"]
    assert shared["UPS001"]["evidence"]["rows"] == 4  # the NaN rows link nothing


@pytest.mark.parametrize("engine", ENGINES)
def test_what_a_review_accepted_links_no_rows_alike_on_every_engine(engine: EngineSettings, tmp_path: Path) -> None:
    """A text and a number group value accepted as shared (GRP001), a writer's spellings accepted as two people
    (GRP005), a document's as two documents (UPS005, in a column of mostly distinct values): none links rows on
    any engine, while a writer spelt two ways that was not accepted still does."""
    n = 40
    writer = [f"w{i}" for i in range(n)]
    speaker = list(range(100, 100 + n))
    doc = [f"d{i}" for i in range(n)]
    writer[0] = writer[20] = "calib"  # accepted as shared
    speaker[1], speaker[21] = 7, 7  # accepted as shared
    writer[2], writer[22] = "Alice", "alice"  # accepted as two people
    writer[3], writer[23] = "Bob", "bob "  # one person: still links train 3 to test 23
    doc[4], doc[24] = "doc-7", "DOC-7"  # accepted as two documents
    pq.write_table(
        pa.table(
            {
                "sample_id": [f"s{i}" for i in range(n)],
                "split": ["train"] * 20 + ["test"] * 20,
                "writer": writer,
                "speaker": speaker,
                "doc": doc,
            }
        ),
        tmp_path / "m.parquet",
        row_group_size=7,
    )
    accept = [
        {"code": "GRP001", "key": "calib", "column": "writer", "reason": "calibration"},
        {"code": "GRP001", "key": "7", "column": "speaker", "reason": "calibration"},
        {"code": "GRP005", "key": "alice", "column": "writer", "values": ["Alice", "alice"], "reason": "two people"},
        {"code": "UPS005", "key": "doc-7", "values": ["doc-7", "DOC-7"], "reason": "two documents"},
    ]
    config = {
        "version": 1,
        "manifest": {"path": "m.parquet", "id": "sample_id", "split": "split"},
        "keys": {"groups": ["writer", "speaker"], "sources": ["doc"]},
        "accept": accept,
        "report": {"formats": ["json"]},
    }
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    memory, other = both(tmp_path / "audit.yaml", engine, only=["group_overlap", "shared_upstream"])
    assert_same(memory, other, engine.engine)
    found = {f["code"]: f for s in memory["stages"] for f in s["findings"] if not f["accepted"]}
    assert found["UPS001"]["examples"][0]["chain_text"] == "test s23 —writer bob  / Bob— train s3"
    assert found["UPS001"]["evidence"]["rows"] == 2
    assert found["UPS003"]["evidence"]["reviewed"] == {
        "doc": {"values": [], "spellings_apart": ["doc-7"]},
        "speaker": {"values": ["7"], "spellings_apart": []},
        "writer": {"values": ["calib"], "spellings_apart": ["alice"]},
    }


# -- column names ---------------------------------------------------------------------------------------------

# Names the engines give their own columns beside the manifest's: the values of a grouping, its codes, its keys,
# the row numbers and the split codes.
OWN_NAMES = ["v", "code", "k0", "_row", "_split", "first", "__split_code__"]


@pytest.mark.parametrize("engine", ENGINES)
def test_columns_named_as_the_engines_own_columns_report_alike_on_every_engine(
    engine: EngineSettings, tmp_path: Path
) -> None:
    """A key column may be named `v`, `code`, `_row` or `_split`: each is read as itself, never as the engine's
    values, row numbers or split codes (which left `_row` with no leak to find)."""
    n = 12
    table = {"sample_id": [f"s{i}" for i in range(n)], "split": ["train"] * 6 + ["test"] * 6}
    for k, name in enumerate(OWN_NAMES):
        table[name] = [f"{name}{(i + k) % 6}" if i % 6 != 5 else f"{name}-test-{i}" for i in range(n)]
    pq.write_table(pa.table(table), tmp_path / "m.parquet", row_group_size=4)
    config = {
        "version": 1,
        "manifest": {"path": "m.parquet", "id": "sample_id", "split": "split"},
        "keys": {"groups": [*OWN_NAMES, OWN_NAMES[:2]], "sources": OWN_NAMES[2:4], "label": "v"},
        "report": {"formats": ["json"]},
    }
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    memory, other = both(tmp_path / "audit.yaml", engine, only=OUT_OF_CORE)
    assert_same(memory, other, engine.engine)
    overlap = [f for s in memory["stages"] for f in s["findings"] if f["code"] == "GRP001"]
    assert sorted(f["evidence"]["key"] for f in overlap) == sorted([*OWN_NAMES, "v + code"])


def _refusals(tmp_path: Path, table: dict[str, list[Any]], key: str, engine: EngineSettings) -> list[str]:
    """The ManifestError messages of the memory engine and of ``engine`` for a manifest grouped by ``key``."""
    pq.write_table(pa.table(table), tmp_path / "m.parquet")
    config = {
        "version": 1,
        "manifest": {"path": "m.parquet", "id": "sample_id", "split": "split"},
        "keys": {"groups": [key]},
    }
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    messages = []
    for settings_ in (EngineSettings("memory"), engine):
        with pytest.raises(ManifestError) as raised:
            run_audit(tmp_path / "audit.yaml", only=["group_overlap"], engine=settings_)
        messages.append(str(raised.value))
    return messages


@pytest.mark.parametrize("engine", ENGINES)
def test_a_column_named_as_the_split_kept_beside_the_columns_is_refused_alike_on_every_engine(
    engine: EngineSettings, tmp_path: Path
) -> None:
    """`__split__` is where every engine keeps each row's split: a manifest column of that name is refused
    (exit 2, naming it), not a crash of one engine."""
    table = {"sample_id": ["a", "b", "c", "d"], "split": ["train", "test"] * 2, "__split__": ["x", "y", "x", "z"]}
    messages = _refusals(tmp_path, table, "__split__", engine)
    assert messages[0] == messages[1] and "column '__split__'" in messages[0] and "rename" in messages[0]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_list_of_groups_per_row_is_refused_alike_on_every_engine(engine: EngineSettings, tmp_path: Path) -> None:
    """A row's list of authors is refused (exit 2) by every engine with one message, which says what finds an author
    shared between splits and never advises joining the list into one text (that hides the shared author)."""
    table = {"sample_id": ["a", "b"], "split": ["train", "test"], "authors": [["alice", "bob"], ["bob", "dave"]]}
    messages = _refusals(tmp_path, table, "authors", engine)
    assert messages[0] == messages[1] and "column 'authors' holds list<" in messages[0]
    assert "DataFrame.explode('authors')" in messages[0] and "join(items)" not in messages[0]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "values",
    [
        pa.array([1, 2, 3, 1, 2, 9], pa.int64()).cast(pa.timestamp("ms", "Europe/Berlin")),  # DuckDB gives UTC
        pa.array([1, 2, 3, 1, 2, 9], pa.duration("s")),  # an integer in Parquet
        pa.array([0.5, 1.5, 2.5, 0.5, 1.5, 9.5], pa.float16()),  # no Arrow kernel compares half floats
        pa.nulls(6),  # pandas' column of None only: no value at all
    ],
    ids=["time-zone", "duration", "half-float", "nulls"],
)
def test_keys_of_every_arrow_type_report_alike_on_every_engine(
    values: pa.Array, engine: EngineSettings, tmp_path: Path
) -> None:
    """A key, source and label column of a type some engine reads in another: each value is written as the
    in-memory engine writes it, and the shared values are found (or, without values, the rows without one)."""
    table = {"sample_id": [f"s{i}" for i in range(6)], "split": ["train"] * 3 + ["test"] * 3, "k": values}
    pq.write_table(pa.table(table), tmp_path / "m.parquet", row_group_size=4)
    config = {
        "version": 1,
        "manifest": {"path": "m.parquet", "id": "sample_id", "split": "split"},
        "keys": {"groups": ["k"], "sources": ["k"], "label": "k"},
        "report": {"formats": ["json"]},
    }
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    memory, other = both(tmp_path / "audit.yaml", engine, only=OUT_OF_CORE)
    assert_same(memory, other, engine.engine)
    found = {f["code"] for s in memory["stages"] for f in s["findings"]}
    assert ("GRP004" if pa.types.is_null(values.type) else "GRP001") in found, found


@pytest.mark.parametrize("engine", ENGINES)
def test_a_mostly_distinct_float_source_links_no_nan_and_no_zero_of_the_other_sign(
    engine: EngineSettings, tmp_path: Path
) -> None:
    """A source column of mostly distinct floats is searched for its repeated values, not coded row by row: there
    too NaN links no rows and -0.0 is not 0.0, on every engine; the one value shared is found."""
    values = [float("nan"), 1.5, 2.5, -0.0, float("nan"), 1.5, 0.0, 4.5]
    pq.write_table(
        pa.table({"sample_id": [f"s{i}" for i in range(8)], "split": ["train"] * 4 + ["test"] * 4, "src": values}),
        tmp_path / "m.parquet",
        row_group_size=3,
    )
    config = {
        "version": 1,
        "manifest": {"path": "m.parquet", "id": "sample_id", "split": "split"},
        "keys": {"sources": ["src"]},
        "report": {"formats": ["json"]},
    }
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    memory, other = both(tmp_path / "audit.yaml", engine, only=["shared_upstream"])
    assert_same(memory, other, engine.engine)
    linked = {f["code"]: f for s in memory["stages"] for f in s["findings"]}
    assert linked["UPS001"]["evidence"]["rows"] == 2  # s1 and s5, through 1.5


@pytest.mark.parametrize("engine", ENGINES)
def test_a_categorical_label_of_duplicated_content_reports_alike_on_every_engine(
    engine: EngineSettings, tmp_path: Path
) -> None:
    """Content held under two labels, the label column dictionary-encoded (a pandas Categorical): the conflict is
    reported on every engine, never a crash of some (Arrow sorts no dictionary column)."""
    table = {
        "sample_id": [f"s{i}" for i in range(6)],
        "split": ["train", "train", "test", "train", "test", "test"],
        "sha": ["ab" * 8, "ab" * 8, "cd" * 8, "cd" * 8, "ef" * 8, "01" * 8],
        "label": pa.array(["cat", "dog", "cat", "cat", "dog", "cat"]).dictionary_encode(),
    }
    pq.write_table(pa.table(table), tmp_path / "m.parquet")
    config = {
        "version": 1,
        "manifest": {"path": "m.parquet", "id": "sample_id", "split": "split"},
        "keys": {"content_hash": "sha", "label": "label"},
        "report": {"formats": ["json"]},
    }
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    memory, other = both(tmp_path / "audit.yaml", engine, only=["duplicate_content"])
    assert_same(memory, other, engine.engine)
    found = {f["code"]: f for s in memory["stages"] for f in s["findings"]}
    assert found["DUP003"]["evidence"] == {"digests": 1, "rows": 2}


@pytest.mark.parametrize("engine", ENGINES)
def test_multi_label_values_report_alike_on_every_engine(engine: EngineSettings, tmp_path: Path) -> None:
    """Labels between a separator (stages.label_coverage.label_separator), counted per label from each engine's
    distinct values: the same labels, shares, unseen labels and rows without a label on every engine."""
    rng = np.random.default_rng(0)
    pool = ["bird", "cat", "dog", "fish", " owl "]
    values = [";".join(rng.choice(pool, size=int(rng.integers(1, 4)), replace=False)) for _ in range(120)]
    values += ["bird;zebra", "zebra", "; ;", None, "cat;;dog"]
    split = ["train", "test"] * 60 + ["test"] * 5
    table = {"sample_id": [f"s{i}" for i in range(len(values))], "split": split, "label": values}
    pq.write_table(pa.table(table), tmp_path / "m.parquet", row_group_size=16)
    config = {
        "version": 1,
        "manifest": {"path": "m.parquet", "id": "sample_id", "split": "split"},
        "keys": {"label": "label"},
        "stages": {"label_coverage": {"label_separator": ";"}},
        "report": {"formats": ["json"]},
    }
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    memory, other = both(tmp_path / "audit.yaml", engine, only=["label_coverage"])
    assert_same(memory, other, engine.engine)
    found = {f["code"]: f for s in memory["stages"] for f in s["findings"]}
    assert found["LAB000"]["evidence"]["labels"] == 6
    assert found["LAB001"]["evidence"] == {"split": "test", "labels": 1, "rows": 2}
    assert found["LAB003"]["evidence"] == {"rows_per_split": {"test": 2}}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_file_of_blank_values_only_reports_alike_on_every_engine(engine: EngineSettings, tmp_path: Path) -> None:
    """A shard whose digest column holds only empty strings and nulls (no text bytes at all) beside digests
    spelled in two ways: the spellings are found on every engine, never a crash reading the empty shard."""
    distinct = [hashlib.md5(str(i).encode()).hexdigest() for i in range(40)]
    digests = [["ab" * 16, "AB" * 16, "cd" * 16, "cd" * 16, *distinct], ["", None, ""]]
    for i, part in enumerate(digests):
        split = ["train", "test"] * (len(part) // 2) + ["test"] * (len(part) % 2)
        table = {"sample_id": [f"s{i}-{j}" for j in range(len(part))], "split": split, "sha": part}
        pq.write_table(pa.table(table), tmp_path / f"part-{i}.parquet")
    _digest_config(tmp_path, "part-*.parquet")
    memory, other = both(tmp_path / "audit.yaml", engine, only=["duplicate_content"])
    assert_same(memory, other, engine.engine)
    assert {f["code"] for s in memory["stages"] for f in s["findings"]} >= {"DUP001", "DUP007"}


def _digest_config(folder: Path, manifest: str) -> Path:
    """audit.yaml in ``folder``: the manifest ``manifest`` (sample_id, split) with its digests in column `sha`."""
    config = {
        "version": 1,
        "manifest": {"path": manifest, "id": "sample_id", "split": "split"},
        "keys": {"content_hash": "sha"},
        "report": {"formats": ["json"]},
    }
    (folder / "audit.yaml").write_text(yaml.safe_dump(config))
    return folder / "audit.yaml"


@pytest.mark.parametrize("engine", ENGINES)
def test_digests_with_an_algorithm_prefix_report_alike_on_every_engine(engine: EngineSettings, tmp_path: Path) -> None:
    """`sha256:<hex>` in test beside `<hex>` in train is one digest spelled two ways (DUP007) on every engine;
    `sha3-256:<hex>`, an md5 beside a sha256 and a prefix naming no algorithm are not, on any engine."""
    sha = [hashlib.sha256(str(i).encode()).hexdigest() for i in range(40)]
    md5 = hashlib.md5(b"m").hexdigest()
    values = [sha[0], f"sha256:{sha[0]}", sha[1], f"SHA256:{sha[1].upper()}", sha[2], f"sha3-256:{sha[2]}"]
    values += [md5, f"md5:{md5}", sha[3], f"foo:{sha[3]}", *sha[4:]]
    split = ["train", "test"] * (len(values) // 2)
    table = {"sample_id": [f"s{i}" for i in range(len(values))], "split": split, "sha": values}
    pq.write_table(pa.table(table), tmp_path / "m.parquet", row_group_size=8)
    _digest_config(tmp_path, "m.parquet")
    memory, other = both(tmp_path / "audit.yaml", engine, only=["duplicate_content"])
    assert_same(memory, other, engine.engine)
    found = {f["code"]: f for s in memory["stages"] for f in s["findings"]}
    assert "DUP001" not in found and found["DUP007"]["evidence"]["digests"] == 3
    assert sorted(e["value"] for e in found["DUP007"]["examples"]) == sorted([sha[0], sha[1], md5])


@pytest.mark.parametrize("engine", ENGINES)
def test_a_set_recorded_by_bare_digests_is_seen_by_prefixed_ones_on_every_engine(
    engine: EngineSettings, tmp_path: Path
) -> None:
    """A test set recorded from bare digests, audited with the same digests written `sha256:<hex>` (and with
    files of another algorithm's prefix beside it): the same verdict on every engine, the evaluation counted."""
    from auditor.exposure import record

    sha = [hashlib.sha256(str(i).encode()).hexdigest() for i in range(60)]
    split = ["train"] * 30 + ["test"] * 30
    _digest_config(tmp_path, "m.parquet")
    ids = [f"s{i}" for i in range(60)]
    pq.write_table(pa.table({"sample_id": ids, "split": split, "sha": sha}), tmp_path / "m.parquet")
    record(tmp_path / "audit.yaml", "test")
    prefixed = sha[:30] + [f"sha256:{d}" for d in sha[30:58]] + [f"sha3-256:{d}" for d in sha[58:]]
    pq.write_table(
        pa.table({"sample_id": ids, "split": split, "sha": prefixed}), tmp_path / "m.parquet", row_group_size=8
    )
    memory, other = both(tmp_path / "audit.yaml", engine, only=["test_exposure"])
    assert_same(memory, other, engine.engine)
    (seen,) = [f for s in memory["stages"] for f in s["findings"] if f["code"] == "EXP001"]
    assert seen["evidence"]["evaluations"] == 1 and seen["evidence"]["sets"][0]["share_of_this_split"] >= 0.9


@pytest.mark.parametrize("engine", ENGINES)
def test_a_holdout_none_of_whose_files_can_be_read_is_refused_alike_on_every_engine(
    engine: EngineSettings, tmp_path: Path
) -> None:
    """Every test file of a content_path column missing, the training files there: the same error, naming the
    holdout split and its files, on every engine (never a pass on the training side alone)."""
    (tmp_path / "docs").mkdir()
    for i in range(4):
        (tmp_path / "docs" / f"tr{i}.txt").write_text(" ".join(f"w{i}x{k}" for k in range(40)))
    files = [f"docs/tr{i}.txt" for i in range(4)] + [f"docs/te{i}.txt" for i in range(3)]
    table = {"sid": [f"s{i}" for i in range(7)], "file": files, "split": ["train"] * 4 + ["test"] * 3}
    pq.write_table(pa.table(table), tmp_path / "m.parquet")
    config = {
        "version": 1,
        "manifest": {"path": "m.parquet", "id": "sid", "split": "split"},
        "keys": {"content_path": "file"},
        "stages": {"duplicate_content": {"cache_dir": "none"}},
        "report": {"formats": ["json"]},
    }
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    memory, other = both(tmp_path / "audit.yaml", engine, only=["duplicate_content"])
    assert_same(memory, other, engine.engine)
    [stage] = memory["stages"]
    assert stage["status"] == "error" and memory["exit_code"] == 2
    assert "holdout split 'test': none of its 3 file(s)" in stage["error"]["message"]


# -- shards of one column in different types -------------------------------------------------------------------


def _shards(tmp_path: Path, shards: list[tuple[str, pa.Array]], keys: dict[str, Any] | None = None) -> Path:
    """A manifest of Parquet shards, each of one split and holding column `k` in its own type."""
    for i, (split, values) in enumerate(shards):
        n = len(values)
        table = pa.table({"sample_id": [f"p{i}-{j}" for j in range(n)], "split": [split] * n, "k": values})
        pq.write_table(table, tmp_path / f"part-{i}.parquet", row_group_size=2)
    config = {
        "version": 1,
        "manifest": {"path": "part-*.parquet", "id": "sample_id", "split": "split"},
        "keys": keys or {"groups": ["k"], "sources": ["k"]},
        "report": {"formats": ["json"]},
    }
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    return tmp_path / "audit.yaml"


def _at(unit: str, tz: str | None = None) -> Any:
    """Three instants, the first of them shared, in a timestamp unit (and zone)."""

    def make(seconds: list[int]) -> pa.Array:
        return pa.array([s * 1000 for s in seconds], pa.timestamp("ms", tz)).cast(pa.timestamp(unit, tz))

    return make


SHARD_TYPES = {
    "int32-int64": (pa.array([7, 1, 2], pa.int32()), pa.array([7, 3, None], pa.int64())),
    "uint32-int32": (pa.array([7, 1, 4_000_000_000], pa.uint32()), pa.array([7, -3, None], pa.int32())),
    "dictionary-string": (pa.array(["w7", "w1", "w2"]).dictionary_encode(), pa.array(["w7", "w3", None])),
    "dictionary-indices": (
        pa.array(["w7", "w1", "w2"]).dictionary_encode().cast(pa.dictionary(pa.int8(), pa.string())),
        pa.array(["w7", "w3", None]).dictionary_encode(),
    ),
    "dictionary-large_string": (
        pa.array(["w7", "w1", "w2"]).dictionary_encode(),
        pa.array(["w7", "w3", None], pa.large_string()).dictionary_encode(),
    ),
    "string-large_string": (pa.array(["w7", "w1", "w2"]), pa.array(["w7", "w3", "w4"], pa.large_string())),
    "float32-float64": (pa.array([7.5, 1.5, 2.25], pa.float32()), pa.array([7.5, 0.1, None], pa.float64())),
    "timestamp-ms-us": (_at("ms")([1_700_000_000, 1, 2]), _at("us")([1_700_000_000, 3, 4])),
    "timestamp-zone-ms-us": (_at("ms", "UTC")([1_700_000_000, 1, 2]), _at("us", "UTC")([1_700_000_000, 3, 4])),
    "duration-s-ms": (pa.array([7, 1, 2], pa.duration("s")), pa.array([7000, 3, 4], pa.duration("ms"))),
    "int-float": (pa.array([7, 1, 2], pa.int64()), pa.array([7.0, 2.5, None], pa.float64())),
    "decimal-widths": (
        pa.array([Decimal("7.5"), Decimal("1.5")], pa.decimal128(5, 1)),
        pa.array([Decimal("7.5"), Decimal("0.25")], pa.decimal128(12, 2)),
    ),
    "int-string": (pa.array([7, 1, 2], pa.int64()), pa.array(["7", "x", "07"])),
    # Each float is the text beside it, in Arrow's spelling (DuckDB's own is 7.0 and 1e-07).
    "float-string": (pa.array([2.5, 7.0, 1e-7], pa.float64()), pa.array(["2.5", "7", "1e-7"])),
    "float32-string": (pa.array([0.1, 7.0, 3.5], pa.float32()), pa.array(["0.1", "x", None], pa.large_string())),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("pair", list(SHARD_TYPES))
def test_shards_of_one_column_in_compatible_types_report_alike_on_every_engine(
    pair: str, engine: EngineSettings, tmp_path: Path
) -> None:
    """Shards written by different jobs (int32 and int64, a dictionary and plain text, ms and us, a number and
    text...): every engine reads the column in one type, and the value the train and test shards share is found."""
    train, test = SHARD_TYPES[pair]
    config = _shards(tmp_path, [("train", train), ("test", test)])
    memory, other = both(config, engine, only=["split_integrity", "group_overlap", "shared_upstream"])
    assert_same(memory, other, engine.engine)
    shared = {f["code"]: f for s in memory["stages"] for f in s["findings"]}
    assert "GRP001" in shared, shared
    assert shared["GRP001"]["evidence"]["groups"] == (3 if pair == "float-string" else 1), shared["GRP001"]


def mixed_type_shards(folder: Path, rows: int = 60) -> Path:
    """Three shards from three jobs, every named column in another type in some of them: ids and splits as string,
    large_string and dictionary, writers as int32, int64 and text, sources as dictionary, text and nulls only,
    digests as string and large_string, labels as text and dictionary, times in ms and us."""
    rng = np.random.default_rng(5)

    def shard(i: int, n: int) -> pa.Table:
        writer = rng.integers(0, 12, n)
        text = [
            pa.array([f"s{i}-{j}" for j in range(n)], pa.large_string() if i == 1 else pa.string()),
            pa.array(rng.choice(["train", "test", "val"], n)),
        ]
        if i == 2:
            text[1] = text[1].dictionary_encode()
        return pa.table(
            {
                "sample_id": text[0],
                "split": text[1].cast(pa.large_string()) if i == 1 else text[1],
                "writer": [
                    pa.array(writer, pa.int32()),
                    pa.array(writer, pa.int64()),
                    pa.array([str(w) for w in writer]),
                ][i],
                "source": [
                    pa.array([f"doc{v}" for v in rng.integers(0, 20, n)]).dictionary_encode(),
                    pa.array([f"doc{v}" for v in rng.integers(0, 20, n)]),
                    pa.nulls(n),
                ][i],
                "sha": pa.array([f"{v:032x}" for v in rng.integers(0, 40, n)], pa.large_string() if i else pa.string()),
                "label": pa.array(rng.choice(["cat", "dog", "Cat"], n)).dictionary_encode()
                if i == 1
                else rng.choice(["cat", "dog"], n),
                "ts": pa.array(rng.integers(1_600_000_000_000, 1_700_000_000_000, n), pa.timestamp("ms")).cast(
                    pa.timestamp("ms" if i == 0 else "us")
                ),
            }
        )

    for i in range(3):
        pq.write_table(shard(i, rows), folder / f"part-{i}.parquet", row_group_size=max(rows // 4, 1))
    config = {
        "version": 1,
        "manifest": {"path": "part-*.parquet", "id": "sample_id", "split": "split"},
        "splits": {"train": ["train"], "holdout": ["val", "test"]},
        "keys": {"groups": ["writer"], "sources": ["source"], "content_hash": "sha", "label": "label", "time": "ts"},
        "report": {"formats": ["json"]},
    }
    (folder / "audit.yaml").write_text(yaml.safe_dump(config))
    return folder / "audit.yaml"


@pytest.mark.parametrize("engine", ENGINES)
def test_shards_whose_every_column_differs_in_type_report_alike_on_every_engine(
    engine: EngineSettings, tmp_path: Path
) -> None:
    """Every key of the manifest in other types in other shards, every stage out of core: one report, whose
    writers (int32, int64 and text) are shared across splits and files."""
    memory, other = both(mixed_type_shards(tmp_path), engine, only=OUT_OF_CORE)
    assert_same(memory, other, engine.engine)
    found = {f["code"] for s in memory["stages"] for f in s["findings"]}
    assert {"GRP001", "DUP001", "UPS001"} <= found, found


BESIDE_NULLS = {
    "text": pa.array(["w7", "w1"]),
    "dictionary": pa.array(["w7", "w1"]).dictionary_encode(),
    "time-zone": pa.array([7, 1], pa.int64()).cast(pa.timestamp("ms", "UTC")),
    "bool": pa.array([True, False]),
    "half-float": pa.array([7.5, 1.5], pa.float16()),
    "duration": pa.array([7, 1], pa.duration("ms")),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("kind", list(BESIDE_NULLS))
def test_a_shard_of_nulls_only_beside_typed_shards_reports_alike_on_every_engine(
    kind: str, engine: EngineSettings, tmp_path: Path
) -> None:
    """A shard whose column holds no value (null-typed: pandas' column of None) beside shards of any type: its rows
    are without a group, the others' shared group is found, on every engine."""
    values = BESIDE_NULLS[kind]
    shards = [("train", values), ("train", pa.nulls(3)), ("test", values.slice(0, 1))]
    memory, other = both(_shards(tmp_path, shards), engine, only=["group_overlap"])
    assert_same(memory, other, engine.engine)
    codes = {f["code"] for s in memory["stages"] for f in s["findings"]}
    assert {"GRP001", "GRP004"} <= codes, codes


@pytest.mark.parametrize("engine", ENGINES)
def test_one_file_per_split_in_other_types_reports_alike_on_every_engine(
    engine: EngineSettings, tmp_path: Path
) -> None:
    """`paths`: a train file of int32 ids and writers, a test file of int64 ids and text writers, one type decided
    over both files on every engine: the id in both (SPL001) and the writer in both (GRP001) are found."""
    pq.write_table(
        pa.table({"sid": pa.array([1, 2, 3], pa.int32()), "writer": pa.array([7, 8, 9], pa.int32())}),
        tmp_path / "train.parquet",
    )
    pq.write_table(
        pa.table({"sid": pa.array([3, 4], pa.int64()), "writer": pa.array(["7", "x"])}), tmp_path / "test.parquet"
    )
    config = {
        "version": 1,
        "manifest": {"paths": {"train": "train.parquet", "test": "test.parquet"}, "id": "sid"},
        "keys": {"groups": ["writer"]},
        "report": {"formats": ["json"]},
    }
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    memory, other = both(tmp_path / "audit.yaml", engine, only=["split_integrity", "group_overlap"])
    assert_same(memory, other, engine.engine)
    assert {"SPL001", "GRP001"} <= {f["code"] for s in memory["stages"] for f in s["findings"]}


INCOMPATIBLE = {
    "int-timestamp": (pa.array([7, 1], pa.int64()), pa.array([7, 3], pa.int64()).cast(pa.timestamp("s"))),
    "bool-string": (pa.array([True, False]), pa.array(["true", "x"])),
    "zone-no-zone": (_at("ms", "UTC")([1_700_000_000, 1]), _at("ms")([1_700_000_000, 3])),
    "int-beyond-float": (pa.array([2**53 + 1, 1], pa.int64()), pa.array([7.5, 3.0], pa.float64())),
    # 9999-12-31 in us, beside times in ns: no nanosecond count of it fits in 64 bits.
    "time-beyond-ns": (_at("us")([253_402_214_400, 1]), _at("ns")([1_700_000_000, 3])),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("pair", list(INCOMPATIBLE))
def test_shards_of_one_column_in_incompatible_types_are_refused_alike_on_every_engine(
    pair: str, engine: EngineSettings, tmp_path: Path
) -> None:
    """A time in one shard and a number in another (or a truth value and text, two time zones, an integer no
    float holds): every engine refuses the manifest (exit 2) in one message naming both files, the column and
    both types, never a report that compares some values and misses others."""
    train, test = INCOMPATIBLE[pair]
    config = _shards(tmp_path, [("train", train), ("test", test)])
    messages = []
    for settings_ in (EngineSettings("memory"), engine):
        with pytest.raises(ManifestError) as raised:
            run_audit(config, only=["group_overlap"], engine=settings_)
        messages.append(str(raised.value))
    assert messages[0] == messages[1]
    held = [
        (tmp_path / f"part-{i}.parquet", pq.read_schema(tmp_path / f"part-{i}.parquet").field("k").type) for i in (0, 1)
    ]
    if pair in ("int-beyond-float", "time-beyond-ns"):
        held.reverse()  # the file named first is the one holding the value the common type cannot hold
    assert messages[0].startswith(
        f"{held[1][0]}: column 'k' holds {held[1][1]} values, but {held[0][1]} in {held[0][0]}"
    )
    args = ["run", str(config), "--engine", engine.engine, "--out", str(tmp_path / "out"), "-q"]
    if engine.engine == "dask":
        args += ["--scheduler", "synchronous"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert "column 'k' holds" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("engine", ENGINES)
def test_shards_of_identical_types_are_read_as_they_are_on_every_engine(engine: EngineSettings, tmp_path: Path) -> None:
    """Shards that agree on every type (dictionary text, int64, timestamps in ms) are read as written: no file is
    cast, the dictionary stays a dictionary, and the shared group is found alike."""
    shards = [
        ("train", pa.array(["w7", "w1", "w2"]).dictionary_encode()),
        ("test", pa.array(["w7", "w3", "w2"]).dictionary_encode()),
    ]
    config = _shards(tmp_path, shards)
    memory, other = both(config, engine, only=["group_overlap"])
    assert_same(memory, other, engine.engine)
    found = {f["code"]: f for s in memory["stages"] for f in s["findings"]}
    assert found["GRP001"]["evidence"]["groups"] == 2
    files = parquet_sources(load_config(config), "test")
    assert all(not s.casts for s in files.sources)
    assert pa.types.is_dictionary(files.types["k"])


@pytest.mark.parametrize("engine", ENGINES)
def test_rows_linked_through_values_spelled_two_ways_report_alike_on_every_engine(
    engine: EngineSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """shared_upstream links rows through a value spelled two ways (a repeated writer, a document or a digest one
    row holds, a digest in upper case or with its `sha256:`) on every engine, each key's rows in several pieces;
    values that differ by more than spelling (`w1a`, `d-1`, `sha3-256:`) link nothing. The chains name both
    spellings as written, alike; on Dask, whether the components are merged on a worker or by star rounds."""
    from auditor.backends import cluster

    monkeypatch.setattr(cluster, "PIECE_ROWS", 16)  # several pieces: a lone spelling's code is set in its own
    sha = [hashlib.sha256(str(i).encode()).hexdigest() for i in range(80)]
    n = 60
    writer = [f"w{i % 6}" for i in range(n)]
    doc = [f"doc-{i}" for i in range(n - 1)] + ["d1"]
    digest = sha[:n]
    tests = [  # (writer, doc, digest): the first four are linked to training rows, the last three are not
        (" W1", "t-0", sha[60]),
        ("w-7", "DOC-3 ", sha[61]),
        ("w-8", "t-2", sha[5].upper()),
        ("w-9", "t-3", f"sha256:{sha[6]}"),
        ("w1a", "t-4", sha[62]),
        ("w-10", "d-1", sha[63]),
        ("w-11", "t-6", f"sha3-256:{sha[7]}"),
    ]
    table = {
        "sample_id": [f"s{i:02d}" for i in range(n + len(tests))],
        "split": ["train"] * n + ["test"] * len(tests),
        "writer": writer + [t[0] for t in tests],
        "doc": doc + [t[1] for t in tests],
        "sha": digest + [t[2] for t in tests],
    }
    pq.write_table(pa.table(table), tmp_path / "m.parquet", row_group_size=8)
    config = {
        "version": 1,
        "manifest": {"path": "m.parquet", "id": "sample_id", "split": "split"},
        "keys": {"groups": ["writer"], "sources": ["doc"], "content_hash": "sha"},
        "stages": {"shared_upstream": {"max_examples": 10}},
        "report": {"formats": ["json"]},
    }
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    memory, other = both(tmp_path / "audit.yaml", engine, only=["shared_upstream"])
    assert_same(memory, other, engine.engine)
    if engine.engine == "dask":  # past MERGE_HERE_NODES key values the components come from star rounds
        from auditor.backends import linkedpieces

        monkeypatch.setattr(linkedpieces, "MERGE_HERE_NODES", 0)
        assert_same(memory, both(tmp_path / "audit.yaml", engine, only=["shared_upstream"])[1], "dask, star rounds")
    found = {f["code"]: f for s in other["stages"] for f in s["findings"]}
    assert found["UPS001"]["evidence"]["components"] == 4
    starts = {e["chains"][0]["steps"][0]["id"] for e in found["UPS001"]["examples"]}
    assert starts == {"s60", "s61", "s62", "s63"}
    spelled = {
        tuple(s["spellings"])
        for e in found["UPS001"]["examples"]
        for c in e["chains"]
        for s in c["steps"]
        if "spellings" in s
    }
    assert spelled == {(" W1", "w1"), ("DOC-3 ", "doc-3"), (sha[5].upper(), sha[5]), (f"sha256:{sha[6]}", sha[6])}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_content_key_blank_on_a_whole_side_is_an_error_alike_on_every_engine(
    engine: EngineSettings, tmp_path: Path
) -> None:
    """Blank digests counted per split where the rows are: the same DUP008 error from every engine."""
    table = {
        "sample_id": [f"s{i}" for i in range(8)],
        "split": ["train"] * 4 + ["val", "val", "test", "test"],
        "sha": ["a1", "a2", "a1", None, None, " ", "", "\u3000"],
    }
    pq.write_table(pa.table(table), tmp_path / "m.parquet", row_group_size=3)
    config = {
        "version": 1,
        "manifest": {"path": "m.parquet", "id": "sample_id", "split": "split"},
        "keys": {"content_hash": "sha"},
        "report": {"formats": ["json"]},
    }
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    memory, other = both(tmp_path / "audit.yaml", engine, only=["duplicate_content"])
    assert_same(memory, other, engine.engine)
    found = {f["code"]: f for s in memory["stages"] for f in s["findings"]}
    assert found["DUP008"]["severity"] == "error"
    assert found["DUP008"]["evidence"]["rows_per_split"] == {"train": 1, "val": 2, "test": 2}


@pytest.mark.parametrize("engine", ENGINES)
def test_group_values_missing_blank_or_in_no_split_report_alike_on_every_engine(
    engine: EngineSettings, tmp_path: Path
) -> None:
    """A group key with nulls, empty and whitespace-only texts in each split, and values held only by rows of no
    split: the rows without a value are counted per split, and a value outside every split is no value, on every
    engine alike (the out-of-core engine groups such a key with one row per value)."""
    writers = ["w1", "w2", None, "", "  ", "w3", "w1", "\t", None, "w4", "w2", "w5", "w6", "w6"]
    splits = ["train"] * 3 + ["test"] * 4 + ["train", "test", "dev", "val", "val", None, "dev"]
    table = {"sample_id": [f"s{i}" for i in range(len(writers))], "split": splits, "writer": writers}
    pq.write_table(pa.table(table), tmp_path / "manifest.parquet", row_group_size=4)
    config = {
        "version": 1,
        "manifest": {"path": "manifest.parquet", "id": "sample_id", "split": "split"},
        "splits": {"train": ["train"], "holdout": ["val", "test"]},
        "keys": {"groups": ["writer"]},
        "report": {"formats": ["json"]},
    }
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    memory, other = both(tmp_path / "audit.yaml", engine, only=["group_overlap"])
    assert_same(memory, other, engine.engine)
    texts = [f["message"] for s in memory["stages"] for f in s["findings"]]
    assert any("5 row(s) have no 'writer' value" in t for t in texts), texts
