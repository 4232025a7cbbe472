"""test_exposure: how often each holdout set (or a renamed or edited copy of it) has already been evaluated."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import Field

from auditor.core.config import AuditConfig
from auditor.core.errors import StageInputError
from auditor.core.findings import Finding, Severity, Table
from auditor.core.pathoptions import ConfinedPath, NotAPath
from auditor.core.scope import scope_of
from auditor.pipeline.stage import AuditContext, Stage, StageOptions

if TYPE_CHECKING:
    import numpy as np

    from auditor.exposure.fingerprint import Overlap, SetSketch
    from auditor.exposure.ledger import LedgerSet

TIMELINE_ROWS = 50
FOLDS_NOT_LEDGERED = (
    "the holdout of each cross-validation fold is a validation fold (each fold is trained on the others and "
    "evaluated in turn), not a test set, so fold holdouts are neither fingerprinted nor counted in the ledger"
)


class TestExposureOptions(StageOptions):
    ledger: ConfinedPath | None = Field(
        default=None, description="the ledger file (relative to the config); default .split-auditor/ledger.sqlite"
    )
    max_error: float = Field(default=0.02, gt=0, lt=1, description="the error on a holdout score the team accepts")
    budget: int | None = Field(
        default=None,
        ge=0,
        description="evaluations allowed per holdout set (error above); with 0, every ledger set sharing a row "
        "with a split counts, however few rows it shares",
    )
    beta: float = Field(default=0.05, gt=0, lt=1, description="the bounds hold with probability 1 - beta")
    overlap: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="a ledger set sharing this share of a split's rows (or of its own, when "
        "its shared rows can move the split's score by max_error) counts; with budget 0, any shared row does",
    )
    same_set: float = Field(default=0.9, gt=0, le=1, description="resemblance at which a ledger set is this set")
    busy_timeout_s: float = Field(default=10.0, ge=0, description="how long to wait for a ledger another run holds")
    ledger_label: Annotated[str | None, NotAPath("a name shown in the report")] = Field(
        default=None, description="how the report names the ledger (default: its path); `--submit` sets it"
    )


@dataclass(frozen=True)
class _Match:
    entry: LedgerSet
    overlap: Overlap
    mine: SetSketch  # the split's sketch on the basis compared
    theirs: SetSketch  # the entry's sketch on that basis: its own, or its rows by ids beside its content


class TestExposure(Stage):
    __test__ = False  # not a pytest test class, despite the name
    name = "test_exposure"
    summary = "holdout sets already looked at, recognized by content fingerprint, not name"
    needs = ("manifest",)
    codes: ClassVar[dict[str, str]] = {
        "EXP000": "no evaluation recorded on a holdout set: it is fresh",
        "EXP001": "evaluations already recorded on a holdout set",
        "EXP002": "cross-validation fold holdouts are validation folds: not ledgered",
    }
    Options = TestExposureOptions
    out_of_core = True
    # A fixed holdout split beside the folds is judged on its own: fingerprinted as without folds.
    fold_aware = True

    def missing_input(self, config: AuditConfig) -> str | None:
        from auditor.exposure.holdout import basis_of

        if basis_of(config) is None:
            return "no way to recognise rows: set `manifest.id`, `keys.content_hash` or `keys.content_path`"
        if config.manifest is not None and config.manifest.folds is not None and config.manifest.split is None:
            return f"{FOLDS_NOT_LEDGERED}; there is no fixed test split beside them (`manifest.split`) to fingerprint"
        return None

    def run(self, context: AuditContext) -> Iterator[Finding]:
        from auditor.exposure.holdout import id_sketches, split_sketches
        from auditor.exposure.ledger import SqliteLedger

        assert isinstance(self.options, TestExposureOptions)
        opts = self.options
        manifest = context.require_manifest()
        holdout = [s for s in context.roles.order(manifest.split_names) if context.roles.role(s) == "holdout"]
        path = context.loaded.resolve(opts.ledger) if opts.ledger else _default(context.loaded.base_dir)
        ledger = SqliteLedger(path, opts.busy_timeout_s)
        known = ledger.sets()
        # The rows of small ledger sets are looked for among every row of each split as it is read: such a set
        # inside a large split is then found exactly, where the split's K-hash sketch would hold few of its rows.
        probes = _small_set_rows(known)
        sketches = split_sketches(manifest, context.config, context.loaded.base_dir, holdout, probes=probes)
        self._refuse_unrecognised(sketches, manifest.rows_per_split())
        # A set recorded by its sample ids before the config named content is still this set: with ids in the
        # manifest, such entries are compared by ids (each entry on one basis, so no evaluation counts twice).
        # The other way, a set recorded by content keeps its ids beside it (ledger version 2), which a split
        # read by ids is compared with (see _candidates).
        by_ids: dict[str, SetSketch] = {}
        if any(e.sketch.basis == "ids" for e in known) and any(s.basis != "ids" for s in sketches.values()):
            by_ids = id_sketches(manifest, context.config, holdout, probes)
        # A set recorded by content before ledger version 3 may have been hashed from `sha256:`-prefixed digests:
        # each content split is also read in that form, so writing the prefix (or dropping it) since then does
        # not make an evaluated set fresh. Compared, never recorded.
        prefixed: dict[str, SetSketch] = {}
        if any(e.sketch.basis == "content" for e in known) and any(s.basis == "content" for s in sketches.values()):
            read = split_sketches(
                manifest, context.config, context.loaded.base_dir, holdout, probes=probes, form="prefixed"
            )
            prefixed = {s: p for s, p in read.items() if p.digest != sketches[s].digest}
        for split, mine in sketches.items():
            matches: list[_Match] = []
            small: list[_Match] = []  # sets inside this split whose rows are too few of it to move its score
            unread: list[LedgerSet] = []  # recorded by content without their ids: not comparable by ids
            for e in known:
                candidates = _candidates(e, by_ids.get(split, mine) if e.sketch.basis == "ids" else mine)
                if e.sketch.basis == "content" and split in prefixed:
                    candidates += _candidates(e, prefixed[split])
                if not candidates and mine.basis == "ids" and e.sketch.basis == "content":
                    unread.append(e)
                # A set recorded under several ids is judged by the one that counts most: never by the least.
                judged = [(self._counts(m.overlap, len(e.evaluations)), m) for m in candidates]
                if judged:
                    counted, m = max(judged, key=lambda c: (_RANK[c[0]], c[1].overlap.jaccard))
                    if counted is not None:
                        (matches if counted else small).append(m)
            matches.sort(key=lambda m: (-m.overlap.jaccard, m.entry.sketch.digest))
            yield self._finding(split, mine, matches, path, small, unread)
        if context.roles.folds is not None:
            yield self._folds_note(context)

    def _refuse_unrecognised(self, sketches: dict[str, SetSketch], rows: dict[str, int]) -> None:
        """StageInputError for a holdout split with rows none of which has an identity (every file unread, every
        digest or id blank): its fingerprint would be of nothing, a set fresh by construction."""
        empty = [f"{s!r} ({rows[s]} row(s))" for s, sketch in sketches.items() if sketch.n_rows == 0 and rows.get(s)]
        if empty:
            raise StageInputError(
                f"holdout split(s) {', '.join(empty)}: no row has an identity to fingerprint (its content files "
                "could not be read, or its digests or ids are blank), so it cannot be compared with the ledger"
            )

    def _folds_note(self, context: AuditContext) -> Finding:
        """What the stage leaves out with folds: the holdout of each fold, evaluated once per fold by design."""
        layout = context.roles.folds
        assert layout is not None
        roles = context.roles
        fixed = [s for s in roles.order(context.require_manifest().split_names) if roles.role(s) == "holdout"]
        kept = (
            f"the fixed holdout split {', '.join(repr(s) for s in fixed)} beside them is fingerprinted and counted "
            "against the ledger as it would be without folds"
            if fixed
            else "no fixed holdout split beside them has rows to fingerprint"
        )
        return self.finding(
            "EXP002",
            Severity.INFO,
            f"{FOLDS_NOT_LEDGERED}; {kept}.",
            key="folds",
            evidence={"folds": list(layout.cv_folds), "holdout_splits": fixed},
        )

    def _counts(self, overlap: Overlap, k: int) -> bool | None:
        """Whether a ledger set's k evaluations count on this split; None when it is no match at all, False for
        a set found inside this split whose shared rows cannot move the split's score by `max_error`. With
        `budget: 0` every ledger set sharing a row with this split counts."""
        assert isinstance(self.options, TestExposureOptions)
        opts = self.options
        if overlap.jaccard >= opts.same_set or overlap.a_in_b >= opts.overlap:
            return True
        if opts.budget == 0 and overlap.shared_rows > 0:
            # No evaluation allowed: a ledger set's evaluated rows in this split are exposure, however few of
            # either set they are (the shares and the max_error rule below are tolerances budget 0 refuses).
            return True
        if overlap.b_in_a < opts.overlap:
            return None
        # The ledger set lies inside this split, most of whose rows were never evaluated: its k results can
        # bias this split's score only through the shared rows, by at most their share of it times the
        # adaptive error on them, a_in_b * sqrt(k / shared) (e2 on the shared rows). A few old rows in a large
        # new set are not that set; an old set that is a large part of this one is.
        shared = overlap.shared_rows
        return shared > 0 and overlap.a_in_b * math.sqrt(k / shared) > opts.max_error

    def _finding(
        self,
        split: str,
        mine: SetSketch,
        matches: list[_Match],
        path: Path,
        small: list[_Match] | None = None,
        unread: list[LedgerSet] | None = None,
    ) -> Finding:
        from auditor.exposure.verdict import exposure

        assert isinstance(self.options, TestExposureOptions)
        opts = self.options
        k = sum(len(m.entry.evaluations) for m in matches)
        verdict = exposure(mine.n_rows, k, max_error=opts.max_error, budget=opts.budget, beta=opts.beta)
        basis = "row content" if mine.basis == "content" else "sample ids"
        sets: list[dict[str, Any]] = []
        for m in matches:
            names = sorted({e.split for e in m.entry.evaluations})
            if m.theirs.digest == m.mine.digest:
                same = "this set"
            elif m.overlap.exact and m.overlap.b_in_a == 1.0 and m.theirs.n_rows < m.mine.n_rows:
                same = f"all {m.theirs.n_rows} of its rows in this one"  # not '2% the same set': it is inside
            else:
                same = f"{_percent(m.overlap.jaccard)} the same set"
            sets.append(
                {
                    "fingerprint": m.entry.sketch.digest[:16],
                    "recorded_as": names,
                    "basis": m.entry.sketch.basis,
                    "compared_by": m.theirs.basis,
                    "rows": m.entry.sketch.n_rows,
                    "resemblance": round(m.overlap.jaccard, 4),
                    "share_of_this_split": round(m.overlap.a_in_b, 4),
                    "evaluations": len(m.entry.evaluations),
                    "relation": same,
                    "exact": m.overlap.exact,
                }
            )
        where = "; ".join(
            f"{s['evaluations']} as {', '.join(repr(n) for n in s['recorded_as'])} ({s['relation']})" for s in sets
        )
        numbers = (
            f"n = {mine.n_rows} rows, k = {k} recorded evaluation(s): e₁ = ±{verdict.e1:.3f}, e₂ = ±{verdict.e2:.3f}"
            if k
            else f"n = {mine.n_rows} rows"
        )
        # Named, not counted: a reader seeing old rows in this split learns why they do not make it exposed.
        inside = [
            {
                "fingerprint": m.entry.sketch.digest[:16],
                "recorded_as": sorted({e.split for e in m.entry.evaluations}),
                "rows": m.entry.sketch.n_rows,
                "shared_rows": round(m.overlap.shared_rows),
                "share_of_this_split": round(m.overlap.a_in_b, 4),
                "evaluations": len(m.entry.evaluations),
            }
            for m in small or []
        ]
        not_counted = "; ".join(
            f"{len(m.entry.evaluations)} of a set recorded as "
            f"{', '.join(repr(n) for n in sorted({e.split for e in m.entry.evaluations}))} "
            f"({round(m.overlap.shared_rows)} rows shared, {_percent(m.overlap.a_in_b)} of this split)"
            for m in small or []
        )
        # Sets recorded by content before the ledger kept their ids are compared as before: by content only,
        # which a split read by ids does not have. Said, so that EXP000 is not read as "checked against them".
        unread = unread or []
        not_compared = (
            f"; {len(unread)} ledger set(s) recorded by row content without their sample ids (recorded before "
            "the ledger kept ids, or without `manifest.id`) could not be compared with this split, read by sample "
            "ids: name the content (`keys.content_hash` or `keys.content_path`) as when they were recorded to "
            "compare them"
            if unread
            else ""
        )
        reason = verdict.reason
        severity = verdict.severity
        if unread and not k:
            # Sets that could not be compared may be this one: 'fresh' is not known, and is not said.
            reason = "no evaluation recorded on the sets that could be compared"
            severity = max(severity, Severity.WARNING)
        message = (
            f"holdout '{split}' (fingerprint {mine.digest[:12]}, by {basis}): {numbers}"
            + (f" [{where}]" if where else "")
            + f"; {reason}"
            + (
                f" (not counted, as too few of its rows to move its score by max_error {opts.max_error:g}: "
                f"{not_counted})"
                if inside
                else ""
            )
            + not_compared
            + "."
        )
        timeline = sorted(
            (
                (e.at.isoformat(timespec="seconds"), e.split, s["relation"], e.source, _metrics(e.metrics), e.note)
                for m, s in zip(matches, sets, strict=True)
                for e in m.entry.evaluations
            ),
            key=lambda row: row[0],
        )
        tables: tuple[Table, ...] = ()
        if timeline:
            tables = (
                Table(
                    title=f"evaluations recorded on '{split}' and its copies",
                    columns=("when", "recorded as", "relation", "source", "metrics", "note"),
                    rows=tuple(timeline[-TIMELINE_ROWS:]),
                ),
            )
        return self.finding(
            "EXP001" if k else "EXP000",  # a fresh set is no finding about evaluations: its own code and title
            severity,
            message,
            key=split,
            evidence={
                "split": split,
                "fingerprint": mine.digest,
                "basis": mine.basis,
                "rows": mine.n_rows,
                "evaluations": k,
                "e1": round(verdict.e1, 6),
                "e2": round(verdict.e2, 6),
                "max_error": opts.max_error,
                "budget": opts.budget,
                "beta": opts.beta,
                "sets": sets,
                "sets_not_counted": inside,
                "sets_not_compared": [
                    {
                        "fingerprint": e.sketch.digest[:16],
                        "recorded_as": sorted({v.split for v in e.evaluations}),
                        "basis": e.sketch.basis,
                        "rows": e.sketch.n_rows,
                        "evaluations": len(e.evaluations),
                    }
                    for e in unread
                ],
                "ledger": opts.ledger_label or str(path),
            },
            tables=tables,
            # The recorded sets and how often they were looked at: one more evaluation is not what was accepted.
            scope=scope_of((m.entry.sketch.digest for m in matches), {"evaluations": k}),
            remediation=(
                "Keep a fresh holdout for the final evaluation, or hold results back (a reusable holdout, "
                "thresholdout); raise `stages.test_exposure.max_error` only as a deliberate choice."
                if k
                else ""
            ),
        )


_RANK = {True: 2, False: 1, None: 0}


def _small_set_rows(known: list[LedgerSet]) -> np.ndarray:
    """The row hashes of every ledger set small enough for its sketch to hold them all."""
    import numpy as np

    small = [s.hashes for e in known for s in (e.sketch, *e.ids) if s.exact]
    return np.unique(np.concatenate([np.zeros(0, dtype=np.uint64), *small]))


def _candidates(entry: LedgerSet, mine: SetSketch) -> list[_Match]:
    """The entry against the split on one basis: its own, or, for a set recorded by content and a split read
    by ids, each ids sketch kept beside its content; none when they share no basis."""
    from auditor.exposure.fingerprint import compare

    if entry.sketch.basis == mine.basis:
        return [_Match(entry, compare(mine, entry.sketch), mine, entry.sketch)]
    if mine.basis == "ids":
        return [_Match(entry, compare(mine, other), mine, other) for other in entry.ids]
    return []


def _default(base_dir: Path) -> Path:
    from auditor.exposure.ledger import LEDGER_NAME

    return base_dir / ".split-auditor" / LEDGER_NAME


def _metrics(metrics: Mapping[str, float]) -> str:
    return ", ".join(f"{k}={v:g}" for k, v in sorted(metrics.items()))


def _percent(share: float) -> str:
    """A share rounded down to 0.1%, so a set that differs by a few rows never reads as 100%."""
    return f"{math.floor(share * 1000) / 10:g}%"
