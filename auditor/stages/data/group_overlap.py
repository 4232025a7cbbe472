"""group_overlap: values of a group key (writer, patient, video) that occur in more than one split."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, ClassVar

from pydantic import Field

from auditor.core.config import AuditConfig
from auditor.core.findings import Finding, Severity, Table
from auditor.core.scope import scope_of
from auditor.core.splits import PairKind
from auditor.pipeline.stage import AuditContext, Stage, StageOptions

if TYPE_CHECKING:
    from auditor.manifest.groupcounts import GroupSplitCounts
    from auditor.manifest.overlap import Overlap
    from auditor.manifest.spelling import Variants
    from auditor.manifest.table import Manifest

ACCEPTABLE = {"GRP001": PairKind.TRAIN_HOLDOUT, "GRP002": PairKind.HOLDOUT_HOLDOUT}
CODE_FOR_KIND = {
    PairKind.TRAIN_HOLDOUT: "GRP001",
    PairKind.HOLDOUT_HOLDOUT: "GRP002",
    PairKind.ALLOWED: "GRP003",
}


class GroupOverlapOptions(StageOptions):
    max_examples: int = Field(default=5, ge=1, description="most examples a finding lists")


class GroupOverlap(Stage):
    name = "group_overlap"
    summary = "each group key (single or compound) whose values occur in more than one split, per split pair"
    needs = ("manifest", "keys.groups")
    codes: ClassVar[dict[str, str]] = {
        "GRP001": "groups shared between train and holdout",
        "GRP002": "groups shared between holdout splits",
        "GRP003": "groups shared between allowed split pairs",
        "GRP004": "rows without a group value",
        "GRP005": "group values that differ only by spelling, in train and holdout (or two holdout splits)",
    }
    Options = GroupOverlapOptions
    out_of_core = True
    fold_aware = True

    def missing_input(self, config: AuditConfig) -> str | None:
        if not config.keys.groups:
            return "no group keys: set `keys.groups` (e.g. [writer] or [[patient_id, eye]])"
        return None

    def prefetch(self, manifest: Manifest, config: AuditConfig) -> None:
        manifest.prefetch(group_counts=config.keys.groups)

    def manifest_counts(self, config: AuditConfig) -> list[str | list[str]]:
        return list(config.keys.groups)

    def run(self, context: AuditContext) -> Iterator[Finding]:
        for spec in context.config.keys.groups:
            yield from self._one_key(context, spec)

    def _one_key(self, context: AuditContext, spec: str | list[str]) -> Iterator[Finding]:
        import numpy as np

        from auditor.manifest.overlap import find_overlap
        from auditor.manifest.spelling import key_variants

        assert isinstance(self.options, GroupOverlapOptions)
        manifest = context.require_manifest()
        roles = context.roles
        names = manifest.split_names
        grouped = manifest.group_counts(spec)
        key, counts = grouped.key, grouped.counts

        if grouped.missing.any():
            empty = key.n_values == 0
            rows = (grouped.missing + np.asarray(counts).sum(axis=0)).tolist()
            blind = [] if empty else context.roles.sides_without(names, grouped.missing.tolist(), rows)
            if empty:
                message = (
                    f"'{key.name}' is empty (null or blank) in every row: this key checks nothing; is it the right "
                    "column?"
                )
            elif blind:
                message = (
                    f"'{key.name}' is empty (null or blank) in every {' and every '.join(blind)} row: no such row can "
                    "be checked against the other side on this key, so a shared group there would pass unseen; is "
                    "it the right column?"
                )
            else:
                message = (
                    f"{int(grouped.missing.sum())} row(s) have no '{key.name}' value; they cannot be checked for "
                    "overlap on this key."
                )
            yield self.finding(
                "GRP004",
                # a key that cannot see one side of the split checks nothing there: the audit cannot vouch for it
                Severity.ERROR if empty or blind else Severity.INFO,
                message,
                key=key.name,
                evidence={
                    "key": key.name,
                    "rows_per_split": {names[i]: int(c) for i, c in enumerate(grouped.missing) if c},
                },
                remediation=f"Fill in '{key.name}' for every row, or confirm these samples are independent.",
            )
        variants = key_variants(key)  # once: the spelling check and the rows of a shared value both need them
        yield from self._spellings(context, grouped, variants)
        present = counts > 0
        shared = np.flatnonzero(present.sum(axis=1) > 1)
        if not len(shared):
            return

        # A reviewed value leaves the totals only for the kind of overlap its code names (GRP001: train and
        # holdout, GRP002: two holdout splits) and is then reported on its own as accepted.
        full = find_overlap(counts, names, roles)
        accepted: dict[PairKind, dict[int, str]] = {}
        for entry in context.acceptances.entries:
            kind = ACCEPTABLE.get(entry.code)
            if kind is not None and entry.key is not None:
                code = key.find(entry.key)
                if code is not None and full.mask(kind)[code]:
                    accepted.setdefault(kind, {})[code] = entry.code
        # Without accepted values the overlap is the full one: no second pass over every value.
        overlap = find_overlap(counts, names, roles, {k: list(v) for k, v in accepted.items()}) if accepted else full
        tables = overlap.tables(f"'{key.name}' values")
        for kind, severity in (
            (PairKind.TRAIN_HOLDOUT, Severity.ERROR),
            (PairKind.HOLDOUT_HOLDOUT, Severity.WARNING),
            (PairKind.ALLOWED, Severity.INFO),
        ):
            if overlap.of_kind(kind) and kind is PairKind.TRAIN_HOLDOUT and roles.folds is not None:
                yield from self._fold_findings(context, grouped, overlap, variants)
            elif overlap.of_kind(kind):
                yield self._kind_finding(context, grouped, overlap, kind, severity, tables, variants)

        order, index = full.order, full.index
        for kind, values in accepted.items():
            for code, accept_code in sorted(values.items()):
                in_splits = [n for n in order if counts[code, index[n]]]
                label = key.label(code)
                yield self.finding(
                    accept_code,
                    Severity.ERROR if kind is PairKind.TRAIN_HOLDOUT else Severity.WARNING,
                    f"'{key.name}' value {label!r} occurs in {', '.join(in_splits)}.",
                    key=label,
                    evidence={
                        "key": key.name,
                        "value": label,
                        "rows": {n: int(counts[code, index[n]]) for n in in_splits},
                    },
                    scope=scope_of([label], {f"{n}.rows": int(counts[code, index[n]]) for n in in_splits}),
                )

    def _fold_findings(
        self, context: AuditContext, grouped: GroupSplitCounts, overlap: Overlap, variants: Variants
    ) -> Iterator[Finding]:
        """One finding per cross-validation fold whose holdout shares values with its training rows; the first
        carries the folds x folds matrix."""
        import numpy as np

        from auditor.manifest.foldshare import fold_shares
        from auditor.manifest.keyscope import KeyScopes
        from auditor.manifest.overlap import examples, largest
        from auditor.manifest.spelling import spelled_as_one

        assert isinstance(self.options, GroupOverlapOptions)
        layout = context.roles.folds
        assert layout is not None
        manifest = context.require_manifest()
        key, counts = grouped.key, grouped.counts
        split_rows = manifest.rows_per_split()
        mask = overlap.mask(PairKind.TRAIN_HOLDOUT)
        shares = spelled = fold_shares(counts, manifest.split_names, layout, split_rows, mask)
        if variants.n_groups:  # a shared value's rows under its other spellings ('(deeP)' beside 'Deep') are its rows
            merged, moved = spelled_as_one(counts, mask, variants)
            spelled = fold_shares(merged, manifest.split_names, layout, split_rows, moved)
        tables = shares.tables(f"'{key.name}' values")
        # Most values leak in most folds: their spellings are normalised once, not once per fold.
        scopes = KeyScopes.of(key, np.flatnonzero(shares.leak.any(axis=1)))
        totals = counts.sum(axis=1)  # rows per value, once for every fold
        for f, fold in enumerate(shares.folds):
            groups = np.flatnonzero(shares.leak[:, f])
            n = len(groups)
            if not n:
                continue
            top, labels = largest(key, groups, totals[groups], self.options.max_examples)
            rows, held = int(spelled.rows[f]), int(shares.holdout_rows[f])
            noun = "value" if n == 1 else "values"
            shown = ", ".join(repr(x) for x in labels[:3]) + (" ..." if n > 3 else "")
            by_split = spelled.rows_by_split[f]
            yield self.finding(
                "GRP001",
                Severity.ERROR,
                f"{fold}: {n} '{key.name}' {noun} ({shown}) of its holdout also occur in its training rows, so "
                f"its score is not a score on unseen '{key.name}' values; {rows} of its {held} holdout rows "
                f"({rows / held:.0%}) share a '{key.name}' value with training rows.",
                evidence={
                    "key": key.name,
                    "fold": fold,
                    "groups": n,
                    "holdout_rows_sharing_train_groups": rows,
                    "holdout_rows": held,
                    "share": round(rows / held, 4),
                    **({"rows_by_split": by_split} if len(by_split) > 1 else {}),
                },
                examples=examples(manifest, grouped, top, labels, overlap),
                tables=tables,
                scope=scopes.scope(groups, {"groups": n, "rows": rows}),
                remediation=f"Make the folds by '{key.name}' (every value in one fold), e.g. GroupKFold or "
                "StratifiedGroupKFold with groups=" + repr(key.name) + "; if a value is shared on purpose, record "
                "it under `accept` with the reason.",
            )
            tables = ()  # the matrix is shown once, with the first fold

    def _spellings(self, context: AuditContext, grouped: GroupSplitCounts, variants: Variants) -> Iterator[Finding]:
        """Values one spelling apart (`w2` in train, `W2` in test) that the exact comparison calls different."""
        import numpy as np

        from auditor.manifest.overlap import pair_counts_evidence, pair_counts_text
        from auditor.manifest.spelling import (
            accepted_spelling_scope,
            crossing_groups,
            from_counts,
            group_examples,
            spelling_scope,
            spelling_text,
        )

        assert isinstance(self.options, GroupOverlapOptions)
        manifest = context.require_manifest()
        names = manifest.split_names
        key = grouped.key
        spellings = from_counts(key, grouped.counts, grouped.first_row, variants)
        if not spellings.n_groups:
            return
        found = crossing_groups(
            spellings, names, context.roles, context.acceptances.entries, "GRP005", len(key.columns), key.name
        )
        if found is None:
            return
        crossing, accepted, live, pairs = found.crossing, found.accepted, found.live, found.pairs
        limit = self.options.max_examples
        if len(live):
            yield self.finding(
                "GRP005",
                found.severity,
                f"{len(live)} '{key.name}' value(s) differ only by case, spacing, Unicode form, number format "
                "or the quotes, brackets and sentence punctuation around them "
                f"across splits (e.g. {spelling_text(spellings, int(live[0]))}); counted as one value they are "
                "shared: " + pair_counts_text(pairs) + ".",
                evidence={"key": key.name, "values": len(live), **pair_counts_evidence(pairs)},
                examples=group_examples(manifest.ids, spellings, live, names, limit),
                scope=spelling_scope(spellings, live, {"values": len(live), **pair_counts_evidence(pairs)}),
                remediation=f"Normalize '{key.name}' so each group has one spelling, then split by it; if the "
                "spellings are different groups on purpose, record it under `accept` with the reason.",
            )
        for g, accept in sorted(accepted.items()):
            if crossing[g]:
                yield self.finding(
                    "GRP005",
                    found.severity_of(g),  # accepted it does not count; judged ambiguous (ACC004) it does
                    f"'{key.name}' spellings {spelling_text(spellings, g)} are one value across splits.",
                    key=accept,
                    evidence={"key": key.name, "value": spellings.normal[g]},
                    examples=group_examples(manifest.ids, spellings, np.array([g]), names, limit),
                    scope=accepted_spelling_scope(spellings, g, accept),
                )

    def _kind_finding(
        self,
        context: AuditContext,
        grouped: GroupSplitCounts,
        overlap: Overlap,
        kind: PairKind,
        severity: Severity,
        tables: tuple[Table, ...],
        variants: Variants,
    ) -> Finding:
        import numpy as np

        from auditor.manifest.overlap import (
            capped_splits,
            examples,
            holdout_exposure,
            key_overlap_scope,
            largest,
            pair_evidence,
            pairs_text,
            share_text,
        )
        from auditor.manifest.placeholders import placeholder_hint
        from auditor.manifest.spelling import spelled_as_one

        assert isinstance(self.options, GroupOverlapOptions)
        key, counts = grouped.key, grouped.counts
        mask = overlap.mask(kind)
        groups = np.flatnonzero(mask)
        n = len(groups)
        top, labels = largest(key, groups, counts[groups].sum(axis=1), self.options.max_examples)
        pairs = pairs_text(overlap.of_kind(kind), "shared")
        split_rows = context.require_manifest().rows_per_split()
        # A shared value's holdout rows under its other spellings ('(deeP)' beside 'Deep') are rows of that value.
        merged, moved = spelled_as_one(counts, mask, variants)
        exposure = (
            holdout_exposure(merged, overlap, moved, context.roles, split_rows)
            if kind is PairKind.TRAIN_HOLDOUT
            else {}
        )
        noun, verb, be = ("value", "occurs", "is") if n == 1 else ("values", "occur", "are")
        shown = ", ".join(repr(x) for x in labels[:3]) + (" ..." if n > 3 else "")
        message = {
            PairKind.TRAIN_HOLDOUT: f"{n} '{key.name}' {noun} ({shown}) {verb} in both a train and a holdout "
            f"split, so the holdout score is not a score on unseen '{key.name}' values: {pairs}.",
            PairKind.HOLDOUT_HOLDOUT: f"{n} '{key.name}' {noun} ({shown}) {be} shared between holdout "
            f"splits, so those evaluations are not independent: {pairs}.",
            PairKind.ALLOWED: f"{n} '{key.name}' {noun} ({shown}) {be} shared between split pairs that "
            f"splits.allow exempts: {pairs}.",
        }[kind]
        if exposure:
            message += " Holdout rows whose group is also in train: " + share_text(exposure) + "."
        return self.finding(
            CODE_FOR_KIND[kind],
            severity,
            message,
            evidence={
                "key": key.name,
                "groups": n,
                **pair_evidence(overlap.of_kind(kind), "groups"),
                **({"holdout_rows_sharing_train_groups": capped_splits(exposure)} if exposure else {}),
            },
            examples=examples(context.require_manifest(), grouped, top, labels, overlap),
            tables=tables,
            scope=key_overlap_scope(key, groups, overlap.of_kind(kind), "groups"),
            remediation=f"Split by '{key.name}' (every value in exactly one split), e.g. a group-aware "
            "splitter; if a value is shared on purpose, record it under `accept` with the reason."
            + placeholder_hint((key.name, label) for label in labels),
        )
