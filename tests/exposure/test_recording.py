"""record(): one call appends an evaluation; every mistake in its input is a clear, typed error."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

import auditor.exposure
from auditor.core.errors import ConfigError, ManifestError
from auditor.exposure.ledger import SqliteLedger
from auditor.exposure.recording import default_ledger_path, record
from tests.conftest import write_config, write_table


def setup(folder: Path, manifest: dict[str, Any] | None = None, **config: Any) -> Path:
    rows = {"id": ["a", "b", "c", "t1"], "split": ["test", "test", "val", "train"]}
    write_table(folder / "m.csv", rows)
    body: dict[str, Any] = {
        "version": 1,
        "manifest": {"path": "m.csv", "id": "id", "split": "split", **(manifest or {})},
    }
    body.update(config)
    return write_config(folder, body)


def test_record_appends_to_the_ledger_next_to_the_config(tmp_path: Path) -> None:
    config = setup(tmp_path)
    entry = auditor.exposure.record(config, "test", metrics={"acc": 0.913}, note="baseline", who="ana")
    (stored,) = SqliteLedger(tmp_path / ".split-auditor" / "ledger.sqlite").sets()
    assert stored.evaluations == (entry,)
    assert entry.id is not None and entry.split == "test" and entry.metrics == {"acc": 0.913}
    assert entry.who == "ana" and entry.note == "baseline" and entry.source == str(config)
    assert stored.sketch.n_rows == 2 and stored.sketch.basis == "ids"


def test_record_writes_to_a_ledger_it_is_given(tmp_path: Path) -> None:
    config = setup(tmp_path)
    record(config, "val", ledger=tmp_path / "elsewhere" / "l.sqlite", who="x")
    record(config, "val", ledger=str(tmp_path / "elsewhere" / "l.sqlite"), who="x")
    assert len(SqliteLedger(tmp_path / "elsewhere" / "l.sqlite").sets()[0].evaluations) == 2
    assert not default_ledger_path(__import__("auditor").load_config(config)).exists()


def test_who_defaults_to_the_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.setenv(name, "evaluator-7")
    assert record(setup(tmp_path), "test").who == "evaluator-7"


def test_an_unknown_split_names_the_splits(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        record(setup(tmp_path), "holdout")
    message = str(caught.value)
    assert "'holdout'" in message and all(f"'{s}'" in message for s in ("test", "val", "train"))
    assert not (tmp_path / ".split-auditor").exists()


def test_a_config_without_an_id_or_content_key_is_refused(tmp_path: Path) -> None:
    write_table(tmp_path / "m.csv", {"split": ["test"]})
    config = write_config(tmp_path, {"version": 1, "manifest": {"path": "m.csv", "split": "split"}})
    with pytest.raises(ConfigError, match=r"manifest\.id.*content_hash.*content_path"):
        record(config, "test")


def test_config_problems_propagate_as_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        record(tmp_path / "missing.yaml", "test")
    (tmp_path / "bad.yaml").write_text("version: 1\nmanifest: [\n")
    with pytest.raises(ConfigError):
        record(tmp_path / "bad.yaml", "test")


def test_a_split_with_no_identities_is_refused(tmp_path: Path) -> None:
    write_table(tmp_path / "m.csv", {"id": ["a", " "], "split": ["train", "test"]})
    config = write_config(tmp_path, {"version": 1, "manifest": {"path": "m.csv", "id": "id", "split": "split"}})
    with pytest.raises(ManifestError, match="'test'"):
        record(config, "test")


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_metrics_must_be_finite(tmp_path: Path, bad: float) -> None:
    with pytest.raises(ConfigError, match="metric 'loss' must be a finite number"):
        record(setup(tmp_path), "test", metrics={"acc": 0.5, "loss": bad})
    assert not (tmp_path / ".split-auditor").exists()


@pytest.mark.parametrize("bad", ["0.9", True, None, [1.0]])
def test_metrics_must_be_numbers(tmp_path: Path, bad: Any) -> None:
    with pytest.raises(ConfigError, match="metric 'acc' must be a number"):
        record(setup(tmp_path), "test", metrics={"acc": bad})


def test_metric_names_must_be_text(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="metric names"):
        record(setup(tmp_path), "test", metrics={" ": 1.0})


def test_numpy_numbers_are_metrics(tmp_path: Path) -> None:
    import numpy as np

    metrics: dict[str, Any] = {"acc": np.float32(0.5), "n": np.int64(3)}
    entry = record(setup(tmp_path), "test", metrics=metrics)
    assert entry.metrics == {"acc": 0.5, "n": 3.0} and all(type(v) is float for v in entry.metrics.values())


def test_record_writes_to_the_ledger_the_config_names_for_the_audit(tmp_path: Path) -> None:
    """`stages.test_exposure.ledger` is where the audit reads: record() must write there, not beside it."""
    import shutil

    import yaml

    from auditor.exposure import record
    from auditor.exposure.ledger import SqliteLedger
    from tests.conftest import REPO

    shutil.copytree(REPO / "sample_data" / "video_frames", tmp_path / "v")
    config = tmp_path / "v" / "audit.yaml"
    data = yaml.safe_load(config.read_text())
    data["stages"]["test_exposure"] = {"ledger": "../team-ledger.sqlite"}
    data["roots"] = [".."]  # the team's ledger lies beside the project: its folder is allowed
    config.write_text(yaml.safe_dump(data))
    record(config, "test")
    assert len(SqliteLedger(tmp_path / "team-ledger.sqlite").sets()) == 1
    assert not (tmp_path / "v" / ".split-auditor").exists()
