"""The support-tickets sample: its three planted copies are found by the right measure, and nothing else is."""

from __future__ import annotations

import difflib
import importlib.util
import re
from types import ModuleType

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

from auditor import load_config, run_audit
from auditor.core.findings import Report
from tests.conftest import REPO, codes, finding

SAMPLE = REPO / "sample_data" / "support_tickets"
# (holdout ticket, training ticket, measure that must catch the pair)
PLANTED = {
    ("SB-4404", "SB-4121", "resemblance"),  # re-sent with a new greeting and a few words changed
    ("SB-4305", "SB-4211", "containment"),  # a short follow-up quoting most of the earlier ticket
    ("SB-4440", "SB-4263", "resemblance"),  # submitted again in lower case, without punctuation
}


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_tickets", SAMPLE / "make_tickets.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.lower())


@pytest.fixture(scope="module")
def report() -> Report:
    return run_audit(load_config(SAMPLE / "audit.yaml"), only=["near_duplicates"])


def _pairs(report: Report) -> dict[tuple[str, str, str], float]:
    f = finding(report, "NDP001")
    return {(e["holdout"], e["near"], e["measure"]): e["similarity"] for e in f.examples}


def test_the_manifest_is_what_the_builder_writes_and_reads_alike_with_pandas_and_pyarrow() -> None:
    expected = pd.DataFrame(_builder().rows())
    with_pandas = pd.read_csv(SAMPLE / "manifest.csv", dtype=str, keep_default_na=False)
    as_text = pacsv.ConvertOptions(column_types=dict.fromkeys(expected.columns, pa.string()))
    with_arrow = pacsv.read_csv(SAMPLE / "manifest.csv", convert_options=as_text).to_pandas()
    pd.testing.assert_frame_equal(with_pandas, expected)
    pd.testing.assert_frame_equal(with_arrow, expected)
    assert with_pandas["split"].value_counts().to_dict() == {"train": 28, "val": 6, "test": 6}
    assert with_pandas["body"].str.contains("\n").any() and with_pandas["body"].str.contains('"').any()


def test_the_re_sent_ticket_differs_in_about_five_percent_of_its_words() -> None:
    bodies = pd.read_csv(SAMPLE / "manifest.csv", index_col="ticket_id")["body"]
    original, resent = _words(bodies["SB-4121"]), _words(bodies["SB-4404"])
    blocks = difflib.SequenceMatcher(a=original, b=resent, autojunk=False).get_matching_blocks()
    changed = 1 - sum(b.size for b in blocks) / len(original)
    assert 0.03 <= changed <= 0.06


def test_the_three_planted_copies_are_found_by_the_measure_that_fits_each(report: Report) -> None:
    pairs = _pairs(report)
    assert set(pairs) == PLANTED
    assert 0.5 <= pairs[("SB-4404", "SB-4121", "resemblance")] < 0.95  # edited, not identical
    assert 0.7 <= pairs[("SB-4305", "SB-4211", "containment")] < 0.95  # most of the follow-up is quoted
    assert pairs[("SB-4440", "SB-4263", "resemblance")] == 1.0  # only case and punctuation differ


def test_no_other_pair_of_tickets_is_flagged_or_listed_for_review(report: Report) -> None:
    f = finding(report, "NDP001")
    assert f.evidence["pairs"] == len(PLANTED)
    assert f.evidence["split_pairs"] == {
        "train–val": {"pairs": 1, "rows": 1},
        "train–test": {"pairs": 2, "rows": 2},
    }
    assert f.evidence["holdout_rows_near_train"] == {
        "val": {"rows": 1, "of": 6, "share": round(1 / 6, 4)},
        "test": {"rows": 2, "of": 6, "share": round(2 / 6, 4)},
    }
    # Distinct tickets on the same topic (seven on sync, six on billing, ...) are not even a review item.
    assert not {"NDP002", "NDP003", "NDP004"} & set(codes(report))


def test_only_the_planted_tickets_share_verbatim_passages_with_train(report: Report) -> None:
    per_split = finding(report, "NDP008").evidence["per_split"]
    assert {s: v["with_overlap"] for s, v in per_split.items()} == {"val": 1, "test": 2}


def test_the_full_audit_also_names_the_customers_behind_the_copies() -> None:
    r = run_audit(load_config(SAMPLE / "audit.yaml"))
    assert r.exit_code == 1
    shared = finding(r, "GRP001")
    assert {e["group"] for e in shared.examples} == {"Gareth Lloyd-Jones", "Claire Dubois", "Natasha Ivanova"}
    assert "TMP001" not in codes(r)  # the split is by date: no holdout ticket predates training
