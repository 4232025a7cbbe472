"""contamination: the sample names its planted items, the manifest's training rows as the corpus, and the runs
that cannot measure anything."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from auditor import run_audit
from tests import forked
from tests.conftest import REPO, codes, finding, write_config, write_table

SAMPLE = REPO / "sample_data" / "benchmark_contamination"
ONLY = ["contamination"]
COPIED = "Remove any common leading whitespace from every line in the text before it is shown to a reader"


def test_the_sample_fails_naming_its_planted_items_and_writes_the_clean_subset(tmp_path: Path) -> None:
    out = tmp_path / "report"
    run = forked.run(
        [
            sys.executable,
            "-m",
            "auditor.cli",
            "run",
            str(SAMPLE / "audit.yaml"),
            "--only",
            "contamination",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1, run.stderr
    report = json.loads((out / "report.json").read_text())
    ctm = [f for s in report["stages"] for f in s["findings"] if f["code"] == "CTM001"]
    assert sorted(e["id"] for e in ctm[0]["examples"]) == ["q-half", "q-normalised", "q-verbatim-1", "q-verbatim-2"]
    head, *clean = (out / "contamination.clean.txt").read_text().splitlines()
    assert head == "# split-auditor clean subset: 8 id(s) clean under GPT-3 13-gram overlap, one a line"
    assert clean == [f"q-distinct-{i}" for i in range(1, 9)]


def test_the_sample_separates_the_half_copied_item_by_definition() -> None:
    report = run_audit(SAMPLE / "audit.yaml", only=ONLY)
    half = next(e for e in finding(report, "CTM001").examples if e["id"] == "q-half")
    # 20 of its 38 words are copied: GPT-3 and the longest substring (>= half) count it, PaLM and Llama 2 not
    assert half["contaminated_under"] == ["gpt3", "longest"]
    info = finding(report, "CTM003").evidence["per_definition"]
    assert {k: v["contaminated"] for k, v in info.items()} == {
        "gpt3": 4,
        "palm": 3,
        "llama2": 3,
        "longest": 4,
        "exact": 3,
    }


LICENCE = (
    "Licensed under the Apache License, Version 2.0 (the License); you may not use this file except in compliance "
    "with the License. You may obtain a copy of the License at http://www.apache.org/licenses/LICENSE-2.0"
)
BODIES = {
    "h-parse": "def parse_header(line): split the request line on its first colon, strip the spaces around both "
    "halves, lower-case the name and keep the value as it was sent, then return the pair so the caller can "
    "store it in its table of headers for the response",
    "h-merge": "def merge_intervals(spans): sort the spans by their start, walk them once while keeping the last "
    "merged span, extend it whenever the next one starts before it ends, otherwise close it and open a new "
    "one, and finally give back the merged list to whoever asked",
    "h-retry": "def retry(call, attempts): call the function, catch the transient network error, wait twice as "
    "long as the previous time before the next attempt, give up after the given number of attempts and raise "
    "the last error the call produced so that nothing is silently lost",
    "h-copied": "def checksum(data): add every byte of the buffer into a running sum kept modulo sixty five "
    "thousand five hundred and twenty one, mix it into a second running sum the same way, shift the second "
    "into the high half of the result and return the combined thirty two bit value",
}


def _licensed(tmp_path: Path, corpus: list[str], options: dict[str, object] | None = None) -> Path:
    """A benchmark whose every item opens with the licence header, against ``corpus`` (one document a string)."""
    write_table(
        tmp_path / "m.csv",
        {"id": list(BODIES), "split": ["test"] * len(BODIES), "body": [f"{LICENCE}\n{b}" for b in BODIES.values()]},
    )
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "c.jsonl").write_text("".join(json.dumps({"text": t}) + "\n" for t in corpus))
    return write_config(
        tmp_path,
        {
            "version": 1,
            "manifest": {"path": "m.csv", "id": "id", "split": "split"},
            "splits": {"train": [], "holdout": ["test"]},
            "keys": {"text": "body"},
            "stages": {"contamination": {"corpus": "corpus", **(options or {})}},
        },
    )


# Training files that share the licence header and nothing else with the benchmark.
HEADERED = [f"{LICENCE}\nimport module_{i}\nprint(module_{i}.version_string_of_release_{i})" for i in range(12)]


def test_a_licence_header_in_many_documents_is_boilerplate_and_a_copied_item_still_fails(tmp_path: Path) -> None:
    copied = f"{LICENCE}\n{BODIES['h-copied']}\n# vendored from the benchmark"
    report = run_audit(_licensed(tmp_path, [*HEADERED, copied]), only=ONLY)
    assert [e["id"] for e in finding(report, "CTM001").examples] == ["h-copied"]
    changed = finding(report, "CTM007")
    assert changed.evidence == {
        "more_than_documents": 10,
        "items": 3,
        "by_definition": {"gpt3": 3, "palm": 0, "llama2": 0, "longest": 0, "exact": 0},
    }
    assert [e["id"] for e in changed.examples] == ["h-parse", "h-merge", "h-retry"]
    ignored = changed.examples[0]["ignored"][0]
    assert ignored["span"].startswith("licensed under the apache license version 2 0") and ignored["documents"] == 13
    info = finding(report, "CTM003")
    assert "The frequent n-gram rule changed 3 item(s) (CTM007)." in info.message
    assert info.evidence["frequent_ngrams"]["items_changed"]["gpt3"] == 3
    assert info.evidence["clean_subset"]["ids"] == ["h-parse", "h-merge", "h-retry"]


def test_without_the_rule_the_licence_header_makes_every_item_contaminated(tmp_path: Path) -> None:
    report = run_audit(_licensed(tmp_path, HEADERED, {"frequent_documents": None}), only=ONLY)
    assert [e["id"] for e in finding(report, "CTM001").examples] == list(BODIES)
    assert "CTM007" not in codes(report)
    assert finding(report, "CTM003").evidence["frequent_ngrams"]["more_than_documents"] is None


def test_the_header_in_few_documents_still_counts(tmp_path: Path) -> None:
    # ten documents are not "more than 10": the rule leaves the verdicts as they were
    report = run_audit(_licensed(tmp_path, HEADERED[:10]), only=ONLY)
    assert len(finding(report, "CTM001").examples) == 4 and "CTM007" not in codes(report)


def test_an_item_copied_into_many_documents_is_never_cleared_as_boilerplate(tmp_path: Path) -> None:
    # a popular benchmark item mirrored in 20 training files: every 8-gram of it is frequent, yet it is a copy
    mirrors = [f"{LICENCE}\n{BODIES['h-copied']}\n# mirror {i}" for i in range(20)]
    report = run_audit(_licensed(tmp_path, [*HEADERED, *mirrors]), only=ONLY)
    assert [e["id"] for e in finding(report, "CTM001").examples] == ["h-copied"]
    assert finding(report, "CTM003").evidence["frequent_ngrams"]["items_kept_as_copies"] == 1
    assert finding(report, "CTM007").evidence["items"] == 3


def test_without_a_corpus_the_training_rows_are_the_corpus(tmp_path: Path) -> None:
    write_table(
        tmp_path / "m.csv",
        {
            "id": ["t1", "t2", "h1", "h2"],
            "split": ["train", "train", "test", "test"],
            "body": [
                "intro. " + COPIED.upper() + "!",
                "unrelated training text about cooking pasta at home tonight",
                COPIED,
                "a distinct question about the very same topic of indentation in printed text blocks",
            ],
        },
    )
    config = write_config(
        tmp_path, {"version": 1, "manifest": {"path": "m.csv", "id": "id", "split": "split"}, "keys": {"text": "body"}}
    )
    report = run_audit(config, only=ONLY)
    f = finding(report, "CTM001")
    assert [e["id"] for e in f.examples] == ["h1"]
    assert f.examples[0]["documents"][0]["train_id"] == "t1"
    assert finding(report, "CTM003").evidence["clean_subset"]["ids"] == ["h2"]


def test_clean_data_that_looks_suspicious_passes(tmp_path: Path) -> None:
    # the same topic and many of the same words, never 8 in a row
    write_table(
        tmp_path / "m.csv",
        {
            "id": ["t1", "h1"],
            "split": ["train", "test"],
            "body": [
                "remove the common leading whitespace; every line of text is shown to a reader after that",
                "before it is shown to a reader, remove any leading whitespace common to the text lines",
            ],
        },
    )
    config = write_config(
        tmp_path, {"version": 1, "manifest": {"path": "m.csv", "id": "id", "split": "split"}, "keys": {"text": "body"}}
    )
    report = run_audit(config, only=ONLY)
    assert codes(report) == ["CTM003"] and report.exit_code == 0


def test_fields_are_joined_and_short_items_are_not_measurable(tmp_path: Path) -> None:
    write_table(
        tmp_path / "m.csv",
        {
            "id": ["h1", "h2"],
            "split": ["test", "test"],
            "q": ["Remove any common leading whitespace from every line", "ok"],
            "a": ["in the text before it is shown to a reader", "yes"],
        },
    )
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "c.jsonl").write_text(json.dumps({"text": COPIED}) + "\nnot json\n")
    config = write_config(
        tmp_path,
        {
            "version": 1,
            "manifest": {"path": "m.csv", "id": "id", "split": "split"},
            "splits": {"train": [], "holdout": ["test"]},
            "stages": {"contamination": {"corpus": "corpus", "fields": ["q", "a"], "definition": "exact"}},
        },
    )
    report = run_audit(config, only=ONLY)
    assert [e["id"] for e in finding(report, "CTM001").examples] == ["h1"]
    assert finding(report, "CTM004").evidence["lines"] == {"not_json": 1}
    assert finding(report, "CTM005").evidence["not_measurable"]["exact"] == 1
    assert finding(report, "CTM003").evidence["clean_subset"]["ids"] == []  # h2 cannot be vouched for


def test_a_corpus_with_no_readable_document_is_an_error_naming_the_file_exit_2(tmp_path: Path) -> None:
    write_table(
        tmp_path / "m.csv",
        {"id": ["h1"], "split": ["test"], "body": ["some benchmark item text here, long enough to be measured"]},
    )
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "c.jsonl").write_text('not json\n{"body": 1}\n')
    config = write_config(
        tmp_path,
        {
            "version": 1,
            "manifest": {"path": "m.csv", "id": "id", "split": "split"},
            "splits": {"train": [], "holdout": ["test"]},
            "keys": {"text": "body"},
            "stages": {"contamination": {"corpus": "corpus/*.jsonl"}},
        },
    )
    report = run_audit(config, only=ONLY)
    result = report.stages[0]
    assert report.exit_code == 2 and result.status == "error"
    assert result.error is not None and "no corpus document could be read" in result.error.message
    assert "1 line(s) not JSON (corpus/c.jsonl: 1 from line 1)" in result.error.message
    assert "1 line(s) without the text field (corpus/c.jsonl: 1 from line 2)" in result.error.message


def test_a_corpus_outside_the_roots_is_a_config_error(tmp_path: Path) -> None:
    import pytest

    from auditor.core.errors import StageLoadError

    (tmp_path / "a").mkdir()
    write_table(tmp_path / "a" / "m.csv", {"id": ["h1"], "split": ["test"], "body": ["x"]})
    config = write_config(
        tmp_path / "a",
        {
            "version": 1,
            "manifest": {"path": "m.csv", "id": "id", "split": "split"},
            "splits": {"train": [], "holdout": ["test"]},
            "keys": {"text": "body"},
            "stages": {"contamination": {"corpus": "../*.jsonl"}},
        },
    )
    with pytest.raises(StageLoadError, match="stages.contamination.corpus: .* outside the folders"):
        run_audit(config, only=ONLY)


def test_the_same_inputs_give_the_same_findings() -> None:
    first = run_audit(SAMPLE / "audit.yaml", only=ONLY)
    again = run_audit(SAMPLE / "audit.yaml", only=ONLY)
    assert [f.model_dump() for f in first.findings] == [f.model_dump() for f in again.findings]


def test_a_run_without_the_stage_leaves_no_stale_clean_subset(tmp_path: Path) -> None:
    out = tmp_path / "report"
    base = [sys.executable, "-m", "auditor.cli", "run", str(SAMPLE / "audit.yaml"), "--out", str(out), "--only"]
    assert forked.run([*base, "contamination"], capture_output=True, timeout=300).returncode == 1
    assert (out / "contamination.clean.txt").exists()
    assert forked.run([*base, "split_integrity"], capture_output=True, timeout=300).returncode == 0
    assert not (out / "contamination.clean.txt").exists()


def test_a_clean_subset_file_someone_else_wrote_is_never_replaced(tmp_path: Path) -> None:
    out = tmp_path / "report"
    out.mkdir()
    (out / "contamination.clean.txt").write_text("my own notes\n")
    run = forked.run(
        [
            sys.executable,
            "-m",
            "auditor.cli",
            "run",
            str(SAMPLE / "audit.yaml"),
            "--out",
            str(out),
            "--only",
            "contamination",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 2 and "contamination.clean.txt is not a file split-auditor wrote" in run.stderr
    assert (out / "contamination.clean.txt").read_text() == "my own notes\n"


def test_write_report_writes_the_clean_subset_as_audit_run_does(tmp_path: Path) -> None:
    import auditor

    report = run_audit(SAMPLE / "audit.yaml", only=ONLY)
    written = auditor.write_report(report, tmp_path, ["json"])
    assert tmp_path / "contamination.clean.txt" in written
    assert (tmp_path / "contamination.clean.txt").read_text().splitlines()[1:] == [
        f"q-distinct-{i}" for i in range(1, 9)
    ]


def test_short_benchmark_items_skip_the_stage_with_the_reason_never_exit_2(tmp_path: Path) -> None:
    """A text key of titles or labels: nothing any definition measures, so the stage is skipped and says why;
    the rest of the audit keeps its verdict."""
    write_table(
        tmp_path / "m.csv",
        {
            "id": ["t1", "t2", "h1", "h2"],
            "split": ["train", "train", "test", "test"],
            "body": ["a cat", "dog", "cat", "x"],
        },
    )
    config = write_config(
        tmp_path, {"version": 1, "manifest": {"path": "m.csv", "id": "id", "split": "split"}, "keys": {"text": "body"}}
    )
    report = run_audit(config, only=["split_integrity", *ONLY])
    result = next(r for r in report.stages if r.stage == "contamination")
    assert result.status == "skipped" and report.exit_code == 0
    assert result.skip_reason == (
        "none of the 2 benchmark items has 8 words, the fewest any contamination definition measures (the longest "
        "has 1); the items were not measured"
    )


def _self_config(tmp_path: Path, corpus: str) -> Path:
    item = "a benchmark question written out in more than thirteen words so that every definition measures it"
    write_table(tmp_path / "m.jsonl", {"id": ["h1", "h2"], "split": ["test", "test"], "text": [item, item + " too"]})
    (tmp_path / "c.jsonl").write_text(json.dumps({"text": "an unrelated training document about other things"}) + "\n")
    return write_config(
        tmp_path,
        {
            "version": 1,
            "manifest": {"path": "m.jsonl", "id": "id", "split": "split"},
            "splits": {"train": [], "holdout": ["test"]},
            "keys": {"text": "text"},
            "stages": {"contamination": {"corpus": corpus}},
        },
    )


def test_a_corpus_glob_that_matches_the_manifest_leaves_it_out_and_says_so(tmp_path: Path) -> None:
    report = run_audit(_self_config(tmp_path, "*.jsonl"), only=ONLY)
    assert codes(report) == ["CTM006", "CTM003"]  # no item found in its own copy
    assert finding(report, "CTM006").evidence["files_left_out"] == ["m.jsonl"]
    assert finding(report, "CTM003").evidence["corpus_documents"] == 1


def test_a_corpus_that_is_only_the_manifest_is_refused_with_the_reason(tmp_path: Path) -> None:
    report = run_audit(_self_config(tmp_path, "m.jsonl"), only=ONLY)
    error = report.stages[0].error
    assert report.exit_code == 2 and error is not None
    assert "m.jsonl names only the manifest itself (m.jsonl), so every benchmark item would be found in its own " in (
        error.message
    )


def test_a_line_past_max_line_bytes_is_named_with_its_file_and_line(tmp_path: Path) -> None:
    write_table(tmp_path / "m.csv", {"id": ["h1"], "split": ["test"], "body": [COPIED]})
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "c.jsonl").write_text(
        json.dumps({"text": "x" * 4000}) + "\n" + json.dumps({"text": COPIED}) + "\n"
    )
    config = write_config(
        tmp_path,
        {
            "version": 1,
            "manifest": {"path": "m.csv", "id": "id", "split": "split"},
            "splits": {"train": [], "holdout": ["test"]},
            "keys": {"text": "body"},
            "stages": {"contamination": {"corpus": "corpus", "max_line_bytes": 1024}},
        },
    )
    report = run_audit(config, only=ONLY)
    f = finding(report, "CTM004")
    assert "1 line(s) longer than max_line_bytes (skipped) (corpus/c.jsonl: 1 from line 1)" in f.message
    assert f.examples == ({"file": "corpus/c.jsonl", "line": 1, "problem": "too_long"},)
    assert [e["id"] for e in finding(report, "CTM001").examples] == ["h1"]


def _tickets(tmp_path: Path, copied: bool) -> Path:
    """24 test tickets and 12 training ones, each a short body of its own and the same long disclaimer (more than
    half of each ticket); with ``copied``, one test ticket's body and disclaimer are in a training file too."""
    import random

    rng = random.Random(5)
    vocabulary = [f"{a}{b}{c}" for a in "bcdfgklmnprst" for b in "aeiou" for c in ("n", "r", "s", "t", "l")]
    disclaimer = " ".join(rng.choice(vocabulary) for _ in range(60))

    def ticket() -> str:
        return " ".join(rng.choice(vocabulary) for _ in range(25)) + ". " + disclaimer

    test = [ticket() for _ in range(24)]
    corpus = [ticket() for _ in range(12)] + ([f"forwarded: {test[7]}"] if copied else [])
    write_table(tmp_path / "m.csv", {"id": [f"q{i}" for i in range(24)], "split": ["test"] * 24, "body": test})
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "c.jsonl").write_text("".join(json.dumps({"text": t}) + "\n" for t in corpus))
    return write_config(
        tmp_path,
        {
            "version": 1,
            "manifest": {"path": "m.csv", "id": "id", "split": "split"},
            "splits": {"train": [], "holdout": ["test"]},
            "keys": {"text": "body"},
            "stages": {"contamination": {"corpus": "corpus"}},
        },
    )


def test_tickets_sharing_a_disclaimer_longer_than_their_bodies_are_clean_and_a_copied_one_is_not(
    tmp_path: Path,
) -> None:
    """The disclaimer is more than half of each ticket, so one training ticket holds half of every test ticket; it
    is the benchmark's own boilerplate too (in every item), so that is no copy. A ticket whose body is copied is."""
    clean = run_audit(_tickets(tmp_path / "clean", copied=False), only=ONLY)
    assert "CTM001" not in codes(clean), finding(clean, "CTM001").message
    leaked = run_audit(_tickets(tmp_path / "leaked", copied=True), only=ONLY)
    assert [e["id"] for e in finding(leaked, "CTM001").examples] == ["q7"]


def _web(text: str) -> str:
    """The text as a web page carries it: soft hyphens inside long words, zero-width spaces, a byte order mark."""
    words = [f"{w[:3]}\u00ad{w[3:]}" if len(w) > 6 else w for w in text.split(" ")]
    return "\ufeff" + " ".join(f"{w[:2]}\u200b{w[2:]}" if len(w) == 5 else w for w in words)


def test_an_item_copied_with_soft_hyphens_and_zero_width_spaces_is_contaminated(tmp_path: Path) -> None:
    # a scraped page that quotes the item: every long word split by its hyphenation hints, nothing visible changed
    pages = [f"<p>{_web(BODIES['h-copied'])}</p>", "an unrelated page about baking bread at home " * 3]
    f = finding(run_audit(_licensed(tmp_path, pages), only=ONLY), "CTM001")
    assert [e["id"] for e in f.examples] == ["h-copied"]
    assert f.examples[0]["contaminated_under"] == ["gpt3", "longest"]
    assert f.examples[0]["longest_words"] == 51  # the whole body: "checksum(data)" is two words


def test_items_sharing_only_invisible_characters_with_the_corpus_are_clean(tmp_path: Path) -> None:
    # pages on the same subjects, hyphenated the same way, that quote none of the items
    pages = [_web(f"def helper_{i}(data): walk the buffer once and keep a running sum of each byte") for i in range(5)]
    report = run_audit(_licensed(tmp_path, pages, {"frequent_documents": None}), only=ONLY)
    assert codes(report) == ["CTM003"]
    assert finding(report, "CTM003").evidence["clean_subset"]["ids"] == list(BODIES)


def test_an_item_copied_html_escaped_is_contaminated(tmp_path: Path) -> None:
    # the item quoted on a page whose text kept its markup escaped: every quote and apostrophe a reference
    item = (
        "Question: What's the reason the patient's fever didn't respond to the \"first-line\" drug, and what's "
        "the next step the team's guideline recommends when it doesn't? Answer: it's resistant; switch to the "
        '"second-line" drug the hospital\'s protocol names.'
    )
    write_table(tmp_path / "m.csv", {"id": ["q1", "q2"], "split": ["test", "test"], "body": [item, COPIED]})
    escaped = item.replace("'", "&#39;").replace('"', "&quot;")
    (tmp_path / "c.jsonl").write_text(json.dumps({"text": f"<div class=q>{escaped}</div> more of the page"}) + "\n")
    config = {
        "version": 1,
        "manifest": {"path": "m.csv", "id": "id", "split": "split"},
        "splits": {"train": [], "holdout": ["test"]},
        "keys": {"text": "body"},
        "stages": {"contamination": {"corpus": "c.jsonl"}},
    }
    report = run_audit(write_config(tmp_path, config), only=ONLY)
    f = finding(report, "CTM001")
    assert [e["id"] for e in f.examples] == ["q1"]
    assert f.examples[0]["contaminated_under"] == ["gpt3", "palm", "llama2", "longest", "exact"]
    assert finding(report, "CTM003").evidence["clean_subset"]["ids"] == ["q2"]
    # the span is shown as the page holds it, with GPT-3's removal counted in its characters
    document = f.examples[0]["documents"][0]
    assert document["chars"] == [13, 13 + len(escaped) - 1]  # from the page's "<div class=q>" to "names"
    assert escaped.startswith(document["span"]) and document["gpt3_removal"]["pieces_kept"] == 0


def _folder_corpus(tmp_path: Path, files: dict[str, bytes]) -> Path:
    """The sample's benchmark item against a corpus folder holding ``files``."""
    write_table(tmp_path / "m.csv", {"id": ["q1"], "split": ["test"], "body": [COPIED]})
    for name, data in files.items():
        (tmp_path / "corpus" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "corpus" / name).write_bytes(data)
    config = {
        "version": 1,
        "manifest": {"path": "m.csv", "id": "id", "split": "split"},
        "splits": {"train": [], "holdout": ["test"]},
        "keys": {"text": "body"},
        "stages": {"contamination": {"corpus": "corpus"}},
    }
    return write_config(tmp_path, config)


def test_a_corpus_folder_shard_of_a_kind_not_read_is_named_not_skipped_in_silence(tmp_path: Path) -> None:
    import bz2

    shard = bz2.compress(json.dumps({"text": f"intro {COPIED}"}).encode() + b"\n")
    plain = json.dumps({"text": "an unrelated document about baking bread"}).encode() + b"\n"
    config = _folder_corpus(tmp_path, {"a.jsonl": plain, "b.jsonl.bz2": shard, "part/c.arrow": b"ARROW1"})
    report = run_audit(config, only=ONLY)
    f = finding(report, "CTM004")
    assert f.severity.value == "warning"
    assert f.evidence["files_skipped"] == ["corpus/b.jsonl.bz2", "corpus/part/c.arrow"]
    assert "2 file(s) in the corpus folder were not read" in f.message and "corpus/b.jsonl.bz2" in f.message
    # the clean verdict says what it covers
    assert finding(report, "CTM003").evidence["corpus_files"] == 1


def test_a_readme_or_a_licence_beside_the_shards_is_no_skipped_shard(tmp_path: Path) -> None:
    import gzip

    shard = json.dumps({"text": f"intro {COPIED}"}).encode() + b"\n"
    files = {
        "a.jsonl.gz": gzip.compress(shard),
        "README.md": b"# corpus",
        "LICENSE": b"MIT",
        "x.txt": b"notes",
    }
    report = run_audit(_folder_corpus(tmp_path, files), only=ONLY)
    assert codes(report) == ["CTM001", "CTM003"]


def test_a_corpus_folder_with_no_readable_document_names_its_unread_shards_in_the_error(tmp_path: Path) -> None:
    import bz2

    shard = bz2.compress(json.dumps({"text": COPIED}).encode() + b"\n")
    report = run_audit(_folder_corpus(tmp_path, {"a.jsonl": b"not json\n", "b.jsonl.bz2": shard}), only=ONLY)
    (result,) = report.stages
    assert result.status == "error" and result.error is not None
    assert "1 line(s) not JSON" in result.error.message and "corpus/b.jsonl.bz2" in result.error.message


ZH_ITEMS = {
    "zh-copied": "下列关于光合作用的叙述中，正确的是：A. 光合作用只在白天进行，夜间植物只进行呼吸作用；"
    "B. 光反应阶段在叶绿体的类囊体薄膜上进行，产生氧气和ATP；"
    "C. 暗反应阶段不需要光反应提供的物质；D. 植物进行光合作用的场所只有叶片。",
    "zh-topic": "关于细胞呼吸的说法，错误的是：A. 有氧呼吸的第三阶段在线粒体内膜上进行；"
    "B. 无氧呼吸只在第一阶段释放少量能量；C. 酵母菌既能进行有氧呼吸也能进行无氧呼吸；"
    "D. 人体剧烈运动时产生的二氧化碳全部来自无氧呼吸。",
}
# Textbook pages on the same topics: the common characters and words (的, 是, 了, 光合作用, 叶绿体), and a phrase of
# 13 characters ("在叶绿体的类囊体薄膜上进行", 8 English words) in several of them, but no item.
ZH_PAGES = [
    "光合作用是绿色植物利用光能，把二氧化碳和水合成有机物并释放氧气的过程。光反应在叶绿体的类囊体薄膜上进行，"
    "暗反应在叶绿体基质中进行，两个阶段是紧密联系的。",
    "复习提纲：光反应在叶绿体的类囊体薄膜上进行，需要光、色素和酶；暗反应需要光反应提供的ATP和NADPH，"
    "它的场所是叶绿体基质。同学们要注意区分这两个阶段的条件、场所和产物。",
    "有氧呼吸分为三个阶段，第一阶段在细胞质基质中进行，第二阶段在线粒体基质中进行，第三阶段释放的能量最多。"
    "无氧呼吸的产物是酒精和二氧化碳，或者是乳酸。",
]


def _chinese(tmp_path: Path, corpus: list[str]) -> Path:
    write_table(
        tmp_path / "m.csv", {"id": list(ZH_ITEMS), "split": ["test"] * len(ZH_ITEMS), "body": list(ZH_ITEMS.values())}
    )
    (tmp_path / "c.jsonl").write_text("".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in corpus))
    config = {
        "version": 1,
        "manifest": {"path": "m.csv", "id": "id", "split": "split"},
        "splits": {"train": [], "holdout": ["test"]},
        "keys": {"text": "body"},
        "stages": {"contamination": {"corpus": "c.jsonl"}},
    }
    return write_config(tmp_path, config)


def test_a_chinese_item_copied_into_a_chinese_page_is_contaminated(tmp_path: Path) -> None:
    item = ZH_ITEMS["zh-copied"]
    page = f"高中生物期末复习题精选，同学们做完后可以对照答案。{item}答案：B。解析：光反应的场所是类囊体薄膜。"
    f = finding(run_audit(_chinese(tmp_path, [*ZH_PAGES, page]), only=ONLY), "CTM001")
    assert [e["id"] for e in f.examples] == ["zh-copied"]
    assert f.examples[0]["contaminated_under"] == ["gpt3", "palm", "llama2", "longest", "exact"]
    document = f.examples[0]["documents"][0]
    start, end = document["chars"]
    assert page[start:end] == item[:-1]  # the span as the page holds it, character for character
    assert len(f.examples[0]["documents"]) == 1  # the pages sharing a phrase of 13 characters are not shown


def test_chinese_pages_on_the_same_topic_are_no_contamination(tmp_path: Path) -> None:
    report = run_audit(_chinese(tmp_path, ZH_PAGES), only=ONLY)
    assert codes(report) == ["CTM003"]
    evidence = finding(report, "CTM003").evidence
    assert evidence["clean_subset"]["ids"] == list(ZH_ITEMS)  # both measured (not too short) and clean


DEVICES = ["laptop", "phone", "tablet", "printer", "camera", "monitor", "modem", "router"]
PROBLEMS = [
    "will not connect to wifi",
    "has a cracked screen",
    "is very slow",
    "does not turn on",
    "keeps restarting",
    "makes a loud noise",
]


def _form_tickets(
    tmp_path: Path,
    copies: list[tuple[int, Callable[[str], str]]] | None = None,
    options: dict[str, object] | None = None,
) -> Path:
    """400 support tickets written from one form (an order number, a device, a problem), two per user, split by
    user with no ticket in both splits; ``copies``: (test ticket number, the training row added from its text)."""
    import random

    rng = random.Random(23)
    ids, users, texts, splits = [], [], [], []
    for n in range(400):
        device, problem = rng.choice(DEVICES), rng.choice(PROBLEMS)
        ids.append(f"T{n:04d}")
        users.append(f"u{n // 2}")
        texts.append(
            f"Hello, my order #{rng.randrange(10**5, 10**6)} arrived but the {device} {problem}. Please help, thanks."
        )
        splits.append("test" if n >= 320 else "train")
    for k, (n, copy) in enumerate(copies or []):
        ids.append(f"X{n:04d}-{k}")
        users.append(f"x{n}")
        texts.append(copy(texts[n]))
        splits.append("train")
    write_table(tmp_path / "m.csv", {"id": ids, "user": users, "split": splits, "body": texts})
    return write_config(
        tmp_path,
        {
            "version": 1,
            "manifest": {"path": "m.csv", "id": "id", "split": "split"},
            "splits": {"train": ["train"], "holdout": ["test"]},
            "keys": {"text": "body", "groups": ["user"]},
            "report": {"fail_on": "warning"},
            "stages": {"contamination": options or {}},
        },
    )


def _other_problem(ticket: str) -> str:
    """The ticket with its problem replaced by another (one slot changed)."""
    problem = next(p for p in PROBLEMS if f" {p}." in ticket)
    return ticket.replace(problem, next(p for p in PROBLEMS if p != problem))


def test_tickets_written_from_one_form_and_split_by_user_are_clean_without_a_corpus(tmp_path: Path) -> None:
    """Every test ticket shares `arrived but the camera makes a loud noise please help thanks` (11 of its 15 words)
    with several training tickets: the form and two slot values that recur by chance, not a copy of it."""
    report = run_audit(_form_tickets(tmp_path), only=ONLY)
    assert codes(report) == ["CTM003", "CTM007"] and report.exit_code == 0
    changed = finding(report, "CTM007")
    assert changed.evidence["items"] == 80 and changed.evidence["template_words_in_texts"] == 11
    assert "the template of texts written from one form" in changed.message
    ignored = changed.examples[0]["ignored"][0]["span"]
    assert ignored.startswith("arrived but the ") and ignored.endswith(" please help thanks")
    assert finding(report, "CTM003").evidence["frequent_ngrams"]["template_words_in_texts"] == 11


def test_without_the_template_rule_the_form_makes_the_tickets_contaminated(tmp_path: Path) -> None:
    # the published definitions: more than half of every ticket is in one training ticket; the frequent n-gram
    # rule (more than 10 documents) clears the one ticket whose device and problem are in 12 training tickets
    report = run_audit(_form_tickets(tmp_path, options={"template_share": None}), only=ONLY)
    assert finding(report, "CTM002").evidence["by_definition"]["longest contaminated substring"] == 79
    assert finding(report, "CTM007").evidence["items"] == 1
    assert report.exit_code == 1


def test_a_form_ticket_copied_into_training_is_contaminated_and_one_with_its_problem_changed_is_listed(
    tmp_path: Path,
) -> None:
    """A copy holds the ticket's own words (its order number) beside the form, verbatim, forwarded or copied
    twice; a copy whose problem was changed still holds the 8 words around the order number, half the ticket."""
    copies: list[tuple[int, Callable[[str], str]]] = [
        (330, lambda t: f"FW: {t} (customer called twice)"),
        (341, lambda t: t),
        (352, lambda t: t),
        (352, lambda t: t),
        (353, _other_problem),
        (399, lambda t: t),
    ]
    config = _form_tickets(tmp_path, copies)
    report = run_audit(config, only=ONLY)
    assert [e["id"] for e in finding(report, "CTM001").examples] == ["T0330", "T0341", "T0352", "T0399"]
    listed = finding(report, "CTM002")
    assert [e["id"] for e in listed.examples] == ["T0353"]
    assert listed.examples[0]["contaminated_under"] == ["longest"]
    assert listed.examples[0]["longest_words"] == 8  # "hello my order N arrived but the <device>"


PROMPT = "You are a careful assistant. Read the question below and answer it in one word. Question:"


def _prompts(tmp_path: Path, copied: bool) -> Path:
    """8 training and 8 test prompts opening with the same instructions (more than half of each), questions of
    their own; with ``copied``, one test prompt is a training row too."""
    import random

    rng = random.Random(8)
    vocabulary = [f"{a}{b}{c}" for a in "bcdfgklmnprst" for b in "aeiou" for c in ("n", "r", "s", "t", "l")]
    prompts = [f"{PROMPT} {' '.join(rng.choice(vocabulary) for _ in range(11))}?" for _ in range(16)]
    ids = [f"p{i}" for i in range(16)]
    splits = ["train"] * 8 + ["test"] * 8
    if copied:
        ids, splits, prompts = [*ids, "p-copy"], [*splits, "train"], [*prompts, prompts[12]]
    write_table(tmp_path / "m.csv", {"id": ids, "split": splits, "body": prompts})
    return write_config(
        tmp_path,
        {
            "version": 1,
            "manifest": {"path": "m.csv", "id": "id", "split": "split"},
            "splits": {"train": ["train"], "holdout": ["test"]},
            "keys": {"text": "body"},
        },
    )


def test_prompts_sharing_their_instructions_with_training_prompts_are_clean_and_a_copied_one_is_not(
    tmp_path: Path,
) -> None:
    """The instructions (16 of 27 words) are in every prompt, in 8 training rows: fewer than the frequent n-gram
    rule's 10 documents, yet the form's words, in all 16 texts. A test prompt that is also a training row is a copy."""
    clean = run_audit(_prompts(tmp_path / "clean", copied=False), only=ONLY)
    assert codes(clean) == ["CTM003", "CTM007"] and clean.exit_code == 0
    assert finding(clean, "CTM007").evidence["by_definition"]["longest"] == 8
    leaked = run_audit(_prompts(tmp_path / "leaked", copied=True), only=ONLY)
    f = finding(leaked, "CTM001")
    assert [e["id"] for e in f.examples] == ["p12"]
    assert f.examples[0]["contaminated_under"] == ["gpt3", "palm", "llama2", "longest", "exact"]
    assert "CTM002" not in codes(leaked)


def _two_shards(tmp_path: Path, shards: dict[str, bytes]) -> Path:
    """The copied benchmark item against a corpus glob of the shards given (the item in none of them unless put)."""
    write_table(tmp_path / "m.csv", {"id": ["q1"], "split": ["test"], "question": [COPIED]})
    (tmp_path / "corpus").mkdir()
    for name, data in shards.items():
        (tmp_path / "corpus" / name).write_bytes(data)
    config = {
        "version": 1,
        "manifest": {"path": "m.csv", "id": "id", "split": "split"},
        "splits": {"train": [], "holdout": ["test"]},
        "keys": {"text": "question"},
        "stages": {"contamination": {"corpus": "corpus/*", "text": "text", "definition": "exact"}},
    }
    return write_config(tmp_path, config)


def _lines(*records: object) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


UNRELATED = {"text": "an unrelated document about baking bread in a wood oven at home on a cold day"}


def test_a_chat_format_shard_beside_text_shards_is_an_error_naming_its_fields(tmp_path: Path) -> None:
    """a.jsonl holds `messages` (the copied item among them), b.jsonl `text`: a.jsonl gave no document, so the
    copy there was never looked at; the stage errors (exit 2) naming the file, the field and the fields it has,
    where it was a CTM004 warning beside a pass."""
    chat = _lines(
        {"messages": [{"role": "user", "content": COPIED}, {"role": "assistant", "content": "ok"}]},
        {"messages": [{"role": "user", "content": "hello"}]},
    )
    config = _two_shards(tmp_path, {"a.jsonl": chat, "b.jsonl": _lines(UNRELATED, {"text": None}, {"id": 5})})
    report = run_audit(config, only=ONLY)
    result = report.stages[0]
    assert report.exit_code == 2 and result.status == "error" and result.error is not None
    message = result.error.message
    assert "corpus/a.jsonl: none of its 2 line(s) holds a text in the field 'text' (its fields: 'messages')" in message
    assert "corpus/b.jsonl" not in message


def test_a_parquet_shard_without_the_text_column_is_an_error_naming_its_columns(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    config = _two_shards(tmp_path, {"b.jsonl": _lines(UNRELATED)})
    pq.write_table(pa.table({"content": [COPIED], "url": ["u"]}), tmp_path / "corpus" / "a.parquet")
    report = run_audit(config, only=ONLY)
    result = report.stages[0]
    assert report.exit_code == 2 and result.error is not None
    assert "corpus/a.parquet: it has no text in the column 'text' (its columns: 'content', 'url')" in (
        result.error.message
    )


def test_a_parquet_shard_whose_text_column_is_null_in_every_row_is_an_error(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    config = _two_shards(tmp_path, {"b.jsonl": _lines(UNRELATED)})
    pq.write_table(
        pa.table({"text": pa.array([None, None], pa.string()), "id": [1, 2]}), tmp_path / "corpus" / "a.parquet"
    )
    result = run_audit(config, only=ONLY).stages[0]
    assert result.status == "error" and result.error is not None
    assert "corpus/a.parquet: none of its 2 row(s) holds a text in the column 'text' ('text' is there but empty" in (
        result.error.message
    )


def test_a_shard_whose_text_is_null_on_every_line_is_an_error(tmp_path: Path) -> None:
    config = _two_shards(
        tmp_path, {"a.jsonl": _lines({"text": None, "id": 1}, {"text": None, "id": 2}), "b.jsonl": _lines(UNRELATED)}
    )
    result = run_audit(config, only=ONLY).stages[0]
    assert result.status == "error" and result.error is not None
    assert "corpus/a.jsonl: none of its 2 line(s) holds a text in the field 'text' ('text' is there but empty" in (
        result.error.message
    )


def test_a_shard_none_of_whose_lines_is_json_is_an_error_naming_it(tmp_path: Path) -> None:
    """A shard written as plain text (the copied item on one of its lines) beside a JSONL shard gave no document:
    the stage errors (exit 2) naming it and why, where it was a CTM004 warning beside a pass."""
    plain = f"{COPIED}\nsecond line of prose\n".encode()
    config = _two_shards(tmp_path, {"a.jsonl": plain, "b.jsonl": _lines(UNRELATED)})
    report = run_audit(config, only=ONLY)
    result = report.stages[0]
    assert report.exit_code == 2 and result.error is not None
    message = result.error.message
    assert "corpus/a.jsonl: none of its 2 line(s) could be read as a document (2 not JSON)" in message
    assert "repair or replace the unreadable files" in message and "corpus/b.jsonl" not in message


def test_a_compressed_shard_damaged_from_its_first_byte_is_an_error_naming_it(tmp_path: Path) -> None:
    config = _two_shards(tmp_path, {"a.jsonl.gz": b"\x1f\x8b" + bytes(range(64)), "b.jsonl": _lines(UNRELATED)})
    report = run_audit(config, only=ONLY)
    result = report.stages[0]
    assert report.exit_code == 2 and result.error is not None
    assert "corpus/a.jsonl.gz: it could not be read (" in result.error.message


def test_a_shard_with_some_bad_lines_beside_good_ones_stays_a_warning(tmp_path: Path) -> None:
    """Lines that are not JSON beside documents: the documents are read (the copy is found), CTM004 names the rest."""
    shard = b"not json at all\n" + _lines({"text": f"quoted: {COPIED}"})
    config = _two_shards(tmp_path, {"a.jsonl": shard, "b.jsonl": _lines(UNRELATED)})
    report = run_audit(config, only=ONLY)
    assert report.exit_code == 1 and [e["id"] for e in finding(report, "CTM001").examples] == ["q1"]
    assert finding(report, "CTM004").evidence["lines"] == {"not_json": 1}


def test_an_empty_shard_and_a_shard_with_some_lines_lacking_the_field_are_read_as_before(tmp_path: Path) -> None:
    """An empty shard holds no line to read (nothing of it was missed), and a shard where only some lines lack the
    field gave documents: both stay as they were, a CTM004 warning naming the lines, and the copy is found."""
    shard = _lines({"id": 5}, {"text": f"quoted: {COPIED}"}, {"messages": []})
    config = _two_shards(tmp_path, {"a.jsonl": b"", "b.jsonl": shard, "c.jsonl": _lines(UNRELATED)})
    report = run_audit(config, only=ONLY)
    assert report.stages[0].status == "failed" and report.exit_code == 1
    assert [e["id"] for e in finding(report, "CTM001").examples] == ["q1"]
    problems = finding(report, "CTM004")
    assert problems.severity.value == "warning" and problems.evidence["lines"] == {"missing_field": 2}
