"""What the walk of a program records: the sources of rows, the objects it builds, and the events that matter
for leakage (learners fitted, models trained, rows split, models scored, scores compared), each at its line."""

from __future__ import annotations

import ast
from collections.abc import Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from auditor.code.catalog import Role, Strength
from auditor.code.values import NOTHING, Atom, Columns, Data, Value


@dataclass(frozen=True)
class Site:
    """A place in the program: its line and column (0-based, as ast gives them), and for a place inside the
    file's own functions, the calls that led there (outermost first)."""

    line: int
    column: int
    via: tuple[tuple[int, int], ...] = ()

    @property
    def top(self) -> Site:
        """Where the code calls the function that holds this place (the innermost call that led here): the
        leaking use of a helper; the place itself outside the file's functions."""
        return Site(*self.via[-1], self.via[:-1]) if self.via else self


@dataclass
class Origin:
    """A source of rows: a reader call, a data set loader, an argument of a function no call reached; or a
    pool of rows made from other rows (over-sampling, a concatenation that repeats rows)."""

    id: int
    site: Site
    what: str
    made_from: frozenset[Atom] = frozenset()  # set for a pool: the rows its rows were made from
    how: str = ""  # how the pool was made ('SMOTE.fit_resample', 'pd.concat of overlapping rows')
    read: bool = False  # a reader's or a loader's rows (not a value whose making the walk cannot see)
    # the loops each of whose passes reads other rows here (read_csv(name) in `for name in files`)
    passes: frozenset[int] = frozenset()
    path: str | None = None  # the file a reader read, as the filesystem takes it, when the walk knows it
    drawn: bool = False  # values drawn at random (np.random.rand): a synthetic table, its label made from it


@dataclass
class Obj:
    """An object the program builds (an estimator, a splitter, a list or dict), one per place it is built."""

    id: int
    site: Site
    qualname: str
    role: Role | None = None
    node: ast.AST | None = None  # the call that built it
    steps: list[int] = field(default_factory=list)  # a pipeline's or a search's inner estimators
    # the estimator a model wraps (CalibratedClassifierCV(base), BaggingClassifier(estimator=tree)): built apart
    wrapped: list[int] = field(default_factory=list)
    params: dict[str, Value] = field(default_factory=dict)  # keyword arguments of its constructor
    fits: frozenset[int] = frozenset()  # its latest learner fits (transform applies these)
    trains: frozenset[int] = frozenset()  # its latest trainings (predict and score use these)
    elements: Value = NOTHING  # a container's values
    keys: Value = NOTHING  # a dict's keys
    entries: dict[Hashable, Value] = field(default_factory=dict)  # values by constant key: a literal's, a Bunch's
    split: str | None = None  # a splitter's split, once split() is called
    evaluation: int | None = None  # a search's own cross-validation (best_score_)
    selects: Columns | None = None  # a column transformer's (or a pipeline's first step's) columns: the rest dropped
    baked: frozenset[int] = frozenset()  # row statistics given to its constructor (a clip's percentiles)
    loops: tuple[int, ...] = ()  # the loops it was built in: a model built per pass is a new model each pass
    chosen: int | None = None  # a search's choice of hyper-parameters (a Fit that chooses), once it is fitted
    # A PredefinedSplit's rows its test_fold marks with a fold number (the rest, -1, always trained on), when the
    # walk can read which part each piece of the fold array is as long as (`np.zeros(len(X_te))`)
    fold_rows: Data | None = None

    @property
    def name(self) -> str:
        if self.qualname.startswith("<result of ") and self.qualname.endswith(">"):
            # what a call of code the walk does not know made: named by the call (`CoxPHFitter()`)
            return self.qualname.removeprefix("<result of ").removesuffix(">").rpartition(".")[2]
        name = self.qualname.rpartition(".")[2] or self.qualname
        return _MADE_BY.get(name, name)


# scikit-learn's shorthands name the object they build: make_pipeline(...) is a Pipeline
_MADE_BY = {
    "make_pipeline": "Pipeline",
    "make_union": "FeatureUnion",
    "make_column_transformer": "ColumnTransformer",
}


def nested_steps(objects: Mapping[int, Obj], start: Iterable[int]) -> Iterator[Obj]:
    """The objects ``start`` names and every step nested in them (a pipeline's, a search's estimator), each once,
    depth first in step order."""
    seen: set[int] = set()
    stack = list(reversed(list(start)))
    while stack:
        oid = stack.pop()
        if oid in seen:
            continue
        seen.add(oid)
        found = objects[oid]
        yield found
        stack.extend(reversed(found.steps))


@dataclass
class Fit:
    """A learner fitted on rows: what it learns and from which rows."""

    id: int
    site: Site
    what: str  # 'StandardScaler.fit_transform', "df['age'].mean()"
    learns: str
    strength: Strength
    rows: frozenset[Atom]
    reported: bool = True  # False for a fit of an unknown class: followed, never a finding
    data: Data | None = None
    chooses: bool = False  # a search's choice of hyper-parameters (best_params_): chosen on these rows
    by: frozenset[str] = frozenset()  # a statistic per group: the columns the groups are keyed by, when known


@dataclass
class Train:
    """A model trained on rows, with the labels and the data it watched while training (eval sets)."""

    id: int
    site: Site
    what: str
    model: int  # the object trained
    x: Data | None
    y: Data | None
    watched: list[tuple[Data | None, Data | None]] = field(default_factory=list)  # eval_set / validation_data
    chooses_by_watched: bool = False  # early stopping or best-model selection on the watched data
    search: bool = False  # a hyper-parameter search (it cross-validates on x, then refits)
    loops: tuple[int, ...] = ()
    # trained by its loss's gradients in a hand-written loop: x is the loss's rows, their labels among them
    by_loss: bool = False

    @property
    def rows(self) -> Data | None:
        """The rows trained on: X, or the labels where X is not known, the series alone of a model of one series
        (ARIMA(train).fit(), a forecaster's fit(y))."""
        return self.x if self.x is not None else self.y


@dataclass
class Evaluation:
    """Rows scored: by which models (their trainings), on which rows, at which line."""

    id: int
    site: Site
    what: str
    models: frozenset[int]
    trains: frozenset[int]
    x: Data | None  # the rows scored (for a metric: the predictions' rows)
    y: Data | None
    cross_validation: bool = False  # the scoring cross-validates x itself (cross_val_score, a search)
    estimator_learns: bool = False  # the cross-validated estimator fits learners inside each fold
    estimator_resamples: bool = False  # the cross-validated estimator over-samples inside each fold
    splitter: int | None = None  # the splitter object of a cross-validation
    loops: tuple[int, ...] = ()
    # a curve (precision_recall_curve, roc_curve): one score per threshold of the predictions, each a setting
    curve: bool = False
    # False for a search's own cross-validation until its scores are read (best_score_, cv_results_): unread,
    # its scores only choose the settings, and no score the program shows comes from it.
    shown: bool = True
    # a loss that `backward()` trains a network by: the training's own loss on the rows it learns, not a score
    backpropagated: bool = False


@dataclass
class Split:
    """Rows split into parts: a train_test_split call, a splitter's split(), a mask, a slice or a sample."""

    id: str
    site: Site
    what: str
    shuffled: bool
    data: Data | None = None
    temporal: bool = False  # TimeSeriesSplit: keeps time order
    loops: tuple[int, ...] = ()  # the loops it was made in: a split per pass draws new test rows each pass
    published: bool = False  # a data set's own parts (a Hub DatasetDict's, torchvision's train=False): named by it
    by_group: bool = False  # a group splitter given its groups: each group's rows (a customer's quarters) in one part
    group_key: frozenset[str] = frozenset()  # the columns those groups were taken from, when the walk knows them
    folds: bool = False  # a splitter's split() walked by the program: its held-out side is a validation fold


@dataclass
class Selection:
    """Scores compared or ranked (max, sorted, `if score > best`): a choice among what was scored."""

    site: Site
    what: str
    scores: frozenset[int]
    # which one is best (argmax, max(key=), sorted pairs, `if score > best`), not only the best value (max(scores))
    picks: bool = True


@dataclass
class Record:
    """Everything one program's walk recorded."""

    origins: dict[int, Origin] = field(default_factory=dict)
    objects: dict[int, Obj] = field(default_factory=dict)
    fits: dict[int, Fit] = field(default_factory=dict)
    trains: dict[int, Train] = field(default_factory=dict)
    evaluations: dict[int, Evaluation] = field(default_factory=dict)
    splits: dict[str, Split] = field(default_factory=dict)
    selections: list[Selection] = field(default_factory=list)
    # loops whose passes repeat one configuration (their names serve only as seeds, fold indices or labels),
    # with the names each pass binds anew (a model built from one of them is a setting per pass)
    replicates: dict[int, frozenset[str]] = field(default_factory=dict)
    # every loop's names that each pass takes from what it goes over (its targets, and names assigned from them)
    pass_names: dict[int, frozenset[str]] = field(default_factory=dict)
    # the constants a loop over a literal sequence binds, one item a pass, written as masks write them
    pass_values: dict[int, frozenset[str]] = field(default_factory=dict)
    # how many passes a loop makes, where what it goes over says (a literal sequence, `range` of constants)
    pass_counts: dict[int, int] = field(default_factory=dict)
    # loops whose body may skip a pass's work (`continue`, `break`, an `if`): their count is at most that many
    passes_at_most: set[int] = field(default_factory=set)
    # loops over the groups of a table (`for key, part in df.groupby(...)`): each pass holds other rows
    group_passes: set[int] = field(default_factory=set)
    # row statistics rows were kept by (`df[df.price < df.price.quantile(0.99)]`), with the splits of the masks
    # that kept them: training and scored rows on different sides of such a mask were cut by it (a cut-off), not
    # filtered before the split
    cuts: dict[int, frozenset[str]] = field(default_factory=dict)
    # rows a loop's pass appends to a history after it trained on that history (`history = pd.concat([history,
    # test.iloc[t:t + 1]])` after the fit): a walk forward, whose models forecast rows after the ones they saw
    appended_after_fit: set[Atom] = field(default_factory=set)
    # the same rows added before the pass's fit (`history.append(test[t])`, then `ARIMA(history).fit()`), by the
    # line that adds them: the model forecasting a pass's row has seen it
    added_before_fit: dict[Atom, int] = field(default_factory=dict)
    # the lines of the program's own scope that store a column of that name (`df[f"lag_{k}"] = ...`,
    # `assign(lag_0=...)`): where a column a finding names was made
    column_lines: dict[str, set[int]] = field(default_factory=dict)
    # what cross_val_predict's models learned, in the predictions it gives: a score of those predictions is
    # out of fold, but a model trained on them and scored on some of the same rows read the other rows' labels
    out_of_fold: set[int] = field(default_factory=set)
    # lines of leads, shift(-k): values of later rows, which a covariate known in advance (next week's promotion)
    # is meant to hold
    leads: set[int] = field(default_factory=set)
    # how many rows ahead each lead of a known count reads (`shift(-7)` at line 12: {12: 7})
    lead_rows: dict[int, int] = field(default_factory=dict)
    deep_calls: int = 0  # calls of the file's functions nested past the depth the walk follows: not read
    # drop_duplicates() calls and the rows each was given: copies removed from those rows only
    dedups: list[tuple[Site, frozenset[Atom]]] = field(default_factory=list)
