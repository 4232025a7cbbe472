"""split_integrity: is every row in exactly one well-named, non-empty split, with a unique id?"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from auditor.core.config import AuditConfig
from auditor.core.findings import Finding, Severity, Table
from auditor.core.scope import MAX_PAIR_COUNTS, Scope, counts_of, scope_of, spelled
from auditor.core.splits import PairKind
from auditor.pipeline.stage import AuditContext, Stage, StageOptions

if TYPE_CHECKING:
    import numpy as np

    from auditor.core.splits import FoldLayout
    from auditor.manifest.table import Manifest

MAX_EXAMPLES = 5


class SplitIntegrityOptions(StageOptions):
    max_examples: int = Field(default=MAX_EXAMPLES, ge=1, description="most examples a finding lists")


def normalized_split_name(name: str) -> str:
    """'Test ', 'TEST' and 'test_' all become 'test': names a human would read as the same split."""
    return re.sub(r"[\W_]+", "", name.casefold())


class SplitIntegrity(Stage):
    name = "split_integrity"
    summary = (
        "duplicate ids within and across splits, rows without a split, look-alike or unknown split names, "
        "empty splits, split sizes"
    )
    needs = ("manifest.path + manifest.split, or manifest.paths", "manifest.id (optional)")
    codes: ClassVar[dict[str, str]] = {
        "SPL000": "split sizes",
        "SPL001": "sample ids in more than one split",
        "SPL002": "sample ids repeated within a split",
        "SPL003": "rows without a split",
        "SPL004": "split names that differ only by case, spacing or punctuation",
        "SPL005": "split not declared as train or holdout",
        "SPL006": "declared split has no rows",
        "SPL007": "rows without a sample id",
        "SPL008": "splits.allow names a split that does not exist",
        "SPL009": "splits.allow exempts a pair with a holdout split: leaks into an evaluation become info",
        "SPL010": "sample ids that differ only by spelling, in different splits",
        "SPL011": "sample ids that differ only by spelling, within one split",
        "SPL012": "cross-validation folds: holdout and training rows per fold",
        "SPL013": "rows in both the training and the holdout indices of one fold",
        "SPL014": "no holdout split has rows: nothing is held out, so no check between train and holdout ran",
    }
    Options = SplitIntegrityOptions
    out_of_core = True
    fold_aware = True

    def prefetch(self, manifest: Manifest, config: AuditConfig) -> None:
        manifest.prefetch(repeated_ids=True)
        if manifest.id_column is not None:
            manifest.spelling(manifest.id_column, background=True)

    def run(self, context: AuditContext) -> Iterator[Finding]:
        import numpy as np

        from auditor.manifest.overlap import MAX_LISTED, capped_counts, capped_title, more_text

        manifest = context.require_manifest()
        assert isinstance(self.options, SplitIntegrityOptions)
        limit = self.options.max_examples
        names = manifest.split_names
        roles = context.roles
        # Counted once a block at a time by the manifest: a mask, a copy and bincount's int64 copy of every
        # row's code would be 13 bytes a row here.
        per_split = manifest.rows_per_split()
        sizes = np.array([per_split.get(n, 0) for n in names], dtype=np.int64)
        present = [n for n, c in zip(names, sizes, strict=True) if c]

        total = manifest.n_rows
        ordered = roles.order(present)
        position = {n: i for i, n in enumerate(names)}
        # Very many splits: list the MAX_LISTED largest (in the usual order) and say how many more.
        shown = capped_counts({n: int(sizes[position[n]]) for n in ordered})
        more = len(ordered) - len(shown)
        yield self.finding(
            "SPL000",
            Severity.INFO,
            f"{total} rows in {len(present)} split(s): "
            + ", ".join(f"{n} {c}" for n, c in shown.items())
            + more_text(more, "splits")
            + ".",
            evidence={"rows": total, "splits": shown, **({"splits_not_listed": more} if more else {})},
            tables=(
                Table(
                    title=capped_title("split sizes", MAX_LISTED, len(ordered), "splits"),
                    columns=("split", "role", "rows", "share"),
                    rows=tuple((n, roles.role(n), c, f"{c / total:.1%}") for n, c in shown.items()),
                ),
            ),
        )

        if roles.folds is not None:
            yield self._fold_sizes(roles.folds, names, sizes, total)
            yield from self._fold_overlaps(manifest, limit)

        missing_split = manifest.rows_without_split()
        if len(missing_split):
            yield self.finding(
                "SPL003",
                Severity.WARNING,
                f"{len(missing_split)} row(s) have no split value (null or blank); they are in no split and "
                "no other check sees them.",
                evidence={"rows": len(missing_split)},
                examples=tuple(
                    {"id": i, "row": int(r)}
                    for i, r in zip(manifest.ids(missing_split[:limit]), missing_split[:limit], strict=True)
                ),
                remediation="Assign these rows to a split, or drop them from the manifest on purpose.",
            )

        yield from self._look_alike_names(present, sizes, names, context)
        yield from self._empty_declared(present, context)
        yield from self._nothing_held_out(present, context)
        yield from self._allow_pairs(present, context)
        yield from self._duplicate_ids(context, limit)
        yield from self._id_spellings(context, limit)

    def _fold_overlaps(self, manifest: Manifest, limit: int) -> Iterator[Finding]:
        """Rows a splitter put in both the training and the holdout indices of one fold (in-code folds only: a
        fold column gives each row one role): the fold is scored on rows it was trained on."""
        overlaps = manifest.source.overlaps if manifest.source is not None else ()
        for overlap in overlaps:
            rows = list(overlap.rows)
            ids = manifest.ids(rows)
            shown = ", ".join(str(i) for i in ids[:limit]) + (" …" if len(ids) > limit else "")
            yield self.finding(
                "SPL013",
                Severity.ERROR,
                f"{overlap.fold}: {len(rows)} row(s) are in both its training and its holdout indices ({shown}); the "
                "fold is evaluated on rows it was trained on. They are counted as its holdout rows.",
                key=overlap.fold,
                evidence={"fold": overlap.fold, "rows": len(rows)},
                examples=tuple({"id": i, "row": r} for i, r in zip(ids[:limit], rows[:limit], strict=True)),
                scope=scope_of((str(i) for i in ids), {"rows": len(rows)}),
                remediation="Fix the splitter so that no fold trains on its own holdout rows (each fold's training "
                "and holdout indices disjoint).",
            )

    def _fold_sizes(self, layout: FoldLayout, names: list[str], sizes: np.ndarray, total: int) -> Finding:
        """Each fold's holdout, training and unused rows, from the rows per assignment pattern."""
        holdout, train = layout.matrices(names)
        held, trained = sizes @ holdout, sizes @ train
        rows = tuple(
            (fold, int(h), int(t), total - int(h) - int(t))
            for fold, h, t in zip(layout.folds, held.tolist(), trained.tolist(), strict=True)
        )
        cv, fixed = rows[: len(layout.cv_folds)], rows[len(layout.cv_folds) :]
        # A fixed holdout split beside the folds is judged on its own against every row the folds train on.
        alone = "; " + ", ".join(f"holdout split {f} ({h} rows) is judged alone against {t}" for f, h, t, _ in fixed)
        return self.finding(
            "SPL012",
            Severity.INFO,
            f"{len(cv)} cross-validation fold{'s' if len(cv) != 1 else ''}: "
            + ", ".join(f"{f} holds out {h} and trains on {t}" for f, h, t, _ in cv)
            + (alone if fixed else "")
            + ".",
            evidence={
                "folds": {f: {"holdout": h, "train": t, "unused": u} for f, h, t, u in cv},
                **({"fixed": {f: {"holdout": h, "train": t, "unused": u} for f, h, t, u in fixed}} if fixed else {}),
            },
            tables=(Table(title="rows per fold", columns=("fold", "holdout", "train", "unused"), rows=rows),),
        )

    def _look_alike_names(
        self, present: list[str], sizes: np.ndarray, names: list[str], context: AuditContext
    ) -> Iterator[Finding]:
        roles = context.roles
        declared = [*roles.train, *roles.holdout]
        groups: dict[str, list[str]] = {}
        for n in sorted(set(present) | set(declared)):
            groups.setdefault(normalized_split_name(n), []).append(n)
        look_alike = set()
        for norm, members in sorted(groups.items()):
            if len(members) < 2:
                continue
            look_alike.update(members)
            counts = {m: int(sizes[names.index(m)]) if m in names else 0 for m in members}
            listed = ", ".join(repr(m) for m in members)
            spec = context.config.splits
            named = {
                "train": set(spec.train) if "train" in spec.model_fields_set else set(),
                "holdout": set(spec.holdout or ()),
            }
            role = {r for r, listed_names in named.items() if set(members) <= listed_names}
            if len(role) == 1:
                # the config names every spelling, in one role: their rows are audited as that role's, as meant
                (one,) = role
                yield self.finding(
                    "SPL004",
                    Severity.INFO,
                    f"split names {listed} differ only by case, spacing or punctuation; the config declares each "
                    f"a {one} split, so their rows are audited as {one} rows, each spelling as a split of its own.",
                    key=norm,
                    evidence={"names": members, "rows": counts, "role": one},
                    scope=spelled(Scope(counts=counts_of({"rows": counts})), members),
                    remediation="Normalize the split column so each split has exactly one spelling.",
                )
                continue
            yield self.finding(
                "SPL004",
                Severity.ERROR,
                f"split names {listed} differ only by case, spacing or "
                "punctuation; rows under a variant are not treated as the split you meant.",
                key=norm,
                evidence={"names": members, "rows": counts},
                scope=spelled(Scope(counts=counts_of({"rows": counts})), members),
                remediation="Normalize the split column so each split has exactly one spelling.",
            )
        for n in present:
            if roles.role(n) == "unknown" and n not in look_alike:
                yield self.finding(
                    "SPL005",
                    Severity.WARNING,
                    f"split {n!r} ({int(sizes[names.index(n)])} rows) is neither in splits.train "
                    f"({sorted(roles.train)}) nor in splits.holdout ({sorted(roles.holdout)}); "
                    "cross-split checks cannot judge it.",
                    key=n,
                    evidence={"split": n, "rows": int(sizes[names.index(n)])},
                    remediation="Declare the split in `splits.train` or `splits.holdout`, or fix its name.",
                )

    def _empty_declared(self, present: list[str], context: AuditContext) -> Iterator[Finding]:
        roles = context.roles
        by_default = "train" not in context.config.splits.model_fields_set
        spec = context.config.manifest
        files = (spec.paths or {}) if spec is not None else {}
        for role, declared in (("train", roles.train), ("holdout", roles.holdout)):
            for n in sorted(declared):
                if n not in present:
                    how = "(the default; set splits.train) " if role == "train" and by_default else "is declared but "
                    if n in files:  # its file holds a header and no row: the split named, nothing of it audited
                        how = f"(manifest.paths: {files[n]}) "
                    yield self.finding(
                        "SPL006",
                        Severity.ERROR,
                        f"the {role} split {n!r} {how}has no rows"
                        + (f" (splits found: {', '.join(sorted(present))})" if present else "")
                        + ".",
                        key=n,
                        evidence={"split": n, "role": role, "splits_found": sorted(present)},
                        remediation="Fix the split name in the config or in the manifest.",
                    )

    def _nothing_held_out(self, present: list[str], context: AuditContext) -> Iterator[Finding]:
        """No row in a holdout split (every split trains, or the manifest holds one split): every check between
        train and holdout compares nothing, and a clean result would mean nothing. A holdout split declared but
        absent is SPL006's; cross-validation folds hold their holdouts in the folds."""
        roles = context.roles
        if roles.folds is not None or roles.holdout:
            return
        trains = [n for n in present if n in roles.train]
        others = sorted(set(present) - set(trains))
        if present and not others:
            what = f"every split in the manifest ({', '.join(sorted(present))}) is a train split"
        elif present:
            what = (
                f"the manifest's splits are train splits ({', '.join(sorted(trains)) or 'none'}) or in no role "
                f"({', '.join(others)}: `splits.holdout` names none of them)"
            )
        else:
            what = "the manifest holds no split"
        yield self.finding(
            "SPL014",
            Severity.ERROR,
            f"no split is held out: {what} (train: {sorted(roles.train)}), so no check between train and holdout "
            "compared anything and a pass would say nothing about the evaluation.",
            evidence={"splits_found": sorted(present), "train": sorted(roles.train)},
            remediation="Audit the manifest that holds the evaluation rows too, or name them in `splits.holdout`.",
        )

    def _allow_pairs(self, present: list[str], context: AuditContext) -> Iterator[Finding]:
        roles = context.roles
        for i, pair in enumerate(context.config.splits.allow):
            for n in pair:
                if n not in present:
                    yield self.finding(
                        "SPL008",
                        Severity.WARNING,
                        f"splits.allow[{i}] names {n!r}, which is not a split in the manifest; "
                        "the exemption does nothing.",
                        key=n,
                        evidence={"pair": list(pair), "splits_found": sorted(present)},
                        remediation="Correct or remove the allow entry.",
                    )
            a, b = pair
            if a != b and a in present and b in present and roles.involves_holdout(a, b):
                where = context.loaded.locate(("splits", "allow", i))
                evaluated = [n for n in pair if roles.role(n) == "holdout"]
                yield self.finding(
                    "SPL009",
                    Severity.WARNING,
                    f"splits.allow[{i}] ({where}) exempts {a}–{b} ({roles.role(a)}–{roles.role(b)}): ids, groups "
                    "and content shared between them are reported as info only, though "
                    + " and ".join(repr(n) for n in evaluated)
                    + (" is a split" if len(evaluated) == 1 else " are splits")
                    + " the model is evaluated on.",
                    key=f"{a}|{b}",
                    evidence={"pair": [a, b], "roles": [roles.role(a), roles.role(b)], "config": where},
                    remediation="Remove the allow entry, or accept this finding with the reason the overlap "
                    "cannot inflate the evaluation.",
                )

    def _duplicate_ids(self, context: AuditContext, limit: int) -> Iterator[Finding]:
        import numpy as np

        from auditor.manifest.overlap import capped_title, largest_first

        manifest = context.require_manifest()
        if manifest.id_column is None:
            return
        names = manifest.split_names
        missing = manifest.rows_without_id()
        if len(missing):
            yield self.finding(
                "SPL007",
                Severity.WARNING,
                f"{len(missing)} row(s) have no value in the id column '{manifest.id_column}'.",
                evidence={"rows": len(missing)},
                examples=tuple({"row": int(r)} for r in missing[:limit]),
                remediation="Give every sample an id, or drop the rows.",
            )
        rows, local = manifest.repeated_ids()
        if not len(rows):
            return
        label = [*names, "<no split>"]
        # A missing split counts as its own bucket, so an id in 'test' and in no split is still seen.
        split = manifest.split_at(rows)
        bucket = np.where(split >= 0, split, len(names))
        presence = np.zeros((int(local.max()) + 1, len(label)), dtype=bool)
        presence[local, bucket] = True
        seen = presence.any(axis=1)
        cross = presence.sum(axis=1) > 1
        within = seen & ~cross

        if cross.any():
            on_cross = cross[local]
            # Ids per split pair from one product over the ids that cross, not a loop over every pair.
            crossing = presence[cross].astype(np.int64)
            together = np.triu(crossing.T @ crossing, k=1)
            first, second = np.nonzero(together)
            ids_per_pair = together[first, second]
            at = largest_first(ids_per_pair)
            listed = [(label[first[i]], label[second[i]], int(ids_per_pair[i])) for i in at]
            shown = {f"{a}|{b}": c for a, b, c in listed}
            more = len(first) - len(listed)
            spanned = {context.roles.pair(label[a], label[b]) for a, b in zip(first, second, strict=True)}
            yield self.finding(
                "SPL001",
                Severity.ERROR,
                f"{int(cross.sum())} sample id(s) occur in more than one split ({int(on_cross.sum())} rows); "
                + "; ".join(_CONSEQUENCE[k] for k in _KIND_ORDER if k in spanned)
                + ".",
                evidence={
                    "ids": int(cross.sum()),
                    "rows": int(on_cross.sum()),
                    "pairs": shown,
                    **({"pairs_total": len(first), "pairs_not_listed": more} if more else {}),
                },
                examples=_id_examples(manifest, rows[on_cross], local[on_cross], label, limit),
                tables=(
                    Table(
                        title=capped_title("ids shared per split pair", len(listed), len(first), "pairs"),
                        columns=("split", "split", "ids"),
                        rows=tuple(listed),
                    ),
                ),
                remediation="Give each sample exactly one split; if the rows are distinct samples, "
                "give them distinct ids.",
                scope=scope_of(
                    _ids_of(manifest, rows[on_cross], local[on_cross]),
                    {
                        "ids": int(cross.sum()),
                        "rows": int(on_cross.sum()),
                        "pairs": len(first),
                        # Each pair's ids while they are few enough to keep (many folds: ~n²/2 pairs).
                        **(
                            {
                                f"{label[a]}|{label[b]}.ids": int(n)
                                for a, b, n in zip(first, second, ids_per_pair, strict=True)
                            }
                            if len(first) <= MAX_PAIR_COUNTS
                            else {}
                        ),
                    },
                ),
            )
        if within.any():
            on_within = within[local]
            per_split = np.bincount(bucket[on_within], minlength=len(label))
            yield self.finding(
                "SPL002",
                Severity.WARNING,
                f"{int(within.sum())} sample id(s) are repeated within one split "
                f"({int(on_within.sum())} rows); "
                "repeated rows weigh those samples more and may hide copies.",
                evidence={
                    "ids": int(within.sum()),
                    "rows": int(on_within.sum()),
                    "rows_per_split": {label[i]: int(c) for i, c in enumerate(per_split) if c},
                },
                examples=_id_examples(manifest, rows[on_within], local[on_within], label, limit),
                remediation="Remove the repeated rows, or give distinct samples distinct ids.",
                scope=scope_of(
                    _ids_of(manifest, rows[on_within], local[on_within]),
                    {"ids": int(within.sum()), "rows": int(on_within.sum())}
                    | {f"{label[i]}.rows": int(c) for i, c in enumerate(per_split) if c},
                ),
            )

    def _id_spellings(self, context: AuditContext, limit: int) -> Iterator[Finding]:
        """Ids equal after normalisation (case, whitespace, Unicode form, number format, quotes and punctuation
        around them) but not before."""
        import numpy as np

        from auditor.manifest.spelling import (
            accepted_groups,
            accepted_spelling_scope,
            group_examples,
            spelling_scope,
            spelling_text,
        )

        manifest = context.require_manifest()
        if manifest.id_column is None:
            return
        variants = manifest.spelling(manifest.id_column)
        if variants is None or not variants.n_groups:
            return
        names = manifest.split_names
        spellings = manifest.row_spellings(manifest.id_column)
        present = spellings.counts > 0
        splits_of_group = np.zeros((spellings.n_groups, len(names)), dtype=bool)
        np.logical_or.at(splits_of_group, spellings.group, present)
        in_splits = splits_of_group.sum(axis=1)
        for code, chosen in (("SPL010", in_splits > 1), ("SPL011", in_splits == 1)):
            groups = np.flatnonzero(chosen)
            accepted = accepted_groups(spellings, context.acceptances.entries, code, 1)
            live = np.array([g for g in groups if g not in accepted], dtype=np.int64)
            if len(live):
                first = live[0]
                kinds = _pair_kinds(splits_of_group[live], names, context) if code == "SPL010" else {}
                yield self.finding(
                    code,
                    # One sample spelt two ways in a training and a holdout split is trained on and evaluated.
                    Severity.ERROR
                    if PairKind.TRAIN_HOLDOUT in kinds
                    # Only across pairs splits.allow exempts: info, as SPL009 says what they share is.
                    else Severity.INFO
                    if set(kinds) == {PairKind.ALLOWED}
                    else Severity.WARNING,
                    f"{len(live)} sample id(s) differ only by case, spacing, Unicode form, number format "
                    "or the quotes, brackets and sentence punctuation around them "
                    f"{_where(kinds)} (e.g. {spelling_text(spellings, int(first))}).",
                    evidence={
                        "ids": len(live),
                        "spellings": int(np.isin(spellings.group, live).sum()),
                        "rows": int(spellings.counts[np.isin(spellings.group, live)].sum()),
                        **({"pair_kinds": {k.value: n for k, n in kinds.items()}} if kinds else {}),
                    },
                    examples=group_examples(manifest.ids, spellings, live, names, limit),
                    scope=spelling_scope(spellings, live, {"ids": len(live)}),
                    remediation="Normalize the id column (one spelling per sample); if the rows are distinct "
                    "samples, give them ids that differ by more than spelling.",
                )
            for g, key in sorted(accepted.items()):
                if chosen[g]:
                    one = _pair_kinds(splits_of_group[[g]], names, context) if code == "SPL010" else {}
                    yield self.finding(
                        code,
                        Severity.WARNING,
                        f"sample id spellings {spelling_text(spellings, g)} are one id {_where(one)}.",
                        key=key,
                        examples=group_examples(manifest.ids, spellings, np.array([g]), names, limit),
                        scope=accepted_spelling_scope(spellings, g, key),
                    )


def _pair_kinds(splits_of_group: np.ndarray, names: list[str], context: AuditContext) -> dict[PairKind, int]:
    """Per kind of split pair, how many groups (rows of split flags) are in both splits of such a pair, most
    serious kind first; only kinds some group spans."""
    import numpy as np

    spanning = {kind: np.zeros(len(splits_of_group), dtype=bool) for kind in _KIND_ORDER}
    used = np.flatnonzero(splits_of_group.any(axis=0))  # only the splits these groups are in
    for n, i in enumerate(used):
        for j in used[n + 1 :]:
            spanning[context.roles.pair(names[i], names[j])] |= splits_of_group[:, i] & splits_of_group[:, j]
    return {kind: int(m.sum()) for kind, m in spanning.items() if m.any()}


# How a sample spelt two ways across a pair of each kind is judged: its wording, most serious first.
_KIND_TEXT = {
    PairKind.TRAIN_HOLDOUT: "in a training and a holdout split: the same sample is trained on and evaluated",
    PairKind.HOLDOUT_HOLDOUT: "in two holdout splits: the same sample is evaluated in both, so their scores are "
    "not independent",
    PairKind.ALLOWED: "in a split pair that splits.allow exempts",
    PairKind.TRAIN_TRAIN: "in two training splits: the same sample is learned from twice",
    PairKind.UNKNOWN: "in splits without a declared role",
}
_KIND_ORDER = tuple(_KIND_TEXT)
# What one sample in both splits of a pair of each kind means.
_CONSEQUENCE = {
    PairKind.TRAIN_HOLDOUT: "the same sample is trained on and evaluated",
    PairKind.HOLDOUT_HOLDOUT: "the same sample is evaluated in two holdout splits, so their scores are not independent",
    PairKind.ALLOWED: "shared between splits that splits.allow exempts",
    PairKind.TRAIN_TRAIN: "the same sample is learned from twice (two training splits)",
    PairKind.UNKNOWN: "in splits without a declared role",
}


def _where(kinds: dict[PairKind, int]) -> str:
    """Where the ids are, by the kinds of split pair they span (no kinds: within one split)."""
    if not kinds:
        return "within one split: a repeated sample in disguise"
    if len(kinds) == 1:
        return _KIND_TEXT[next(iter(kinds))]
    return "in different splits, " + "; ".join(f"{n} {_KIND_TEXT[kind]}" for kind, n in kinds.items())


def _ids_of(manifest: Manifest, rows: np.ndarray, codes: np.ndarray) -> list[str]:
    """Each repeated id once, as written in its first row."""
    import numpy as np

    _, first = np.unique(codes, return_index=True)
    return [str(i) for i in manifest.ids(rows[first])]


def _id_examples(
    manifest: Manifest, rows: np.ndarray, codes: np.ndarray, label: list[str], limit: int
) -> tuple[dict[str, Any], ...]:
    """The first few repeated ids in file order, each with its first rows and their splits."""
    import numpy as np

    _, first = np.unique(codes, return_index=True)
    chosen = codes[np.sort(first)[:limit]]
    picked = [rows[codes == code][:limit] for code in chosen]
    ids = manifest.ids(np.concatenate([p[:1] for p in picked])) if picked else []
    # Their splits asked at once: an engine on a cluster looks them up where the rows are.
    split = manifest.split_at(np.concatenate(picked)) if picked else np.zeros(0, dtype=np.int64)
    ends = np.cumsum([0, *(len(p) for p in picked)])
    return tuple(
        {
            "id": ident,
            "rows": [int(r) for r in rws],
            "splits": [label[s] if s >= 0 else "<no split>" for s in split[ends[i] : ends[i + 1]]],
        }
        for i, (ident, rws) in enumerate(zip(ids, picked, strict=True))
    )
