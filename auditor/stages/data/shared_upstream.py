"""shared_upstream: samples linked through any chain of shared keys (writer, document, content) across splits.

File names that differ do not make samples independent: A shares a writer with B, B shares a document
with C, so A and C are one unit, even when no single key value crosses the two splits.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from auditor.core.config import AuditConfig, compound_label
from auditor.core.findings import Finding, Severity
from auditor.core.pathoptions import ConfinedCacheDir
from auditor.core.scope import Scope
from auditor.core.splits import PairKind
from auditor.pipeline.stage import AuditContext, Stage, StageOptions
from auditor.stages.data.reviewed_links import (
    partly_accepted,
    partly_text,
    reviewed_evidence,
    reviewed_keys,
    reviewed_text,
    unapplied,
    unapplied_text,
)

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

    from auditor.manifest.keycodes import KeyCodes
    from auditor.manifest.linked import LinkedRows
    from auditor.manifest.overlap import (
        Overlap,
        Pairs,
    )
    from auditor.manifest.reviewed import Reviewed
    from auditor.manifest.table import Manifest

MAX_CHAINS = 5  # chains kept per example, the longest first

_KIND = {
    PairKind.TRAIN_HOLDOUT: ("UPS001", Severity.ERROR),
    PairKind.HOLDOUT_HOLDOUT: ("UPS002", Severity.WARNING),
    PairKind.ALLOWED: ("UPS004", Severity.INFO),
}


class SharedUpstreamOptions(StageOptions):
    max_examples: int = Field(default=3, ge=1, description="most examples a finding lists")
    max_share: float = Field(
        default=0.5, gt=0, le=1, description="largest component share of rows above which no group split is possible"
    )
    cache_dir: ConfinedCacheDir | None = Field(default=None, description="file digest cache, as for duplicate_content")


class SharedUpstream(Stage):
    name = "shared_upstream"
    summary = "rows linked transitively through groups, sources and content whose components cross splits"
    needs = ("manifest", "two or more of keys.groups / keys.sources / keys.content_hash / keys.content_path")
    codes: ClassVar[dict[str, str]] = {
        "UPS001": "linked samples span train and holdout",
        "UPS002": "linked samples span two holdout splits",
        "UPS003": "largest linked component",
        "UPS004": "linked samples span an allowed split pair",
        "UPS005": "source values that differ only by spelling, in train and holdout (or two holdout splits)",
    }
    Options = SharedUpstreamOptions
    out_of_core = True
    fold_aware = True

    @staticmethod
    def _specs(config: AuditConfig) -> list[str | list[str]]:
        specs: list[str | list[str]] = [*config.keys.groups, *config.keys.sources]
        if config.keys.content_hash is not None:
            specs.append(config.keys.content_hash)
        return specs

    def missing_input(self, config: AuditConfig) -> str | None:
        links = len(self._specs(config)) + (config.keys.content_path is not None) + (config.keys.text is not None)
        if links < 1:
            return "no linking keys: set `keys.groups`, `keys.sources` or a content key"
        if links == 1 and len(config.keys.groups) == 1:
            return "one group key only: group_overlap reports it; add `keys.sources` or a content key to link further"
        return None

    def _extra_keys(self, context: AuditContext) -> list[KeyCodes]:
        """The linking keys a stage makes itself: the files' digests (`keys.content_path`) and near copies."""
        import numpy as np
        import pyarrow as pa

        from auditor.manifest.content import cache_dir_from, none_read, refuse_unread_side
        from auditor.manifest.keycodes import CODE, single_key
        from auditor.manifest.repeats import repeated_rows

        assert isinstance(self.options, SharedUpstreamOptions)
        manifest = context.require_manifest()
        keys = []
        path = context.config.keys.content_path
        if path is not None:
            cache_dir = cache_dir_from(self.options.cache_dir, context.loaded.base_dir)
            per_row, digests, paths = manifest.content_digests(path, cache_dir)
            # A side none of whose files was read was linked through its content to nothing: no verdict.
            none_read(path, paths, digests.failures)
            unread = per_row.is_null().to_numpy(zero_copy_only=False)
            refuse_unread_side(manifest, context.roles, path, unread, digests.failures)
            rows, codes, values = repeated_rows(pa.chunked_array([per_row]), blank_is_missing=True)
            shared = np.full(manifest.n_rows, -1, dtype=CODE)
            shared[rows] = codes
            keys.append(single_key(f"sha256({path})", shared, values))
        keys.extend(self._near_copy_keys(context))
        return keys

    @staticmethod
    def _near_copy_keys(context: AuditContext) -> list[KeyCodes]:
        """Clusters of near copies (near_duplicates, with its options) as one more linking key per content."""
        import pyarrow as pa

        from auditor.manifest.keycodes import single_key
        from auditor.similarity.nearcopies import linking_codes
        from auditor.stages.data.near_duplicates import NearDuplicates, near_copies
        from auditor.stages.data.near_duplicates import options_of as near_duplicates_options

        options = near_duplicates_options(context.config)
        if options is None or NearDuplicates().missing_input(context.config) is not None:
            return []
        keys = []
        for source in near_copies(context, options).sources:
            codes, n = linking_codes(source)
            if n:
                labels = pa.array([f"cluster {i + 1}" for i in range(n)], pa.string())
                keys.append(single_key(f"near copy ({source.column})", codes, labels))
        return keys

    def prefetch(self, manifest: Manifest, config: AuditConfig) -> None:
        # A mostly distinct column's spellings are searched row by row (any text column's, on an engine whose rows
        # are elsewhere): the links, UPS005, GRP005 and DUP007 share the search.
        digest = config.keys.content_hash
        for spec in [*config.keys.groups, *config.keys.sources, *([digest] if digest is not None else [])]:
            if isinstance(spec, str) and (manifest.rows_elsewhere or manifest.mostly_distinct(spec)):
                manifest.spelling(spec, background=True, digest=spec == digest)
        singles = [s for s in self._specs(config) if isinstance(s, str)]
        # An engine whose rows are elsewhere codes the keys there (Manifest.linked): their codes here would be
        # made for nothing, a per-row array each.
        manifest.prefetch(
            repeated=[s for s in singles if manifest.mostly_distinct(s)],
            keys=[]
            if manifest.rows_elsewhere
            else [s for s in self._specs(config) if not isinstance(s, str) or not manifest.mostly_distinct(s)],
        )

    def manifest_keys(self, config: AuditConfig) -> list[str | list[str]]:
        return self._specs(config)

    def run(self, context: AuditContext) -> Iterator[Finding]:
        import numpy as np

        from auditor.manifest.overlap import find_overlap

        assert isinstance(self.options, SharedUpstreamOptions)
        manifest = context.require_manifest()
        names = manifest.split_names
        specs, extra = self._specs(context.config), self._extra_keys(context)
        # Judged here, before the links: a source's spellings accepted as different values stay apart in them.
        yield from context.acceptances.judge_all(
            [f for spec in context.config.keys.sources for f in self._spellings(context, spec)]
        )
        if not specs and not extra:  # only near copies could link rows here, and there are none
            return
        # Values one spelling apart (`w1`, `W1`; a digest in either case or with its `sha256:`) are one value here
        # as in group_overlap, UPS005 and duplicate_content: a leak through a variant spelling is still a link.
        # What a review accepted is left out: a group value shared on purpose, spellings that are other values.
        reviewed = reviewed_keys(context)
        links = manifest.linked(specs, extra, digest=context.config.keys.content_hash, reviewed=reviewed)
        counts = links.split_counts(len(names))
        overlap = find_overlap(counts, names, context.roles)
        folds = context.roles.folds is not None
        crossing = [k for k in _KIND if overlap.of_kind(k) and not (folds and k is PairKind.TRAIN_HOLDOUT)]
        # Each finding's scope digests its holdout rows' ids (millions at 10M rows): the digests are made beside
        # one another and beside the examples, from ids read here, on this thread (an engine's reads stay on it).
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="scope") as pool:
            scopes = {
                k: self._scope(context, links, np.flatnonzero(overlap.mask(k)), overlap.of_kind(k), k, pool)
                for k in crossing
            }
            for kind, (code, severity) in _KIND.items():
                if overlap.of_kind(kind) and kind is PairKind.TRAIN_HOLDOUT and folds:
                    yield from self._fold_crossing(context, links, counts, overlap)
                elif kind in scopes:
                    yield self._crossing(context, links, counts, overlap, kind, code, severity, scopes[kind])
        yield self._largest(context, links, counts, reviewed)

    def _spellings(self, context: AuditContext, spec: str | list[str]) -> Iterator[Finding]:
        """Source values one spelling apart across splits (`doc-7` in train, `DOC-7 ` in test)."""
        import numpy as np

        from auditor.manifest.overlap import pair_counts_evidence, pair_counts_text
        from auditor.manifest.spelling import (
            accepted_spelling_scope,
            crossing_groups,
            group_examples,
            spelling_scope,
            spelling_text,
        )

        assert isinstance(self.options, SharedUpstreamOptions)
        manifest = context.require_manifest()
        names = manifest.split_names
        spellings = manifest.key_spellings(spec)
        if not spellings.n_groups:
            return
        label = spec if isinstance(spec, str) else compound_label(spec)
        parts = 1 if isinstance(spec, str) else len(spec)
        found = crossing_groups(spellings, names, context.roles, context.acceptances.entries, "UPS005", parts, label)
        if found is None:
            return
        crossing, accepted, live, pairs = found.crossing, found.accepted, found.live, found.pairs
        limit = self.options.max_examples
        if len(live):
            yield self.finding(
                "UPS005",
                found.severity,
                f"{len(live)} '{label}' value(s) differ only by case, spacing, Unicode form, number format "
                "or the quotes, brackets and sentence punctuation around them "
                f"across splits (e.g. {spelling_text(spellings, int(live[0]))}); as one value they link "
                + pair_counts_text(pairs)
                + ".",
                evidence={"key": label, "values": len(live), **pair_counts_evidence(pairs)},
                examples=group_examples(manifest.ids, spellings, live, names, limit),
                scope=spelling_scope(spellings, live, {"values": len(live), **pair_counts_evidence(pairs)}),
                remediation=f"Normalize '{label}' so each upstream object has one spelling.",
            )
        for g, accept in sorted(accepted.items()):
            if crossing[g]:
                yield self.finding(
                    "UPS005",
                    found.severity_of(g),  # accepted it does not count; judged ambiguous (ACC004) it does
                    f"'{label}' spellings {spelling_text(spellings, g)} are one value across splits.",
                    key=accept,
                    evidence={"key": label, "value": spellings.normal[g]},
                    examples=group_examples(manifest.ids, spellings, np.array([g]), names, limit),
                    scope=accepted_spelling_scope(spellings, g, accept),
                )

    def _crossing(
        self,
        context: AuditContext,
        links: LinkedRows,
        counts: np.ndarray,
        overlap: Overlap,
        kind: PairKind,
        code: str,
        severity: Severity,
        scope: Future[Scope],
    ) -> Finding:
        import numpy as np

        from auditor.manifest.overlap import (
            capped_splits,
            holdout_exposure,
            more_text,
            pair_evidence,
            share_text,
            top_pairs,
        )
        from auditor.manifest.placeholders import placeholder_hint

        assert isinstance(self.options, SharedUpstreamOptions)
        roles = context.roles
        mask = overlap.mask(kind)
        crossing = np.flatnonzero(mask)
        sizes = counts[crossing].sum(axis=1)
        order = np.lexsort((crossing, -sizes))[: self.options.max_examples]
        split_rows = context.require_manifest().rows_per_split()
        exposure = holdout_exposure(counts, overlap, mask, roles, split_rows) if kind is PairKind.TRAIN_HOLDOUT else {}
        pairs = overlap.of_kind(kind)
        examples = [self._example(context, links, counts, int(crossing[i]), pairs) for i in order]
        key_names = ", ".join(links.key_names)
        message = (
            f"{len(crossing)} group(s) of samples linked through {key_names} span "
            + ", ".join(f"{p.a} and {p.b} ({p.values} group{'s' if p.values > 1 else ''})" for p in top_pairs(pairs))
            + more_text(len(pairs) - len(top_pairs(pairs)), "pairs")
            + f" ({int(sizes.sum())} rows)."
        )
        if exposure:
            message += " Holdout rows linked to a training row: " + share_text(exposure) + "."
        if examples and examples[0].get("chain_text"):
            message += f" For example: {examples[0]['chain_text']}."
        not_applied, partly = unapplied(context), partly_accepted(context)
        if partly:
            message += partly_text(partly)
        if not_applied:
            message += unapplied_text(not_applied)
        return self.finding(
            code,
            severity,
            message,
            evidence={
                "keys": links.key_names,
                "components": len(crossing),
                "rows": int(sizes.sum()),
                **pair_evidence(pairs, "components", with_rows=False),
                **({"holdout_rows_linked_to_train": capped_splits(exposure)} if exposure else {}),
                **({"accept_not_applied": not_applied} if not_applied else {}),
                **({"accepted_in_part": partly} if partly else {}),
            },
            examples=tuple(examples),
            tables=overlap.tables("linked groups"),
            scope=scope.result(),
            remediation="Split by the linked groups (every connected group of samples in one split); "
            "shared_upstream's chain shows which keys tie the samples together."
            + placeholder_hint(_chain_values(examples)),
        )

    def _scope(
        self,
        context: AuditContext,
        links: LinkedRows,
        crossing: np.ndarray,
        pairs: Pairs,
        kind: PairKind,
        pool: ThreadPoolExecutor,
    ) -> Future[Scope]:
        """What an acceptance of the finding covers: the holdout rows of its linked groups, by id, where a holdout
        is involved; a group that gains a holdout row (a new test row linked to training) has then grown. (Named
        by its first row alone, an accepted group covered every row that joined it later.)"""
        from auditor.manifest.overlap import overlap_scope, rows_overlap_scope

        manifest = context.require_manifest()
        if kind in (PairKind.TRAIN_HOLDOUT, PairKind.HOLDOUT_HOLDOUT):
            names = manifest.split_names
            held = [c for c, name in enumerate(names) if context.roles.role(name) == "holdout"]
            ids = _id_texts(manifest, links.rows_of(crossing, held))
            return pool.submit(rows_overlap_scope, ids, len(crossing), pairs, "components")
        # Elsewhere a linked group is named by the id of its first row.
        named: Future[Scope] = Future()
        named.set_result(overlap_scope((str(i) for i in manifest.ids(links.first_rows(crossing))), pairs, "components"))
        return named

    def _fold_crossing(
        self, context: AuditContext, links: LinkedRows, counts: np.ndarray, overlap: Overlap
    ) -> Iterator[Finding]:
        """One finding per cross-validation fold whose holdout is linked to its training rows; the first carries
        the folds x folds matrix."""
        import numpy as np

        from auditor.manifest.foldshare import fold_shares
        from auditor.manifest.keyscope import text_scope

        assert isinstance(self.options, SharedUpstreamOptions)
        layout = context.roles.folds
        assert layout is not None
        names = context.require_manifest().split_names
        split_rows = context.require_manifest().rows_per_split()
        shares = fold_shares(counts, names, layout, split_rows, overlap.mask(PairKind.TRAIN_HOLDOUT))
        tables = shares.tables("linked groups")
        pairs = overlap.of_kind(PairKind.TRAIN_HOLDOUT)
        key_names = ", ".join(links.key_names)
        manifest = context.require_manifest()
        fold_holdout, _ = layout.matrices(names)  # (splits, folds): the patterns each fold holds out
        for f, fold in enumerate(shares.folds):
            crossing = np.flatnonzero(shares.leak[:, f])
            if not len(crossing):
                continue
            sizes = counts[crossing].sum(axis=1)
            order = np.lexsort((crossing, -sizes))[: self.options.max_examples]
            # The chains shown run between this fold's holdout and its training rows.
            holdout, train = layout.matrices(pairs.order)
            here = (holdout[pairs.first, f] & train[pairs.second, f]) | (
                holdout[pairs.second, f] & train[pairs.first, f]
            )
            in_fold = pairs.select(here)
            examples = [self._example(context, links, counts, int(crossing[i]), in_fold) for i in order]
            rows, held = int(shares.rows[f]), int(shares.holdout_rows[f])
            message = (
                f"{fold}: {len(crossing)} group(s) of samples linked through {key_names} span its holdout and its "
                f"training rows; {rows} of its {held} holdout rows ({rows / held:.0%}) are linked to a training row."
            )
            if examples and examples[0].get("chain_text"):
                message += f" For example: {examples[0]['chain_text']}."
            yield self.finding(
                "UPS001",
                Severity.ERROR,
                message,
                evidence={
                    "keys": links.key_names,
                    "fold": fold,
                    "components": len(crossing),
                    "holdout_rows_linked_to_train": rows,
                    "holdout_rows": held,
                    "share": round(rows / held, 4),
                },
                examples=tuple(examples),
                tables=tables,
                # The fold's holdout rows in these groups, by id: a group that gains one has grown (see _scope).
                scope=text_scope(
                    _id_texts(manifest, links.rows_of(crossing, np.flatnonzero(fold_holdout[:, f]).tolist())),
                    {"components": len(crossing), "rows": rows},
                ),
                remediation="Make the folds by the linked groups (every connected group of samples in one fold), "
                "e.g. GroupKFold on the component; shared_upstream's chain shows which keys tie the samples together.",
            )
            tables = ()

    def _example(
        self,
        context: AuditContext,
        links: LinkedRows,
        counts: np.ndarray,
        component: int,
        pairs: Pairs,
    ) -> dict[str, Any]:
        import numpy as np

        from auditor.manifest.components import Step
        from auditor.manifest.overlap import capped_counts, top_pairs

        manifest = context.require_manifest()
        names = manifest.split_names
        # The component's rows per split are counted already; its rows are not listed (100M may be one).
        per_split = counts[component]
        example: dict[str, Any] = {
            "rows": int(links.sizes[component]),
            "splits": capped_counts({names[i]: int(c) for i, c in enumerate(per_split) if c}),
        }
        here = {names[i] for i in np.flatnonzero(per_split)}
        if len(here) > len(example["splits"]):
            example["splits_total"] = len(here)
        # Chains for the pairs this group spans, at most MAX_LISTED of them. Each is a graph search, and pairs
        # that start in the same holdout split (a fold's holdout against each of its training folds) share one.
        wanted: list[tuple[int, int]] = []
        for p in top_pairs(pairs.within(here)):
            ia, ib = names.index(p.a), names.index(p.b)
            wanted.append((ib, ia) if context.roles.role(p.b) == "holdout" else (ia, ib))
        starts = links.first_in(component, list(dict.fromkeys(h for h, _ in wanted)))
        found: dict[int, dict[int, list[Step]]] = {}
        for h, start in starts.items():
            others = [o for hh, o in wanted if hh == h and per_split[o]]
            if start is not None and others:
                # The search stays in the start's component: any row of the other split it reaches will do.
                found[h] = links.chains(start, others)
        for holdout, other in wanted:
            if holdout in found:
                steps = found[holdout].get(other, [])
                if steps:
                    rows = [s.row for s in steps if s.row is not None]
                    ids, splits = manifest.ids(rows), manifest.split_at(rows)
                    described, it = [], iter(zip(ids, splits, strict=True))
                    for s in steps:
                        if s.row is not None:
                            ident, code = next(it)
                            described.append({"id": ident, "split": names[code]})
                        elif s.spellings:  # the two rows spell the value differently: both, as written
                            described.append({"key": s.key, "value": s.value, "spellings": list(s.spellings)})
                        else:
                            described.append({"key": s.key, "value": s.value})
                    text = " ".join(
                        f"{d['split']} {d['id']}" if "id" in d else f"—{d['key']} {_step_value(d)}—" for d in described
                    )
                    example.setdefault("chains", []).append({"steps": described, "text": text})
        if example.get("chains"):
            # The longest chain is the one no single key shows: lead with it.
            example["chains"].sort(key=lambda c: -len(c["steps"]))
            del example["chains"][MAX_CHAINS:]
            example["chain_text"] = example["chains"][0]["text"]
        return example

    def _largest(
        self, context: AuditContext, links: LinkedRows, counts: np.ndarray, reviewed: dict[str, Reviewed]
    ) -> Finding:
        import numpy as np

        assert isinstance(self.options, SharedUpstreamOptions)
        manifest = context.require_manifest()
        # Rows that share no key value are groups of one.
        size = int(links.sizes.max(initial=1))
        share = size / manifest.n_rows
        linked_rows = int(links.sizes.sum())
        message = (
            f"the largest group of linked samples holds {size} of {manifest.n_rows} rows ({share:.1%}); "
            f"{len(links.sizes)} groups in all over {linked_rows} rows with a key."
            if len(links.sizes)
            else f"no two of the {manifest.n_rows} rows share a key value: each sample is a group of its own."
        )
        # A group wholly in one split is already on one side (a training site, an external test site).
        homes = np.flatnonzero(counts[int(np.argmax(links.sizes))]) if len(links.sizes) else np.zeros(0, np.int64)
        too_big = share > self.options.max_share and len(homes) != 1
        if share > self.options.max_share and len(homes) == 1:
            message += f" It lies wholly in {manifest.split_names[int(homes[0])]}: the split keeps it on one side."
        if too_big:
            message += (
                f" Above {self.options.max_share:.0%}, no split can keep every linked group on one side and still "
                "have a useful holdout: the declared keys link almost everything. Check for a catch-all value "
                "(e.g. 'unknown', a shared template document) or drop the weakest key."
            )
        if reviewed:
            message += " Accepted, and so linking no rows here: " + reviewed_text(reviewed) + "."
        not_applied = unapplied(context)
        if not_applied:
            message += unapplied_text(not_applied)
        return self.finding(
            "UPS003",
            Severity.WARNING if too_big else Severity.INFO,
            message,
            evidence={
                "largest": size,
                "share": round(share, 4),
                "components": len(links.sizes),
                "keys": links.key_names,
                "linked_rows": linked_rows,
                **({"reviewed": reviewed_evidence(reviewed)} if reviewed else {}),
                **({"accept_not_applied": not_applied} if not_applied else {}),
            },
            key=compound_label(links.key_names),
        )


def _step_value(step: dict[str, Any]) -> str:
    """A hop's value in a chain's text: 'W1 / w1' when the rows on either side spell it differently."""
    return " / ".join(step["spellings"]) if step.get("spellings") else str(step["value"])


def _chain_values(examples: list[dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """The (key, value) links of the examples' chains."""
    for example in examples:
        for chain in example.get("chains", ()):
            for step in chain.get("steps", ()):
                if "key" in step and "value" in step:
                    yield str(step["key"]), str(step["value"])


def _id_texts(manifest: Manifest, rows: np.ndarray) -> pa.Array:
    """The sample ids of ``rows`` as text (row numbers without an id column), as findings name rows."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if manifest.id_column is None:
        return pa.array([str(r) for r in rows.tolist()], pa.string())
    values = manifest.take(manifest.id_column, rows)
    return pc.fill_null(values.cast(pa.string()), "")
