"""The column-wise scope of many key values is core/scope.py's scope_of, value for value and digest for digest."""

from __future__ import annotations

import builtins
import random
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.core.scope import MAX_LISTED, scope_of
from auditor.manifest.keycodes import compound_key, encode_column, single_key
from auditor.manifest.keyscope import (
    KeyScopes,
    _packed,
    _packed_digest,
    key_scope,
    sorted_text,
    text_order,
    text_scope,
)
from tests.conftest import DIFFERENT_LOOKALIKES, SPELLING_VARIANT_KINDS
from tests.examples import examples

# Spellings the normal form folds together, and characters json.dumps escapes or the sort orders unusually.
TWISTS = [
    "",
    " ",
    "  ",
    "\t",
    "\u3000",
    "\u200b",
    "\u00a0",
    "\u2028",
    '"',
    "\\",
    "\x00",
    "\x1f",
    "é",
    "E\u0301",
    "$",
    "?",
    "++",
]
STEMS = ["w-1", "W-1", "Ｗ-１", "ß", "SS", "İ", "1e3", "1000", "+01000.0", "a b", "a  b", "naïve", "日本", "٣"]


def _variants(rng: random.Random, n: int) -> list[str]:
    """n distinct texts, many of them spellings of one another (so there are fewer normal forms than values)."""
    out: set[str] = set()
    while len(out) < n:
        text = rng.choice(STEMS) + rng.choice(TWISTS) + str(rng.randrange(n // 3 + 1)) + rng.choice(TWISTS)
        out.add(text if rng.random() < 0.5 else text.upper())
    return sorted(out, key=lambda _: rng.random())


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(MAX_LISTED - 50, 3 * MAX_LISTED))
def test_text_scope_equals_scope_of_on_spelling_variants(seed: int, n: int) -> None:
    values = _variants(random.Random(seed), n)
    counts = {"groups": n}
    assert text_scope(pa.array(values), counts) == scope_of(values, counts)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_text_scope_equals_scope_of_on_any_text(seed: int) -> None:
    """Any code point (but surrogates, which no UTF-8 string holds), assigned or not in either Unicode table."""
    rng = random.Random(seed)
    ranges = [(0x20, 0x7F), (0, 0x3000), (0, 0x110000)]

    def char() -> str:
        c = rng.randrange(*rng.choice(ranges))
        return chr(c) if not 0xD800 <= c <= 0xDFFF else "x"

    values = list(dict.fromkeys("".join(char() for _ in range(rng.randrange(1, 6))) for _ in range(3 * MAX_LISTED)))
    assert text_scope(pa.array(values)) == scope_of(values)


def test_punctuation_at_the_ends_counts_in_a_scope_as_in_scope_of() -> None:
    """Scopes keep the punctuation at a value's ends (fingerprints made before that step must not move)."""
    values = [f"w{i}" for i in range(MAX_LISTED + 10)] + ["$deeP$", "?deep", "Deep", "C++", "C"]
    assert text_scope(pa.array(values)) == scope_of(values)
    assert text_scope(pa.array(values)).n_values == len(values)  # $deeP$, ?deep and Deep stay three


def test_a_dotted_id_counts_in_a_scope_by_value_as_it_always_did() -> None:
    """Scopes read every number wholly by value (`1.10` is `1.1` there), so a stored digest keeps matching; the
    digest below was computed before the spelling checks kept a fraction's digits."""
    values = [f"{i}.{j}0" for i in range(40) for j in range(1, 40)]
    scope = text_scope(pa.array(values))
    assert scope == scope_of(values)
    assert scope.n_values == 1440  # `0.10` and `0.100` are one value here
    assert scope.digest == "c78d58fc1e5efdc929ad1717282b1f1d90424a54b6f66c79e7b16165e305dd4b"


def test_a_few_normal_forms_among_many_spellings_are_listed_as_first_spelled() -> None:
    values = [f"{'W' if i % 2 else 'w'}{' ' * (i % 5)}x{i % 7}" for i in range(3 * MAX_LISTED)]
    values = list(dict.fromkeys(values))
    scope = text_scope(pa.array(values))
    assert scope == scope_of(values)
    assert scope.listed and scope.n_values == 14  # wx0..wx6 and w x0..w x6: a run of spaces is one space, none is none


def test_many_distinct_values_are_counted_not_merged() -> None:
    """Values that look alike but are not one spelling of another (w1 / w01 / w1.5) stay apart."""
    values = [f"w{i}" for i in range(MAX_LISTED)] + [f"w0{i}" for i in range(MAX_LISTED)] + ["w1.5", "w1 5"]
    scope = text_scope(pa.array(values))
    assert scope == scope_of(values)
    assert scope.n_values == len(values) and not scope.values


@pytest.mark.parametrize("rows", [50, 5000])
def test_key_scope_equals_scope_of_the_labels_for_every_kind_of_key(rows: int) -> None:
    rng = np.random.default_rng(rows)
    words = np.array(_variants(random.Random(rows), 3 * MAX_LISTED), dtype=object)
    text = pa.array([None if i % 97 == 0 else w for i, w in enumerate(words[rng.integers(0, len(words), rows)])])
    numbers = pa.array(rng.integers(-5, 3 * MAX_LISTED, rows))
    times = pa.array(rng.integers(0, 10**9, rows).astype("datetime64[s]"))
    keys = [
        single_key("text", *encode_column(text)),
        single_key("numbers", *encode_column(numbers)),
        single_key("times", *encode_column(times)),
        compound_key(["text", "numbers"], [encode_column(text), encode_column(numbers)]),
    ]
    for key in keys:
        codes = np.unique(key.codes[key.codes >= 0])
        some = codes[:: 2 if len(codes) > 2 * MAX_LISTED else 1]
        assert key_scope(key, some, {"rows": rows}) == scope_of(key.labels(some), {"rows": rows}), key.name


def test_sorted_text_sorts_by_code_point_with_and_without_duckdb(monkeypatch: pytest.MonkeyPatch) -> None:
    values = [*_variants(random.Random(7), 2000), "B", "a", "\U0001f600", "\uffff", "\x00"]
    with_duckdb = sorted_text(pa.array(values)).to_pylist()
    real_import = builtins.__import__

    def no_duckdb(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "duckdb":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_duckdb)
    without = sorted_text(pa.array(values)).to_pylist()
    assert with_duckdb == without == sorted(values)


@settings(max_examples=examples(200), deadline=None)
@given(
    prefix=st.sampled_from(["", "src-", "w-00", "a"]),
    rests=st.lists(st.text(alphabet="aZ09- ~\x01\x7f\x00é", max_size=10), min_size=2, max_size=60),
)
def test_text_order_sorts_as_sorted_does_by_words_or_else(prefix: str, rests: list[str]) -> None:
    """Short ASCII ids sort as 64-bit words; a NUL, a non-ASCII character or a long rest takes the other path."""
    values = [prefix + r for r in rests]
    order = text_order(pa.array(values))
    assert [values[i] for i in order] == sorted(values)
    sliced = pa.array(["zz", *values]).slice(1)  # an array at an offset into its buffers
    assert [values[i] for i in text_order(sliced)] == sorted(values)


def test_ids_sharing_a_prefix_sort_as_words() -> None:
    values = [f"src-{i:07d}" for i in range(5000, 0, -7)] + ["src-", "src-1", "src-10"]
    assert _packed(pa.array(values)) is not None  # the fast path is the one tested here
    assert sorted_text(pa.array(values)).to_pylist() == sorted(values)
    for other in (["a\x00", "a"], ["é", "e"], ["x" * 9, "y"]):  # NUL, non-ASCII, a rest past 8 bytes
        assert _packed(pa.array(other)) is None
        assert sorted_text(pa.array(other)).to_pylist() == sorted(other)


@settings(max_examples=examples(50), deadline=None)
@given(
    prefix=st.sampled_from(["", "src-", "W-00", "a"]),
    rests=st.lists(
        st.text(alphabet='aZ09- ~\x01\x7f"\\', max_size=8), min_size=MAX_LISTED + 1, max_size=3 * MAX_LISTED
    ),
)
def test_short_ascii_values_are_digested_from_their_words_as_scope_of_digests_them(
    prefix: str, rests: list[str]
) -> None:
    """Short ASCII values (ids, codes) are digested from their 64-bit words, upper case and repeats folded, values
    that are prefixes of others included; a quote, a backslash or a control character takes the general path."""
    values = list(dict.fromkeys(prefix + r for r in rests))
    assert text_scope(pa.array(values)) == scope_of(values)


def test_the_words_digest_is_the_path_taken_for_ids_and_refuses_what_json_escapes() -> None:
    from auditor.manifest.spelling import normalise

    ids = [f"SRC-{i:07d}" for i in range(3 * MAX_LISTED, 0, -1)] + ["SRC-", "src-1", "src-0000001"]
    normal = normalise(pa.array(ids), fingerprint=True)
    found = _packed_digest(normal)
    assert found is not None  # the fast path is the one compared here
    assert found == (len(ids) - 1, scope_of(ids).digest)  # src-0000001 is SRC-0000001; SRC- and src-1 stay apart
    for odd in ('a"b', "a\\b", "a\x1fb"):
        assert _packed_digest(normalise(pa.array([*ids, odd]), fingerprint=True)) is None


# -- scopes of many subsets of one key's values (KeyScopes) --------------------------------------------------

# Spellings that are one value and lookalikes that are not, so subsets merge some values and keep others.
EXTRA = {
    "W1",
    " w1",
    "ß",
    "ss",
    "a  b",
    "a b",
    "a\tb",
    "007",
    "7",
    "x\x1fy",
    'q"',
    "b\\s",
    "l\nf",
    "1.1",
    "1.10",
    "A+",
}  # JSON escapes too
TEXTS = sorted({t for pair in SPELLING_VARIANT_KINDS + DIFFERENT_LOOKALIKES for t in pair} | EXTRA)


@settings(max_examples=examples(150), deadline=None)
@given(
    values=st.lists(st.sampled_from(TEXTS) | st.text(max_size=4), min_size=1, max_size=40, unique=True),
    data=st.data(),
)
def test_a_subset_scopes_as_scope_of_its_labels(values: list[str], data: st.DataObject) -> None:
    key = single_key("k", np.arange(len(values), dtype=np.int32), pa.array(values, pa.string()))
    covered = np.array(sorted(data.draw(st.sets(st.integers(0, len(values) - 1)))), dtype=np.int64)
    scopes = KeyScopes.of(key, covered)
    subset = data.draw(st.lists(st.sampled_from(covered.tolist()), unique=True) if len(covered) else st.just([]))
    codes = np.array(subset, dtype=np.int64)  # in any order: the first spelling is the first given
    counts = {"groups": len(subset)}
    assert scopes.scope(codes, counts) == scope_of(key.labels(codes), counts)


def test_past_max_listed_only_the_digest_is_kept_as_scope_of_keeps_it() -> None:
    labels = [f"v{i}" for i in range(MAX_LISTED + 5)] + ["V3", "v 3", "$v3$", "?v3", "C++", "C"]
    key = single_key("k", np.arange(len(labels), dtype=np.int32), pa.array(labels, pa.string()))
    scopes = KeyScopes.of(key, np.arange(len(labels)))
    for codes in (np.arange(len(labels)), np.arange(MAX_LISTED - 1), np.array([3, len(labels) - 2])):
        assert scopes.scope(codes) == scope_of(key.labels(codes))
    assert scopes.scope(np.arange(len(labels))).values == ()


def test_a_compound_key_scopes_by_its_joined_label() -> None:
    parts = [
        (np.array([0, 1, 0], dtype=np.int32), pa.array(["p1", "P1"], pa.string())),
        (np.array([0, 0, 1], dtype=np.int32), pa.array(["L", "R"], pa.string())),
    ]
    key = compound_key(["patient", "eye"], parts)
    codes = np.arange(key.n_values)
    assert KeyScopes.of(key, codes).scope(codes, {"groups": 3}) == scope_of(key.labels(codes), {"groups": 3})


def test_at_max_listed_normal_forms_the_first_spellings_given_are_listed() -> None:
    # More values than MAX_LISTED, but spellings of one another: MAX_LISTED normal forms, then one more.
    labels = [f"v{i}" for i in range(MAX_LISTED)] + [f"V{i}" for i in range(40)] + [f" v{i} " for i in range(9)]
    labels.append("extra")
    key = single_key("k", np.arange(len(labels), dtype=np.int32), pa.array(labels, pa.string()))
    every = np.arange(len(labels))
    scopes = KeyScopes.of(key, every)
    but_last = every[:-1]
    for codes in (but_last, but_last[::-1], np.concatenate([but_last[MAX_LISTED:], but_last[:MAX_LISTED]])):
        want = scope_of(key.labels(codes), {"groups": len(codes)})
        assert want.n_values == MAX_LISTED and want.listed
        assert scopes.scope(codes, {"groups": len(codes)}) == want
    assert scopes.scope(every) == scope_of(key.labels(every)) and scopes.scope(every).values == ()


def test_many_values_are_digested_without_a_python_string_each() -> None:
    """Past MAX_LISTED the digest of the sorted normal forms is made in Arrow: what Python allocates stays
    below what one str object a value takes (about 60 bytes for these, before the list holding them)."""
    import tracemalloc

    n = 200_000
    values = pa.array([f"src-{i:07d}" for i in range(n)])
    expected = text_scope(values)
    tracemalloc.start()
    try:
        found = text_scope(values)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found == expected and found.n_values == n
    assert peak / n < 50, f"{peak / n:.0f} bytes a value"
