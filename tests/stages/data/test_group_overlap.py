from __future__ import annotations

from itertools import combinations
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor import config_from_mapping, run_audit
from tests.conftest import AuditFn, codes, finding, write_table

ONLY = ["group_overlap"]

SEED = {
    "sid": ["a1", "a2", "b1", "b2", "t1", "t2", "t3"],
    "writer": ["writer-a", "writer-a", "writer-b", "writer-b", "writer-a", "writer-c", "writer-c"],
    "split": ["train", "train", "train", "train", "test", "test", "test"],
}


def test_seed_example_names_writer_a_with_its_rows(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit(SEED, manifest={"id": "sid"}, keys={"groups": ["writer"]}, only=ONLY)
    f = finding(r, "GRP001")
    assert f.evidence["groups"] == 1
    assert f.evidence["pairs"] == [{"splits": ["train", "test"], "groups": 1, "rows": [2, 1]}]
    assert f.examples[0]["group"] == "writer-a"
    assert f.examples[0]["splits"] == {
        "train": {"rows": 2, "first_and_last_ids": ["a1", "a2"]},
        "test": {"rows": 1, "first_and_last_ids": ["t1"]},
    }
    assert f.evidence["holdout_rows_sharing_train_groups"] == {"test": {"rows": 1, "of": 3, "share": 0.3333}}
    assert r.exit_code == 1


def test_disjoint_groups_are_clean(audit) -> None:  # type: ignore[no-untyped-def]
    data = dict(SEED, writer=["w1", "w1", "w2", "w2", "w3", "w4", "w4"])
    r = audit(data, keys={"groups": ["writer"]}, only=ONLY)
    assert codes(r) == [] and r.exit_code == 0


def test_compound_key(audit) -> None:  # type: ignore[no-untyped-def]
    data = {
        "patient": ["p1", "p1", "p2", "p1"],
        "eye": ["L", "R", "L", "R"],
        "split": ["train", "train", "test", "test"],
    }
    # p1 appears in both splits, but (p1, L) and (p1, R) are distinct units: only (p1, R) crosses.
    r = audit(data, keys={"groups": [["patient", "eye"]]}, only=ONLY)
    f = finding(r, "GRP001")
    assert f.evidence["key"] == "patient + eye" and f.examples[0]["group"] == "p1 + R"
    r2 = audit(data, keys={"groups": ["patient"]}, only=ONLY)
    assert finding(r2, "GRP001").examples[0]["group"] == "p1"


def test_holdout_holdout_overlap_is_a_warning(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"writer": ["w1", "w2", "w2"], "split": ["train", "val", "test"]}
    r = audit(data, keys={"groups": ["writer"]}, only=ONLY)
    f = finding(r, "GRP002")
    assert f.severity.value == "warning" and "GRP001" not in codes(r)
    assert r.exit_code == 0


def test_allowed_pair_is_info_and_does_not_fail(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"writer": ["w1", "w1", "w2"], "split": ["train", "val", "test"]}
    r = audit(data, keys={"groups": ["writer"]}, splits={"allow": [["train", "val"]]}, only=ONLY)
    assert codes(r) == ["GRP003"] and r.exit_code == 0


def test_three_splits_get_a_matrix(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"writer": ["w1", "w2", "w1", "w2", "w3"], "split": ["train", "train", "val", "test", "test"]}
    r = audit(data, keys={"groups": ["writer"]}, only=ONLY)
    f = finding(r, "GRP001")
    matrix = f.tables[1]
    assert matrix.columns == ("", "train", "val", "test")
    assert matrix.rows[0] == ("train", "—", 1, 1)
    assert f.evidence["groups"] == 2


def test_accepted_value_is_shown_not_failing(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit(
        SEED,
        keys={"groups": ["writer"]},
        only=ONLY,
        accept=[{"code": "GRP001", "key": "writer-a", "reason": "calibration writer by design"}],
    )
    assert r.exit_code == 0
    (f,) = r.findings
    assert f.accepted and f.accept_reason == "calibration writer by design" and f.key == "writer-a"


def test_a_compound_value_whose_part_holds_a_plus_is_accepted_only_as_named(audit) -> None:  # type: ignore[no-untyped-def]
    """("a + b", "c") and ("a", "b + c") joined by " + " read alike: accepting one must not cover the other."""
    data = {"patient": ["a + b", "q", "a + b"], "eye": ["c", "r", "c"], "split": ["train", "train", "test"]}
    keys = {"groups": [["patient", "eye"]]}
    other = audit(data, keys=keys, only=ONLY, accept=[{"code": "GRP001", "key": ["a", "b + c"], "reason": "ok"}])
    assert other.exit_code == 1 and finding(other, "GRP001").examples[0]["group"] == '["a + b", "c"]'
    named = audit(data, keys=keys, only=ONLY, accept=[{"code": "GRP001", "key": ["a + b", "c"], "reason": "ok"}])
    assert named.exit_code == 0 and [f.key for f in named.findings if f.accepted] == ['["a + b", "c"]']


TWO_KEYS = {
    "writer": ["x1", "x1", "w2", "w3"],
    "source": ["s1", "s2", "x1", "x1"],
    "split": ["train", "test", "train", "test"],
}


def test_an_accepted_value_of_one_column_does_not_cover_it_in_another(audit) -> None:  # type: ignore[no-untyped-def]
    """Writer x1 was reviewed; source x1 was not: the entry naming its column accepts the writer only."""
    entry = {"code": "GRP001", "key": "x1", "column": "writer", "reason": "calibration writer"}
    r = audit(TWO_KEYS, keys={"groups": ["writer", "source"]}, only=ONLY, accept=[entry])
    assert [(f.evidence["key"], f.accepted) for f in r.findings if f.code == "GRP001"] == [
        ("writer", True),
        ("source", False),
    ]
    assert r.exit_code == 1 and "ACC004" not in codes(r)


def test_a_key_naming_the_column_with_values_accepts_those_values_of_it(audit) -> None:  # type: ignore[no-untyped-def]
    """`key: writer, values: [...]` names the column and its reviewed values (as `column:` with them): those are
    accepted, a value not listed escalates, a listed value that does not leak is ACC003; without values the
    entry would accept every later value (ACC002), for a compound key's columns alike."""
    data = {"writer": ["w1", "w1", "w2", "w2", "w3"], "split": ["train", "test", "train", "test", "train"]}

    def judged(values: list[str] | None, rows: dict[str, list[str]] = data, key: str = "writer") -> list[str]:
        entry = {"code": "GRP001", "key": key, **({"values": values} if values else {}), "reason": "calibration"}
        groups = {"groups": [["writer", "source"]]} if key != "writer" else {"groups": ["writer"]}
        r = audit(rows, keys=groups, only=ONLY, accept=[entry])
        return [f"{f.code}{'+' if f.accepted else ''}" for f in r.findings if f.code.startswith(("GRP00", "ACC"))]

    assert judged(["w1", "w2"]) == ["GRP001+"]
    assert judged(["w1"]) == ["GRP001"]  # w2 leaks too, unreviewed
    assert judged(["w1", "w2", "w9"]) == ["GRP001+", "ACC003"]
    assert judged(None) == ["GRP001", "ACC002"]
    compound = {**data, "source": ["s1", "s1", "s2", "s2", "s3"]}
    assert judged(["w1 + s1", "w2 + s2"], compound, "writer + source") == ["GRP001+"]
    assert judged(None, compound, "writer + source") == ["GRP001", "ACC002"]


def test_a_value_of_two_columns_named_without_one_is_accepted_in_neither(audit) -> None:  # type: ignore[no-untyped-def]
    entry = {"code": "GRP001", "key": "x1", "reason": "calibration writer"}
    r = audit(TWO_KEYS, keys={"groups": ["writer", "source"]}, only=ONLY, accept=[entry])
    assert [f.accepted for f in r.findings if f.code == "GRP001"] == [False, False] and r.exit_code == 1
    acc = finding(r, "ACC004")
    assert acc.evidence["columns"] == ["source", "writer"] and "column:" in acc.message
    assert "ACC001" not in codes(r)  # it matched: not stale as well
    # A value of one column's findings only still needs no column (the existing configs keep working).
    alone = audit(
        dict(TWO_KEYS, source=["s1", "s2", "s3", "s4"]),
        keys={"groups": ["writer", "source"]},
        only=ONLY,
        accept=[entry],
    )
    assert alone.exit_code == 0 and "ACC004" not in codes(alone)


def test_a_compound_keys_columns_are_named_as_a_list(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"patient": ["p1", "p1", "q"], "eye": ["l", "l", "r"], "split": ["train", "test", "train"]}
    keys = {"groups": [["patient", "eye"]]}
    entry = {"code": "GRP001", "key": ["p1", "l"], "column": ["patient", "eye"], "reason": "reviewed"}
    assert audit(data, keys=keys, only=ONLY, accept=[entry]).exit_code == 0
    other = dict(entry, column=["eye", "patient"])  # the columns in another order name another key
    assert audit(data, keys=keys, only=ONLY, accept=[other]).exit_code == 1


def test_a_column_the_value_is_not_found_in_accepts_nothing_and_is_stale(audit) -> None:  # type: ignore[no-untyped-def]
    """Source x1 was reviewed; x1 now leaks as a writer only: the entry accepts nothing and is stale."""
    entry = {"code": "GRP001", "key": "x1", "column": "source", "reason": "another column"}
    data = dict(TWO_KEYS, source=["s1", "s2", "s3", "s4"])
    r = audit(data, keys={"groups": ["writer", "source"]}, only=ONLY, accept=[entry])
    assert not finding(r, "GRP001").accepted and "ACC001" in codes(r) and r.exit_code == 1


def test_a_spelling_accepted_without_a_column_in_two_columns_still_fails(audit) -> None:  # type: ignore[no-untyped-def]
    """w2/W2 in both columns across train and test: unaccepted, the spelling leak counts as an error again."""
    data = {"writer": ["w2", "W2", "a"], "source": ["w2", "W2 ", "b"], "split": ["train", "test", "train"]}
    keys = {"groups": ["writer", "source"]}
    bare = audit(data, keys=keys, only=ONLY, accept=[{"code": "GRP005", "key": "w2", "reason": "r"}])
    assert bare.exit_code == 1 and "ACC004" in codes(bare)
    assert {(f.evidence["key"], f.severity.value, f.accepted) for f in bare.findings if f.code == "GRP005"} == {
        ("writer", "error", False),
        ("source", "error", False),
    }
    named = audit(
        data,
        keys=keys,
        only=ONLY,
        accept=[
            {"code": "GRP005", "key": "w2", "column": c, "values": ["w2", spelled], "reason": "r"}
            for c, spelled in (("writer", "W2"), ("source", "W2 "))
        ],
    )
    assert named.exit_code == 0 and all(f.accepted for f in named.findings if f.code == "GRP005")


def test_accepting_one_value_keeps_the_others(audit) -> None:  # type: ignore[no-untyped-def]
    data = dict(SEED, writer=["w1", "w1", "w2", "w2", "w1", "w2", "w3"])
    r = audit(
        data,
        keys={"groups": ["writer"]},
        only=ONLY,
        accept=[{"code": "GRP001", "key": "w1", "reason": "reviewed"}],
    )
    live = finding(r, "GRP001")
    assert live.evidence["groups"] == 1 and live.examples[0]["group"] == "w2"
    assert [f.key for f in r.findings if f.accepted] == ["w1"]
    assert r.exit_code == 1


def test_stale_accept_entry_is_reported(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit(
        SEED,
        keys={"groups": ["writer"]},
        only=ONLY,
        accept=[{"code": "GRP001", "key": "writer-z", "reason": "old"}],
    )
    assert "ACC001" in codes(r)


def test_rows_without_a_group_value(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit(
        {"writer": ["w1", None, "w2"], "split": ["train", "test", "test"]},
        keys={"groups": ["writer"]},
        only=ONLY,
    )
    assert finding(r, "GRP004").evidence["rows_per_split"] == {"test": 1}


def test_skips_without_group_keys(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit(SEED, only=ONLY)
    (result,) = r.stages
    assert result.status == "skipped" and "keys.groups" in (result.skip_reason or "")


# -- property: the stage agrees with a brute-force reference -------------------------------------------

SPLITS = ["train", "val", "test"]


def brute_force(rows: list[tuple[str, str]]) -> dict[tuple[str, str], set[str]]:
    """Per split pair, the set of groups present in both; written independently of the stage."""
    where: dict[str, set[str]] = {}
    for group, split in rows:
        where.setdefault(group, set()).add(split)
    out: dict[tuple[str, str], set[str]] = {}
    for a, b in combinations(SPLITS, 2):
        shared = {g for g, s in where.items() if a in s and b in s}
        if shared:
            out[(a, b)] = shared
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(st.sampled_from(["g0", "g1", "g2", "g3", "g4"]), st.sampled_from(SPLITS)),
        min_size=1,
        max_size=30,
    )
)
def test_matches_brute_force(tmp_path: Path, rows: list[tuple[str, str]]) -> None:
    write_table(tmp_path / "m.parquet", pd.DataFrame(rows, columns=["writer", "split"]))
    loaded = config_from_mapping(
        {"manifest": {"path": "m.parquet", "split": "split"}, "keys": {"groups": ["writer"]}}, tmp_path
    )
    report = run_audit(loaded, only=ONLY)
    expected = brute_force(rows)
    got: dict[frozenset[str], int] = {}
    for f in report.findings:
        for pair in f.evidence.get("pairs", []):
            got[frozenset(pair["splits"])] = pair["groups"]
    assert got == {frozenset(k): len(v) for k, v in expected.items()}
    train_test = {g for k, v in expected.items() if "train" in k for g in v}
    grp001 = [f for f in report.findings if f.code == "GRP001"]
    assert bool(grp001) == bool(train_test)
    if grp001:
        assert grp001[0].evidence["groups"] == len(train_test)


def test_entirely_null_key_column_is_an_error(audit) -> None:  # type: ignore[no-untyped-def]
    """A declared key that checks nothing cannot vouch for the split: it fails rather than pass unseen."""
    r = audit({"writer": [None, None], "split": ["train", "test"]}, keys={"groups": ["writer"]}, only=ONLY)
    f = finding(r, "GRP004")
    assert f.severity.value == "error" and "empty" in f.message and r.exit_code == 1


def test_a_key_empty_on_one_whole_side_is_an_error_and_a_few_gaps_are_not(audit) -> None:  # type: ignore[no-untyped-def]
    keys = {"groups": ["writer"]}
    blind = audit({"writer": ["a", "b", None, ""], "split": ["train", "train", "test", "val"]}, keys=keys, only=ONLY)
    f = finding(blind, "GRP004")
    assert f.severity.value == "error" and "in every holdout row" in f.message and blind.exit_code == 1
    gaps = audit({"writer": ["a", None, "c", "d"], "split": ["train", "train", "test", "val"]}, keys=keys, only=ONLY)
    assert finding(gaps, "GRP004").severity.value == "info" and gaps.exit_code == 0
    untrained = audit({"writer": [None, None, "c"], "split": ["train", "train", "test"]}, keys=keys, only=ONLY)
    assert "in every train row" in finding(untrained, "GRP004").message and untrained.exit_code == 1


def test_accepting_a_holdout_overlap_does_not_hide_a_train_leak(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit(
        SEED,
        keys={"groups": ["writer"]},
        only=ONLY,
        accept=[{"code": "GRP002", "key": "writer-a", "reason": "val/test sharing is fine"}],
    )
    assert finding(r, "GRP001").examples[0]["group"] == "writer-a"
    assert "ACC001" in codes(r) and r.exit_code == 1


def test_accepting_a_train_leak_keeps_the_holdout_overlap(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"writer": ["w1", "w1", "w1"], "split": ["train", "val", "test"]}
    r = audit(
        data,
        keys={"groups": ["writer"]},
        only=ONLY,
        accept=[{"code": "GRP001", "key": "w1", "reason": "calibration writer"}],
    )
    assert [f.code for f in r.findings if f.accepted] == ["GRP001"]
    assert finding(r, "GRP002").evidence["groups"] == 1


SPELLINGS = [
    ("a", "a "),
    ("w1", "w1 "),
    ("W1", "w1 "),
    ("w2", "W2"),
    ("9f86d0", "9F86D0"),
    ("Jos\u00e9", "Jose\u0301"),
    ("1.0", "1"),
    ("7", "7.0"),
    ("1.10", "+01.10"),
    ('"deep."', "deep"),
    ("(A+)", "A+"),
    ("John Smith", "John  Smith"),  # a run of spaces or a tab inside a value is one space
    ("John Smith", "John\tSmith"),
]


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize(("a", "b"), SPELLINGS)
def test_group_spelled_two_ways_across_train_and_test(audit, fmt: str, a: str, b: str) -> None:  # type: ignore[no-untyped-def]
    data = {"writer": [a, "w1x", b, "w10"], "split": ["train", "train", "test", "test"]}
    r = audit(data, fmt=fmt, keys={"groups": ["writer"]}, only=ONLY)
    f = finding(r, "GRP005")
    # One writer spelt two ways in train and test is a shared writer: it fails like GRP001 does.
    assert f.severity.value == "error" and f.evidence["pairs"] == {"train|test": 1} and r.exit_code == 1
    assert [s["spelling"] for s in f.examples[0]["spellings"]] == [a, b]
    assert "GRP001" not in codes(r)


def test_a_group_spelled_two_ways_in_two_holdout_splits_is_a_warning(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"writer": ["w9", "w1", "W1"], "split": ["train", "val", "test"]}
    r = audit(data, keys={"groups": ["writer"]}, only=ONLY)
    f = finding(r, "GRP005")
    assert f.severity.value == "warning" and f.evidence["pairs"] == {"val|test": 1} and r.exit_code == 0


def test_spelling_variant_already_shared_exactly_is_not_repeated(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"writer": ["w2", "w2", "W2", "w1"], "split": ["train", "test", "test", "test"]}
    r = audit(data, keys={"groups": ["writer"]}, only=ONLY)
    assert codes(r) == ["GRP001"]


DEEP = {  # 'Deep' spans train and test exactly; two more test rows write it '(deeP)' and '?deep'
    "sid": [f"r{i}" for i in range(14)],
    "writer": ["Deep"] * 4 + ["other"] * 2 + ["Deep"] * 6 + ["(deeP)", "?deep"],
    "split": ["train"] * 6 + ["test"] * 8,
    "fold": [0, 1, 0, 1, 0, 1] + [None] * 8,
}


def test_a_shared_values_rows_under_other_spellings_are_counted_as_its_rows(audit) -> None:  # type: ignore[no-untyped-def]
    data = {k: v for k, v in DEEP.items() if k != "fold"}
    f = finding(audit(data, manifest={"id": "sid"}, keys={"groups": ["writer"]}, only=ONLY), "GRP001")
    assert f.evidence["holdout_rows_sharing_train_groups"] == {"test": {"rows": 8, "of": 8, "share": 1.0}}


def test_a_value_shared_under_two_spellings_counts_its_rows_once(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"writer": ["Deep", "deep", "w1", "Deep", "deep", "DEEP", "w2"], "split": ["train"] * 3 + ["test"] * 4}
    f = finding(audit(data, keys={"groups": ["writer"]}, only=ONLY), "GRP001")
    assert f.evidence["groups"] == 2  # each exact spelling is shared
    assert f.evidence["holdout_rows_sharing_train_groups"] == {"test": {"rows": 3, "of": 4, "share": 0.75}}


def test_a_shared_values_rows_under_other_spellings_count_beside_folds_too(audit) -> None:  # type: ignore[no-untyped-def]
    manifest = {"id": "sid", "split": "split", "folds": "fold"}
    r = audit(DEEP, manifest=manifest, keys={"groups": ["writer"]}, splits={"train": ["train"]}, only=ONLY)
    test = next(f for f in r.findings if f.code == "GRP001" and f.evidence["fold"] == "test")
    assert (test.evidence["holdout_rows_sharing_train_groups"], test.evidence["holdout_rows"]) == (8, 8)


def test_different_groups_and_train_only_variants_are_clean(audit) -> None:  # type: ignore[no-untyped-def]
    writers = ["w1", "W1", "A-1", "1e3", "0x10", "w10", "w11", "w01", "A1", "1001", "16"]
    data = {"writer": writers, "split": ["train"] * 5 + ["test"] * 6}
    r = audit(data, keys={"groups": ["writer"]}, only=ONLY)
    assert codes(r) == []


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("A+", "A-"),  # blood types, grades: a symbol at the end is part of the value
        ("A+", "A"),
        ("C++", "C"),
        ("C#", "C"),
        ("5%", "5"),
        ("$5", "5"),
        ("1.1", "1.10"),  # dotted ids (subject.session): the tenth session is not the first
        ("0.5", "0.50"),
    ],
)
def test_values_apart_by_an_end_symbol_or_a_fractions_digits_are_two_groups(audit: AuditFn, a: str, b: str) -> None:
    data = {"writer": [a, "w1", b, "w2"], "split": ["train", "train", "test", "test"]}
    r = audit(data, keys={"groups": ["writer"]}, only=ONLY)
    assert codes(r) == [] and r.exit_code == 0


def test_compound_group_spelling(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"patient": ["p1", "P1 ", "p2"], "eye": ["L", "l", "L"], "split": ["train", "test", "test"]}
    r = audit(data, keys={"groups": [["patient", "eye"]]}, only=ONLY)
    f = finding(r, "GRP005")
    assert f.examples[0]["value"] == "p1 + l"
    assert [s["spelling"] for s in f.examples[0]["spellings"]] == ["p1 + L", "P1  + l"]


def test_accepted_group_spelling(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"writer": ["w2", "W2", "a", "A"], "split": ["train", "test", "train", "val"]}
    accept = [{"code": "GRP005", "key": "W2", "values": ["w2", "W2"], "reason": "two writers who share initials"}]
    r = audit(data, keys={"groups": ["writer"]}, accept=accept, only=ONLY)
    assert finding(r, "GRP005").evidence["values"] == 1
    assert [f.key for f in r.findings if f.accepted] == ["W2"]


def test_an_accepted_dotted_value_does_not_cover_another_the_checks_keep_apart(audit) -> None:  # type: ignore[no-untyped-def]
    """Writers `1.1` and `1.10` are two groups to the checks (a dotted id's digits are written): accepting `1.1`
    leaves `1.10`'s leak failing; an entry naming both, however spelled (`1.10 `), accepts both."""
    data = {"writer": ["1.10", "1.10", "1.1", "1.1"], "split": ["train", "test", "train", "test"]}
    keys = {"groups": ["writer"]}
    one = audit(data, keys=keys, only=ONLY, accept=[{"code": "GRP001", "key": "1.1", "reason": "calibration"}])
    assert one.exit_code == 1
    assert sorted((f.scope.values, f.accepted) for f in one.findings if f.code == "GRP001") == [
        (("1.1",), True),
        (("1.10",), False),
    ]
    both = [{"code": "GRP001", "key": k, "reason": "calibration"} for k in ("1.1", "1.10 ")]
    assert audit(data, keys=keys, only=ONLY, accept=both).exit_code == 0
    listed = [{"code": "GRP001", "values": ["1.10", "1.1"], "reason": "calibration"}]
    assert audit(data, keys=keys, only=ONLY, accept=listed).exit_code == 0


def test_a_shared_placeholder_value_is_still_a_finding_whose_fix_says_to_write_it_blank(audit) -> None:  # type: ignore[no-untyped-def]
    """`N/A` in train and test is found as written (it may be a real group), and the fix names the blank cell."""
    data = {"writer": ["N/A", "N/A", "w1", "w2"], "split": ["train", "test", "train", "test"]}
    r = audit(data, keys={"groups": ["writer"]}, only=ONLY)
    f = finding(r, "GRP001")
    assert r.exit_code == 1 and "writer 'N/A' may stand for a missing value" in f.remediation
    assert "write it blank" in f.remediation
    real = audit(dict(data, writer=["w9", "w9", "w1", "w2"]), keys={"groups": ["writer"]}, only=ONLY)
    assert "may stand for a missing" not in finding(real, "GRP001").remediation
    blank = audit(dict(data, writer=["", "", "w1", "w2"]), keys={"groups": ["writer"]}, only=ONLY)
    assert "GRP001" not in codes(blank) and blank.exit_code == 0  # what the fix says holds


def test_a_value_is_ambiguous_only_where_two_columns_hold_it_as_the_checks_compare(audit) -> None:  # type: ignore[no-untyped-def]
    """Writer 1.1 and source 1.10 are two values: an entry naming 1.1 and no column accepts the writer alone."""
    data = {"writer": ["1.1", "1.1", "w2", "w3"], "source": ["s1", "s2", "1.10", "1.10"], "split": TWO_KEYS["split"]}
    entry = {"code": "GRP001", "key": "1.1", "reason": "reviewed"}
    r = audit(data, keys={"groups": ["writer", "source"]}, only=ONLY, accept=[entry])
    assert {(f.evidence["key"], f.accepted) for f in r.findings if f.code == "GRP001"} == {
        ("writer", True),
        ("source", False),
    }
    assert "ACC004" not in codes(r)


def test_a_group_spelling_accepted_escalates_when_a_new_spelling_appears(audit) -> None:  # type: ignore[no-untyped-def]
    """alice / Alice reviewed as two people: a third spelling, `ALICE `, may be either, so it is not accepted."""
    data = {"writer": ["alice", "Alice", "b"], "split": ["train", "test", "train"]}
    entry = {"code": "GRP005", "key": "alice", "column": "writer", "values": ["alice", "Alice"], "reason": "r"}
    assert audit(data, keys={"groups": ["writer"]}, accept=[entry], only=ONLY).exit_code == 0
    grown = {"writer": [*data["writer"], "ALICE "], "split": [*data["split"], "test"]}
    report = audit(grown, keys={"groups": ["writer"]}, accept=[entry], only=ONLY)
    spelled = finding(report, "GRP005")
    assert report.exit_code == 1 and spelled.escalated is not None and spelled.escalated.new_values == ("ALICE ",)
    bare = audit(data, keys={"groups": ["writer"]}, accept=[{**entry, "values": None}], only=ONLY)
    assert bare.exit_code == 1 and "ACC002" in codes(bare)
