"""splits.gap: a duration with a unit, or a bare number in the time column's units."""

from __future__ import annotations

import json

import jsonschema
import pytest

from auditor.core.duration import Duration, format_span, parse_duration
from tests.conftest import REPO

DAY_NS = 86_400 * 10**9


@pytest.mark.parametrize(
    ("text", "ns"),
    [
        ("7d", 7 * DAY_NS),
        ("1w", 7 * DAY_NS),
        ("36h", 36 * 3600 * 10**9),
        ("90min", 5400 * 10**9),
        (" 1.5 s ", 15 * 10**8),
    ],
)
def test_units(text: str, ns: int) -> None:
    assert parse_duration(text).ns(epoch_scale=10**9) == ns


def test_a_bare_number_is_in_the_time_columns_unit() -> None:
    assert parse_duration("3") == Duration(3.0, None)
    assert parse_duration("3").ns(epoch_scale=10**6) == 3 * 10**6  # epoch milliseconds


@pytest.mark.parametrize(
    ("text", "ns"),
    [("86400s", DAY_NS), ("20000min", 20000 * 60 * 10**9), ("86400", DAY_NS), ("15000w", 15000 * 7 * DAY_NS)],
)
def test_an_amount_is_bounded_by_its_own_unit_not_by_a_week(text: str, ns: int) -> None:
    # A day in seconds, or a bare 86400 on an epoch-seconds column, fits in nanoseconds many times over.
    assert parse_duration(text).ns(epoch_scale=10**9) == ns


@pytest.mark.parametrize("text", ["7 days", "-3d", "d", "", "1e3d", "3 d h", "99999999999999999999w", "9300000000s"])
def test_not_a_duration(text: str) -> None:
    with pytest.raises(ValueError, match="expected a duration"):
        parse_duration(text)


def test_spans_read_in_the_largest_whole_unit() -> None:
    assert [format_span(n) for n in (7 * DAY_NS, 3600 * 10**9, 90 * 10**9, 1_500_000_000)] == [
        "7d",
        "1h",
        "90s",
        "1.5s",
    ]
    assert format_span(4 * 10**9, epoch_scale=10**9) == "4"


@pytest.mark.parametrize(("gap", "valid"), [("7d", True), (3, True), (0.5, True), ("7 days", False), (-1, False)])
def test_the_config_schema_takes_a_gap_as_yaml_writes_it(gap: object, valid: bool) -> None:
    schema = json.loads((REPO / "schemas" / "config.schema.json").read_text())
    config = {"manifest": {"path": "m.csv", "split": "split"}, "splits": {"gap": gap}, "keys": {"time": "t"}}
    if valid:
        jsonschema.validate(config, schema)
    else:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(config, schema)
