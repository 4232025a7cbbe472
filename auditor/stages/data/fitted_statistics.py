"""fitted_statistics: a preprocessing artifact's claim (`fitted_on`) checked against the data itself.

Numeric statistics are recomputed on every candidate row set (the claim, train, train plus each holdout
split, all rows) from per-split moments, so each extra candidate costs no pass over the rows.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from auditor.core.config import AuditConfig, FittedSpec, LoadedConfig
from auditor.core.errors import ConfigError, StageInputError
from auditor.core.findings import Finding, Severity, Table
from auditor.core.scope import Scope, counts_of, scope_of
from auditor.core.splits import FoldRole, SplitRoles
from auditor.pipeline.stage import AuditContext, Stage, StageOptions

if TYPE_CHECKING:
    import numpy as np

    from auditor.fitted.artifacts import Artifact
    from auditor.fitted.fitmatch import Fit, NumericMatcher, Verdict
    from auditor.fitted.fitstats import RowSet
    from auditor.manifest.table import Manifest


class FittedStatisticsOptions(StageOptions):
    tolerance: float = Field(
        default=1e-6,
        gt=0,
        le=0.1,
        description="how far a statistic may be from the recomputed one, relative to the column's spread",
    )
    max_examples: int = Field(default=10, ge=1)


class FittedStatistics(Stage):
    name = "fitted_statistics"
    summary = "preprocessing statistics (scalers, imputers, vocabularies, categories) checked against their claim"
    needs = ("manifest", "fitted")
    codes: ClassVar[dict[str, str]] = {
        "FIT000": "artifact reproduces from the rows it claims",
        "FIT001": "artifact fitted on rows that include holdout rows",
        "FIT002": "artifact reproduces from none of the candidate row sets",
        "FIT003": "artifact reproduces from other training rows than claimed",
        "FIT004": "holdout rows change this artifact too little to tell",
        "FIT005": "the claim itself includes holdout splits",
        "FIT006": "vocabulary tokens found only in holdout rows",
        "FIT007": "most vocabulary tokens never occur in the text",
        "FIT008": "categories found only in holdout rows",
        "FIT009": "artifact listed but not verifiable",
        "FIT010": "artifact lists holdout sample ids as fitted on",
        "FIT011": "artifact lists ids that are not in the manifest",
    }
    Options = FittedStatisticsOptions
    fold_aware = True

    def missing_input(self, config: AuditConfig) -> str | None:
        return None if config.fitted else "no `fitted` entries in the config"

    def check_inputs(self, loaded: LoadedConfig) -> list[str]:
        return read_artifacts(loaded)[1]

    def run(self, context: AuditContext) -> Iterator[Finding]:
        assert isinstance(self.options, FittedStatisticsOptions)
        manifest = context.require_manifest()
        checks = _Checks(self, context, manifest, self.options)
        if context.roles.folds is not None:
            yield from checks.per_fold()
            return
        artifacts = checks.load_all()
        for spec, artifact in artifacts:
            yield from checks.claim(spec)
            yield from checks.check(spec, artifact)
            if artifact.fitted_ids is not None:
                yield from checks.fitted_ids(spec, artifact)


class _Checks:
    """The checks of one run: shares the split groups, candidate row sets and per-column moments."""

    def __init__(
        self, stage: FittedStatistics, context: AuditContext, manifest: Manifest, options: FittedStatisticsOptions
    ) -> None:
        import numpy as np

        self.stage, self.context, self.manifest, self.options = stage, context, manifest, options
        self.roles: SplitRoles = context.roles
        self.names = manifest.split_names
        self.group = (manifest.split.codes.astype(np.int64) + 1).astype(np.int64)
        self.n_groups = len(self.names) + 1
        self.unsplit = bool((self.group == 0).any())  # rows without a split belong to "all rows"
        self._values: dict[str, np.ndarray] = {}
        self._masks: dict[frozenset[int], np.ndarray] = {}
        self._sizes: np.ndarray | None = None  # rows per split group
        self._matcher: NumericMatcher | None = None
        self._fold: tuple[int, str] | None = None  # the cross-validation fold being checked, and its artifact

    # -- cross-validation folds ------------------------------------------------------------------------

    def per_fold(self) -> Iterator[Finding]:
        """Each artifact checked against each fold's training rows: `{fold}` in its path names the
        fold's own artifact; one artifact for every fold is checked against each of them (fitted before the
        folds, it reproduces from rows a fold holds out)."""
        from auditor.fitted.artifacts import load_artifact

        layout = self.roles.folds
        assert layout is not None
        loaded = self.context.loaded
        work: list[tuple[FittedSpec, int, str, Artifact]] = []
        problems: list[str] = []
        for i, spec in enumerate(self.context.config.fitted):
            where = loaded.locate(("fitted", i, "artifact"))
            for f in range(len(layout.folds)):
                if "{fold}" in spec.artifact and layout.is_fixed(f):
                    continue  # a fold's own artifact: a fixed holdout split's model (all folds' rows) has none named
                written = spec.artifact.replace("{fold}", layout.id_of(f))
                try:
                    artifact = load_artifact(loaded.resolve_input(written, ("fitted", i, "artifact")), spec, where)
                except (ConfigError, StageInputError) as exc:
                    problems.append(str(exc))
                    continue
                work.append((spec, f, written, artifact))
                if artifact.fitted_ids is not None and self.manifest.id_column is None:
                    problems.append(
                        f"{artifact.path}: fitted '{spec.name}' lists the ids it was fitted on, but the config names "
                        "no id column: set `manifest.id`"
                    )
        numeric = [
            c
            for spec, _, _, artifact in work
            if spec.kind in ("standardize", "minmax", "impute")
            for c in artifact.columns
            if not _is_text_fill(spec, artifact, c)
        ]
        problems.extend(self._prepare(list(dict.fromkeys(numeric)), "a fitted statistic"))
        if problems:
            raise StageInputError("\n".join(dict.fromkeys(problems)))
        for spec, f, written, artifact in work:
            self._fold = (f, written)
            try:
                yield from self.check(spec, artifact)
                if artifact.fitted_ids is not None:
                    yield from self.fitted_ids(spec, artifact)
            finally:
                self._fold = None

    def check(self, spec: FittedSpec, artifact: Artifact) -> Iterator[Finding]:
        """The check of the artifact's kind."""
        if spec.kind in ("standardize", "minmax", "impute"):
            yield from self.numeric(spec, artifact)
        elif spec.kind == "vocabulary":
            yield from self.vocabulary(spec, artifact)
        elif spec.kind == "categories":
            yield from self.categories(spec, artifact)
        else:
            yield from self.selection(spec, artifact)

    def _fold_rowsets(self, fold: int) -> list[RowSet]:
        """A fold's candidates: its training rows (the claim), those plus each split it holds out, all rows."""
        from auditor.fitted.fitstats import RowSet

        layout = self.roles.folds
        assert layout is not None
        name = layout.folds[fold]
        code = {n: i + 1 for i, n in enumerate(self.names)}
        present = self.roles.order(list(self.manifest.rows_per_split()))
        holdout, train = layout.matrices(present)
        trains = [n for n, t in zip(present, train[:, fold], strict=True) if t]
        held = [n for n, h in zip(present, holdout[:, fold], strict=True) if h]
        unseen = [n for n in present if n not in trains]  # held out, or unused (a later fold's rows)

        def make(label: str, splits: Sequence[str], claimed: bool = False, unsplit: bool = False) -> RowSet:
            groups = frozenset({code[s] for s in splits} | ({0} if unsplit else set()))
            return RowSet(label, groups, tuple(s for s in splits if s in unseen), claimed)

        candidates = [make(f"the training rows of {name}", trains, claimed=True)]
        candidates.extend(make(f"the training rows of {name} + {h}", [*trains, h]) for h in held)
        if len(held) > 1:
            candidates.append(make(f"the training and holdout rows of {name}", [*trains, *held]))
        return _distinct(candidates, make("all rows", present, unsplit=self.unsplit))

    # -- loading and the candidate row sets ------------------------------------------------------------

    def load_all(self) -> list[tuple[FittedSpec, Artifact]]:
        """Every artifact and claim, checked before any statistic is computed; all problems in one error."""
        from auditor.fitted.artifacts import clip

        loaded, problems = read_artifacts(self.context.loaded)
        present = set(self.manifest.rows_per_split())
        for spec, artifact in loaded:
            if spec.kind == "impute" and spec.strategy and artifact.strategy and spec.strategy != artifact.strategy:
                problems.append(
                    f"{artifact.path}: fitted '{spec.name}': the config says strategy '{spec.strategy}' but the "
                    f"artifact says '{clip(artifact.strategy)}'; drop one of them"
                )
        for i, spec in enumerate(self.context.config.fitted):
            unknown = [s for s in spec.fitted_on if s not in present]
            if unknown:
                problems.append(
                    f"{self.context.loaded.locate(('fitted', i, 'fitted_on'))}: fitted '{spec.name}' claims split(s) "
                    f"{unknown} that do not occur in the manifest (splits: {', '.join(sorted(present))})"
                    f"{_did_you_mean(unknown, present)}"
                )
        if not problems:
            # Numbers are parsed up front too, so a text cell in a column stops the stage before any finding.
            numeric = [
                c
                for spec, artifact in loaded
                if spec.kind in ("standardize", "minmax", "impute")
                for c in artifact.columns
                if not _is_text_fill(spec, artifact, c)
            ]
            problems.extend(self._prepare(list(dict.fromkeys(numeric)), "a fitted statistic"))
        if problems:
            raise StageInputError("\n".join(problems))
        return loaded

    def rowsets(self, spec: FittedSpec) -> list[RowSet]:
        """The claim first, then train, train plus each holdout split, and all rows (duplicates dropped)."""
        from auditor.fitted.fitstats import RowSet

        if self._fold is not None:
            return self._fold_rowsets(self._fold[0])
        code = {n: i + 1 for i, n in enumerate(self.names)}
        sizes = self.manifest.rows_per_split()
        present = self.roles.order(list(sizes))
        train = [n for n in present if self.roles.role(n) == "train"]
        holdout = [n for n in present if self.roles.role(n) == "holdout"]

        def make(name: str, splits: Sequence[str], claimed: bool = False, unsplit: bool = False) -> RowSet:
            groups = frozenset({code[s] for s in splits} | ({0} if unsplit else set()))
            leaking = tuple(s for s in splits if self.roles.role(s) == "holdout")
            return RowSet(name, groups, leaking, claimed)

        candidates = [make("+".join(spec.fitted_on), spec.fitted_on, claimed=True)]
        if train:
            candidates.append(make("+".join(train), train))
            if len(train) > 1:
                candidates.extend(make(t, [t]) for t in train)
            candidates.extend(make("+".join([*train, h]), [*train, h]) for h in holdout)
        return _distinct(candidates, make("all rows", present, unsplit=self.unsplit))

    def claim(self, spec: FittedSpec) -> Iterator[Finding]:
        leaking = [s for s in spec.fitted_on if self.roles.role(s) == "holdout"]
        if leaking:
            yield self._finding(
                "FIT005",
                Severity.ERROR,
                spec,
                f"'{spec.name}' is declared as fitted on {', '.join(spec.fitted_on)}, which includes the holdout "
                f"split(s) {', '.join(leaking)}: scores on them have seen their own statistics.",
                evidence={"fitted_on": spec.fitted_on, "holdout": leaking},
                scope=scope_of(leaking),
                remediation=f"Refit '{spec.name}' on train rows only and apply it unchanged to the holdout splits.",
            )

    # -- standardize, minmax, impute ---------------------------------------------------------------------

    def numeric(self, spec: FittedSpec, artifact: Artifact) -> Iterator[Finding]:
        from auditor.fitted.artifacts import clip

        strategy = spec.strategy or artifact.strategy
        if spec.kind == "impute" and strategy not in (None, "mean", "median", "most_frequent"):
            yield self._finding(
                "FIT009",
                Severity.INFO,
                spec,
                f"'{spec.name}' fills with strategy '{clip(strategy)}': a given value learns nothing from the rows, "
                "so there is nothing to recompute.",
                evidence={"artifact": str(artifact.path), "strategy": clip(strategy)},
            )
            return
        values = [
            (c, stat, v) for stat, vs in artifact.stats.items() for c, v in zip(artifact.columns, vs, strict=True)
        ]
        blank = [f"{stat} of {c}" for c, stat, v in values if isinstance(v, float) and not math.isfinite(v)]
        if len(blank) == len(values):
            raise StageInputError(
                f"{artifact.path}: fitted '{spec.name}': every value is null, NaN or inf; nothing to compare"
            )
        rowsets = self.rowsets(spec)
        verdict = self.matcher.judge(artifact, strategy, rowsets)
        table = self.matcher.table(artifact, rowsets, verdict)
        yield from self._report(spec, rowsets, verdict, table, what="statistics", not_compared=blank)

    def _prepare(self, columns: Sequence[str], why: str) -> list[str]:
        """Parse numeric columns (two at a time); one line per column that does not hold numbers."""
        todo = [c for c in columns if c not in self._values]
        with ThreadPoolExecutor(max_workers=2) as pool:  # Arrow and numpy release the GIL
            done = list(pool.map(lambda c: self._parse(c, why), todo))
        problems = []
        for column, result in zip(todo, done, strict=True):
            if isinstance(result, str):
                problems.append(result)
            else:
                self._values[column] = result
        return problems

    def _parse(self, column: str, why: str) -> np.ndarray | str:
        from auditor.fitted.fitstats import numeric_values

        try:
            return numeric_values(self.manifest.table[column], column, why)
        except StageInputError as exc:
            return f"{self.manifest.where}: {exc}"

    @property
    def matcher(self) -> NumericMatcher:
        from auditor.fitted.fitmatch import NumericMatcher

        if self._matcher is None:
            text = {c: self.manifest.table[c] for c in self.manifest.table.column_names}
            self._matcher = NumericMatcher(
                self._values, self.group, self.n_groups, self.options.tolerance, text, self.mask
            )
        return self._matcher

    def mask(self, rs: RowSet) -> np.ndarray:
        """The rows of a row set (cached: several columns and checks ask for the same one)."""
        if rs.groups not in self._masks:
            self._masks[rs.groups] = rs.mask(self.group)
        return self._masks[rs.groups]

    def size(self, rs: RowSet) -> int:
        """How many rows a row set holds."""
        import numpy as np

        if self._sizes is None:
            self._sizes = np.bincount(self.group, minlength=self.n_groups)
        return int(self._sizes[sorted(rs.groups)].sum())

    def _report(
        self,
        spec: FittedSpec,
        rowsets: Sequence[RowSet],
        verdict: Verdict,
        table: Table | None,
        what: str,
        not_compared: Sequence[str] = (),
    ) -> Iterator[Finding]:
        claim = rowsets[0]
        leaking = [rs for rs in verdict.matches if rs.holdout and not rs.claimed]
        clean = [rs for rs in verdict.matches if not rs.holdout and not rs.claimed]
        evidence: dict[str, Any] = {
            "artifact": str(self._artifact_path(spec)),
            "kind": spec.kind,
            "fitted_on": spec.fitted_on,
            "reproduces_from": [rs.name for rs in verdict.matches],
            "deviation": {k: _round(f.deviation) for k, f in verdict.fits.items()},
            "rows_per_set": {rs.name: self.size(rs) for rs in rowsets},
        }
        reference = verdict.fits[(verdict.matches[0] if verdict.matches else verdict.closest(rowsets)).name]
        chosen = [v for s, v in reference.conventions.items() if v and v not in ("mean", "min", "max", "fill", s)]
        if chosen:
            evidence["conventions"] = ", ".join(dict.fromkeys(chosen))
        if not_compared:
            evidence["not_compared"] = list(not_compared)  # null, NaN or inf in the artifact
        tables = (table,) if table is not None else ()
        if claim in verdict.matches:
            if leaking:
                yield self._finding(
                    "FIT004",
                    Severity.INFO,
                    spec,
                    f"'{spec.name}' reproduces from its claim ({claim.name}) but equally from "
                    f"{', '.join(rs.name for rs in leaking)}: the holdout rows change these {what} too little to "
                    "tell the two apart.",
                    evidence=evidence,
                    tables=tables,
                    remediation="Nothing to fix if the claim is true; refit on train rows to be sure.",
                )
            else:
                unlike = "" if claim.holdout else " and from no set that includes holdout rows"
                yield self._finding(
                    "FIT000",
                    Severity.INFO,
                    spec,
                    f"'{spec.name}' reproduces from its claim ({claim.name}){unlike}.",
                    evidence=evidence,
                    tables=tables,
                )
        elif leaking:
            rs = leaking[0]
            yield self._finding(
                "FIT001",
                Severity.ERROR,
                spec,
                f"'{spec.name}' is declared as fitted on {claim.name}, but its {what} reproduce from {rs.name}, "
                f"which includes the holdout split(s) {', '.join(rs.holdout)}: the evaluation has seen information "
                "from the rows it scores.",
                evidence=evidence,
                tables=tables,
                remediation=f"Fit '{spec.name}' on the training rows only (after the split) and apply it unchanged "
                "to the holdout rows.",
            )
        elif clean:
            yield self._finding(
                "FIT003",
                Severity.WARNING,
                spec,
                f"'{spec.name}' is declared as fitted on {claim.name}, but its {what} reproduce from "
                f"{clean[0].name} instead. No holdout rows are involved; correct the claim.",
                evidence=evidence,
                tables=tables,
                remediation="Set `fitted_on` to the splits the artifact was actually fitted on.",
            )
        else:
            closest = verdict.closest(rowsets)
            yield self._finding(
                "FIT002",
                Severity.WARNING,
                spec,
                f"'{spec.name}' reproduces from none of {', '.join(rs.name for rs in rowsets)}. Closest: "
                f"{closest.name}, {_how_far(verdict.fits[closest.name], what)}. The artifact may be stale, fitted on "
                "other data or rows, or fitted after further preprocessing.",
                evidence=evidence,
                tables=tables,
                remediation="Refit the artifact on this manifest's training rows, or point `artifact` at the "
                "current file.",
            )

    # -- vocabulary, categories -------------------------------------------------------------------------

    def vocabulary(self, spec: FittedSpec, artifact: Artifact) -> Iterator[Finding]:
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        from auditor.fitted.artifacts import clip
        from auditor.fitted.tokens import choose_tokenizer, count_tokens, describe_tokenizer

        assert spec.text is not None
        column = self.manifest.table[spec.text]
        vocab = pa.array(artifact.tokens, pa.string())
        tokenizer = choose_tokenizer(column, vocab, spec.text, spec.tokenizer)
        counted = count_tokens(column, self.group, self.n_groups, tokenizer, spec.text)
        at = pc.fill_null(pc.index_in(vocab, value_set=counted.tokens), -1).to_numpy().astype(np.int64)
        found = at >= 0
        claim = self.rowsets(spec)[0]
        holdout_groups = [i + 1 for i, n in enumerate(self.names) if self._held_out(n)]
        # Counts per vocabulary token (0 for a token the text never holds).
        present = (
            counted.counts[np.maximum(at, 0)] * found[:, None]
            if len(counted.tokens)
            else np.zeros((len(vocab), self.n_groups), dtype=np.int64)
        )
        in_claim = present[:, sorted(claim.groups)].sum(axis=1)
        in_holdout = present[:, holdout_groups].sum(axis=1)
        minimum = tokenizer.min_frequency
        # A token the claimed rows alone cannot put into the vocabulary, that holdout rows can.
        leaked = found & (in_claim < minimum) & (in_claim + in_holdout >= minimum) & (in_holdout > 0)
        n_vocab, n_found, n_leaked = len(vocab), int(found.sum()), int(leaked.sum())
        unit = "rows" if tokenizer.frequency == "rows" else "times"
        evidence = {
            "artifact": str(artifact.path),
            "tokenizer": describe_tokenizer(tokenizer),
            "vocabulary": n_vocab,
            "in_text": n_found,
            "never_in_text": n_vocab - n_found,
            "only_in_holdout": n_leaked,
            "min_frequency": minimum,
        }
        if n_vocab and n_found < 0.5 * n_vocab:
            yield self._finding(
                "FIT007",
                Severity.WARNING,
                spec,
                f"only {n_found} of the {n_vocab} tokens of '{spec.name}' occur in '{spec.text}' cut as "
                f"{describe_tokenizer(tokenizer)}; the tokenizer that built it probably cuts text differently, and "
                "the check sees only the tokens it finds.",
                evidence=evidence,
                examples=tuple({"token": clip(t)} for t in np.asarray(artifact.tokens, dtype=object)[~found][:5]),
                remediation="Set `tokenizer` (lowercase, split_pattern or token_pattern, min_length) as the "
                "vocabulary was built.",
            )
        if n_leaked:
            rows = np.flatnonzero(leaked)
            order = rows[np.argsort(-in_holdout[rows], kind="stable")][: self.options.max_examples]
            tokens = np.asarray(artifact.tokens, dtype=object)
            examples = tuple(
                {
                    "token": clip(tokens[i]),
                    claim.name: int(in_claim[i]),
                    **{self.names[g - 1]: int(present[i, g]) for g in holdout_groups},
                }
                for i in order
            )
            rarely = (
                ""
                if minimum == 1
                else f" (below min_frequency {minimum} {unit} in {claim.name}, reaching it only with holdout rows)"
            )
            yield self._finding(
                "FIT006",
                Severity.ERROR,
                spec,
                f"{n_leaked} of the {n_vocab} tokens of '{spec.name}' are there only because of holdout rows{rarely}, "
                f"e.g. {', '.join(repr(e['token']) for e in examples[:5])}: the vocabulary was built with the rows "
                "it is evaluated on.",
                evidence=evidence,
                examples=examples,
                scope=scope_of((str(tokens[i]) for i in rows), {"only_in_holdout": n_leaked}),
                remediation=f"Rebuild '{spec.name}' from the training rows only; holdout-only words then map to the "
                "unknown token, as they will in deployment.",
            )
        elif n_vocab and n_found >= 0.5 * n_vocab:
            yield self._finding(
                "FIT000",
                Severity.INFO,
                spec,
                f"every token of '{spec.name}' found in '{spec.text}' occurs in {claim.name}"
                f"{'' if minimum == 1 else f' at least {minimum} {unit}'}.",
                evidence=evidence,
            )

    def categories(self, spec: FittedSpec, artifact: Artifact) -> Iterator[Finding]:
        import numpy as np

        from auditor.fitted.artifacts import clip
        from auditor.fitted.fitmatch import canon

        claim = self.rowsets(spec)[0]
        claim_splits = [g - 1 for g in claim.groups if g > 0]
        holdout_splits = [i for i, n in enumerate(self.names) if self._held_out(n)]
        leaked_rows: list[dict[str, Any]] = []
        per_column: dict[str, int] = {}
        for column, cats in zip(artifact.columns, artifact.categories, strict=True):
            grouped = self.manifest.group_counts(column)
            labels = [canon(v) for v in grouped.key.labels(np.arange(grouped.key.n_values))]
            lookup = {v: i for i, v in enumerate(labels)}
            n_leaked = 0
            for category in cats:
                i = lookup.get(canon(category))
                if i is None:
                    continue
                claimed = int(grouped.counts[i, claim_splits].sum())
                held = {self.names[h]: int(grouped.counts[i, h]) for h in holdout_splits if grouped.counts[i, h]}
                if not claimed and held:
                    n_leaked += 1
                    leaked_rows.append({"column": column, "category": clip(category), **held})
            per_column[column] = n_leaked
        evidence = {
            "artifact": str(artifact.path),
            "categories": {c: len(v) for c, v in zip(artifact.columns, artifact.categories, strict=True)},
            "only_in_holdout": per_column,
        }
        if leaked_rows:
            total = sum(per_column.values())
            yield self._finding(
                "FIT008",
                Severity.ERROR,
                spec,
                f"{total} categor{'y' if total == 1 else 'ies'} of '{spec.name}' "
                f"{'occurs' if total == 1 else 'occur'} only in holdout rows, e.g. "
                f"{', '.join(repr(r['category']) for r in leaked_rows[:5])}: the encoder was fitted with the rows it "
                "is evaluated on.",
                evidence=evidence,
                examples=tuple(leaked_rows[: self.options.max_examples]),
                scope=scope_of(
                    (f"{r['column']}={r['category']}" for r in leaked_rows),
                    {"only_in_holdout": total, **{f"{c}.only_in_holdout": n for c, n in per_column.items()}},
                ),
                remediation=f"Fit '{spec.name}' on training rows only, with an explicit policy for unseen "
                "categories (e.g. handle_unknown='ignore').",
            )
        else:
            yield self._finding(
                "FIT000",
                Severity.INFO,
                spec,
                f"every category of '{spec.name}' that occurs in the data occurs in {claim.name}.",
                evidence=evidence,
            )

    # -- selected features ------------------------------------------------------------------------------

    def selection(self, spec: FittedSpec, artifact: Artifact) -> Iterator[Finding]:
        import numpy as np

        from auditor.fitted.fitmatch import Fit, Verdict, number
        from auditor.fitted.fitstats import numeric_values, scores

        if spec.method is None:
            yield self._finding(
                "FIT009",
                Severity.INFO,
                spec,
                f"'{spec.name}' selects {len(artifact.selected)} of {len(artifact.columns)} columns; without "
                "`method` the selection cannot be recomputed, so which rows chose it is not checked.",
                evidence={"artifact": str(artifact.path), "selected": list(artifact.selected)},
                remediation="Set `method` (correlation or anova_f) and the target `label` to verify the selection.",
            )
            return
        label = spec.label or self.context.config.keys.label
        assert label is not None
        why = f"the selection '{spec.name}'"
        values = {c: numeric_values(self.manifest.table[c], c, why) for c in artifact.columns}
        if spec.method == "correlation":
            try:
                target = numeric_values(self.manifest.table[label], label, f"`method: correlation` in '{spec.name}'")
            except StageInputError as exc:
                raise StageInputError(f"{exc}; for class labels use `method: anova_f`") from None
            classes = 0
        else:
            key = self.manifest.key(label)
            target, classes = key.codes.astype(np.float64), key.n_values
        rowsets = self.rowsets(spec)
        k = len(artifact.selected)
        chosen = set(artifact.selected)
        deviation: dict[str, float] = {}
        score_rows: dict[str, dict[str, float]] = {}
        for rs in rowsets:
            mask = self.mask(rs)
            s = {c: scores(v[mask], target[mask], spec.method, classes) for c, v in values.items()}
            ranked = sorted(s, key=lambda c: (-_orderable(s[c]), artifact.columns.index(c)))
            cut = _orderable(s[ranked[k - 1]])
            above = {c for c in s if _orderable(s[c]) > cut}
            at_or_above = {c for c in s if _orderable(s[c]) >= cut}
            # Ties at the cut may fall either way: any selection between the two sets reproduces.
            deviation[rs.name] = 0.0 if above <= chosen <= at_or_above else math.inf
            score_rows[rs.name] = s
        fits = {
            rs.name: Fit(d, d, {}, "column", {}, () if d == 0 else ("selection",))
            for rs in rowsets
            for d in [deviation[rs.name]]
        }
        verdict = Verdict(tuple(rs for rs in rowsets if deviation[rs.name] == 0), fits)
        table = Table(
            title=f"{spec.method} score of each candidate column per row set",
            columns=("column", "selected", *(f"{rs.name}{' (claimed)' if rs.claimed else ''}" for rs in rowsets)),
            rows=tuple(
                (c, "yes" if c in chosen else "", *(number(score_rows[rs.name][c]) for rs in rowsets))
                for c in artifact.columns
            ),
        )
        yield from self._report(spec, rowsets, verdict, table, what=f"top-{k} {spec.method} columns")

    # -- ids ---------------------------------------------------------------------------------------------

    def fitted_ids(self, spec: FittedSpec, artifact: Artifact) -> Iterator[Finding]:
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        from auditor.fitted.artifacts import clip

        assert artifact.fitted_ids is not None and self.manifest.id_column is not None
        ids = self.manifest.table[self.manifest.id_column]
        as_text = ids.cast(pa.string()) if not pa.types.is_string(ids.type) else ids
        claimed = pa.array(sorted(set(artifact.fitted_ids)), pa.string())
        rows = np.flatnonzero(pc.is_in(as_text, value_set=claimed).to_numpy(zero_copy_only=False))
        groups = self.group[rows]
        holdout = {
            n: int((groups == i + 1).sum())
            for i, n in enumerate(self.names)
            if self._held_out(n) and (groups == i + 1).any()
        }
        unknown = pc.invert(pc.is_in(claimed, value_set=pc.unique(as_text.drop_null())))
        n_unknown = int(pc.sum(unknown).as_py() or 0)
        if holdout:
            holdout_codes = [self.names.index(n) + 1 for n in holdout]
            bad = rows[np.isin(groups, holdout_codes)]
            yield self._finding(
                "FIT010",
                Severity.ERROR,
                spec,
                f"'{spec.name}' lists {len(bad)} holdout sample(s) among the ids it was fitted on "
                f"({', '.join(f'{n}: {c}' for n, c in holdout.items())}).",
                evidence={"artifact": str(artifact.path), "holdout_ids": holdout, "fitted_ids": len(claimed)},
                examples=tuple(
                    {"id": i, "split": self.names[g - 1]}
                    for i, g in zip(self.manifest.ids(bad[: self.options.max_examples]), self.group[bad], strict=False)
                ),
                remediation=f"Refit '{spec.name}' on the ids of the training split only.",
            )
        if n_unknown:
            missing = [clip(m) for m in claimed.filter(unknown).to_pylist()[: self.options.max_examples]]
            yield self._finding(
                "FIT011",
                Severity.WARNING,
                spec,
                f"{n_unknown} of the {len(claimed)} ids '{spec.name}' lists are not in the manifest, e.g. "
                f"{', '.join(repr(m) for m in missing[:5])}: it was fitted on other data or an older manifest.",
                evidence={"artifact": str(artifact.path), "unknown_ids": n_unknown, "fitted_ids": len(claimed)},
                examples=tuple({"id": m} for m in missing),
                remediation="Refit the artifact on this manifest, or check that `artifact` points at the current file.",
            )

    # -- helpers -----------------------------------------------------------------------------------------

    def _held_out(self, split: str) -> bool:
        """Whether a split's rows are held out: from the fold being checked, or from training."""
        if self._fold is None:
            return self.roles.role(split) == "holdout"
        assert self.roles.folds is not None
        return bool(self.roles.folds.of(split)[self._fold[0]] == FoldRole.HOLDOUT)

    def _artifact_path(self, spec: FittedSpec) -> Any:
        return self.context.loaded.resolve(spec.artifact if self._fold is None else self._fold[1])

    def _finding(self, code: str, severity: Severity, spec: FittedSpec, message: str, **fields: Any) -> Finding:
        if self._fold is not None:  # one finding per fold: the fold joins the subject
            assert self.roles.folds is not None
            fold = self.roles.folds.folds[self._fold[0]]
            message = f"{fold}: {message}"
            evidence = {**fields.get("evidence", {}), "fold": fold}
            if "fitted_on" in evidence:
                evidence["fitted_on"] = [f"the training rows of {fold}"]
            fields["evidence"] = evidence
        sizes = fields.get("evidence", {}).get("rows_per_set")
        if sizes is not None and "scope" not in fields:
            # The candidate sets' sizes describe the data, not the problem: more rows do not make it larger.
            rest = {k: v for k, v in fields["evidence"].items() if k != "rows_per_set"}
            fields["scope"] = Scope(counts=counts_of(rest))
        return self.stage.finding(code, severity, message, key=spec.name, **fields)


def read_artifacts(loaded: LoadedConfig) -> tuple[list[tuple[FittedSpec, Artifact]], list[str]]:
    """Every `fitted` artifact the config names, and one line per artifact that cannot be read."""
    from auditor.fitted.artifacts import load_artifact

    artifacts, problems = [], []
    splits = loaded.config.splits
    declared = None if splits.holdout is None else {*splits.train, *splits.holdout}
    folds = loaded.config.manifest is not None and loaded.config.manifest.folds is not None
    for i, spec in enumerate(loaded.config.fitted):
        if "{fold}" in spec.artifact and not folds:
            problems.append(
                f"{loaded.locate(('fitted', i, 'artifact'))}: fitted '{spec.name}': the artifact path names "
                "`{fold}`, but the manifest has no `folds`"
            )
            continue
        if folds:
            continue  # read per fold, with the fold's ids (the stage's per_fold)
        unknown = [s for s in spec.fitted_on if declared is not None and s not in declared]
        if unknown and declared is not None:
            problems.append(
                f"{loaded.locate(('fitted', i, 'fitted_on'))}: fitted '{spec.name}' claims split(s) "
                f"{', '.join(unknown)}, which `splits` does not declare ({', '.join(sorted(declared))})"
                f"{_did_you_mean(unknown, declared)}"
            )
        where = loaded.locate(("fitted", i, "artifact"))
        try:
            artifact = load_artifact(loaded.resolve_input(spec.artifact, ("fitted", i, "artifact")), spec, where)
        except (ConfigError, StageInputError) as exc:  # ConfigError: the artifact resolves outside the roots
            problems.append(str(exc))
            continue
        artifacts.append((spec, artifact))
        manifest = loaded.config.manifest
        if artifact.fitted_ids is not None and (manifest is None or manifest.id is None):
            problems.append(
                f"{artifact.path}: fitted '{spec.name}' lists the ids it was fitted on, but the config names no id "
                "column: set `manifest.id`"
            )
        if spec.method is not None and spec.label is None and loaded.config.keys.label is None:
            problems.append(
                f"{loaded.locate(('fitted', i, 'method'))}: fitted '{spec.name}': `method` needs the target column: "
                "set its `label` or `keys.label`"
            )
    return artifacts, problems


def _is_text_fill(spec: FittedSpec, artifact: Artifact, column: str) -> bool:
    """An imputer's fill value that is text: its column is categorical, summarized by most_frequent only."""
    if spec.kind != "impute":
        return False
    fill = artifact.stats.get("fill", ())
    return bool(fill) and isinstance(fill[artifact.columns.index(column)], str)


def _did_you_mean(unknown: Sequence[str], known: Iterable[str]) -> str:
    close = difflib.get_close_matches(unknown[0], sorted(known), n=1) if unknown else []
    return f"; did you mean '{close[0]}'?" if close else ""


def _round(value: float) -> float | str:
    return "inf" if math.isinf(value) else round(value, 3)


def _how_far(fit: Fit, what: str) -> str:
    off = [s for s in fit.failing if s != "count"]
    if not off and "count" in fit.failing:
        return "whose values match but whose sample count does not"
    if math.isinf(fit.value_deviation):
        return f"with no {what} matching"
    return f"{', '.join(off)} off by {_round(fit.value_deviation)}× the tolerance"


def _orderable(score: float) -> float:
    return -math.inf if math.isnan(score) else score


def _distinct(candidates: list[RowSet], everything: RowSet) -> list[RowSet]:
    """One row set per distinct set of rows, the first named kept; "all rows" says more than "train+test" when
    the two are the same rows (unless the author claimed that one)."""
    unique: dict[frozenset[int], RowSet] = {}
    for rs in candidates:
        unique.setdefault(rs.groups, rs)
    if everything.groups in unique and not unique[everything.groups].claimed:
        unique[everything.groups] = everything
    unique.setdefault(everything.groups, everything)
    return list(unique.values())
