"""The config's `accept` entries applied to findings: each accepts what it names and no more.

An entry names values (`key`, `values`) and may name the key column they belong to (`column`). A value can be a
value of several columns at once (writer `x1` and source `x1`): an entry that names no column then cannot tell
which one was reviewed, so it accepts neither (ACC004) rather than both.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable, Sequence

from auditor.core.config import AcceptSpec
from auditor.core.findings import Finding
from auditor.core.scope import Growth, growth, normalise_spelling, scope_of
from auditor.core.subjects import SPELLING_CODES, covered_form, is_statement, spellings_of


def finding_column(finding: Finding) -> str | None:
    """The key column a finding is about, as its evidence names it (None: a finding about no one column)."""
    column = finding.evidence.get("key")
    return column if isinstance(column, str) else None


class Acceptances:
    """The config's `accept` entries; remembers which ones matched (so stale ones can be reported), which
    matched a finding they were too broad for (ACC002) and which named a value of several columns (ACC004)."""

    def __init__(self, entries: Iterable[AcceptSpec]) -> None:
        self.entries = list(entries)
        self.used: set[int] = set()
        self.broad: set[int] = set()
        # Per entry that records `values`: the normal forms of the values its matched findings hold; an entry
        # matched by a finding whose set is only a digest is left out (it cannot be told which values it saw).
        self.seen: dict[int, set[Hashable]] = {}
        self.unlisted: set[int] = set()
        # Per entry without `column`: the columns whose findings hold a value it names, when more than one.
        self.ambiguous: dict[int, list[str]] = {}
        # Per entry whose `key` names a finding's subject and none of its values: those values, to name the fix.
        self.subject_only: dict[int, list[str]] = {}
        # The findings judged so far, accepted or not, in the order the stages ran: a later stage may leave out what
        # was reviewed (shared_upstream does not link rows through a group value accepted in group_overlap).
        self.judged: dict[tuple[str, str], list[Finding]] = {}  # by code and key column
        self.stages_judged: set[str] = set()  # the stages whose findings were judged (ones that ran to the end)
        # Per entry naming a statement of code but not the file and line it was reviewed at: where it was found.
        self.unplaced: dict[int, list[str]] = {}
        # Per entry naming a statement at a place that holds it no more: where the statement is now (not accepted
        # there: the place is part of what was reviewed), so the stale entry can say so.
        self.moved: dict[int, list[str]] = {}
        # Per entry naming a place of code: the statements found there now, as written (the reviewed one changed).
        self.now_held: dict[int, list[str]] = {}
        # Per entry too broad for a finding: what would name that finding (`key: "val|test"`), one per finding, so
        # ACC002 can say what to write rather than leave it to a search of report.json.
        self.naming: dict[int, list[str]] = {}

    def unmatched_values(self, i: int) -> list[str]:
        """The `values` of entry ``i`` that no finding it matched holds: an exemption waiting for a future leak."""
        recorded = self.entries[i].value_texts
        if recorded is None or i in self.unlisted:
            return []
        seen, same = self.seen.get(i, set()), _entry_form(self.entries[i].code)
        return [v for v in recorded if same(v) not in seen]

    def judge_all(self, findings: Sequence[Finding]) -> list[Finding]:
        """``findings`` (all of one stage, so every column a code is reported for is seen) judged one by one,
        after finding the entries that name a value of more than one column."""
        bare = [i for i, e in enumerate(self.entries) if e.column is None and (e.key_text or e.value_texts)]
        if bare:
            held = [(f.code, c, _held(f)) for f in findings if (c := finding_column(f)) is not None]
            for i in bare:
                entry = self.entries[i]
                texts = (*((entry.key_text,) if entry.key_text else ()), *(entry.value_texts or ()))
                same = _entry_form(entry.code)  # as judge compares: `1.1` names neither `1.10` nor its column
                named = {same(v) for v in texts}
                columns = {c for code, c, values in held if code == entry.code and named & values}
                if len(columns) > 1:
                    self.ambiguous[i] = sorted({*self.ambiguous.get(i, []), *columns})
        judged = [self.judge(f) for f in findings]
        for f in judged:
            column = finding_column(f)
            if column is not None:
                kept = self.judged.setdefault((f.code, column), [])
                if f not in kept:  # judged twice (shared_upstream's spellings before its links) is kept once
                    kept.append(f)
        return judged

    def judge(self, finding: Finding) -> Finding:
        """``finding`` accepted by the first entry that covers it, escalated when an entry accepted a smaller scope
        (a value it did not name), unchanged otherwise.

        ``key`` accepts the finding it names when that is the whole of its subject, or the one value it names; an
        entry whose key names a column (or no key at all) accepts only the `values` it records. An entry with a
        `column` judges only that column's findings; one without judges no finding of a column it is ambiguous
        about."""
        if finding.accepted:
            return finding
        scope = finding.scope
        column = finding_column(finding)
        same = _entry_form(finding.code)
        held = {same(v) for v in scope.values}  # once per finding, whatever the number of entries
        escalated: Finding | None = None
        for i, entry in enumerate(self.entries):
            if entry.code != finding.code or not entry.judges_column(column):
                continue
            if column is not None and column in self.ambiguous.get(i, ()):
                self.used.add(i)
                continue
            key, recorded = entry.key_text, entry.value_texts
            if is_statement(finding.code) and key != finding.key:
                # A statement is accepted where it was reviewed: the same text in another file or at another line
                # is other code (other data reaches it), so an entry naming no file and line accepts it nowhere.
                named = {same(v) for v in (*(recorded or ()), *((key,) if key is not None else ()))}
                unplaced = key is None or same(key) in held  # no file and line, or the statement given as `key`
                if unplaced and finding.key is not None and named & held:
                    self.used.add(i)
                    self.broad.add(i)
                    self.unplaced.setdefault(i, []).append(finding.key)
                elif finding.key is not None and named & held:
                    self.moved.setdefault(i, []).append(finding.key)
                continue
            if key is not None:
                # Without values, the key is the finding's whole subject; but a code line with no statement bound
                # is not: whatever it holds later would be accepted.
                whole = key == finding.key and (
                    held == {same(key)} if scope.n_values else not is_statement(finding.code)
                )
                names_value = scope.listed and same(key) in held
                if whole and recorded is None:
                    self.used.add(i)
                    if finding.code in SPELLING_CODES:  # the spellings reviewed are not recorded: see _spelled
                        self._spelled(i, finding)
                        continue
                    return finding.model_copy(update={"accepted": True, "accept_reason": entry.reason})
                names_column = (
                    bool(scope.n_values)
                    and column is not None
                    and normalise_spelling(column) == normalise_spelling(key)
                )
                if key != finding.key and not names_value and not (names_column and recorded is not None):
                    if names_column:
                        self.used.add(i)  # the key names the finding's column: every value of it, now and later
                        self.broad.add(i)
                        self._name(i, finding, held)
                    continue
                # A key naming the column beside `values` is read as `column:` with them: those values only.
                allowed = (*(recorded or ()), *((key,) if whole or names_value else ()))
            else:
                allowed = recorded or ()
            self.used.add(i)
            if recorded is not None:
                if scope.listed:
                    self.seen.setdefault(i, set()).update(same(v) for v in scope.values)
                    if is_statement(finding.code) and key == finding.key:
                        reviewed = {same(v) for v in recorded}
                        self.now_held.setdefault(i, []).extend(v for v in scope.values if same(v) not in reviewed)
                else:
                    self.unlisted.add(i)
            if not allowed and recorded is None:
                self.broad.add(i)  # a column or a code, no values: it would accept every future value
                if key is not None and key == finding.key and scope.listed:
                    # It names the finding's subject (a file's line) but not what is there (the statement).
                    self.subject_only.setdefault(i, list(scope.values))
                else:
                    self._name(i, finding, held)
                continue
            # The values as named, each kept: scope_of would merge two the comparison keeps apart (`1.1`, `1.10`).
            as_named = scope_of(allowed).model_copy(update={"values": tuple(allowed), "n_values": len(allowed)})
            grown = growth(as_named, scope, same)
            if grown is None and finding.code in SPELLING_CODES:
                grown = self._spelled(i, finding)
                if grown is None and recorded is None:
                    continue
            if grown is None:
                return finding.model_copy(update={"accepted": True, "accept_reason": entry.reason})
            if escalated is None:
                escalated = finding.model_copy(update={"accept_reason": entry.reason, "escalated": grown})
        return escalated or finding

    def _spelled(self, i: int, finding: Finding) -> Growth | None:
        """For a finding about spellings of one value, how it exceeds the spellings entry ``i`` lists under
        `values:`, as written (`Test`, `test`; a new `TEST` is not reviewed, though it is the same value): None when
        it lists them all, or when it lists none (then it accepts nothing, and is reported as too broad, naming
        the spellings to record)."""
        spelled = spellings_of(finding)
        recorded = self.entries[i].value_texts
        same = _entry_form(finding.code)
        if spelled is not None:
            self.seen.setdefault(i, set()).update(same(s) for s in spelled)
        if recorded is None:
            self.broad.add(i)
            if spelled is not None:  # said as for a line of code named without its statement: what to record
                self.subject_only[i] = list(dict.fromkeys([*self.subject_only.get(i, []), *spelled]))
            return None
        if spelled is None:  # more values than the finding lists: which spellings it holds cannot be told
            return Growth(unlisted=max(finding.scope.n_values, 1))
        new = tuple(s for s in spelled if s not in recorded)
        if not new:
            return None
        return Growth(accepted_values=tuple(s for s in spelled if s in recorded), new_values=new)

    def judged_of(self, codes: Iterable[str], column: str) -> list[Finding]:
        """The findings of ``codes`` about ``column`` judged so far, accepted or not."""
        return [f for code in codes for f in self.judged.get((code, column), [])]

    def _name(self, i: int, finding: Finding, held: set[Hashable]) -> None:
        """Remember what would name ``finding`` for entry ``i``, too broad for it (once per distinct naming)."""
        naming = naming_of(finding, held)
        if naming is not None and naming not in self.naming.get(i, ()):
            self.naming.setdefault(i, []).append(naming)


FEW_VALUES = 5  # a finding of at most this many listed values is named by them in full (`values: [...]`)


def naming_of(finding: Finding, held: set[Hashable]) -> str | None:
    """What an entry writes to accept exactly ``finding`` (``held``: its values in the entry form): its key when
    that is its whole subject (`key: "val|test"`), else its few listed values (with their column); None when
    they are too many to write here."""
    scope = finding.scope
    same = _entry_form(finding.code)
    if finding.key is not None and (not scope.n_values or held == {same(finding.key)}):
        return f"key: {json.dumps(finding.key, ensure_ascii=False)}"
    if scope.listed and 0 < scope.n_values <= FEW_VALUES:
        column = finding_column(finding)
        values = f"values: {json.dumps(list(scope.values), ensure_ascii=False)}"
        return values if column is None else f"column: {json.dumps(column, ensure_ascii=False)}, {values}"
    return None


def _entry_form(code: str) -> Callable[[str], Hashable]:
    """The form in which a value an entry names is one a finding of ``code`` holds: a statement as code, a data
    value in both the fingerprint form and the checks' own (named_form)."""
    return covered_form(code)


def _held(finding: Finding) -> set[Hashable]:
    """The values a finding holds (its listed scope values and its subject) in the form entries are compared in."""
    same = _entry_form(finding.code)
    held: set[Hashable] = {same(v) for v in finding.scope.values} if finding.scope.listed else set()
    if finding.key is not None:
        held.add(same(finding.key))
    return held
