from __future__ import annotations

from pathlib import Path
from unittest.mock import patch

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor import config_from_mapping, run_audit
from auditor.manifest import components, linked
from tests.conftest import codes, finding, write_table

ONLY = ["shared_upstream"]

# a1 (train) shares writer w1 with b1 (val); b1 shares document d3 with c1 (test). No single key crosses
# train-test, and train-val / val-test are each allowed: only the chain links train to test.
CHAIN = {
    "sid": ["a1", "b1", "c1", "z1"],
    "writer": ["w1", "w1", "w2", "w9"],
    "document": ["d1", "d3", "d3", "d9"],
    "split": ["train", "val", "test", "test"],
}


def test_transitive_link_is_found_even_when_each_link_is_allowed(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit(
        CHAIN,
        manifest={"id": "sid"},
        keys={"groups": ["writer"], "sources": ["document"]},
        splits={"allow": [["train", "val"], ["val", "test"]]},
        only=ONLY,
    )
    f = finding(r, "UPS001")
    assert f.evidence["components"] == 1 and f.evidence["rows"] == 3
    assert f.evidence["pairs"] == [{"splits": ["train", "test"], "components": 1}]
    chain = f.examples[0]["chains"][0]["steps"]
    assert chain == [
        {"id": "c1", "split": "test"},
        {"key": "document", "value": "d3"},
        {"id": "b1", "split": "val"},
        {"key": "writer", "value": "w1"},
        {"id": "a1", "split": "train"},
    ]
    assert "test c1 —document d3— val b1 —writer w1— train a1" in f.message


def test_unlinked_rows_are_clean(audit) -> None:  # type: ignore[no-untyped-def]
    data = dict(CHAIN, document=["d1", "d2", "d3", "d4"], writer=["w1", "w2", "w3", "w4"])
    r = audit(data, keys={"groups": ["writer"], "sources": ["document"]}, only=ONLY)
    assert [c for c in codes(r) if c != "UPS003"] == [] and r.exit_code == 0


def test_largest_component_share_warns_when_it_swallows_the_data(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"doc": ["template"] * 9 + ["x"], "split": ["train"] * 5 + ["test"] * 5}
    r = audit(data, keys={"sources": ["doc"]}, only=ONLY)
    f = finding(r, "UPS003")
    assert f.severity.value == "warning" and f.evidence["largest"] == 9 and f.evidence["share"] == 0.9
    ok = audit(
        {"doc": ["a", "b", "c", "d"], "split": ["train", "train", "test", "test"]}, keys={"sources": ["doc"]}, only=ONLY
    )
    assert finding(ok, "UPS003").severity.value == "info"


def test_a_large_group_wholly_in_one_split_is_external_validation_not_a_warning(audit) -> None:  # type: ignore[no-untyped-def]
    # Hospital A trains, B and C test: 70% of the rows are one linked group, all of it on the training side.
    data = {
        "hospital": ["A"] * 70 + ["B"] * 15 + ["C"] * 15,
        "patient": [f"p{i}" for i in range(100)],
        "split": ["train"] * 70 + ["test"] * 30,
    }
    r = audit(data, keys={"groups": ["patient"], "sources": ["hospital"]}, only=ONLY)
    f = finding(r, "UPS003")
    assert f.severity.value == "info" and f.evidence["share"] == 0.7 and "wholly in train" in f.message
    assert r.exit_code == 0 and codes(r) == ["UPS003"]


def test_content_hash_column_links_rows(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"writer": ["w1", "w2"], "digest": ["abc", "abc"], "split": ["train", "test"]}
    r = audit(data, keys={"groups": ["writer"], "content_hash": "digest"}, only=ONLY)
    assert finding(r, "UPS001").evidence["rows"] == 2


# -- property: components agree with a union-find written in the test ---------------------------------

SPLITS = ["train", "val", "test"]


def components_by_union_find(rows: list[tuple[str, str, str]]) -> dict[int, int]:
    parent = list(range(len(rows)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for col in (0, 1):
        first: dict[str, int] = {}
        for i, row in enumerate(rows):
            if row[col] in first:
                parent[root(i)] = root(first[row[col]])
            else:
                first[row[col]] = i
    return {i: root(i) for i in range(len(rows))}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["w0", "w1", "w2", "w3"]),
            st.sampled_from(["d0", "d1", "d2", "d3", "d4"]),
            st.sampled_from(SPLITS),
        ),
        min_size=1,
        max_size=25,
    ),
    st.integers(min_value=1, max_value=26),
)
def test_matches_union_find(tmp_path: Path, rows: list[tuple[str, str, str]], block: int) -> None:
    write_table(tmp_path / "m.parquet", pd.DataFrame(rows, columns=["writer", "doc", "split"]))
    loaded = config_from_mapping(
        {"manifest": {"path": "m.parquet", "split": "split"}, "keys": {"groups": ["writer"], "sources": ["doc"]}},
        tmp_path,
    )
    # Rows are merged, counted and searched a block at a time: any block size gives the same groups.
    with (
        patch.object(components, "_LINK_ROWS", block),
        patch.object(components, "_BLOCK_ROWS", block),
        patch.object(linked, "_BLOCK_ROWS", block),
    ):
        report = run_audit(loaded, only=ONLY)
    comp = components_by_union_find(rows)
    splits_of: dict[int, set[str]] = {}
    for i, row in enumerate(rows):
        splits_of.setdefault(comp[i], set()).add(row[2])
    crossing_train = [c for c, s in splits_of.items() if "train" in s and s & {"val", "test"}]
    got = [f for f in report.findings if f.code == "UPS001"]
    assert bool(got) == bool(crossing_train)
    if got:
        assert got[0].evidence["components"] == len(crossing_train)
        assert got[0].evidence["rows"] == sum(1 for i in comp if comp[i] in crossing_train)
    sizes = sorted((sum(1 for i in comp if comp[i] == c) for c in set(comp.values())), reverse=True)
    largest = next(f for f in report.findings if f.code == "UPS003").evidence
    assert largest["largest"] == sizes[0]
    # Only groups of two rows or more count: a row that shares no value with another is no group.
    assert largest["components"] == sum(1 for size in sizes if size > 1)
    assert largest["linked_rows"] == sum(size for size in sizes if size > 1)


def test_a_single_group_key_is_left_to_group_overlap(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit(CHAIN, keys={"groups": ["writer"]}, only=ONLY)
    assert r.stages[0].status == "skipped" and "group_overlap" in (r.stages[0].skip_reason or "")


def test_source_spelled_two_ways_across_splits(audit) -> None:  # type: ignore[no-untyped-def]
    data = {
        "writer": ["w1", "w2", "w3"],
        "doc": ["doc-7", "doc-8", "DOC-7 "],
        "split": ["train", "train", "test"],
    }
    r = audit(data, keys={"groups": ["writer"], "sources": ["doc"]}, only=["shared_upstream"])
    f = finding(r, "UPS005")
    assert f.evidence == {"key": "doc", "values": 1, "pairs": {"train|test": 1}}
    assert [s["spelling"] for s in f.examples[0]["spellings"]] == ["doc-7", "DOC-7 "]


def test_mostly_distinct_source_spelling(audit) -> None:  # type: ignore[no-untyped-def]
    docs = [f"d{i}" for i in range(20)] + ["D3"]
    data = {"doc": docs, "w": [f"w{i}" for i in range(21)], "split": ["train"] * 20 + ["test"]}
    r = audit(data, keys={"groups": ["w"], "sources": ["doc"]}, only=["shared_upstream"])
    assert finding(r, "UPS005").examples[0]["value"] == "d3"


def test_a_near_copy_links_its_rows_like_a_shared_key(audit) -> None:  # type: ignore[no-untyped-def]
    from tests.stages.data.test_near_duplicates import join, replace_words, text

    doc = text(1)
    data = {
        "sid": ["a1", "b1", "c1", "z1"],
        "writer": ["w1", "w2", "w2", "w9"],
        "body": [join(doc), join(text(2)), join(replace_words(doc, 0.04, 3)), join(text(4))],
        "split": ["train", "val", "test", "test"],
    }
    r = audit(data, manifest={"id": "sid"}, keys={"groups": ["writer"], "text": "body"}, only=ONLY)
    f = finding(r, "UPS001")
    steps = f.examples[0]["chains"][0]["steps"]
    assert {"key": "near copy (body)", "value": "cluster 1"} in steps
    off = audit(
        data,
        manifest={"id": "sid"},
        keys={"groups": ["writer"], "text": "body"},
        stages={"near_duplicates": {"enabled": False}},
        only=ONLY,
    )
    assert "UPS001" not in codes(off)


def test_a_text_column_alone_with_no_near_copies_links_nothing_and_passes(audit) -> None:  # type: ignore[no-untyped-def]
    from tests.stages.data.test_near_duplicates import join, text

    data = {"body": [join(text(i)) for i in range(4)], "split": ["train", "train", "test", "test"]}
    r = audit(data, keys={"text": "body"}, only=ONLY)
    assert r.exit_code == 0 and [s.status for s in r.stages] == ["passed"]
    off = audit(data, keys={"text": "body"}, stages={"near_duplicates": {"enabled": False}}, only=ONLY)
    assert off.exit_code == 0


def test_a_manifest_whose_rows_have_no_split_is_audited_not_an_error(audit) -> None:  # type: ignore[no-untyped-def]
    one = {"sid": ["a"], "split": [""], "document": ["d1"]}
    two = {"sid": ["a", "b"], "split": [None, ""], "document": ["d1", "d1"]}
    for rows in (one, two):
        r = audit(rows, fmt="parquet", manifest={"id": "sid"}, keys={"sources": ["document"]}, only=ONLY)
        assert [(s.status, s.error) for s in r.stages] == [("passed", None)] and "UPS001" not in codes(r)


def test_a_link_through_a_placeholder_is_still_found_and_its_fix_says_to_write_it_blank(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"document": ["null", "null", "d2", "d3"], "split": ["train", "test", "train", "test"]}
    r = audit(data, keys={"sources": ["document"]}, only=ONLY)
    f = finding(r, "UPS001")
    assert r.exit_code == 1 and "document 'null' may stand for a missing value" in f.remediation
    real = audit(dict(data, document=["d1", "d1", "d2", "d3"]), keys={"sources": ["document"]}, only=ONLY)
    assert "may stand for a missing value" not in finding(real, "UPS001").remediation
