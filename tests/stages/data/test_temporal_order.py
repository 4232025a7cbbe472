from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor import config_from_mapping, run_audit
from tests.conftest import codes, finding, write_table

ONLY = ["temporal_order"]


def test_holdout_older_than_newest_train(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"t": ["2024-01-01", "2024-03-01", "2024-02-01", "2024-04-01"], "split": ["train", "train", "test", "test"]}
    r = audit(data, keys={"time": "t"}, only=ONLY)
    f = finding(r, "TMP001")
    assert f.evidence["splits"]["test"]["rows"] == 1 and f.evidence["newest_train"].startswith("2024-03-01")


def test_per_entity_future_leak(audit) -> None:  # type: ignore[no-untyped-def]
    data = {
        "sid": ["a", "b", "c", "d"],
        "patient": ["p1", "p1", "p2", "p2"],
        "t": ["2024-05-01", "2024-01-01", "2024-01-01", "2024-06-01"],
        "split": ["train", "test", "train", "test"],
    }
    r = audit(data, manifest={"id": "sid"}, keys={"time": "t", "entity": "patient"}, only=ONLY)
    f = finding(r, "TMP002")
    assert f.evidence == {"entities": 1, "rows": 1}
    assert f.examples[0]["entity"] == "p1" and f.examples[0]["holdout_id"] == "b"


def test_epoch_seconds_and_timestamps(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit(
        {"t": [1_700_000_000, 1_600_000_000], "split": ["train", "test"]}, fmt="parquet", keys={"time": "t"}, only=ONLY
    )
    assert "TMP001" in codes(r)
    ts = pd.to_datetime(["2024-01-02", "2024-01-01"])
    r2 = audit({"t": ts, "split": ["train", "test"]}, fmt="parquet", keys={"time": "t"}, only=ONLY)
    assert "TMP001" in codes(r2)


def test_mixed_formats_are_a_clear_stage_error(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"t": ["2024-01-01", "01/02/2024"], "split": ["train", "test"]}, keys={"time": "t"}, only=ONLY)
    (result,) = r.stages
    assert result.status == "error" and result.error is not None
    assert "column 't'" in result.error.message and "'01/02/2024'" in result.error.message
    assert result.error.traceback == "" and r.exit_code == 2
    assert "(row 2, 1 such row(s))" in result.error.message


def test_a_time_it_cannot_read_is_named_by_its_sample_id(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"sid": ["a", "b", "c"], "t": ["2024-01-01", "2024-01-02", "01/02/2024"], "split": ["train"] * 2 + ["test"]}
    r = audit(data, manifest={"id": "sid"}, keys={"time": "t"}, only=ONLY)
    (result,) = r.stages
    assert result.error is not None and "(row 3, 1 such row(s))" in result.error.message
    assert result.error.message.endswith("(that row's sample id: 'c')") and r.exit_code == 2


def test_milliseconds_given_as_seconds(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"t": [1_700_000_000_000], "split": ["train"]}, fmt="parquet", keys={"time": "t"}, only=ONLY)
    assert "epoch_unit" in (r.stages[0].error.message if r.stages[0].error else "")
    ok = audit(
        {"t": [1_700_000_000_000, 1_600_000_000_000], "split": ["train", "test"]},
        fmt="parquet",
        keys={"time": "t"},
        stages={"temporal_order": {"epoch_unit": "ms"}},
        only=ONLY,
    )
    assert "TMP001" in codes(ok)


def test_missing_times_are_info(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"t": ["2024-01-01", None], "split": ["train", "test"]}, keys={"time": "t"}, only=ONLY)
    assert finding(r, "TMP003").evidence["rows_per_split"] == {"test": 1}


@pytest.mark.parametrize("missing", ["NaT", "nan", "None", "N/A", "null", "-", "unknown"])
def test_a_stand_in_for_a_missing_time_is_a_missing_time(audit, missing: str) -> None:  # type: ignore[no-untyped-def]
    # pandas' astype(str) writes a missing time as 'NaT': a row without a time (TMP003), not an unreadable column.
    data = {"t": ["2024-03-01", missing, "2024-02-01", missing], "split": ["train", "train", "test", "test"]}
    r = audit(data, keys={"time": "t"}, only=ONLY)
    assert r.stages[0].error is None
    assert finding(r, "TMP003").evidence["rows_per_split"] == {"train": 1, "test": 1}
    assert finding(r, "TMP001").evidence["splits"]["test"]["rows"] == 1  # the leak among the other rows is found
    epochs = {"t": ["1709251200", missing, "1706745600"], "split": ["train", "train", "test"]}
    assert "TMP001" in codes(audit(epochs, keys={"time": "t"}, only=ONLY))


def test_a_word_that_is_no_time_still_stops_the_stage_naming_it(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"t": ["2024-03-01", "yesterday"], "split": ["train", "test"]}, keys={"time": "t"}, only=ONLY)
    error = r.stages[0].error
    assert r.exit_code == 2 and error is not None and "'yesterday' (row 2" in error.message


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["e0", "e1", "e2"]),
            st.one_of(st.integers(0, 20), st.none()),
            st.sampled_from(["train", "test"]),
        ),
        min_size=1,
        max_size=25,
    ),
    st.integers(min_value=1, max_value=30),
)
def test_matches_brute_force(tmp_path: Path, rows: list[tuple[str, int | None, str]], block: int) -> None:
    """Whatever the rows and however they are cut into blocks (the stage counts a block of rows at a time)."""
    from unittest import mock

    from auditor.stages.data import temporal_order

    df = pd.DataFrame(rows, columns=["e", "day", "split"])
    df["t"] = pd.Timestamp("2024-01-01") + pd.to_timedelta(df["day"], unit="D")
    write_table(tmp_path / "m.parquet", df[["e", "t", "split"]])
    loaded = config_from_mapping(
        {"manifest": {"path": "m.parquet", "split": "split"}, "keys": {"time": "t", "entity": "e"}}, tmp_path
    )
    with mock.patch.object(temporal_order, "_BLOCK_ROWS", block):
        report = run_audit(loaded, only=ONLY)
    missing = sum(1 for _, d, _ in rows if d is None)
    got3 = [f for f in report.findings if f.code == "TMP003"]
    assert (sum(got3[0].evidence["rows_per_split"].values()) if got3 else 0) == missing
    rows = [(e, d, s) for e, d, s in rows if d is not None]
    train_days = [d for _, d, s in rows if s == "train"]
    older = sum(1 for _, d, s in rows if s == "test" and train_days and d < max(train_days))
    newest = {e: max(d for e2, d, s in rows if e2 == e and s == "train") for e, _, s in rows if s == "train"}
    early = [(e, d) for e, d, s in rows if s == "test" and e in newest and d < newest[e]]
    got1 = [f for f in report.findings if f.code == "TMP001"]
    got2 = [f for f in report.findings if f.code == "TMP002"]
    assert (got1[0].evidence["splits"]["test"]["rows"] if got1 else 0) == older
    assert (got2[0].evidence["rows"] if got2 else 0) == len(early)
    assert (got2[0].evidence["entities"] if got2 else 0) == len({e for e, _ in early})


@pytest.mark.parametrize("value", ["2024-01-01T10:00:00Z", "2024-01-01 10:00:00", "2024-01-01T10:00:00+02:00"])
def test_iso_variants_parse(audit, value) -> None:  # type: ignore[no-untyped-def]
    r = audit({"t": [value, "2023-01-01"], "split": ["train", "test"]}, keys={"time": "t"}, only=ONLY)
    assert r.stages[0].status != "error"


@pytest.mark.parametrize(
    ("fmt", "values", "unit"),
    [
        ("csv", [1_704_067_200, 1_704_153_600, 1_704_110_000], "s"),
        ("csv", ["1704067200.0", "1704153600.0", "+1704110000"], "s"),
        ("csv", [1_704_067_200_000, 1_704_153_600_000, 1_704_110_000_000], "ms"),
        ("parquet", [1_704_067_200, 1_704_153_600, 1_704_110_000], "s"),
        ("parquet", [1_704_067_200.0, 1_704_153_600.0, 1_704_110_000.0], "s"),
        ("parquet", [1_704_067_200_000_000_000, 1_704_153_600_000_000_000, 1_704_110_000_000_000_000], "ns"),
    ],
)
def test_epoch_numbers_in_csv_and_parquet(audit, fmt: str, values: list[object], unit: str) -> None:  # type: ignore[no-untyped-def]
    data = {"t": values, "split": ["train", "train", "test"]}
    r = audit(data, fmt=fmt, keys={"time": "t"}, stages={"temporal_order": {"epoch_unit": unit}}, only=ONLY)
    f = finding(r, "TMP001")
    assert f.evidence["newest_train"] == "2024-01-02T00:00:00+00:00"
    assert f.evidence["splits"]["test"]["oldest"] == "2024-01-01T11:53:20+00:00"


def test_epoch_text_in_the_wrong_unit_names_the_option(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"t": [1_704_067_200_000], "split": ["train"]}, keys={"time": "t"}, only=ONLY)
    assert r.exit_code == 2 and "epoch_unit" in (r.stages[0].error.message if r.stages[0].error else "")


def test_eight_digits_are_basic_dates_not_epoch_seconds(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"t": [20240301, 20240201], "split": ["train", "test"]}, keys={"time": "t"}, only=ONLY)
    assert finding(r, "TMP001").evidence["newest_train"].startswith("2024-03-01")
    bad = audit({"t": [20240301, 20241399], "split": ["train", "test"]}, keys={"time": "t"}, only=ONLY)
    assert bad.stages[0].error is not None and "'20241399'" in bad.stages[0].error.message


def _days_around_a_gap() -> dict[str, list[object]]:
    """A day per row as YYYYMMDD integers: train to 2024-04-19, test from 2024-05-01 (11 days between)."""
    days = pd.date_range("2024-01-01", "2024-06-30", freq="D")
    days = days[(days < "2024-04-20") | (days >= "2024-05-01")]
    return {
        "day": [int(d) for d in days.strftime("%Y%m%d")],
        "split": ["train" if d < pd.Timestamp("2024-05-01") else "test" for d in days],
    }


@pytest.mark.parametrize("fmt", ["csv", "parquet", "jsonl"])
def test_eight_digit_integers_are_dates_in_every_format(audit, fmt: str) -> None:  # type: ignore[no-untyped-def]
    # An integer column (parquet, JSON lines) was read as epoch seconds of 1970: every training row was then
    # "less than 7d" (604,800 units) before the test period, an error, where the same rows in a CSV were clean.
    r = audit(_days_around_a_gap(), fmt=fmt, splits={"gap": "7d"}, keys={"time": "day"}, only=ONLY)
    assert codes(r) == [] and r.exit_code == 0
    near = audit(_days_around_a_gap(), fmt=fmt, splits={"gap": "14d"}, keys={"time": "day"}, only=ONLY)
    f = finding(near, "TMP006")
    assert f.evidence["rows"] == 2 and f.evidence["gap"] == "14d"  # 2024-04-18 and 2024-04-19
    assert f.evidence["splits"]["test"]["holdout_period"].startswith("2024-05-01")


def test_eight_digit_dates_with_a_missing_one_are_dates_as_floats_too(audit) -> None:  # type: ignore[no-untyped-def]
    # pandas keeps an integer column with a missing value as floats: 20240301.0
    data = {"t": [20240301.0, None, 20240201.0], "split": ["train", "train", "test"]}
    r = audit(data, fmt="parquet", keys={"time": "t"}, only=ONLY)
    assert finding(r, "TMP001").evidence["newest_train"].startswith("2024-03-01")
    assert finding(r, "TMP003").evidence["rows_per_split"] == {"train": 1}


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_eight_digit_counters_are_numbers_when_the_unit_is_set(audit, fmt: str) -> None:  # type: ignore[no-untyped-def]
    # Seconds since a device started, past 10 million: eight digits, not dates; epoch_unit says so.
    data = {"t": [10_000_000, 10_086_400, 10_000_100], "split": ["train", "train", "test"]}
    stages = {"temporal_order": {"epoch_unit": "s"}}
    r = audit(data, fmt=fmt, keys={"time": "t"}, stages=stages, only=ONLY)
    assert finding(r, "TMP001").evidence["splits"]["test"]["rows"] == 1
    bad = audit(data, fmt=fmt, keys={"time": "t"}, only=ONLY)
    error = bad.stages[0].error
    assert bad.exit_code == 2 and error is not None
    assert "'10000000'" in error.message and "stages.temporal_order.epoch_unit" in error.message


def test_naive_and_zoned_times_mixed_are_read_as_utc_and_said(audit) -> None:  # type: ignore[no-untyped-def]
    data = {
        "t": ["2024-01-01 10:00", "2024-01-01T10:00:00+02:00", "2024-01-01T09:00:00Z"],
        "split": ["train", "train", "test"],
    }
    r = audit(data, keys={"time": "t"}, only=ONLY)
    f = finding(r, "TMP004")
    assert f.severity == "info" and f.key == "t"
    assert f.evidence == {"column": "t", "naive_rows": 1, "zoned_rows": 2, "assumed": "UTC"}
    assert f.examples[0] == {"row": 0, "value": "2024-01-01 10:00", "read_as": "UTC"}
    # the naive 10:00 read as UTC is the newest training time; the holdout at 09:00Z is older
    assert finding(r, "TMP001").evidence["newest_train"] == "2024-01-01T10:00:00+00:00"
    for same_kind in (["2024-01-01 10:00", "2024-01-02"], ["2024-01-01T10:00Z", "2024-01-02T00:00+01:00"]):
        plain = audit({"t": same_kind, "split": ["train", "test"]}, keys={"time": "t"}, only=ONLY)
        assert "TMP004" not in codes(plain)


STORES = {
    "sample_id": ["1", "2", "3", "4"],
    "ts": ["2024-01-10", "2024-01-01", "2024-01-05", "2024-01-20"],
    "split": ["train", "train", "test", "test"],
}


@pytest.mark.parametrize("spelled", ["s1", " S1", "S1 ", "\uff33\uff11"])  # case, spaces, full-width
def test_an_entity_spelled_two_ways_is_one_entity(audit, spelled: str) -> None:  # type: ignore[no-untyped-def]
    # Store S1's test row predates its training row: the case or the spaces of its name do not make it another store.
    data = {**STORES, "store": ["S1", "S2", spelled, "S2"]}
    r = audit(data, fmt="parquet", manifest={"id": "sample_id"}, keys={"time": "ts", "entity": "store"}, only=ONLY)
    f = finding(r, "TMP002")
    assert f.severity == "error" and f.evidence == {"entities": 1, "rows": 1} and r.exit_code == 1
    assert f"'S1' / {spelled!r}" in f.message  # both spellings, so the fix (one spelling) is plain
    assert f.examples[0]["spellings"] == ["S1", spelled] and f.examples[0]["holdout_id"] == "3"
    assert f.scope.values == ("S1",)  # one store, as the stored scope has always named it


def test_an_entity_spelled_two_ways_is_accepted_by_either_spelling(audit) -> None:  # type: ignore[no-untyped-def]
    data = {**STORES, "store": ["S1", "S2", "s1", "S2"]}
    keys = {"time": "ts", "entity": "store"}
    for named in ("S1", "s1"):
        accept = [{"code": "TMP002", "key": named, "reason": "reviewed"}]
        r = audit(data, manifest={"id": "sample_id"}, keys=keys, accept=accept, only=ONLY)
        (f,) = [f for f in r.findings if f.code == "TMP002"]
        assert f.accepted and r.exit_code == 0


@pytest.mark.parametrize(("first", "second"), [("S1", "S10"), ("store-1", "store-11"), ("A+", "A-"), ("1.1", "1.10")])
def test_entities_that_only_look_alike_stay_apart(audit, first: str, second: str) -> None:  # type: ignore[no-untyped-def]
    # One store's training row is newer than the other's test row: two stores, each in order on its own.
    data = {**STORES, "store": [first, "S2", second, "S2"]}
    r = audit(data, manifest={"id": "sample_id"}, keys={"time": "ts", "entity": "store"}, only=ONLY)
    assert "TMP002" not in codes(r) and "TMP001" in codes(r) and r.exit_code == 0


def test_an_entity_spelled_two_ways_is_one_entity_in_every_fold(audit) -> None:  # type: ignore[no-untyped-def]
    # Fold 1 holds s1's row of 01-05 and trains on S1's of 01-10; fold 0 is in order (S2 is in fold 0 only).
    data = {
        "sample_id": ["1", "2", "3", "4"],
        "store": ["S1", "s1 ", "S2", "S2"],
        "ts": ["2024-01-10", "2024-01-05", "2024-01-01", "2024-01-20"],
        "fold": [0, 1, 0, 0],
    }
    manifest = {"split": None, "folds": "fold", "id": "sample_id"}
    r = audit(data, fmt="parquet", manifest=manifest, keys={"time": "ts", "entity": "store"}, only=ONLY)
    (f,) = [f for f in r.findings if f.code == "TMP002"]
    assert f.evidence == {"fold": "fold 1", "entities": 1, "rows": 1} and f.severity == "error"
    assert "'S1' / 's1 '" in f.message and f.examples[0]["spellings"] == ["S1", "s1 "]


def test_a_time_missing_on_a_whole_side_is_an_error_and_a_few_gaps_are_not(audit) -> None:  # type: ignore[no-untyped-def]
    blank = audit({"t": [None, "", None], "split": ["train", "train", "test"]}, keys={"time": "t"}, only=ONLY)
    (tmp,) = [f for f in blank.findings if f.code == "TMP003"]
    assert tmp.severity.value == "error" and "Every train and every holdout row lacks one" in tmp.message
    holdout = audit({"t": ["2024-01-01", None], "split": ["train", "test"]}, keys={"time": "t"}, only=ONLY)
    (tmp,) = [f for f in holdout.findings if f.code == "TMP003"]
    assert tmp.severity.value == "error" and "Every holdout row lacks one" in tmp.message and holdout.exit_code == 1
    gaps = audit(
        {"t": ["2024-01-01", None, "2024-02-01", "2024-03-01"], "split": ["train", "train", "test", "test"]},
        keys={"time": "t"},
        only=ONLY,
    )
    (tmp,) = [f for f in gaps.findings if f.code == "TMP003"]
    assert tmp.severity.value == "info" and gaps.exit_code == 0
