"""near_duplicates: edited copies across splits (re-encoded or resized images, texts with words changed or
quoted inside longer ones, rows of a feature table with their values nudged); byte-identical files stay with
duplicate_content.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field, model_validator

from auditor.core.config import AuditConfig
from auditor.core.findings import Finding, Severity, Table
from auditor.core.pathoptions import ConfinedCacheDir
from auditor.core.scope import Scope, scope_of
from auditor.core.splits import PairKind, SplitRoles
from auditor.pipeline.stage import AuditContext, Stage, StageOptions

if TYPE_CHECKING:
    import numpy as np

    from auditor.manifest.table import Manifest
    from auditor.similarity.nearcopies import NearCopies, Pairs, Roles, Source

_KIND = {
    PairKind.TRAIN_HOLDOUT: ("NDP001", Severity.ERROR),
    PairKind.HOLDOUT_HOLDOUT: ("NDP002", Severity.WARNING),
    PairKind.ALLOWED: ("NDP006", Severity.INFO),
}
_SNIPPET = 1200  # characters of each text an example shows
_CONTEXT = 160  # characters shown before the first shared passage
_SPAN_CHARS = 200_000
_MEASURE_TEXT = {
    "perceptual": "perceptual hash",
    "mirrored": "perceptual hash of the mirrored image",
    "resemblance": "shingle resemblance",
    "containment": "containment in a longer text",
    "identical": "the same text",
    "features": "feature distance",
    "normalised": "the same short text once normalised",
    "word added": "a short text with one word added",
}
# The code of train-holdout near copies per kind of content (feature rows have their own).
_LEAK_CODE = {"images": "NDP001", "texts": "NDP001", "rows": "NDP009"}


class NearDuplicatesOptions(StageOptions):
    image_distance: int = Field(
        default=8, ge=0, le=32, description="pHash bits (of 64) that may differ in an image pair flagged as a copy"
    )
    mirrored: Literal["flag", "review", "off"] = Field(
        default="review",
        description="mirrored images: flagged as copies, listed for review (symmetric objects look mirrored), or "
        "not compared",
    )
    image_review_distance: int = Field(
        default=12, ge=0, le=32, description="pHash bits up to which a pair is listed for review (info)"
    )
    dhash_distance: int = Field(
        default=14, ge=0, le=64, description="difference-hash bits that may differ: a flagged pair must agree on both"
    )
    text_threshold: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="resemblance (Jaccard of shingles) at or above which a text pair is flagged",
    )
    containment_threshold: float = Field(
        default=0.7,
        gt=0,
        le=1,
        description="share of a holdout text found in one training text at or above which the pair is flagged",
    )
    text_review: float = Field(
        default=0.3, gt=0, le=1, description="resemblance or containment from which a pair is listed for review"
    )
    shingle_words: int = Field(default=5, ge=1, le=32, description="words per shingle for resemblance and containment")
    min_words: int = Field(
        default=20, ge=1, description="words a holdout text needs before containment alone can flag it"
    )
    min_text_words: int = Field(
        default=4,
        ge=1,
        description='shorter texts ("ok", "N/A", "five stars") are compared by their normalised words: the same '
        "words or one word added (said)",
    )
    boilerplate_documents: int | None = Field(
        default=10,
        ge=2,
        description="texts: a shingle in at least this many training texts and this many holdout texts (and 10% of "
        "the smaller side; a holdout side of fewer texts: half of them, at least 2) is boilerplate, a shared "
        "disclaimer, signature or prompt template, and counts for no resemblance, containment or verbatim share; "
        "null counts every shingle",
    )
    verbatim_words: int = Field(default=13, ge=4, le=64, description="words per n-gram of the verbatim-overlap pass")
    verbatim_share: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="share of a holdout text's n-grams found verbatim in train that is a warning",
    )
    max_text_bytes: int = Field(
        default=1_000_000, ge=1000, description="longer texts are compared on their first this many bytes (said)"
    )
    row_neighbours: int = Field(
        default=10,
        ge=3,
        le=100,
        description="feature rows: the neighbour whose distance is a row's local scale (a near copy lies far "
        "closer than it)",
    )
    row_max_ratio: float = Field(
        default=0.2,
        gt=0,
        lt=1,
        description="feature rows: the largest distance, as a share of the local scale, of a near copy (lower in "
        "few dimensions, where neighbours come close by chance)",
    )
    row_discrete_values: int = Field(
        default=20,
        ge=1,
        description="feature rows: numeric features with at most this many values are discrete (must be equal, "
        "take no part in the distance)",
    )
    row_exact_rows: int = Field(
        default=30_000,
        ge=100,
        description="feature rows: up to this many rows the neighbour search is exact; beyond, an index (faiss) "
        "with its recall measured",
    )
    row_memory: int = Field(
        default=2 << 30,
        ge=1 << 20,
        description="feature rows: bytes the neighbour search may use (estimated from rows x features before "
        "anything is allocated); a larger table is not compared and NDP011 says so",
    )
    max_examples: int = Field(default=5, ge=1, le=50, description="most examples a finding lists")
    thumbnails: bool = Field(default=True, description="embed small thumbnails of example images in the report")
    cache_dir: ConfinedCacheDir | None = Field(
        default=None, description="file digest and image hash cache, as for duplicate_content"
    )

    @model_validator(mode="after")
    def _review_is_looser(self) -> NearDuplicatesOptions:
        if self.image_review_distance < self.image_distance:
            raise ValueError("image_review_distance must be at least image_distance (the review zone lies beyond it)")
        if self.text_review > min(self.text_threshold, self.containment_threshold):
            raise ValueError(
                "text_review must not exceed text_threshold or containment_threshold (the review zone lies below them)"
            )
        return self


def _roles(manifest: Manifest, roles: SplitRoles) -> Roles:
    from auditor.similarity.nearcopies import Roles

    names = manifest.split_names
    if roles.folds is not None:  # cross-validation: a pattern that trains (or is held out) in any fold
        import numpy as np

        holdout, train = roles.folds.matrices(names)
        trains, held = np.flatnonzero(train.any(axis=1)), np.flatnonzero(holdout.any(axis=1))
        per_fold = tuple(
            (
                frozenset(int(i) for i in np.flatnonzero(train[:, f])),
                frozenset(int(i) for i in np.flatnonzero(holdout[:, f])),
            )
            for f in range(len(roles.folds.folds))
        )
        return Roles(frozenset(int(i) for i in trains), frozenset(int(i) for i in held), per_fold)
    return Roles(
        frozenset(i for i, n in enumerate(names) if roles.role(n) == "train"),
        frozenset(i for i, n in enumerate(names) if roles.role(n) == "holdout"),
    )


def near_copies(context: AuditContext, options: NearDuplicatesOptions) -> NearCopies:
    """The near pairs of the config's content, computed once per audit (shared_upstream links them too)."""
    from auditor.manifest.content import cache_dir_from
    from auditor.manifest.features import feature_columns
    from auditor.similarity.featurerows import RowSettings
    from auditor.similarity.minhash import TextSettings
    from auditor.similarity.nearcopies import find
    from auditor.similarity.perceptual import ImageSettings

    manifest = context.require_manifest()
    keys = context.config.keys
    cache_dir = cache_dir_from(options.cache_dir, context.loaded.base_dir)
    job = ("near_copies", options.model_dump_json())

    def work() -> NearCopies:
        files = None
        if keys.content_path is not None:
            per_row, _, _ = manifest.content_digests(keys.content_path, cache_dir)
            files = (per_row, manifest.table[keys.content_path], manifest.content_base)
        columns = feature_columns(context.config, manifest.table.column_names)
        return find(
            manifest.n_rows,
            manifest.split.codes,
            len(manifest.split_names),
            _roles(manifest, context.roles),
            texts=manifest.table[keys.text] if keys.text is not None else None,
            text_column=keys.text or "",
            files=files,
            path_column=keys.content_path or "",
            image_settings=ImageSettings(
                flag_distance=options.image_distance,
                review_distance=options.image_review_distance,
                dhash_distance=options.dhash_distance,
                mirrored=options.mirrored != "off",
                flag_mirrored=options.mirrored == "flag",
            ),
            text_settings=TextSettings(
                shingle=options.shingle_words,
                threshold=options.text_threshold,
                containment=options.containment_threshold,
                review=options.text_review,
                min_words=options.min_words,
                verbatim=options.verbatim_words,
                boilerplate=options.boilerplate_documents,
                max_chars=options.max_text_bytes,
            ),
            max_text_bytes=options.max_text_bytes,
            min_text_words=options.min_text_words,
            cache_dir=cache_dir,
            stop=manifest.stop_event,
            features=(manifest.table, columns) if columns else None,
            row_settings=RowSettings(
                neighbours=options.row_neighbours,
                max_ratio=options.row_max_ratio,
                discrete_values=options.row_discrete_values,
                exact_rows=options.row_exact_rows,
                memory=options.row_memory,
            ),
        )

    result: NearCopies = manifest.memo(job, work)
    return result


def options_of(config: AuditConfig) -> NearDuplicatesOptions | None:
    """The stage's options as the config sets them; None when the stage is switched off."""
    options = NearDuplicatesOptions.model_validate(config.stages.get(NearDuplicates.name) or {})
    return options if options.enabled else None


class NearDuplicates(Stage):
    name = "near_duplicates"
    summary = (
        "edited copies across splits: images by perceptual hash, texts by n-gram resemblance and containment, "
        "feature rows by their distance against their neighbours'"
    )
    needs = ("manifest", "keys.content_path (image or text files), keys.text (a text column) or keys.features")
    codes: ClassVar[dict[str, str]] = {
        "NDP001": "near-duplicate content in train and holdout",
        "NDP002": "near-duplicate content in two holdout splits",
        "NDP003": "similar pairs below the flag threshold, listed for review",
        "NDP004": "holdout texts largely present verbatim in training texts",
        "NDP005": "content files that could not be read or decoded",
        "NDP006": "near-duplicate content in an allowed split pair",
        "NDP007": "content not compared in full: texts cut at the size cap, files neither image nor text",
        "NDP008": "verbatim n-gram overlap of holdout texts with training texts",
        "NDP009": "near-duplicate rows of the feature table in train and holdout",
        "NDP010": "near copies within one split (more weight in training, not a leak)",
        "NDP011": "feature rows not compared in full: over the memory budget, or an index short of its recall",
        "NDP012": "rows with no text or content path (null or blank): an error when a whole side of the split has none",
    }
    Options = NearDuplicatesOptions
    fold_aware = True

    def missing_input(self, config: AuditConfig) -> str | None:
        if config.keys.content_path is None and config.keys.text is None and config.keys.features is None:
            return (
                "no content to compare: set `keys.content_path` (image or text files), `keys.text` (a text column) "
                "or `keys.features` (the feature columns)"
            )
        return None

    def run(self, context: AuditContext) -> Iterator[Finding]:
        assert isinstance(self.options, NearDuplicatesOptions)
        found = near_copies(context, self.options)
        for source in found.sources:
            yield from self._pairs(context, source)
            yield from self._review(context, source)
            if source.kind == "texts":
                yield from self._verbatim(context, source)
            yield from self._within(context, source)
        yield from self._not_compared(context, found)

    # -- pairs by split pair -------------------------------------------------------------------------------

    def _classify(self, context: AuditContext, source: Source, pick: np.ndarray) -> dict[PairKind, Any]:
        """For the pairs in ``pick``: per pair kind, the pairs involved and per split pair the pair/row counts."""
        import numpy as np

        manifest = context.require_manifest()
        names = manifest.split_names
        p = source.pairs
        a, b = p.a[pick], p.b[pick]
        ca, cb = source.units.per_split[a], source.units.per_split[b]
        same = a == b  # an identical text in two splits: its row pairs are counted once
        out: dict[PairKind, Any] = {}
        # Train splits first, then holdout, so a pair reads "train-test" whatever order the manifest has.
        ordered = [names.index(n) for n in context.roles.order(list(names))]
        for i, s1 in enumerate(ordered):
            for s2 in ordered[i + 1 :]:
                kind = context.roles.pair(names[s1], names[s2])
                if kind not in _KIND:
                    continue
                # Row pairs of this split pair, one split pair at a time: memory stays at the number of pairs
                # however many splits there are.
                between = np.where(same, ca[:, s1] * cb[:, s2], ca[:, s1] * cb[:, s2] + ca[:, s2] * cb[:, s1])
                hit = between > 0
                if not hit.any():
                    continue
                entry = out.setdefault(
                    kind,
                    {"mask": np.zeros(len(a), dtype=bool), "pairs": {}, "where": np.full((len(a), 2), -1)},
                )
                entry["where"][hit & ~entry["mask"]] = (s1, s2)
                entry["mask"] |= hit
                entry["pairs"][(names[s1], names[s2])] = (int(hit.sum()), int(between[hit].sum()))
        return out

    def _pairs(self, context: AuditContext, source: Source) -> Iterator[Finding]:
        import numpy as np

        assert isinstance(self.options, NearDuplicatesOptions)
        flagged = np.flatnonzero(source.pairs.flagged)
        if not len(flagged):
            return
        for kind, info in self._classify(context, source, flagged).items():
            if kind is PairKind.TRAIN_HOLDOUT and context.roles.folds is not None:
                yield from self._fold_pairs(context, source, flagged)
                continue
            code, severity = _KIND[kind]
            if kind is PairKind.TRAIN_HOLDOUT:
                code = _LEAK_CODE[source.kind]
            pick = flagged[info["mask"]]
            where = info["where"][info["mask"]]
            pair_counts = info["pairs"]
            pairs_text = "; ".join(
                f"{s1}–{s2}: {n} pair(s) of items, {r} pair(s) of rows" for (s1, s2), (n, r) in pair_counts.items()
            )
            exposure = self._exposure(context, source, pick) if kind is PairKind.TRAIN_HOLDOUT else {}
            measures = dict(zip(*np.unique(source.pairs.measure[pick].astype(str), return_counts=True), strict=True))
            message = (
                f"{len(pick)} pair(s) of {source.label} are near copies across splits ({pairs_text}); caught by "
                + ", ".join(f"{_MEASURE_TEXT.get(str(m), m)} ({int(n)})" for m, n in measures.items())
                + "."
            )
            if exposure:
                message += (
                    " Holdout rows with a near copy in train: "
                    + ", ".join(f"{s} {e['rows']} of {e['of']} ({e['share']:.1%})" for s, e in exposure.items())
                    + "."
                )
            if source.pairs.capped:
                message += " Pairs per item were capped; counts of items are exact, counts of pairs are at least these."
            yield self.finding(
                code,
                severity,
                message,
                key=source.column,
                evidence={
                    "content": source.label,
                    "pairs": len(pick),
                    "measures": {str(m): int(n) for m, n in measures.items()},
                    "split_pairs": {f"{s1}–{s2}": {"pairs": n, "rows": r} for (s1, s2), (n, r) in pair_counts.items()},
                    **({"holdout_rows_near_train": exposure} if exposure else {}),
                    **self._thresholds(source),
                },
                examples=self._examples(context, source, pick, where),
                tables=(self._pair_table(pair_counts, kind),),
                scope=self._pair_scope(context, source, pick, pair_counts),
                remediation="Remove the near copies from the holdout split (or move the whole cluster to one split); "
                "an edited copy of a training item tests memory, not generalisation.",
            )

    def _pair_scope(
        self, context: AuditContext, source: Source, pick: np.ndarray, pair_counts: dict[tuple[str, str], Any]
    ) -> Scope:
        """Every flagged pair, named by the sample ids of its two items' first rows, and the counts per split pair."""
        ids = context.require_manifest().ids
        first = source.units.first_row
        a, b = ids(first[source.pairs.a[pick]]), ids(first[source.pairs.b[pick]])
        counts = {"pairs": len(pick)}
        for (s1, s2), (n, r) in pair_counts.items():
            counts[f"{s1}|{s2}.pairs"], counts[f"{s1}|{s2}.rows"] = int(n), int(r)
        return scope_of((" ~ ".join(sorted((str(x), str(y)))) for x, y in zip(a, b, strict=True)), counts)

    def _fold_pairs(self, context: AuditContext, source: Source, flagged: np.ndarray) -> Iterator[Finding]:
        """NDP001 per cross-validation fold: near copies between its holdout and its training rows."""
        import numpy as np

        manifest = context.require_manifest()
        layout = context.roles.folds
        assert layout is not None
        names = manifest.split_names
        holdout, train = layout.matrices(names)
        per = source.units.per_split
        a, b = source.pairs.a[flagged], source.pairs.b[flagged]
        sizes = manifest.rows_per_split()
        for f, fold in enumerate(layout.folds):
            h, t = np.flatnonzero(holdout[:, f]), np.flatnonzero(train[:, f])
            in_holdout, in_train = per[:, h].sum(axis=1) > 0, per[:, t].sum(axis=1) > 0
            forward, backward = in_holdout[a] & in_train[b], in_holdout[b] & in_train[a]
            leak = forward | backward
            if not leak.any():
                continue
            pick = flagged[leak]
            held_unit = np.where(forward[leak], a[leak], b[leak])
            near_unit = np.where(forward[leak], b[leak], a[leak])
            # Each pair shown as a row of the fold's holdout and the training row it nearly copies.
            where = np.stack(
                [t[np.argmax(per[near_unit][:, t] > 0, axis=1)], h[np.argmax(per[held_unit][:, h] > 0, axis=1)]], axis=1
            )
            rows = int(per[np.unique(held_unit)][:, h].sum())
            total = sum(sizes.get(names[int(s)], 0) for s in h)
            measures = dict(zip(*np.unique(source.pairs.measure[pick].astype(str), return_counts=True), strict=True))
            message = (
                f"{fold}: {len(pick)} pair(s) of {source.label} are near copies between its holdout and its training "
                f"rows; {rows} of its {total} holdout rows ({rows / total:.0%}) have a near copy it trains on; "
                "caught by "
                + ", ".join(f"{_MEASURE_TEXT.get(str(m), m)} ({int(n)})" for m, n in measures.items())
                + "."
            )
            if source.pairs.capped:
                message += " Pairs per item were capped; counts of items are exact, counts of pairs are at least these."
            yield self.finding(
                _LEAK_CODE[source.kind],
                Severity.ERROR,
                message,
                key=source.column,
                evidence={
                    "content": source.label,
                    "fold": fold,
                    "pairs": len(pick),
                    "measures": {str(m): int(n) for m, n in measures.items()},
                    "holdout_rows_near_train": rows,
                    "holdout_rows": total,
                    "share": round(rows / total, 4) if total else 0.0,
                    **self._thresholds(source),
                },
                examples=self._examples(context, source, pick, where),
                scope=self._pair_scope(context, source, pick, {}),
                remediation="Keep each cluster of near copies in one fold (make the folds by the cluster); an edited "
                "copy of a training item tests memory, not generalisation.",
            )

    def _thresholds(self, source: Source) -> dict[str, Any]:
        assert isinstance(self.options, NearDuplicatesOptions)
        o = self.options
        if source.kind == "images":
            return {"thresholds": {"phash_bits": o.image_distance, "dhash_bits": o.dhash_distance}}
        if source.kind == "rows":
            return _row_thresholds(source, o)
        bands, rows = source.lsh or (0, 0)
        return {
            "thresholds": {
                "resemblance": o.text_threshold,
                "containment": o.containment_threshold,
                "shingle_words": o.shingle_words,
            },
            "lsh": {"bands": bands, "rows": rows},
        }

    @staticmethod
    def _pair_table(pair_counts: dict[tuple[str, str], tuple[int, int]], kind: PairKind) -> Table:
        return Table(
            title="near copies per split pair",
            columns=("split", "split", "judged as", "pairs of items", "pairs of rows"),
            rows=tuple((s1, s2, kind.value, n, r) for (s1, s2), (n, r) in pair_counts.items()),
        )

    def _exposure(self, context: AuditContext, source: Source, pick: np.ndarray) -> dict[str, dict[str, Any]]:
        """Per holdout split: rows whose item has a flagged near copy among training items."""
        import numpy as np

        manifest = context.require_manifest()
        names = manifest.split_names
        per = source.units.per_split
        train = [i for i, n in enumerate(names) if context.roles.role(n) == "train"]
        has_train = per[:, train].sum(axis=1) > 0 if train else np.zeros(source.units.n, dtype=bool)
        a, b = source.pairs.a[pick], source.pairs.b[pick]
        near_train = np.zeros(source.units.n, dtype=bool)
        near_train[a[has_train[b]]] = True
        near_train[b[has_train[a]]] = True
        sizes = manifest.rows_per_split()
        out: dict[str, dict[str, Any]] = {}
        for s, name in enumerate(names):
            if context.roles.role(name) != "holdout":
                continue
            rows = int(per[near_train, s].sum())
            if rows:
                total = sizes.get(name, 0)
                out[name] = {"rows": rows, "of": total, "share": round(rows / total, 4) if total else 0.0}
        return out

    # -- examples ------------------------------------------------------------------------------------------

    def _examples(
        self, context: AuditContext, source: Source, pick: np.ndarray, where: np.ndarray
    ) -> tuple[dict[str, Any], ...]:
        """The most similar pairs, each shown as a holdout row and the row it nearly copies.

        ``where`` holds, per pair, the split pair it was judged in (train or the earlier holdout split first).
        """
        assert isinstance(self.options, NearDuplicatesOptions)
        manifest = context.require_manifest()
        names = manifest.split_names
        p = source.pairs
        top = self._spread(pick, where, p)
        out = []
        for k in top:
            i = pick[k]
            near_split, holdout_split = (int(v) for v in where[k])
            a, b = int(p.a[i]), int(p.b[i])
            per = source.units.per_split
            # The holdout side is the unit with rows in the later split of the pair (b when both fit).
            holdout, near = (b, a) if per[b, holdout_split] and per[a, near_split] else (a, b)
            rows = [
                self._row_of(manifest, source, holdout, holdout_split),
                self._row_of(manifest, source, near, near_split),
            ]
            ids = manifest.ids(rows)
            example: dict[str, Any] = {
                "holdout": ids[0],
                "holdout_split": names[holdout_split],
                "near": ids[1],
                "near_split": names[near_split],
                "similarity": round(float(p.similarity[i]), 3),
                "measure": str(p.measure[i]),
            }
            if p.distance is not None:
                example["phash_bits"] = int(p.distance[i])
            if source.space is not None and source.search is not None:
                from auditor.similarity.featurerows import differences

                example["distance"] = float(f"{source.search.distance[i]:.4g}")
                example["local_scale"] = float(f"{source.search.scale[i]:.4g}")
                example["features"] = differences(source.space, holdout, near)
            preview = self._preview(source, holdout, near)
            if preview:
                example["preview"] = preview
            out.append(example)
        return tuple(out)

    def _spread(self, pick: np.ndarray, where: np.ndarray, p: Pairs) -> list[int]:
        """Positions in ``pick`` to show: the most similar pair of each split pair first, then of each holdout
        item not shown yet, then the most similar of the rest, so one item or one split pair cannot fill
        every example."""
        import numpy as np

        assert isinstance(self.options, NearDuplicatesOptions)
        limit = self.options.max_examples
        order = np.lexsort((p.b[pick], p.a[pick], -p.similarity[pick])).tolist()
        rank = {k: r for r, k in enumerate(order)}
        chosen: dict[int, None] = {}
        split_pairs: set[tuple[int, int]] = set()
        items: set[int] = set()

        def take(k: int) -> None:
            chosen[k] = None
            items.update((int(p.a[pick[k]]), int(p.b[pick[k]])))

        for k in order:
            if len(chosen) >= limit:
                break
            key = (int(where[k][0]), int(where[k][1]))
            if key not in split_pairs:
                split_pairs.add(key)
                take(k)
        for k in order:
            if len(chosen) >= limit:
                break
            if k not in chosen and not {int(p.a[pick[k]]), int(p.b[pick[k]])} & items:
                take(k)
        for k in order:
            if len(chosen) >= limit:
                break
            chosen.setdefault(k, None)
        return sorted(chosen, key=rank.__getitem__)  # shown most similar first

    @staticmethod
    def _row_of(manifest: Manifest, source: Source, unit: int, split: int) -> int:
        """The first row of ``unit`` in ``split`` (a unit is a content; its rows may lie in several splits)."""
        import numpy as np

        rows = np.flatnonzero((source.units.of_row == unit) & (manifest.split.codes == split))
        return int(rows[0]) if len(rows) else int(source.units.first_row[unit])

    def _preview(self, source: Source, first: int, second: int) -> dict[str, Any] | None:
        assert isinstance(self.options, NearDuplicatesOptions)
        if source.kind == "images":
            if not self.options.thumbnails or source.paths is None:
                return None
            from auditor.similarity.perceptual import thumbnail_uri

            left, right = thumbnail_uri(source.paths[first]), thumbnail_uri(source.paths[second])
            return {"kind": "images", "holdout": left, "near": right} if left and right else None
        if source.texts is None:
            return None
        from auditor.similarity.shingles import shared_spans

        # Spans are found on the first _SPAN_CHARS of each text: enough for any passage an example shows.
        left_text, right_text = (source.texts[first] or "")[:_SPAN_CHARS], (source.texts[second] or "")[:_SPAN_CHARS]
        left_spans, right_spans = shared_spans(left_text, right_text, self.options.shingle_words)
        return {
            "kind": "texts",
            "holdout": _snippet(left_text, left_spans),
            "near": _snippet(right_text, right_spans),
        }

    # -- review zone, verbatim overlap, what was not compared -------------------------------------------------

    def _review(self, context: AuditContext, source: Source) -> Iterator[Finding]:
        import numpy as np

        assert isinstance(self.options, NearDuplicatesOptions)
        grey = np.flatnonzero(~source.pairs.flagged)
        if not len(grey):
            return
        kinds = self._classify(context, source, grey)
        mask = np.zeros(len(grey), dtype=bool)
        where = np.full((len(grey), 2), -1)
        for kind in (PairKind.TRAIN_HOLDOUT, PairKind.HOLDOUT_HOLDOUT):
            if kind in kinds:
                fresh = kinds[kind]["mask"] & ~mask
                where[fresh] = kinds[kind]["where"][fresh]
                mask |= kinds[kind]["mask"]
        pick, where = grey[mask], where[mask]
        if not len(pick):
            return
        short = 0
        if source.kind == "images":
            zone = f"pHash within {self.options.image_review_distance} bits but not flagged"
        else:
            zone = (
                f"resemblance or containment from {self.options.text_review} to below {self.options.text_threshold} "
                f"and {self.options.containment_threshold}"
            )
            short = int(np.sum(source.pairs.measure[pick] == "normalised"))
            if short:
                zone += (
                    f"; {short} of them short texts (fewer than {self.options.min_text_words} words) that are the "
                    "same once case, accents and punctuation are set aside, but of one word or a wording the data "
                    "repeats"
                )
        yield self.finding(
            "NDP003",
            Severity.INFO,
            f"{len(pick)} pair(s) of {source.label} across splits are similar but below the flag threshold "
            f"({zone}); worth a look, not counted as leaks.",
            key=source.column,
            evidence={
                "content": source.label,
                "pairs": len(pick),
                **({"short_texts": short} if short else {}),
                **self._thresholds(source),
            },
            examples=self._examples(context, source, pick, where),
        )

    def _verbatim(self, context: AuditContext, source: Source) -> Iterator[Finding]:
        import numpy as np

        assert isinstance(self.options, NearDuplicatesOptions)
        share = source.verbatim_share
        if share is None:
            return
        if context.roles.folds is not None:
            yield from self._fold_verbatim(context, source)
            return
        manifest = context.require_manifest()
        names = manifest.split_names
        per = source.units.per_split
        known = ~np.isnan(share)
        rows_table = []
        summary: dict[str, Any] = {}
        for s, name in enumerate(names):
            if context.roles.role(name) != "holdout":
                continue
            mine = known & (per[:, s] > 0)
            if not mine.any():
                continue
            some = mine & (share > 0)
            high = mine & (share >= self.options.verbatim_share)
            weights = per[mine, s]
            mean = float(np.average(share[mine], weights=weights))
            summary[name] = {
                "texts": int(per[mine, s].sum()),
                "with_overlap": int(per[some, s].sum()),
                "at_or_above_share": int(per[high, s].sum()),
                "mean_share": round(mean, 4),
            }
            rows_table.append(
                (
                    name,
                    summary[name]["texts"],
                    summary[name]["with_overlap"],
                    summary[name]["at_or_above_share"],
                    f"{mean:.2%}",
                )
            )
        if not any(v["with_overlap"] for v in summary.values()):
            return
        n = self.options.verbatim_words
        table = Table(
            title=f"{n}-word passages of holdout texts found verbatim in training texts",
            columns=("split", "texts", "with any", f"≥ {self.options.verbatim_share:.0%} of the text", "mean share"),
            rows=tuple(rows_table),
        )
        yield self.finding(
            "NDP008",
            Severity.INFO,
            f"verbatim {n}-word overlap of holdout {source.label} with training texts: "
            + ", ".join(f"{s} {v['with_overlap']} of {v['texts']} text(s) share a passage" for s, v in summary.items())
            + ".",
            key=source.column,
            evidence={"content": source.label, "ngram_words": n, "per_split": summary},
            tables=(table,),
        )
        # A holdout text mostly found verbatim in train but near no single training text: a collage of copies.
        flagged = source.pairs.flagged
        near = np.zeros(source.units.n, dtype=bool)
        near[source.pairs.a[flagged]] = True
        near[source.pairs.b[flagged]] = True
        loose = np.flatnonzero(known & (share >= self.options.verbatim_share) & ~near)
        if len(loose):
            yield self._collage(context, source, loose, share, None)

    def _fold_verbatim(self, context: AuditContext, source: Source) -> Iterator[Finding]:
        """NDP008 and NDP004 per cross-validation fold: its holdout texts against its own training texts only."""
        import numpy as np

        assert isinstance(self.options, NearDuplicatesOptions)
        layout = context.roles.folds
        assert layout is not None and source.fold_shares is not None
        manifest = context.require_manifest()
        holdout, train = layout.matrices(manifest.split_names)
        per = source.units.per_split
        n, least = self.options.verbatim_words, self.options.verbatim_share
        flagged = source.pairs.flagged
        a, b = source.pairs.a[flagged], source.pairs.b[flagged]
        for f, fold in enumerate(layout.folds):
            share = source.fold_shares[f]
            held = per[:, holdout[:, f]].sum(axis=1)
            mine = ~np.isnan(share) & (held > 0)
            some = mine & (share > 0)
            if not some.any():
                continue
            high = mine & (share >= least)
            texts, with_overlap, above = int(held[mine].sum()), int(held[some].sum()), int(held[high].sum())
            mean = float(np.average(share[mine], weights=held[mine]))
            overlapping = np.flatnonzero(some)
            yield self.finding(
                "NDP008",
                Severity.INFO,
                f"{fold}: verbatim {n}-word overlap of its holdout {source.label} with its training texts: "
                f"{with_overlap} of {texts} text(s) share a passage, {above} for at least {least:.0%} of the text "
                f"(mean share {mean:.2%}).",
                key=source.column,
                evidence={
                    "content": source.label,
                    "fold": fold,
                    "ngram_words": n,
                    "texts": texts,
                    "with_overlap": with_overlap,
                    "at_or_above_share": above,
                    "mean_share": round(mean, 4),
                },
                scope=scope_of(
                    (str(i) for i in manifest.ids(source.units.first_row[overlapping])), {"texts": with_overlap}
                ),
            )
            # As without folds: mostly verbatim in the fold's training texts, near none of them (a collage).
            trains = per[:, train[:, f]].sum(axis=1) > 0
            near = np.zeros(source.units.n, dtype=bool)
            near[a[trains[b]]] = True
            near[b[trains[a]]] = True
            loose = np.flatnonzero(high & ~near)
            if len(loose):
                yield self._collage(context, source, loose, share, fold)

    def _collage(
        self, context: AuditContext, source: Source, loose: np.ndarray, share: np.ndarray, fold: str | None
    ) -> Finding:
        """NDP004: holdout texts mostly verbatim in training texts but near none of them (of one fold's, with
        ``fold``), the most copied first."""
        import numpy as np

        assert isinstance(self.options, NearDuplicatesOptions)
        manifest = context.require_manifest()
        n, least = self.options.verbatim_words, self.options.verbatim_share
        loose = loose[np.argsort(-share[loose], kind="stable")]
        rows = source.units.first_row[loose[: self.options.max_examples]]
        if fold is None:
            title = f"{len(loose)} holdout text(s) of {source.label}"
            where, remediation = (
                "training texts",
                "Check where these texts come from: passages of them were trained on.",
            )
        else:
            title = f"{fold}: {len(loose)} of its holdout text(s) of {source.label}"
            where = "its training texts"
            remediation = (
                "Check where these texts come from: passages of them were trained on in this fold; keep "
                "texts that share passages in one fold."
            )
        return self.finding(
            "NDP004",
            Severity.WARNING,
            f"{title} have at least {least:.0%} of their {n}-word passages verbatim in {where}, spread over several "
            "of them (no single training text is a near copy).",
            key=source.column,
            evidence={
                "content": source.label,
                **({"fold": fold} if fold is not None else {}),
                "texts": len(loose),
                "ngram_words": n,
            },
            examples=tuple(
                {"holdout": i, "verbatim_share": round(float(share[u]), 3)}
                for i, u in zip(manifest.ids(rows), loose, strict=False)
            ),
            remediation=remediation,
            scope=scope_of((str(i) for i in manifest.ids(source.units.first_row[loose])), {"texts": len(loose)}),
        )

    def _within(self, context: AuditContext, source: Source) -> Iterator[Finding]:
        """Near copies whose two items share a split (only feature rows are searched within every split)."""
        import numpy as np

        assert isinstance(self.options, NearDuplicatesOptions)
        if source.kind != "rows":
            return
        p = source.pairs
        pick = np.flatnonzero(p.flagged)
        if not len(pick):
            return
        names = context.require_manifest().split_names
        per = source.units.per_split > 0
        both = per[p.a[pick]] & per[p.b[pick]]  # (pairs, splits)
        inside = both.any(axis=1)
        if not inside.any():
            return
        pick, both = pick[inside], both[inside]
        counts: dict[str, dict[str, int]] = {}
        for s in np.flatnonzero(both.any(axis=0)):
            mine = pick[both[:, s]]
            rows = len(np.union1d(p.a[mine], p.b[mine]))
            counts[names[int(s)]] = {"pairs": len(mine), "rows": int(rows)}
        split = np.argmax(both, axis=1)
        where = np.stack([split, split], axis=1)
        yield self.finding(
            "NDP010",
            Severity.INFO,
            f"{len(pick)} pair(s) of {source.label} are near copies within one split ("
            + "; ".join(f"{s}: {c['pairs']} pair(s), {c['rows']} row(s)" for s, c in counts.items())
            + "): an edited copy weighs twice in training (or in a score), which is not a leak.",
            key=source.column,
            evidence={"content": source.label, "pairs": len(pick), "per_split": counts, **self._thresholds(source)},
            # Both rows of a pair lie in one split: shown as a row and its near copy.
            examples=tuple(
                {
                    "row": e.pop("holdout"),
                    "split": e.pop("holdout_split"),
                    **{k: v for k, v in e.items() if k != "near_split"},
                }
                for e in map(dict, self._examples(context, source, pick, where))
            ),
            scope=self._pair_scope(context, source, pick, {}),
            remediation="Drop or merge the copies if each entity should count once.",
        )

    def _not_compared(self, context: AuditContext, found: NearCopies) -> Iterator[Finding]:
        from auditor.manifest.blankrows import blank_rows
        from auditor.manifest.content import cache_dir_from, none_read, refuse_unread_side

        assert isinstance(self.options, NearDuplicatesOptions)
        limit = self.options.max_examples
        keys = context.config.keys
        failed = dict(found.unreadable)
        for column, what in ((keys.content_path, "content"), (keys.text, "text")):
            blank = blank_rows(context.require_manifest(), context.roles, column, what) if column else None
            if blank is not None:
                remediation = f"Fill in '{column}' for every row, or drop the rows that have no {what}."
                yield blank.finding(self.finding, "NDP012", remediation)
        if keys.content_path is not None:
            _, digests, paths = context.require_manifest().content_digests(
                keys.content_path, cache_dir_from(self.options.cache_dir, context.loaded.base_dir)
            )
            none_read(keys.content_path, paths, digests.failures)
            failed.update(digests.failures)
            if found.unread_rows is not None:
                manifest = context.require_manifest()
                refuse_unread_side(manifest, context.roles, keys.content_path, found.unread_rows, failed)
        if failed:
            shown = sorted(failed.items())
            yield self.finding(
                "NDP005",
                Severity.WARNING,
                f"{len(shown)} file(s) named in '{keys.content_path}' could not be read or decoded, so they were not "
                f"compared, e.g. {shown[0][0]} ({shown[0][1]}).",
                key=keys.content_path,
                evidence={"files": len(shown)},
                examples=tuple({"path": p, "reason": r} for p, r in shown[:limit]),
                remediation="Restore or replace the damaged files; an unreadable holdout file cannot be vouched for.",
            )
        notes = []
        evidence: dict[str, Any] = {}
        for source in found.sources:
            if source.truncated is not None and len(source.truncated):
                notes.append(
                    f"{len(source.truncated)} of {source.label} were compared on their first "
                    f"{self.options.max_text_bytes:,} bytes"
                )
                evidence["texts_cut"] = evidence.get("texts_cut", 0) + len(source.truncated)
            if source.too_short:
                notes.append(
                    f"{source.too_short} distinct text(s) of {source.label} have fewer than "
                    f"{self.options.min_text_words} words and were compared by their normalised words: the same "
                    "words, or one word added, across splits are a copy when the shorter has two words of two "
                    "letters or more and no split repeats either wording; other equal ones are listed for review "
                    "(NDP003)"
                )
                evidence["texts_too_short"] = evidence.get("texts_too_short", 0) + source.too_short
                evidence["texts_compared_normalised"] = evidence["texts_too_short"]
        for source in found.sources:
            shingles, documents, holdout_documents = source.boilerplate
            if shingles:
                notes.append(
                    f"{shingles} distinct {self.options.shingle_words}-word shingle(s) of {source.label} are each in "
                    f"at least {documents} training and {holdout_documents} holdout texts: boilerplate (a shared "
                    "disclaimer, signature or prompt template) that counted for no resemblance, containment or "
                    "verbatim share"
                )
                evidence["boilerplate_shingles"] = evidence.get("boilerplate_shingles", 0) + shingles
                evidence["boilerplate_documents"] = documents
                evidence["boilerplate_holdout_documents"] = holdout_documents
        for source in found.sources:
            yield from self._rows_in_part(source)
            if source.space is None:
                continue
            space = source.space
            if space.dropped:
                notes.append(
                    f"{len(space.dropped)} feature(s) hold one value only and cannot tell rows apart "
                    f"({', '.join(space.dropped[:5])})"
                )
                evidence["features_constant"] = len(space.dropped)
            if not space.continuous:
                notes.append(
                    "no feature has more than "
                    f"{self.options.row_discrete_values} distinct values, so rows were not compared for near copies "
                    "(equal discrete values are no evidence of a copy)"
                )
                evidence["rows_not_compared"] = int(source.units.n)
        if found.other_files:
            notes.append(f"{found.other_files} file(s) in '{keys.content_path}' are neither images nor text")
            evidence["other_files"] = found.other_files
        if notes:
            yield self.finding(
                "NDP007",
                Severity.INFO,
                "; ".join(notes) + ".",
                evidence=evidence,
                examples=tuple({"path": p} for p in found.other_examples[:limit]),
            )

    def _rows_in_part(self, source: Source) -> Iterator[Finding]:
        """NDP011: feature rows left out for the memory budget, or searched by an index whose recall fell short."""
        from auditor.similarity.featurerows import MAX_PROBES, RowSettings

        assert isinstance(self.options, NearDuplicatesOptions)
        search = source.search
        if source.not_compared is not None:
            yield self.finding(
                "NDP011",
                Severity.WARNING,
                f"the rows of the feature table were not compared for near copies: {source.not_compared}. No "
                "verdict is given on near copies among them.",
                key="features",
                evidence={"rows_not_compared": int(source.units.n), "row_memory": self.options.row_memory},
                remediation="Raise stages.near_duplicates.row_memory on a machine that has it, or list fewer "
                "columns in keys.features.",
            )
        elif search is not None and search.recall is not None and search.recall < RowSettings().min_recall:
            yield self.finding(
                "NDP011",
                Severity.WARNING,
                f"the feature rows were searched by an index that found {search.recall:.1%} of the sampled near "
                f"copies with {search.probes} of its {search.lists} lists probed per query (the probes stop at "
                f"{MAX_PROBES} lists), below {RowSettings().min_recall:.0%}: a near copy may be missed.",
                key="features",
                evidence={"recall": round(search.recall, 4), "probes": search.probes, "lists": search.lists},
                remediation="Name fewer, more telling columns in keys.features (many tied values keep an index "
                "from telling rows apart).",
            )


def _row_thresholds(source: Source, options: NearDuplicatesOptions) -> dict[str, Any]:
    """How the feature rows were searched and judged: features, the ratio, the intrinsic dimension, the recall."""
    search, space = source.search, source.space
    assert search is not None and space is not None
    out: dict[str, Any] = {
        "thresholds": {
            "ratio": float(f"{search.ratio:.4g}"),
            "neighbours": options.row_neighbours,
            "resolution": float(f"{space.resolution:.4g}"),
        },
        "features": {"continuous": len(space.continuous), "discrete": len(space.discrete)},
        "search": {"method": search.method},
    }
    if search.dimension == search.dimension and search.dimension != float("inf"):
        out["thresholds"]["dimension"] = round(search.dimension, 2)
    if search.recall is not None:
        out["search"]["recall"] = round(search.recall, 4)
        out["search"]["probes"] = search.probes
        out["search"]["lists"] = search.lists
        if search.rescored is not None:
            out["search"]["candidates_searched_again"] = search.rescored
    return out


def _snippet(text: str, spans: list[tuple[int, int]]) -> dict[str, Any]:
    """A window of ``text`` around its first shared passage, with the shared spans inside the window."""
    start = max(0, spans[0][0] - _CONTEXT) if spans else 0
    end = min(len(text), start + _SNIPPET)
    marks = [[max(s, start) - start, min(e, end) - start] for s, e in spans if e > start and s < end]
    return {"text": text[start:end], "marks": marks, "start": start, "length": len(text)}
