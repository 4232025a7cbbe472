"""shared_upstream links rows through values that differ only by spelling, as group_overlap, UPS005 and
duplicate_content judge them one value: a leak through `W1` beside `w1` (or a digest in upper case, or with its
`sha256:` prefix) is a link, and the chain shows both spellings as written."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from auditor.cli import app
from auditor.core.config import load_config
from auditor.manifest.table import load_manifest
from tests.conftest import AuditFn, codes, finding, write_table

ONLY = ["shared_upstream"]
SHA = hashlib.sha256(b"test").hexdigest()  # 9f86d081...: a sha256 digest, 64 hex digits
SHA3 = hashlib.sha3_256(b"test").hexdigest()


def _run(tmp_path: Path, rows: str, config: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """`audit run audit.yaml --out DIR` (every stage that applies) on a CSV manifest: the exit code and the
    findings by code; an exit of 1 must come from shared_upstream's UPS001 alone."""
    (tmp_path / "m.csv").write_text(rows)
    (tmp_path / "audit.yaml").write_text(
        yaml.safe_dump({"version": 1, "manifest": {"path": "m.csv", "id": "id", "split": "split"}, **config})
    )
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", str(tmp_path / "audit.yaml"), "--out", str(out)])
    report = json.loads((out / "report.json").read_text())
    findings = [f for s in report["stages"] for f in s["findings"]]
    errors = {f["code"] for f in findings if f["severity"] == "error"}
    assert errors == ({"UPS001"} if result.exit_code == 1 else set()), result.output
    return result.exit_code, {f["code"]: f for f in findings}


def _chain_spellings(found: dict[str, Any]) -> list[list[str]]:
    """The spellings each hop of the finding's first example chain names (two when the rows differ)."""
    steps = found["examples"][0]["chains"][0]["steps"]
    return [s["spellings"] for s in steps if s.get("spellings")]


ALLOWED_PAIRS = {"splits": {"allow": [["train", "val"], ["val", "test"]]}}
REPRO = "id,split,writer,doc\na1,train,w1,d1\nb1,val,W1,d3\nc1,test,w9,d3\n"


def test_a_chain_through_a_group_spelled_two_ways_fails_across_allowed_pairs(tmp_path: Path) -> None:
    """a1 (train) and b1 (val) share writer w1 / W1, b1 and c1 (test) document d3: train and test are linked."""
    code, found = _run(tmp_path, REPRO, {**ALLOWED_PAIRS, "keys": {"groups": ["writer"], "sources": ["doc"]}})
    assert code == 1
    assert found["UPS001"]["examples"][0]["chain_text"] == "test c1 —doc d3— val b1 —writer W1 / w1— train a1"
    assert _chain_spellings(found["UPS001"]) == [["W1", "w1"]]
    assert "W1 / w1" in found["UPS001"]["message"]


def test_the_same_chain_spelled_alike_still_fails(tmp_path: Path) -> None:
    code, found = _run(
        tmp_path, REPRO.replace("W1", "w1"), {**ALLOWED_PAIRS, "keys": {"groups": ["writer"], "sources": ["doc"]}}
    )
    assert code == 1 and "UPS001" in found
    assert _chain_spellings(found["UPS001"]) == []  # one spelling: nothing more to show


def test_a_chain_through_a_split_neither_train_nor_holdout_fails(tmp_path: Path) -> None:
    rows = REPRO.replace("b1,val", "b1,unlabeled")
    config = {"splits": {"train": ["train"], "holdout": ["test"]}, "keys": {"groups": ["writer"], "sources": ["doc"]}}
    code, found = _run(tmp_path, rows, config)
    assert code == 1
    assert found["UPS001"]["examples"][0]["chain_text"] == "test c1 —doc d3— unlabeled b1 —writer W1 / w1— train a1"


@pytest.mark.parametrize(
    ("train", "val"),
    [("9f86d0aa", "9F86D0AA"), (SHA, f"sha256:{SHA}"), (SHA, f"SHA256:{SHA.upper()}")],
    ids=["case", "prefix", "prefix and case"],
)
def test_a_chain_through_a_digest_spelled_two_ways_fails(tmp_path: Path, train: str, val: str) -> None:
    rows = f"id,split,doc,sha\na1,train,d1,{train}\nb1,val,d3,{val}\nc1,test,d3,ffff0000\n"
    code, found = _run(tmp_path, rows, {**ALLOWED_PAIRS, "keys": {"sources": ["doc"], "content_hash": "sha"}})
    assert code == 1
    assert _chain_spellings(found["UPS001"]) == [[val, train]]


@pytest.mark.parametrize(
    ("writer", "doc"),
    [(("w1", "w1a"), ("d1", "d3")), (("w1", "w2"), ("d-1", "d1")), (("w1", "w1a"), ("d-1", "d1"))],
    ids=["writer w1 / w1a", "doc d-1 / d1", "both"],
)
def test_values_that_differ_by_more_than_spelling_link_nothing(
    tmp_path: Path, writer: tuple[str, str], doc: tuple[str, str]
) -> None:
    """`w1a` is not `w1`, nor `d-1` `d1`: a character more, or a hyphen inside, is another value."""
    rows = f"id,split,writer,doc\na1,train,{writer[0]},{doc[0]}\nb1,val,{writer[1]},d9\nc1,test,w9,{doc[1]}\n"
    code, found = _run(tmp_path, rows, {**ALLOWED_PAIRS, "keys": {"groups": ["writer"], "sources": ["doc"]}})
    assert code == 0
    assert not {"UPS001", "UPS002", "UPS004"} & set(found)


def test_digests_of_different_algorithms_link_nothing(tmp_path: Path) -> None:
    """`sha3-256:<hex>` names another algorithm's digest: never the bare sha256 with the same digits."""
    rows = f"id,split,doc,sha\na1,train,d1,{SHA}\nb1,val,d3,sha3-256:{SHA}\nc1,test,d3,{SHA3}\n"
    code, found = _run(tmp_path, rows, {**ALLOWED_PAIRS, "keys": {"sources": ["doc"], "content_hash": "sha"}})
    assert code == 0
    assert "UPS001" not in found and found["UPS004"]["evidence"]["pairs"] == [
        {"splits": ["val", "test"], "components": 1}
    ]


def test_a_value_spelled_two_ways_inside_an_allowed_pair_only_is_info(tmp_path: Path) -> None:
    """w1 / W1 link train and val, an allowed pair, and nothing reaches test: reported as info, the audit passes."""
    rows = "id,split,writer,doc\na1,train,w1,d1\nb1,val,W1,d3\nc1,test,w9,d9\n"
    code, found = _run(
        tmp_path, rows, {"splits": {"allow": [["train", "val"]]}, "keys": {"groups": ["writer"], "sources": ["doc"]}}
    )
    assert code == 0
    assert "UPS001" not in found and "UPS002" not in found
    assert _chain_spellings(found["UPS004"]) == [["W1", "w1"]]


def _writers(n: int = 60) -> dict[str, list[str]]:
    """A writer key coded from its few distinct values (each repeated), not row by row; test rows spell w1 and w2
    otherwise, and w3's test row is `w3a` (another writer)."""
    writer = [f"w{i % 4}" for i in range(n)]
    split = ["train"] * n
    writer += [" W1", "w\u200b2", "w3a"]
    split += ["test"] * 3
    return {"sid": [f"s{i}" for i in range(len(writer))], "writer": writer, "split": split}


def test_a_repeated_group_spelled_otherwise_in_test_is_linked(audit: AuditFn) -> None:
    data = _writers()
    data["doc"] = [f"d{i}" for i in range(len(data["writer"]))]
    r = audit(data, keys={"groups": ["writer"], "sources": ["doc"]}, manifest={"id": "sid"}, only=ONLY)
    f = finding(r, "UPS001")
    assert f.evidence["components"] == 2  # w1 and w2; w3a links nothing
    spelled = {tuple(s["spellings"]) for e in f.examples for c in e["chains"] for s in c["steps"] if "spellings" in s}
    assert spelled == {(" W1", "w1"), ("w\u200b2", "w2")}


def test_a_compound_group_spelled_otherwise_is_linked(audit: AuditFn) -> None:
    n = 40
    data = {
        "sid": [f"s{i}" for i in range(n + 1)],
        "patient": [f"p{i % 4}" for i in range(n)] + ["P1"],
        "eye": ["L" if i % 2 else "R" for i in range(n)] + ["l"],
        "doc": [f"d{i}" for i in range(n + 1)],
        "split": ["train"] * n + ["test"],
    }
    r = audit(data, keys={"groups": [["patient", "eye"]], "sources": ["doc"]}, manifest={"id": "sid"}, only=ONLY)
    assert finding(r, "UPS001").examples[0]["chain_text"].endswith("—patient + eye P1 + l / p1 + L— train s1")


def test_a_key_with_no_variant_is_linked_through_its_shared_codes_untouched(tmp_path: Path) -> None:
    """No spelling variant, no work: the key's codes are those every stage shares, not a copy."""
    data = _writers()
    data["writer"] = [w.strip().replace("\u200b", "").lower() for w in data["writer"]]
    write_table(tmp_path / "m.csv", data)
    (tmp_path / "audit.yaml").write_text(
        yaml.safe_dump(
            {
                "version": 1,
                "manifest": {"path": "m.csv", "id": "sid", "split": "split"},
                "keys": {"groups": ["writer"]},
            }
        )
    )
    manifest = load_manifest(load_config(tmp_path / "audit.yaml"))
    key, spelled = manifest.spelled_key("writer")
    assert spelled is None and key.codes is manifest.key("writer").codes
    data["writer"][-3] = " W1"
    write_table(tmp_path / "m.csv", data)
    manifest = load_manifest(load_config(tmp_path / "audit.yaml"))
    key, spelled = manifest.spelled_key("writer")
    # With a variant the rows still keep their own codes: only the variant values are named, the graph joins them.
    assert spelled is not None and key.codes is manifest.key("writer").codes
    assert sorted(key.labels(spelled.codes)) == [" W1", "w1"]
    assert np.array_equal(spelled.group, [0, 0])


def test_a_value_held_by_one_row_is_linked_to_its_other_spelling(audit: AuditFn) -> None:
    """A mostly distinct column keeps only repeated values; a value one row holds, spelled otherwise in another
    row, is coded all the same."""
    n = 30
    data = {
        "sid": [f"s{i}" for i in range(n)],
        "writer": [f"w{i}" for i in range(n)],
        "doc": [f"doc-{i}" for i in range(n - 1)] + ["DOC-3 "],
        "split": ["train"] * (n - 1) + ["test"],
    }
    r = audit(data, keys={"groups": ["writer"], "sources": ["doc"]}, manifest={"id": "sid"}, only=ONLY)
    assert codes(r).count("UPS001") == 1
    assert finding(r, "UPS001").examples[0]["chain_text"] == "test s29 —doc DOC-3  / doc-3— train s3"
    assert finding(r, "UPS005").severity == "error"  # the spelling warning itself stays as it was


def test_cross_validation_folds_linked_through_a_spelling_variant_fail(audit: AuditFn) -> None:
    """Fold 1's W1 is fold 0's w1: each fold's holdout is linked to its training rows, the chain shows both."""
    data = {
        "sid": ["a1", "b1", "c1", "d1"],
        "writer": ["w1", "W1", "w2", "w3"],
        "doc": ["d1", "d2", "d3", "d4"],
        "fold": [0, 1, 0, 1],
    }
    r = audit(
        data, keys={"groups": ["writer"], "sources": ["doc"]}, manifest={"id": "sid", "split": None, "folds": "fold"}
    )
    found = [f for f in r.findings if f.code == "UPS001"]
    assert len(found) == 2
    assert all(f.examples[0]["chain_text"] == "fold 0 a1 —writer w1 / W1— fold 1 b1" for f in found)


def test_the_html_report_shows_both_spellings_in_the_chain(tmp_path: Path) -> None:
    """The chain's table and its figure name the value as each row writes it, not one spelling for both."""
    _run(tmp_path, REPRO, {**ALLOWED_PAIRS, "keys": {"groups": ["writer"], "sources": ["doc"]}})
    page = (tmp_path / "out" / "report.html").read_text()
    assert "writer = W1 / w1" in page
    assert re.search(r"<text[^>]*>W1 / w1</text>", page)


def test_the_catalogues_chain_through_two_spellings_is_what_the_stage_reports(tmp_path: Path) -> None:
    """docs/templates/checks.md quotes the chain the repro's allowed train-val link shows: it must be that chain."""
    from tests.test_readme import CATALOGUE, CHAIN

    section = CATALOGUE.read_text(encoding="utf-8").split("## shared_upstream\n", 1)[1].split("\n## ", 1)[0]
    (quoted,) = [" ".join(c.split()) for c in CHAIN.findall(section) if " / " in c]
    _, found = _run(tmp_path, REPRO, {**ALLOWED_PAIRS, "keys": {"groups": ["writer"], "sources": ["doc"]}})
    assert quoted in [c["text"] for e in found["UPS004"]["examples"] for c in e["chains"]]
