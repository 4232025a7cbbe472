"""A finding's scope against what the finding itself shows: the evidence field that counts its subject values and
the example field that names one. A report made elsewhere (an upload) carries scopes nobody here computed; these
are the checks that tie them to what a reviewer reads."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from auditor.core.findings import Finding
from auditor.core.scope import counts_of, named_form, normalise_spelling


@dataclass(frozen=True)
class Subject:
    """Where a finding of one code shows its subject values: ``count`` counts them in the evidence, ``example``
    names one in each example, and ``value`` names the one value of a finding about a single one (an `accept:`
    entry's finding)."""

    count: str
    example: str
    value: str = "value"


# The codes whose stages write these fields every time (group_overlap, duplicate_content); a code not here is
# checked against its own values only (core/scope.py inconsistency).
SUBJECTS: Mapping[str, Subject] = {
    "GRP001": Subject("groups", "group"),
    "GRP002": Subject("groups", "group"),
    "GRP003": Subject("groups", "group"),
    "DUP001": Subject("digests", "digest"),
    "DUP002": Subject("digests", "digest"),
    "DUP003": Subject("digests", "digest"),
    "DUP006": Subject("digests", "digest"),
    # audit code: the statement an acceptance binds to, which every leak placed at a line names (the line's text
    # where no statement of the tree holds it).
    **{f"CDL00{n}": Subject("statements", "statement", "statement") for n in range(1, 6)},
}


# Findings about spellings of one value (`Test` and `test`, `w2` and `W2`): their subject is the value, but what a
# reviewer judged is the spellings seen, so an acceptance binds to those, as written.
SPELLING_CODES = frozenset({"SPL004", "SPL010", "SPL011", "GRP005", "UPS005", "DUP007"})


def spellings_of(finding: Finding) -> list[str] | None:
    """The spellings a spelling finding holds, as written (None when it holds more values than it lists)."""
    names = finding.evidence.get("names")
    if finding.code == "SPL004" and isinstance(names, list):
        return [str(n) for n in names]
    groups = [e for e in finding.examples if isinstance(e.get("spellings"), list)]
    if not groups or len(groups) < finding.scope.n_values:
        return None
    return [str(s["spelling"]) for e in groups for s in e["spellings"] if isinstance(s, dict) and "spelling" in s]


def is_statement(code: str) -> bool:
    """Whether ``code``'s findings are about a statement of code (named by file and line), not about data values."""
    subject = SUBJECTS.get(code)
    return subject is not None and subject.value == "statement"


@lru_cache(maxsize=4096)
def _statement_form(text: str) -> str:
    from auditor.core.statements import canonical_statement  # ast is loaded only for code findings

    return canonical_statement(text)


def same_form(code: str) -> Callable[[str], Hashable]:
    """The form in which two subject values of ``code``'s findings are one value: a statement as written (its case,
    digits and letters are the code's: `df["Y"]` is not `df["y"]`), a data value spelling-normalised."""
    return _statement_form if is_statement(code) else normalise_spelling


def covered_form(code: str) -> Callable[[str], Hashable]:
    """The form in which an accepted (or earlier) value of ``code``'s findings is a later one: a statement as code,
    a data value in both the fingerprint form and the checks' own (named_form). `1.1` and `1.10` are one number but
    two groups to the checks, so accepting one must not accept the other (same_form alone would)."""
    return _statement_form if is_statement(code) else named_form


def disagreement(finding: Finding) -> str | None:
    """How ``finding``'s scope contradicts its own evidence or examples, as a clause (None: it does not, or the
    code is not known here): as many values as its evidence counts, the one value it names, every value an
    example names."""
    subject = SUBJECTS.get(finding.code)
    if subject is None:
        return None
    scope = finding.scope
    counted = finding.evidence.get(subject.count)
    single = finding.evidence.get(subject.value)
    # In the form acceptances compare them in: a statement as code (`df["Y"]` is not `df["y"]`), else spelled.
    same = same_form(finding.code)
    listed = {same(v) for v in scope.values} if scope.listed else None
    if is_statement(finding.code):
        # One statement, always (a count of statements, which the audit never writes, would check no text).
        if not isinstance(single, str) or not single.strip():
            return "its evidence names no statement ('statement'), which the audit names for every leak at a line"
        if listed != {same(single)}:
            return f"its scope lists values other than the one its evidence names ({single!r})"
    elif isinstance(counted, int) and not isinstance(counted, bool):
        # Fewer values than counted is two spellings of one value, each shared exactly (`W1` and `w1`): the scope
        # holds one normal form for both. More, or none at all, would bind values the finding does not show.
        if scope.n_values > counted or (counted and not scope.n_values):
            return f"its scope has {scope.n_values} value(s) where its evidence counts {counted} {subject.count}"
    elif isinstance(single, str):
        if listed != {same(single)}:
            return f"its scope lists values other than the one its evidence names ({single!r})"
    else:
        return f"its evidence has no count of its values ({subject.count!r})"
    for i, example in enumerate(finding.examples):
        named = example.get(subject.example)
        if not isinstance(named, str):
            return f"its examples.{i} names no {subject.example}"
        if listed is not None and same(named) not in listed:
            return f"its examples.{i} names {named!r}, which its scope does not list"
    return None


def counts_disagreement(finding: Finding) -> str | None:
    """How ``finding``'s scope counts contradict the split pairs its evidence lists, as a clause (None: they do
    not, or its evidence lists no pairs): a count above the one shown, or of a split pair not shown, would let an
    acceptance cover rows or a split pair nobody was shown."""
    subject, counts, evidence = SUBJECTS.get(finding.code), finding.scope.counts, finding.evidence
    if counts is not None and isinstance(evidence.get("split_pairs"), Mapping):
        return _split_pairs_disagreement(counts, evidence)
    pairs = evidence.get("pairs")
    if subject is None or counts is None or not isinstance(pairs, list):
        return None
    if not all(isinstance(p, Mapping) and isinstance(p.get("splits"), list) for p in pairs):
        return None
    noun, cut = subject.count, bool(evidence.get("pairs_not_listed"))
    shown: dict[str, int] = {}
    for record in pairs:
        label = "|".join(str(s) for s in record["splits"])
        if _whole(record.get(noun)):
            shown[f"{label}.{noun}"] = record[noun]
        rows = record.get("rows")
        if isinstance(rows, list) and all(_whole(r) for r in rows):
            shown[f"{label}.rows"] = sum(rows)
    if _whole(evidence.get(noun)):
        shown[noun] = evidence[noun]
    total = evidence.get("pairs_total", len(pairs))
    if _whole(total):
        shown["pairs"] = total
    if not cut and all(f"{'|'.join(str(s) for s in p['splits'])}.rows" in shown for p in pairs):
        shown["rows"] = sum(v for k, v in shown.items() if k.endswith(".rows"))
    return _counts_beyond(counts, shown, cut)


def _split_pairs_disagreement(counts: Mapping[str, int], evidence: Mapping[str, object]) -> str | None:
    """The same check for evidence that counts per split pair under `split_pairs` (near_duplicates: the two split
    names joined by an en dash, each with its pairs and rows), whose scope names them "train|test.pairs"."""
    shown: dict[str, int] = {}
    split_pairs = evidence["split_pairs"]
    assert isinstance(split_pairs, Mapping)
    for label, record in split_pairs.items():
        splits = str(label).split("–")
        if len(splits) != 2 or not isinstance(record, Mapping):
            return None  # a split name holding the separator: the pairs cannot be read back, so none is checked
        for noun in ("pairs", "rows"):
            if _whole(record.get(noun)):
                shown[f"{splits[0]}|{splits[1]}.{noun}"] = record[noun]
    total = evidence.get("pairs")
    if isinstance(total, int) and _whole(total):
        shown["pairs"] = total
    return _counts_beyond(counts, shown, cut=False)


def _counts_beyond(counts: Mapping[str, int], shown: Mapping[str, int], cut: bool) -> str | None:
    """A scope count other than the one shown, or (unless the pairs listed were ``cut``) of a split pair not shown."""
    for name, value in sorted(counts.items()):
        if name in shown and value != shown[name]:
            return f"its scope counts {name} {value} where its evidence shows {shown[name]}"
        if name not in shown and "|" in name and not cut:
            return f"its scope counts {name} ({value}), of a split pair its evidence does not list"
    return None


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def with_shown_counts(finding: Finding) -> Finding:
    """``finding`` with a scope that binds no counts (``counts`` None) bound to the counts its evidence shows:
    an acceptance of it then covers those counts, not any."""
    if finding.scope.counts is not None:
        return finding
    return finding.model_copy(
        update={"scope": finding.scope.model_copy(update={"counts": counts_of(finding.evidence)})}
    )


def spellings_disagreement(finding: Finding) -> str | None:
    """How the spellings a finding about spellings binds contradict what it shows, as a clause (None: they do not):
    a scope recording none would cover every later spelling; one missing a spelling its examples show, or (where
    the examples show every value) listing one they do not, would bind what nobody saw."""
    if finding.code not in SPELLING_CODES:
        return None
    scope = finding.scope
    if scope.spelling_digest is None:
        return "its scope records no spellings, which the audit records for every finding about spellings"
    if not scope.spellings_listed:
        return None
    listed = set(scope.spellings)
    shown = spellings_of(finding)
    for spelling in shown or [s for e in finding.examples for s in _example_spellings(e)]:
        if spelling not in listed:
            return f"its examples show the spelling {spelling!r}, which its scope does not list"
    if shown is not None and listed - set(shown):
        extra = sorted(listed - set(shown))[0]
        return f"its scope lists the spelling {extra!r}, which the finding does not show"
    return None


def _example_spellings(example: Mapping[str, object]) -> list[str]:
    spellings = example.get("spellings")
    if not isinstance(spellings, list):
        return []
    return [str(s["spelling"]) for s in spellings if isinstance(s, Mapping) and "spelling" in s]
