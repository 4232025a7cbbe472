"""A mask's condition as an interval of one column's values, so that two sides of a split by masks say which rows
they share: `date < "2023-06"` and `date >= "2023-01"` share the first five months."""

from __future__ import annotations

import ast
import re
from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from auditor.code.values import OPEN, Bound

_BELOW = {ast.Lt: False, ast.LtE: True}  # column < bound, column <= bound: the bound closes the interval or not
_ABOVE = {ast.Gt: False, ast.GtE: True}
_FLIPPED: dict[type[ast.cmpop], type[ast.cmpop]] = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE}
_NEGATED: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.GtE,
    ast.LtE: ast.Gt,
    ast.Gt: ast.LtE,
    ast.GtE: ast.Lt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
}

# The base of a bound that is an instant: a date written in ISO form, or a call that makes one from such a text.
TIME = "<time>"
# The base of an instant with a zone, counted in UTC: two made by calls compare whatever their zones, but never
# with a plain one (pandas refuses to compare a zoned time with a naive column, and the reverse). Two zoned texts
# compare only at one offset: on a text column they compare as texts, which sort as instants only then.
ZONED = "<time utc>"
# Zero-padded, hyphenated, a zone only after a time: such texts sort as the instants they name, so a text column
# and a datetime column compared with them keep the same rows on each side. Any other spelling is not a time.
_ISO = re.compile(
    r"(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:?\d{2})?)?)?)?"
)
# Calls that make an instant of one ISO text (pd.Timestamp, pd.to_datetime, np.datetime64) or of its numbers (a
# date is its day's first instant, as pandas compares it with a datetime column).
_FROM_TEXT = frozenset({"Timestamp", "to_datetime", "datetime64"})
_FROM_NUMBERS = frozenset({"datetime", "date", "Timestamp"})
_PARTS = ("year", "month", "day", "hour", "minute", "second")
_EPOCH = datetime(1970, 1, 1)
_EPOCH_UTC = datetime(1970, 1, 1, tzinfo=UTC)


def mask_span(condition: str, query: frozenset[str] | None = None) -> tuple[str, Bound, Bound] | tuple[()]:
    """The interval of one column's values a condition keeps (`df["date"] <= cut`, `df.year > 2019`), () for any
    other condition. ``query``: the condition is `df.query`'s, its @ dropped, where a name is a column unless it is
    one of these (the names it took with @)."""
    try:
        expr = ast.parse(condition, mode="eval").body
    except SyntaxError:
        return ()
    between = _between(expr, query)
    if between is not None:
        return between
    run = _isin_run(expr, query)
    if run is not None:
        return run
    members = _members_of_slice(expr, query)
    if members is not None:
        return members[0] if len(members) == 1 else ()
    negated = False
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Invert | ast.Not):
        negated, expr = True, expr.operand  # ~(df.date < cut) keeps the rows of df.date >= cut
    if not isinstance(expr, ast.Compare) or len(expr.ops) != 1:
        return ()
    column, op, bound = expr.left, type(expr.ops[0]), expr.comparators[0]
    if negated:
        negation = _NEGATED.get(op)
        if negation is None:  # the complement of a test not listed (`~df.a.isin(...)`, `is`): no interval
            return ()
        op = negation
    if _column_key(bound, query) is not None and _column_key(column, query) is None:
        column, bound, op = bound, column, _FLIPPED.get(op, op)
    axis = _column_key(column, query)
    if axis is None:
        return ()
    at = _bound_at(bound)
    if op in _BELOW:
        return (axis, (OPEN, 0, True), (*at, _BELOW[op]))
    if op in _ABOVE:
        return (axis, (*at, _ABOVE[op]), (OPEN, 0, True))
    if op is ast.Eq:  # one value: `year == 2020` shares its rows with `year <= 2020`, none with `year < 2020`
        return (axis, (*at, True), (*at, True))
    if op is ast.NotEq:  # every value but one: shares none with `year == 2020` only (values.py's point_left_out)
        return (axis, (*at, False), (*at, False))
    return ()


def mask_union(condition: str, query: frozenset[str] | None = None) -> tuple[tuple[str, Bound, Bound], ...]:
    """The spans on one column of a condition that keeps the rows of any of them: `df.year.isin([2019, 2021])`
    (each value a point) or conditions joined by `|` or `or`; () for any other condition, or one whose parts
    are not all spans of one column."""
    try:
        expr = ast.parse(condition, mode="eval").body
    except SyntaxError:
        return ()
    members = _members_of_slice(expr, query)
    if members is not None:
        return members if len(members) > 1 else ()
    parts = _operands(expr, ast.BitOr, ast.Or)
    spans: list[tuple[str, Bound, Bound]] = []
    if len(parts) == 1:
        isin = parts[0]
        if not (isinstance(isin, ast.Call) and isinstance(isin.func, ast.Attribute) and isin.func.attr == "isin"):
            return ()
        axis = _column_key(isin.func.value, query)
        given = isin.args[0] if len(isin.args) == 1 and not isin.keywords else None
        if axis is None or not isinstance(given, ast.List | ast.Tuple | ast.Set) or not given.elts:
            return ()
        for value in given.elts:
            if not isinstance(value, ast.Constant) or isinstance(value.value, bool) or value.value is None:
                return ()
            at = _bound_at(value)
            spans.append((axis, (*at, True), (*at, True)))
        return tuple(spans)
    for part in parts:
        inner = mask_union(ast.unparse(part), query) or ((mask_span(ast.unparse(part), query),))
        if any(not s for s in inner):
            return ()
        spans += [s for s in inner if s]
    return tuple(spans) if len({s[0] for s in spans}) == 1 else ()


# `s.between(a, b, inclusive=...)`: which of its ends it keeps (pandas' words, and its older True and False).
_BETWEEN_ENDS = {"both": (True, True), "neither": (False, False), "left": (True, False), "right": (False, True)}


def _between(expr: ast.expr, query: frozenset[str] | None) -> tuple[str, Bound, Bound] | None:
    """`df.date.between("2022-01", "2023-06")` as the interval it keeps; None for any other condition."""
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "between"):
        return None
    axis = _column_key(expr.func.value, query)
    if axis is None or len(expr.args) != 2:
        return None
    ends: tuple[bool, bool] | None = (True, True)
    for keyword in expr.keywords:
        given = keyword.value.value if isinstance(keyword.value, ast.Constant) else None
        if keyword.arg != "inclusive":
            return None
        ends = (
            _BETWEEN_ENDS.get(given) if isinstance(given, str) else (given, given) if isinstance(given, bool) else None
        )
    if ends is None:
        return None
    lower, upper = _bound_at(expr.args[0]), _bound_at(expr.args[1])
    if lower == upper and not any(ends):
        return None  # between(a, a, inclusive="neither") keeps no row; its span would read as every value but a
    return (axis, (*lower, ends[0]), (*upper, ends[1]))


def _isin_run(expr: ast.expr, query: frozenset[str] | None) -> tuple[str, Bound, Bound] | None:
    """`df.month.isin(range(1, 11))`, `df.month.isin([10, 11, 12])`: whole numbers written out in one unbroken run,
    as the interval they fill (months 1 to 10), so two such sets, or one and a comparison, say which rows they
    share; None for any other set, whose span would claim the rows between its values."""
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "isin"):
        return None
    axis = _column_key(expr.func.value, query)
    if axis is None or len(expr.args) != 1 or expr.keywords:
        return None
    run = _whole_run(expr.args[0])
    if run is None:
        return None
    return (axis, ("", run[0], True), ("", run[1], True))


def _members_of_slice(expr: ast.expr, query: frozenset[str] | None) -> tuple[tuple[str, Bound, Bound], ...] | None:
    """`df.pid.isin(ids[:30])`, `r.pid in ids[20:]`, `~df.pid.isin(ids[:n])`: membership in a slice of one
    sequence, as the positions of that sequence it keeps (two pieces for the complement of a middle run), so two
    such masks share rows where their positions meet; None for any other condition."""
    negated = False
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Invert | ast.Not):
        negated, expr = True, expr.operand
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "isin":
        if len(expr.args) != 1 or expr.keywords:
            return None
        column, given = expr.func.value, expr.args[0]
    elif isinstance(expr, ast.Compare) and len(expr.ops) == 1 and isinstance(expr.ops[0], ast.In | ast.NotIn):
        column, given = expr.left, expr.comparators[0]
        negated ^= isinstance(expr.ops[0], ast.NotIn)
    else:
        return None
    key = _column_key(column, query)
    if key is None or not (isinstance(given, ast.Subscript) and isinstance(given.slice, ast.Slice)):
        return None
    bounds = given.slice
    if bounds.step is not None:
        return None
    axis = f"{key} in {ast.unparse(given.value)}"
    low = _position_at(bounds.lower) if bounds.lower is not None else None
    high = _position_at(bounds.upper) if bounds.upper is not None else None
    opened: Bound = (OPEN, 0, True)
    if not negated:
        return ((axis, (*low, True) if low else opened, (*high, False) if high else opened),)
    pieces = []
    if low is not None:  # the positions before the slice's start
        pieces.append((axis, opened, (*low, False)))
    if high is not None:  # and those from its end on
        pieces.append((axis, (*high, True), opened))
    return tuple(pieces) or None


def opened(node: ast.expr) -> ast.expr:
    """A sum with its last term's parentheses opened: `n - (a - b)` is `n - a + b`, `n - (a + b)` is `n - a - b`
    and `n + (a - b)` is `n + a - b`, so its terms line up with another bound's (``node`` itself otherwise)."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub)):
        return node
    inner = node.right
    if not (isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Add | ast.Sub)):
        return node
    flipped = isinstance(node.op, ast.Sub)
    op = (ast.Add() if isinstance(inner.op, ast.Sub) else ast.Sub()) if flipped else inner.op
    first = ast.copy_location(ast.BinOp(left=node.left, op=node.op, right=inner.left), node)
    return ast.copy_location(ast.BinOp(left=first, op=op, right=inner.right), node)


def _position_at(node: ast.expr) -> tuple[str, float]:
    """A slice's bound as a position: counted from the start when a whole number not below zero, from the end
    when below (each ordered against its own kind only); a name only equal to itself."""
    whole = _whole(node)
    if whole is not None and whole >= 0:
        return ("", whole)
    if whole is not None:  # `ids[-30:]`: counted from the end, ordered against other such positions only
        return ("from the end", whole)
    node = opened(node)
    step = _whole(node.right) if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub) else None
    if isinstance(node, ast.BinOp) and step is not None:
        # `ids[:len(ids) - n_test + 50]`: 50 past the position `len(ids) - n_test` another slice starts at
        base = _position_at(node.left)
        if base[0] not in ("", "from the end"):
            return (base[0], base[1] + (step if isinstance(node.op, ast.Add) else -step))
    return (ast.unparse(node).replace(" ", ""), 0)


def _whole_run(node: ast.expr) -> tuple[int, int] | None:
    """The first and last of whole numbers in one unbroken run: `range(a, b)` (b > a) or a list, tuple or set of
    constants (`[10, 11, 12]`); None for anything else."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range" and not node.keywords:
        ends = [_whole(a) for a in node.args]
        if len(ends) == 1:
            ends = [0, *ends]
        if len(ends) != 2 or ends[0] is None or ends[1] is None or ends[1] <= ends[0]:
            return None
        return ends[0], ends[1] - 1
    if not isinstance(node, ast.List | ast.Tuple | ast.Set) or not node.elts:
        return None
    numbers = [_whole(e) for e in node.elts]
    if any(n is None for n in numbers):
        return None
    distinct = sorted({n for n in numbers if n is not None})
    return (distinct[0], distinct[-1]) if distinct[-1] - distinct[0] + 1 == len(distinct) else None


def _whole(node: ast.expr) -> int | None:
    """A whole number written as a constant (`12`, `-3`); None for anything else, True and False too."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        sign, node = -1, node.operand
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


def conjuncts(condition: str) -> list[str]:
    """The conditions a mask holds all of (`(df.a < 1) & (df.b == 2)` is two); any other mask is one."""
    try:
        expr = ast.parse(condition, mode="eval").body
    except SyntaxError:
        return [condition]
    found = [ast.unparse(node) for node in _operands(expr, ast.BitAnd, ast.And)]
    return found if len(found) > 1 else [condition]


def _operands(expr: ast.expr, bitwise: type[ast.operator], logical: type[ast.boolop]) -> list[ast.expr]:
    """The conditions ``expr`` joins with one operator, written bitwise (`a & b`, pandas') or as a word (`a and b`,
    a query's), however nested."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, bitwise):
        return [*_operands(expr.left, bitwise, logical), *_operands(expr.right, bitwise, logical)]
    if isinstance(expr, ast.BoolOp) and isinstance(expr.op, logical):
        return [part for value in expr.values for part in _operands(value, bitwise, logical)]
    return [expr]


def disjuncts_of_columns(condition: str, query: frozenset[str] | None = None) -> list[str] | None:
    """The conditions `a | (b & c)` keeps the rows of any of, when they read more than one column (the rows of
    each taken apart); None for any other mask, or a union over one column, which mask_union reads as spans."""
    try:
        expr = ast.parse(condition, mode="eval").body
    except SyntaxError:
        return None
    parts = _operands(expr, ast.BitOr, ast.Or)
    if len(parts) < 2 or mask_union(condition, query):
        return None
    return [ast.unparse(part) for part in parts]


def negated_conjuncts(condition: str) -> list[str] | None:
    """The conditions `~(a & b)` negates, when it negates several (its rows fail at least one of them); None for
    any other mask."""
    try:
        expr = ast.parse(condition, mode="eval").body
    except SyntaxError:
        return None
    if not (isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Invert | ast.Not)):
        return None
    held = conjuncts(ast.unparse(expr.operand))
    return held if len(held) > 1 else None


def column_of(condition: str, query: frozenset[str] | None = None) -> str | None:
    """The column a comparison of one column reads, by its name in the table (`date` in `df["date"].dt.year`);
    ``query``: as mask_span's (a bare name is a column unless it is one of these)."""
    try:
        expr = ast.parse(condition, mode="eval").body
    except SyntaxError:
        return None
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Invert | ast.Not):
        expr = expr.operand
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "between":
        return _root_column(expr.func.value)
    if not isinstance(expr, ast.Compare) or len(expr.ops) != 1:
        return None
    for side in (expr.left, expr.comparators[0]):
        if query is not None and isinstance(side, ast.Name) and side.id not in query:
            return side.id
        name = _root_column(side)
        if name is not None:
            return name
    return None


def _root_column(node: ast.expr) -> str | None:
    """The column next to the table's name in `df.date`, `df["date"].dt.year`; None when a name holds none."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        inner = node.value
        if isinstance(inner, ast.Name):
            if isinstance(node, ast.Attribute):
                # df.index is the rows' labels, no column: a mask of it is one of the rows, as when it stands alone
                return node.attr if node.attr != "index" else None
            key = node.slice
            return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
        node = inner
    return None


def _column_key(node: ast.expr, query: frozenset[str] | None) -> str | None:
    """A column as one key however it is written and whichever name holds its table: `df.date`, `df["date"]` and
    `raw["date"]` of the same rows (the split a mask makes names its rows; a second read of one file is them)."""
    if query is not None and isinstance(node, ast.Name) and node.id not in query:
        return f"[{node.id!r}]"
    if isinstance(node, ast.Attribute):
        return f"{_path(node.value)}[{node.attr!r}]"
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return f"{_path(node.value)}[{node.slice.value!r}]"
    return None


def _path(node: ast.expr) -> str:
    """The way from a table to one of its columns, without the table's name (`df["date"].dt` is `['date'].dt`)."""
    if isinstance(node, ast.Attribute):  # `df.date.dt`: a column of the table, then an accessor of the column
        return f"[{node.attr!r}]" if isinstance(node.value, ast.Name) else f"{_path(node.value)}.{node.attr}"
    if isinstance(node, ast.Subscript):
        return f"{_path(node.value)}[{ast.unparse(node.slice)}]"
    return "" if isinstance(node, ast.Name) else ast.unparse(node)


def _bound_at(node: ast.expr) -> tuple[str, float]:
    """Where a bound stands: a number from zero, an instant from 1970, anything else from its own text (two
    bounds from different texts cannot be compared)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return ("", int(node.value))  # a flag's True is its 1: `df.is_test == True` keeps the rows `== 1` keeps
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return ("", node.value)
    instant = instant_of(node)
    if instant is not None and instant.tzinfo is not None:
        offset = ""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            spelled = _ISO.fullmatch(node.value)
            offset = f" {spelled.group(8)}" if spelled is not None else ""  # as written: `Z`, `+00:00` sort apart
        return (ZONED + offset, (instant - _EPOCH_UTC).total_seconds())
    if instant is not None:
        return (TIME, (instant - _EPOCH).total_seconds())
    return (ast.unparse(node).replace(" ", ""), 0)


def instant_of(node: ast.expr) -> datetime | None:
    """The instant a bound names: `"2023-06"`, `pd.Timestamp("2023-06-01", tz="UTC")`, `datetime(year=2023,
    month=6, day=1)`; zoned ones aware of their zone; None when it names none or its spelling is not ISO's."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _iso(node.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
        # cut - pd.Timedelta(days=28): an instant moved by a span of fixed length
        base, moved = instant_of(node.left), duration_of(node.right)
        if base is None and isinstance(node.op, ast.Add):
            base, moved = instant_of(node.right), duration_of(node.left)
        if base is None or moved is None:
            return None
        try:
            return base + moved if isinstance(node.op, ast.Add) else base - moved
        except OverflowError:
            return None
    if not isinstance(node, ast.Call):
        return None
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
    given = [a.value for a in node.args if isinstance(a, ast.Constant)]
    named = {k.arg: k.value.value for k in node.keywords if k.arg and isinstance(k.value, ast.Constant)}
    named |= {k.arg: _zone_named(k.value) for k in node.keywords if k.arg in ("tz", "tzinfo")}
    zones = [named[k] for k in ("tz", "tzinfo") if k in named]
    if len(given) != len(node.args) or len(named) != len(node.keywords) or None in zones or len(zones) > 1:
        return None
    zone = named.pop("tz", None) or named.pop("tzinfo", None)
    utc = named.pop("utc", False) if name == "to_datetime" else False
    if name in _FROM_TEXT and len(given) == 1 and isinstance(given[0], str) and not named:
        return _zoned(_iso(given[0]), zone, utc is True)
    if name in _FROM_NUMBERS and not given:  # all by keyword: `datetime(year=2023, month=6, day=1)`
        if set(named) - set(_PARTS) or not {"year", "month", "day"} <= set(named):
            return None
        given = [named.pop(part, 0) for part in _PARTS]
    numbers = [g for g in given if isinstance(g, int) and not isinstance(g, bool)]
    most = 3 if name == "date" else 6
    if name in _FROM_NUMBERS and not named and len(numbers) == len(given) and 3 <= len(given) <= most:
        year, month, day, hour, minute, second = [*numbers, 0, 0, 0][:6]
        try:
            return _zoned(datetime(year, month, day, hour, minute, second), zone, False)
        except (ValueError, OverflowError):
            return None
    return None


# Units of a span, as pandas and datetime write them, in seconds (months and years have no fixed length).
_SPAN_UNITS = {
    "weeks": 604800,
    "w": 604800,
    "week": 604800,
    "days": 86400,
    "d": 86400,
    "day": 86400,
    "hours": 3600,
    "h": 3600,
    "hour": 3600,
    "hr": 3600,
    "minutes": 60,
    "min": 60,
    "minute": 60,
    "t": 60,
    "seconds": 1,
    "s": 1,
    "second": 1,
    "sec": 1,
}
_SPAN_TEXT = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]+)\s*")


def duration_of(node: ast.expr) -> timedelta | None:
    """The fixed span a call makes: `pd.Timedelta(days=28)`, `pd.Timedelta("28D")`, `timedelta(hours=6)`,
    `pd.DateOffset(weeks=4)`, `np.timedelta64(28, "D")`; None for months, years or anything else."""
    if not isinstance(node, ast.Call):
        return None
    called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
    if called not in ("Timedelta", "timedelta", "DateOffset", "to_timedelta", "timedelta64"):
        return None
    seconds = 0.0
    for keyword in node.keywords:
        unit = _SPAN_UNITS.get((keyword.arg or "").lower())
        value = keyword.value.value if isinstance(keyword.value, ast.Constant) else None
        if unit is None or not isinstance(value, int | float) or isinstance(value, bool):
            return None
        seconds += unit * value
    given = [a.value for a in node.args if isinstance(a, ast.Constant)]
    if len(given) != len(node.args) or len(given) > 2:
        return None
    if len(given) == 1 and isinstance(given[0], str) and not node.keywords:
        found = _SPAN_TEXT.fullmatch(given[0])
        unit = _SPAN_UNITS.get(found.group(2).lower()) if found is not None else None
        if found is None or unit is None:
            return None
        seconds = unit * float(found.group(1))
    elif len(given) == 2 and isinstance(given[0], int | float) and isinstance(given[1], str):
        unit = _SPAN_UNITS.get(given[1].lower())
        if unit is None or isinstance(given[0], bool):
            return None
        seconds = unit * given[0]
    elif given or not node.keywords:
        return None
    return timedelta(seconds=seconds)


def span_count(node: ast.expr) -> tuple[float, float] | None:
    """A fixed span written as a count of one unit (`pd.Timedelta(days=7)`, `"7D"`, `np.timedelta64(7, "D")`): the
    count and the unit's seconds; None for a span of several units or anything else."""
    if not isinstance(node, ast.Call) or duration_of(node) is None:
        return None
    given = [a.value for a in node.args if isinstance(a, ast.Constant)]
    if len(node.keywords) == 1 and not node.args:
        value = node.keywords[0].value
        count = value.value if isinstance(value, ast.Constant) else None
        unit = _SPAN_UNITS.get((node.keywords[0].arg or "").lower())
    elif len(given) == 1 and isinstance(given[0], str) and not node.keywords:
        found = _SPAN_TEXT.fullmatch(given[0])
        count = float(found.group(1)) if found is not None else None
        unit = _SPAN_UNITS.get(found.group(2).lower()) if found is not None else None
    elif len(given) == 2 and not node.keywords and isinstance(given[1], str):
        count, unit = given[0], _SPAN_UNITS.get(given[1].lower())
    else:
        return None
    if not isinstance(count, int | float) or isinstance(count, bool) or unit is None:
        return None
    return float(count), float(unit)


def _zone_named(node: ast.expr) -> str | None:
    """The zone a `tz=` or `tzinfo=` names: a text, `timezone.utc`, `UTC`, `ZoneInfo("Europe/Berlin")`."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if (isinstance(node, ast.Attribute) and node.attr in ("utc", "UTC")) or (
        isinstance(node, ast.Name) and node.id == "UTC"
    ):
        return "UTC"
    if not isinstance(node, ast.Call) or len(node.args) != 1 or node.keywords:
        return None
    called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
    # not pytz's timezone(): given as a datetime's tzinfo it keeps the zone's first offset (Berlin's +00:53)
    return _zone_named(node.args[0]) if called in ("ZoneInfo", "gettz") else None


def _zoned(instant: datetime | None, zone: object, utc: bool) -> datetime | None:
    """The instant with the zone a call gives it (`tz="Europe/Berlin"`, `utc=True`); None for a zone it cannot
    name or a zone given twice over (pandas refuses a text's own zone with another `tz=`)."""
    if instant is None or (zone is None and not utc):
        return instant
    if zone is not None and (utc or not isinstance(zone, str)):
        return None
    if instant.tzinfo is not None:
        return instant.astimezone(UTC) if zone is None else None
    if zone is None:
        return instant.replace(tzinfo=UTC)
    try:
        return instant.replace(tzinfo=ZoneInfo(zone)).astimezone(UTC)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def period_after(node: ast.expr) -> str | None:
    """For a label slice's end written as a partial date, the first instant past the period it names: pandas keeps
    all of it (`.loc[:"2023-06"]` holds every day of June, `[:"2023-06-01"]` every hour of that day). None for an
    end that names one instant (a time to the second or finer, a Timestamp call) or no date."""
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return None
    found = _ISO.fullmatch(node.value)
    start = _iso(node.value)
    if found is None or start is None or found.group(8) is not None:
        return None
    _, month, day, hour, minute, second, fraction, _ = found.groups()
    if second is not None or fraction is not None:
        return None
    if month is None:
        after = start.replace(year=start.year + 1)
    elif day is None:
        after = start.replace(year=start.year + start.month // 12, month=start.month % 12 + 1)
    elif hour is None:
        after = start + timedelta(days=1)
    elif minute is None:
        after = start + timedelta(hours=1)
    else:
        after = start + timedelta(minutes=1)
    return after.isoformat(sep=" ")


def _iso(text: str) -> datetime | None:
    found = _ISO.fullmatch(text)
    if found is None:
        return None
    year, month, day, hour, minute, second, fraction, zone = found.groups()
    try:
        instant = datetime(
            int(year),
            int(month or 1),
            int(day or 1),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            int((fraction or "0").ljust(6, "0")),
        )
        if zone is None:
            return instant
        if zone == "Z":
            return instant.replace(tzinfo=UTC)
        sign, hours, minutes = (-1 if zone[0] == "-" else 1), int(zone[1:3]), int(zone[-2:])
        return instant.replace(tzinfo=timezone(sign * timedelta(hours=hours, minutes=minutes)))
    except ValueError:  # a month 13, a 30th of February, an offset of a day or more
        return None


_MISSING = frozenset(["isna", "isnull"])
_PRESENT = frozenset(["notna", "notnull"])
_ONE_VALUE = {"nunique": 1, "std": 0, "var": 0}  # what a column holding one value gives


def complete_columns_of(expr: ast.expr) -> ast.expr | None:
    """The table or column a test keeps every complete (or varying) column of, a label always among them:
    `df.notna().all()`, `~df.isna().any()`, `df.isna().mean() < 0.3`, `df.isna().sum() == 0`, `df.nunique() > 1`,
    `df.std() > 0`, or the same of one column `df[c]`; None for any other test."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Invert | ast.Not):
        inner = _reduced(expr.operand, "any")
        return inner[1] if inner is not None and inner[0] in _MISSING else None
    reduced = _reduced(expr, "all")
    if reduced is not None:
        return reduced[1] if reduced[0] in _PRESENT else None
    if not (isinstance(expr, ast.Compare) and len(expr.ops) == 1):
        return None
    op, bound = expr.ops[0], expr.comparators[0]
    if not (isinstance(bound, ast.Constant) and isinstance(bound.value, int | float)) or isinstance(bound.value, bool):
        return None
    limit = bound.value
    left = expr.left
    if isinstance(left, ast.Call) and isinstance(left.func, ast.Attribute) and left.func.attr in _ONE_VALUE:
        one = _ONE_VALUE[left.func.attr]
        varying = (isinstance(op, ast.Gt | ast.NotEq) and limit == one) or (isinstance(op, ast.GtE) and limit > one)
        return left.func.value if varying and not left.args and not left.keywords else None
    for counted in ("sum", "mean"):
        reduced = _reduced(left, counted)
        if reduced is None:
            continue
        kind, table = reduced
        fewer = (isinstance(op, ast.Lt) and limit > 0) or (isinstance(op, ast.LtE) and limit >= 0)
        if kind in _MISSING and (fewer or (isinstance(op, ast.Eq) and limit == 0)):
            return table
        if kind in _PRESENT and counted == "mean" and isinstance(op, ast.Gt | ast.GtE) and limit < 1:
            return table
    return None


def _reduced(expr: ast.expr, reduction: str) -> tuple[str, ast.expr] | None:
    """`x.isna().any()` read as ("isna", x) for ``reduction`` "any" (down the rows, not within each one)."""
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == reduction):
        return None
    if expr.args or any(k.arg == "axis" and _within_rows(k.value) for k in expr.keywords):
        return None
    tested = expr.func.value
    if not (isinstance(tested, ast.Call) and isinstance(tested.func, ast.Attribute)):
        return None
    if tested.func.attr not in _MISSING | _PRESENT or tested.args or tested.keywords:
        return None
    return tested.func.attr, tested.func.value


def _within_rows(axis: ast.expr) -> bool:
    return isinstance(axis, ast.Constant) and axis.value in (1, "columns")


def a_word(text: str) -> bool:
    """Whether a text holds a letter and reads as no number or instant (`"Yes"`, `"churned"`; not `"1"`, `"2023-01"`):
    a column compared equal to it holds text."""
    if not any(c.isalpha() for c in text) or instant_of(ast.Constant(text)) is not None:
        return False
    try:
        float(text)
    except ValueError:
        return True
    return False  # "1e3", "nan", "inf": numbers pandas would read
