from __future__ import annotations

import unicodedata
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.manifest.keycodes import compound_key, encode_column
from auditor.manifest.spelling import WHITESPACE, accept_key, key_variants, normalise, spelling_variants

NUMBER_CHARS = "0123456789+-."


def reference(value: str) -> str:
    """The normal form written with Python's own Unicode tables and Decimal, independently of the kernel."""
    text = unicodedata.normalize("NFC", value)
    # Simple (one-to-one) lower case: per character, so no context rule (final sigma) applies; U+0130
    # lower-cases to 'i' in the simple mapping where Python's full mapping adds a combining dot.
    text = "".join("i" if c == "\u0130" else c.lower() for c in text)
    text = unicodedata.normalize("NFC", text).strip()
    body = text.lstrip("+-")
    one_sign = len(text) - len(body) <= 1
    if one_sign and body.strip(".") and set(body) <= set("0123456789.") and body.count(".") <= 1:
        d = Decimal(text)
        return "0" if d == 0 else format(d.normalize(), "f")
    return text


def reference_groups(values: list[str | None]) -> list[list[int]]:
    by_normal: dict[str, list[int]] = {}
    for i, v in enumerate(values):
        if v is not None and reference(v) != "":
            by_normal.setdefault(reference(v), []).append(i)
    groups = [p for p in by_normal.values() if len({values[i] for i in p}) > 1]
    return sorted(groups, key=lambda p: p[0])


def kernel_groups(values: list[str | None]) -> list[list[int]]:
    v = spelling_variants(pa.array(values, pa.string()))
    return [v.positions[v.group == g].tolist() for g in range(v.n_groups)]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("a", "a "),
        ("w1", "w1 "),
        ("w2", "W2"),
        ("9f86d0", "9F86D0"),
        ("Jos\u00e9", "Jose\u0301"),
        ("1.0", "1"),
        ("007", "7"),
        ("+1.50", "1.5"),
        ("-0.0", "0"),
        (".5", "0.5"),
        ("STRASSE", "strasse"),
        ("a", "\u00a0a\u2003"),
    ],
)
def test_spellings_of_one_value_group_together(a: str, b: str) -> None:
    assert kernel_groups(["x", a, "y", b]) == [[1, 3]]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("w1", "w10"),
        ("Stra\u00dfe", "strasse"),
        ("1.0", "1.01"),
        ("12345678901234567890", "12345678901234567891"),
        ("1e3", "1000"),
        ("a b", "ab"),
        ("-1", "1"),
    ],
)
def test_different_values_do_not_group(a: str, b: str) -> None:
    # Sharp s is lower-cased, not case-folded: 'Straße' and 'strasse' stay two values by design.
    assert kernel_groups([a, b]) == []


def test_exact_repeats_and_blanks_and_nulls_are_not_spelling_variants() -> None:
    assert kernel_groups(["a", "a", "b", None, "", "  ", None]) == []
    # but an exact repeat joins its variant's group
    assert kernel_groups(["a", "b", "a", "A"]) == [[0, 2, 3]]


def test_numbers_are_not_text() -> None:
    assert spelling_variants(pa.array([1, 1, 2])).n_groups == 0
    assert spelling_variants(pa.array(["a", "A"]).dictionary_encode()).normal == ["a"]


def test_normal_forms() -> None:
    got = normalise(pa.array([" W2\t", "1.500", "-007", "Jose\u0301", "x\u2003", None])).to_pylist()
    assert got == ["w2", "1.5", "-7", "jos\u00e9", "x", None]


def test_many_candidates_take_the_whole_column_path() -> None:
    values = [f"ID{i}" for i in range(100)] + ["id7 "]
    assert kernel_groups(values) == [[7, 100]]


def test_compound_key_groups_when_every_part_matches() -> None:
    parts = [encode_column(pa.array(c)) for c in (["p1", "P1 ", "p1", "p2"], ["L", "l", "R", "L"])]
    key = compound_key(["patient", "eye"], parts)
    v = key_variants(key)
    assert v.positions.tolist() == [0, 1] and v.normal == ["p1 + l"]
    assert accept_key(["P1", "L"], 2) == "p1 + l" and accept_key("P1 + L", 2) == "p1 + l"


def test_whitespace_is_pythons() -> None:
    assert set(WHITESPACE) == {chr(c) for c in range(0x110000) if chr(c).isspace()}


ALPHABET = "aAbB09.+- \t\u00a0\u2003\u00e9e\u0301\u00dfS\u03a3\u03c3\u0130iI\u212b\u00c5\u00e5fF"
values = st.lists(st.one_of(st.none(), st.text(alphabet=ALPHABET, max_size=5)), max_size=12)


@settings(max_examples=300, deadline=None)
@given(values)
def test_kernel_agrees_with_the_python_reference(vals: list[str | None]) -> None:
    assert kernel_groups(vals) == reference_groups(vals)
    present = [v for v in vals if v is not None]
    assert normalise(pa.array(present, pa.string())).to_pylist() == [reference(v) for v in present]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=ALPHABET, max_size=5), max_size=12))
def test_normal_form_is_idempotent(vals: list[str]) -> None:
    once = normalise(pa.array(vals, pa.string()))
    assert normalise(once).to_pylist() == once.to_pylist()


def test_large_distinct_column_is_screened_not_normalised() -> None:
    ids = pa.array([f"img_{i:09d}" for i in range(50_000)] + ["IMG_000000042"])
    v = spelling_variants(ids)
    assert v.positions.tolist() == [42, 50_000] and np.array_equal(v.group, [0, 0])
