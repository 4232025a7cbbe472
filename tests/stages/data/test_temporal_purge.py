"""Purge, gap and embargo (temporal_order with `keys.time_end` and `splits.gap`) on fixed splits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.model_selection import TimeSeriesSplit
from typer.testing import CliRunner

from auditor import run_audit
from auditor.cli import app
from auditor.core.config import load_config
from auditor.core.errors import ConfigError
from auditor.core.findings import Report, Severity
from tests.conftest import codes, finding, write_config, write_table

ONLY = ["temporal_order"]
PAIR_CODES = {"TMP005", "TMP006", "TMP007"}
WINDOW_CODES = {*PAIR_CODES, "TMP008"}
DAY = pd.Timedelta(days=1)


def steps_table(n: int, train: np.ndarray, test: np.ndarray, horizon: int) -> pd.DataFrame:
    """A series of ``n`` steps whose label at step t looks at steps t+1 .. t+horizon; rows in neither index unused."""
    split = np.full(n, "unused", dtype=object)
    split[train], split[test] = "train", "test"
    step = np.arange(n)
    return pd.DataFrame({"id": [f"s{i}" for i in step], "step": step, "step_end": step + horizon, "split": split})


def run(tmp_path: Path, table: pd.DataFrame, fmt: str = "csv", **sections: Any) -> Report:
    write_table(tmp_path / f"m.{fmt}", table)
    config: dict[str, Any] = {"manifest": {"path": f"m.{fmt}", "split": "split", "id": "id"}, **sections}
    return run_audit(load_config(write_config(tmp_path, config)), only=ONLY)


STEP_KEYS = {"time": "step", "time_end": "step_end"}
TRAIN_TEST = {"train": ["train"], "holdout": ["test"]}


@pytest.mark.parametrize("fold", [0, 1, 2])
def test_time_series_split_without_a_gap_leaks_through_a_3_step_horizon(tmp_path: Path, fold: int) -> None:
    n = 40
    train, test = list(TimeSeriesSplit(n_splits=3, gap=0).split(np.arange(n)))[fold]
    report = run(tmp_path, steps_table(n, train, test, 3), keys=STEP_KEYS, splits=TRAIN_TEST)
    f = finding(report, "TMP005")
    assert f.severity == Severity.ERROR and report.exit_code == 1
    # The last three training steps' labels look at the first test steps.
    assert f.evidence["rows"] == 3
    start = int(test[0])
    assert [e["id"] for e in f.examples] == [f"s{start - 3}", f"s{start - 2}", f"s{start - 1}"]
    assert f.evidence["splits"]["test"]["train_windows"] == f"{start - 3} .. {start + 2}"
    assert f.evidence["splits"]["test"]["holdout_period"] == f"{start} .. {int(test[-1]) + 3}"
    assert not {"TMP006", "TMP007", "TMP008"} & set(codes(report))


@pytest.mark.parametrize("fold", [0, 1, 2])
def test_time_series_split_with_gap_3_and_a_3_step_horizon_is_clean(tmp_path: Path, fold: int) -> None:
    """Unused rows after the test fold (and the gap's own rows) have no role: nothing is compared with them."""
    n = 40
    train, test = list(TimeSeriesSplit(n_splits=3, gap=3).split(np.arange(n)))[fold]
    table = steps_table(n, train, test, 3)
    for gap in (None, 3):  # splits.gap as scikit-learn's: counted between the steps
        splits = {**TRAIN_TEST, **({"gap": gap} if gap is not None else {})}
        report = run(tmp_path, table, keys=STEP_KEYS, splits=splits)
        assert report.stages[0].status == "passed", codes(report)
        assert not WINDOW_CODES & set(codes(report))


def test_a_gap_longer_than_the_split_left_is_a_gap_finding_in_steps(tmp_path: Path) -> None:
    n = 40
    train, test = list(TimeSeriesSplit(n_splits=3, gap=3).split(np.arange(n)))[-1]
    report = run(tmp_path, steps_table(n, train, test, 3), keys=STEP_KEYS, splits={**TRAIN_TEST, "gap": 5})
    f = finding(report, "TMP006")
    # Of the 5 steps before the test, the split's own gap left 3 unused: one training row is too close.
    assert f.evidence["rows"] == 1 and f.evidence["splits"]["test"]["closest"] == "4"
    assert f.severity == Severity.ERROR and "gap of 5" in f.message
    assert "TMP005" not in codes(report)


def daily(days: range, horizon_days: int | None, split_of: dict[int, str]) -> pd.DataFrame:
    dates = pd.Timestamp("2024-03-01") + pd.to_timedelta(list(days), unit="D")
    frame = pd.DataFrame({"id": [f"d{d}" for d in days], "day": dates.strftime("%Y-%m-%d")})
    if horizon_days is not None:
        frame["label_end"] = (dates + horizon_days * DAY).strftime("%Y-%m-%d")
    frame["split"] = [split_of.get(d, "unused") for d in days]
    return frame


DAY_KEYS = {"time": "day", "time_end": "label_end"}


@pytest.mark.parametrize("left_out", [7, 10, 15])
def test_a_7_day_gap_before_the_test_with_a_7_day_horizon_is_clean(tmp_path: Path, left_out: int) -> None:
    """Days 0..39 train, the next ``left_out`` days unused (as TimeSeriesSplit(gap=7) would leave 7), then test."""
    split_of = {d: "train" for d in range(40)} | {d: "test" for d in range(40 + left_out, 60)}
    report = run(tmp_path, daily(range(60), 7, split_of), keys=DAY_KEYS, splits={**TRAIN_TEST, "gap": "7d"})
    assert report.stages[0].status == "passed" and not WINDOW_CODES & set(codes(report))


def test_a_split_without_a_gap_leaks_through_a_7_day_horizon(tmp_path: Path) -> None:
    split_of = {d: "train" for d in range(40)} | {d: "test" for d in range(40, 60)}
    report = run(tmp_path, daily(range(60), 7, split_of), keys=DAY_KEYS, splits={**TRAIN_TEST, "gap": "7d"})
    f = finding(report, "TMP005")
    assert f.evidence["rows"] == 7  # days 33..39 label days up to 40..46
    assert f.examples[0] == {
        "id": "d33",
        "split": "train",
        "day": "2024-04-03T00:00:00+00:00",
        "label_end": "2024-04-10T00:00:00+00:00",
    }
    # Each purged row is also within the gap: counted once, as the purge.
    assert "TMP006" not in codes(report)


def test_without_a_horizon_the_gap_alone_finds_the_rows_too_close(tmp_path: Path) -> None:
    split_of = {d: "train" for d in range(40)} | {d: "test" for d in range(40, 60)}
    report = run(tmp_path, daily(range(60), None, split_of), keys={"time": "day"}, splits={**TRAIN_TEST, "gap": "1w"})
    f = finding(report, "TMP006")
    assert f.evidence["rows"] == 6 and f.evidence["gap"] == "7d"  # days 34..39: fewer than 7 days before day 40
    assert f.evidence["splits"]["test"]["closest"] == "1d"
    assert "TMP005" not in codes(report)


def test_training_after_the_holdout_is_purged_then_embargoed(tmp_path: Path) -> None:
    """Test days 0..19 label up to day 26: training days 20..26 are inside its windows, 27..32 within the embargo."""
    split_of = {d: "test" for d in range(20)} | {d: "train" for d in range(20, 60)}
    report = run(tmp_path, daily(range(60), 7, split_of), keys=DAY_KEYS, splits={**TRAIN_TEST, "gap": "7d"})
    assert finding(report, "TMP005").evidence["rows"] == 7
    f = finding(report, "TMP007")
    assert f.severity == Severity.WARNING and f.evidence["rows"] == 6
    assert f.evidence["splits"]["test"]["closest"] == "1d" and f.examples[0]["id"] == "d27"


def test_holdout_periods_that_interleave_legitimately_are_clean(tmp_path: Path) -> None:
    """Two holdout splits on alternate days, and a test split in two blocks with training between them, each
    at least the gap and the horizon away: a check on each split's whole span would call every row a leak."""
    split_of = {d: "train" for d in range(43)} | {d: ("val" if d % 2 else "test") for d in range(50, 60)}
    report = run(
        tmp_path,
        daily(range(60), 7, split_of),
        keys=DAY_KEYS,
        splits={"train": ["train"], "holdout": ["val", "test"], "gap": "7d"},
    )
    assert report.stages[0].status == "passed" and not WINDOW_CODES & set(codes(report))
    blocks = {d: "test" for d in [*range(10), *range(40, 50)]} | {d: "train" for d in range(24, 33)}
    report = run(tmp_path, daily(range(60), 7, blocks), keys=DAY_KEYS, splits={**TRAIN_TEST, "gap": "7d"})
    assert not WINDOW_CODES & set(codes(report)), [f.message for f in report.findings]
    assert "TMP001" in codes(report)  # test rows older than training ones: said, as before, as a warning only


def per_patient(leak_b: bool, cross: bool = False) -> pd.DataFrame:
    frames = []
    for patient, first in (("a", 0), ("b", 100)):
        split_of = {first + d: "train" for d in range(20)}
        test_from = first + (20 if patient == "b" and leak_b else 27)
        split_of |= {d: "test" for d in range(test_from, first + 30)}
        frames.append(daily(range(first, first + 30), 7, split_of).assign(patient=patient))
    table = pd.concat(frames, ignore_index=True)
    if cross:  # patient c: test days inside patient a's training windows, no training of its own
        table = pd.concat([table, daily(range(5, 10), 7, {d: "test" for d in range(5, 10)}).assign(patient="c")])
        table["id"] = [f"r{i}" for i in range(len(table))]
    return table


PATIENT_KEYS = {**DAY_KEYS, "entity": "patient"}


def test_a_split_per_patient_by_time_is_clean(tmp_path: Path) -> None:
    report = run(tmp_path, per_patient(leak_b=False), keys=PATIENT_KEYS, splits={**TRAIN_TEST, "gap": "7d"})
    assert not WINDOW_CODES & set(codes(report)), [f.message for f in report.findings]


def test_one_patient_without_a_gap_is_purged_within_that_patient(tmp_path: Path) -> None:
    report = run(tmp_path, per_patient(leak_b=True), keys=PATIENT_KEYS, splits={**TRAIN_TEST, "gap": "7d"})
    found = [f for f in report.findings if f.code == "TMP005"]
    by_scope = {f.evidence["scope"]: f for f in found}
    mine = by_scope["per entity"]
    assert mine.key == "patient" and mine.severity == Severity.ERROR and mine.evidence["rows"] == 7
    assert {e["patient"] for e in mine.examples} == {"b"}
    # The same 7 rows overlap the holdout across patients too: they are reported once, per patient.
    assert len(found) == 1 and report.exit_code == 1


def test_a_patient_spelled_two_ways_is_purged_within_that_patient(tmp_path: Path) -> None:
    # Patient b's test rows are written 'B ': the same patient, so its training windows reaching them are an error.
    table = per_patient(leak_b=True)
    table.loc[(table.patient == "b") & (table.split == "test"), "patient"] = "B "
    report = run(tmp_path, table, keys=PATIENT_KEYS, splits={**TRAIN_TEST, "gap": "7d"})
    found = [f for f in report.findings if f.code == "TMP005"]
    assert [f.evidence["scope"] for f in found] == ["per entity"] and found[0].severity == Severity.ERROR
    assert found[0].evidence["rows"] == 7 and report.exit_code == 1
    # Patients that only look alike ('b' and 'b2') are two: the overlap is across patients, a warning.
    table.loc[table.patient == "B ", "patient"] = "b2"
    report = run(tmp_path, table, keys=PATIENT_KEYS, splits={**TRAIN_TEST, "gap": "7d"})
    assert [f.evidence["scope"] for f in report.findings if f.code == "TMP005"] == ["global"]
    assert report.exit_code == 0


def test_an_overlap_with_another_patients_holdout_only_is_a_warning(tmp_path: Path) -> None:
    report = run(tmp_path, per_patient(leak_b=False, cross=True), keys=PATIENT_KEYS, splits=TRAIN_TEST)
    f = finding(report, "TMP005")
    assert f.evidence["scope"] == "global" and f.severity == Severity.WARNING and f.key is None
    # Patient a's training days 0..16 label up to days 7..23; patient c's test windows cover days 5..16.
    assert f.evidence["rows"] == 17
    assert report.exit_code == 0


def test_rows_reported_per_patient_are_not_reported_again_across_patients(tmp_path: Path) -> None:
    report = run(tmp_path, per_patient(leak_b=True, cross=True), keys=PATIENT_KEYS, splits=TRAIN_TEST)
    by_scope = {f.evidence["scope"]: f for f in report.findings if f.code == "TMP005"}
    assert by_scope["per entity"].evidence["rows"] == 7  # patient b's last week against b's own test days
    across = by_scope["global"]  # only patient a's rows against patient c's test days
    assert across.evidence["rows"] == 17 and {e["id"] for e in across.examples}.isdisjoint(
        {e["id"] for e in by_scope["per entity"].examples}
    )
    assert "of another 'patient'" in across.message and across.severity == Severity.WARNING


def test_windows_that_end_before_they_start_are_counted_and_checked_as_points(tmp_path: Path) -> None:
    split_of = {d: "train" for d in range(40)} | {d: "test" for d in range(47, 60)}
    table = daily(range(60), 7, split_of)
    table.loc[[3, 50], "label_end"] = "2024-01-01"
    table.loc[5, "label_end"] = None
    report = run(tmp_path, table, keys=DAY_KEYS, splits=TRAIN_TEST)
    f = finding(report, "TMP008")
    assert f.evidence["ends_before_start"] == 2 and f.evidence["without_end"] == 1
    assert f.evidence["rows_per_split"] == {"train": 2, "test": 1}
    assert [e["id"] for e in f.examples] == ["d3", "d5", "d50"]
    assert not {"TMP005", "TMP006", "TMP007"} & set(codes(report))


def test_a_bare_number_gap_on_dates_is_an_error_naming_the_line(tmp_path: Path) -> None:
    split_of = {d: "train" for d in range(40)} | {d: "test" for d in range(47, 60)}
    report = run(tmp_path, daily(range(60), 7, split_of), keys=DAY_KEYS, splits={**TRAIN_TEST, "gap": 7})
    (result,) = report.stages
    assert result.status == "error" and result.error is not None and report.exit_code == 2
    assert "audit.yaml:" in result.error.message and "splits.gap 7 is a bare number" in result.error.message
    assert "(e.g. 7d)" in result.error.message and result.error.traceback == ""


@pytest.mark.parametrize(
    ("config_text", "expected"),
    [
        ("splits: {gap: 7 days}\nkeys: {time: day}\n", "audit.yaml:2:10: splits.gap: expected a duration"),
        ("splits: {gap: -3d}\nkeys: {time: day}\n", "splits.gap: expected a duration"),
        ("keys: {time_end: label_end}\n", "keys.time_end: `time_end` (the end of each label's window) needs `time`"),
        ("splits: {gap: 7d}\n", "splits.gap needs keys.time"),
    ],
)
def test_bad_window_config_exits_2_naming_the_line(tmp_path: Path, config_text: str, expected: str) -> None:
    write_table(tmp_path / "m.csv", daily(range(3), 7, {0: "train", 2: "test"}))
    path = tmp_path / "audit.yaml"
    path.write_text("manifest: {path: m.csv, split: split}\n" + config_text)
    with pytest.raises(ConfigError, match="audit.yaml"):
        load_config(path)
    result = CliRunner().invoke(app, ["run", str(path)])
    assert result.exit_code == 2 and expected in result.output, result.output
    assert "Traceback" not in result.output and not (tmp_path / "audit-report").exists()


def test_a_time_end_column_that_is_not_there_is_named(tmp_path: Path) -> None:
    write_table(tmp_path / "m.csv", daily(range(3), None, {0: "train", 2: "test"}))
    path = write_config(
        tmp_path, {"manifest": {"path": "m.csv", "split": "split"}, "keys": {"time": "day", "time_end": "label_end"}}
    )
    result = CliRunner().invoke(app, ["run", str(path)])
    assert result.exit_code == 2 and "no column 'label_end'" in result.output, result.output
    assert "'label_end' is named at" in result.output and "audit.yaml:" in result.output


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["e0", "e1", None]),
            st.integers(0, 40),
            st.one_of(st.integers(-2, 6), st.none()),  # horizon in days; negative: a window ending before it starts
            st.sampled_from(["train", "val", "test", "unused"]),
        ),
        min_size=1,
        max_size=30,
    ),
    st.sampled_from([None, "0d", "3d"]),
)
def test_matches_brute_force(
    tmp_path: Path, rows: list[tuple[str | None, int, int | None, str]], gap: str | None
) -> None:
    """Every pair of a training row and a holdout row of one split, compared one by one."""
    table = pd.DataFrame(rows, columns=["patient", "day", "horizon", "split"])
    start = pd.Timestamp("2024-01-01") + pd.to_timedelta(table["day"], unit="D")
    table["day"] = start.dt.strftime("%Y-%m-%d")
    table["label_end"] = (start + pd.to_timedelta(table["horizon"], unit="D")).dt.strftime("%Y-%m-%d")
    table["id"] = [f"r{i}" for i in range(len(table))]
    splits = {"train": ["train"], "holdout": ["val", "test"], **({"gap": gap} if gap else {})}
    report = run(tmp_path, table.drop(columns="horizon"), fmt="parquet", keys=PATIENT_KEYS, splits=splits)
    gap_days = int(gap[:-1]) if gap else 0

    def window(d: int, h: int | None) -> tuple[int, int]:  # a window that ends before it starts: its day
        return (d, d + h) if h is not None and h >= 0 else (d, d)

    expected: dict[tuple[str, str], set[int]] = {}
    for scope in ("global", "per entity"):
        purged, early, late = set(), set(), set()
        for i, (e, d, h, s) in enumerate(rows):
            if s != "train" or (scope == "per entity" and e is None):
                continue
            a, b = window(d, h)
            for split in ("val", "test"):
                mine = [window(d2, h2) for e2, d2, h2, s2 in rows if s2 == split and (scope == "global" or e2 == e)]
                if any(c <= b and dd >= a for c, dd in mine):
                    purged.add(i)
                    continue
                if gap_days and any(0 <= c - a < gap_days for c, _ in mine):
                    early.add(i)
                if gap_days and any(0 < a - dd < gap_days for _, dd in mine):
                    late.add(i)
        expected |= {(scope, "TMP005"): purged, (scope, "TMP006"): early, (scope, "TMP007"): late}
    for code in PAIR_CODES:  # globally, only the rows no per-entity finding of the code reports
        expected[("global", code)] -= expected[("per entity", code)]
    got = {(f.evidence["scope"], f.code): f.evidence["rows"] for f in report.findings if f.code in PAIR_CODES}
    assert got == {k: len(v) for k, v in expected.items() if v}


def test_one_evaluation_is_checked_from_its_masks_whatever_names_its_holdout(tmp_path: Path) -> None:
    """The check takes one evaluation's training rows and holdout codes (e.g. of a fold), not the split column."""
    from auditor.manifest.table import load_manifest
    from auditor.manifest.timeparse import parse_times
    from auditor.pipeline.stage import Acceptances, AuditContext
    from auditor.stages.data.temporal_order import TemporalOrder

    write_table(tmp_path / "m.csv", steps_table(30, np.arange(30), np.array([], dtype=int), 3))
    path = write_config(
        tmp_path, {"manifest": {"path": "m.csv", "split": "split", "id": "id"}, "keys": STEP_KEYS, "splits": {"gap": 2}}
    )
    loaded = load_config(path)
    context = AuditContext(loaded, load_manifest(loaded), Acceptances([]))
    stage = TemporalOrder()
    windows = stage.label_windows(context, parse_times(context.require_manifest().column("step"), "step"))
    step = np.arange(30)
    train = (step < 10) | (step >= 20)  # a middle block held out, training on both sides of it
    holdout = np.where((step >= 10) & (step < 20), 0, -1)
    found = {f.code: f for f in stage.check_windows(context, windows, train, holdout, ["fold 1"])}
    # Steps 7..9 reach step 10, steps 20..22 lie inside the held-out labels (to 22), step 23 is 1 step after them.
    assert set(found) == {"TMP005", "TMP007"} and [e["id"] for e in found["TMP007"].examples] == ["s23"]
    assert found["TMP005"].evidence["rows"] == 6 and set(found["TMP005"].evidence["splits"]) == {"fold 1"}
    assert [e["id"] for e in found["TMP005"].examples] == ["s7", "s8", "s9", "s20", "s21"]
    train &= (step < 7) | (step > 23)  # purged, and embargoed for 2 steps after the held-out labels end
    assert not list(stage.check_windows(context, windows, train, holdout, ["fold 1"]))
