"""A mask's condition as an interval of one column's values: numbers from zero, ISO dates as instants, anything
else by its text; the column keyed without the name of the table that holds it."""

from __future__ import annotations

from datetime import datetime

import pytest

from auditor.code.masks import TIME, ZONED, column_of, conjuncts, mask_span
from auditor.code.values import OPEN, Part, point_left_out, span_within, spans_disjoint

_JUNE = (datetime(2023, 6, 1) - datetime(1970, 1, 1)).total_seconds()


@pytest.mark.parametrize(
    "condition",
    [
        'df["date"] < "2023-06"',
        "df.date < '2023-06-01'",
        "raw.date < '2023-06-01 00:00'",
        "df.date < '2023-06-01T00:00:00.000'",
        'df.date < pd.Timestamp("2023-06-01")',
        "df.date < pd.to_datetime('2023-06')",
        "df.date < np.datetime64('2023-06-01')",
        "df.date < datetime(2023, 6, 1)",
        "df.date < datetime.date(2023, 6, 1)",
        "'2023-06' > df['date']",
    ],
)
def test_one_instant_however_it_is_written(condition: str) -> None:
    assert mask_span(condition) == ("['date']", (OPEN, 0, True), (TIME, _JUNE, False))


@pytest.mark.parametrize(
    "bound",
    [
        "'2023-13'",  # no thirteenth month
        "'2023-02-30'",
        "'2023-6-1'",  # not zero-padded: it does not sort as the time it names
        "'31/12/2022'",
        "pd.Timestamp(cut)",
        "datetime(2023, 6)",
        "date(2023, 6, 1, 5)",
        "datetime(2023, 6, True)",
        "datetime(year=2023, month=6)",  # no day
        "datetime(year=2023, month=6, day=1, fold=1)",
        "pd.to_datetime('2023-06-01', format='%Y-%d-%m')",  # a format may read the text otherwise
        "pd.to_datetime('2023-06-01', dayfirst=True)",
        "pd.Timestamp('2023-06-01', tz='Nowhere/Nothing')",
        "pd.Timestamp('2023-06-01', tz='/etc/localtime')",
        "pd.Timestamp('2023-06-01T00:00Z', tz='UTC')",  # pandas refuses a zone given twice
        "pd.to_datetime('2023-06-01', utc=True, tz='UTC')",
        "datetime(2023, 6, 1, tzinfo=pytz.timezone('Europe/Berlin'))",  # pytz's zone keeps a first offset
        "datetime(2023, 6, 1, tzinfo=zone)",
        "pd.Timestamp('2023-06-01', tz='UTC', tzinfo=UTC)",
        "'2023-06-01Z'",  # a zone without a time
        "'2023-06-01T00:00+24:00'",
    ],
)
def test_a_text_or_call_that_names_no_plain_instant_is_its_own_bound(bound: str) -> None:
    span = mask_span(f"df.date >= {bound}")
    assert span and span[1][0] != TIME and span[1][0] == bound.replace(" ", "")


def test_keywords_name_the_same_instant() -> None:
    for bound in ("datetime(year=2023, month=6, day=1)", "pd.Timestamp(year=2023, month=6, day=1, hour=0)"):
        assert mask_span(f"df.date < {bound}")[2] == (TIME, _JUNE, False)
    assert mask_span("df.date < pd.Timestamp(2023, 6, 1)")[2] == (TIME, _JUNE, False)


@pytest.mark.parametrize(
    "bound",
    [
        "pd.Timestamp('2023-06-01', tz='UTC')",
        "pd.Timestamp('2023-06-01 02:00', tz='Europe/Berlin')",  # summer time: two hours ahead of UTC
        "pd.Timestamp('2023-05-31 20:00', tz='America/New_York')",
        "pd.to_datetime('2023-06-01', utc=True)",
        "pd.Timestamp('2023-06-01T00:00:00Z')",
        "pd.Timestamp('2023-06-01T03:00+03:00')",
        "pd.Timestamp(year=2023, month=6, day=1, tz='UTC')",
        "datetime(2023, 6, 1, tzinfo=timezone.utc)",
        "datetime(2023, 6, 1, tzinfo=UTC)",
        "dt.datetime(2023, 6, 1, 2, tzinfo=ZoneInfo('Europe/Berlin'))",
        "datetime(2023, 6, 1, 2, tzinfo=tz.gettz('Europe/Berlin'))",
    ],
)
def test_a_zoned_instant_made_by_a_call_is_counted_in_utc(bound: str) -> None:
    assert mask_span(f"df.date < {bound}")[2] == (ZONED, _JUNE, False)


def test_a_zoned_text_compares_only_with_texts_at_its_offset_as_written() -> None:
    z, plus = mask_span("df.date < '2023-06-01T00:00Z'")[2], mask_span("df.date < '2023-06-01T02:00+02:00'")[2]
    assert z == (f"{ZONED} Z", _JUNE, False) and plus == (f"{ZONED} +02:00", _JUNE, False)
    # as texts, `...Z` and `...+00:00` sort apart, and a plain instant is never compared with a zoned one
    assert mask_span("df.date < '2023-06-01T00:00+00:00'")[2][0] != z[0]
    assert mask_span("df.date < '2023-06-01'")[2][0] not in (z[0], ZONED)


def test_numbers_stay_numbers_and_a_date_is_not_a_number() -> None:
    assert mask_span("df.t >= 100") == ("['t']", ("", 100, True), (OPEN, 0, True))
    assert mask_span("df['t'] <= 2.5") == ("['t']", (OPEN, 0, True), ("", 2.5, True))
    # a flag's True and False are pandas' 1 and 0: `df.is_test == True` keeps the rows `== 1` keeps
    assert mask_span("df.t >= True") == ("['t']", ("", 1, True), (OPEN, 0, True))
    assert mask_span("df.t == False") == mask_span("df.t == 0")


def test_the_path_to_a_column_stays_but_the_tables_name_goes() -> None:
    assert mask_span("df['date'].dt.year < 2020")[0] == "['date'].dt['year']"
    assert mask_span("a['date'].dt.year < 2020")[0] == mask_span("b.date.dt.year < 2020")[0]
    assert mask_span("df.year < 2020")[0] != mask_span("df['date'].dt.year < 2020")[0]


def test_a_querys_names_are_columns_unless_taken_with_at() -> None:
    assert mask_span("date < cutoff", query=frozenset({"cutoff"})) == (
        "['date']",
        (OPEN, 0, True),
        ("cutoff", 0, False),
    )
    assert mask_span("cutoff > date", query=frozenset({"cutoff"}))[0] == "['date']"
    assert mask_span("date < cutoff")[0:1] == ()  # outside a query a bare name is not a column
    assert mask_span("'2023-06' <= date", query=frozenset())[1] == (TIME, _JUNE, True)


@pytest.mark.parametrize("condition", ["df.a.isin([1, 3])", "0 < df.a < 5", "df.a < 5 and df.b > 1", "(df.a", "f(x)"])
def test_other_conditions_have_no_interval(condition: str) -> None:
    assert mask_span(condition) == ()


@pytest.mark.parametrize(
    ("condition", "run"),
    [
        ("df.month.isin(range(1, 11))", (1, 10)),
        ("df['month'].isin([10, 11, 12])", (10, 12)),
        ("df.month.isin((12, 10, 11, 11))", (10, 12)),
        ("df.d.isin({-1, 0, -2})", (-2, 0)),
        ("df.month.isin(range(4))", (0, 3)),
    ],
)
def test_whole_numbers_in_one_run_are_the_interval_they_fill(condition: str, run: tuple[int, int]) -> None:
    assert mask_span(condition)[1:] == (("", run[0], True), ("", run[1], True))


@pytest.mark.parametrize(
    "condition",
    [
        "df.month.isin([1, 3, 5])",  # a gap: the span would claim the even months
        "df.month.isin([1.5, 2.5])",
        "df.month.isin([True, False])",
        "df.month.isin(['a', 'b'])",
        "df.month.isin(months)",
        "df.month.isin(range(1, 11, 2))",
        "df.month.isin(range(5, 5))",
        "df.month.isin([])",
        "~df.month.isin([1, 2])",  # every other value: no interval
    ],
)
def test_any_other_set_has_no_interval(condition: str) -> None:
    assert mask_span(condition) == ()


def test_a_negated_comparison_keeps_the_other_side() -> None:
    assert mask_span("~(df.year < 2020)") == ("['year']", ("", 2020, True), (OPEN, 0, True))
    assert mask_span("not df.year >= 2020") == ("['year']", (OPEN, 0, True), ("", 2020, False))
    assert mask_span("~(df.year == 2020)") == mask_span("df.year != 2020")
    assert mask_span("~(df.year != 2020)") == mask_span("df.year == 2020")
    assert mask_span("~(df.year is None)") == ()


def test_every_value_but_one_shares_rows_with_any_other_span() -> None:
    """`year != 2020` shares no row with `year == 2020` only; `between(a, a, inclusive="neither")` keeps none."""

    def part(condition: str) -> Part:
        return Part("mask:['year']", condition, mask_span(condition))

    but = part("df.year != 2020")
    assert point_left_out(but.span) == ("", 2020, True)
    assert spans_disjoint(but, part("df.year == 2020")) is True
    assert spans_disjoint(part("df.year == 2020"), but) is True
    assert spans_disjoint(but, part("df.year == 2021")) is False
    assert spans_disjoint(but, part("df.year >= 2020")) is False
    assert spans_disjoint(but, part("df.year != 2021")) is False
    assert spans_disjoint(but, part("df.year < cut")) is None  # bounds it cannot compare
    assert span_within(part("df.year < 2020"), but) and span_within(part("df.year > 2020"), but)
    assert not span_within(part("df.year <= 2020"), but) and not span_within(but, part("df.year < 2030"))
    assert span_within(but, part("~(df.year == 2020)"))
    assert mask_span("df.year.between(2020, 2020, inclusive='neither')") == ()


def test_one_value_is_an_interval_of_one_point() -> None:
    """`year == 2020` keeps the rows `year <= 2020` and `year >= 2020` both hold."""
    assert mask_span("df.year == 2020") == ("['year']", ("", 2020, True), ("", 2020, True))
    assert mask_span("2020 == df.year") == ("['year']", ("", 2020, True), ("", 2020, True))
    assert mask_span("df.region == 'EU'")[1] == ("'EU'", 0, True)


def test_the_conditions_a_mask_holds_all_of() -> None:
    assert conjuncts("(df.a < 1) & (df.b == 2) & (df.c > 0)") == ["df.a < 1", "df.b == 2", "df.c > 0"]
    assert conjuncts("a >= 1 and a < 5") == ["a >= 1", "a < 5"]
    assert conjuncts("(df.a < 1) | (df.b == 2)") == ["(df.a < 1) | (df.b == 2)"]
    assert conjuncts("df.a < 1") == ["df.a < 1"] and conjuncts("(df.a") == ["(df.a"]


def test_the_column_a_condition_reads() -> None:
    assert column_of('df["date"].dt.year < 2020') == "date"
    assert column_of("2020 <= df.year") == "year"
    assert column_of("~(raw.t >= 5)") == "t"
    assert column_of("year < cut", query=frozenset({"cut"})) == "year"
    assert column_of("cut > year", query=frozenset({"cut"})) == "year"
    assert column_of("df.a.isin([1])") is None and column_of("x < 1") is None


def test_between_keeps_the_ends_it_is_told_to() -> None:
    assert mask_span("df.date.between('2023-06', '2023-07')")[1] == (TIME, _JUNE, True)
    assert mask_span("df.t.between(1, 5, inclusive='left')") == ("['t']", ("", 1, True), ("", 5, False))
    assert mask_span("df.t.between(1, 5, inclusive='neither')")[1:] == (("", 1, False), ("", 5, False))
    assert mask_span("df.t.between(1, 5, inclusive=False)")[2] == ("", 5, False)
    assert mask_span("df.t.between(1, 5, inclusive=how)") == () and mask_span("df.t.between(1)") == ()
    assert mask_span("t.between(1, 5)", query=frozenset())[0] == "['t']"
    assert column_of("df['t'].between(1, 5)") == "t"
