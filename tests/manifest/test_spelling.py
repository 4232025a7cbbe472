from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, localcontext

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.core.spelling import normal_form
from auditor.manifest.keycodes import compound_key, encode_column
from auditor.manifest.spelling import WHITESPACE, accept_key, key_variants, normalise, spelling_variants
from tests.conftest import DIFFERENT_LOOKALIKES, SPELLING_VARIANT_KINDS
from tests.examples import examples

NUMBER_CHARS = "0123456789+-."


QUOTES_BRACKETS = ("Pi", "Pf", "Ps", "Pe")
SENTENCE = "\"'`.,;:!?\u00a1\u00bf"


def reference(value: str, fingerprint: bool = False) -> str:
    """The normal form restated with Python's own Unicode tables and Decimal, independently of the kernel
    (``fingerprint``: as fingerprints have it, numbers wholly by value and no marks dropped)."""
    text = unicodedata.normalize("NFKC", value)
    folded = []
    for c in text:
        if unicodedata.category(c) == "Cf":
            continue
        # U+0130 folds to 'i' (the simple mapping); Python's full folding adds a combining dot.
        folded.append("i" if c == "\u0130" else str(unicodedata.decimal(c)) if c.isdecimal() else c.casefold())
    text = unicodedata.normalize("NFKC", "".join(folded)).strip()
    text = " ".join(text.split())  # a run of whitespace inside is one space
    if not fingerprint and not is_number(text):
        # Not a number: whitespace, quotes, brackets and sentence punctuation at the ends go, unless nothing else
        # is left; any other mark is part of the value.
        marks = {c for c in text if c.isspace() or unicodedata.category(c) in QUOTES_BRACKETS or c in SENTENCE}
        trimmed = text
        while trimmed and trimmed[0] in marks:
            trimmed = trimmed[1:]
        while trimmed and trimmed[-1] in marks:
            trimmed = trimmed[:-1]
        text = trimmed or text
    number = re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)(e(?P<exp>[+-]?[0-9]+))?", text)
    if number is None or not is_number(text) or abs(int(number["exp"] or 0)) > 100:
        return text
    whole, _, fraction = text.lstrip("+-").partition(".")
    if not fingerprint and number["exp"] is None and fraction.strip("0"):
        # A fraction written without an exponent keeps its digits, trailing zeros too (a dotted id: 1.10).
        return ("-" if text.startswith("-") else "") + (whole.lstrip("0") or "0") + "." + fraction
    with localcontext() as exact:
        exact.prec = 1000
        d = Decimal(text)
        return "0" if d == 0 else format(d.normalize(), "f")


def is_number(text: str) -> bool:
    number = re.fullmatch(r"[+-]?(?P<int>[0-9]+\.?[0-9]*|\.[0-9]+)(e[+-]?[0-9]+)?", text)
    # An e after a zero-padded mantissa (`001e2`) is a hex digit: the value is text.
    return number is not None and not ("e" in text and re.match(r"0[0-9]", number["int"]) is not None)


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
        ("W1", "w1 "),
        ("1.0", "1"),
        ("7", "7.0"),  # a fraction of zeros goes: how pandas writes integers of a column that held a blank
        ("7.0", "7.00"),
        ("007", "7"),
        ("+1.50", "1.50"),  # a fraction's digits are kept as written, but not a sign or leading zeros
        ("+01.10", "1.10"),
        ("-00.50", "-.50"),
        ("1.5e1", "15"),  # with an exponent, a number is read by value
        ("1.50e0", "1.5"),
        ("-0.0", "0"),
        (".5", "0.5"),
        ("STRASSE", "strasse"),
        ("John Smith", "John  Smith"),  # a doubled key press, a tab, a line separator: one space
        ("a b", "a\tb"),
        ("a b", "a \u2028 b"),
        ("a", "\u00a0a\u2003"),
        ("02134", "2134"),  # a zip code that lost its leading zero: one code, shown in both spellings
        ("(deeP)", "deep"),  # quotes, brackets and sentence punctuation at the ends do not make a value new
        ("?deep", "Deep"),
        ("deep?", "deep"),
        ('"deep."', "deep"),
        ("\u201cdeep\u201d", "deep"),  # curly quotes (Pi, Pf)
        ("\u201edeep\u201c", "deep"),  # a low-9 opening quote (Ps)
        ("`deep`", "'deep'"),
        ("\uff02deep\uff0e\uff02", "deep"),  # full-width quote and full stop: NFKC makes them ASCII
        ("[deep];", "deep:"),
        ("\u00a1hola!", "hola"),
        ("\u00bfqu\u00e9?", "qu\u00e9"),  # Spanish inverted question mark, and a non-ASCII letter inside
        ("\u00abw1\u00bb", "w1"),
        ("[5]", "5"),  # what is left is read as a number again
        ("(007)", "7"),
        ('"1.10"', "1.10"),
        ("w1 !", "w1"),
    ],
)
def test_spellings_of_one_value_group_together(a: str, b: str) -> None:
    assert kernel_groups(["x", a, "y", b]) == [[1, 3]]


@pytest.mark.parametrize(("a", "b"), SPELLING_VARIANT_KINDS)
def test_each_variant_kind_groups_with_its_plain_spelling(a: str, b: str) -> None:
    v = spelling_variants(pa.array(["x", a, "y", b, "z"]))
    assert [v.positions[v.group == g].tolist() for g in range(v.n_groups)] == [[1, 3]]
    assert v.normal == [reference(a)] == [reference(b)]


def test_numbers_are_read_by_value() -> None:
    spellings = [
        "1e3",
        "1000",
        "1000.0",
        "\u0661\u0660\u0660\u0660",
        "+1E+3",
        "10e2",
        "0.001e6",
        "\uff11\uff10\uff10\uff10",
    ]
    assert kernel_groups([*spellings, "1001"]) == [list(range(len(spellings)))]
    got = normalise(pa.array(["-1.5e-7", "12.345e2", "-0e5", "0.00e-3"])).to_pylist()
    assert got == ["-0.00000015", "1234.5", "0", "0"]
    # Long ones too (the byte scan looks at a few bytes first), among digest-like text that is no number.
    assert kernel_groups(["123456789e3", "1e3e5", "123456789000", "12e4e6e8", "1.0000000000e3", "1000"]) == [
        [0, 2],
        [4, 5],
    ]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        *DIFFERENT_LOOKALIKES,  # leading zeros count only in a number (w01), punctuation is spelling
        ("w1", "w10"),
        ("1.0", "1.01"),
        ("12345678901234567890", "12345678901234567891"),
        ("1e3", "1e4"),
        ("1_000", "1000"),
        ("1e400", "10e399"),  # exponents beyond 100 stay text
        ("a b", "ab"),
        ("-1", "1"),
        ("1.1", "1.10"),  # a dotted id (subject.session, chapter.section): the tenth is not the first
        ("0.5", "0.50"),
        ("1.5", "+1.50"),
        ("1.10", "1.1e0"),
        ("A+", "A-"),  # any symbol or punctuation but quotes, brackets and sentence punctuation is the value's
        ("A+", "A"),
        ("A-", "A"),
        ("C++", "C"),
        ("C#", "C"),
        ("C#", "C++"),
        ("5%", "5"),
        ("$5", "5"),
        ("\u20ac5", "5"),
        ("$deeP$", "deep"),
        ("#1", "1"),
        ("*a", "a"),
        ("a&", "a"),
        ("@user", "user"),
        ("a/", "a"),
        ("a\\", "a"),
        ("~a", "a"),
        ("a^", "a"),
        ("a_", "a"),
        ("a=", "a"),
        ("<a>", "a"),  # < and > are math symbols, not brackets
        ("a|", "a"),
        ("\u00a7a", "a"),  # the section sign: other punctuation
        ("1", "\u00b9\u2044\u2082"),  # superscript 1, fraction slash, subscript 2: a fraction, not 1
        ("1", "\u0661\u0662"),  # Arabic-Indic 12
        ("a-1", "a1"),  # punctuation inside a value is structure: 1-23 and 12-3 must not meet
        ("a-1", "a_1"),
        ("1-23", "12-3"),
        ("?", "!"),  # a value of punctuation only keeps it: never blank, never one with another
        ("?", ""),
        ("-5", "5"),  # a sign is part of a number
        ("-1e400", "1e400"),
        ("000e5", "0"),  # a zero-padded mantissa before e: hex text (a digest, a padded hex id), not a number
        ("01e2", "100"),
        ("00.5e3", "500"),
        ("-00e5", "0"),
    ],
)
def test_different_values_do_not_group(a: str, b: str) -> None:
    assert kernel_groups([a, b]) == []


def test_zero_padded_hex_digests_and_ids_are_not_numbers() -> None:
    """Sequential hex (`f"{i:064x}"`) holds `…00e0`, `…00e5` and `…01e2`: as numbers they would be 0, 0 and 100
    and meet `…0000` and `…0100`. Hex is text: no two of these are one value, whatever their case."""
    for width in (8, 32, 64):
        ids = [f"{i:0{width}x}" for i in range(4096)]
        assert kernel_groups(ids) == []
        assert kernel_groups([*ids, ids[0x1E2].upper()]) == [[0x1E2, 4096]]
    # An unpadded exponent stays a number.
    assert kernel_groups(["1e2", "100", "0e5", "0", "0.5e3", "500"]) == [[0, 1], [2, 3], [4, 5]]


def test_three_spellings_of_one_value_are_one_group_of_variants() -> None:
    v = spelling_variants(pa.array(["(deeP)", "?deep", "other", "Deep", "?", "!", "deep learning", "$deep"]))
    assert v.positions.tolist() == [0, 1, 3] and v.normal == ["deep"]


def test_a_punctuation_variant_in_a_large_clean_column_is_screened_in() -> None:
    ids = [f"w{i:07d}" for i in range(50_000)]
    assert kernel_groups([*ids, "w0000042!", "(w0000007)"]) == [[7, 50_001], [42, 50_000]]


def test_exact_repeats_and_blanks_and_nulls_are_not_spelling_variants() -> None:
    assert kernel_groups(["a", "a", "b", None, "", "  ", None]) == []
    # but an exact repeat joins its variant's group
    assert kernel_groups(["a", "b", "a", "A"]) == [[0, 2, 3]]


def test_numbers_are_not_text() -> None:
    assert spelling_variants(pa.array([1, 1, 2])).n_groups == 0
    assert spelling_variants(pa.array(["a", "A"]).dictionary_encode()).normal == ["a"]


def test_normal_forms() -> None:
    got = normalise(pa.array([" W2\t", "1.500", "-007", "Jose\u0301", "x\u2003", None])).to_pylist()
    assert got == ["w2", "1.500", "-7", "jos\u00e9", "x", None]


def test_a_fraction_keeps_its_digits_unless_they_are_zeros_or_an_exponent_follows() -> None:
    values = ["1.10", "0.50", "-0.50", "+01.10", "1.100", ".50", "-.5", "7.00", "7.", "1.50e0", "1.10e1", "-0.00"]
    want = ["1.10", "0.50", "-0.50", "1.10", "1.100", "0.50", "-0.5", "7", "7", "1.5", "11", "0"]
    assert normalise(pa.array(values)).to_pylist() == want == [normal_form(v) for v in values]
    # Mixed with numbers that have an exponent (the kernel's other path) and numbers too long to be read.
    mixed = ["1.10", "1e3", "2.50", "1e400", "0.50e1"]
    assert normalise(pa.array(mixed)).to_pylist() == ["1.10", "1000", "2.50", "1e400", "5"]


def test_the_fingerprint_form_keeps_the_first_number_rule_and_every_mark() -> None:
    """Fingerprints and scopes are stored: their form reads every number wholly by value and drops no mark."""
    values = ["1.10", "0.50", "+01.10", "A+", '"deep."', "(007)", "$5", "W1 ", "7.0"]
    want = ["1.1", "0.5", "1.1", "a+", '"deep."', "(007)", "$5", "w1", "7"]
    assert normalise(pa.array(values), fingerprint=True).to_pylist() == want
    assert [normal_form(v, fingerprint=True) for v in values] == want


def test_slices_of_large_strings_are_read_as_their_values() -> None:
    """A DatasetDict's column: slices of one large_string buffer, whose 32-bit casts keep offsets past 0."""
    values = [f"{i:032x}" for i in range(20)] + ["ID7", "id7 "]
    whole = pa.array(values, pa.large_string())
    sliced = pa.chunked_array([whole.slice(0, 10), whole.slice(10, 12)])
    assert normalise(sliced).to_pylist() == normalise(pa.array(values)).to_pylist()
    variants = spelling_variants(sliced)
    assert variants.positions.tolist() == [20, 21] and variants.normal == ["id7"]


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


ALPHABET = (
    "aAbB09.+- \t\u00a0\u2003\u00e9e\u0301\u00dfS\u03a3\u03c3\u0130iI\u212b\u00c5\u00e5fFE"
    "\u200b\u200d\ufeff\u00ad\uff57\uff11\ufb01\u0661\u0660\u1e9e\u1fbc\u00b2"
    "$?!_(),\u00bf\u00ab\u2014\u20ac"
    "#%\"'`[]:;\u00bb\u201c\u201e\u00a1\uff02\uff0e\u00a7<"
)
values = st.lists(st.one_of(st.none(), st.text(alphabet=ALPHABET, max_size=5)), max_size=12)


@settings(max_examples=examples(300), deadline=None)
@given(values)
def test_kernel_agrees_with_the_python_reference(vals: list[str | None]) -> None:
    assert kernel_groups(vals) == reference_groups(vals)
    present = [v for v in vals if v is not None]
    assert normalise(pa.array(present, pa.string())).to_pylist() == [reference(v) for v in present]
    fingerprints = normalise(pa.array(present, pa.string()), fingerprint=True).to_pylist()
    assert fingerprints == [reference(v, fingerprint=True) for v in present]


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.text(alphabet=ALPHABET, max_size=5), max_size=12))
def test_normal_form_is_idempotent(vals: list[str]) -> None:
    once = normalise(pa.array(vals, pa.string()))
    assert normalise(once).to_pylist() == once.to_pylist()


def test_large_distinct_column_is_screened_not_normalised() -> None:
    ids = pa.array([f"img_{i:09d}" for i in range(50_000)] + ["IMG_000000042"])
    v = spelling_variants(ids)
    assert v.positions.tolist() == [42, 50_000] and np.array_equal(v.group, [0, 0])


def test_every_character_agrees_with_the_definition() -> None:
    """Each assigned code point on its own, through the kernel and through core.spelling (one definition)."""
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000 and unicodedata.category(chr(c)) != "Cn"]
    got = normalise(pa.array(chars, pa.string())).to_pylist()
    assert [(c, g) for c, g in zip(chars, got, strict=True) if g != normal_form(c)] == []
    assert normalise(pa.array(got, pa.string())).to_pylist() == got


@settings(max_examples=examples(200), deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=8))
def test_the_definition_agrees_with_the_reference(value: str) -> None:
    assert normal_form(value) == reference(value)
    assert normal_form(value, fingerprint=True) == reference(value, fingerprint=True)


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet=st.sampled_from([chr(c) for c in range(128)] + list("0.e+-  ")), max_size=10))
def test_an_ascii_text_takes_the_short_path_to_the_same_normal_form(value: str) -> None:
    # Every ASCII character, control ones included: the short path folds case only, as NFKC and folding do.
    assert normal_form(value) == reference(value)
