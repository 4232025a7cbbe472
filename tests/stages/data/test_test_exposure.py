"""test_exposure: holdout sets recognised by content through renames, moves and edited copies; the e1/e2 rule."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import shutil
import sqlite3
from itertools import pairwise
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest
import yaml

import auditor.exposure as exposure
from auditor import load_config, run_audit
from auditor.core.errors import ConfigError
from auditor.core.findings import Finding, Report
from auditor.exposure import fingerprint
from auditor.exposure.fingerprint import SetSketch
from auditor.exposure.holdout import split_sketches
from auditor.exposure.ledger import Evaluation, SqliteLedger
from auditor.manifest.table import load_manifest
from tests.conftest import REPO, write_config, write_table

VIDEO = REPO / "sample_data" / "video_frames"
EXPOSURE_CODES = ("EXP000", "EXP001")  # a fresh set and a seen one carry the same evidence


def exp(report: Report, split: str) -> Finding:
    (found,) = [f for f in report.findings if f.code in EXPOSURE_CODES and f.evidence["split"] == split]
    return found


def audit(config: Path) -> Report:
    return run_audit(load_config(config), only="test_exposure")


def with_ledger(config: Path, ledger: Path, **options: Any) -> Path:
    data = yaml.safe_load(config.read_text())
    data.setdefault("stages", {})["test_exposure"] = {"ledger": str(ledger), **options}
    # A ledger shared by several configs lies outside each one's folder: `roots:` allows its folder.
    data["roots"] = [os.path.relpath(ledger.parent, config.parent)]
    config.write_text(yaml.safe_dump(data, sort_keys=False))
    return config


def test_a_renamed_and_moved_test_split_is_recognised_with_its_history(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.sqlite"
    first = tmp_path / "original"
    shutil.copytree(VIDEO, first)
    exposure.record(first / "audit.yaml", "test", metrics={"acc": 0.91}, note="baseline", ledger=ledger)

    # The same frames, their files moved to another folder, the split renamed: not a fresh test set.
    moved = tmp_path / "moved"
    shutil.copytree(VIDEO, moved)
    (moved / "frames").rename(moved / "clips")
    manifest = pd.read_csv(moved / "manifest.csv")
    manifest["file"] = manifest["file"].str.replace("frames/", "clips/", regex=False)
    manifest["split"] = manifest["split"].replace({"test": "holdout_2024"})
    manifest.to_csv(moved / "manifest.csv", index=False)
    config = yaml.safe_load((moved / "audit.yaml").read_text())
    config["splits"] = {"train": ["train"], "holdout": ["val", "holdout_2024"], "allow": [["val", "holdout_2024"]]}
    (moved / "audit.yaml").write_text(yaml.safe_dump(config, sort_keys=False))

    found = exp(audit(with_ledger(moved / "audit.yaml", ledger)), "holdout_2024")
    assert found.evidence["evaluations"] == 1 and found.evidence["basis"] == "content"
    (matched,) = found.evidence["sets"]
    assert matched["recorded_as"] == ["test"] and matched["relation"] == "this set"
    (timeline,) = found.tables
    assert timeline.rows[0][1:] == ("test", "this set", str(first / "audit.yaml"), "acc=0.91", "baseline")
    assert exp(audit(moved / "audit.yaml"), "val").evidence["evaluations"] == 0


def test_a_copy_with_rows_dropped_is_the_same_set_and_the_verdict_grows_with_k(tmp_path: Path) -> None:
    n = 10_000
    ids = [f"s{i:05d}" for i in range(2_000 + n)]
    write_table(tmp_path / "a" / "manifest.csv", {"id": ids, "split": ["train"] * 2_000 + ["test"] * n})
    original = write_config(tmp_path / "a", {"manifest": {"path": "manifest.csv", "id": "id", "split": "split"}})
    ledger = tmp_path / "ledger.sqlite"
    with_ledger(original, ledger, budget=6)
    assert exp(audit(original), "test").severity == "info"  # fresh

    # test_v2: the test set minus 3 rows, under another name, in another folder, ids in other case.
    copy = pd.DataFrame({"id": [i.upper() for i in ids], "split": ["train"] * 2_000 + ["test_v2"] * n}).drop(
        index=[2_000, 2_001, 2_002]
    )
    write_table(tmp_path / "b" / "manifest.csv", copy)
    renamed = write_config(tmp_path / "b", {"manifest": {"path": "manifest.csv", "id": "id", "split": "split"}})
    with_ledger(renamed, ledger, budget=6)

    severities = []
    for _ in range(7):
        exposure.record(original, "test", ledger=ledger)
        severities.append(exp(audit(renamed), "test_v2").severity.value)
    # n = 9,997: e2 = sqrt(k/n) stays within max_error 0.02 up to k = 3 (k = 4 gives 0.02001); 7 > budget 6.
    assert severities == ["info"] * 3 + ["warning"] * 3 + ["error"]
    found = exp(audit(renamed), "test_v2")
    (matched,) = found.evidence["sets"]
    assert matched["relation"] == "99.9% the same set" and matched["recorded_as"] == ["test"]
    assert "k = 7" in found.message and "exceed the budget of 6" in found.message


def test_a_fresh_set_has_its_own_code_and_title_and_one_evaluation_makes_it_exp001(tmp_path: Path) -> None:
    shutil.copytree(VIDEO, tmp_path / "v")
    config = with_ledger(tmp_path / "v" / "audit.yaml", tmp_path / "ledger.sqlite")
    fresh = exp(audit(config), "test")
    assert (fresh.code, fresh.severity) == ("EXP000", "info") and fresh.evidence["evaluations"] == 0
    assert "fresh" in fresh.title and "already" not in fresh.title and "is fresh" in fresh.message
    exposure.record(config, "test", ledger=tmp_path / "ledger.sqlite")
    seen = exp(audit(config), "test")
    assert (seen.code, seen.evidence["evaluations"]) == ("EXP001", 1)
    assert seen.title == "evaluations already recorded on a holdout set" and "fresh" not in seen.message


def test_a_corrupt_ledger_is_an_error_of_the_stage_and_stays_as_it_was(tmp_path: Path) -> None:
    shutil.copytree(VIDEO, tmp_path / "v")
    ledger = tmp_path / "ledger.sqlite"
    ledger.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 8)
    before = hashlib.sha256(ledger.read_bytes()).hexdigest()
    report = audit(with_ledger(tmp_path / "v" / "audit.yaml", ledger))
    (result,) = [r for r in report.stages if r.stage == "test_exposure"]
    assert result.status == "error" and str(ledger) in (result.error.message if result.error else "")
    assert report.exit_code == 2
    assert hashlib.sha256(ledger.read_bytes()).hexdigest() == before


def test_a_corrupt_ledger_error_is_its_message_without_a_traceback(tmp_path: Path) -> None:
    shutil.copytree(VIDEO, tmp_path / "v")
    ledger = tmp_path / "v" / "ledger.sqlite"
    ledger.write_text("not a database\n")
    report = audit(with_ledger(tmp_path / "v" / "audit.yaml", ledger))
    (result,) = [r for r in report.stages if r.stage == "test_exposure"]
    assert result.error is not None and result.error.type == "ledger"
    assert "is not a readable ledger" in result.error.message
    assert result.error.traceback == ""


def _ledger_with_history(folder: Path) -> Path:
    """A ledger outside the project that has seen the sample's test split twice."""
    shutil.copytree(VIDEO, folder / "seen")
    ledger = folder / "x" / "ledger.sqlite"
    for _ in range(2):
        exposure.record(folder / "seen" / "audit.yaml", "test", metrics={"acc": 0.9}, ledger=ledger)
    return ledger


def _configured(tmp_path: Path, ledger: str) -> Path:
    proj = tmp_path / "a" / "b" / "proj"
    shutil.copytree(VIDEO, proj)
    data = yaml.safe_load((proj / "audit.yaml").read_text())
    data.setdefault("stages", {})["test_exposure"] = {"ledger": ledger}
    (proj / "audit.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return proj / "audit.yaml"


@pytest.mark.parametrize("written", ["absolute", "../../../x/ledger.sqlite", "link"])
def test_a_ledger_outside_the_roots_is_refused_before_it_is_read(tmp_path: Path, written: str) -> None:
    from typer.testing import CliRunner

    from auditor.cli import app

    ledger = _ledger_with_history(tmp_path)
    config = _configured(tmp_path, {"absolute": str(ledger), "link": "ledger.sqlite"}.get(written, written))
    if written == "link":  # inside the project, leading out: resolved before it is checked
        os.symlink(ledger, config.parent / "ledger.sqlite")
    before = hashlib.sha256(ledger.read_bytes()).hexdigest()
    done = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "out")])
    assert done.exit_code == 2, done.output
    assert "stages.test_exposure.ledger" in done.output and "outside the folders an audit may read" in done.output
    assert f"{config}:" in done.output and "Traceback" not in done.output
    assert not (tmp_path / "out" / "report.json").exists()
    assert hashlib.sha256(ledger.read_bytes()).hexdigest() == before
    # The same ledger under `--root`: allowed, and its evaluations count.
    done = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "out"), "--root", str(ledger.parent)])
    assert done.exit_code in (0, 1), done.output
    found = Report.model_validate_json((tmp_path / "out" / "report.json").read_text())
    assert exp(found, "test").evidence["evaluations"] == 2


def test_an_outside_ledger_is_refused_the_same_whether_or_not_it_exists(tmp_path: Path) -> None:
    from auditor.core.errors import StageLoadError

    messages = []
    for i, name in enumerate(["/etc/passwd", "/etc/no-such-file-here"]):
        config = _configured(tmp_path / str(i), name)
        with pytest.raises(StageLoadError) as exc:
            run_audit(load_config(config), only="test_exposure")
        messages.append(str(exc.value).replace(str(config.parent), "<proj>").replace(name, "<ledger>"))
    assert messages[0] == messages[1]
    assert "not a" not in messages[0] and "database" not in messages[0]


def test_record_refuses_a_configured_ledger_outside_the_roots(tmp_path: Path) -> None:
    from auditor.core.errors import ConfigError

    config = _configured(tmp_path, "../../../x/ledger.sqlite")
    with pytest.raises(ConfigError, match="stages.test_exposure.ledger"):
        exposure.record(config, "test")
    assert not (tmp_path / "x").exists()


def test_without_ids_or_content_the_stage_says_what_it_needs(tmp_path: Path) -> None:
    write_table(tmp_path / "manifest.csv", {"split": ["train", "test"], "x": [1, 2]})
    config = write_config(tmp_path, {"manifest": {"path": "manifest.csv", "split": "split"}})
    (result,) = [r for r in run_audit(load_config(config)).stages if r.stage == "test_exposure"]
    assert result.status == "skipped" and "manifest.id" in (result.skip_reason or "")


def test_reading_an_absent_ledger_creates_nothing(tmp_path: Path) -> None:
    shutil.copytree(VIDEO, tmp_path / "v")
    found = exp(audit(tmp_path / "v" / "audit.yaml"), "test")
    assert found.severity == "info" and found.evidence["evaluations"] == 0
    assert not (tmp_path / "v" / ".split-auditor").exists()


@pytest.mark.parametrize("option", [{"max_error": 0}, {"budget": -1}, {"same_set": 1.5}])
def test_options_are_validated(tmp_path: Path, option: dict[str, Any]) -> None:
    from auditor.core.errors import AuditError

    shutil.copytree(VIDEO, tmp_path / "v")
    config = tmp_path / "v" / "audit.yaml"
    data = yaml.safe_load(config.read_text())
    data["stages"]["test_exposure"] = option
    config.write_text(yaml.safe_dump(data))
    with pytest.raises(AuditError, match="test_exposure"):
        run_audit(load_config(config))


def test_the_html_report_draws_the_timeline_of_evaluations(tmp_path: Path) -> None:
    from auditor.render.html import render_html

    shutil.copytree(VIDEO, tmp_path / "v")
    ledger = tmp_path / "ledger.sqlite"
    for _ in range(2):
        exposure.record(tmp_path / "v" / "audit.yaml", "test", ledger=ledger)
    page = render_html(audit(with_ledger(tmp_path / "v" / "audit.yaml", ledger)))
    assert (
        "2 evaluation(s) recorded on &#39;test&#39; and its copies" in page
        or "2 evaluation(s) recorded on 'test'" in page
    )
    assert page.count('class="mark"') >= 2


@pytest.mark.parametrize("keys", [{}, {"content_hash": "sha"}], ids=["ids", "content"])
def test_split_sketches_read_each_holdout_row_once_and_equal_a_sketch_per_split(
    tmp_path: Path, keys: dict[str, str]
) -> None:
    from unittest.mock import patch

    import numpy as np
    import pyarrow as pa

    from auditor.exposure.fingerprint import row_hashes, sketch
    from auditor.exposure.holdout import split_sketches
    from auditor.manifest import table
    from auditor.manifest.table import Manifest, load_manifest

    splits = ["train", "val", "test", "val", "test", "train", "test"] * 5
    digests = [f"{i % 9:064x}" if i % 4 else f"  {i:064X} " for i in range(len(splits))]  # repeats, spellings
    write_table(tmp_path / "m.parquet", {"sid": [f"s{i}" for i in range(len(splits))], "sha": digests, "split": splits})
    config = {"version": 1, "manifest": {"path": "m.parquet", "id": "sid", "split": "split"}, "keys": keys}
    loaded = load_config(write_config(tmp_path, config))
    manifest = load_manifest(loaded)
    wanted = ["val", "test", "absent"]
    column = "sha" if keys else "sid"
    basis = "content" if keys else "ids"
    values = manifest.column(column).combine_chunks()
    # Each split's sketch made from its own rows alone, one split at a time.
    expected = {
        s: sketch(row_hashes(values.filter(pa.array([x == s for x in splits])), basis), basis) for s in ("val", "test")
    }
    reads: list[list[int]] = []
    take = Manifest.take

    def counted(self: Manifest, name: str, rows: Any) -> Any:
        reads.append([int(r) for r in rows])
        return take(self, name, rows)

    with patch.object(Manifest, "take", counted), patch.object(table, "_SPLIT_READ_ROWS", 4):
        got = split_sketches(manifest, loaded.config, loaded.base_dir, wanted)
    manifest.close()
    assert list(got) == ["val", "test"]
    for split, mine in got.items():
        assert (mine.digest, mine.n_rows, mine.basis) == (
            expected[split].digest,
            expected[split].n_rows,
            "content" if keys else "ids",
        )
        assert np.array_equal(mine.hashes, expected[split].hashes)
    # Each holdout row is read once, and the reads follow one another: the files are passed over once for
    # all the splits, not once per split.
    assert [r for rows in reads for r in rows] == [i for i, s in enumerate(splits) if s != "train"]
    assert len(reads) > 1 and all(max(a) < min(b) for a, b in pairwise(reads))


# -- cross-validation folds --------------------------------------------------------------------------------


def _fold_configs(tmp_path: Path) -> tuple[Path, Path]:
    """The same rows as a fixed train/test split, and with 4 folds over the training rows beside the test split."""
    n = 400
    ids = [f"r{i:04d}" for i in range(n)]
    split = ["test" if i % 5 == 0 else "train" for i in range(n)]
    fold = ["" if s == "test" else str(i % 4) for i, s in enumerate(split)]
    write_table(tmp_path / "manifest.csv", {"id": ids, "split": split, "fold": fold})
    fixed = write_config(tmp_path, {"manifest": {"path": "manifest.csv", "id": "id", "split": "split"}}, "fixed.yaml")
    folds = write_config(
        tmp_path, {"manifest": {"path": "manifest.csv", "id": "id", "split": "split", "folds": "fold"}}, "folds.yaml"
    )
    return fixed, folds


def test_a_fixed_test_split_beside_folds_is_fingerprinted_and_ledgered_as_without_folds(tmp_path: Path) -> None:
    fixed, folds = _fold_configs(tmp_path)
    ledger = tmp_path / "ledger.sqlite"
    for config in (fixed, folds):
        with_ledger(config, ledger)
    before = exp(audit(folds), "test")
    assert before.code == "EXP000" and before.evidence == exp(audit(fixed), "test").evidence
    exposure.record(fixed, "test", ledger=ledger)  # recorded by the fixed split's config ...
    exposure.record(folds, "test", ledger=ledger)  # ... and by the config with folds: one set, two evaluations
    seen = {c.name: exp(audit(c), "test") for c in (fixed, folds)}
    assert seen["fixed.yaml"].evidence == seen["folds.yaml"].evidence
    assert seen["folds.yaml"].evidence["evaluations"] == 2 and len(seen["folds.yaml"].evidence["sets"]) == 1
    assert seen["fixed.yaml"].fingerprint == seen["folds.yaml"].fingerprint


def test_the_fold_holdouts_are_not_ledgered_and_an_info_says_so(tmp_path: Path) -> None:
    _, folds = _fold_configs(tmp_path)
    report = audit(with_ledger(folds, tmp_path / "ledger.sqlite"))
    assert report.stages[0].status == "passed"
    fingerprinted = [f.evidence["split"] for f in report.findings if f.code in EXPOSURE_CODES]
    assert fingerprinted == ["test"]  # no fold's holdout
    (note,) = [f for f in report.findings if f.code == "EXP002"]
    assert note.severity == "info" and note.evidence == {
        "folds": ["fold 0", "fold 1", "fold 2", "fold 3"],
        "holdout_splits": ["test"],
    }
    assert "validation fold" in note.message and "'test'" in note.message
    refused = r"split 'fold 1' .* validation fold .*record the fixed test split \('test'\)"
    with pytest.raises(ConfigError, match=refused):
        exposure.record(folds, "fold 1", ledger=tmp_path / "ledger.sqlite")
    assert not (tmp_path / "ledger.sqlite").exists()  # nothing was recorded


def test_folds_without_a_fixed_test_split_skip_the_stage_with_why(tmp_path: Path) -> None:
    write_table(tmp_path / "manifest.csv", {"id": [f"r{i}" for i in range(40)], "fold": [i % 4 for i in range(40)]})
    config = write_config(tmp_path, {"manifest": {"path": "manifest.csv", "id": "id", "folds": "fold"}})
    (result,) = audit(config).stages
    assert result.status == "skipped" and result.skip_reason is not None
    assert "validation fold" in result.skip_reason and "nor counted in the ledger" in result.skip_reason
    assert "no fixed test split" in result.skip_reason


def _ids_and_content(directory: Path, ledger: Path, ids: list[str], digests: list[str], content: bool) -> Path:
    """A manifest of 200 training rows and the given test rows; the config names content only if asked."""
    directory.mkdir()
    train = [f"train-{i}" for i in range(200)]
    rows = {
        "id": [*train, *ids],
        "split": ["train"] * 200 + ["test"] * len(ids),
        "digest": [f"{i:064x}" for i in range(200)] + digests,
    }
    write_table(directory / "manifest.csv", rows)
    config: dict[str, Any] = {"version": 1, "manifest": {"path": "manifest.csv", "split": "split", "id": "id"}}
    if content:
        config["keys"] = {"content_hash": "digest"}
    return with_ledger(write_config(directory, config), ledger)


TEST_IDS = [f"img-{i}" for i in range(100)]
TEST_DIGESTS = [hashlib.sha256(i.encode()).hexdigest() for i in TEST_IDS]


def test_a_set_recorded_by_its_ids_is_not_fresh_once_the_config_names_its_content(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.sqlite"
    by_ids = _ids_and_content(tmp_path / "ids", ledger, TEST_IDS, TEST_DIGESTS, content=False)
    exposure.record(by_ids, "test", metrics={"acc": 0.9}, ledger=ledger)
    # The same rows, the config now naming their content digests: the evaluation by ids still counts.
    by_content = _ids_and_content(tmp_path / "content", ledger, TEST_IDS, TEST_DIGESTS, content=True)
    seen = exp(audit(by_content), "test")
    assert (seen.code, seen.evidence["evaluations"], seen.evidence["basis"]) == ("EXP001", 1, "content")
    assert [(s["basis"], s["relation"]) for s in seen.evidence["sets"]] == [("ids", "this set")]
    # One more evaluation, recorded by content: two in all, each counted once.
    exposure.record(by_content, "test", ledger=ledger)
    again = exp(audit(by_content), "test")
    assert again.evidence["evaluations"] == 2
    assert sorted(s["basis"] for s in again.evidence["sets"]) == ["content", "ids"]


def test_ids_matched_across_bases_still_need_the_share_of_rows_and_content_sets_match_only_by_content(
    tmp_path: Path,
) -> None:
    ledger = tmp_path / "ledger.sqlite"
    exposure.record(_ids_and_content(tmp_path / "ids", ledger, TEST_IDS, TEST_DIGESTS, content=False), "test")
    # A new test set sharing 5 of the 100 recorded ids: fresh, as it is when compared on one basis.
    new_ids = TEST_IDS[:5] + [f"new-{i}" for i in range(95)]
    new_digests = [hashlib.sha256(i.encode()).hexdigest() for i in new_ids]
    new = _ids_and_content(tmp_path / "new", ledger, new_ids, new_digests, content=True)
    assert exp(audit(new), "test").code == "EXP000"
    # A set recorded by content is compared by content: other rows under the same ids are a new set.
    other = tmp_path / "other.sqlite"
    exposure.record(_ids_and_content(tmp_path / "c1", other, TEST_IDS, TEST_DIGESTS, content=True), "test")
    relabelled = [hashlib.sha256(f"other-{i}".encode()).hexdigest() for i in range(100)]
    fresh = exp(audit(_ids_and_content(tmp_path / "c2", other, TEST_IDS, relabelled, content=True)), "test")
    assert (fresh.code, fresh.evidence["evaluations"]) == ("EXP000", 0)


def _ids_config(directory: Path, ledger: Path, test_ids: list[str]) -> Path:
    """A manifest by sample ids: 100 training rows and ``test_ids`` as the test split."""
    directory.mkdir()
    train = [f"train-{i}" for i in range(100)]
    rows = {"id": [*train, *test_ids], "split": ["train"] * 100 + ["test"] * len(test_ids)}
    write_table(directory / "manifest.csv", rows)
    config = {"version": 1, "manifest": {"path": "manifest.csv", "split": "split", "id": "id"}}
    return with_ledger(write_config(directory, config), ledger)


SMOKE = [f"smoke-{i}" for i in range(20)]


def test_a_new_large_test_set_holding_a_small_evaluated_set_is_fresh_and_names_it(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.sqlite"
    smoke = _ids_config(tmp_path / "smoke", ledger, SMOKE)
    for _ in range(3):
        exposure.record(smoke, "test")
    # 5000 new rows that happen to hold the 20 smoke rows (0.4%): three results on those 20 rows move its score
    # by at most 0.004 * sqrt(3/20) < 0.002, so it is not the smoke set, though the report names it.
    new = exp(audit(_ids_config(tmp_path / "new", ledger, SMOKE + [f"new-{i}" for i in range(4980)])), "test")
    assert (new.code, new.severity, new.evidence["evaluations"]) == ("EXP000", "info", 0)
    (inside,) = new.evidence["sets_not_counted"]
    assert (inside["shared_rows"], inside["evaluations"], inside["recorded_as"]) == (20, 3, ["test"])
    assert "not counted" in new.message and "20 rows shared" in new.message


def test_an_evaluated_set_that_is_a_large_part_of_a_new_one_still_counts(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.sqlite"
    old = [f"old-{i}" for i in range(100)]
    exposure.record(_ids_config(tmp_path / "old", ledger, old), "test")
    # The old 100 rows merged with 150 new ones: 40% of the split was evaluated, below `overlap` (0.5) from this
    # side, but one result on them moves its score by up to 0.4 * sqrt(1/100) = 0.04 > max_error.
    merged = exp(audit(_ids_config(tmp_path / "merged", ledger, old + [f"new-{i}" for i in range(150)])), "test")
    assert (merged.code, merged.evidence["evaluations"], merged.evidence["sets_not_counted"]) == ("EXP001", 1, [])
    # The small set again, evaluated 3 times, in a split of 300 rows: 0.067 * sqrt(3/20) = 0.026 counts.
    smoke = _ids_config(tmp_path / "smoke", ledger, SMOKE)
    for _ in range(3):
        exposure.record(smoke, "test")
    small = exp(audit(_ids_config(tmp_path / "small", ledger, SMOKE + [f"s-{i}" for i in range(280)])), "test")
    assert (small.code, small.evidence["evaluations"]) == ("EXP001", 3)


def test_a_set_recorded_by_content_is_not_fresh_once_the_config_names_only_its_ids(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.sqlite"
    by_content = _ids_and_content(tmp_path / "content", ledger, TEST_IDS, TEST_DIGESTS, content=True)
    exposure.record(by_content, "test", metrics={"acc": 0.9}, ledger=ledger)
    # The same rows, the config no longer naming their content: the ids kept beside the content sketch match.
    by_ids = _ids_and_content(tmp_path / "ids", ledger, TEST_IDS, TEST_DIGESTS, content=False)
    seen = exp(audit(by_ids), "test")
    assert (seen.code, seen.evidence["evaluations"], seen.evidence["basis"]) == ("EXP001", 1, "ids")
    assert [(s["basis"], s["compared_by"], s["relation"]) for s in seen.evidence["sets"]] == [
        ("content", "ids", "this set")
    ]
    assert seen.evidence["sets_not_compared"] == []
    # Recorded again by ids: two evaluations, each counted once, and the content config counts both too.
    exposure.record(by_ids, "test", ledger=ledger)
    assert exp(audit(by_ids), "test").evidence["evaluations"] == 2
    assert exp(audit(by_content), "test").evidence["evaluations"] == 2


def test_the_same_content_recorded_under_other_ids_keeps_both_and_is_found_by_either(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.sqlite"
    renamed = [f"renamed-{i}" for i in range(100)]
    exposure.record(_ids_and_content(tmp_path / "a", ledger, TEST_IDS, TEST_DIGESTS, content=True), "test")
    exposure.record(_ids_and_content(tmp_path / "b", ledger, renamed, TEST_DIGESTS, content=True), "test")
    for name, ids in (("c", TEST_IDS), ("d", renamed)):
        found = exp(audit(_ids_and_content(tmp_path / name, ledger, ids, TEST_DIGESTS, content=False)), "test")
        assert (found.code, found.evidence["evaluations"]) == ("EXP001", 2)


def test_ids_of_a_set_recorded_by_content_still_need_the_share_of_rows(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.sqlite"
    exposure.record(_ids_and_content(tmp_path / "c", ledger, TEST_IDS, TEST_DIGESTS, content=True), "test")
    # A new test set by ids alone, the same size and name, sharing 5 of the 100 recorded ids: fresh.
    new_ids = TEST_IDS[:5] + [f"new-{i}" for i in range(95)]
    new_digests = [hashlib.sha256(i.encode()).hexdigest() for i in new_ids]
    fresh = exp(audit(_ids_and_content(tmp_path / "new", ledger, new_ids, new_digests, content=False)), "test")
    assert (fresh.code, fresh.evidence["evaluations"], fresh.evidence["sets_not_compared"]) == ("EXP000", 0, [])
    assert "could not be compared" not in fresh.message


def _version_1_ledger(path: Path, entry: SetSketch) -> None:
    """A ledger as split-auditor wrote it before it kept ids beside content (no `version`, no set_ids)."""
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE sets (digest TEXT NOT NULL, basis TEXT NOT NULL, n_rows INTEGER NOT NULL, sketch BLOB NOT NULL,
            first_seen TEXT NOT NULL, PRIMARY KEY (digest, basis));
        CREATE TABLE evaluations (id INTEGER PRIMARY KEY, at TEXT NOT NULL, digest TEXT NOT NULL, basis TEXT NOT NULL,
            split TEXT NOT NULL, source TEXT NOT NULL, metrics TEXT NOT NULL, note TEXT NOT NULL, who TEXT NOT NULL,
            FOREIGN KEY (digest, basis) REFERENCES sets (digest, basis));
        CREATE TABLE ledger_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO ledger_meta (key, value) VALUES ('kind', 'split-auditor test-exposure ledger');
        """
    )
    conn.execute(
        "INSERT INTO sets VALUES (?, ?, ?, ?, ?)",
        (entry.digest, entry.basis, entry.n_rows, entry.to_bytes(), "2026-01-02T03:04:05+00:00"),
    )
    conn.execute(
        "INSERT INTO evaluations (at, digest, basis, split, source, metrics, note, who) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        ("2026-01-02T03:04:05+00:00", entry.digest, entry.basis, "test", "old.yaml", '{"acc": 0.9}', "", "w"),
    )
    conn.commit()
    conn.close()


def test_a_content_set_of_an_older_ledger_is_compared_by_content_and_an_ids_audit_says_it_could_not(
    tmp_path: Path,
) -> None:
    ledger = tmp_path / "ledger.sqlite"
    by_content = _ids_and_content(tmp_path / "content", ledger, TEST_IDS, TEST_DIGESTS, content=True)
    loaded = load_config(by_content)
    manifest = load_manifest(loaded)
    try:
        (entry,) = split_sketches(manifest, loaded.config, loaded.base_dir, ["test"]).values()
    finally:
        manifest.close()
    _version_1_ledger(ledger, entry)
    # Read as before: found by content.
    assert exp(audit(by_content), "test").evidence["evaluations"] == 1
    # By ids, the old entry has no ids to compare: the split reads as fresh, and the report says why it may not be.
    by_ids = _ids_and_content(tmp_path / "ids", ledger, TEST_IDS, TEST_DIGESTS, content=False)
    unread = exp(audit(by_ids), "test")
    assert (unread.code, unread.evidence["evaluations"]) == ("EXP000", 0)
    (named,) = unread.evidence["sets_not_compared"]
    assert (named["fingerprint"], named["basis"], named["evaluations"]) == (entry.digest[:16], "content", 1)
    assert "1 ledger set(s) recorded by row content without their sample ids" in unread.message
    # Not compared is not fresh: a warning that does not say so (it said "the set is fresh", an info).
    assert unread.severity == "warning" and "fresh" not in unread.message
    # Recording the set by content again with this version keeps its ids: every evaluation of it now counts.
    exposure.record(by_content, "test", ledger=ledger)
    seen = exp(audit(by_ids), "test")
    assert (seen.code, seen.evidence["evaluations"], seen.evidence["sets_not_compared"]) == ("EXP001", 2, [])


def test_budget_0_counts_a_new_large_set_holding_a_small_evaluated_set(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.sqlite"
    smoke = _ids_config(tmp_path / "smoke", ledger, SMOKE)
    for _ in range(3):
        exposure.record(smoke, "test")
    # The 20 smoke rows inside 5,000 new ones: too few to move its score by max_error, but budget 0 allows none.
    config = with_ledger(
        _ids_config(tmp_path / "new", ledger, SMOKE + [f"new-{i}" for i in range(4980)]), ledger, budget=0
    )
    found = exp(audit(config), "test")
    assert (found.code, found.severity, found.evidence["evaluations"]) == ("EXP001", "error", 3)
    assert found.evidence["sets_not_counted"] == [] and "exceed the budget of 0" in found.message
    assert "(all 20 of its rows in this one)" in found.message  # it said "(0% the same set)"
    # So do a few evaluated rows that are neither set's `overlap`: 5 of the 20 smoke rows in 100 new ones.
    few = with_ledger(
        _ids_config(tmp_path / "few", ledger, SMOKE[:5] + [f"few-{i}" for i in range(95)]), ledger, budget=0
    )
    assert exp(audit(few), "test").evidence["evaluations"] == 3


def test_a_small_evaluated_set_whose_rows_the_splits_sketch_misses_is_found_exactly(tmp_path: Path) -> None:
    """A large split's sketch keeps the K smallest of its row hashes: 20 evaluated rows whose hashes all lie above
    them were estimated to share nothing, so under budget 0 the set was fresh. Its rows are now looked for in
    every row of the split as it is read."""
    import numpy as np

    from auditor.exposure.fingerprint import K, row_hashes

    new = [f"new-{i}" for i in range(4980)]
    candidates = [f"late-{i}" for i in range(400)]
    cut = np.sort(row_hashes(pd.Series(new + candidates), "ids"))[K]
    late = [c for c, h in zip(candidates, row_hashes(pd.Series(candidates), "ids"), strict=True) if h > cut][:20]
    assert len(late) == 20
    ledger = tmp_path / "ledger.sqlite"
    smoke = _ids_config(tmp_path / "smoke", ledger, late)
    for _ in range(3):
        exposure.record(smoke, "test")
    config = with_ledger(_ids_config(tmp_path / "new", ledger, late + new), ledger, budget=0)
    found = exp(audit(config), "test")
    assert (found.code, found.severity, found.evidence["evaluations"]) == ("EXP001", "error", 3)
    # The exact count, not an estimate: all 20 rows of the evaluated set are in the split.
    loaded = load_config(config)
    sketches = split_sketches(load_manifest(loaded), loaded.config, loaded.base_dir, ["test"])
    assert not set(sketches["test"].hashes.tolist()) & set(row_hashes(pd.Series(late), "ids").tolist())
    # Without budget 0, the 20 rows in 5,000 still cannot move the score by max_error: named, not counted.
    default = with_ledger(_ids_config(tmp_path / "default", ledger, late + new), ledger)
    named = exp(audit(default), "test")
    assert (named.code, named.evidence["evaluations"]) == ("EXP000", 0)
    assert len(named.evidence["sets_not_counted"]) == 1


def test_budget_0_leaves_a_set_sharing_no_row_fresh(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.sqlite"
    smoke = _ids_config(tmp_path / "smoke", ledger, SMOKE)
    exposure.record(smoke, "test")
    # The same split name, ids that differ from the smoke ids only by an inner character: no row is shared.
    lookalike = [f"smoke_{i}" for i in range(20)] + [f"new-{i}" for i in range(4980)]
    config = with_ledger(_ids_config(tmp_path / "new", ledger, lookalike), ledger, budget=0)
    fresh = exp(audit(config), "test")
    assert (fresh.code, fresh.severity, fresh.evidence["evaluations"], fresh.evidence["sets_not_counted"]) == (
        "EXP000",
        "info",
        0,
        [],
    )


def _files_config(tmp_path: Path, test_written: list[bool]) -> Path:
    """Two training files and one test file per entry of ``test_written`` (written or missing), by content."""
    (tmp_path / "img").mkdir()
    for name in ("tr0", "tr1"):
        (tmp_path / "img" / f"{name}.bin").write_bytes(name.encode())
    for i, written in enumerate(test_written):
        if written:
            (tmp_path / "img" / f"te{i}.bin").write_bytes(f"te{i}".encode())
    files = ["img/tr0.bin", "img/tr1.bin", *(f"img/te{i}.bin" for i in range(len(test_written)))]
    split = ["train", "train", *(["test"] * len(test_written))]
    write_table(tmp_path / "m.csv", {"file": files, "split": split})
    return write_config(
        tmp_path,
        {
            "manifest": {"path": "m.csv", "split": "split"},
            "keys": {"content_path": "file"},
            "stages": {"test_exposure": {"ledger": str(tmp_path / "ledger.sqlite")}},
        },
    )


def test_a_holdout_none_of_whose_files_can_be_read_is_not_called_fresh(tmp_path: Path) -> None:
    """Every test file moved away: the holdout's fingerprint would be of no row (the sha256 of nothing), a set
    fresh by construction; the stage is an error naming the split, where it said the set was fresh."""
    report = run_audit(_files_config(tmp_path, [False, False, False]), only=["test_exposure"])
    [result] = report.stages
    assert result.status == "error" and report.exit_code == 2 and result.error is not None
    assert "holdout split(s) 'test' (3 row(s)): no row has an identity to fingerprint" in result.error.message


def test_a_holdout_with_some_files_read_is_fingerprinted_by_those(tmp_path: Path) -> None:
    """One of three test files missing: the split is fingerprinted by the rows read, as before (the content
    stages list the missing file), and called fresh against an empty ledger."""
    report = run_audit(_files_config(tmp_path, [True, False, True]), only=["test_exposure"])
    [result] = report.stages
    assert result.status == "passed" and report.exit_code == 0
    [found] = result.findings
    assert found.code == "EXP000" and "n = 2 rows" in found.message


PREFIXED = [f"sha256:{d}" for d in TEST_DIGESTS]


@pytest.mark.parametrize(
    ("recorded", "audited"),
    [
        (TEST_DIGESTS, PREFIXED),
        (PREFIXED, TEST_DIGESTS),
        (TEST_DIGESTS, [f"SHA256: {d.upper()}" for d in TEST_DIGESTS]),
    ],
    ids=["prefix-added", "prefix-dropped", "prefix-upper-spaced"],
)
def test_a_set_recorded_by_digests_is_the_same_set_with_or_without_the_algorithm_prefix(
    tmp_path: Path, recorded: list[str], audited: list[str]
) -> None:
    ledger = tmp_path / "ledger.sqlite"
    exposure.record(_ids_and_content(tmp_path / "a", ledger, TEST_IDS, recorded, content=True), "test", ledger=ledger)
    # The same files under other ids, their digests written as OCI, Git LFS or DVC write them (or no longer so):
    # it was a fresh set, every evaluation of it lost.
    other_ids = [f"clip-{i}" for i in range(100)]
    seen = exp(audit(_ids_and_content(tmp_path / "b", ledger, other_ids, audited, content=True)), "test")
    assert (seen.code, seen.evidence["evaluations"]) == ("EXP001", 1)
    assert [s["relation"] for s in seen.evidence["sets"]] == ["this set"]


def _prefixed_set_of_ledger_version_2(ledger: Path) -> None:
    """The set of PREFIXED as a ledger before version 3 kept it: its digests hashed with their prefix."""
    hashes = fingerprint.row_hashes(pa.array(PREFIXED), "ids")  # the form content had then: the ids' spelling
    old = fingerprint.sketch(hashes, "content")
    SqliteLedger(ledger).record(old, Evaluation(dt.datetime(2026, 1, 2, tzinfo=dt.UTC), "test", "old.yaml"))
    with sqlite3.connect(ledger) as conn:
        conn.execute("UPDATE ledger_meta SET value = '2' WHERE key = 'version'")


@pytest.mark.parametrize("audited", [TEST_DIGESTS, PREFIXED], ids=["bare", "prefixed"])
def test_a_set_an_older_ledger_hashed_with_its_prefix_is_still_found(tmp_path: Path, audited: list[str]) -> None:
    ledger = tmp_path / "ledger.sqlite"
    _prefixed_set_of_ledger_version_2(ledger)
    seen = exp(audit(_ids_and_content(tmp_path / "b", ledger, TEST_IDS, audited, content=True)), "test")
    assert (seen.code, seen.evidence["evaluations"]) == ("EXP001", 1)
    assert [s["relation"] for s in seen.evidence["sets"]] == ["this set"]


def test_digests_of_another_algorithm_or_other_files_stay_a_fresh_set(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.sqlite"
    _prefixed_set_of_ledger_version_2(ledger)
    exposure.record(
        _ids_and_content(tmp_path / "a", ledger, TEST_IDS, TEST_DIGESTS, content=True), "test", ledger=ledger
    )
    # The same hex digits under an algorithm that is not sha256 name other bytes: not this set.
    sha3 = [f"sha3-256:{d}" for d in TEST_DIGESTS]
    fresh = exp(audit(_ids_and_content(tmp_path / "b", ledger, TEST_IDS, sha3, content=True)), "test")
    assert (fresh.code, fresh.evidence["evaluations"]) == ("EXP000", 0)
    other = [f"sha256:{hashlib.sha256(f'x{i}'.encode()).hexdigest()}" for i in range(100)]
    fresh = exp(audit(_ids_and_content(tmp_path / "c", ledger, TEST_IDS, other, content=True)), "test")
    assert (fresh.code, fresh.evidence["evaluations"]) == ("EXP000", 0)
