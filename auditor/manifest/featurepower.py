"""How well one column alone predicts the label: a shallow model fitted on training rows, scored on holdout rows.

A numeric (or time) column gets a depth-limited decision tree on its value plus a missing-value indicator; a
categorical column gets each category's smoothed training label rate (one-hot, as a lookup), an unseen category
the training prior. Scores: ROC AUC for two classes, balanced accuracy for more, R² for a numeric label; each is
also given as *skill*, 0 at chance and 1 when perfect, so that one threshold reads the same for every task.
scikit-learn is imported only when a tree is fitted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.core.errors import StageInputError

Task = Literal["binary", "multiclass", "regression"]
Kind = Literal["numeric", "time", "categorical", "constant"]
LabelKind = Literal["classes", "class codes", "numbers"]

MISSING_TEXT = ("", "NA", "N/A", "NaN", "nan", "null", "NULL", "None")
# A numeric label with more distinct values than this (and not only a few integers) is a regression target.
MAX_CLASSES = 20
# Integers 0..K-1 (or 1..K) of which at least this share occurs number classes (label_kind).
CODES_PRESENT = 0.9
DEPTH = 3
# A regression tree of depth 3 has 8 leaves: a step function whose R² stays below ~0.98 even on the label itself.
REGRESSION_DEPTH = 6
PERMUTATIONS = 100
SEED = 0


@dataclass(frozen=True)
class Encoded:
    """One column as model input: float values (NaN missing) or category codes (-1 missing)."""

    kind: Kind
    values: np.ndarray
    n_levels: int = 0  # categories (categorical only)
    missing: int = 0


@dataclass(frozen=True)
class Labels:
    """The label of the scored rows: class codes (classification) or floats (regression); NaN/-1 missing."""

    task: Task
    values: np.ndarray
    classes: tuple[str, ...] = ()

    @property
    def present(self) -> np.ndarray:
        return ~np.isnan(self.values) if self.task == "regression" else self.values >= 0


@dataclass(frozen=True)
class Score:
    """A score on some rows (AUC, balanced accuracy or R²), its skill, and how far above chance it stands."""

    value: float
    skill: float
    z: float  # (skill - mean of label-permuted skills) / their spread; inf when the spread is 0 and skill above


def _text(column: pa.Array | pa.ChunkedArray) -> pa.ChunkedArray:
    column = pa.chunked_array([column]) if isinstance(column, pa.Array) else column
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    return column


def _blank_to_null(text: pa.ChunkedArray) -> pa.ChunkedArray:
    trimmed = pc.utf8_trim_whitespace(text)
    return pc.if_else(
        pc.is_in(trimmed, value_set=pa.array(MISSING_TEXT, trimmed.type)), pa.scalar(None, trimmed.type), trimmed
    )


def as_numbers(column: pa.Array | pa.ChunkedArray) -> np.ndarray | None:
    """The column as float64 (NaN missing) when every present value is a number, else None; an integer past
    2**53 keeps float64's precision (its order is what a tree reads)."""
    column = _text(column)
    t = column.type
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t) or pa.types.is_decimal(t):
        return np.asarray(column.cast(pa.float64(), safe=False).to_numpy(zero_copy_only=False), dtype=np.float64)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        try:
            parsed = _blank_to_null(column).cast(pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return None
        return np.asarray(parsed.to_numpy(zero_copy_only=False), dtype=np.float64)
    return None


def _as_times(column: pa.ChunkedArray, name: str) -> np.ndarray | None:
    from auditor.manifest.timeparse import NAT, parse_times

    t = column.type
    if not (pa.types.is_timestamp(t) or pa.types.is_date(t) or pa.types.is_string(t) or pa.types.is_large_string(t)):
        return None
    text = _blank_to_null(column) if not (pa.types.is_timestamp(t) or pa.types.is_date(t)) else column
    if text.null_count == len(text):
        return None
    try:
        ns = parse_times(text, name).ns
    except StageInputError:
        return None
    out = ns.astype(np.float64) / 1e9
    out[ns == NAT] = np.nan
    return out


def _placeholders_to_null(text: pa.ChunkedArray) -> pa.ChunkedArray:
    """``text`` with the stand-ins for a missing value (`?`, `-`, `unknown`, `#N/A`, any case) made null."""
    from auditor.manifest.placeholders import PLACEHOLDERS

    folded = pc.utf8_lower(pc.utf8_trim_whitespace(text))
    return pc.if_else(pc.is_in(folded, value_set=pa.array(sorted(PLACEHOLDERS))), pa.scalar(None, text.type), text)


def encode(column: pa.Array | pa.ChunkedArray, name: str) -> Encoded:
    """The column as numbers, times (seconds) or categories, whichever reads every present value. A text column of
    numbers with stand-ins for the missing ones (`?`, `unknown`) is numbers: as categories, each number would be a
    level of its own and a label proxy would predict nothing on rows it was not fitted on."""
    column = _text(column)
    numbers = as_numbers(column)
    kind: Kind = "numeric"
    if numbers is None and (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        numbers = _read(as_numbers(_placeholders_to_null(column)))
    if numbers is None:
        numbers, kind = _read(_as_times(column, name)), "time"
    if numbers is not None:
        missing = int(np.isnan(numbers).sum())
        present = numbers[~np.isnan(numbers)]
        if not len(present) or (present.min() == present.max() and not missing):
            return Encoded("constant", numbers, missing=missing)
        return Encoded(kind, numbers, missing=missing)
    text = _blank_to_null(column.cast(pa.string()))
    encoded = pc.dictionary_encode(text).combine_chunks()
    codes = np.asarray(encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    levels = len(encoded.dictionary)
    missing = int((codes < 0).sum())
    constant = levels + (1 if missing else 0) <= 1  # one value, or one value and blanks (the blanks may tell)
    return Encoded("constant" if constant else "categorical", codes, levels, missing)


def _read(values: np.ndarray | None) -> np.ndarray | None:
    """``values`` when one at least is present; None when all are missing (stand-ins and blanks only, which may
    still tell apart as categories)."""
    return None if values is None or np.isnan(values).all() else values


def label_kind(distinct: np.ndarray) -> LabelKind:
    """How a numeric label reads from its distinct finite values: two values, or at most MAX_CLASSES integers, are
    classes; more integers that number classes (0..K-1 or 1..K, at most a tenth of them absent) are class codes,
    which may as well be counts; any other numbers (fractions, or integers such as 25..346) are a numeric target."""
    if len(distinct) <= 2:
        return "classes"
    if not bool(np.all(distinct == np.round(distinct))):
        return "numbers"
    if len(distinct) <= MAX_CLASSES:
        return "classes"
    low, high = float(distinct.min()), float(distinct.max())
    dense = low in (0.0, 1.0) and len(distinct) >= CODES_PRESENT * (high - low + 1)
    return "class codes" if dense else "numbers"


def labels_of(column: pa.Array | pa.ChunkedArray) -> Labels:
    """The label as classes, or as a regression target when it is numeric with more than MAX_CLASSES values (or
    fractions among more than two: label_kind)."""
    column = _text(column)
    numbers = as_numbers(column)
    if numbers is not None:
        numbers = np.where(np.isinf(numbers), np.nan, numbers)  # an infinite label is no target: missing, as NaN
        present = numbers[~np.isnan(numbers)]
        distinct = np.unique(present)
        if label_kind(distinct) != "classes":  # class codes are scored as numbers: a proxy of them shows in R²
            return Labels("regression", numbers)
        if not len(present):  # no label at all: no class to name (an all-NaN column)
            return Labels("binary", np.full(len(numbers), -1.0))
        spelt = classes_of(column)
        if len(spelt.classes) > len(distinct) and exact(distinct):  # '1' and '1.0' (two files): one class
            return _number_classes(numbers, distinct)
        return spelt
    return classes_of(column)


def exact(numbers: np.ndarray) -> bool:
    """Whether floats stand for their values exactly: two integers past 2**53 may share one float, and are
    two classes still."""
    return not len(numbers) or float(np.abs(numbers).max()) < 2**53


def number_text(value: float) -> str:
    """A number in its shortest form: 1.0 as '1', 2.5 as '2.5'."""
    return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)


def _number_classes(numbers: np.ndarray, distinct: np.ndarray) -> Labels:
    """Classes of numbers (NaN missing), named in their shortest form and in sorted order of those names, as
    classes_of orders text."""
    names = [number_text(float(v)) for v in distinct]
    order = np.argsort(names, kind="stable")
    rank = np.empty(len(names), dtype=np.int64)
    rank[order] = np.arange(len(names))
    present = ~np.isnan(numbers)
    codes = np.full(len(numbers), -1.0)
    codes[present] = rank[np.searchsorted(distinct, numbers[present])]
    task: Task = "binary" if len(names) <= 2 else "multiclass"
    return Labels(task, codes, tuple(names[i] for i in order))


def classes_of(column: pa.Array | pa.ChunkedArray) -> Labels:
    """The label as classes (its text values, in sorted order), whatever their type."""
    text = _blank_to_null(_text(column).cast(pa.string()))
    encoded = pc.dictionary_encode(text).combine_chunks()
    codes = np.asarray(encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    names = [str(v) for v in encoded.dictionary.to_pylist()]
    order = np.argsort(names, kind="stable")  # classes in a stable order, whatever order rows come in
    rank = np.full(max(len(names), 1), -1, dtype=np.int64)  # one slot at least: a column of no value
    rank[order] = np.arange(len(names))
    codes = np.where(codes >= 0, rank[np.maximum(codes, 0)], -1)
    task: Task = "binary" if len(names) <= 2 else "multiclass"
    return Labels(task, codes.astype(np.float64), tuple(names[i] for i in order))


# ------------------------------------------------------------------------------------------- models


def predict(feature: Encoded, train: np.ndarray, y: np.ndarray, task: Task, n_classes: int) -> np.ndarray:
    """Fit on the rows ``train`` (with labels ``y``) and predict every row: P(class 1), a class, or a value."""
    if feature.kind == "categorical":
        return _lookup(feature, train, y, task, n_classes)
    if feature.kind == "constant":
        return np.full(len(feature.values), _prior(y, task, n_classes))
    return _tree(feature.values, train, y, task)


def _prior(y: np.ndarray, task: Task, n_classes: int) -> float:
    if task == "regression":
        return float(y.mean())
    if task == "binary":
        return float((y == 1).mean())
    return float(np.argmax(np.bincount(y.astype(np.int64), minlength=n_classes)))


def _lookup(feature: Encoded, train: np.ndarray, y: np.ndarray, task: Task, n_classes: int) -> np.ndarray:
    codes = feature.values
    levels = feature.n_levels + 1  # the last slot: missing (its own category)
    seen = np.where(codes[train] >= 0, codes[train], feature.n_levels)
    every = np.where(codes >= 0, codes, feature.n_levels)
    counts = np.bincount(seen, minlength=levels).astype(np.float64)
    if task == "multiclass":
        per = np.zeros((levels, n_classes))
        np.add.at(per, (seen, y.astype(np.int64)), 1.0)
        shares = np.bincount(y.astype(np.int64), minlength=n_classes) / len(y)
        per += shares  # smoothing: one pseudo-row at the prior; an unseen category predicts the prior's class
        return np.argmax(per, axis=1)[every].astype(np.float64)
    target = (y == 1).astype(np.float64) if task == "binary" else y
    prior = float(target.mean())
    sums = np.bincount(seen, weights=target, minlength=levels)
    rate = (sums + prior) / (counts + 1.0)
    return rate[every]


def _tree(values: np.ndarray, train: np.ndarray, y: np.ndarray, task: Task) -> np.ndarray:
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    missing = np.isnan(values)
    values = _orderable(values, missing)
    known = values[train][~missing[train]]
    fill = (known.min() - 1.0) if len(known) else 0.0
    x = np.column_stack([np.where(missing, fill, values), missing.astype(np.float64)])
    leaf = max(5, len(train) // 200)
    if task == "regression":
        # Deeper, so leaves are larger: the 64 steps must follow a smooth relation, not the noise of a few rows.
        reg = DecisionTreeRegressor(
            max_depth=REGRESSION_DEPTH, min_samples_leaf=max(10, len(train) // 100), random_state=SEED
        )
        reg.fit(x[train], y)
        return np.asarray(reg.predict(x), dtype=np.float64)
    clf = DecisionTreeClassifier(max_depth=DEPTH, min_samples_leaf=leaf, random_state=SEED)
    clf.fit(x[train], y.astype(np.int64))
    if task == "binary":
        proba = clf.predict_proba(x)
        column = list(clf.classes_).index(1) if 1 in clf.classes_ else None
        return np.asarray(proba[:, column], dtype=np.float64) if column is not None else np.zeros(len(values))
    return np.asarray(clf.predict(x), dtype=np.float64)


_TREE_SAFE = 1e30  # scikit-learn's trees read float32: a value past ~3.4e38, or an infinity, is refused


def _orderable(values: np.ndarray, missing: np.ndarray) -> np.ndarray:
    """``values`` as a tree can read them: unchanged when they are finite and within float32's range, else their
    ranks (a tree splits on order only, so ranks change no split; an infinity ranks first or last)."""
    present = values[~missing]
    if not len(present) or (np.isfinite(present).all() and np.abs(present).max() < _TREE_SAFE):
        return values
    out = values.copy()
    out[~missing] = np.unique(present, return_inverse=True)[1]
    return out


# ------------------------------------------------------------------------------------------- scores


def scorable(y: np.ndarray, task: Task) -> str | None:
    """Why rows with labels ``y`` cannot be scored (None when they can)."""
    if task == "regression":
        return None if len(y) > 1 and y.min() < y.max() else "the label has one value there"
    return None if len(np.unique(y)) > 1 else "the label has one class there"


def score(pred: np.ndarray, y: np.ndarray, task: Task, permutations: int = PERMUTATIONS) -> Score:
    """The score of predictions ``pred`` against labels ``y``, and its distance from label-permuted scores."""
    rng = np.random.default_rng(SEED)
    shuffled = np.stack([rng.permutation(y) for _ in range(permutations)]) if permutations else None
    if task == "binary":
        value = _auc(pred, y[None, :])[0]
        skill = 2 * value - 1
        null = 2 * _auc(pred, shuffled) - 1 if shuffled is not None else None
    elif task == "multiclass":
        value = _balanced_accuracy(pred, y[None, :])[0]
        chance = 1.0 / len(np.unique(y))
        skill = (value - chance) / (1 - chance)
        null = (_balanced_accuracy(pred, shuffled) - chance) / (1 - chance) if shuffled is not None else None
    else:
        value = _r2(pred, y[None, :])[0]
        skill = value
        null = _r2(pred, shuffled) if shuffled is not None else None
    z = float("nan")
    if null is not None:
        spread = float(null.std())
        z = (skill - float(null.mean())) / spread if spread > 0 else (float("inf") if skill > null.mean() else 0.0)
    return Score(float(value), float(skill), z)


def _auc(pred: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """ROC AUC of ``pred`` against each row of ``ys`` (0/1), by the rank-sum formula (ties share a rank)."""
    from scipy.stats import rankdata

    ranks = rankdata(pred)
    positive = ys == 1
    n1 = positive.sum(axis=1).astype(np.float64)
    n0 = ys.shape[1] - n1
    sums = (positive * ranks[None, :]).sum(axis=1)
    return np.asarray((sums - n1 * (n1 + 1) / 2) / (n1 * n0), dtype=np.float64)


# The exact chance of an AUC is worked out on a table of (tracked rows, rank sum) of at most this many cells;
# beyond it (only with a max_error far below the default) Hoeffding's bound stands in.
EXACT_CELLS = 4_000_000


def chance_of_score(pred: np.ndarray, y: np.ndarray, task: Task) -> float:
    """The chance that predictions unrelated to the labels score at least as well on these rows: the p-value of the
    score under every assignment of the labels to the rows (the class counts kept) being equally likely. Exact for
    two classes (Mann-Whitney, ties counting half) and, for more, bounded by the class picked out worst. NaN for a
    numeric label."""
    if task == "binary":
        return _auc_chance(pred, y)
    if task == "multiclass":
        return _class_chance(pred, y)
    return float("nan")


def _auc_chance(pred: np.ndarray, y: np.ndarray) -> float:
    """P(AUC >= the observed AUC) under random labels, from the smaller class's rank sum. Ties share a rank, so the
    sum is counted in half ranks; each row is drawn into the class with probability k/N and the result conditioned on
    k rows drawn, which keeps every number a probability (no binomial coefficient overflows)."""
    import math

    from scipy.stats import binom

    tracked = y == 1
    if 2 * int(tracked.sum()) > len(y):  # follow the smaller class: ranked from the bottom, its pairs are the same
        tracked, pred = ~tracked, -pred
    k, n = int(tracked.sum()), len(y)
    others = n - k
    if k == 0 or others == 0:
        return 1.0
    _, group = np.unique(pred, return_inverse=True)
    sizes = np.bincount(group)[::-1]  # highest prediction first
    hits = np.bincount(group, weights=tracked.astype(np.float64))[::-1].astype(np.int64)
    above = np.concatenate([[0], np.cumsum(sizes)[:-1]])  # rows ranked above each group
    # Twice the rank sum from the top (0-based, ties at their mean) is sum(a_g * (2 * above_g + size_g - 1)); less
    # k(k - 1), it is twice the pairs the class loses (a tie counts half): 0 when every row of it comes first.
    step = 2 * above + sizes - 1
    observed = int((hits * step).sum())
    lost = observed - k * (k - 1)
    if lost >= k * others:  # no better than chance (lost counts twice the pairs)
        return 1.0
    cells = (k + 1) * (observed + 1)
    if cells > EXACT_CELLS:
        t = 0.5 - lost / (2 * k * others)
        return min(1.0, math.exp(-2 * k * t * t))  # Hoeffding (1963) for a two-sample U-statistic
    share = k / n
    table = np.zeros((k + 1, observed + 1))  # table[p, s]: p rows of the class drawn so far, twice their rank sum s
    table[0, 0] = 1.0
    drawn = reach = 0  # the most rows and the largest sum drawn so far: the rest of the table is still zero
    none = 0  # rows left after the last group that could hold one: each must be drawn out of the class
    dead = 0  # rows of the table already cleared
    for i, (size, s) in enumerate(zip(sizes.tolist(), step.tolist(), strict=True)):
        most = min(size, k, observed // s if s else size)
        if most == 0:  # steps only grow: no later group can hold a row of the class within the observed sum
            none = n - int(above[i])
            break
        weights = binom.pmf(np.arange(most + 1), size, share)
        # With p drawn, the k - p rows still to come rank here or lower, each adding s at least: too few, and the
        # sum cannot stay within the observed one.
        low = max(0, k - observed // s) if s else 0
        rows, cols = min(drawn, k) + 1, min(reach, observed) + 1  # the observed placing itself stays within
        table[dead:low] = 0.0
        dead = max(dead, low)
        block = table[low:rows, :cols].copy()
        table[low:rows, :cols] *= weights[0]
        for a in range(1, most + 1):
            top, right = min(rows, k + 1 - a) - low, min(cols, observed + 1 - a * s)
            if weights[a] > 0 and top > 0 and right > 0:
                table[low + a : low + a + top, a * s : a * s + right] += weights[a] * block[:top, :right]
        drawn, reach = drawn + most, reach + most * s
    left = binom.pmf(0, none, share) if none else 1.0
    return float(min(1.0, table[k].sum() * left / binom.pmf(k, n, share)))


def _class_chance(pred: np.ndarray, y: np.ndarray) -> float:
    """An upper bound on the chance that class predictions unrelated to the labels pick out every class as well:
    for each class, the hypergeometric chance of at least as many of its rows among those predicted as it (Fisher's
    exact test), the largest of them. Under unrelated labels each of these is a p-value, so their largest is one."""
    from scipy.stats import hypergeom

    labels, predicted = y.astype(np.int64), pred.astype(np.int64)
    worst = 0.0
    for c in np.unique(labels):
        rows, chosen = int((labels == c).sum()), int((predicted == c).sum())
        right = int(((labels == c) & (predicted == c)).sum())
        worst = max(worst, float(hypergeom.sf(right - 1, len(labels), rows, chosen)))
    return min(worst, 1.0)


def _balanced_accuracy(pred: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Mean recall over the classes present in each row of ``ys``."""
    k = int(max(pred.max(), ys.max())) + 1
    p = pred.astype(np.int64)
    out = np.empty(len(ys))
    for i, y in enumerate(ys.astype(np.int64)):  # one pass per permutation, vectorised over rows
        total = np.bincount(y, minlength=k)
        right = np.bincount(y[p == y], minlength=k)
        present = total > 0
        out[i] = float((right[present] / total[present]).mean())
    return out


def _r2(pred: np.ndarray, ys: np.ndarray) -> np.ndarray:
    mean = ys.mean(axis=1, keepdims=True)
    total = ((ys - mean) ** 2).sum(axis=1)
    resid = ((ys - pred[None, :]) ** 2).sum(axis=1)
    return np.asarray(1 - resid / total, dtype=np.float64)


def sample_rows(rows: np.ndarray, limit: int, seed: int = SEED) -> np.ndarray:
    """At most ``limit`` of ``rows`` chosen at random with a fixed seed, in row order."""
    if len(rows) <= limit:
        return rows
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(rows, size=limit, replace=False))
