"""The leak rules over one program's record: a learner fitted on rows a model is later scored on
(preprocessing), test rows in a model's training (overlap), one test set choosing among models (multi_test),
the label among the features (label_in_features), and a shuffled split of rows ordered in time
(temporal_shuffle). Each leak names its lines, the variables between them and the fix."""

from __future__ import annotations

import ast
import enum
import posixpath
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace

from auditor.code.catalog import BATCH_STATISTICS, LABELS_LEARNED, PER_GROUP, Strength, is_regressor
from auditor.code.events import Evaluation, Fit, Obj, Record, Selection, Site, Split, Train, nested_steps
from auditor.code.masks import span_count
from auditor.code.replicates import read_beside_seeds, step_names
from auditor.code.sources import MODULE_LINES
from auditor.code.state import TEXT_LIMIT, shortened
from auditor.code.values import OPEN, Atom, Columns, Data, Part, Step, narrowed_from, selected_columns


class LeakKind(enum.StrEnum):
    PREPROCESSING = "preprocessing"
    OVERLAP = "overlap"
    MULTI_TEST = "multi_test"
    LABEL_IN_FEATURES = "label_in_features"
    TEMPORAL_SHUFFLE = "temporal_shuffle"


@dataclass(frozen=True)
class Leak:
    """One leak in one program: where it is made, where it lands, what connects them and how to fix it."""

    kind: LeakKind
    serious: bool  # an error; False: a warning (a weaker leak, e.g. only the set of categories learned)
    site: Site  # where the leak is made: the fit, the resampling, the training, the split
    what: str  # the call there ('StandardScaler.fit_transform')
    message: str
    into: tuple[tuple[Site, str], ...] = ()  # where it leaks into: evaluations, the choice, the split
    chain: tuple[Step, ...] = ()
    fix: str = ""
    facts: tuple[tuple[str, str], ...] = ()  # further evidence as (name, value)
    sites: tuple[Site, ...] = field(default=(), compare=False)  # every line involved, for matching a trace
    # What a run checks at each line: ("fit" | "train" | "score" | "pool" | "split", line, the call there).
    roles: tuple[tuple[str, Site, str], ...] = field(default=(), compare=False)


# `X_val`, `valid`, `dev`; `va` of tr/va/te; `dval` (lightgbm and xgboost name their Datasets d...)
_VALIDATION_NAME = re.compile(
    r"(?i)(^|[^a-z])(val|valid|validation|dev|eval|vl|va|tune|tuning)([^a-z]|$)|^[dx]?val|valid"
)


def find_leaks(
    record: Record,
    where: Callable[[Site], str] = lambda s: f"line {s.line}",
    once: Collection[tuple[int, int]] = (),
) -> list[Leak]:
    """The leaks of one program's record; ``where`` says a place as a reader finds it ('cell 4, line 2');
    ``once``: the calls of the file's functions that are each function's only use (`main()`)."""

    def framed(site: Site) -> str:
        """' (in a function called at line 23)' for a place inside a call of the file's own function, else ''."""
        if not site.via:
            return ""
        # A line of an imported module of the project runs from the import, or from a call of its function.
        how = "run from" if site.line >= MODULE_LINES else "in a function called at"
        return f" ({how} {where(_top(site))})"

    def placed(site: Site) -> str:
        return where(Site(site.line, site.column)) + framed(site)

    rules = _Rules(record, placed, once, framed)
    labels = rules.label_in_features()
    # a lead of the label among the features is the label read: said once, as that
    answered = {leak.site for leak in labels}
    filled = [
        f for f in rules.filled_from_later_rows() if not any(r[0] == "train" and r[1] in answered for r in f.roles)
    ]
    leaks = [
        *rules.preprocessing(),
        *rules.overlap(),
        *rules.deduplicated_after_the_split(),
        *filled,
        *rules.multi_test(),
        *labels,
        *rules.temporal_shuffle(),
    ]
    leaks = [_at_top(replace(leak, message=_unnested(leak.message)), once) for leak in leaks]
    return sorted(leaks, key=lambda leak: (leak.site.line, leak.site.column, leak.kind))


def _at_top(leak: Leak, once: Collection[tuple[int, int]] = ()) -> Leak:
    """A leak made inside the file's own function is reported at the call that made it (that call is the
    leaking use; the function is also called correctly elsewhere, maybe), its inner lines kept as evidence. A
    leak whose every line is in one call of a function called nowhere else (`main()` splitting, fitting and
    scoring) is reported at its own line there: that line is the leaking use, and binds no other call."""
    frame = leak.site.via if _within_one_call(leak, once) else ()
    # a line of a call made deeper than the leak's own frame is said by the call in that frame leading to it
    deeper = [s for s in leak.sites if s.via and len(s.via) > len(frame)]
    tops = tuple(_top(s) for s in deeper)
    into = tuple(((_top(s) if len(s.via) > len(frame) else s), what) for s, what in leak.into)
    if not tops and into == leak.into and len(leak.site.via) == len(frame):
        return leak
    inner = tuple(Site(s.line, s.column) for s in leak.sites)
    site = _top(leak.site) if len(leak.site.via) > len(frame) else leak.site
    return replace(leak, site=site, into=into, sites=tuple(dict.fromkeys((*inner, *tops))))


# `(line 24 (in a function called at line 37))`: a place said inside a place's parentheses
_NESTED_PLACE = re.compile(r"\(([^()]*) \((in a function called at|run from) ([^()]*)\)\)")


def _unnested(message: str) -> str:
    """The message with a place inside a place's parentheses said once: `(line 24, in a function called at line
    37)`."""
    return _NESTED_PLACE.sub(r"(\1, \2 \3)", message)


def _within_one_call(leak: Leak, once: Collection[tuple[int, int]]) -> bool:
    """Whether the leak's every line is in one call of the file's own function, or in calls made from it, with
    its place in that call, and each call leading there is the only use of its function."""
    via = leak.site.via
    if not via or leak.site.line >= MODULE_LINES or not all(c in once and c[0] < MODULE_LINES for c in via):
        return False
    # a place known by its line alone (rows put together at a line: column 0, no calls) says no frame
    framed = [s for s in (*leak.sites, *(s for s, _ in leak.into)) if s.via or s.column]
    return all(s.via[: len(via)] == via for s in framed)


def _top(site: Site) -> Site:
    """The innermost call that led to ``site`` in the file itself: a call made inside an imported module of
    the project (code/modules.py) is not where the file's reader can act, the import or call leading there is."""
    top = site.top
    while top.line >= MODULE_LINES and top.via:
        top = top.top
    return top


class _Rules:
    def __init__(
        self,
        record: Record,
        where: Callable[[Site], str],
        once: Collection[tuple[int, int]] = (),
        framed: Callable[[Site], str] = lambda s: "",
    ) -> None:
        self.r = record
        self.where = where
        self.framed = framed  # the call a place inside the file's own function was reached by, said after it
        self.once = once  # the calls of the file's functions that are each function's only use
        self._sides_read: set[tuple[str, str]] | None = None  # (split, side) of every row trained on or scored

    def _inside(self, site: Site) -> str:
        """' at line 9 (in a function called at line 13)' for a place inside the file's own function."""
        return f" at {self.where(site)}" if site.via else ""

    def at_line(self, line: int) -> str:
        return self.where(Site(line, 0))

    # Rows -------------------------------------------------------------------------------------------------

    def made_from(self, atom: Atom, depth: int = 0) -> frozenset[Atom]:
        """The rows a pool's rows were made from (over-sampling, repeated rows), through pools of pools."""
        origin = self.r.origins.get(atom.origin)
        if origin is None or not origin.made_from or depth > 5:
            return frozenset()
        found = set(origin.made_from)
        for inner in origin.made_from:
            found |= self.made_from(inner, depth + 1)
        return frozenset(found)

    def shares(self, a: Atom, b: Atom) -> bool:
        """Whether two atoms may hold a row in common, or a row made from the other's."""
        if not a.disjoint(b):
            return True
        return any(not m.disjoint(b) for m in self.made_from(a)) or any(not m.disjoint(a) for m in self.made_from(b))

    def pool_of(self, atom: Atom) -> int | None:
        origin = self.r.origins.get(atom.origin)
        return atom.origin if origin is not None and origin.made_from else None

    def held_out(self, data: Data, trained: Iterable[Data]) -> frozenset[Atom]:
        """The rows of ``data`` a score is meant to be unseen on: a test side, or rows that are not exactly what a
        model was trained on (a separate source, a sample of the rows set apart)."""
        training = [t for d in trained for t in d.rows]
        return frozenset(a for a in data.rows if _unseen(a, training))

    def _read_anew(self, atom: Atom) -> frozenset[int]:
        """The loops each of whose passes reads these rows anew (other rows each pass)."""
        origin = self.r.origins.get(atom.origin)
        return origin.passes if origin is not None else frozenset()

    def _cut_anew(self, atom: Atom, loops: frozenset[int]) -> frozenset[int]:
        """The ``loops`` whose every pass cuts these rows at bounds of its own (`date >= origin` in a loop over
        origins, `iloc[i * k:(i + 1) * k]` over i): a walk forward, other rows each pass."""
        named = {
            word
            for part in atom.parts
            for bound in part.span[1:]
            if isinstance(bound, tuple) and bound and isinstance(bound[0], str) and bound[0] != OPEN
            for word in _WORD.findall(bound[0])
        }
        values: set[str] = set()
        for part in atom.parts:  # `year == y`, or `year == 2019` in a pass over [2019, 2020]
            words, constants = _mask_terms(part)
            named |= words
            values |= constants
        return frozenset(
            lid
            for lid in loops
            if named & self.r.pass_names.get(lid, frozenset())
            or values & self.r.pass_values.get(lid, frozenset())
            or lid in self.r.group_passes
        )

    def trained_on(self, evaluation: Evaluation) -> list[Data]:
        """The rows the models scored were trained on: their X, or for a model of a series alone (ARIMA(train)),
        the series."""
        found = [self.r.trains[tid].rows for tid in sorted(evaluation.trains)]
        return [d for d in found if d is not None]

    # Rules ------------------------------------------------------------------------------------------------

    def preprocessing(self) -> list[Leak]:
        into: dict[int, list[Evaluation]] = {}
        # fits in the scored rows only, not in the training rows: the scored part transformed by a step fitted on
        # it again (sc.fit_transform(X_test)), or by one the training part never went through; `refitted` those
        # fitted on the scored rows alone, said so
        refitted: set[int] = set()
        # statistics of the labels alone reaching a model only as a setting (scale_pos_weight = neg / pos of every
        # label): the class balance, a weak leak (a warning), unless a fit also reaches the model through its rows
        balance: set[int] = set()
        through_rows: set[int] = set()
        for e in self._evaluations():
            if e.x is None:
                continue
            trained = self.trained_on(e)
            baked = self.baked(e.models)  # statistics of the rows built into the model's steps
            labels = self._labels_of(e)
            balance |= {f for f in baked - e.x.fits if self._of_labels_only(f, labels)}
            through_rows |= e.x.fits
            own: frozenset[int] = frozenset()
            if e.cross_validation:
                scored = e.x.rows
                # out-of-fold predictions scored, or cross-validated again: each fold's were made without it
                fits = (e.x.fits | baked) - self.r.out_of_fold
            else:
                if not trained:
                    continue
                scored = self.held_out(e.x, trained)
                in_training = frozenset().union(*(t.fits for t in trained))
                # of predictions, only the fits in the rows the model was given (not a target encoder undone after)
                own = (e.x.fits if e.x.fed is None else e.x.fits & e.x.fed) - in_training - baked
                fits = e.x.fits & in_training | baked | own
            passes = [lid for lid in e.loops if self.r.pass_values.get(lid)]
            for fid in sorted(fits):
                fit = self.r.fits[fid]
                if fid in self.r.cuts and self._cut_at(fid, scored, trained):
                    continue
                if self._within_groups(fit, e, scored, labels):
                    continue
                if fit.strength is Strength.TARGET and fit.by and labels and not fit.by & labels:
                    continue  # ks_2samp(full[full.is_test == 0].x, full[full.is_test == 1].x): tested against no label
                # a walk forward: the scaler fitted on `year != 2018` in one pass, `year == 2019` scored in another
                shared = any(
                    self.shares(f, v) and not any(self._other_passes(v, f, lid) for lid in passes)
                    for f in fit.rows
                    for v in scored
                )
                if fit.reported and shared:
                    if fid in own and fid not in into and all(any(f.within(v) for v in scored) for f in fit.rows):
                        refitted.add(fid)
                    elif fid not in own:
                        refitted.discard(fid)
                    into.setdefault(fid, []).append(e)
        leaks = []
        by_line: dict[tuple[int, tuple[tuple[int, int], ...]], list[int]] = {}
        for fid in into:  # (x - x.mean()) / x.std(): one leak of one line, whatever statistics it takes
            site = self.r.fits[fid].site
            # statistics taken on lines of a function, reported at its call (`self.mu = x.mean(0)`, `self.sd =
            # x.std(0)` of a Dataset made once): one leak of that call
            at_call = bool(site.via) and not all(c in self.once for c in site.via)
            by_line.setdefault((0 if at_call else site.line, site.via), []).append(fid)
        for fids in by_line.values():
            fid = fids[0]
            lines = len({self.r.fits[f].site.line for f in fids}) > 1
            evaluations = list({e.id: e for f in fids for e in into[f]}.values())
            fit = self.r.fits[fid]
            if len(fids) > 1:
                others = [self.r.fits[f] for f in fids[1:]]
                fit = Fit(
                    fit.id,
                    fit.site,
                    # a function of the file called twice (two pipes of one function) takes each statistic twice
                    self._named_at(fit, others)
                    if lines
                    else " and ".join(dict.fromkeys([fit.what, *(o.what for o in others)])),
                    " and ".join(dict.fromkeys([fit.learns, *(o.learns for o in others)])),
                    max([fit.strength, *(o.strength for o in others)], key=list(Strength).index),
                    fit.rows,
                )
            first = evaluations[0]
            # statistics of several lines are each said at their own line, so no one line is said for all
            inside = self._inside(fit.site) if not lines else ""
            weak = fit.strength is Strength.CATEGORIES or all(f in balance and f not in through_rows for f in fids)
            # A search whose scores are never read only chooses its settings on folds the fit saw: the choice
            # leans, but no score the program shows is measured on those rows.
            choice_only = all(e.cross_validation and not e.shown for e in evaluations)
            saw = "the rows it is later scored on" if not first.cross_validation else "every fold's test rows"
            landed = (
                f"{first.what} at {self.where(first.site)} chooses its settings on folds the preprocessing "
                "already saw; its own scores are not shown, so only that choice leans on them."
                if choice_only
                else f"the score at {self.where(first.site)} ({first.what}) is measured on rows the preprocessing "
                "already saw."
            )
            # `X.mean() and X.std() learn ...`: the verb agrees with the statistics named
            learns = "learn" if len({self.r.fits[f].what for f in fids}) > 1 else "learns"
            learned = self._of_the_label(fit, evaluations)
            message = (
                f"{fit.what}{inside} {learns} {learned} from {self._rows_text(fit.rows)}, which include {saw}: {landed}"
            )
            fix = _fix(_PREPROCESSING_FIX, _PREPROCESSING_FIX_STATISTIC, fit.what)
            if all(f in refitted for f in fids):
                message = (
                    f"{fit.what}{inside} {learns} {learned} from {self._rows_text(fit.rows)}, "
                    f"the very rows scored at {self.where(first.site)} ({first.what}), not from the training rows: "
                    "the scored rows are transformed with statistics of their own, which new rows met one at a time "
                    "would not have."
                )
                fix = _fix(_REFITTED_FIX, _REFITTED_FIX_STATISTIC, fit.what)
            if fit.learns == BATCH_STATISTICS:
                fix = _BATCH_FIX
            if fit.learns == LABELS_LEARNED:
                fix = _STACKING_FIX
            leaks.append(
                Leak(
                    LeakKind.PREPROCESSING,
                    not weak and not choice_only,
                    fit.site,
                    fit.what,
                    message,
                    tuple((e.site, e.what) for e in evaluations),
                    _chain_after(first.x, fit.site.line),
                    fix,
                    (("learns", fit.learns), ("strength", fit.strength.value)),
                    (fit.site, *(e.site for e in evaluations)),
                    (*(("fit", self.r.fits[f].site, self.r.fits[f].what) for f in fids), *_scored(evaluations)),
                )
            )
        return leaks

    def _named_at(self, fit: Fit, others: list[Fit]) -> str:
        """Statistics of one call taken at lines of their own, each said at its line and the call once: `x.mean() at
        line 11 and x.std() at line 12 (in a function called at line 23)`."""
        fits = [fit, *others]
        lines = [self.where(Site(f.site.line, f.site.column)) for f in fits]
        said = dict.fromkeys(f"{f.what} at {line}" for f, line in zip(fits, lines, strict=True))
        return " and ".join(said) + self.framed(fit.site)

    def _within_groups(self, fit: Fit, e: Evaluation, scored: frozenset[Atom], labels: frozenset[str]) -> bool:
        """A statistic per group of columns other than the label, with the scored rows split off by those same
        groups (GroupKFold given `groups=df["card"]`, after `df.groupby("card")[...].transform(...)`): each
        group's statistic is of rows on one side only, so no scored row's values reach a training row."""
        label_columns = labels | ({s for s in e.y.sources if not s.startswith("<")} if e.y is not None else set())
        sources = {s for s in fit.data.sources if not s.startswith("<")} if fit.data is not None else {"<unknown>"}
        if fit.learns != PER_GROUP or not fit.by or not label_columns:
            return False
        # columns named, or of a pattern no label column matches (`for c in [c for c in df.columns if
        # c.startswith("f_")]`, then `df.groupby("qid")[c]`)
        columns = fit.data.columns if fit.data is not None else None
        matched = not sources and columns is not None and columns.matched is not None
        apart = matched and columns is not None and all(columns.lacks(c) for c in label_columns)
        if not apart and (not sources or sources & label_columns):
            return False
        # a metric of cross_val_predict's predictions cross-validates with no splitter of its own
        made_by = [e] if e.cross_validation and e.splitter is not None else self._predicted_out_of_fold(e)
        if made_by:
            # cross_val_score's folds, or those of the cross_val_predict whose predictions are scored
            split_ids = {self.r.objects[c.splitter].split if c.splitter is not None else None for c in made_by}
        else:
            if scored and all(any(_cut_by_columns(p, fit.by, self.r.splits) for p in a.parts) for a in scored):
                return True  # `df[df.date >= cut]` after `groupby("date")`: each day's rows lie on one side of the cut
            split_ids = {a.parts[-1].split if a.parts else None for a in scored} or {None}
        splits = [self.r.splits.get(s) if s is not None else None for s in split_ids]
        # groups keyed by the split's groups and more (per subject and session, split by subject) lie each in one
        # of the split's groups
        return all(s is not None and s.by_group and s.group_key and s.group_key <= fit.by for s in splits)

    def _predicted_out_of_fold(self, e: Evaluation) -> list[Evaluation]:
        """The cross_val_predict calls whose out-of-fold predictions ``e`` scores ([] when it scores others)."""
        if e.x is None or not e.x.cross_validated:
            return []
        return [
            c
            for c in self.r.evaluations.values()
            if c.cross_validation and c.what == "cross_val_predict" and c.models and c.models <= e.models
        ]

    def _of_the_label(self, fit: Fit, evaluations: list[Evaluation]) -> str:
        """What a fit learns, said as a target encoding when it is a statistic per group of a label the scored models
        predict (`df.groupby("store")["units"].transform("mean")`): worse than one of a feature, so named."""
        if fit.learns != PER_GROUP or fit.data is None:
            return fit.learns
        labels = sorted(fit.data.sources & frozenset().union(*(self._labels_of(e) for e in evaluations)))
        return f"a statistic per group of the label '{labels[0]}' (a target encoding)" if labels else fit.learns

    def _labels_of(self, e: Evaluation) -> frozenset[str]:
        """The label columns the models scored by ``e`` were trained to predict."""
        found: set[str] = set()
        for tid in e.trains:
            y = self.r.trains[tid].y
            if y is not None:
                found |= {s for s in y.sources if not s.startswith("<")}
        return frozenset(found)

    def _of_labels_only(self, fid: int, labels: frozenset[str]) -> bool:
        """Whether fit ``fid`` is a statistic of label columns alone (the count of each class)."""
        data = self.r.fits[fid].data
        sources = {s for s in data.sources if not s.startswith("<")} if data is not None else set()
        return bool(sources) and sources <= labels

    def deduplicated_after_the_split(self) -> list[Leak]:
        """Copies dropped from the training side of a split only (X_tr = X_tr.drop_duplicates()), the rows never
        deduplicated before it: the author expects copies, and a row and its copy may sit on both sides, so the
        test rows may have copies the model trained on (a warning: whether they do is in the data)."""
        leaks = []
        for site, rows in self.r.dedups:
            if not rows or not all(a.parts and not a.parts[-1].held_out for a in rows):
                continue
            cut = {a.parts[-1].split for a in rows}
            origins = {a.origin for a in rows}
            if any(
                r and {a.origin for a in r} & origins and all(not any(p.split in cut for p in a.parts) for a in r)
                for _, r in self.r.dedups
            ):
                continue  # deduplicated before the split as well
            scored = [
                e
                for e in self._evaluations()
                if e.x is not None
                and not e.cross_validation
                and any(a.parts and a.parts[-1].split in cut and a.parts[-1].held_out for a in e.x.rows)
            ]
            if not scored:
                continue
            split = self.r.splits.get(next(iter(sorted(cut))))
            where = f" at {self.where(split.site)}" if split is not None else ""
            leaks.append(
                Leak(
                    LeakKind.OVERLAP,
                    False,
                    site,
                    "drop_duplicates()",
                    f"drop_duplicates() at {self.where(site)} drops copies from the training part only, after the "
                    f"split{where}: a row and its copy can sit on both sides of it, so the rows scored at "
                    f"{self.where(scored[0].site)} ({scored[0].what}) may have copies the model trained on.",
                    tuple((e.site, e.what) for e in scored),
                    (),
                    "Drop duplicates before the split (df = df.drop_duplicates(), then split), so that no row has "
                    "a copy on the other side.",
                    (("deduplicated", f"the training part only, at {self.where(site)}"),),
                    (site, *(e.site for e in scored)),
                    _scored(scored),  # a run counts the scored rows whose content the training rows hold
                )
            )
        return leaks

    def _cut_at(self, fid: int, scored: frozenset[Atom], trained: list[Data]) -> bool:
        """Whether the rows kept by a threshold learned from the rows (`df[df.area > df.area.quantile(0.8)]`) are
        the scored side of a cut whose other side was trained on: the statistic placed the cut, like a cut-off
        date, and chose no rows on either side before a split."""
        masks = self.r.cuts[fid]
        training = [t for d in trained for t in d.rows]
        if not masks or not scored or not training:
            return False
        for v in scored:
            sides = {p.side for p in v.parts if p.split in masks}
            if not sides:
                return False
            for t in training:
                other = {p.side for p in t.parts if p.split in masks}
                if t.origin == v.origin and (not other or other & sides):
                    return False
        return True

    def overlap(self) -> list[Leak]:
        found: dict[tuple[Site, str], Leak] = {}
        forecasts: dict[int, Leak] = {}  # by the line adding the pass's row its forecast reads
        for train in self.r.trains.values():
            swapped = self._swapped(train)
            if swapped is not None:
                found.setdefault((swapped.site, "swap"), self._swap_leak(train, swapped))
        # the scores a program shows before the losses a network is trained by: the finding names a score
        for e in sorted(self._evaluations(), key=lambda e: e.backpropagated):
            if e.x is None:
                continue
            if e.cross_validation:
                pools = {self.pool_of(a) for a in e.x.rows} - {None}
                for pool in sorted(p for p in pools if p is not None):
                    origin = self.r.origins[pool]
                    leak = found.get((origin.site, "pool"))
                    if leak is None:
                        found[(origin.site, "pool")] = Leak(
                            LeakKind.OVERLAP,
                            True,
                            origin.site,
                            origin.how,
                            f"{origin.how} makes copies or synthetic rows from {self._rows_text(origin.made_from)} "
                            f"before the cross-validation at {self.where(e.site)} ({e.what}): rows made from a "
                            "fold's test rows are in its training folds.",
                            ((e.site, e.what),),
                            _chain_after(e.x, origin.site.line),
                            _RESAMPLE_FIX,
                            (("made_by", origin.how),),
                            (origin.site, e.site),
                            (("pool", origin.site, origin.how), ("score", e.site, e.what)),
                        )
                continue
            if e.x.reads_own:
                added, line = min(e.x.reads_own)
                forecasts.setdefault(added, self._own_row_forecast(e, added, line))
            for tid in sorted(e.trains):
                train = self.r.trains[tid]
                if train.rows is None or (e.backpropagated and train.by_loss and self._validation_put_back(e)):
                    continue  # the loss a refit trains by, on its training and validation rows
                leak = self._seen_in_training(e, train)
                if leak is not None:
                    key = (leak.site, "pool" if leak.facts and leak.facts[0][0] == "made_by" else leak.what)
                    if key in found:
                        old = found[key]
                        into = (*old.into, *(i for i in leak.into if i not in old.into))
                        roles = (*old.roles, *(r for r in leak.roles if r not in old.roles))
                        found[key] = replace(old, into=into, sites=(*old.sites, e.site), roles=roles)
                    else:
                        found[key] = leak
        # a row added before the pass's fit too is said once, by the fit that learned it
        said = {value for leak in found.values() for name, value in leak.facts if name == "added_at"}
        return [*found.values(), *(leak for added, leak in forecasts.items() if str(added) not in said)]

    def filled_from_later_rows(self) -> list[Leak]:
        """Values filled from later rows (bfill, interpolate, shift(-1)) before a cut that is not shuffled (a date,
        a slice of ordered rows): the last training rows hold the first test rows' values."""
        found: dict[int, Leak] = {}
        for e in self._evaluations():
            if e.x is None:
                continue
            if e.cross_validation:
                leak = self._filled_before_folds(e, found)
                if leak is not None:
                    found[leak.site.line] = leak
                continue
            for tid in sorted(e.trains):
                train = self.r.trains[tid]
                x = train.rows
                if x is None:
                    continue
                columns = x.columns
                # the label taken from the next row (y = r.shift(-1)) is the target, not a feature, though the
                # features are a list the reading cannot name: were it among them, that is the label in the features
                labels = {s for s in train.y.sources if not s.startswith("<")} if train.y is not None else set()
                filled = {
                    f
                    for f in x.later
                    if f[1] not in labels and (f[1] is None or columns is None or not columns.lacks(f[1]))
                }
                split = self._cut_between(x, e.x, frozenset(filled))
                if split is None or split.data is None:
                    continue
                # shift(-7) of daily rows, training stopped `cut - pd.Timedelta(days=7)`: its last rows read up to
                # the cut, none of the test rows
                covered = self._within_gap(x, e.x, split)
                reaching = {f for f in filled & split.data.later if f[0] not in covered}
                if not reaching:
                    continue
                line = min(f[0] for f in reaching)
                leak = found.get(line)
                if leak is not None:
                    if (e.site, e.what) not in leak.into:
                        found[line] = replace(
                            leak,
                            into=(*leak.into, (e.site, e.what)),
                            sites=(*leak.sites, e.site),
                            roles=(*leak.roles, ("score", e.site, e.what)),
                        )
                    continue
                site = Site(line, 0)
                what = f"the values filled from later rows at {self.at_line(line)}"
                found[line] = Leak(
                    LeakKind.OVERLAP,
                    True,
                    site,
                    "values from later rows",
                    f"Values are filled from later rows at {self.at_line(line)} (bfill, interpolate, shift(-k), a "
                    f"centred window, a forward merge_asof) before {split.what} at {self.where(split.site)} cuts "
                    f"the rows in time: the last rows {train.what} trains on at {self.where(train.site)} hold values "
                    f"of the test rows scored at {self.where(e.site)} ({e.what}).",
                    ((train.site, train.what), (e.site, e.what)),
                    _chain_after(x, 0),
                    _LATER_FIX,
                    (("filled", what),),
                    (site, split.site, train.site, e.site),
                    (("split", split.site, split.what), ("train", train.site, train.what), ("score", e.site, e.what)),
                )
        return list(found.values())

    def _filled_before_folds(self, e: Evaluation, found: dict[int, Leak]) -> Leak | None:
        """Values filled from later rows before a cross-validation whose folds keep time order (TimeSeriesSplit):
        each fold's last training rows hold its test rows' values. The leak of that fill, new or with ``e`` added
        (None: no such fill before such folds)."""
        assert e.x is not None
        split = self.r.splits.get(self.r.objects[e.splitter].split or "") if e.splitter is not None else None
        if split is None or not split.temporal or split.shuffled or not e.shown:
            return None
        columns = e.x.columns
        # a lead, shift(-k), is left out: next week's promotion, known in advance, is a fair feature of each fold
        filled = {
            f
            for f in e.x.later
            if f[0] not in self.r.leads and (f[1] is None or columns is None or not columns.lacks(f[1]))
        }
        if not filled:
            return None
        line = min(f[0] for f in filled)
        leak = found.get(line)
        if leak is not None:
            if (e.site, e.what) in leak.into:
                return leak
            return replace(
                leak,
                into=(*leak.into, (e.site, e.what)),
                sites=(*leak.sites, e.site),
                roles=(*leak.roles, ("score", e.site, e.what)),
            )
        site = Site(line, 0)
        return Leak(
            LeakKind.OVERLAP,
            True,
            site,
            "values from later rows",
            f"Values are filled from later rows at {self.at_line(line)} (bfill, interpolate, a centred window, a "
            "forward merge_asof) "
            f"before the folds of {split.what} at {self.where(split.site)} cut the rows in time: the last "
            f"rows each fold trains on hold values of its test rows, scored by {e.what} at {self.where(e.site)}.",
            ((e.site, e.what),),
            _chain_after(e.x, 0),
            _LATER_FIX,
            (("filled", f"the values filled from later rows at {self.at_line(line)}"),),
            (site, split.site, e.site),
            (("split", split.site, split.what), ("score", e.site, e.what)),
        )

    def _cut_between(self, trained: Data, scored: Data, filled: frozenset[tuple[int, str | None]]) -> Split | None:
        """The unshuffled split, made after the ``filled`` values were taken from later rows, whose one side was
        trained on and another side scored (None: no such split)."""
        if not filled:
            return None
        for t in sorted(trained.rows):
            for v in sorted(scored.rows):
                if t.origin != v.origin or not t.disjoint(v):
                    continue
                for part in v.parts:
                    split = self.r.splits.get(part.split)
                    if split is None or split.shuffled or split.data is None or not filled & split.data.later:
                        continue
                    if any(p.split == part.split and p.side != part.side for p in t.parts):
                        return split
        return None

    def _within_gap(self, trained: Data, scored: Data, split: Split) -> frozenset[int]:
        """The lines of leads (`shift(-k)`) that reach no row past a gap the time cut leaves between the rows
        trained on and those scored (`date < cut - pd.Timedelta(days=7)`, then `date >= cut`). Rows are taken to be
        one unit of that span apart only where a lead reads as many rows ahead as the span counts units (`shift(
        -H)` beside `days=H`): the program says so; weekly rows cut a week apart hold a `shift(-2)`'s test rows."""
        counts = set(self.r.lead_rows.values())
        covered: frozenset[int] | None = None
        for t in trained.rows:
            for v in scored.rows:
                for before in (p for p in t.parts if p.split == split.id):
                    for after in (p for p in v.parts if p.split == split.id and p.side != before.side):
                        gap = _gap_between(before, after)
                        if gap is None or gap[1] not in counts:
                            return frozenset()
                        seconds, _, unit = gap
                        reach = frozenset(line for line, k in self.r.lead_rows.items() if 0 < k * unit <= seconds)
                        covered = reach if covered is None else covered & reach
        return covered or frozenset()

    def _other_passes(self, a: Atom, b: Atom, lid: int) -> bool:
        """Whether two sets of rows were cut in different passes of a loop over a literal sequence: each one's
        masks name one item of it, and not the same one (`year < 2020` and `year == 2019`)."""
        values = self.r.pass_values[lid]

        def named(atom: Atom) -> set[str]:
            return {c for part in atom.parts for c in _mask_terms(part)[1]} & values

        first, second = named(a), named(b)
        return len(first) == 1 and len(second) == 1 and first != second

    def _validation_put_back(self, e: Evaluation) -> bool:
        """Whether the held-out rows among a training loss's are a validation set put back for a refit (`va` of a
        split of train.csv, then test.csv scored): that loss is no score of them. A test part put back stays one."""
        assert e.x is not None
        held = frozenset(a for a in e.x.rows if _role(a) == "test" or self._test_file(a))
        return not held or self._validation(e.x, held, e.site, {e.id})

    def _seen_in_training(self, e: Evaluation, train: Train) -> Leak | None:
        x = train.rows
        assert e.x is not None and x is not None
        passes = [lid for lid in e.loops if lid in train.loops and self.r.pass_values.get(lid)]
        # rows of a pool of copies first: that the test part holds copies of training rows is the cause to name
        # when the rows are also others (a resampling under a branch, joined with the rows before it)
        for v in sorted(e.x.rows, key=lambda a: (self.pool_of(a) is None, a)):
            role = _role(v)
            if role == "train":  # the training part scored: a training score, not an estimate
                continue
            for t in sorted(x.rows, key=lambda a: (self.pool_of(a) is None, a)):
                if any(self._other_passes(v, t, lid) for lid in passes):
                    continue  # a walk forward: the years before 2020 trained on, 2019 scored in another pass
                if e.x.horizon and any(a in self.r.appended_after_fit for a in narrowed_from(t)):
                    continue  # each pass's row put in the history after its forecast: forecasts of later rows
                pool = self.pool_of(v)
                if pool is not None and role == "test" and pool == self.pool_of(t):
                    origin = self.r.origins[pool]
                    return Leak(
                        LeakKind.OVERLAP,
                        True,
                        origin.site,
                        origin.how,
                        f"{origin.how} makes copies or synthetic rows before the split: the test rows scored at "
                        f"{self.where(e.site)} ({e.what}) and the rows the model is trained on at "
                        f"{self.where(train.site)} come from one pool, so the test part holds copies of training rows.",
                        ((train.site, train.what), (e.site, e.what)),
                        _chain_after(e.x, origin.site.line),
                        _RESAMPLE_FIX,
                        (("made_by", origin.how),),
                        (origin.site, train.site, e.site),
                        (
                            ("pool", origin.site, origin.how),
                            ("train", train.site, train.what),
                            ("score", e.site, e.what),
                        ),
                    )
                if e.x.in_sample and t.parts and (not t.held_out or _masked(t)) and v.inside(t):
                    # fittedvalues of some of the training part's rows (y_train.iloc[1:], of `y[y.index < cut]` too,
                    # a mask naming no side as the test): an in-sample fit
                    continue
                # the very rows trained on, scored: a training score, unless they are a held-out side of a split
                # that the training put back with its other side (pd.concat([train, test]), folds joined again)
                back = v == t and _put_back(v, x, e.x)
                if not self.shares(v, t):
                    continue
                kept = v == t and (back or role != "test")
                if kept and self._validation(e.x, frozenset({v}), e.site, {e.id}, named=False):
                    # a validation part carved from the training part, put back for the refit, then scored beside
                    # a test part kept apart: a training score of it, no test row seen
                    continue
                learned = self._test_file_learned(v, train) or _test_side_learned(v, train, e.x)
                if role is None and v == t and not back and not learned and not _beside_its_other_side(v, x):
                    continue
                # the rows of t's own pass of a walk forward: the other passes' cuts were not put back with it
                same_pass = frozenset(a for a in x.rows if not any(self._other_passes(a, t, lid) for lid in passes))
                how = self._how_seen(t, replace(x, rows=same_pass), back)
                gathered = {line for origin, line in x.gathered if origin == t.origin} if not t.parts else set()
                merged = sorted(x.merged | gathered)
                cut = self._cut_scored(v, t)
                # two cuts of one column or sequence that meet (`<= cut` and `>= cut`, `[:900]` and `[800:]`)
                meet = bool(cut) and bool(t.parts) and v.parts[-1].split == t.parts[-1].split
                before = [a for a in narrowed_from(t) if a in self.r.added_before_fit]
                added = self.r.added_before_fit[before[0]] if before and e.x.horizon else None
                if added is not None:
                    # the row as the pass took it (`test[t]`, the `obs` of `for obs in test`), not its bounds
                    taken = Atom(before[0].origin, before[0].parts[:-1])
                    how = (
                        f"each pass's row of {self._rows_text(frozenset({taken}))}, put in the history at "
                        f"{self.at_line(added)} before the fit"
                    )
                # masks of other columns (`date < cut` trained on, `is_test == 1` scored): rows both may hold,
                # which only the data can say
                columns = _other_columns(v, t) if not learned and not back and added is None else None
                said = (
                    f"{train.what} trains on {how}, which include the rows scored at {self.where(e.site)} "
                    f"({e.what}){cut}: the score is measured on rows the model was trained on."
                    if columns is None
                    else f"{train.what} trains on {how}, which may include the rows scored at {self.where(e.site)} "
                    f"({e.what}){cut}: the two parts are chosen by different columns ({columns}), so nothing in the "
                    "code keeps a scored row out of the training rows."
                )
                return Leak(
                    LeakKind.OVERLAP,
                    columns is None,
                    train.site,
                    train.what,
                    said,
                    ((e.site, e.what),),
                    _chain_after(x, 0),
                    _WALK_FORWARD_FIX
                    if added is not None
                    else _MEETING_CUTS_FIX
                    if meet
                    else _OTHER_COLUMNS_FIX
                    if columns is not None
                    else _OVERLAP_FIX,
                    (("trained_on", how), *((("added_at", str(added)),) if added is not None else ())),
                    (train.site, e.site, *(Site(line, 0) for line in merged)),
                    (("train", train.site, train.what), ("score", e.site, e.what)),
                )
        return None

    def _column_made(self, name: str) -> str:
        """A column by its name, and the line that made it when one line did: `'lag_0' (made at line 7)`."""
        lines = self.r.column_lines.get(name, set())
        return f"{name!r} (made at {self.at_line(min(lines))})" if len(lines) == 1 else repr(name)

    def _own_row_forecast(self, e: Evaluation, added: int, line: int) -> Leak:
        """Forecasts made from a history that holds the row each forecasts, added earlier in the pass."""
        return Leak(
            LeakKind.OVERLAP,
            True,
            Site(line, 0),
            "the forecast",
            f"the forecast at {self.at_line(line)} is made from rows of the history that hold each pass's own row, "
            f"put there at {self.at_line(added)} before it: scored at {self.where(e.site)} ({e.what}), each forecast "
            "read the value it forecasts.",
            ((e.site, e.what),),
            (),
            _WALK_FORWARD_FIX,
            (("added_at", str(added)),),
            (Site(added, 0), Site(line, 0), e.site),
            (("score", e.site, e.what),),
        )

    def _test_file_learned(self, atom: Atom, train: Train) -> bool:
        """Rows of a file named as a test set (`test.csv`, `X_test.npy`, `holdout.parquet`) whose labels a model
        learned from: scoring it on them again is no training score but the test set trained on."""
        # a hand-written loop learns the labels among its loss's rows
        labels = train.y if train.y is not None else train.x if train.by_loss else None
        if labels is None or labels.predicted:  # pseudo-labels: the model's own predictions, not the test's
            return False
        return self._test_file(atom) and any(self.shares(a, atom) for a in labels.rows)

    def _test_file(self, atom: Atom) -> bool:
        origin = self.r.origins.get(atom.origin)
        return origin is not None and origin.path is not None and _test_name(_named(origin.path))

    def _cut_scored(self, scored: Atom, trained: Atom) -> str:
        """The condition or slice that chose the scored rows, when it differs from the training one: the two
        bounds side by side are what a reviewer compares (' on the rows of ... where year >= 2019')."""
        if not scored.parts or scored.parts == trained.parts or scored.origin not in self.r.origins:
            return ""
        part = scored.parts[-1]
        if not (part.split.startswith("mask:") or (part.split.startswith(_SLICE) and part.span)):
            return ""
        return f" on {self._part_text(part, self.r.origins[scored.origin].what, scored.parts)}"

    def _how_seen(self, t: Atom, x: Data, back: bool = False) -> str:
        sides = {(p.split, p.side) for a in x.rows for p in a.parts[-1:]}
        splits = {s for s, _ in sides}
        if back or any(len({side for s2, side in sides if s2 == s}) > 1 for s in splits):
            where = f" at {self.at_line(min(x.merged))}" if x.merged else ""
            return f"the training and test parts put back together{where}"
        if not t.parts:
            where = "a file named as a test set" if self._test_file(t) else "no part of a split"
            # `pd.concat([train, test])` trained on: the line a reader changes, where those rows came in
            lines = sorted(line for origin, line in x.gathered if origin == t.origin)
            put = f", put with other rows at {self.at_line(lines[0])}" if lines else ""
            return f"{self._rows_text(frozenset({t}))} ({where}){put}"
        if _role(t) == "test":
            return "the test part of the split"
        renumbered = sorted(line for part, line in x.renumbered if part == t.parts[-1])
        if renumbered:
            # `df.drop(train.index)` after train.reset_index(drop=True): the labels taken out are 0..n-1
            return (
                f"{self._rows_text(frozenset({t}))}, whose row labels are numbered 0, 1, 2, ... anew at "
                f"{self.at_line(renumbered[0])}, so taking its index out of the rows (drop, isin) "
                "takes out other rows and leaves its own"
            )
        return self._rows_text(frozenset({t}))

    def _swapped(self, train: Train) -> Split | None:
        """The split whose outputs a training takes crossed: X from one side, y from the other."""
        if train.x is None or train.y is None:
            return None
        xs = {(p.split, p.side) for a in train.x.rows for p in a.parts[-1:]}
        ys = {(p.split, p.side) for a in train.y.rows for p in a.parts[-1:]}
        if not xs or not ys or xs & ys:
            return None
        common = {s for s, _ in xs} & {s for s, _ in ys}
        if not all(a.disjoint(b) for a in train.x.rows for b in train.y.rows):
            return None  # `X[:cut]` and the targets `y[:cut]` of windows from position 48 on: parts that meet
        for sid in sorted(common):
            if sid in self.r.splits:
                return self.r.splits[sid]
        return None

    def _swap_leak(self, train: Train, split: Split) -> Leak:
        return Leak(
            LeakKind.OVERLAP,
            True,
            split.site,
            split.what,
            f"{train.what} at {self.where(train.site)} takes X from one side of the split at {self.where(split.site)} "
            "and y from the other: the outputs of the split are unpacked in the wrong order, so the labels of "
            "the test part train the model and the model is scored against the training labels.",
            ((train.site, train.what),),
            _chain_after(train.x, 0),
            "Unpack the split in its order: X_train, X_test, y_train, y_test = train_test_split(X, y, ...).",
            (),
            (split.site, train.site),
            (("split", split.site, split.what), ("train", train.site, train.what)),
        )

    def _tries(self, evaluations: list[Evaluation]) -> str:
        """How many tries the scores of one test set are, in words: the models they score when several are
        known (two metrics of one model are not two tries; a model built in a loop is one a pass), or one per
        pass of a loop."""
        models = frozenset().union(*(e.models for e in evaluations))
        built = [self._passes(self.r.objects[m].loops) if m in self.r.objects else 1 for m in models]
        made_in = {lid for m in models if m in self.r.objects for lid in self.r.objects[m].loops}
        untold = {lid for e in evaluations for lid in e.loops if lid not in self.r.pass_counts} - made_in
        if untold:  # blend weights tried by minimize(): the tries are the settings, however many models they mix
            return "once per model or setting of a loop"
        combined = self._combined_per_pass(evaluations)
        if combined is not None:  # m1 and m0 of a T-learner fitted per candidate, one score of both: a try a pass
            up_to = "up to " if made_in & self.r.passes_at_most else ""
            return f"for {up_to}{combined} models"
        if len(models) > 1 or (len(models) == 1 and (built[0] or 0) > 1):
            known = None if None in built else sum(b or 0 for b in built)
            # a pass that may skip its model (`continue`, `if`, `break`): at most that many
            up_to = "up to " if made_in & self.r.passes_at_most else ""
            return f"for {up_to}{known if known is not None else f'{len(models)} or more'} models"
        loops = {lid for e in evaluations for lid in e.loops}
        if len({e.site for e in evaluations}) == len(evaluations):
            # [acc(m) for m in (train_mask, val_mask, test_mask)]: a loop walked item by item scores these rows in
            # one of its items only (each item's score is its own), so its items are no tries of them
            loops -= set(self.r.pass_values)
        if loops:
            passes = self._passes(tuple(loops))
            up_to = "up to " if loops & self.r.passes_at_most else ""
            return (f"{up_to}{passes} times, once" if passes else "once") + " per model or setting of a loop"
        return f"{len({e.site for e in evaluations})} times"

    def _combined_per_pass(self, evaluations: list[Evaluation]) -> int | None:
        """The tries, when every score combines several models built in the loop it is taken in (one pass, one
        candidate, however many models it fits): the passes of those loops, once per set of models scored; None
        otherwise, or when a loop does not say how many passes it makes."""
        total = 0
        for models in {e.models for e in evaluations}:
            loops = {lid for e in evaluations if e.models == models for lid in e.loops}
            shared = tuple(sorted(lid for lid in loops if all(lid in self.r.objects[m].loops for m in models)))
            if len(models) < 2 or not shared or any(m not in self.r.objects for m in models):
                return None
            passes = self._passes(shared)
            if passes is None:
                return None
            total += passes
        return total

    def _passes(self, loops: tuple[int, ...]) -> int | None:
        """How many passes loops nested in one another make in all, None when one of them does not say."""
        total = 1
        for lid in loops:
            count = self.r.pass_counts.get(lid)
            if count is None:
                return None
            total *= count
        return total

    def multi_test(self) -> list[Leak]:
        leaks: dict[Site, Leak] = {}
        for selection in self.r.selections:
            groups: dict[frozenset[Atom], list[Evaluation]] = {}
            for eid in sorted(selection.scores):
                e = self.r.evaluations[eid]
                if e.cross_validation or e.x is None:
                    continue
                unseen = (
                    self.held_out(e.x, self.trained_on(e))
                    if e.trains
                    # scores of no model of the file: of a test part, or of a file named as a test set (the labels'
                    # rows say which, where the scores come from elsewhere: a lookup of embeddings)
                    else frozenset(
                        a
                        for d in (e.x, e.y)
                        if d is not None
                        for a in d.rows
                        if _role(a) == "test" or self._test_file(a)
                    )
                )
                if unseen:
                    groups.setdefault(unseen, []).append(e)
            for rows, evaluations in groups.items():
                settings = {(e.site, e.models) for e in evaluations}
                # a loop whose every pass reads the rows scored anew (one data set per pass) scores other rows
                # in each pass: its passes are not tries on one test set
                loops = frozenset(lid for e in evaluations for lid in e.loops)
                anew = frozenset.intersection(*(self._read_anew(a) | self._cut_anew(a, loops) for a in rows))
                # np.argmax(f1) over a precision-recall curve picks one threshold of many (max(f1) only reports
                # the curve's best value, as F-max does)
                curve = selection.picks and any(e.curve for e in evaluations)
                if len(settings) < 2 and not any(set(e.loops) - anew for e in evaluations) and not curve:
                    continue
                if not curve and self._one_configuration(evaluations, selection):
                    continue
                first = next((e for e in evaluations if e.curve), evaluations[0]) if curve else evaluations[0]
                if self._validation(first.x, rows, selection.site, {e.id for e in evaluations}):
                    continue
                many = self._tries(evaluations)
                message = (
                    f"{first.what} at {self.where(first.site)} scores the test rows at every threshold, and "
                    f"{selection.what} at {self.where(selection.site)} picks one of those thresholds by its score: "
                    "the threshold is chosen on the test set, so the scores it gives there are the best of many "
                    "tries, not an estimate for new data."
                    if curve
                    else f"{first.what} at {self.where(first.site)} scores the same test rows {many}, and "
                    f"{selection.what} at {self.where(selection.site)} chooses among those scores: the chosen "
                    "score is the best of several tries on one test set, not an estimate for new data."
                )
                leaks.setdefault(
                    first.site,
                    Leak(
                        LeakKind.MULTI_TEST,
                        True,
                        first.site,
                        first.what,
                        message,
                        ((selection.site, selection.what),),
                        _chain_after(first.x, 0),
                        _THRESHOLD_FIX if curve else _MULTI_TEST_FIX,
                        (),
                        (first.site, selection.site, *(e.site for e in evaluations[1:])),
                        _scored(evaluations),
                    ),
                )
        for train in self.r.trains.values():
            if not train.chooses_by_watched or train.x is None:
                continue
            for x, _ in train.watched:
                if x is None:
                    continue
                unseen = self.held_out(x, [train.x])
                if not unseen or self._validation(x, unseen, train.site, set()):
                    continue
                # X.iloc[va] of `for tr, va in KFold(5).split(X)` stops each fold's model, as X_va = X.iloc[va]
                # does: out-of-fold early stopping. (Settings picked by the best score of a fold stay a choice.)
                if all(self._fold(a) for a in unseen):
                    continue
                scored = self._scored_later(unseen, train.site)
                if scored is None and not _named_test(x):
                    continue
                # where the chosen model is then scored on those rows: where the leak lands
                into = ((scored.site, scored.what),) if scored is not None else ()
                leaks.setdefault(
                    train.site,
                    Leak(
                        LeakKind.MULTI_TEST,
                        True,
                        train.site,
                        train.what,
                        f"{train.what} watches the test rows ({_last_name(x) or 'its eval set'}) and stops, or keeps "
                        "the best iteration or trial, by their score: the test set chooses the model it then scores"
                        + (f" at {self.where(scored.site)} ({scored.what})." if scored is not None else "."),
                        into,
                        _chain_after(x, 0),
                        _EARLY_STOPPING_FIX,
                        (),
                        (train.site, *(site for site, _ in into)),
                        (("train", train.site, train.what), *(("score", site, what) for site, what in into)),
                    ),
                )
        for leak in self._settings_chosen_on_scored_rows():
            leaks.setdefault(leak.site, leak)
        for leak in self._searched_on_a_predefined_test_fold():
            leaks.setdefault(leak.site, leak)
        return list(leaks.values())

    def _searched_on_a_predefined_test_fold(self) -> list[Leak]:
        """A search cross-validated by a PredefinedSplit whose held-out fold is the test part (`np.zeros(len(X_te))`
        beside `np.full(len(X_tr), -1)`), its scores read: the settings are chosen by their scores on the test
        rows, and the best of them is no estimate for new data. A fold that is a validation part is the intended
        use, and no finding."""
        found = []
        searches = {o.evaluation: o for o in self.r.objects.values() if o.evaluation is not None}
        for e in self._evaluations():
            search = searches.get(e.id)
            if search is None or not e.shown or e.splitter is None or e.x is None:
                continue
            splitter = self.r.objects[e.splitter]
            held = splitter.fold_rows
            if held is None:
                continue
            rows = frozenset(held.rows)
            if not all(_role(a) == "test" and any(a.within(b) for b in e.x.rows) for a in rows):
                continue
            if self._validation(held, rows, e.site, {e.id}):
                continue
            found.append(
                Leak(
                    LeakKind.MULTI_TEST,
                    True,
                    e.site,
                    e.what,
                    f"{search.name} at {self.where(e.site)} cross-validates with {splitter.name} at "
                    f"{self.where(splitter.site)}, whose held-out fold is {self._rows_text(rows)}: it chooses among "
                    "its settings by their scores on the test rows, so the score it gives for the best is the best of "
                    "several tries on one test set, not an estimate for new data.",
                    ((splitter.site, splitter.name),),
                    _chain_after(held, 0),
                    _MULTI_TEST_FIX,
                    (),
                    (e.site, splitter.site),
                    (("score", e.site, e.what),),
                )
            )
        return found

    def _settings_chosen_on_scored_rows(self) -> list[Leak]:
        """Models built with the hyper-parameters a search chose (``SVC(**grid.best_params_)``) when the search
        cross-validated on rows the model is then scored on: the test rows chose the settings scored on them."""
        found: dict[int, Leak] = {}
        for e in self._evaluations():
            if e.cross_validation or e.x is None or not e.trains:
                continue
            scored = self.held_out(e.x, self.trained_on(e))
            for fid in sorted(self.baked(e.models)):
                fit = self.r.fits[fid]
                if not fit.chooses or not any(self.shares(f, v) for f in fit.rows for v in scored):
                    continue
                if fid in found:
                    old = found[fid]
                    found[fid] = replace(old, into=(*old.into, (e.site, e.what)), sites=(*old.sites, e.site))
                    continue
                found[fid] = Leak(
                    LeakKind.MULTI_TEST,
                    True,
                    fit.site,
                    fit.what,
                    f"{fit.what}{self._inside(fit.site)} chooses the hyper-parameters by cross-validation on "
                    f"{self._rows_text(fit.rows)}, which include the rows scored at {self.where(e.site)} "
                    f"({e.what}) by the model built with them: the test set chose the settings it then scores.",
                    ((e.site, e.what),),
                    _chain_after(fit.data, 0),
                    _MULTI_TEST_FIX,
                    (),
                    (fit.site, e.site),
                    (("train", fit.site, fit.what), ("score", e.site, e.what)),
                )
        return list(found.values())

    def _one_configuration(self, evaluations: list[Evaluation], selection: Selection) -> bool:
        """Whether the scores compared are of one model, or of one configuration repeated, so that the choice
        chooses no model: one training scored with several metrics or on resamples of the test rows (nothing
        to choose), or a model built and trained anew per pass of loops that vary only seeds or folds, when the
        choice gives only the best value (max(scores): a spread reported), not which pass (argmax: a choice)."""
        trains = {t for e in evaluations for t in e.trains}
        if len(trains) != 1 or not all(e.trains and e.x is not None for e in evaluations):
            return False
        tuned = frozenset().union(*(e.x.tuned for e in evaluations if e.x is not None))
        if len(tuned) > 1 or any(loops for _, loops in tuned):
            return False  # thresholds or numbers of trees tried one by one: each is a setting
        train = self.r.trains[next(iter(trains))]
        if train.search and len({m for e in evaluations for m in e.models}) > 1:
            return False  # a search's several models (a tuner's best few): each the model of its own trial
        built = self.r.objects[train.model]
        loops = self._passes_of_models(train, built, evaluations)
        if not loops:
            return True
        if not all(lid in self.r.replicates for lid in loops):
            return False
        if built.loops[: len(loops)] != loops:
            return False  # one model trained on in every pass (epochs, warm starts): each pass a new setting
        redrawn = {p.split for e in evaluations if e.x is not None for a in e.x.rows for p in a.parts}
        if any(set(self.r.splits[sid].loops) & set(loops) for sid in redrawn if sid in self.r.splits):
            return False  # the test rows drawn anew per pass (a split per seed): the best pass is the luckiest split
        changing = frozenset().union(*(self.r.replicates[lid] for lid in loops))
        read = self._read_beside_seeds(built)
        if read is None or read & changing:
            return False  # built from what a pass draws or assigns (params = sample(space)): a setting per pass
        return not selection.picks

    @staticmethod
    def _passes_of_models(train: Train, built: Obj, evaluations: list[Evaluation]) -> tuple[int, ...]:
        """The loops a training is in whose passes may each give another model: all of them, but for the epochs
        and batches of a hand-written loop inside the pass that built the model, when every score is taken after
        them (`for seed in seeds: model = Net(); for epoch ...: opt.step()`, then one test score per seed)."""
        loops = train.loops
        outer = built.loops
        if not train.by_loss or len(outer) >= len(loops) or loops[: len(outer)] != outer:
            return loops
        inner = set(loops[len(outer) :])
        if any(inner & set(e.loops) for e in evaluations):
            return loops  # a score per epoch: the epochs are what is compared
        return outer

    def _read_beside_seeds(self, built: Obj) -> frozenset[str] | None:
        """The names a model's construction reads, but for seeds; a pipeline's steps built apart (`clf = ...`,
        then `make_pipeline(scaler, clf)`), or the estimator a model wraps (`CalibratedClassifierCV(base)`), are read
        where they were built. None when that cannot be seen."""
        if built.node is None:
            return None
        read = read_beside_seeds(built.node)
        steps = [s for s in nested_steps(self.r.objects, [built.id]) if s.id != built.id]
        steps += [self.r.objects[w] for w in built.wrapped]  # CalibratedClassifierCV(base): base built apart
        if not steps or any(s.node is None for s in steps):
            return read
        read -= step_names(built.node)
        for step in steps:
            assert step.node is not None
            read |= read_beside_seeds(step.node)
        return read

    def _validation(
        self, data: Data | None, rows: frozenset[Atom], site: Site, chosen: set[int], named: bool = True
    ) -> bool:
        """Whether the rows a choice is made on are a validation set: carved out of a training part, named so
        (unless ``named`` is False: a name alone does not keep a test part apart), or followed by a score on other
        unseen rows (the test set kept for the end)."""
        if rows and all(any(p.side == "train" and not self._only_part(p) for p in a.parts[:-1]) for a in rows):
            return True
        if not named:
            return self._test_kept_after(rows, site, chosen)
        if rows and all(a.parts and _VALIDATION_NAME.search(a.parts[-1].side) for a in rows):
            return True  # a split published as one (ds["validation"] of a Hub data set)
        if rows and all(a.parts and a.parts[-1].held_out and self._published(a.parts[-1].split) for a in rows):
            return False  # a data set's own test part (eval_ds = ds["test"]): renamed, it is still the test set
        if data is not None and _VALIDATION_NAME.search(_last_name(data) or "") and not _renamed_test(data):
            return True
        if data is not None and _one_part(rows) and _named_validation_before(data):
            return True  # `for x, y in DataLoader(val_ds)`: one part's batches, named by the loop, of a validation set
        return self._test_kept_after(rows, site, chosen)

    def _test_kept_after(self, rows: frozenset[Atom], site: Site, chosen: set[int]) -> bool:
        """Whether a score after ``site``, or another at it (`[acc(m) for m in (val_mask, test_mask)]`), is of other
        unseen rows than ``rows`` (a test set kept for the end): of the same source, or a file of its own (the test
        split's file); another data set's test part, split off it and scored after, keeps nothing of this one apart."""
        origins = {a.origin for a in rows}
        for e in self._evaluations():
            if e.id in chosen or e.x is None or not (_after(e.site, site) or e.site == site) or e.cross_validation:
                continue
            later = self.held_out(e.x, self.trained_on(e)) if e.trains else frozenset()
            if not later or not all(a.origin in origins or self._test_file(a) or not a.parts for a in later):
                continue
            if all(a.disjoint(b) for a in later for b in rows):
                return True
        return False

    def _fold(self, atom: Atom) -> bool:
        """Whether ``atom`` is the held-out fold of a splitter's split() the program walks, cut from rows that
        were never held out before (a fold of the test part is still test rows)."""
        if not atom.parts or not atom.parts[-1].held_out or any(p.held_out for p in atom.parts[:-1]):
            return False
        split = self.r.splits.get(atom.parts[-1].split)
        return split is not None and split.folds

    def _only_part(self, part: Part) -> bool:
        """Whether ``part`` is a data set's own "train" split whose other splits the program never reads
        (`load_dataset("csv", data_files=...)["train"]`: every row of the file), so what is carved from it is not
        carved from a training part."""
        if not self._published(part.split):
            return False
        if self._sides_read is None:
            found: set[tuple[str, str]] = set()
            for d in [*(t.x for t in self.r.trains.values()), *(e.x for e in self.r.evaluations.values())]:
                for a in d.rows if d is not None else ():
                    found |= {(p.split, p.side) for p in a.parts}
            self._sides_read = found
        return not any(split == part.split and side != part.side for split, side in self._sides_read)

    def _published(self, sid: str) -> bool:
        split = self.r.splits.get(sid)
        return split is not None and split.published

    def _scored_later(self, rows: frozenset[Atom], site: Site) -> Evaluation | None:
        """The first score after ``site`` of ``rows``, rows that hold them (X_te[:50] watched, then the whole of X_te
        scored) or some of them (X_te watched, X_te[:100] or one query's rows of it scored); None when they are not
        scored again."""
        later = [
            e
            for e in self._evaluations()
            if e.x is not None
            and _after(e.site, site)
            and not e.cross_validation
            and any(a.within(b) or b.within(a) for a in rows for b in e.x.rows)
        ]
        return min(later, key=lambda e: (*(line for line, _ in e.site.via), e.site.line, e.site.column), default=None)

    def label_in_features(self) -> list[Leak]:
        leaks: dict[Site, Leak] = {}
        # a cross-validation first: its fold models (return_estimator=True) are trained where it is called
        pairs: list[tuple[Site, str, Data | None, Data | None, frozenset[int]]] = [
            (e.site, e.what, e.x, e.y, e.models) for e in self._evaluations() if e.cross_validation
        ]
        pairs += [(t.site, t.what, t.x, t.y, frozenset({t.model})) for t in self.r.trains.values()]
        for site, what, x, y, models in pairs:
            regression = self._regression(models)
            if x is not None and x.columns is not None:
                x = self._used(x, models)
            by_position = (
                x is not None
                and y is not None
                and y.position_of is not None
                and y.position_of[0] == x.columns
                and x.rows == y.rows
            )
            # a table drawn at random (np.random.rand) holds no answer: its label is made from it to be learned
            drawn = y is not None and all(self.r.origins[a.origin].drawn for a in y.rows if a.origin in self.r.origins)
            if by_position and x is not None and y is not None and not x.past and not drawn:
                # the same rows' every column, the label's too (not the rows before, `shift(1)`, nor the next)
                leaks.setdefault(site, self._label_by_position(site, what, x, y))
                continue
            if x is None or y is None or x.columns is None or x.columns.opaque:
                continue
            labels = sorted(s for s in y.sources if not s.startswith("<"))
            if not labels or not self._same_table(x, y):
                continue
            # of a label of several columns (lifelines' duration and event), the most direct way one of them is
            # read: the column itself, then a feature computed from it, then one computed from what it came from
            found: list[tuple[int, Leak]] = []
            for label in labels:
                # a number when the model regresses, or when the code made it one (astype(int), a map to 0 and 1)
                numeric = True if regression or label in x.columns.numbers or y.number else None
                if label in y.textual and label not in x.columns.numbers:
                    # y = (df["grade"] <= "B").astype(int): numbers made of a column of text, which stays text
                    numeric = False
                derived = x.columns.computed_from(label)
                # a label taken from later rows (the next day's sales, shift(-1)) is not in the row's own values:
                # today's sales among the features is a forecast, not the answer
                # so is a lead of the column's own series (`y = df["views"].shift(-1)`) the features do not share:
                # the column among them holds each row's own value, not the next one
                led = any(f[1] is None and f[0] in self.r.leads and f not in x.later for f in y.later)
                ahead = led or any(f[1] == label for f in y.later)
                upstream = sorted(
                    src
                    for new, src in x.columns.derived
                    if new == label
                    and src != label
                    and not ahead
                    and x.columns.has(src, True if src in x.columns.numbers else None)
                )
                # y = log1p(price), and price / sqft among the features: a label computed from one column alone is
                # read from any other feature computed from that column (several columns: each alone is not it)
                sources = {src for new, src in x.columns.derived if new == label and src != label}
                via = next(iter(sources)) if not derived and not ahead and len(sources) == 1 else None
                if via is not None:
                    derived = [d for d in x.columns.computed_from(via) if d != label]
                # home_win = hg > ag beside a window of hg and one of ag that hold the row's own goals: each column
                # the label was computed from is in a feature, so together they hold it
                each = {src: [d for d in x.columns.computed_from(src) if d != label] for src in sorted(sources)}
                spread = not derived and not ahead and len(sources) > 1 and all(each.values())
                if spread:
                    derived = sorted({d for found in each.values() for d in found})
                # dropped from the rows the label is of before a concatenation: the column holds none of their labels
                emptied = x.columns.empty_for(label, (a.origin for a in y.rows))
                present = x.columns.has(label, numeric) and not emptied and not led
                directness = 0 if present else 2 if upstream else 3 if via is not None else 4 if spread else 1
                if present:
                    detail = f"the label column '{label}' is among the features"
                    chose = x.columns.dtypes_at if x.columns.dtypes == "number" and x.columns.base is None else ()
                    if chose:
                        # X = df.select_dtypes("number").drop(columns=["id"]): a label of numbers kept by the type
                        detail += f" (kept as a column of numbers by select_dtypes at {self.at_line(min(chose))})"
                elif upstream:
                    derived = upstream
                    named = ", ".join(repr(u) for u in upstream)
                    are = "are" if len(upstream) > 1 else "is"
                    detail = f"{named}, which the label '{label}' was computed from, {are} among the features"
                elif derived and via is not None:
                    named = ", ".join(repr(d) for d in derived)
                    detail = (
                        f"{named} computed from '{via}', which the label '{label}' was computed from, "
                        f"{'are' if len(derived) > 1 else 'is'} among the features"
                    )
                elif spread:
                    named = ", ".join(repr(d) for d in derived)
                    srcs = " and ".join(repr(s) for s in sorted(sources))
                    detail = (
                        f"{named}, computed from {srcs}, which the label '{label}' was computed from, "
                        f"{'are' if len(derived) > 1 else 'is'} among the features"
                    )
                elif derived:
                    named = ", ".join(self._column_made(d) for d in derived)
                    are = "are" if len(derived) > 1 else "is"
                    detail = f"{named} computed from the label '{label}' {are} among the features"
                else:
                    continue
                dropped = [label, *derived] if present or not derived else list(derived)
                fix = (
                    f"Drop {' and '.join(repr(c) for c in dropped)} from X "
                    f"(e.g. X = df.drop(columns=[{', '.join(repr(c) for c in dropped)}]))."
                )
                listed = x.columns.base if x.columns is not None and not x.columns.removed else None
                kept = sorted(listed - set(dropped)) if listed is not None else []
                if kept:
                    # X = acc[feats] of a list of names: the fix is in that list, not a drop of a table's columns
                    shown = f"[{', '.join(repr(c) for c in kept)}]" if len(kept) <= 8 else "the other names"
                    fix = (
                        f"Leave {' and '.join(repr(c) for c in dropped)} out of the names the features are taken "
                        f"by (e.g. keep {shown})."
                    )
                stacked = sorted(line for c, line in x.stacked if c == label)
                if present and stacked:
                    # np.c_[X, np.log1p(y)]: the label's column put beside the features, not a column of the table
                    at = self.at_line(stacked[0])
                    detail = f"a column of the label '{label}' is stacked beside the features at {at}"
                    fix = (
                        f"Leave the label '{label}' (and what is computed from it) out of the columns stacked at {at}."
                    )
                if derived and not present and not upstream and via is None:
                    # form5 = a rolling mean of `won` that holds the row's own result: a lag keeps the feature
                    fix += (
                        " A statistic of earlier rows' labels can stay if it leaves the row's own label out: "
                        "shift(1) before a rolling or expanding mean."
                    )
                found.append(
                    (
                        directness,
                        Leak(
                            LeakKind.LABEL_IN_FEATURES,
                            True,
                            site,
                            what,
                            f"{what} learns y = '{label}' from X, and {detail}: the model can read the answer.",
                            (),
                            x.chain,
                            fix,
                            (("label", label), ("columns", ", ".join(derived or [label]))),
                            (site,),
                            (("train", site, what),),
                        ),
                    )
                )
            if found:
                leaks.setdefault(site, min(found, key=lambda f: f[0])[1])
        return list(leaks.values())

    def _label_by_position(self, site: Site, what: str, x: Data, y: Data) -> Leak:
        """`fit(data, data[:, -1])`: the label is one of the table's columns, and every one of them is a feature."""
        table = y.position_of[1] if y.position_of is not None else "the table"
        return Leak(
            LeakKind.LABEL_IN_FEATURES,
            True,
            site,
            what,
            f"{what} learns y, a column of '{table}' given by its position, from X, which holds every column of "
            f"'{table}', that one too: the model can read the answer.",
            (),
            x.chain,
            f"Leave the label's column out of X: the other columns only ({table}[:, :-1] beside {table}[:, -1], "
            f"{table}.iloc[:, 1:] beside {table}.iloc[:, 0]).",
            (("label", f"a column of '{table}' by position"),),
            (site,),
            (("train", site, what),),
        )

    def baked(self, models: frozenset[int]) -> frozenset[int]:
        """The row statistics given to the constructors of the models and of their steps."""
        found: set[int] = set()
        stack, seen = list(models), set()
        while stack:
            oid = stack.pop()
            if oid not in seen:
                seen.add(oid)
                found |= self.r.objects[oid].baked
                stack += self.r.objects[oid].steps
        return frozenset(found)

    def _used(self, x: Data, models: frozenset[int]) -> Data:
        """The columns of ``x`` the models use: those their column transformer selects (the rest dropped)."""
        for oid in models:
            used = selected_columns(x, self.r.objects[oid].selects)
            if used is not None:
                return used
        return x

    def _regression(self, models: frozenset[int]) -> bool:
        """Whether the models (or a pipeline's or search's last model) predict numbers: their label is numeric."""
        return any(is_regressor(found.name) for found in nested_steps(self.r.objects, sorted(models)))

    def _same_table(self, x: Data, y: Data) -> bool:
        def roots(data: Data) -> set[int]:
            found = {a.origin for a in data.rows}
            for a in data.rows:
                found |= {m.origin for m in self.made_from(a)}
            return found

        return bool(roots(x) & roots(y))

    def temporal_shuffle(self) -> list[Leak]:
        leaks = []
        for split in self.r.splits.values():
            data = split.data
            if not split.shuffled or split.temporal or data is None:
                continue
            if not (data.ordered or data.time_index or data.lagged):
                continue
            if split.by_group and not data.time_index:
                # each entity's timeline (its lags and leads, by groupby) stays whole in one part
                continue
            scored = [e for e in self._evaluations() if self._reaches(e, split)]
            if not scored:
                continue
            serious = bool(data.lagged or data.time_index)
            evidence = []
            if data.ordered:
                evidence.append(f"sorted by time at {self.at_line(min(data.ordered))}")
            if data.time_index:
                evidence.append(f"indexed by dates at {self.at_line(min(data.time_index))}")
            if data.lagged:
                evidence.append(f"with values of other rows (shift, rolling, diff) at {self.at_line(min(data.lagged))}")
            leaks.append(
                Leak(
                    LeakKind.TEMPORAL_SHUFFLE,
                    serious,
                    split.site,
                    split.what,
                    f"{split.what} shuffles rows that are ordered in time ({'; '.join(evidence)}): the training part "
                    "holds rows from after the test rows, so the model is scored on a past it has seen the future of.",
                    tuple((e.site, e.what) for e in scored),
                    data.chain,
                    _TEMPORAL_FIX,
                    (("ordered", "; ".join(evidence)),),
                    (split.site, *(e.site for e in scored)),
                    (("split", split.site, split.what), *_scored(scored)),
                )
            )
        return leaks

    def _reaches(self, e: Evaluation, split: Split) -> bool:
        if e.splitter is not None and self.r.objects[e.splitter].split == split.id:
            return True
        if e.x is None:
            return False
        return any(p.split == split.id for a in e.x.rows for p in a.parts)

    def _evaluations(self) -> list[Evaluation]:
        return list(self.r.evaluations.values())

    def _rows_text(self, rows: frozenset[Atom]) -> str:
        """The rows in words: 'all rows of read_csv('heart.csv') (line 3)'."""
        # each atom's text, or the key of the split whose sides it names with others of that split
        texts: list[str | tuple[int, tuple[Part, ...], str]] = []
        sides: dict[tuple[int, tuple[Part, ...], str], list[str]] = {}
        known = sorted(a for a in rows if a.origin in self.r.origins)
        for atom in known[:3]:
            origin = self.r.origins[atom.origin]
            last = atom.parts[-1] if atom.parts else None
            if last is not None and not last.split.startswith((_SLICE, "mask:", "keys:")):
                # pd.concat([X_train, X_test]): 'the train and test parts of train_test_split at line 10 of ...'
                key = (atom.origin, atom.parts[:-1], last.split)
                if key not in sides:
                    texts.append(key)
                sides.setdefault(key, []).append(last.side)
            elif atom.parts:
                texts.append(self._part_text(atom.parts[-1], self._origin_text(atom.origin), atom.parts))
            else:
                texts.append(f"all rows of {self._origin_text(atom.origin)} ({self.where(origin.site)})")
        said = []
        for text in texts:
            if isinstance(text, str):
                said.append(text)
                continue
            taken = sorted(set(sides[text]), key=lambda side: (side != "train", side))
            parts = "part" if len(taken) == 1 else "parts"
            said.append(f"the {_listed(taken)} {parts} of {self._split_text(text[2])} of {self._origin_text(text[0])}")
        if len(known) > 3:  # the rest counted, not named: a list of sources cut short says so
            said.append(f"{len(known) - 3} more set{'s' if len(known) > 4 else ''} of rows")
        return _listed(said) or "its rows"

    def _origin_text(self, oid: int) -> str:
        origin = self.r.origins[oid]
        return origin.what if not origin.made_from else f"the rows made by {origin.how}"

    def _part_text(self, part: Part, where: str, parts: tuple[Part, ...] = ()) -> str:
        """One side of a split of the rows of ``where`` in plain words: 'the test part of train_test_split at line
        4', 'the rows [:cut] of ...', 'the rows of ... where df.year<2020', 'the rows put under the key 'train'
        by a concat of ...'. ``parts``: every cut of the rows, ``part`` the last; the masks that end them each
        chose the rows (`(df.year >= 2020) & (df.region == 'eu')`), so all of them are named."""
        if part.split.startswith(_SLICE):
            if len(parts) > 1 and parts[-1] == part:
                # a slice of rows cut before (`test[t:t + 1]` of `test = series[size:]`): its positions count in them
                where = self._part_text(parts[-2], where, parts[:-1])
            if part.span:
                _, lower, upper = part.span
                return f"the rows [{_bound_text(lower)}:{_bound_text(upper)}] of {where}"
            return f"{_SLICE_SIDES.get(part.side, 'a slice of the rows')} of {where}"
        if part.split.startswith("mask:"):
            held = [part.side]
            if parts and parts[-1] == part:
                held = []
                for earlier in reversed(parts):
                    if not earlier.split.startswith("mask:"):
                        break
                    held.insert(0, earlier.side)
            joined = " & ".join(f"({c})" if len(held) > 1 and _compound(c) else c for c in dict.fromkeys(held))
            return f"the rows of {where} where {shortened(joined, 2 * TEXT_LIMIT)}"
        if part.split.startswith("keys:"):
            return f"the rows put under the key {part.side!r} by a concat of {where}"
        return f"the {part.side} part of {self._split_text(part.split)} of {where}"

    def _split_text(self, sid: str) -> str:
        split = self.r.splits.get(sid)
        return f"{split.what} at {self.where(split.site)}" if split is not None else sid


def _fix(for_class: str, for_statistic: str, what: str) -> str:
    """The fix for a fit, naming a pipeline step only when the learner is a class (`StandardScaler.fit` gives
    `make_pipeline(StandardScaler(), model)`); a statistic computed by an expression (`df[target].mean()`,
    `np.mean(X)`) is named as written."""
    head, dot, method = what.partition(".")
    if dot and head.isidentifier() and head[:1].isupper() and method.isidentifier():
        return for_class.format(what=head)
    return for_statistic.format(what=what)


_SLICE = "slice"  # the splits slices of rows take a side of ('slice', 'slice1': a slice of a slice)
_SLICE_SIDES = {"head": "the first rows", "tail": "the last rows", "range": "a range of rows"}


_WORD = re.compile(r"[A-Za-z_]\w*")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


def _mask_terms(part: Part) -> tuple[set[str], set[str]]:
    """The names and the constants (quoted texts, numbers) a mask's condition is written with; none for other parts.
    A quoted column name (`df['year']`) is a constant, never a name of the program."""
    if not part.split.startswith("mask:"):
        return set(), set()
    bare = _QUOTED.sub("", part.side)
    return set(_WORD.findall(bare)), {q[1:-1] for q in _QUOTED.findall(part.side)} | set(_NUMBER.findall(bare))


def _after(later: Site, earlier: Site) -> bool:
    """Whether a place runs after another: by the lines of the calls that led to each, then its own line (a
    score later in the same function is after its fit, though both sit under one call of it)."""
    return (*(line for line, _ in later.via), later.line) > (*(line for line, _ in earlier.via), earlier.line)


def _bound_text(bound: tuple[str, float, bool]) -> str:
    """A slice's bound as written: '', '800', 'cut', 'n - 24'."""
    name, count, _ = bound
    number = int(count) if float(count).is_integer() else count
    if name == OPEN:
        return ""
    if name in ("", "<end>"):
        return str(number)
    name = shortened(name)
    if not number:
        return name
    return f"{name} + {number}" if number > 0 else f"{name} - {-number}"


def _scored(evaluations: Iterable[Evaluation]) -> tuple[tuple[str, Site, str], ...]:
    """The scores' roles, one per place (the scores of a loop's items at one line are one place)."""
    return tuple(dict.fromkeys(("score", e.site, e.what) for e in evaluations))


def _role(atom: Atom) -> str | None:
    """The side a split that names its sides (train_test_split, a fold, concat keys) put these rows on last."""
    for part in reversed(atom.parts):
        if part.side in ("train", "test"):
            return part.side
    return None


def _put_back(atom: Atom, trained: Data, scored: Data) -> bool:
    """Whether rows a split held out (the rest after a sample, a piece of np.array_split) were put back together
    with another side of that split in the rows trained on, one the rows scored do not hold. (When the scored rows
    may be any side the training holds, `folds[i]` beside the other folds, nothing says they meet.)"""
    if not trained.merged:
        return False
    sides = {(p.split, p.side) for a in trained.rows for p in a.parts}
    seen = {(p.split, p.side) for a in scored.rows for p in a.parts}
    return any(p.held_out and any(s == p.split and (s, side) not in seen for s, side in sides) for p in atom.parts)


def _masked(atom: Atom) -> bool:
    """Whether the last split that took these rows is a mask (whose sides name no train or test)."""
    return bool(atom.parts) and atom.parts[-1].split.startswith("mask:")


def _unseen(atom: Atom, training: list[Atom]) -> bool:
    role = _role(atom)
    if role is not None:
        return role == "test"
    return bool(training) and atom not in training


def _chain_after(data: Data | None, line: int) -> tuple[Step, ...]:
    if data is None:
        return ()
    kept = [s for s in data.chain if s.line >= line]
    return tuple(kept or data.chain[-3:])


def _last_name(data: Data | None) -> str | None:
    return data.chain[-1].name if data is not None and data.chain else None


def _one_part(rows: frozenset[Atom]) -> bool:
    """Whether ``rows`` are all of one side of one split."""
    return bool(rows) and all(a.parts for a in rows) and len({a.parts[-1] for a in rows}) == 1


def _named_validation_before(data: Data) -> bool:
    """Whether the last name in the rows' chain that says what they are (a validation or a test name) names a
    validation set never named as the test set before (`val_ds`, then `x` of a loop over its batches)."""
    names = [step.name for step in data.chain]
    for i in range(len(names) - 1, -1, -1):
        if _test_name(names[i]):
            return False
        if _VALIDATION_NAME.search(names[i]):
            return not any(_test_name(n) for n in names[:i])
    return False


def _renamed_test(data: Data) -> bool:
    """Whether rows now named as a validation set were named as the test set before (`X_val, y_val = X_test,
    y_test`): where they came from, not their new name, says what they are."""
    return any(_test_name(step.name) for step in data.chain[:-1])


def _named(path: str) -> str:
    """What a path names a set of rows by: its file's stem, or for a pattern of files (`test/img_*.nii.gz`) the
    folder they are in."""
    name = posixpath.basename(path)
    if any(c in name for c in "*?[") and posixpath.dirname(path):
        return posixpath.basename(posixpath.dirname(path))
    return _stem(path)


def _stem(path: str) -> str:
    """A file's name without its folder and suffixes (`data/X_test.csv.gz` is `X_test`)."""
    return posixpath.basename(path).partition(".")[0]


def _test_name(name: str) -> bool:
    return bool(_TEST_NAME.search(name))


# X_test, test_df, Xtest, X_te, holdout; not a word that only holds the letters (latest, contest)
_TEST_NAME = re.compile(r"(?i)(^|[^a-z]|^[xy])test|hold_?out|(^|_)te(_|$)|^[xy]te$")


def _test_side_learned(atom: Atom, train: Train, scored: Data) -> bool:
    """Whether rows cut off by a mask or a slice (`test = df[df.t >= cut]`) had their labels learned and were scored,
    both under a name that calls them the test set (`cal.fit(X_test, y_test)`, then `cal.predict_proba(X_test)`).
    A model given no labels (a clustering, scored by its silhouette) or its own predictions learns no answer."""
    trained, labels = train.x, train.y
    if trained is None or labels is None or labels.predicted or not atom.parts:
        return False
    # predictions are named by their own variable (`p = cal.predict_proba(X_test)`): the rows' name comes before it
    named = [step.name for step in scored.chain[-2:]] if scored.predicted else [_last_name(scored) or ""]
    return _named_test(trained) and any(_test_name(n) for n in named)


def _cut_by_columns(part: Part, columns: frozenset[str], splits: Mapping[str, Split]) -> bool:
    """Whether ``part`` is a side of a mask that reads only some of ``columns`` (`date >= cut`, for groups by
    store and date), or columns computed from them alone (`year = date.dt.year`): rows that agree on those
    columns lie on one side of it."""
    if not part.split.startswith("mask:") or not columns:
        return False
    read = set(part.split.removeprefix("mask:").split(","))
    split = splits.get(part.split)
    table = split.data.columns if split is not None and split.data is not None else None
    return all(c in columns or (table is not None and _computed_from_only(table, c, columns)) for c in read)


def _computed_from_only(table: Columns, column: str, columns: frozenset[str]) -> bool:
    """Whether ``column`` of ``table`` was computed from some of ``columns`` and nothing else (assigned to the table,
    whose other columns may be unknown after a merge)."""
    if column not in table.added:
        return False
    sources = {src for new, src in table.derived if new == column}
    return bool(sources) and sources <= columns


def _named_test(data: Data) -> bool:
    name = (_last_name(data) or "").lower()
    return "test" in name or "holdout" in name or "hold_out" in name


_STACKING_FIX = (
    "Split first; make a model's predictions into features out of fold (cross_val_predict on the training part), "
    "and predict the test part with models fitted on the training part only."
)
_PREPROCESSING_FIX = (
    "Split first, then fit {what} on the training part only and apply it to both parts; or put it in a Pipeline "
    "(make_pipeline({what}(), model)) so that cross-validation and the final fit refit it on training rows only."
)
_PREPROCESSING_FIX_STATISTIC = (
    "Split first, then compute {what} on the training part only and use those values on both parts; or do that "
    "inside a Pipeline step, so that cross-validation and the final fit take them from training rows only."
)
_REFITTED_FIX_STATISTIC = (
    "Compute {what} on the training part only and use those values on the test part, never statistics of the "
    "test part itself; or do that inside a Pipeline step fitted on the training part."
)
_REFITTED_FIX = (
    "Fit {what} on the training part only and apply that fit to the test part (sc.fit_transform(X_train), then "
    "sc.transform(X_test), never fit_transform on the test part); or put it in a Pipeline fitted on the training part."
)
_BATCH_FIX = (
    "Take the statistics with a learner fitted on the training part (StandardScaler, SimpleImputer in a Pipeline) "
    "instead of in FunctionTransformer's function, which takes them anew from every batch it transforms, the test "
    "part too."
)
_RESAMPLE_FIX = (
    "Resample after the split, on the training part only (or put the sampler in an imblearn Pipeline, which "
    "resamples inside each training fold); never make copies of rows before they are split."
)
_OVERLAP_FIX = "Train on the training part only; keep the test rows out of every fit until the final score."
_OTHER_COLUMNS_FIX = (
    "Choose both parts by one column, or take the training rows as every row the test's condition leaves out "
    "(`df[~test_mask]`), so no row is in both."
)
_WALK_FORWARD_FIX = (
    "Forecast each row before it joins the history: fit and forecast first, then add the pass's row "
    "(`history.append(test[t])` after `fit.forecast()`), so each model forecasts a row it has not seen."
)
_MEETING_CUTS_FIX = (
    "Make the two cuts disjoint: one side strict, the other not (`date < cut` for training, `date >= cut` for the "
    "test), or slices that end where the other starts (`[:cut]` and `[cut:]`)."
)
_MULTI_TEST_FIX = (
    "Choose among models on a validation split or by cross-validation on the training part; score only the "
    "chosen model, once, on the test set."
)
_THRESHOLD_FIX = (
    "Choose the threshold on a validation split carved from the training part (or on out-of-fold predictions "
    "from cross_val_predict), then apply it once to the test predictions."
)
_EARLY_STOPPING_FIX = (
    "Give early stopping a validation split carved from the training part (or use cross-validation), and keep "
    "the test set for one final score."
)
_LATER_FIX = (
    "Fill or shift after the cut, within each part (train.bfill(), test.bfill()), or fill from earlier rows only "
    "(ffill, shift(k > 0), a window closed on the left)."
)
_TEMPORAL_FIX = (
    "Split by time: train_test_split(..., shuffle=False) on rows sorted by time, a cut-off date, or TimeSeriesSplit "
    "for cross-validation, so that every test row is later than every training row."
)


def _compound(condition: str) -> bool:
    """Whether a condition needs brackets beside `&`: a comparison or a boolean operation does."""
    try:
        expr = ast.parse(condition, mode="eval").body
    except SyntaxError:
        return True
    return isinstance(expr, ast.Compare | ast.BoolOp | ast.BinOp | ast.UnaryOp)


def _gap_between(before: Part, after: Part) -> tuple[float, float, float] | None:
    """The time between a mask's side that ends at `cut - span` and its other side that starts after that end, with
    the span's count and unit as written (seconds, count, unit seconds); None when the sides are not so made."""
    if not before.span or not after.span or before.span[0] != after.span[0]:
        return None
    _, low, end = before.span
    start, high = after.span[1], after.span[2]
    if low[0] != OPEN or high[0] != OPEN or end[0] != start[0] or not end[0].startswith("<time"):
        return None
    spans = []
    for side in (before.side, after.side):  # `date < cut - gap`, or `date >= cut + gap` on the test side
        try:
            written = ast.parse(side, mode="eval")
        except SyntaxError:
            return None
        spans += [c for c in (span_count(n) for n in ast.walk(written) if isinstance(n, ast.expr)) if c is not None]
    if len(spans) != 1 or start[1] < end[1]:
        return None
    # both ends held (`<= cut - gap`, `>= cut`): the row at the first end reads the row at the second
    return start[1] - end[1] - (0.5 if end[2] and start[2] else 0), spans[0][0], spans[0][1]


def _beside_its_other_side(atom: Atom, trained: Data) -> bool:
    """Whether rows of a side that names no role (a drawn sample) were trained on together with rows of the other
    side of that same split: the sample was then no training part, and scoring it scores rows trained on."""
    if not atom.parts:
        return False
    cut = atom.parts[-1]
    return any(p.split == cut.split and p.side != cut.side for a in trained.rows for p in a.parts)


def _listed(texts: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return " and ".join(texts) if len(texts) < 3 else ", ".join(texts[:-1]) + " and " + texts[-1]


def _other_columns(scored: Atom, trained: Atom) -> str | None:
    """The columns two sets of rows of one source were chosen by, when each was chosen by masks of columns the
    other's masks do not test (`date < cut`, `is_test == 1`): rows both may hold, or none; None otherwise."""
    if scored.origin != trained.origin:
        return None
    common = 0
    while common < min(len(scored.parts), len(trained.parts)) and scored.parts[common] == trained.parts[common]:
        common += 1
    own, other = scored.parts[common:], trained.parts[common:]
    if not own or not other or not all(p.split.startswith("mask:") for p in (*own, *other)):
        return None
    if {p.split for p in own} & {p.split for p in other} or any(p.span == () for p in (*own, *other)):
        return None
    names = [p.split.removeprefix("mask:") for p in (*other, *own)]
    return ", ".join(dict.fromkeys(names))
