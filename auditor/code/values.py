"""The abstract values of the dataflow: which rows a value holds (parts of splits of its sources), which
fitted statistics it embeds, which columns it keeps, and what else it may be (an object, a score, a name).

Rows are atoms: a source (a read_csv call, a load_iris) restricted by a chain of split parts. Two atoms are
disjoint only when they take different sides of one split; anything else may share rows. A value is a product
of facets, each a may-set, so a name bound on two branches is both of its values at once.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache

CHAIN_STEPS = 8  # the variables a value passed through, kept for the evidence (the last ones)
MAX_PARTS = 6  # splits of splits followed per atom (a slice in a loop would otherwise make chains without end)
MAX_ATOMS = 48  # atoms a value keeps: beyond, the longest chains are dropped (fewer rows known, never more)
EACH_ITEM = 8  # a literal sequence of at most this many items is read item by item (a loop, a map, a comprehension)


@dataclass(frozen=True, order=True)
class Part:
    """One side of one split: ``split`` names the split (its call, a mask's columns, a slice's bound)."""

    split: str
    side: str
    # Where the side lies on its split's axis, when its bounds can be read: (axis, lower, upper), each bound a
    # Bound. Two sides with spans on one axis share rows exactly when their intervals meet (`[:900]` and
    # `[800:]`, `date <= cut` and `date >= cut`); without them, different sides share none.
    span: tuple[str, Bound, Bound] | tuple[()] = ()
    # a side that keeps the rows of any of several spans on one axis (`isin([2019, 2021])`, `(year == 2019) |
    # (year == 2021)`): it shares rows with another side when one of them does
    union: tuple[tuple[str, Bound, Bound], ...] = ()

    @property
    def held_out(self) -> bool:
        """Whether this side is the held-out one of its split (test, the rest after a sample, a slice's tail)."""
        return self.side not in TRAIN_SIDES


TRAIN_SIDES = frozenset({"train", "head", "sample"})

# A bound of a side's interval: (what it counts from, how far from it, whether the bound itself is inside).
# `X[:n - 24]` ends before ("n", -24), `X[800:]` starts at ("", 800), `df.date <= cut` ends at ("cut", 0) inclusive;
# an open end counts from OPEN. Bounds counted from different things cannot be compared.
Bound = tuple[str, float, bool]
OPEN = "<open>"
POSITIONS = "positions"  # the axis of a slice's span: positions of rows


def _before(upper: Bound, lower: Bound) -> bool:
    """Whether an interval ending at ``upper`` certainly ends before one starting at ``lower`` begins."""
    if upper[1] <= 0 <= lower[1] and (upper[1], lower[1]) != (0, 0) and upper[0] != lower[0]:
        # `[:int(0.7 * n) - 6]` before `[int(0.85 * n):]`: a share of a length moved back, ending before a larger
        # share of it moved on (the rounding keeps the shares' order)
        shares = share_of(upper[0]), share_of(lower[0])
        if shares[0] is not None and shares[1] is not None and shares[0][0] == shares[1][0]:
            return shares[0][1] <= shares[1][1]
    upper, lower = _as_shares(upper, lower)
    if OPEN in (upper[0], lower[0]) or upper[0] != lower[0]:
        return False
    return upper[1] < lower[1] or (upper[1] == lower[1] and not (upper[2] and lower[2]))


def _meets(lower: Bound, upper: Bound) -> bool:
    """Whether an interval starting at ``lower`` certainly starts at or before one ending at ``upper`` ends."""
    if OPEN in (lower[0], upper[0]):
        return True
    lower, upper = _as_shares(lower, upper)
    if lower[0] != upper[0]:
        return False
    return lower[1] < upper[1] or (lower[1] == upper[1] and lower[2] and upper[2])


def _as_shares(a: Bound, b: Bound) -> tuple[Bound, Bound]:
    """Two bounds written as shares of one length rounded one way (`int(0.85 * n)`, `int(0.8 * n)`), counted by
    their shares, which order them as they order the positions (rounding keeps the order); any others as given."""
    if a[0] == b[0] or a[1] or b[1]:
        return a, b
    share_a, share_b = share_of(a[0]), share_of(b[0])
    if share_a is None or share_b is None or share_a[0] != share_b[0]:
        return a, b
    return (share_a[0], share_a[1], a[2]), (share_b[0], share_b[1], b[2])


@lru_cache(maxsize=1024)
def share_of(text: str) -> tuple[str, float] | None:
    """`int(0.8 * len(X))` as ('int(len(X))', 0.8): a share strictly between 0 and 1 of a length, rounded by
    int, round, floor or ceil (or `len(X) * 8 // 10`, rounded down); None for any other text."""
    try:
        node = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv) and isinstance(node.left, ast.BinOp):
        # n * 85 // 100: the share 0.85 of n, rounded down as int() rounds a count down
        multiplied, parts = node.left, node.right
        if not (isinstance(multiplied.op, ast.Mult) and isinstance(parts, ast.Constant) and type(parts.value) is int):
            return None
        for count, length in ((multiplied.left, multiplied.right), (multiplied.right, multiplied.left)):
            if isinstance(count, ast.Constant) and type(count.value) is int and 0 < count.value < parts.value:
                return (f"<share>int({ast.unparse(length)})", count.value / parts.value)
        return None
    if not isinstance(node, ast.Call) or len(node.args) != 1 or node.keywords:
        return None
    rounding = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
    product = node.args[0]
    if rounding not in ("int", "round", "floor", "ceil") or not isinstance(product, ast.BinOp):
        return None
    if not isinstance(product.op, ast.Mult):
        return None
    rounding = "int" if rounding == "floor" else rounding  # a count is never negative: both round it down
    for share, length in ((product.left, product.right), (product.right, product.left)):
        if isinstance(share, ast.Constant) and isinstance(share.value, float) and 0 < share.value < 1:
            return (f"<share>{rounding}({ast.unparse(length)})", share.value)
    return None


def point_left_out(span: tuple[str, Bound, Bound] | tuple[()]) -> Bound | None:
    """The one value a span of every value but one leaves out (`year != 2020`: a point with neither end in it),
    as a bound that holds it; None for any other span."""
    if not span or span[1] != span[2] or span[1][2] or span[1][0] == OPEN:
        return None
    return (span[1][0], span[1][1], True)


def _complement_disjoint(a: tuple[str, Bound, Bound], b: tuple[str, Bound, Bound]) -> bool | None:
    """Whether a span of every value but one (``a``) shares no row with ``b``: only when ``b`` is that one value.
    None when their bounds cannot be compared."""
    point = point_left_out(a)
    assert point is not None
    other = point_left_out(b)
    if other is not None:
        return False if other[0] == point[0] else None  # `!= 2019` and `!= 2020` share every other year
    if b[1] == b[2] and b[1][2] and _quoted(b[1][0]) and _quoted(point[0]):
        # split != "val" beside split == "test": two texts written out differ, so "test" is among the rest
        return b[1][0] == point[0]
    bounds = [x for x in b[1:] if x[0] != OPEN]
    if any(_as_shares(x, point)[0][0] != _as_shares(x, point)[1][0] for x in bounds):
        return None
    return b[1] == point and b[2] == point


def _quoted(text: str) -> bool:
    """Whether a bound's text is a text constant as written (`'val'`), not a name or an expression."""
    return len(text) >= 2 and text[0] == text[-1] and text[0] in "'\""


def spans_disjoint(a: Part, b: Part) -> bool | None:
    """Whether two sides of one split share no row, read from their bounds: None when they cannot tell."""
    if a.union or b.union:
        pieces = [
            spans_disjoint(Part(a.split, a.side, x), Part(b.split, b.side, y))
            for x in (a.union or (a.span,))
            for y in (b.union or (b.span,))
        ]
        if any(p is False for p in pieces):
            return False
        return None if any(p is None for p in pieces) else True
    if not a.span or not b.span or a.span[0] != b.span[0]:
        return None
    if point_left_out(a.span) is not None:
        return _complement_disjoint(a.span, b.span)
    if point_left_out(b.span) is not None:
        return _complement_disjoint(b.span, a.span)
    _, a_low, a_up = a.span
    _, b_low, b_up = b.span
    if _before(a_up, b_low) or _before(b_up, a_low):
        return True
    if _meets(a_low, b_up) and _meets(b_low, a_up):
        return False
    if (_meets(a_low, b_up) or _from_both_ends(a_low, b_up)) and (_meets(b_low, a_up) or _from_both_ends(b_low, a_up)):
        return False  # `X[:-1]` and `X[1:]`: a row's features and the next row's target, not two sides of a cut
    return None


def _from_both_ends(lower: Bound, upper: Bound) -> bool:
    """Whether a start counted from the first row lies before an end counted back from the last (`[1:]`, `[:-1]`):
    so in any table longer than the two counts together."""
    return lower[0] == "" and upper[0] == "<end>" and isinstance(lower[1], int) and isinstance(upper[1], int)


def counts_from(part: Part, name: str) -> bool:
    """Whether a slice's bounds count from the loop's number ``name`` (`[i - win:i]`)."""
    return bool(part.span) and any(bound[0] == name for bound in part.span[1:])


def span_within(inner: Part, outer: Part) -> bool:
    """Whether every row of a side of a split lies within another side of it, read from their bounds (`[1:-30]`
    within `[:-30]`); False when they cannot tell."""
    if inner.split != outer.split or len(inner.span) != 3 or len(outer.span) != 3 or inner.span[0] != outer.span[0]:
        return False
    left_out = point_left_out(outer.span)
    if left_out is not None:  # within every value but one: an interval that certainly ends before it or starts after
        if point_left_out(inner.span) is not None:
            return inner.span == outer.span
        return _before(inner.span[2], left_out) or _before(left_out, inner.span[1])
    if point_left_out(inner.span) is not None:
        return outer.span[1][0] == OPEN and outer.span[2][0] == OPEN
    _, low, high = inner.span
    _, out_low, out_high = outer.span
    return _bound_within(low, out_low, lower=True) and _bound_within(high, out_high, lower=False)


def _bound_within(bound: Bound, outer: Bound, lower: bool) -> bool:
    """Whether an interval's end ``bound`` lies within the interval whose same end is ``outer``."""
    if outer[0] == OPEN:
        return True
    if bound[0] != outer[0]:
        return False
    if bound[1] != outer[1]:
        return bound[1] > outer[1] if lower else bound[1] < outer[1]
    return outer[2] or not bound[2]


@dataclass(frozen=True, order=True)
class Atom:
    """The rows of source ``origin`` that lie in every one of ``parts``, in the order they were taken."""

    origin: int
    parts: tuple[Part, ...] = ()

    def within(self, other: Atom) -> bool:
        """Every row of self is a row of ``other``: one source, and other's parts a prefix of self's."""
        return self.origin == other.origin and self.parts[: len(other.parts)] == other.parts

    def inside(self, other: Atom) -> bool:
        """Every row of self is a row of ``other``: ``within`` it, or cut from the same rows by a slice within its
        slice (`y.iloc[:-30]`, then `.iloc[1:]`)."""
        if self.within(other):
            return True
        if self.origin != other.origin or len(self.parts) != len(other.parts) or not self.parts:
            return False
        return self.parts[:-1] == other.parts[:-1] and span_within(self.parts[-1], other.parts[-1])

    def disjoint(self, other: Atom) -> bool:
        """No row is in both: other sources, or the two take different sides of one split (a range of a
        sequence, `[a:b]`, may meet its head or its tail)."""
        if self.origin != other.origin:
            return True
        mine = {p.split: (i, p) for i, p in enumerate(self.parts)}
        for j, part in enumerate(other.parts):
            if part.split not in mine:
                continue
            i, same = mine[part.split]
            # positions count in the rows a slice was taken from: only the same rows (the same parts before it)
            # number them alike, while a column's values are its values wherever the rows went
            counted_alike = same.span[:1] != (POSITIONS,) or self.parts[:i] == other.parts[:j]
            decided = spans_disjoint(same, part) if counted_alike else None
            if decided is None:  # bounds that cannot be compared: different sides of a cut share nothing
                decided = same.side != part.side and "range" not in (part.side, same.side)
            if decided:
                return True
        return False

    def with_part(self, part: Part) -> Atom:
        """These rows, then ``part`` of them; taking a side of a split they were already split by changes
        nothing (or nothing is left), and chains stop growing at MAX_PARTS."""
        if any(p.split == part.split for p in self.parts) or len(self.parts) >= MAX_PARTS:
            return self
        return Atom(self.origin, (*self.parts, part))

    def masked(self, part: Part) -> Atom:
        """These rows where a mask holds: a second mask over the column of one they were cut by already keeps
        the rows both intervals hold (`date >= "2022"`, then `date < "2023"`); any other, as with_part."""
        for i, held in enumerate(self.parts):
            if held.split != part.split or held == part:
                continue
            span = _intersected(held.span, part.span)
            if span is None:
                return self
            both = Part(held.split, f"{held.side}&{part.side}", span)
            return Atom(self.origin, (*self.parts[:i], both, *self.parts[i + 1 :]))
        return self.with_part(part)

    @property
    def held_out(self) -> bool:
        """Whether the last split that took these rows put them on its held-out side."""
        return bool(self.parts) and self.parts[-1].held_out


@dataclass(frozen=True)
class Columns:
    """The columns a table keeps: ``base`` (None: every column of its source) less ``removed``, with the
    columns computed in place and what each was computed from; ``opaque`` when they cannot be known."""

    base: frozenset[str] | None = None
    removed: frozenset[str] = frozenset()
    derived: frozenset[tuple[str, str]] = frozenset()  # (column, a column it was computed from)
    opaque: bool = False
    dtypes: str | None = None  # select_dtypes: "number" (numeric columns only), "other" (the rest), None (all)
    numbers: frozenset[str] = frozenset()  # columns assigned values known to be numbers
    # (column, source) pairs: rows concatenated from that source hold no value in that column (it was dropped
    # from them before pd.concat), whatever the other parts hold
    absent: frozenset[tuple[str, int]] = frozenset()
    # a list of names read from a table's columns (`test.columns`): the sources of that table's rows
    listed_from: frozenset[int] = frozenset()
    # columns assigned to the table since it was read (`df["is_test"] = 1`, `assign(...)`): a list of names read
    # from its columns before holds none of those added after
    added: frozenset[str] = frozenset()
    # a pattern every kept name matches (`df.filter(like="risk")`, `regex=`): a column whose name it does not
    # match is not kept, one whose name it matches is when the rest say so
    matched: str | None = None
    # the lines of the dtype choice ``dtypes`` holds (`select_dtypes("number")`): where a label kept as a number came in
    dtypes_at: frozenset[int] = frozenset()

    def empty_for(self, column: str, origins: Iterable[int]) -> bool:
        """Whether ``column`` holds no value for any of the rows of these sources."""
        wanted = set(origins)
        return bool(wanted) and all((column, o) in self.absent for o in wanted)

    def has(self, column: str, numeric: bool | None = None) -> bool:
        """Whether ``column`` is certainly among the columns (never when they are opaque); of columns chosen by
        dtype, only when ``numeric`` says the column is of that kind."""
        if self.opaque or column in self.removed or (self.matched is not None and self._matches(column) is not True):
            return False
        if self.dtypes is not None and numeric is not (self.dtypes == "number"):
            return False
        return self.base is None or column in self.base

    def _matches(self, column: str) -> bool | None:
        """Whether the names' pattern matches ``column``; None when there is none, or it cannot be read (a pattern
        of another dialect: whether it keeps the column is not known)."""
        if self.matched is None:
            return None
        try:
            return re.search(self.matched, column) is not None
        except re.error:
            return None

    def lacks(self, column: str) -> bool:
        """Whether ``column`` is certainly not among the columns (dropped, or outside a chosen list)."""
        outside = self.base is not None and column not in self.base
        return not self.opaque and (column in self.removed or outside or self._matches(column) is False)

    def _with_named(self, other: Columns) -> Columns | None:
        """The names a pattern keeps (``self``, of every column) and the columns another list names, together: one
        pattern that matches either (None when either side holds more than that)."""
        plain = self.base is None and not self.removed and self.dtypes is None and not self.opaque
        listed = other.base is not None and not other.removed and other.dtypes is None and other.matched is None
        if self.matched is None or not plain or not listed or other.opaque:
            return None
        assert other.base is not None
        names = "|".join(re.escape(n) for n in sorted(other.base))
        either = f"(?:{self.matched})|^(?:{names})$" if names else self.matched
        return replace(self, derived=self.derived | other.derived, matched=either, added=self.added | other.added)

    def union(self, other: Columns) -> Columns:
        """The names of both lists together (numeric_cols + categorical_cols)."""
        both = self._with_named(other) or other._with_named(self)
        if both is not None:  # filter(like="risk").columns.tolist() + ["income"]
            return both
        if self.opaque or other.opaque or self.matched is not None or other.matched is not None:
            return Columns(opaque=True, added=self.added | other.added)
        base = None if self.base is None or other.base is None else self.base | other.base
        dtypes = self.dtypes if self.dtypes == other.dtypes else None
        # a name is left out of both lists where each leaves it out: dropped from one, and dropped from the other,
        # outside its named list, or of the other kind (dropped by name from the numeric columns, it is one of
        # them, so it is none of the rest: `num.drop("label") + cat`)
        removed = {c for c in self.removed if other._leaves_out(c, self.dtypes)} | {
            c for c in other.removed if self._leaves_out(c, other.dtypes)
        }
        return Columns(
            base,
            frozenset(removed),
            self.derived | other.derived,
            False,
            dtypes,
            self.numbers | other.numbers,
            added=self.added | other.added,
            dtypes_at=self.dtypes_at | other.dtypes_at if dtypes is not None else frozenset(),
        )

    def _leaves_out(self, column: str, kind: str | None) -> bool:
        """Whether these names leave out ``column``, a column of dtype choice ``kind`` (None: of either kind)."""
        opposite = kind is not None and self.dtypes is not None and self.dtypes != kind
        return self.lacks(column) or opposite

    def computed_from(self, column: str) -> list[str]:
        """The kept columns computed from ``column`` (other than itself)."""
        if self.opaque:
            return []
        return sorted(
            {
                new
                for new, src in self.derived
                if src == column and new != column and self.has(new, True if new in self.numbers else None)
            }
        )

    def without(self, names: Iterable[str]) -> Columns:
        return replace(self, removed=self.removed | frozenset(names))

    def only(self, names: Iterable[str]) -> Columns:
        kept = frozenset(names)
        # what a kept column was used to compute stays known: a label computed from it is read from it; so does
        # whatever else was computed from the columns a kept one was computed from, each with all it was computed
        # from (a label of that column alone is read from the kept one; a label of several columns is not)
        upstream = {src for new, src in self.derived if new in kept}
        siblings = {new for new, src in self.derived if src in upstream}
        derived = frozenset(d for d in self.derived if d[0] in kept or d[1] in kept or d[0] in siblings)
        # columns named one by one are known, whatever the table they were taken from held (a merge, a rename)
        return replace(self, base=kept, removed=self.removed - kept, derived=derived, opaque=False, matched=None)

    def adding(self, name: str, sources: Iterable[str], number: bool = False) -> Columns:
        given = frozenset(sources)
        # and what those were computed from (`w = won * 2`, then `r = w / 10`: r is computed from won too)
        upstream = {src for new, src in self.derived if new in given and new != name}
        derived = self.derived | {(name, s) for s in given | upstream}
        base = self.base | {name} if self.base is not None else None
        numbers = self.numbers | {name} if number else self.numbers - {name}
        absent = frozenset(e for e in self.absent if e[0] != name)  # assigned: every row holds a value now
        added = self.added | {name}
        return replace(
            self, base=base, removed=self.removed - {name}, derived=derived, numbers=numbers, absent=absent, added=added
        )

    def join(self, other: Columns) -> Columns:
        if self == other:  # the same columns met again (a loop's passes over one pattern's names)
            return self
        both = self._with_named(other) or other._with_named(self)
        if both is not None:  # pd.concat([df.filter(like="risk"), df[["income"]]], axis=1)
            return both
        if self.opaque or other.opaque or self.matched is not None or other.matched is not None:
            return Columns(opaque=True, added=self.added | other.added)
        base = None if self.base is None or other.base is None else self.base | other.base
        dtypes = self.dtypes if self.dtypes == other.dtypes else None
        return Columns(
            base,
            self.removed & other.removed,
            self.derived | other.derived,
            False,
            dtypes,
            self.numbers | other.numbers,
            self.absent & other.absent,
            added=self.added | other.added,
            dtypes_at=self.dtypes_at | other.dtypes_at if dtypes is not None else frozenset(),
        )


OPAQUE = Columns(opaque=True)


@dataclass(frozen=True)
class Step:
    """A variable the rows passed through, and the program line where it was bound."""

    name: str
    line: int


@dataclass(frozen=True)
class Data:
    """Rows: which rows, which fitted statistics they embed, what they were computed from."""

    rows: frozenset[Atom]
    fits: frozenset[int] = frozenset()  # learner fits whose statistics are in these values
    columns: Columns | None = None  # a table's columns (None: not a table, or not followed)
    sources: frozenset[str] = frozenset()  # the table columns these values were taken or computed from
    predicted: frozenset[int] = frozenset()  # the model objects whose predictions these are
    cross_validated: bool = False  # predictions made by cross-validation (cross_val_predict)
    ordered: frozenset[int] = frozenset()  # lines where the rows were ordered by time
    time_index: frozenset[int] = frozenset()  # lines where the rows were indexed by dates
    lagged: frozenset[int] = frozenset()  # lines of features taken from other rows (shift, rolling, diff)
    dates: frozenset[str] = frozenset()  # columns read or converted as dates
    chain: tuple[Step, ...] = ()
    mask: str | None = None  # a boolean mask over the rows: the condition, as written
    grouped: bool = False  # a groupby: its aggregates are statistics of the rows
    against_truth: bool = False  # predictions compared with labels (pred == y): their mean is a score
    merged: frozenset[int] = frozenset()  # lines where rows from both sides of a split were put together
    window: bool = False  # a rolling, expanding or exponential window: its aggregates are row by row
    past: bool = False  # values of earlier rows only (shift(1), a window closed on the left)
    picked: bool = False  # taken from a table's own columns (its sources are that table's column names)
    number: bool = False  # values known to be numbers (astype(int), a map to numbers, arithmetic)
    # predictions made with a setting of their own (cut at a threshold, proba >= t; num_iteration=n; a staged
    # prediction): each setting (where it is written, or a cut at a number, `> 0.5`, wherever it is written) and
    # the loops it was made in (a setting tried per pass of a loop)
    tuned: frozenset[tuple[str, tuple[int, ...]]] = frozenset()
    # (fit, column) for fits that entered only as the values of named columns (df["y"] = le.fit_transform(...)):
    # dropping every such column takes the fit out; a fit not listed here is in every column.
    by_column: frozenset[tuple[int, str]] = frozenset()
    # (a mask as written, rows): that mask keeps the rows that are not among these rows (`~df.index.isin(
    # train.index)`, a merge's `_merge == "left_only"`), a complement of them whatever the mask's column holds
    outside: tuple[str, frozenset[Atom]] | None = None
    # for predictions: the fits in the rows the model predicted from (None: not predictions). A fit applied to the
    # predictions after (the target's encoder or scale undone) is not in the rows the model was given.
    fed: frozenset[int] | None = None
    # (line, column) where values were filled or taken from later rows (bfill, interpolate, shift(-1), a centred
    # window), column None for every column: before a cut in time, the last training rows hold test rows' values
    later: frozenset[tuple[int, str | None]] = frozenset()
    # (part, line) for the parts whose row labels were numbered anew at that line (reset_index, sample(
    # ignore_index=True)): the index numbers positions, so `df.drop(train.index)` no longer takes that part out
    renumbered: frozenset[tuple[Part, int]] = frozenset()
    # values of other rows only, never the row's own: a row's nearest neighbours with the row itself left out
    # (kneighbors() of the fitted rows, or its indices past the first column)
    elsewhere: bool = False
    # predictions of the rows after a series, asked of no rows (predict(fh=...), forecast(steps=24)): what they are
    # compared with says which rows they stand for
    horizon: bool = False
    # a series model's predictions of the rows it was trained on (fittedvalues): scored on those rows, an in-sample
    # fit, said as one by the program that asks for it
    in_sample: bool = False
    # one row of a table or array, met by iterating over it (`for r in df.values`, iterrows()): its mean is the
    # row's own, not a statistic of the rows
    each_row: bool = False
    # the rows of one group, met by iterating over a groupby (`for k, g in df.groupby("k")`): a statistic of them is
    # one per group, learned from every group's rows (as transform("mean") is)
    one_group: bool = False
    group_key: frozenset[str] = frozenset()  # the columns a groupby keys its groups by (when named as texts)
    # lines where the rows were put in random order (sample(frac=1)) and not sorted again since: a cut by position
    # after it draws each part at random, as a shuffled split does
    shuffled: frozenset[int] = frozenset()
    # the table columns these values show to hold numbers (a log or a division of them: text has neither), so
    # select_dtypes("number") keeps them
    numeric: frozenset[str] = frozenset()
    # (column, model) for a table's columns that hold a model's predictions (`test["pred"] = m.predict(X)`,
    # `assign(p=...)`): read back, the column is those predictions
    predictions: frozenset[tuple[str, int]] = frozenset()
    # the rows in reverse order (`s[::-1]`): a trailing window or a lag of them reads the rows after each one
    reversed: bool = False
    # the models whose predictions order these rows (`np.argsort(-proba)`, a table sorted by its column of
    # predictions): the labels taken at the first of them are a score of the ranking (a precision at k, a lift)
    ranked: frozenset[int] = frozenset()
    # the table columns these values show to hold no numbers: ordered against a text (`df["grade"] <= "B"`) or
    # mapped from texts, so select_dtypes("number") leaves them out whatever was made of them
    textual: frozenset[str] = frozenset()
    # an array made to be filled (`np.zeros((len(texts), k))`): predictions stored in it make it theirs
    blank: bool = False
    # the columns whose running total up to and with each row these values are (`s.cumsum()`, a window's sum):
    # less the row's own value (`s.cumsum() - s`), they are the earlier rows' only
    running: frozenset[str] = frozenset()
    # statistics taken along each row (`expr.mean(axis=1)`: each gene's mean over the sample columns): each row's
    # own, until the table is turned (`.T`), when its columns become the rows and these statistics of them
    # (``turned``); the statistics over the rows become each row's own the same way
    sideways: frozenset[int] = frozenset()
    # columns these values hold only as earlier rows' values, put together with others (`(g.cumsum() - df.won) /
    # df.played`: `won` of earlier rows, `played` of the row's own)
    earlier: frozenset[str] = frozenset()
    # one column given by its position (`data[:, -1]`, `df.iloc[:, 0]`) of a table whose columns were these (None:
    # an array's, not named): which one cannot be named, but it is one of them, so a model given every one of them
    # as features is given it too
    position_of: tuple[Columns | None, str] | None = None  # (those columns, the table as written: `train`)
    # the columns put beside others by a column stack (np.c_[X, np.log1p(y)], np.column_stack, hstack, concat
    # along axis 1), with the line that stacked them: where a label among them came in
    stacked: frozenset[tuple[str, int]] = frozenset()
    # rows made by a grouped aggregation, one per group (`orders.groupby("customer_id").agg(...)`): split and learned
    # from as rows of their own, but merged or looked up into other rows, they are those rows' columns
    of_groups: bool = False
    # forecasts made from inputs that hold the row each forecasts (`history.append(test[t])`, then
    # `model.predict(history[-5:])` in the same pass): (the line that added the row, the line of the forecast)
    reads_own: frozenset[tuple[int, int]] = frozenset()
    # (origin, line) for rows of a source put together with rows of others at that line (`pd.concat([train,
    # test])`): where a test file's rows came among the rows trained on
    gathered: frozenset[tuple[int, int]] = frozenset()

    def join(self, other: Data) -> Data:
        if self == other:
            return self
        rows = self.rows | other.rows
        if self.of_groups != other.of_groups:  # df.merge(per_customer): df's rows, with the groups' columns
            rows = other.rows if self.of_groups else self.rows
        columns = (
            self.columns.join(other.columns)
            if self.columns is not None and other.columns is not None
            else self.columns or other.columns
        )
        return Data(
            _bounded(rows),
            self.fits | other.fits,
            columns,
            self.sources | other.sources,
            self.predicted | other.predicted,
            self.cross_validated or other.cross_validated,
            self.ordered | other.ordered,
            self.time_index | other.time_index,
            self.lagged | other.lagged,
            self.dates | other.dates,
            _longer(self.chain, other.chain),
            self.mask if self.mask == other.mask else None,
            self.grouped and other.grouped,
            self.against_truth or other.against_truth,
            self.merged | other.merged,
            self.window and other.window,
            self.past and other.past,
            self.picked and other.picked,
            self.number and other.number,
            self.tuned | other.tuned,
            # a fit in every column on either side is in every column of the join
            frozenset(e for e in self.by_column | other.by_column if e[0] not in self.everywhere | other.everywhere),
            self.outside if self.outside == other.outside else None,
            self.fed if other.fed is None else other.fed if self.fed is None else self.fed | other.fed,
            self.later | other.later,
            self.renumbered | other.renumbered,
            self.elsewhere and other.elsewhere,
            self.horizon and other.horizon,
            self.in_sample and other.in_sample,
            self.each_row and other.each_row,
            self.one_group and other.one_group,
            self.group_key if self.group_key == other.group_key else frozenset(),
            self.shuffled | other.shuffled,
            self.numeric | other.numeric,
            self.predictions | other.predictions,
            reversed=self.reversed and other.reversed,
            ranked=self.ranked & other.ranked,
            textual=self.textual & other.textual,
            running=self.running & other.running,
            sideways=self.sideways | other.sideways,
            earlier=_earlier_only(self, other),
            position_of=self.position_of if self.position_of == other.position_of else None,
            stacked=self.stacked | other.stacked,
            of_groups=self.of_groups and other.of_groups,
            reads_own=self.reads_own | other.reads_own,
            gathered=self.gathered | other.gathered,
        )

    def turned(self) -> Data:
        """The table turned on its side (`.T`): its columns are the rows, so the statistics taken along each row
        are over the rows now, and those over the rows are each row's own."""
        columns = OPAQUE if self.columns is not None else None
        return replace(
            self,
            fits=self.sideways,
            sideways=self.fits,
            by_column=frozenset(),
            columns=columns,
        )

    @property
    def everywhere(self) -> frozenset[int]:
        """The fits in every column (not carried by named columns only)."""
        return self.fits - {f for f, _ in self.by_column}

    def in_columns(self, fits: frozenset[int], names: Iterable[str]) -> Data:
        """These rows with ``fits`` stored in the named columns: those not already in every column are carried
        by the columns."""
        new = fits - self.everywhere
        return replace(self, fits=self.fits | fits, by_column=self.by_column | {(f, n) for f in new for n in names})

    def everywhere_too(self, fits: frozenset[int]) -> Data:
        """These rows with ``fits`` in every column (a value mixed into the whole table)."""
        if not fits:
            return self
        return replace(self, fits=self.fits | fits, by_column=frozenset(e for e in self.by_column if e[0] not in fits))

    def pruned(self, before: Columns | None) -> Data:
        """Without the fits whose every carrying column this selection (``before``: the columns it was made from)
        dropped. A carrier gone before it (renamed, or the table rebuilt under other names) may hold its values
        under another name, so its fit stays."""
        if not self.by_column or self.columns is None or self.columns.opaque or before is None or before.opaque:
            return self
        carriers: dict[int, set[str]] = {}
        for f, name in self.by_column:
            carriers.setdefault(f, set()).add(name)
        gone = {f for f, names in carriers.items() if all(self.columns.lacks(n) and not before.lacks(n) for n in names)}
        if not gone:
            return self
        return replace(self, fits=self.fits - gone, by_column=frozenset(e for e in self.by_column if e[0] not in gone))

    def one_column(self, name: str) -> frozenset[int]:
        """The fits in the values of column ``name``: those in every column and those it carries."""
        return self.everywhere | {f for f, n in self.by_column if n == name}

    def labelled(self) -> Data:
        """The rows as their index names them: a part whose labels were numbered anew (reset_index) and not taken
        from since is not named by them, so they are labels of the rows it was taken from."""
        if not self.renumbered:
            return self
        unnamed = {part for part, _ in self.renumbered}
        rows = set()
        for atom in self.rows:
            parts = atom.parts
            while parts and parts[-1] in unnamed:
                parts = parts[:-1]
            rows.add(Atom(atom.origin, parts))
        return replace(self, rows=frozenset(rows))

    def with_parts(self, part: Part) -> Data:
        return replace(self, rows=_bounded(frozenset(a.with_part(part) for a in self.rows)))

    def masked(self, part: Part) -> Data:
        return replace(self, rows=_bounded(frozenset(a.masked(part) for a in self.rows)))

    def stepped(self, name: str, line: int) -> Data:
        if self.chain and self.chain[-1] == Step(name, line):
            return self
        return replace(self, chain=(*self.chain, Step(name, line))[-CHAIN_STEPS:])


def complement(rows: frozenset[Atom], taken: frozenset[Atom]) -> frozenset[Atom] | None:
    """The rows of ``rows`` that are not among ``taken`` (what is left once a sample or a split's part is taken
    out), or None when that cannot be said as atoms. A row set ``taken``'s part was cut from gets the other side
    of that cut; one within ``taken`` is gone; one apart from it stays as it is."""
    if not taken or not all(t.parts for t in taken):
        return None
    kept: set[Atom] = set()
    for atom in rows:
        meets = [t for t in taken if not atom.disjoint(t)]
        if not meets:
            kept.add(atom)
        elif any(atom.within(t) for t in meets):
            continue  # every row of it was taken
        elif all(t.parts[:-1] == atom.parts for t in meets) and len({t.parts[-1] for t in meets}) == 1:
            last = meets[0].parts[-1]
            kept.add(atom.with_part(Part(last.split, OTHER_SIDE.get(last.side, REST))))
        elif len({t.parts for t in meets}) == 1 and meets[0].parts[: len(atom.parts)] == atom.parts:
            # the first 100 of the training part taken out of every row: the test part, and the rest of training
            inner = meets[0].parts
            for depth in range(len(atom.parts), len(inner)):
                cut = inner[depth]
                kept.add(Atom(atom.origin, (*inner[:depth], Part(cut.split, OTHER_SIDE.get(cut.side, REST)))))
        else:
            return None  # rows taken from further inside it, or from several cuts: what is left is no side
    return frozenset(kept)


REST = "rest"  # what is left of rows once one side of a split is taken out (df.drop(train.index))
# The side left by taking out the other, for splits with two sides.
OTHER_SIDE = {"train": "test", "test": "train", "sample": REST, REST: "sample", "head": "tail", "tail": "head"}


def _intersected(
    a: tuple[str, Bound, Bound] | tuple[()], b: tuple[str, Bound, Bound] | tuple[()]
) -> tuple[str, Bound, Bound] | None:
    """The interval two spans on one axis both hold; None when their bounds cannot be compared."""
    if len(a) != 3 or len(b) != 3 or a[0] != b[0] or a[0] == POSITIONS:
        return None
    lower = _inner(a[1], b[1], upper=False)
    upper = _inner(a[2], b[2], upper=True)
    return None if lower is None or upper is None else (a[0], lower, upper)


def _inner(a: Bound, b: Bound, upper: bool) -> Bound | None:
    """Of two lower (or upper) bounds, the one nearer the inside: an open end yields to any."""
    if a[0] == OPEN or b[0] == OPEN:
        return b if a[0] == OPEN else a
    if a[0] != b[0]:
        return None
    if a[1] != b[1]:
        return a if (a[1] < b[1]) == upper else b
    return a if not a[2] else b  # at one place, the bound that leaves the place out


def _bounded(rows: frozenset[Atom]) -> frozenset[Atom]:
    if len(rows) <= MAX_ATOMS:
        return rows
    return frozenset(sorted(rows, key=lambda a: (len(a.parts), a))[:MAX_ATOMS])


def _longer(a: tuple[Step, ...], b: tuple[Step, ...]) -> tuple[Step, ...]:
    return a if len(a) >= len(b) else b


@dataclass(frozen=True)
class Value:
    """Everything an expression may be: each facet a may-set; the empty Value is 'nothing known'."""

    data: Data | None = None
    objects: frozenset[int] = frozenset()  # heap objects: estimators, containers, splitters
    names: frozenset[str] = frozenset()  # imported modules, classes and functions by qualified name
    functions: frozenset[int] = frozenset()  # functions defined in the file (their index)
    items: tuple[Value, ...] | None = None  # a tuple or list of known length (for unpacking)
    scores: frozenset[int] = frozenset()  # evaluations whose scores this is computed from
    stats: frozenset[int] = frozenset()  # row statistics (df.mean()) whose values this is computed from
    consts: frozenset[Hashable] = frozenset()  # known constants (column names, flags)
    parts: frozenset[Part] = frozenset()  # row selections: a fold's indices, a part's index
    names_of: Columns | None = None  # a list of a table's column names (df.columns, less some of them)
    method: tuple[Value, str] | None = field(default=None, compare=False)  # a bound method, not yet called

    def join(self, other: Value) -> Value:
        if other is NOTHING or (self == other and self.method is other.method):
            return self
        if self is NOTHING:
            return other
        if self.data is not None and other.data is not None:
            data: Data | None = self.data.join(other.data)
        else:
            data = self.data or other.data
        items = None
        if self.items is not None and other.items is not None and len(self.items) == len(other.items):
            items = tuple(a.join(b) for a, b in zip(self.items, other.items, strict=True))
        elif _only_none(self) or _only_none(other):
            # best = None, later best = (score, depth): where it is not None it is that pair, so best[0] is the score
            items = self.items if other.items is None else other.items
        return Value(
            data,
            self.objects | other.objects,
            self.names | other.names,
            self.functions | other.functions,
            items,
            self.scores | other.scores,
            self.stats | other.stats,
            self.consts | other.consts,
            self.parts | other.parts,
            _join_columns(self.names_of, other.names_of),
            self.method if self.method is not None else other.method,
        )

    @property
    def const(self) -> Hashable | None:
        """The one constant this value is, when it is exactly one."""
        return next(iter(self.consts)) if len(self.consts) == 1 else None

    def strings(self) -> list[str] | None:
        """The column names this value names: a string, or a list of strings (None when not known)."""
        if self.items is not None:
            names = [item.const for item in self.items]
            return [n for n in names if isinstance(n, str)] if all(isinstance(n, str) for n in names) else None
        if self.consts and all(isinstance(c, str) for c in self.consts):
            return sorted(str(c) for c in self.consts)
        return None


NOTHING = Value()


def _join_columns(a: Columns | None, b: Columns | None) -> Columns | None:
    if a is None:
        return b
    return a if b is None else a.join(b)


def join_all(values: Iterable[Value]) -> Value:
    """The join of ``values``, as joining them one by one would give, in time linear in their number (a literal
    list of 300,000 numbers joined pairwise would copy its growing set of constants at every step)."""
    given = [v for v in values if v is not NOTHING]
    if len(given) <= _PAIRWISE:
        result = NOTHING
        for value in given:
            result = result.join(value)
        return result
    lengths = {len(v.items) if v.items is not None else -1 for v in given if not _only_none(v)}
    items = None
    if len(lengths) == 1 and -1 not in lengths:
        sized = [v for v in given if not _only_none(v)]
        items = tuple(join_all(column) for column in zip(*(v.items or () for v in sized), strict=True))
    names_of = None
    for v in given:
        names_of = _join_columns(names_of, v.names_of)
    return Value(
        data_of(given),
        frozenset().union(*(v.objects for v in given)),
        frozenset().union(*(v.names for v in given)),
        frozenset().union(*(v.functions for v in given)),
        items,
        frozenset().union(*(v.scores for v in given)),
        frozenset().union(*(v.stats for v in given)),
        frozenset().union(*(v.consts for v in given)),
        frozenset().union(*(v.parts for v in given)),
        names_of,
        next((v.method for v in given if v.method is not None), None),
    )


def _only_none(value: Value) -> bool:
    """Whether ``value`` is None and nothing else (a name set to None before a loop fills it)."""
    return value.consts == {None} and replace(value, consts=frozenset()) == NOTHING


_PAIRWISE = 16  # up to this many values are joined one by one (the common case: a few branches or items)


def data_of(values: Iterable[Value]) -> Data | None:
    """The join of the data facets of ``values`` (None when none is data)."""
    found: Data | None = None
    for value in values:
        if value.data is not None:
            found = value.data if found is None else found.join(value.data)
    return found


def join_datas(datas: list[Data]) -> Data | None:
    """The join of ``datas`` (None for none)."""
    joined: Data | None = None
    for data in datas:
        joined = data if joined is None else joined.join(data)
    return joined


def stats_of(values: list[Value]) -> frozenset[int]:
    """The row statistics any of ``values`` carries."""
    return frozenset().union(*(v.stats for v in values)) if values else frozenset()


def named_parts(data: Data, sid: str, sides: tuple[str, ...]) -> Data:
    """The rows of ``data`` dealt to the named sides of split ``sid``, each taken back by its name."""
    return replace(data, rows=frozenset(a.with_part(Part(sid, side)) for a in data.rows for side in sides), mask=None)


def is_given(value: Value | None) -> bool:
    """Whether an option is given a value other than None."""
    return value is not None and value.consts != {None}


def argument(args: list[Value], kwargs: dict[str, Value], index: int, *names: str) -> Value:
    """A call's argument at position ``index`` or under one of ``names`` (nothing when it is not given)."""
    if index < len(args):
        return args[index]
    for name in names:
        if name in kwargs:
            return kwargs[name]
    return NOTHING


def _earlier_only(a: Data, b: Data) -> frozenset[str]:
    """The columns two values put together hold only as earlier rows' values: those each holds so (all its columns,
    for a lag), less any the other holds as the row's own."""

    def split(d: Data) -> tuple[frozenset[str], frozenset[str]]:
        held = d.sources if d.past else d.earlier
        return held, (frozenset() if d.past else d.sources - d.earlier)

    earlier_a, own_a = split(a)
    earlier_b, own_b = split(b)
    return (earlier_a | earlier_b) - own_a - own_b


def within_rows(axis: Value | None) -> bool:
    """Whether a reduction along ``axis`` is taken within each row: along axes other than the rows'
    (`df.mean(axis=1)`, a batch's `xb.mean(dim=(1, 2, 3))` per image, `np.mean(X, axis=1)`), not down the rows."""
    if axis is None:
        return False
    consts = [v.const for v in axis.items] if axis.items is not None else [axis.const]
    return bool(consts) and all((type(c) is int and c != 0) or c == "columns" for c in consts)


def selected_columns(x: Data, selects: Columns | None) -> Data | None:
    """The rows ``x`` with only the columns a column transformer selects (the rest dropped); None when it selects
    every column, or selects nothing known."""
    if selects is not None and selects.matched is not None and not selects.opaque:
        # a list of the names a pattern keeps (`[c for c in df.columns if c.startswith("f_")]`): those columns only
        return replace(x, columns=within_names(x, selects))
    if selects is None or (selects.base is None and not selects.opaque and not selects.removed):
        if selects is not None and selects.dtypes is not None and x.columns is not None and not x.columns.opaque:
            # make_column_selector(dtype_include=np.number): the numeric columns, as select_dtypes keeps them
            return replace(x, columns=replace(x.columns, dtypes=selects.dtypes))
        return None
    if selects.opaque:
        return replace(x, columns=Columns(opaque=True))
    if selects.base is None or selects.removed:  # a list made from a table's names, less some
        return replace(x, columns=within_names(x, selects))
    return replace(x, columns=(x.columns or Columns()).only(selects.base))


def within_names(data: Data, names: Columns) -> Columns:
    """A table's columns narrowed to a list of names taken from its own columns (with what each came from). Every
    column of another table (`train[[c for c in test.columns if c != "id"]]`) names columns the walk cannot know:
    an unlabelled test file lacks the label the training table holds."""
    columns = data.columns
    origins = frozenset(a.origin for a in data.rows)
    if names.base is None and names.listed_from and origins and not names.listed_from >= origins:
        # and of one of the tables a join put together (`clin.join(expr)[list(expr.columns)]`): that table's
        # columns, which ones unknown, not every column of the join
        return Columns(opaque=True)
    # every column the list was read from holds none the table was given since (`feats`, then `is_test`)
    later = columns.added - names.added if columns is not None and names.base is None else frozenset()
    if columns is None or names.opaque or columns.opaque:
        return replace(names, removed=names.removed | later) if later and not names.opaque else names
    # what a kept column was used to compute stays known: a label computed from it is read from it
    derived = frozenset(d for d in columns.derived if names.has(d[0]) or names.has(d[1]))
    removed = names.removed | columns.removed | later
    numbers = columns.numbers | names.numbers
    return Columns(
        names.base,
        removed,
        derived | names.derived,
        False,
        names.dtypes,
        numbers,
        added=columns.added,
        matched=names.matched,
    )


def own_taken_out(total: Value, own: Value) -> bool:
    """Whether ``own`` is the very column ``total`` is a running total of (with each row's own value)."""
    if total.data is None or own.data is None or not total.data.running:
        return False
    taken = own.data
    # a lag or a window of it (shift(1): earlier rows) is not the row's own value; what the table holds besides is
    return taken.picked and taken.sources == total.data.running and not (taken.past or taken.window or taken.running)


def named_column(data: Data) -> Data:
    """One column picked by name as it is (`df["label"]`, `y[:, None]` of it, a window of it that holds each row's
    own value; nothing learned, no lag, no later rows') as a column of that name, to be put beside others."""
    if data.columns is not None or not data.picked or len(data.sources) != 1:
        return data
    if data.predicted or data.fits or data.past or data.later:
        return data
    return replace(data, columns=Columns(frozenset(data.sources)))


def narrowed_from(atom: Atom) -> list[Atom]:
    """The rows themselves, then the rows they were cut from, cut by cut (`history[-60:]` of a history that holds
    a pass's row: that row, as it was put there)."""
    return [Atom(atom.origin, atom.parts[:k]) for k in range(len(atom.parts), 0, -1)]
