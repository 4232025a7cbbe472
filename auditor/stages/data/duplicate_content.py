"""duplicate_content: the same bytes in train and holdout under different names, and label conflicts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, ClassVar

from pydantic import Field

from auditor.core.config import AuditConfig
from auditor.core.findings import Finding, Severity
from auditor.core.pathoptions import ConfinedCacheDir
from auditor.core.scope import scope_of
from auditor.core.splits import PairKind
from auditor.pipeline.stage import AuditContext, Stage, StageOptions

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

    from auditor.manifest.groupcounts import GroupSplitCounts
    from auditor.manifest.overlap import Overlap
    from auditor.manifest.table import Manifest

_KIND = {
    PairKind.TRAIN_HOLDOUT: ("DUP001", Severity.ERROR),
    PairKind.HOLDOUT_HOLDOUT: ("DUP002", Severity.WARNING),
    PairKind.ALLOWED: ("DUP006", Severity.INFO),
}


class DuplicateContentOptions(StageOptions):
    max_examples: int = Field(default=5, ge=1, description="most examples a finding lists")
    cache_dir: ConfinedCacheDir | None = Field(
        default=None, description="where file digests are cached (default: ~/.cache/split-auditor); 'none' disables"
    )


class DuplicateContent(Stage):
    name = "duplicate_content"
    summary = (
        "identical content across splits (digest column or file bytes), and identical content with different labels"
    )
    needs = ("manifest", "keys.content_hash or keys.content_path", "keys.label (for conflicts)")
    codes: ClassVar[dict[str, str]] = {
        "DUP001": "identical content in train and holdout",
        "DUP002": "identical content in two holdout splits",
        "DUP003": "identical content with different labels",
        "DUP004": "identical content repeated within one split",
        "DUP005": "content files missing, unreadable or empty",
        "DUP006": "identical content in an allowed split pair",
        "DUP007": "content digests that differ only by case, spacing or an algorithm prefix (sha256:), in train and "
        "holdout (or two holdout splits)",
        "DUP008": "rows with no content key (null or blank): an error when a whole side of the split has none",
    }
    Options = DuplicateContentOptions
    out_of_core = True
    fold_aware = True

    def missing_input(self, config: AuditConfig) -> str | None:
        if config.keys.content_hash is None and config.keys.content_path is None:
            return "no content key: set `keys.content_hash` (a digest column) or `keys.content_path` (files)"
        return None

    def prefetch(self, manifest: Manifest, config: AuditConfig) -> None:
        if config.keys.content_hash is not None:
            manifest.prefetch(repeated=[config.keys.content_hash])
            manifest.spelling(config.keys.content_hash, background=True, digest=True)

    def run(self, context: AuditContext) -> Iterator[Finding]:
        import pyarrow as pa

        from auditor.manifest.content import cache_dir_from, none_read, refuse_unread_side
        from auditor.manifest.groupcounts import counts_from_rows
        from auditor.manifest.repeats import repeated_rows

        assert isinstance(self.options, DuplicateContentOptions)
        manifest = context.require_manifest()
        keys = context.config.keys
        yield from self._blank_rows(context, keys.content_hash or keys.content_path or "")
        if keys.content_hash is not None:
            yield from self._digest_column(context, keys.content_hash)
            return
        assert keys.content_path is not None
        name = f"sha256({keys.content_path})"
        per_row, digests, paths = manifest.content_digests(
            keys.content_path, cache_dir_from(self.options.cache_dir, context.loaded.base_dir)
        )
        none_read(keys.content_path, paths, digests.failures)
        unread = per_row.is_null().to_numpy(zero_copy_only=False)
        refuse_unread_side(manifest, context.roles, keys.content_path, unread, digests.failures)
        content = pa.chunked_array([per_row])
        if digests.failures:
            failed = sorted(digests.failures.items())
            yield self.finding(
                "DUP005",
                Severity.WARNING,
                f"{len(failed)} file(s) named in '{keys.content_path}' could not be read or are empty, so their "
                f"content was not compared, e.g. {failed[0][0]} ({failed[0][1]}).",
                key=keys.content_path,
                evidence={"files": len(failed)},
                examples=tuple({"path": p, "reason": r} for p, r in failed[: self.options.max_examples]),
                remediation="Fix the paths (relative to the manifest file), restore the files, or drop empty samples.",
            )
        rows, codes, values = repeated_rows(content, blank_is_missing=True)
        repeated_content = content.take(pa.array(rows)).combine_chunks()  # one chunk: nothing to join
        if not len(rows):
            return
        # Only rows whose content repeats can be duplicates or conflicts: work on those alone.
        grouped = counts_from_rows(rows, codes, values, manifest.split_at(rows), manifest.split.n_values, name)
        yield from self._across_splits(context, grouped, name)
        yield from self._within_splits(context, grouped, name)
        if keys.label is not None:
            yield from self._label_conflicts(context, repeated_content, rows, name, keys.label)

    def _blank_rows(self, context: AuditContext, column: str) -> Iterator[Finding]:
        """DUP008: rows naming no content. A whole side of the split without it is an error: none of its rows
        was compared with the other side, so a copy there would pass unseen (as GRP004 for a group key)."""
        from auditor.manifest.blankrows import blank_rows

        found = blank_rows(context.require_manifest(), context.roles, column, "content")
        if found is not None:
            remediation = f"Fill in '{column}' for every row (a digest of each sample's bytes), or drop the rows."
            yield found.finding(self.finding, "DUP008", remediation)

    def _digest_column(self, context: AuditContext, name: str) -> Iterator[Finding]:
        """A digest column's copies: counted per repeated digest and split, not row by row (an engine on a
        cluster counts them where the rows are); the rows and their digests are read only for label conflicts."""
        manifest = context.require_manifest()
        grouped = manifest.repeated_counts(name)
        yield from self._spellings(context, name)
        if not grouped.key.n_values:
            return
        yield from self._across_splits(context, grouped, name)
        yield from self._within_splits(context, grouped, name)
        label = context.config.keys.label
        if label is not None:
            rows, _, _ = manifest.repeated(name)
            yield from self._label_conflicts(context, manifest.take(name, rows), rows, name, label)

    def _across_splits(self, context: AuditContext, grouped: GroupSplitCounts, name: str) -> Iterator[Finding]:
        import numpy as np

        from auditor.manifest.overlap import (
            capped_splits,
            examples,
            find_overlap,
            holdout_exposure,
            key_overlap_scope,
            largest,
            pair_evidence,
            pairs_text,
            share_text,
        )

        assert isinstance(self.options, DuplicateContentOptions)
        names = context.require_manifest().split_names
        overlap = find_overlap(grouped.counts, names, context.roles)
        tables = overlap.tables("identical contents")
        for kind, (code, severity) in _KIND.items():
            shares = overlap.of_kind(kind)
            if not shares:
                continue
            if code == "DUP001" and context.roles.folds is not None:
                yield from self._per_fold(context, grouped, overlap, name)
                continue
            mask = overlap.mask(kind)
            values = np.flatnonzero(mask)
            top, labels = largest(grouped.key, values, grouped.counts[values].sum(axis=1), self.options.max_examples)
            exposure = (
                holdout_exposure(
                    grouped.counts, overlap, mask, context.roles, context.require_manifest().rows_per_split()
                )
                if code == "DUP001"
                else {}
            )
            pairs = pairs_text(shares, "shared")
            message = f"{len(values)} content digest(s) of {name} occur in more than one split: {pairs}."
            if exposure:
                message += " Holdout rows that are byte-identical to a training row: " + share_text(exposure) + "."
            yield self.finding(
                code,
                severity,
                message,
                evidence={
                    "content": name,
                    "digests": len(values),
                    **pair_evidence(shares, "digests"),
                    **({"holdout_rows_identical_to_train": capped_splits(exposure)} if exposure else {}),
                },
                examples=examples(context.require_manifest(), grouped, top, labels, overlap, label_field="digest"),
                tables=tables,
                scope=key_overlap_scope(grouped.key, values, shares, "digests"),
                remediation="Remove the copies from the holdout split (a renamed or moved file is still the "
                "same sample), or deduplicate before splitting.",
            )

    def _per_fold(
        self, context: AuditContext, grouped: GroupSplitCounts, overlap: Overlap, name: str
    ) -> Iterator[Finding]:
        """One finding per cross-validation fold whose holdout holds copies of its training rows; the first
        carries the folds x folds matrix."""
        import numpy as np

        from auditor.manifest.foldshare import fold_shares
        from auditor.manifest.keyscope import key_scope
        from auditor.manifest.overlap import examples, largest

        assert isinstance(self.options, DuplicateContentOptions)
        layout = context.roles.folds
        assert layout is not None
        manifest = context.require_manifest()
        counts = grouped.counts
        live = overlap.mask(PairKind.TRAIN_HOLDOUT)
        shares = fold_shares(counts, manifest.split_names, layout, manifest.rows_per_split(), live)
        tables = shares.tables("identical contents")
        for f, fold in enumerate(shares.folds):
            values = np.flatnonzero(shares.leak[:, f])
            if not len(values):
                continue
            top, labels = largest(grouped.key, values, counts[values].sum(axis=1), self.options.max_examples)
            rows, held = int(shares.rows[f]), int(shares.holdout_rows[f])
            yield self.finding(
                "DUP001",
                Severity.ERROR,
                f"{fold}: {len(values)} content digest(s) of {name} in its holdout also occur in its training rows; "
                f"{rows} of its {held} holdout rows ({rows / held:.0%}) are byte-identical to a training row.",
                evidence={
                    "content": name,
                    "fold": fold,
                    "digests": len(values),
                    "holdout_rows_identical_to_train": rows,
                    "holdout_rows": held,
                    "share": round(rows / held, 4),
                },
                examples=examples(manifest, grouped, top, labels, overlap, label_field="digest"),
                tables=tables,
                scope=key_scope(grouped.key, values, {"digests": len(values), "rows": rows}),
                remediation="Deduplicate before making the folds, or keep every copy in one fold (group the folds "
                "by the content digest).",
            )
            tables = ()

    def _spellings(self, context: AuditContext, name: str) -> Iterator[Finding]:
        """Digests equal but for case, spacing or an algorithm prefix (`9f86d0` in train, `9F86D0` or `sha256:9f86d0`
        in test): the same content."""
        import numpy as np

        from auditor.manifest.overlap import pair_counts_evidence, pair_counts_text
        from auditor.manifest.spelling import (
            accepted_spelling_scope,
            crossing_groups,
            group_examples,
            spelling_scope,
            spelling_text,
        )

        assert isinstance(self.options, DuplicateContentOptions)
        manifest = context.require_manifest()
        variants = manifest.spelling(name, digest=True)
        if variants is None or not variants.n_groups:
            return
        names = manifest.split_names
        spellings = manifest.row_spellings(name, digest=True)
        found = crossing_groups(spellings, names, context.roles, context.acceptances.entries, "DUP007", 1)
        if found is None:
            return
        crossing, accepted, live, pairs = found.crossing, found.accepted, found.live, found.pairs
        limit = self.options.max_examples
        if len(live):
            yield self.finding(
                "DUP007",
                found.severity,
                f"{len(live)} content digest(s) of {name} differ only by case, spacing or an algorithm prefix across "
                f"splits (e.g. "
                f"{spelling_text(spellings, int(live[0]))}); a digest names the same bytes however it is written: "
                + pair_counts_text(pairs)
                + ".",
                evidence={"content": name, "digests": len(live), **pair_counts_evidence(pairs)},
                examples=group_examples(manifest.ids, spellings, live, names, limit),
                scope=spelling_scope(spellings, live, {"digests": len(live), **pair_counts_evidence(pairs)}),
                remediation="Write digests in one form (lower-case hex, no spaces, no `sha256:` prefix) and remove "
                "the copies from the holdout split.",
            )
        for g, accept in sorted(accepted.items()):
            if crossing[g]:
                yield self.finding(
                    "DUP007",
                    Severity.WARNING,
                    f"digest spellings {spelling_text(spellings, g)} of {name} name the same content across splits.",
                    key=accept,
                    evidence={"content": name, "digest": spellings.normal[g]},
                    examples=group_examples(manifest.ids, spellings, np.array([g]), names, limit),
                    scope=accepted_spelling_scope(spellings, g, accept),
                )

    def _within_splits(self, context: AuditContext, grouped: GroupSplitCounts, name: str) -> Iterator[Finding]:
        names = context.require_manifest().split_names
        extra = {names[i]: int((c[c > 1] - 1).sum()) for i, c in enumerate(grouped.counts.T) if (c > 1).any()}
        if extra:
            yield self.finding(
                "DUP004",
                Severity.INFO,
                f"identical content repeated within a split ({name}): "
                + ", ".join(f"{s} {n} extra row(s)" for s, n in extra.items())
                + "; repeated samples weigh more in training and in scores.",
                evidence={"extra_rows_per_split": extra},
            )

    def _label_conflicts(
        self, context: AuditContext, content: pa.Array, rows: np.ndarray, name: str, label: str
    ) -> Iterator[Finding]:
        import pyarrow as pa
        import pyarrow.compute as pc

        assert isinstance(self.options, DuplicateContentOptions)
        manifest = context.require_manifest()
        labels = manifest.take(label, rows)
        if pa.types.is_dictionary(labels.type):  # a categorical label: Arrow sorts no dictionary, only its values
            labels = labels.dictionary_decode()
        table = pa.table({"c": content, "l": labels}).filter(pc.and_(pc.is_valid(content), pc.is_valid(labels)))
        per_content = table.group_by(["c", "l"]).aggregate([([], "count_all")])
        labels_per = per_content.group_by(["c"]).aggregate([([], "count_all")])
        conflicted = labels_per.filter(pc.greater(labels_per["count_all"], 1))
        if not conflicted.num_rows:
            return
        hit = per_content.filter(pc.is_in(per_content["c"], value_set=conflicted["c"]))
        involved = int(pc.sum(hit["count_all"]).as_py())
        sample = hit.sort_by([("c", "ascending"), ("l", "ascending")]).to_pylist()
        shown: dict[str, dict[str, int]] = {}
        for rec in sample:
            if rec["c"] not in shown and len(shown) >= self.options.max_examples:
                break
            shown.setdefault(rec["c"], {})[str(rec["l"])] = rec["count_all"]
        yield self.finding(
            "DUP003",
            Severity.ERROR,
            f"{conflicted.num_rows} content digest(s) of {name} carry more than one '{label}' ({involved} rows): the "
            "same input is taught, or scored, with contradicting targets.",
            evidence={"digests": conflicted.num_rows, "rows": involved},
            examples=tuple({"digest": c, "labels": ls} for c, ls in shown.items()),
            scope=scope_of(
                (str(c) for c in conflicted["c"].to_pylist()), {"digests": conflicted.num_rows, "rows": involved}
            ),
            remediation="Resolve the label of each duplicated sample (or drop the duplicates) before training.",
        )
