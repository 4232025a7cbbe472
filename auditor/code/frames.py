"""Tables and arrays in the walk: selecting columns and rows (masks, slices, a fold's indices), their methods
(drop, pop, fillna, sort_values, groupby, shift, sample, ...) and assignments into them, which rebind the
table the name refers to."""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Callable, Hashable, Iterable
from dataclasses import replace
from typing import Any

from auditor.code.catalog import (
    CORRELATION,
    DATASET_DICT_SPLITS,
    FIT_FUNCTIONS,
    KEYED_SPLITS,
    PER_GROUP,
    ROW_REDUCTIONS,
    ROW_REDUCTIONS_NUMPY,
    SUMMARY_LEARNS,
    TIME_FEATURE_METHODS,
    Strength,
)
from auditor.code.events import Obj, Site, Split
from auditor.code.masks import (
    a_word,
    column_of,
    complete_columns_of,
    conjuncts,
    disjuncts_of_columns,
    instant_of,
    mask_span,
    mask_union,
    negated_conjuncts,
    opened,
    period_after,
)
from auditor.code.replicates import counters
from auditor.code.sources import Program
from auditor.code.state import (
    CONTAINER,
    DATASET_DICT,
    GRAPH_MASKS,
    NEIGHBOURS,
    NOT_SELF,
    OTHER_NEIGHBOURS,
    SCORE_TABLE,
    WalkState,
)
from auditor.code.values import (
    NOTHING,
    OPAQUE,
    OPEN,
    POSITIONS,
    Atom,
    Bound,
    Columns,
    Data,
    Part,
    Value,
    argument,
    complement,
    counts_from,
    data_of,
    join_all,
    named_column,
    named_parts,
    own_taken_out,
    share_of,
    stats_of,
    within_names,
    within_rows,
)
from auditor.code.walkforward import one_row

# Attributes of a table that are not one of its columns.
_TABLE_ATTRIBUTES = frozenset(
    [
        "values",
        "index",
        "columns",
        "shape",
        "dtypes",
        "dtype",
        "size",
        "ndim",
        "empty",
        "T",
        "loc",
        "iloc",
        "at",
        "iat",
        "ix",
        "str",
        "dt",
        "cat",
        "plot",
        "name",
        "array",
        "flags",
        "attrs",
        "axes",
        "style",
        "sparse",
        "real",
        "imag",
        "flat",
        "nbytes",
        "itemsize",
    ]
)
# Of those below, the ones that keep the values too: a mask stays the mask it was.
_MASK_KEPT = frozenset(["to_numpy", "to_pandas", "to_polars", "copy", "ravel", "flatten", "squeeze"])
# Methods that keep a table's rows and columns as they are (values may change, row by row).
_SAME_TABLE = frozenset(
    [
        "fillna",
        "query",
        "nlargest",
        "nsmallest",
        "truncate",
        "between_time",
        "at_time",
        "sort",
        "drop_nulls",
        "fill_null",
        "fill_nan",
        "copy",
        "astype",
        "reset_index",
        "dropna",
        "drop_duplicates",
        "to_numpy",
        "to_pandas",
        "to_polars",
        "collect",
        "lazy",
        "to_frame",
        "reshape",
        "ravel",
        "flatten",
        "squeeze",
        "toarray",
        "todense",
        "round",
        "abs",
        "clip",
        "head",
        "tail",
        "infer_objects",
        "convert_dtypes",
        "sort_index",
        "applymap",
        "map",
        "apply",
        "where",
        "mask",
        "replace",
        "interpolate",
        "ffill",
        "bfill",
        "backfill",
        "pad",
        "lower",
        "upper",
        "strip",
        "split",
        "contains",
        "tolist",
        "to_list",
        "to_dict",
        "asfreq",
    ]
)
# How many steps a slice bound is followed through (sums, names, the arguments of the call being walked).
_BOUND_DEPTH = 8
# Aggregates of a resampler besides the reductions: a value per period of that period's rows.
_PERIOD_AGGREGATES = frozenset(["agg", "aggregate", "count", "size", "nunique", "first", "last", "ohlc", "prod"])
# Methods whose result has columns the walk cannot know.
_OTHER_COLUMNS = frozenset(
    [
        "rename",
        "filter",
        "select_dtypes",
        "reindex",
        "merge",
        "join",
        "pivot",
        "pivot_table",
        "melt",
        "stack",
        "unstack",
        "transpose",
        "explode",
        "get_dummies",
        "add_prefix",
        "add_suffix",
        "set_axis",
    ]
)
# Methods whose arguments' values are put into the table's rows (not only read to decide on them).
_FILLS = frozenset(["fillna", "fill_null", "where", "mask", "combine_first"])
_MASKS = frozenset(
    ["isin", "between", "notna", "isna", "notnull", "isnull", "duplicated", "contains", "startswith", "endswith"]
)
# Column names that say a time: what a table ordered by them is ordered by.
# (`ds`: Prophet's and statsforecast's column of dates; `ts`: a timestamp)
_TIME_NAME = re.compile(r"(?i)(date|time|stamp|datetime|(^|_)(dt|ds|ts|day|week|month|year|hour|period)(_|$))")


def is_time_name(name: str) -> bool:
    return _TIME_NAME.search(name) is not None


def in_time(data: Data) -> bool:
    """Whether values are times: a column read or converted as dates, or one whose name says a time."""
    return bool(data.sources & data.dates) or any(is_time_name(s) for s in data.sources)


class Frames(WalkState):
    """Selections, methods and assignments of tables and arrays."""

    def __init__(self, program: Program) -> None:
        super().__init__(program)
        self._group_cuts: dict[str, str] = {}  # a grouping as written -> the cut its head(k) and tail(k) sides make
        self._index_calls: dict[int, ast.Call] = {}  # `df.loc[is_test]`: the call of the function each such index makes

    # Attributes -------------------------------------------------------------------------------------------

    def data_attribute(self, data: Data, attr: str, node: ast.Attribute) -> Value:
        if attr == "columns" and data.columns is not None:
            return Value(names_of=replace(data.columns, listed_from=frozenset(a.origin for a in data.rows)))
        if attr == "index":  # the rows' labels: to select the same rows elsewhere, or to build a table on them
            # (labels numbered anew by reset_index no longer name the part they were given to)
            # (and hold no column's values: a column filled from later rows is not in them)
            labelled = data.labelled()
            later = frozenset(f for f in labelled.later if f[1] is None)
            rows = replace(labelled, columns=None, sources=frozenset(), mask=None, picked=False, later=later)
            return Value(parts=frozenset(a.parts[-1] for a in rows.rows if a.parts), data=rows)
        if attr in ("values", "array", "T", "str", "dt", "cat", "loc", "iloc", "at", "iat"):
            if attr == "T":  # df.T, as df.transpose(): a table whose columns were its rows' labels
                return Value(data=data.turned())
            if attr == "str" and data.picked:  # df["Churn"].str: pandas gives text columns alone this accessor
                return Value(data=replace(data, textual=data.textual | data.sources))
            return Value(data=data)
        if attr in _TABLE_ATTRIBUTES or attr.startswith("_"):
            return NOTHING
        if attr in GRAPH_MASKS and data.rows and not any(a.parts for a in data.rows):
            # a PyTorch Geometric graph's data.train_mask and data.test_mask: the nodes of the sides of the split its
            # data set was published with, one split for all its masks
            key = frozenset(a.origin for a in data.rows)
            if key not in self.graph_masks:
                self.graph_masks[key] = self.split(node, "the graph's masks", False, data, published=True)
            return Value(parts=frozenset({Part(self.graph_masks[key], GRAPH_MASKS[attr])}))
        if attr == "codes" and isinstance(node.value, ast.Attribute) and node.value.attr == "cat":
            return Value(data=replace(data, mask=None, against_truth=False, number=True))  # a category's number
        if data.columns is None:  # an attribute of values that are not a table (encoded.ids): the same rows
            return Value(data=replace(data, mask=None, against_truth=False))
        return Value(data=self.column(data, attr))

    def column(self, data: Data, name: str) -> Data:
        """One column of a table: its rows, named by the column (what it was computed from stays with the table)."""
        number = data.columns is not None and name in data.columns.numbers
        held = frozenset(m for c, m in data.predictions if c == name)  # a column a model's predictions were put in
        # top["renewed"] of a table sorted by its predictions: the labels of the rows ranked first, scored by them
        scored = bool(data.ranked) and not held and data.columns is not None
        # a groupby's column: still grouped; the fits other columns carry are not in its values
        return replace(
            data,
            predicted=data.predicted | held | (data.ranked if scored else frozenset()),
            against_truth=scored,
            ranked=frozenset(),
            fed=(data.fed or frozenset()) if held and data.fed is None else data.fed,
            columns=None,
            sources=frozenset({name}),
            mask=None,
            picked=True,
            number=number,
            fits=data.one_column(name),
            by_column=frozenset(e for e in data.by_column if e[1] == name),
            later=frozenset(f for f in data.later if f[1] in (None, name)),
        )

    # Methods ----------------------------------------------------------------------------------------------

    def data_method(
        self, receiver: Value, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        data = receiver.data
        assert data is not None
        func = node.func
        target = func.value if isinstance(func, ast.Attribute) else None
        stats = frozenset().union(*(v.stats for v in [*args, *kwargs.values()])) if args or kwargs else frozenset()
        inplace = kwargs.get("inplace")
        if name in ("insert", "update") and target is not None and not data.picked:
            return self._changed_in_place(receiver, target, name, args, kwargs, node, stats)
        result = self._method(data, name, args, kwargs, node, stats)
        if result is None:  # a method the walk does not know: the same rows, with what its arguments carry, and
            # columns it cannot name (it may select some: a label it would say is kept may not be)
            columns = Columns(opaque=True) if data.columns is not None else None
            result = Value(data=replace(self.with_fits(data, stats), mask=None, grouped=False, columns=columns))
        if result.data is not None and name in ("sub", "subtract") and args and own_taken_out(receiver, args[0]):
            # g.cumsum().sub(df["won"]): the running total less the row's own value, the earlier rows' only
            result = replace(result, data=replace(result.data, past=True, running=frozenset()))
        along = frozenset().union(*(v.data.sideways for v in [*args, *kwargs.values()] if v.data is not None))
        if result.data is not None and along:  # expr.sub(expr.mean(axis=1), axis=0): each row less its own mean
            result = replace(result, data=replace(result.data, sideways=result.data.sideways | along))
        if result.data is not None and name in _FILLS_FROM:
            # s.fillna(s.shift(-1)), s.combine_first(s.bfill()): the values given come from later rows
            given = frozenset(f for v in [*args, *kwargs.values()] if v.data is not None for f in v.data.later)
            result = replace(result, data=replace(result.data, later=result.data.later | given))
        if result.data is not None and (
            _from_later_rows(name, args, kwargs) or (data.reversed and _from_earlier_rows(name, args, kwargs))
        ):
            # s[::-1].rolling(5).mean()[::-1]: a trailing window of the reversed rows is a window ahead of each
            result = replace(result, data=replace(result.data, later=result.data.later | {(node.lineno, None)}))
            if name in ("shift", "diff", "pct_change"):
                self.record.leads.add(node.lineno)
                periods = (args[0] if args else kwargs.get("periods", NOTHING)).const
                if isinstance(periods, int) and not data.reversed:
                    self.record.lead_rows[node.lineno] = -periods
        if inplace is not None and inplace.const is True and target is not None and result.data is not None:
            column = self._column_of(target, data)
            if column is not None:  # df["age"].fillna(df["age"].mean(), inplace=True): that column of df changed
                self.store_item(column, result, node)
            else:
                self.mutate(target, replace(receiver, data=result.data))
            return NOTHING
        return result

    def _changed_in_place(
        self,
        receiver: Value,
        target: ast.expr,
        name: str,
        args: list[Value],
        kwargs: dict[str, Value],
        node: ast.Call,
        stats: frozenset[int],
    ) -> Value:
        """`df.insert(0, "z", values)` stores a column as `df["z"] = values` does; `df.update(other)` writes
        other's values into df: the table changes in place, with what they were computed from."""
        assert receiver.data is not None
        if name == "insert":
            column = args[1] if len(args) > 1 else kwargs.get("column", NOTHING)
            value = args[2] if len(args) > 2 else kwargs.get("value", NOTHING)
            named = [c for c in column.consts if isinstance(c, str)]
            if len(named) == 1 and len(column.consts) == 1:
                stored = ast.copy_location(ast.Subscript(target, ast.Constant(named[0]), ast.Store()), node)
                self.store_item(stored, value, node)
                return NOTHING
        given = _fits_of([*args, *kwargs.values()])
        other = args[0].data.columns if name == "update" and args and args[0].data is not None else None
        mine = receiver.data.columns
        if other is not None and other.base is not None and not other.opaque and mine is not None and not mine.opaque:
            # df.update(df[["age"]].fillna(m)): only the columns of the table given are written
            data = receiver.data.in_columns(stats | given, sorted(other.base - other.removed))
            self.mutate(target, replace(receiver, data=replace(data, mask=None)))
            return NOTHING
        data = self.with_fits(receiver.data, stats | given)
        columns = Columns(opaque=True) if name == "insert" and data.columns is not None else data.columns
        self.mutate(target, replace(receiver, data=replace(data, columns=columns, mask=None)))
        return NOTHING

    def _column_of(self, target: ast.expr, data: Data) -> ast.Subscript | None:
        """A table's column a method changes in place, as the subscript that stores it: `df["age"]`, `df.age`
        (None: the table itself, or values that are not a column of one)."""
        if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Name):
            # `for c in cols: df[c].fillna(df[c].mean(), inplace=True)`: a column named by a variable, as
            # `df[c] = df[c].fillna(...)` stores it, whether or not its names are known (`for c in self.cols`);
            # not rows chosen by a mask (`df[mask]` is a copy)
            key = self.ev(target.slice)
            return target if key.data is None and all(isinstance(c, str) for c in key.consts) else None
        if not data.picked:
            return None
        if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant):
            return target if isinstance(target.slice.value, str) else None
        if isinstance(target, ast.Attribute) and target.attr not in _TABLE_ATTRIBUTES:
            written = ast.Subscript(target.value, ast.Constant(target.attr), ast.Load())
            return ast.copy_location(written, target)
        return None

    def _method(
        self,
        data: Data,
        name: str,
        args: list[Value],
        kwargs: dict[str, Value],
        node: ast.Call,
        stats: frozenset[int],
    ) -> Value | None:
        line = node.lineno
        if name == "drop":
            return self._drop(data, args, kwargs)
        if name == "query" and args and isinstance(args[0].const, str):
            queried = self._queried(data, args[0].const, node)
            if queried is not None:
                return Value(data=self.with_fits(queried, stats))
        taken_out = self._taken_out(data, name, args, kwargs, node, stats)
        if taken_out is not None:
            return taken_out
        if name == "pipe" and node.args:
            piped = self._piped(data, args, kwargs, node)
            if piped is not None:
                return piped
        if name == "transform" and data.columns is None and data.picked and not data.grouped and node.args:
            # s.transform(lambda s: s.fillna(s.median())): pandas gives the function the whole column when it
            # fails on one value, so a statistic it takes is of every row
            whole = self._column_wise(data, args[0], node)
            if whole is not None:
                return whole
        if name in ("apply", "transform") and data.columns is not None and not data.grouped and node.args:
            axis = kwargs.get("axis")
            if axis is None or axis.const in (0, "index"):
                each = self._column_wise(data, args[0], node)
                if each is not None:
                    return each
        if name == "rank" and not data.grouped and not data.predicted:
            axis = kwargs.get("axis")
            # a row's rank (or percentile) says where it stands among every row given; along each row (axis=1),
            # among its columns: its own, until the table is turned
            fid = self.fit(node, f"{self.text(node.func)}()", "the rank among the rows", Strength.STATISTICS, data)
            if axis is None or axis.const in (0, "index"):
                return Value(data=replace(data, fits=data.fits | {fid}, mask=None))
            return Value(data=replace(data, sideways=data.sideways | {fid}, mask=None))
        if name == "pop" and args and isinstance(args[0].const, str):
            column = str(args[0].const)
            func = node.func
            if data.columns is not None and isinstance(func, ast.Attribute):
                self.mutate(
                    func.value, Value(data=replace(data, columns=data.columns.without([column])).pruned(data.columns))
                )
            return Value(data=self.column(data, column))
        axis = kwargs.get("axis") or kwargs.get("dim") or (args[0] if args else None)
        if name in ("mean", "sum", "average") and data.against_truth and within_rows(axis):
            # ((ae(X) - X) ** 2).mean(dim=1): each row's error, a score per row as a prediction is, not a metric
            return Value(data=replace(data, columns=None, against_truth=False, mask=None))
        if name in ("mean", "sum", "average") and data.against_truth:
            eid = self.evaluation(node, f"{self.text(node.func)}()", data.predicted, data, None)
            return Value(scores=frozenset({eid}))
        if data.window and (name in ROW_REDUCTIONS or name in ("agg", "aggregate", "apply", "count")):
            # one value per row; a window's sum of a column is a running total of it (less the row's own: earlier)
            running = data.sources if name == "sum" and data.picked and not data.past else frozenset()
            # a window's count of rows holds none of their values (`s.expanding().count() - 1`: rows before)
            counted = data.past or name == "count"
            return Value(data=replace(data, window=False, grouped=False, columns=None, running=running, past=counted))
        if (name in ROW_REDUCTIONS or name in _PERIOD_AGGREGATES) and self._of_resampler(node):
            # daily.resample("W").sum(): a row per period, each made of that period's own rows (none learned from
            # the others), with the columns they had
            periods = replace(
                self.source(node, self.text(node)),
                columns=data.columns,
                dates=data.dates,
                sources=data.sources,
                picked=data.picked,
            )
            return Value(data=self.with_fits(periods, data.fits | stats))
        if name in ROW_REDUCTIONS or (data.grouped and name in ("agg", "aggregate", "count", "size", "nunique")):
            if data.predicted or data.each_row:
                return Value(data=replace(data, columns=None, grouped=False))
            if within_rows(axis):
                # df.mean(axis=1): each row's own value, a statistic across the columns, which are the rows once the
                # table is turned (expr.mean(axis=1) of genes by samples, then `.T`)
                fid = self.fit(node, self.text(node), f"the {name} across the columns", Strength.STATISTICS, data)
                return Value(data=replace(data, columns=None, grouped=False, sideways=data.sideways | {fid}))
            what = f"{self.text(node.func)}()"
            # g["y"].mean() of each group a loop over df.groupby("k") meets, df.groupby("k")["a"].agg(...): one
            # statistic per group
            per_group = data.one_group or (data.grouped and bool(data.group_key))
            learns = PER_GROUP if per_group else f"the {name} of the rows"
            by = data.group_key if per_group else frozenset()
            fid = self.fit(node, what, learns, Strength.STATISTICS, data, by=by)
            if data.grouped and name == "transform":
                return Value(data=_group_statistic(data, fid))
            if data.grouped and data.group_key:
                # orders.groupby("customer_id")[["n", "y"]].max(): a table of one row per group, to look values up
                # in (the statistic) or to split and learn from as rows of its own
                return Value(stats=frozenset({fid}), data=self._groups_table(data, node))
            return Value(stats=frozenset({fid}))
        if not data.grouped and not data.predicted and _summary_of_rows(name, args, kwargs):
            # df.describe(), df.agg(["mean", "std"]): a table of each column's statistics over the rows, read back
            # by name (st.loc["mean"], st["std"]) to scale them
            what = f"{self.text(node.func)}()"
            fid = self.fit(node, what, SUMMARY_LEARNS, Strength.STATISTICS, data)
            return Value(stats=frozenset({fid}))
        if name in ("corr", "cov", "corrwith") and not data.grouped:
            axis = kwargs.get("axis")
            if axis is None or axis.const in (0, "index"):
                # a table of the columns against each other, learned from every row; columns kept by it
                # (`corr["y"].abs() > 0.1`) were chosen with those rows
                what = f"{self.text(node.func)}()"
                fid = self.fit(node, what, CORRELATION, Strength.STATISTICS, data)
                return Value(stats=frozenset({fid}))
        method_named = str(args[0].const) if args and isinstance(args[0].const, str) else None
        if args and args[0].names & {"builtins.min", "numpy.min", "numpy.amin"}:
            method_named = "min"  # transform(min), transform(np.min): as transform("min")
        if data.grouped and name == "transform" and method_named == "min" and _dates_only(data):
            # each user's first order time: the earliest of the rows at or before each one, as cummin() is
            return self.data_method(Value(data=data), "cummin", args[1:], kwargs, node)
        if data.grouped and name == "transform" and method_named in _ROW_ORDER_METHODS:
            # g.transform("shift"), g.transform("shift", -1): the method itself, of each group's rows in order
            return self.data_method(Value(data=data), str(method_named), args[1:], kwargs, node)
        if data.grouped and name in ("transform", "apply") and node.args and not isinstance(node.args[0], ast.Constant):
            return self._per_group(data, args[0], node)
        if name == "value_counts" and not data.grouped and not data.each_row:
            # each value's count over the rows (frequency encoding, `s.map(s.value_counts())`), as a group's size
            # is: learned from those rows; a row kept or dropped by it is not chosen by its own values
            fid = self.fit(node, f"{self.text(node.func)}()", PER_GROUP, Strength.STATISTICS, data)
            return Value(stats=frozenset({fid}))
        if data.grouped and name == "transform":
            what = f"{self.text(node.func)}()"
            fid = self.fit(node, what, PER_GROUP, Strength.STATISTICS, data, by=data.group_key)
            return Value(data=_group_statistic(data, fid))
        if name == "resample" and args:  # df.resample("W"): its rows, to be aggregated a period at a time
            return Value(data=replace(self.with_fits(data, stats), mask=None, grouped=False))
        if name in ("groupby", "group_by"):  # pandas, polars
            keys = argument(args, kwargs, 0, "by").strings()
            return Value(data=replace(data, grouped=True, mask=None, group_key=frozenset(keys or ())))
        if name in ("sort_values", "nlargest", "nsmallest") and data.predictions:
            # test.sort_values("p"), test.nlargest(k, "p") by a column of a model's predictions: its rows ranked by
            # that model, the labels of the first of them a score of it
            ordering = argument(args, kwargs, 1 if name != "sort_values" else 0, "by", "columns").strings() or []
            ranked = frozenset(m for c, m in data.predictions if c in ordering)
            if ranked and name != "sort_values":
                return Value(data=replace(data, ranked=data.ranked | ranked, mask=None, grouped=False))
            if ranked:
                return Value(data=replace(self._ordered(data, name, args, kwargs, line), ranked=data.ranked | ranked))
        if name in ("sort_values", "sort_index", "set_index"):
            return Value(data=self._ordered(data, name, args, kwargs, line))
        if name in TIME_FEATURE_METHODS or name in _RUNNING or name == "cumcount":
            return Value(data=self._time_feature(data, name, args, kwargs, line))
        if name == "sample":
            return self._sample(data, kwargs, node)
        if name == "reset_index":
            return Value(
                data=replace(self.with_fits(data, stats), renumbered=_renumbered(data, line), mask=None, grouped=False)
            )
        if name == "train_test_split":  # a Hugging Face Dataset's: a DatasetDict of "train" and "test" rows
            shuffle = kwargs.get("shuffle")
            shuffled = not (shuffle is not None and shuffle.const is False)
            sid = self.split(node, "Dataset.train_test_split", shuffled, data)
            return Value(data=named_parts(data, sid, ("train", "test")))
        if name == "between" and not in_time(data):
            self.threshold(node, stats)  # s.between(s.quantile(0.01), s.quantile(0.99)): bounds learned from rows
        if name in _MASKS:
            # whether each text holds a word of a learned vocabulary (str.contains(w)) holds that vocabulary
            # isin(test_ids) of test_ids = set(ids[:30]); between(CUT - GAP, END) of instants held in names
            bounded = self.instants_written(node) if name == "between" else self.members_written(node)
            mask = self.whole(bounded)
            return Value(data=replace(self.with_fits(data, stats), mask=mask, predicted=frozenset()))
        if name == "assign":
            columns = data.columns
            held = {(k, m) for k, v in kwargs.items() if v.data is not None for m in v.data.predicted}
            data = replace(data, predictions=data.predictions | held)  # assign(p=model.predict_proba(X)[:, 1])
            for key, value in kwargs.items():
                # the neighbours' labels, each row itself left out (y[ind[:, 1:]]), are not the row's own label, nor
                # is a lag of it (assign(kwh_lag=y.shift(1)): earlier rows')
                own = value.data is not None and not value.data.elsewhere and not value.data.past
                sources = value.data.sources if value.data is not None and own else frozenset()
                if columns is not None:
                    columns = columns.adding(key, sources)
                    self.column_made(key, node)
            fits = _fits_of(kwargs.values())
            stored = dict(kwargs)
            for keyword in node.keywords:
                if isinstance(keyword.value, ast.Lambda):  # assign(z=lambda t: ...): called with the table
                    made = self.call_lambda(keyword.value, [Value(data=data)])
                    fits |= self._fits_within(made)
                    if keyword.arg is not None:
                        stored[keyword.arg] = made
            written = {k.arg for k in node.keywords if isinstance(k.value, ast.Lambda)}
            for key, function in kwargs.items():
                if key in written or not function.functions or function.data is not None:
                    continue
                # assign(z=make_z): a function of the file given is called with the table, as pandas calls it;
                # so is each lambda of a dict spread, `assign(**{"a_z": lambda d: ...})` or a name holding one
                made = self.call_value(Value(functions=function.functions), [Value(data=data)], {}, node)
                fits |= self._fits_within(made)
                stored[key] = function.join(made)
            # assign(temp=df.temp.bfill()): values from later rows, in the column they are stored in
            later = {
                (line, None if key == "**" else key)
                for key, v in stored.items()
                if v.data is not None
                for line, _ in v.data.later
            }
            if "**" in kwargs:  # **{col + "_n": ...}: columns of names the walk cannot know
                columns = Columns(opaque=True) if data.columns is not None else None
            assigned = self.with_fits(data, stats | fits)
            return Value(data=replace(assigned, columns=columns, later=assigned.later | later))
        if name == "astype" and args:
            kind = str(args[0].const if args[0].const is not None else next(iter(args[0].names), ""))
            if "datetime" in kind:
                return Value(data=replace(data, dates=data.dates | data.sources))
            if any(k in kind.lower() for k in ("int", "float", "bool", "uint")):
                return Value(data=replace(data, number=True, mask=None, grouped=False))
        side = _group_side(name, node) if data.grouped else None
        if side is not None and isinstance(node.func, ast.Attribute):
            # df.groupby("user").tail(1): each group's last rows, a side of one cut made within every group: its
            # head(k) and tail(j) are the two sides (the rest is what ~df.index.isin(it.index) or drop leaves)
            grouping = self.whole(node.func.value)
            if grouping not in self._group_cuts:
                self._group_cuts[grouping] = self.split(node, f"{grouping}.{name}", False, replace(data, grouped=False))
            part = Part(self._group_cuts[grouping], side)
            return Value(data=replace(data.with_parts(part), grouped=False, mask=None))
        if name in ("head", "tail") and not data.grouped:
            # df.tail(200) is df.iloc[-200:], df.head(n) df.iloc[:n] (five rows when not told)
            told = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "n"), None)
            count = self.ev(told).const if told is not None else 5
            span: tuple[str, Bound, Bound] | tuple[()] = ()
            if type(count) is int and count > 0:
                span = (
                    (POSITIONS, (OPEN, 0, True), ("", count, False))
                    if name == "head"
                    else (POSITIONS, ("<end>", -count, True), (OPEN, 0, True))
                )
            elif told is not None and name == "head":
                # df.head(len(df) - 365): every row but the last 365, as iloc[:-365]
                table = ast.unparse(node.func.value) if isinstance(node.func, ast.Attribute) else ""
                back = self.before_end(told, table) if table else None
                bound = ("<end>", back, False) if back is not None else self._bound(told, False, upper=True)
                span = (POSITIONS, (OPEN, 0, True), bound) if bound is not None else ()
            split = self._part_split(SLICE, node, data) if not data.shuffled else self._shuffled_cut(data, node)
            return Value(data=replace(data, rows=_cut_each(data.rows, split, name, span), mask=None))
        if name in ("split_before", "split_after") and (args or kwargs):
            # darts' series.split_before(0.8): the steps before a point and those from it, two sides of one cut
            split = self._part_split(SLICE, node, data)
            sides = [replace(data, rows=frozenset(_sliced(a, split, s) for a in data.rows), mask=None) for s in _SIDES]
            return Value(items=tuple(Value(data=d) for d in sides))
        if name in ("take", "skip") and _counted(args, kwargs):
            # tf.data's take(n) and skip(n): the first n elements and the rest, as [:n] and [n:] are
            split = self._part_split(SLICE, node, data)
            side = "head" if name == "take" else "tail"
            return Value(data=replace(data, rows=frozenset(_sliced(a, split, side) for a in data.rows)))
        one_function = name in ("map", "apply") and len(node.args) == 1
        applied_by = args[0].functions if one_function and not data.grouped else set()
        if one_function and (isinstance(node.args[0], ast.Lambda) or len(applied_by) == 1):
            # ds.map(lambda t, y: (vectorize(t), y)), s.apply(lambda t: tok.encode(t).ids), s.apply(doc_vector) of
            # a function of the file: what was fitted elsewhere and is applied to each element is in the result;
            # what the body itself computes from an element (r / r.sum()) is not a fit over the rows, so fits made
            # while reading the body are left out.
            before = set(self.record.fits)
            element = Value(data=replace(data, each_row=True))
            if isinstance(node.args[0], ast.Lambda):
                body = self.call_lambda(node.args[0], [element] * len(node.args[0].args.args))
            else:
                body = self.call_function(next(iter(applied_by)), [element], {}, node)
            applied = frozenset(f for f in self._fits_within(body) if f in before) - data.fits
            if applied or applied_by:
                # one value per row of the rows given (s.apply(f) is all of them, not the row f was read with)
                return Value(data=replace(data, fits=data.fits | applied, mask=None, grouped=False, each_row=False))
        if name == "map" and args and _numbers_of(self.record, args[0]):
            # map({"A": 1, "B": 1, "C": 0}): numbers made of a column of texts, which stays text in its table
            texts = frozenset(data.sources) if data.picked and _texts_mapped(self.record, args[0]) else frozenset()
            mapped = replace(self.with_fits(data, stats), number=True, mask=None, grouped=False)
            return Value(data=replace(mapped, textual=mapped.textual | texts))
        if name == "rename" and data.columns is not None:
            renamed = self._renamed(data.columns, args, kwargs)
            if renamed is not None:
                # a column read as dates holds dates under its new name (`rename(columns={"date": "ds"})`)
                dates = data.dates | {new for old, new in renamed[1] if old in data.dates}
                return Value(data=replace(data, columns=renamed[0], dates=frozenset(dates), mask=None))
        if name == "to_frame" and data.columns is None and not args and data.picked and len(data.sources) == 1:
            # df["views"].to_frame(): a table of that one column, under its name, to which columns are then added
            (column,) = data.sources
            ahead = frozenset((line, column) for line, _ in data.later)
            return Value(data=replace(data, columns=Columns(base=frozenset({column})), later=ahead, mask=None))
        if name in ("rename", "to_frame") and data.columns is None and args and isinstance(args[0].const, str):
            # y.shift(-1).rename("y"), joined beside the features: its values from later rows are that column's only
            named = frozenset((line, str(args[0].const)) for line, _ in data.later)
            return Value(data=replace(data, later=named, mask=None))
        if name in ("with_columns", "select") and data is not None:
            # a polars expression that reduces a column (`pl.col("x").mean()`, `.median().over("city")`) is a
            # statistic of the rows of the frame it is evaluated in
            # ... and a statistic computed apart, given to an expression, also in a list of them
            # (`[pl.col(c).fill_null(means[c]) for c in cols]`)
            stats = stats | self._polars_statistics(node, data) | self.stats_in([*args, *kwargs.values()])
        if name == "with_columns" and data.columns is not None:
            # polars adds (or replaces) the columns its expressions name; the others stay as they were
            # (what each new column is computed from is read only of an expression of each row's own values: a
            # lag of the label is not the label)
            columns = data.columns
            for expr in node.args:
                for added in _aliases(expr):
                    columns = columns.adding(added, _row_wise_reads(expr))
            for added in (k.arg for k in node.keywords if k.arg):
                columns = columns.adding(added, ())
            # values given as they are (pl.Series("a", X[:, 0]) of scaled rows) bring what they were fitted on
            given = _fits_of([*args, *kwargs.values()])
            return Value(data=replace(self.with_fits(data, stats | given), columns=columns, mask=None))
        if name == "filter" and node.args and not kwargs and args[0].strings() is None:
            # polars' filter(expression) keeps rows, not columns (pandas' filter takes names, like= or regex=);
            # filter(~pl.col("id").is_in(train["id"])) keeps the rest once train's rows are taken out
            rest = self._polars_not_in(node.args[0], data) if len(node.args) == 1 else None
            remaining = replace(data, rows=rest) if rest is not None else data
            condition = self._polars_condition(node.args[0]) if rest is None and len(node.args) == 1 else None
            if condition is not None:  # filter(pl.col("date") < cut): a side of a mask, as df[df["date"] < cut] is
                remaining = self._cut_by(data, condition[0], condition[1], node)
            return Value(data=replace(self.with_fits(remaining, stats), mask=None, grouped=False))
        if name in ("select", "drop") and not kwargs and len(node.args) == 1:
            excluded = self._polars_exclude(node.args[0])
            if excluded is not None:  # select(pl.exclude("id", ...)): every column but those named
                without = (data.columns or Columns()).without(excluded) if name == "select" else Columns()
                return Value(data=replace(data, columns=without, mask=None))
        along = kwargs.get("axis", NOTHING).const
        if name == "filter" and "items" in kwargs and along in (None, 1, "columns"):
            # pandas' df.filter(items=["a", "risk_flag"]): those columns, as df[["a", "risk_flag"]] (of the ones
            # the table holds)
            listed = kwargs["items"].strings()
            if listed is not None:
                return Value(data=replace(data, columns=(data.columns or Columns()).only(listed), mask=None))
        pattern = next((kwargs[k].const for k in ("like", "regex") if k in kwargs), None)
        if name == "filter" and isinstance(pattern, str) and along in (None, 1, "columns") and data.columns is not None:
            # df.filter(like="risk"), regex="^(num_|risk_)": the columns whose names it matches, a label among them
            matched = re.escape(pattern) if "like" in kwargs else pattern
            return Value(data=replace(data, columns=replace(data.columns, matched=matched), mask=None))
        if name == "select" and args and all(a.strings() is not None for a in args):
            kept = [n for a in args for n in a.strings() or []]
            return Value(data=replace(data, columns=(data.columns or Columns()).only(kept), mask=None))
        if name == "select" and stats:  # select(expressions) with a statistic among them: new columns
            return Value(data=replace(self.with_fits(data, stats), columns=Columns(opaque=True), mask=None))
        if name == "drop_duplicates":
            site = self.site(node)
            if all(d[0] != site for d in self.record.dedups):
                self.record.dedups.append((site, data.rows))
        if name == "drop_duplicates" and data.ordered:  # sorted to keep one row per key, not to be a series
            return Value(data=replace(self.with_fits(data, stats), ordered=frozenset(), mask=None, grouped=False))
        if name == "select_dtypes":
            chosen_kind = dtype_choice(args, kwargs)
            columns = data.columns or Columns()
            usable = chosen_kind is not None and not columns.opaque
            chosen = (
                replace(columns, dtypes=chosen_kind, dtypes_at=frozenset({node.lineno}))
                if usable
                else Columns(opaque=True)
            )
            return Value(data=replace(data, columns=chosen, mask=None))
        if name in _OTHER_COLUMNS:
            other = data_of([*args, *kwargs.values()])
            if other is not None and name == "join":  # X.join(df["kwh"]): that column beside X's
                other = named_column(other)
            joined = data if other is None or name not in ("merge", "join") else data.join(other)
            # a.merge(b) and a.join(b) hold the columns of both tables, as pd.merge(a, b) does (a column of both
            # that is not a key is renamed with a suffix; one read by its own name afterwards is no such column)
            columns = (
                data.columns.join(other.columns)
                if joined is not data and data.columns is not None and other is not None and other.columns is not None
                else OPAQUE
            )
            others = replace(self.with_fits(joined, stats), columns=columns, mask=None)
            return Value(data=others.turned() if name == "transpose" else others)  # df.transpose(), as df.T
        filled_with = _fills_with_statistic(node) if name == "fill_null" else None
        if filled_with is not None:
            # polars' df.fill_null(strategy="mean"): each column's mean over the rows given
            learns = f"the {filled_with} of the rows"
            fid = self.fit(node, f"{self.text(node.func)}()", learns, Strength.STATISTICS, data)
            return Value(data=replace(self.with_fits(data, stats | {fid}), mask=None, grouped=False))
        if name in _SAME_TABLE:
            if name in _FILLS:  # fillna(group_means): the values filled in carry what they were computed from
                by_column = self._fills_by_column([*args, *kwargs.values()]) if name == "fillna" else None
                if by_column is not None and data.columns is not None and not data.columns.opaque:
                    # fillna({"cabin": mode}): each statistic is in the column it fills, not in the others
                    filled = data
                    for column, fits in by_column.items():
                        filled = filled.in_columns(fits, (column,))
                    return Value(data=replace(self.with_fits(filled, stats), mask=None, grouped=False))
                stats = stats | self._filled_from([*args, *kwargs.values()])
            if name in ("map", "replace") and args:
                # df["k"].map(rate), rate a table of one value per group (groupby(...).apply(...)) or a dict filled
                # with a statistic per key: the values looked up carry what they were computed from
                looked_up = args[0].data.fits - data.fits if args[0].data is not None else frozenset()
                stats = stats | looked_up | self.stats_in(args[:1])
            # (df.split == "test").to_numpy(): the same booleans, still the mask they were
            still = data.mask if name in _MASK_KEPT else None
            as_rows = Value(data=replace(self.with_fits(data, stats), mask=still, grouped=False))
            if name in ("tolist", "to_list") and data.rows and not args:
                # s[:-60].tolist(): a list of the rows, as list(s[:-60]) is, that rows appended to then hold
                return Value(objects=frozenset({self.container(node, self.iterate(as_rows)).id})).join(as_rows)
            return as_rows
        return None

    def _queried(self, data: Data, condition: str, node: ast.Call) -> Data | None:
        """`df.query("date < @cutoff")`: the rows where the condition holds, one side of a mask over the columns it
        names, as `df[df["date"] < cutoff]` is (None: a condition that is not Python once its @ are dropped)."""
        local = set(re.findall(r"@(\w+)", condition))
        try:
            tree = ast.parse(condition.replace("@", ""), mode="eval")
        except SyntaxError:
            return None
        columns = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - local)
        # `@cut` read as the value it holds here, when known: bounds then compare by value, as a mask's do
        taken = {name: self._taken(name, node) for name in local}
        # an instant a name was made (`cut = pd.Timestamp("2023-06-01")`) as that call, else its one constant
        known = {name: self.instant_held(defs) or value.const for name, (defs, value) in taken.items()}
        plain: dict[str, str | int | float | ast.expr] = {
            k: v for k, v in known.items() if isinstance(v, str | int | float | ast.expr) and not isinstance(v, bool)
        }
        tree = _Substituted(plain).visit(tree)
        cut = self._cut_by(data, ast.unparse(tree), ",".join(columns) or "rows", node, frozenset(local))
        compared = any(isinstance(n, ast.Compare) for n in ast.walk(tree))
        timed = bool(set(columns) & data.dates) or any(is_time_name(c) for c in columns)
        if compared and not timed:
            # `query("fare < @hi")`, hi a quantile of every fare: the rows kept were chosen by a statistic of them
            # (a window back from the last date only places a cut in time, as for a mask)
            chosen = stats_of([value for _, value in taken.values()]) - data.fits
            cut = self._kept_by(frozenset(f for f in chosen if self.record.fits[f].learns != PER_GROUP), cut)
        return replace(cut, mask=None)

    def _taken(self, name: str, node: ast.Call) -> tuple[list[Any], Value]:
        """The definitions that reach a query's `@name` where the query is called, and the value it holds there
        (no Name node of the program reads it: the names module gives the call a use of its own). A query text
        the call does not write (held by a name) is read only at the module's level, where no local name can
        hide the one meant."""
        use = self.names.taken.get(node, {}).get(name)
        if use is not None:
            defs = self.names.definitions(use)
            if self.calls and defs and all(not isinstance(d, ast.AST) or d in self.names.module_level for d in defs):
                defs = list(self.current.get(name, defs))  # a module-level name read in a function, as lookup does
            return defs, self.ev(use)
        if self.calls:
            return [], NOTHING
        defs = list(self.current.get(name, []))
        return defs, join_all([self.defs.get(d, NOTHING) for d in defs])

    def _fills_by_column(self, given: list[Value]) -> dict[str, frozenset[int]] | None:
        """The statistics a dict of fill values puts in each column it names (`fillna({"age": df["age"].mean()})`);
        None unless the values given are one dict whose every statistic is under a column's name."""
        dicts = [
            self.record.objects[o]
            for v in given
            for o in v.objects
            if o in self.record.objects and self.record.objects[o].qualname == CONTAINER
        ]
        if len(dicts) != 1 or any(v.data is not None or v.stats for v in given):
            return None
        entries = dicts[0].entries
        if not entries or not all(isinstance(k, str) for k in entries):
            return None
        each = {str(k): _carried(v) for k, v in entries.items()}
        every = _carried(dicts[0].elements)
        return each if every <= frozenset().union(*each.values()) else None

    def _filled_from(self, given: list[Value]) -> frozenset[int]:
        """The statistics the values given to a fill were computed from: a value's own, and those of the values
        of a dict or list given (`fillna({"age": df["age"].mean()})`)."""
        found: set[int] = set()
        for value in given:
            elements = [self.record.objects[o].elements for o in value.objects if o in self.record.objects]
            for each in (value, *elements):
                found |= _carried(each)
        return frozenset(found)

    def _piped(self, data: Data, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value | None:
        """`df.pipe(f, *args, **kw)` is `f(df, *args, **kw)`; `df.pipe((f, "data"), ...)` gives the table as
        the keyword named (None: a function the walk does not know)."""
        table = Value(data=data)
        given = node.args[0]
        if isinstance(given, ast.Lambda):
            return self.call_lambda(given, [table, *args[1:]])
        function = args[0]
        named = dict(kwargs)
        positional = [table, *args[1:]]
        if isinstance(given, ast.Tuple) and len(given.elts) == 2 and function.items is not None:
            keyword = given.elts[1]
            if not (isinstance(keyword, ast.Constant) and isinstance(keyword.value, str)):
                return None
            function = function.items[0]
            named[keyword.value] = table
            positional = args[1:]
        if not function.functions and not function.names:
            return None
        return self.call_value(function, positional, named, node)

    def _column_wise(self, data: Data, function: Value, node: ast.Call) -> Value | None:
        """`df.apply(f)` (axis 0) calls ``f`` with each column whole: a statistic it takes of the column
        (`c.mean()`, zscore) is learned from every row, reported once at the apply (None: nothing learned)."""
        given = node.args[0]
        column = Value(data=replace(data, columns=None, mask=None))
        before = set(self.record.fits)
        written: ast.AST | None = None
        if isinstance(given, ast.Lambda):
            written = given
            body = self.call_lambda(given, [column] * max(1, len(given.args.args)))
        elif function.functions or function.names:
            if len(function.functions) == 1:
                written = self.function_node(next(iter(function.functions)))
            body = self.call_value(function, [column], {}, node)
        else:
            return None
        learned = frozenset(f for f in self._fits_within(body) if f not in before)
        if not learned:
            return None
        if written is not None:  # one statistic at the call a reader sees, not each reduction inside it
            learned = frozenset(f for f in learned if not _written_in(self.record.fits[f].site, written))
            what = f"{self.text(node.func)}()"
            learned |= {self.fit(node, what, "a statistic of each column", Strength.STATISTICS, data)}
        return Value(data=replace(data, fits=data.fits | learned, mask=None, grouped=False))

    def _per_group(self, data: Data, function: Value, node: ast.Call) -> Value:
        """A function applied to each group's rows (`transform(lambda s: ...)`), read from what it calls: values of
        earlier rows (shift, rolling, cumsum) make a lag, a statistic of the group's rows (`s.fillna(s.mean())`)
        is learned from every row given, and anything else is a value per row, computed from the row's own."""
        given = node.args[0]
        group = Value(data=replace(data, grouped=False, mask=None))
        if isinstance(given, ast.Lambda):
            written: ast.AST | None = given
            body = self.call_lambda(given, [group] * len([*given.args.posonlyargs, *given.args.args]))
        elif len(function.functions) == 1:  # a function of the file: its body read with one group's rows
            fid = next(iter(function.functions))
            written = self.function_node(fid)
            body = self.call_function(fid, [group], {}, node)
        else:  # a library's function (np.log1p, zscore) is known by its name; another one is not known at all
            written, body = None, NOTHING
        if written is not None:
            called = _called_names(written)
            statistic = bool(called & GROUP_STATISTICS)
        else:
            called = {n.rpartition(".")[2] for n in function.names}
            statistic = bool(called & GROUP_STATISTICS) or any(_fit_function(n) for n in function.names)
        lagged = body.data.lagged - data.lagged if body.data is not None else frozenset()
        if called & EARLIER_ROWS or lagged:
            # a lag or a window: of earlier rows only when the walk saw it shifted (s.shift(1).rolling(5).mean());
            # a window over the row's own value (s.rolling(5).mean(), s.expanding().mean()) holds it, as it does
            # outside a group; what the walk could not follow is taken as earlier rows
            past = body.data.past if body.data is not None and lagged else True
            # s.shift(-1) in the function: the group's next values, as outside a group
            later = body.data.later if body.data is not None else data.later
            return Value(data=replace(data, grouped=False, past=past, lagged=data.lagged | {node.lineno}, later=later))
        fits = (body.data.fits if body.data is not None else frozenset()) | body.stats
        if statistic:  # one statistic of the group, at the call a reader sees (not each reduction inside it)
            if written is not None:
                fits = frozenset(f for f in fits if not _written_in(self.record.fits[f].site, written))
            what = f"{self.text(node.func)}()"
            fits |= {self.fit(node, what, PER_GROUP, Strength.STATISTICS, data, by=data.group_key)}
        # transform(lambda s: s.bfill()), lambda s: s.interpolate(): each group's values from its later rows
        later = data.later | (body.data.later if body.data is not None else frozenset())
        return Value(data=replace(self.with_fits(data, fits - data.fits), grouped=False, mask=None, later=later))

    def _taken_out(
        self,
        data: Data,
        name: str,
        args: list[Value],
        kwargs: dict[str, Value],
        node: ast.Call,
        stats: frozenset[int],
    ) -> Value | None:
        """The rows left once a sample or a split's part is taken out, written other than `df.drop(train.index)`:
        a mask of membership to negate (`df.index.isin(train.index)`, `df["id"].isin(train["id"])`), an index's
        difference, an anti-join, a merge whose indicator tells the rows found on one side only."""
        func = node.func
        receiver = func.value if isinstance(func, ast.Attribute) else None
        other = args[0] if args else NOTHING
        if name == "isin" and len(args) == 1 and not kwargs:
            taken = _members(data, other, receiver, node.args[0])
            # the list a name holds written out, or the slice of a sequence it holds (`set(ids[:30])`)
            text = self.whole(self.members_written(_members_written(node, args)))
            outside = (f"~({text})", taken) if taken else None
            worded = other.items is not None and any(isinstance(i.const, str) and a_word(i.const) for i in other.items)
            # df["Churn"].isin(["Yes", "yes"]): a column whose values are tested against words holds text
            textual = data.textual | (data.sources if worded and data.picked else frozenset())
            return Value(data=replace(data, mask=text, predicted=frozenset(), outside=outside, textual=textual))
        if name == "difference" and len(args) == 1 and _is_index(receiver) and other.parts and other.data is not None:
            rest = complement(data.rows, other.data.rows)
            if rest is None:
                return None
            parts = frozenset(a.parts[-1] for a in rest) if all(a.parts for a in rest) else frozenset()
            return Value(parts=parts, data=replace(data, rows=rest))
        if name not in ("merge", "join"):
            return None
        right = argument(args, kwargs, 0, "right", "other")
        how = kwargs.get("how", NOTHING).const
        if right.data is None or not _same_keys(kwargs):
            return None
        if how in ("anti", "left_anti"):  # polars' anti-join (pandas' left_anti): the rows with no match
            rest = complement(data.rows, right.data.rows)
            return Value(data=replace(self.with_fits(data, stats), rows=rest, mask=None)) if rest is not None else None
        indicator = kwargs.get("indicator", NOTHING).const
        if name == "merge" and how in ("left", "outer") and indicator not in (None, False):
            column = indicator if isinstance(indicator, str) else "_merge"
            taken = right.data.rows if all(a.parts for a in right.data.rows) else frozenset()
            if taken:  # `merged["_merge"] == "left_only"`: the rows of this table not in the other
                joined = replace(self.with_fits(data.join(right.data), stats), columns=Columns(opaque=True), mask=None)
                return Value(data=replace(joined, outside=(f"{INDICATOR}{column}", taken)))
        return None

    def _fits_within(self, value: Value, depth: int = 0) -> frozenset[int]:
        """The fits in ``value``, in its items and in the values of a dict it builds (a Hugging Face map's
        `lambda ex: {"z": (ex["x"] - mu) / sd}`)."""
        found = _fits_in(value) | value.stats
        if depth < 3:
            for oid in sorted(value.objects):
                for entry in self.record.objects[oid].entries.values():
                    found |= self._fits_within(entry, depth + 1)
        return found

    def _renamed(
        self, columns: Columns, args: list[Value], kwargs: dict[str, Value]
    ) -> tuple[Columns, list[tuple[str, str]]] | None:
        """rename(columns={"old": "new"}): each new name computed from the old one, and the (old, new) pairs (None:
        not a mapping read)."""
        mapping = kwargs.get("columns") or (args[0] if args and kwargs.get("axis") is not None else None)
        if mapping is None:
            return None
        pairs: list[tuple[str, str]] = []
        for oid in mapping.objects:
            found = self.record.objects[oid]
            pairs += [(k, v.const) for k, v in found.entries.items() if isinstance(k, str) and isinstance(v.const, str)]
            if len(pairs) != len(found.entries):
                return None
        if not pairs:
            return None
        for old, new in pairs:
            earlier = {src for name, src in columns.derived if name == old}
            # a column of numbers renamed holds numbers (select_dtypes("number") keeps it)
            columns = columns.without([old]).adding(new, {old, *earlier}, number=old in columns.numbers)
        return columns, pairs

    @staticmethod
    def _time_feature(data: Data, name: str, args: list[Value], kwargs: dict[str, Value], line: int) -> Data:
        """shift, rolling, diff, ...: values from other rows; of earlier rows only after shift(k > 0) or a window
        closed on the left (a lag of the label is a fair feature; a same-day window over it is not)."""
        lagged = data.lagged | {line}
        if name == "shift":
            periods = (args[0] if args else kwargs.get("periods", NOTHING)).const
            past = periods is None or (isinstance(periods, int) and not isinstance(periods, bool) and periods > 0)
            return replace(data, lagged=lagged, past=past, mask=None, grouped=False)
        if name in ("rolling", "ewm", "expanding"):
            closed = kwargs.get("closed")
            past = data.past or (closed is not None and closed.const in ("left", "neither"))
            return replace(data, lagged=lagged, window=True, past=past, mask=None, grouped=False)
        if name == "cumcount":  # each row's place in its group: how many rows came before, none of their values
            return replace(data, lagged=lagged, past=True, mask=None, grouped=False)
        if name in _RUNNING:  # s.cumsum(): every row up to and with this one (of earlier rows after a shift(1))
            running = data.sources if data.picked and not data.past else frozenset()
            return replace(data, lagged=lagged, past=data.past, running=running, mask=None, grouped=False)
        return replace(data, lagged=lagged, past=False, mask=None, grouped=False)  # diff, pct_change: today too

    def _polars_statistics(self, node: ast.Call, data: Data) -> frozenset[int]:
        """The reductions of columns inside a polars call's expressions: one fit on ``data``'s rows, at the call
        (the statement a reviewer reads and accepts), naming the first reduction."""
        reductions: list[ast.Call] = []
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            for inner in ast.walk(arg):
                if (
                    isinstance(inner, ast.Call)
                    and isinstance(inner.func, ast.Attribute)
                    and (inner.func.attr in POLARS_REDUCTIONS or _fills_with_statistic(inner) is not None)
                    and self._polars_expression(inner.func.value)
                ):
                    reductions.append(inner)
        if not reductions:
            return frozenset()
        # pl.col("x").max().over("qid"): a statistic of each query's rows, as a pandas group's transform is
        over: dict[int, frozenset[str]] = {}
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            for inner in ast.walk(arg):
                if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr == "over":
                    named = [a.value for a in inner.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
                    if named and len(named) == len(inner.args) and not inner.keywords:
                        over.update({id(r): frozenset(named) for r in ast.walk(inner.func.value)})
        reductions.sort(key=lambda r: (r.lineno, r.col_offset))
        names = list(dict.fromkeys(r.func.attr for r in reductions if isinstance(r.func, ast.Attribute)))
        what = f"{self.text(node.func)}({self.text(reductions[0])}{', …' if len(reductions) > 1 else ''})"
        by = {over.get(id(r)) for r in reductions}
        if len(by) == 1 and None not in by:
            keys = next(k for k in by if k is not None)
            # of the columns the reductions read (pl.col("x")), as a pandas group's column is: not the label's
            read: set[str] = set()
            for r in reductions:
                if isinstance(r.func, ast.Attribute):
                    read.update(_row_wise_reads(r.func.value))
            of = replace(data, sources=frozenset(read)) if read else data
            return frozenset({self.fit(node, what, PER_GROUP, Strength.STATISTICS, of, by=keys)})
        learns = f"the {' and the '.join(names)} of the rows"
        return frozenset({self.fit(node, what, learns, Strength.STATISTICS, data)})

    def _polars_expression(self, expr: ast.expr) -> bool:
        """Whether ``expr`` is a polars expression over columns: a chain of methods on `pl.col(...)`, `pl.all()`."""
        while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
            base = expr.func.value
            if expr.func.attr in ("col", "all", "exclude") and "polars" in self.ev(base).names:
                return True
            expr = base
        return False

    def _polars_condition(self, expr: ast.expr) -> tuple[str, str] | None:
        """A polars filter's condition written as a mask over a table's columns (`pl.col("date") < cut` as
        `df['date'] < '2023-06'`, a name read as the constant it holds) and the columns it reads; None when it
        compares no column."""
        if not isinstance(expr, ast.Compare | ast.BinOp | ast.UnaryOp | ast.Call):
            return None
        swapped: dict[tuple[int, int, int | None], ast.expr] = {}  # by place: the copy's nodes are new ones
        read: set[str] = set()
        for node in ast.walk(expr):
            place = (node.lineno, node.col_offset, node.end_col_offset) if isinstance(node, ast.expr) else None
            if place is None:
                continue
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "col":
                name = node.args[0] if len(node.args) == 1 and not node.keywords else None
                column = name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else None
                if column is not None and "polars" in self.ev(node.func.value).names:
                    read.add(column)
                    swapped[place] = ast.Subscript(ast.Name("df", ast.Load()), ast.Constant(column), ast.Load())
            elif isinstance(node, ast.Name):
                found = self.lookup(node)
                held = found.const
                if isinstance(held, str | int | float):
                    swapped[place] = ast.Constant(held)
                members = [i.const for i in found.items or () if isinstance(i.const, int | float | str)]
                if found.items and len(members) == len(found.items) <= _MEMBERS_WRITTEN:
                    # is_in(TEST_YEARS): the list the name holds written out, as pandas' isin(TEST_YEARS) is
                    swapped[place] = ast.List(elts=[ast.Constant(m) for m in members], ctx=ast.Load())
        if not read or (isinstance(expr, ast.Call) and not _polars_test(expr)):
            return None

        class Written(ast.NodeTransformer):
            def visit(self, node: ast.AST) -> ast.AST:
                if isinstance(node, ast.expr):
                    found = swapped.get((node.lineno, node.col_offset, node.end_col_offset))
                    if found is not None:
                        return found
                return super().visit(node)

            def visit_Call(self, node: ast.Call) -> ast.AST:
                # is_between(a, b, closed=...) and is_in(values) in pandas' words, whose spans masks.py reads
                self.generic_visit(node)
                if isinstance(node.func, ast.Attribute) and node.func.attr in _POLARS_TESTS:
                    node.func.attr = _POLARS_TESTS[node.func.attr]
                    for keyword in node.keywords:
                        given = keyword.value.value if isinstance(keyword.value, ast.Constant) else None
                        if keyword.arg == "closed" and isinstance(given, str):
                            keyword.arg = "inclusive"
                            keyword.value = ast.Constant(_POLARS_CLOSED.get(given, given))
                return node

        return ast.unparse(Written().visit(copy.deepcopy(expr))), ",".join(sorted(read))

    def _polars_not_in(self, expr: ast.expr, data: Data) -> frozenset[Atom] | None:
        """The rows of ``data`` that `~pl.col("id").is_in(train["id"])` keeps: none of train's, when train is a side
        of a split and its column is the one compared (None for any other expression)."""
        if not (isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Invert)):
            return None
        test = expr.operand
        if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr == "is_in"):
            return None
        column = test.func.value
        if not (
            len(test.args) == 1
            and isinstance(column, ast.Call)
            and isinstance(column.func, ast.Attribute)
            and column.func.attr == "col"
            and len(column.args) == 1
            and isinstance(column.args[0], ast.Constant)
            and "polars" in self.ev(column.func.value).names
        ):
            return None
        keys = self.ev(test.args[0]).data
        if keys is None or not keys.picked or keys.sources != {column.args[0].value}:
            return None
        return complement(data.rows, keys.rows)

    def _polars_exclude(self, arg: ast.expr) -> list[str] | None:
        """The names in `pl.exclude("a", "b")` or `pl.all().exclude(...)` (None for any other expression)."""
        if not (isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "exclude"):
            return None
        base = arg.func.value
        if isinstance(base, ast.Call):  # pl.all().exclude(...)
            if not (isinstance(base.func, ast.Attribute) and base.func.attr == "all" and not base.args):
                return None
            base = base.func.value
        if "polars" not in self.ev(base).names:
            return None
        names = [a.value for a in arg.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        return names if len(names) == len(arg.args) and not arg.keywords else None

    def _drop(self, data: Data, args: list[Value], kwargs: dict[str, Value]) -> Value:
        axis = kwargs.get("axis")
        by_columns = kwargs.get("columns")
        labels = args[0] if args else kwargs.get("labels", NOTHING)
        if args and not kwargs and data.columns is not None and all(isinstance(a.const, str) for a in args):
            # polars' drop("a", "b") names columns; pandas would look for the names among the row labels and
            # fail, so a program that runs means columns
            named = [str(a.const) for a in args]
            return Value(data=replace(data, columns=data.columns.without(named)).pruned(data.columns))
        if by_columns is not None or (axis is not None and axis.const in (1, "columns")):
            dropped = by_columns or labels
            names = dropped.strings()
            columns = data.columns or Columns()
            # X.drop(columns=weak), weak the columns a test against the label found weak: those kept were chosen
            # with the rows the test was of
            chosen = self.with_fits(data, self.chosen_names_stats(dropped))
            return Value(
                data=replace(
                    chosen, columns=columns.without(names) if names is not None else Columns(opaque=True)
                ).pruned(data.columns)
            )
        index = kwargs.get("index", labels)
        if index.parts:  # df.drop(train.index): the rows a sample or a split did not take
            rows = frozenset(a.with_part(Part(p.split, "rest")) for a in data.rows for p in sorted(index.parts))
            # df.drop(df[df.price > q].index): the rows left were chosen by the threshold too
            kept = frozenset(f for f in index.data.fits if f in self.record.cuts) if index.data else frozenset()
            return Value(data=replace(data, rows=rows, fits=data.fits | kept))
        return Value(data=data)

    def _ordered(self, data: Data, name: str, args: list[Value], kwargs: dict[str, Value], line: int) -> Data:
        if name == "set_index":
            keys = (args[0] if args else kwargs.get("keys", NOTHING)).strings() or []
            if any(k in data.dates or is_time_name(k) for k in keys):
                return replace(data, time_index=data.time_index | {line})
            return data
        data = replace(data, shuffled=frozenset())  # sorted again: in an order of its own, not at random
        if name == "sort_index":
            return replace(data, ordered=data.ordered | {line}) if data.time_index else data
        by = (args[0] if args else kwargs.get("by", NOTHING)).strings() or []
        if any(k in data.dates or is_time_name(k) for k in by):
            return replace(data, ordered=data.ordered | {line})
        return data

    def _sample(self, data: Data, kwargs: dict[str, Value], node: ast.Call) -> Value:
        copies = kwargs.get("replace")
        if copies is not None and copies.const is True:
            return Value(data=replace(data, rows=self.pool(node, data.rows, "sample(replace=True)")))
        frac = kwargs.get("frac")
        if frac is not None and frac.const == 1:  # a shuffle: the same rows, in random order
            return Value(data=replace(data, shuffled=data.shuffled | {node.lineno}))
        sid = self.split(node, "sample", True, data)
        sampled = data.with_parts(Part(sid, "sample"))
        if kwargs.get("ignore_index", NOTHING).const is True:  # its rows numbered 0..n-1, as reset_index does
            sampled = replace(sampled, renumbered=_renumbered(sampled, node.lineno))
        return Value(data=sampled)

    # Subscripts -------------------------------------------------------------------------------------------

    def subscript(self, node: ast.Subscript) -> Value:
        base = node.value
        indexer = base.attr if isinstance(base, ast.Attribute) and base.attr in ("loc", "iloc", "at", "iat") else None
        holder = self.ev(base.value) if indexer is not None and isinstance(base, ast.Attribute) else self.ev(base)
        index = self.ev(node.slice)
        stacked = _STACKERS.get(next(iter(holder.names))) if len(holder.names) == 1 else None
        if stacked is not None and indexer is None:
            # np.c_[X, y], np.r_[a, b]: the arrays side by side (or one after another), as column_stack does
            given = index.items if index.items is not None else (index,)
            return self.call_value(
                Value(names=frozenset({stacked})), [Value(items=given)], {}, self._call_at(node, node.value)
            )
        if holder.data is not None and indexer is None and isinstance(index.const, str):
            archived = self._archived_array(holder.data, index.const, node)
            if archived is not None:
                return Value(data=archived)
        if holder.data is not None and indexer in (None, "loc", "iloc"):
            index = self._called_on(holder, node, index)
        out = NOTHING
        position = index.const
        items = holder.items
        if items is not None and indexer is None and isinstance(node.slice, ast.Slice):
            sliced = self._sliced_items(holder, node.slice)
            if sliced is not None:  # folds[1:], parts[:2]: those items, in order
                found = self.container(node, join_all(sliced))
                found.entries.update(enumerate(sliced))
                return Value(objects=frozenset({found.id}), items=sliced)
        if items is not None and isinstance(position, int) and not isinstance(position, bool):
            out = out.join(items[position]) if -len(items) <= position < len(items) else out
        for oid in sorted(holder.objects):
            found = self.record.objects[oid]
            if found.qualname == CONTAINER and found.split in self.record.splits and isinstance(position, int):
                # list(kf.split(X))[0]: one split taken of the folds, not a loop over them: its held-out side is
                # the test part
                self.record.splits[found.split].folds = False
            if (
                found.qualname == CONTAINER
                and not found.entries
                and indexer is None
                and isinstance(node.slice, ast.Slice)
            ):
                # pairs[:8000] of `list(zip(df.text, df.label))`: a list of the rows, cut as the rows would be
                cut = self.container(node, self._each_cut(found.elements, node, index))
                cut.keys = found.keys
                out = out.join(Value(objects=frozenset({cut.id}), stats=found.keys.stats | found.elements.stats))
            elif found.qualname == SCORE_TABLE:
                # table["val"], table.loc[i, "test"]: that column's scores; rows or columns not named, every score
                key = index.items[-1].const if index.items else index.const
                every = join_all(list(found.entries.values()))
                out = out.join(found.entries[key] if isinstance(key, str) and key in found.entries else every)
            elif found.qualname == CONTAINER and not found.entries and _rows_listed(holder, found):
                # test[t] of `test = list(s[-60:])`: the list is those rows, so its item is picked of them below
                # (one row, as s[-60:][t] is), not every element
                pass
            elif found.qualname == CONTAINER or found.entries:
                key = index.const
                out = out.join(found.entries[key] if key is not None and key in found.entries else found.elements)
                learned = found.keys.stats | found.elements.stats  # index[word] of a learned vocabulary
                if learned:
                    out = out.join(Value(stats=learned))
            elif found.qualname == NOT_SELF:  # not_self[i]: one row's part of the mask
                out = out.join(Value(objects=frozenset({found.id})))
            elif found.qualname in (NEIGHBOURS, OTHER_NEIGHBOURS):  # ind[:, 1:]: past each row's own place
                out = out.join(Value(objects=frozenset({self._neighbours_taken(found, node).id}), stats=index.stats))
            elif found.role is not None and found.steps:  # pipe["model"], pipe[-1]
                out = out.join(Value(objects=frozenset(found.steps)))
            elif isinstance(index.const, str):
                out = out.join(self.object_attribute(found, str(index.const)))
        settings = frozenset(f for f in index.stats if self.record.fits[f].chooses)
        if settings:  # Cs[np.argmax(val_scores.mean(1))]: the item a choice of settings picked
            out = out.join(Value(stats=settings))
        if holder.scores:
            out = out.join(Value(scores=holder.scores))
        if holder.stats:
            out = out.join(Value(stats=holder.stats))
        if holder.names_of is not None and index.stats:
            # X.columns[skb.get_support()]: the names a learned mask keeps, chosen with the rows it was fitted on
            out = out.join(Value(stats=index.stats))
        if holder.names_of is not None and complete_columns_of(node.slice) is not None:
            # df.columns[df.isna().mean() < 0.3]: every complete column, a label among them
            out = out.join(Value(names_of=holder.names_of))
        if holder.data is None and holder.parts and index.parts and indexer is None:
            mapped = self._positions_mapped(holder.parts, index.parts)
            if mapped is not None:
                return Value(data=mapped)
        if holder.data is None and holder.parts and indexer is None and self._reorders(node.slice):
            # tr[np.argsort(qid[tr])]: the same positions in another order (each query's rows together)
            return Value(parts=holder.parts)
        if holder.data is None and holder.parts and indexer is None and not holder.objects and not holder.items:
            # te[:50], te[qid[te] == q]: some of a part's positions, the rows they stand for cut again, so the rows
            # at them lie within that part (and two cuts of it, [:50] and [50:], apart)
            stood_for = self.parts_rows(holder.parts)
            if stood_for is not None:
                return self.pick(stood_for, None, node.slice, index, node)
        if holder.data is not None:
            picked = self.pick(holder.data, indexer, node.slice, index, node)
            kinds = self._index_kinds(index)
            if kinds and kinds <= {NEIGHBOURS, OTHER_NEIGHBOURS} and picked.data is not None:
                # prices[ind]: each row's neighbours' values, learned from the rows of prices, so that neighbours
                # searched among rows that include the test rows read their labels; past each row's own place
                # (ind[:, 1:]) they are not the row's own values
                what = f"{self.text(node.value)}[neighbours]"
                fid = self.fit(node, what, "the values of each row's nearest neighbours", Strength.TARGET, holder.data)
                others = kinds == {OTHER_NEIGHBOURS}
                picked = replace(picked, data=replace(picked.data, elsewhere=others, fits=picked.data.fits | {fid}))
            ranked = index.data.ranked if index.data is not None else frozenset()
            if ranked and holder.data.picked and not holder.data.predicted and picked.data is not None:
                # y_te[np.argsort(-p)[:k]]: the labels of the rows a model ranks first, a score of them (their mean
                # a precision at k), at the cut the slice sets
                tuned = index.data.tuned if index.data is not None else frozenset()
                # y[order][:k] too: the labels in the model's order, so a head of them is the rows ranked first
                picked = replace(
                    picked,
                    data=replace(picked.data, against_truth=True, predicted=ranked, tuned=tuned, ranked=ranked),
                )
            out = out.join(picked)
        return out

    def _reorders(self, index: ast.expr) -> bool:
        """Whether ``index`` is an order of all the positions of what it indexes: `np.argsort(...)`,
        `a.argsort()`, `np.random.permutation(len(a))`."""
        if not isinstance(index, ast.Call):
            return False
        if isinstance(index.func, ast.Attribute) and index.func.attr == "argsort":
            return True
        return bool(self.ev(index.func).names & {"numpy.argsort", "numpy.random.permutation"})

    def _of_resampler(self, node: ast.Call) -> bool:
        """Whether a method is called on `X.resample(...)`, written there or held in a name bound to it once."""
        receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
        if isinstance(receiver, ast.Name):
            receiver = self.assigned_once(receiver)
        return (
            isinstance(receiver, ast.Call)
            and isinstance(receiver.func, ast.Attribute)
            and receiver.func.attr == "resample"
        )

    def _groups_table(self, grouped: Data, node: ast.AST) -> Data:
        """The table a grouped aggregation makes: a row per group, new rows made from the grouped ones, with the
        columns aggregated (and what was fitted into them before)."""
        oid = self.origin(node, f"{self.text(node)}")
        return replace(
            grouped,
            rows=frozenset({Atom(oid)}),
            of_groups=True,
            grouped=False,
            group_key=frozenset(),
            mask=None,
            each_row=False,
            one_group=False,
        )

    def _positions_mapped(self, outer: frozenset[Part], inner: frozenset[Part]) -> Data | None:
        """`dev_idx[tr_pos]`: positions a second split dealt of the rows at a first split's positions, mapped back
        to the table's; the rows at them went through both cuts, in order. None unless the second split was made
        of those very rows (`split(X[dev_idx])`)."""
        rows: set[Atom] = set()
        for part in sorted(inner):
            split = self.record.splits.get(part.split)
            taken = [a for a in split.data.rows if a.parts and a.parts[-1] in outer] if split and split.data else []
            if not taken:
                return None
            rows |= {a.with_part(part) for a in taken}
        return Data(frozenset(rows))

    def _called_on(self, holder: Value, node: ast.Subscript, index: Value, given: ast.expr | None = None) -> Value:
        """`df[lambda d: d.year < 2020]`, `df.loc[is_test]` (a function of the file), `df.loc[lambda d: ..., cols]`:
        a function given as the index is called with the table, and what it returns (a mask) selects, as
        `df[df.year < 2020]` does."""
        given = node.slice if given is None else given
        if (
            isinstance(given, ast.Tuple)
            and given.elts
            and index.items is not None
            and len(index.items) == len(given.elts)
        ):
            rows = self._called_on(holder, node, index.items[0], given.elts[0])
            return index if rows is index.items[0] else replace(index, items=(rows, *index.items[1:]))
        if isinstance(given, ast.Lambda):
            return self.call_lambda(given, [holder])
        if index.functions and index.data is None and not index.objects:
            return self.call_value(index, [holder], {}, self._call_at(node, given))
        return index

    def _call_at(self, node: ast.Subscript, func: ast.expr) -> ast.Call:
        """The call a subscript makes (`df.loc[is_test]` calls is_test, `np.c_[X, y]` stacks): one node for it,
        however often the walk passes, so what it records keeps one id."""
        if id(node) not in self._index_calls:
            self._index_calls[id(node)] = ast.copy_location(ast.Call(func=func, args=[], keywords=[]), node)
        return self._index_calls[id(node)]

    def _each_cut(self, element: Value, node: ast.Subscript, index: Value) -> Value:
        """A list's element with the rows it holds (each of a tuple's items too) cut by the slice ``node`` takes of
        the list: the elements of `pairs[:8000]` are rows of the first 8,000."""
        items = tuple(self._each_cut(item, node, index) for item in element.items) if element.items else element.items
        data = element.data
        if data is not None and data.rows:
            data = self.pick(data, None, node.slice, index, node).data or data
        return replace(element, data=data, items=items)

    def _index_kinds(self, index: Value) -> set[str]:
        """What an index is made of; a list built of a neighbours search's rows (`np.array([r[m] for ...])`) is
        made of what its elements are."""
        kinds: set[str] = set()
        for oid in index.objects:
            found = self.record.objects[oid]
            inner = found.elements.objects if found.qualname == CONTAINER and not found.entries else frozenset()
            inner_kinds = {self.record.objects[o].qualname for o in inner if o != oid}
            kinds |= inner_kinds if inner_kinds else {found.qualname}
        return kinds

    def _neighbours_taken(self, found: Obj, node: ast.Subscript) -> Obj:
        """Some columns of a neighbours search's indices. The query's own rows come first in them when it asked
        of the rows it was fitted on: the columns from the second on are other rows."""
        if found.qualname == OTHER_NEIGHBOURS:
            return found
        masks = {self.record.objects[o].qualname for o in self.ev(node.slice).objects}
        if masks == {NOT_SELF}:  # ind[not_self], row[mask]: each row's neighbours but itself
            others = self.obj(node, OTHER_NEIGHBOURS)
            others.elements = Value(objects=frozenset({others.id}))
            return others
        cols = node.slice.elts[1] if isinstance(node.slice, ast.Tuple) and len(node.slice.elts) == 2 else None
        lower = self.ev(cols.lower).const if isinstance(cols, ast.Slice) and cols.lower is not None else None
        past_first = isinstance(lower, int) and not isinstance(lower, bool) and lower >= 1
        if not past_first:
            return found
        others = self.obj(node, OTHER_NEIGHBOURS)
        others.elements = Value(objects=frozenset({others.id}))
        return others

    def _sliced_items(self, holder: Value, bounds: ast.Slice) -> tuple[Value, ...] | None:
        """The items a slice with constant bounds takes from a list or tuple whose items are all known (none added
        since it was made); None otherwise."""
        items = holder.items
        if items is None or holder.data is not None:
            return None
        for oid in holder.objects:
            found = self.record.objects[oid]
            if found.qualname != CONTAINER or found.elements != join_all(items):
                return None  # not a list, or one appended to: its items are not all known
        numbers: list[int | None] = []
        for bound in (bounds.lower, bounds.upper, bounds.step):
            # a number or a name of one (evaluated again, so no call: that would run twice)
            simple = bound is None or isinstance(bound, ast.Constant | ast.Name | ast.UnaryOp)
            const = self.ev(bound).const if bound is not None and simple else None
            if bound is not None and type(const) is not int:
                return None
            numbers.append(const if isinstance(const, int) else None)
        lower, upper, step = numbers
        return items[lower:upper:step] if step != 0 else None

    def pick(self, data: Data, indexer: str | None, index_node: ast.expr, index: Value, node: ast.AST) -> Value:
        rows_node: ast.expr = index_node
        rows = index
        cols_node: ast.expr | None = None
        cols = NOTHING
        if isinstance(index_node, ast.Tuple) and len(index_node.elts) == 2 and index.items is not None:
            rows_node, cols_node = index_node.elts
            rows, cols = index.items
        elif index.names_of is not None and index.data is None:  # df[[c for c in df.columns if c != "id"]]
            within = replace(data, columns=within_names(data, index.names_of), mask=None).pruned(data.columns)
            # names kept by a statistic of the rows (`if abs(X[c].corr(y)) > 0.3`): the columns carry what it learned
            return Value(data=self.with_fits(within, self.stats_in([index])))
        elif indexer is None and _keyed(data, index.const, DATASET_DICT_SPLITS) is not None:
            # a DatasetDict's split by its name (ds["test"]), not a column
            named = _keyed(data, index.const, DATASET_DICT_SPLITS)
            assert named is not None
            return Value(data=named)
        elif indexer is None and _names_columns(index, index_node):
            names = index.strings() or []
            if isinstance(index.const, str):
                return Value(data=self.column(data, names[0]))
            taken = replace(data, columns=(data.columns or Columns()).only(names), mask=None).pruned(data.columns)
            # values from later rows in other named columns (a next-row target) are not among those taken
            taken = replace(taken, later=frozenset(f for f in data.later if f[1] is None or f[1] in names))
            if data.grouped:  # df.groupby("k")[["a", "b"]]: its statistics are of those columns, as ["a"]'s of one
                taken = replace(taken, sources=frozenset(names))
            return Value(data=taken)
        step = self._offset_from_loop(rows_node) if indexer in ("iloc", "iat", None) and cols_node is None else None
        if step is not None:
            # s.iloc[i - 1] in a loop over i: the value of an earlier row (a lag), as shift(1) is; s.iloc[i + 1] a
            # later row's, as shift(-1)
            line = getattr(node, "lineno", 0)
            lagged = data.lagged | {line}
            if step < 0:
                return Value(data=replace(data, past=True, lagged=lagged, mask=None))
            return Value(data=replace(data, lagged=lagged, later=data.later | {(line, None)}, mask=None))
        if indexer in ("iloc", "iat") and cols_node is None and self._a_number(rows_node):
            # one row's value (y.iloc[-9], the last level a forecast of differences is added to): a value used as a
            # number, not rows that are trained on or scored
            return Value(data=replace(data, rows=frozenset(), columns=None, mask=None))
        keyed = (
            _keyed(data, rows.const) if indexer == "loc" or (indexer is None and isinstance(rows.const, str)) else None
        )
        selected = keyed if keyed is not None else self._rows(data, rows_node, rows, node, indexer)
        written = self._written_mask(rows_node)
        if rows.data is not None and any(isinstance(n, ast.Compare) for w in written for n in ast.walk(w)):
            # df[(np.abs(zscore(df)) < 3).all(axis=1)]: the rows kept were chosen by a statistic of every row.
            # A group's size (classes too rare to stratify taken out) says nothing of a row's values: left out.
            chosen = frozenset(f for f in rows.data.fits - data.fits if self.record.fits[f].learns != PER_GROUP)
            selected = self._kept_by(chosen, selected)
        if rows.data is not None:
            kept = frozenset().union(*(self.thresholds_in(w) for w in written)) - data.fits
            selected = self._kept_by(frozenset(f for f in kept if self.record.fits[f].learns != PER_GROUP), selected)
        if cols_node is not None:
            picked = cols.strings()
            if isinstance(cols_node, ast.Slice) and cols_node.lower is None and cols_node.upper is None:
                pass
            elif isinstance(cols_node, ast.Constant) and cols_node.value is None and indexer is None:
                pass  # y[:, None]: the same values given a second axis (np.newaxis), a column of them
            elif indexer == "loc" and complete_columns_of(cols_node) is not None:
                pass  # df.loc[:, df.notna().all()]: every complete column, a label among them
            elif indexer == "loc" and cols.names_of is not None:
                selected = replace(selected, columns=within_names(selected, cols.names_of)).pruned(selected.columns)
            elif indexer == "loc" and picked is not None:
                if isinstance(cols.const, str):
                    return Value(data=self.column(selected, picked[0]))
                selected = replace(selected, columns=(selected.columns or Columns()).only(picked)).pruned(
                    selected.columns
                )
            else:  # positions (iloc, numpy): the columns kept cannot be named
                one = isinstance(cols.const, int) and not isinstance(cols.const, bool)
                known = selected.columns is None or not selected.columns.opaque
                held = node.value if isinstance(node, ast.Subscript) else node
                if indexer is not None and isinstance(held, ast.Attribute):  # tr.iloc[:, 0]: of `tr`
                    held = held.value
                table = self.text(held)
                of = (selected.columns, table) if one and known else None
                selected = replace(
                    selected,
                    columns=Columns(opaque=True),
                    sources=frozenset({"<a column by position>"}),
                    position_of=of,
                )
            # X.loc[:, rfe.support_], X[:, np.argsort(importances)[-10:]]: columns a fitted selector kept carry
            # what it learned, as its transform() would
            selected = self.with_fits(selected, self.stats_in([cols]))
        elif indexer is None and not (index.data or index.parts or index.consts or isinstance(index_node, ast.Slice)):
            # df[features] with a list the walk cannot read: some columns, which ones unknown; chosen by statistics
            # of rows (the columns correlating with the label), the table carries them
            # (or a list grown by a loop that tested each column: the statistics are its elements')
            selected = replace(self.with_fits(selected, self.chosen_names_stats(index)), columns=Columns(opaque=True))
        elif (
            indexer is None
            and index.data is not None
            and index.data.mask is None
            and not _same_origin(index.data, data)
        ):
            # df[cols] with cols from elsewhere (json.load of a feature list, a config): not a mask of these
            # rows, whose values would come from the table itself, so names of columns the walk cannot read
            selected = replace(selected, columns=Columns(opaque=True))
        # labels compared with predictions, or ranked by them, kept where a mask holds (`yy[tt == 1]` of the
        # labels of the top-ranked rows, the treated among them): still those, their mean a score of them
        compared = (
            data.against_truth
            and index.data is not None
            and (index.data.mask is not None or index.data.against_truth)
            and cols_node is None
        )
        # yy[:k] of `yy = y[order]`: the labels of the k rows ranked first, as y[order[:k]] is
        head = data.against_truth and bool(data.ranked) and isinstance(rows_node, ast.Slice) and cols_node is None
        return Value(data=replace(selected, mask=None, against_truth=compared or head))

    def _offset_from_loop(self, node: ast.expr) -> int | None:
        """k in `i - k` or `i + k` (k a whole number, not 0) where i is a name of no known value: a loop's position."""
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub)):
            return None
        if not isinstance(node.left, ast.Name) or self.ev(node.left).const is not None:
            return None
        k = self.ev(node.right).const
        if type(k) is not int or k <= 0:
            return None
        return -k if isinstance(node.op, ast.Sub) else k

    def _a_number(self, node: ast.expr, depth: int = 0) -> bool:
        """Whether ``node`` is one whole number: a constant, a name of one, len(...), or arithmetic of those
        (`-n_test - 1`, `len(train) - 1`)."""
        if depth > 4:
            return False
        if isinstance(node, ast.Constant | ast.Name):
            return type(self.ev(node).const) is int
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
            return True
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            return self._a_number(node.operand, depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult | ast.FloorDiv):
            return self._a_number(node.left, depth + 1) and self._a_number(node.right, depth + 1)
        return False

    def _kept_by(self, kept: frozenset[int], selected: Data) -> Data:
        """Rows kept by statistics of the rows (a z-score, `df.price < df.price.quantile(0.99)`): they carry them,
        noted with the masks' splits, so that a cut made at such a threshold is told from a filter before one."""
        if not kept:
            return selected
        masks = frozenset(a.parts[-1].split for a in selected.rows if a.parts and a.parts[-1].split.startswith("mask:"))
        for fid in kept:
            self.record.cuts[fid] = self.record.cuts.get(fid, frozenset()) | masks
        return replace(selected, fits=selected.fits | kept)

    def rows_taken(self, data: Data, at: ast.expr, positions: Value, node: ast.AST) -> Data:
        return self._rows(data, at, positions, node, "iloc")

    def _rows(self, data: Data, rows_node: ast.expr, value: Value, node: ast.AST, indexer: str | None = None) -> Data:
        """The rows a selection keeps: a side of a mask, a slice's head or tail, a fold's indices."""
        listed = self.iterate(value) if value.data is None and value.objects and not value.parts else NOTHING
        if listed.data is not None and listed.data.rows and all(a.parts for a in listed.data.rows):
            # X[train_idx] of a list a loop filled with positions a split dealt: the rows at them
            value = Value(data=replace(listed.data, each_row=False))
        pieces = self._range_pieces(rows_node) if indexer in (None, "iloc") and not value.parts else None
        if pieces:
            # X[np.concatenate([np.arange(0, a), np.arange(b, n)])]: the rows of each range (a purged fold's
            # training positions around its test block)
            taken = [self._rows(data, piece, NOTHING, node, indexer) for piece in pieces]
            return replace(data, rows=frozenset().union(*(t.rows for t in taken)))
        ranged = self._range_slice(rows_node) if indexer in (None, "iloc") and not value.parts else None
        if ranged is not None:
            rows_node = ranged  # X[np.arange(7500, 10000)] takes the rows X[7500:10000] does
        one = self._pass_row(rows_node) if not value.parts else None
        if one is not None:
            rows_node = one  # test[t] in `for t in range(len(test))`: that pass's row, as test[t:t + 1] is
        if isinstance(rows_node, ast.Slice) and data.ranked:
            # np.argsort(-p)[:k]: the k rows ranked first, k a setting as a threshold on the scores is (a number is
            # the same one in every pass of a loop; a name may be another each pass)
            bounds = (rows_node.lower, rows_node.upper)
            fixed = ast.unparse(rows_node) if all(b is None or isinstance(b, ast.Constant) for b in bounds) else None
            setting = (
                (fixed, ()) if fixed is not None else (f"{rows_node.lineno}:{rows_node.col_offset}", tuple(self.loops))
            )
            return replace(data, tuned=data.tuned | {setting})
        if isinstance(rows_node, ast.Slice):
            if rows_node.lower is None and rows_node.upper is None:
                if _reverses(rows_node):  # s[::-1]: the same rows, last first (twice: in order again)
                    return replace(data, reversed=not data.reversed)
                return data
            dated = self._dated_slice(rows_node, node) if indexer in (None, "loc") else None
            if dated is not None:
                # df.loc[:"2023-06-01"], s["2023-06-01":"2023-06-07"]: labels of a time index, the rows of the mask
                # `df.index <= "2023-06-01"`, comparable with such masks (and holding its end, as .loc's slice does)
                return self._cut_by(data, dated, "rows", node)
            # A sequence cut in two: `[:cut]` and `[cut:]` (or `.loc[:'2023-09-30']` and `.loc['2023-10-01':]`)
            # are its head and tail; a slice of a slice cuts again. Bounds the walk can compare say more:
            # `[:900]` and `[800:]` share 100 rows.
            side = "head" if rows_node.lower is None else "tail" if rows_node.upper is None else "range"
            split = self._part_split(SLICE, node, data) if not data.shuffled else self._shuffled_cut(data, node)
            # .loc's end label is inside the slice; .iloc's positions are the table's rows, so a name given one
            # bound off another (`start = cut - 168`) is read as that bound (an array's positions may be counted
            # from elsewhere, windows made by a function of the file)
            if indexer in (None, "iloc"):
                rows_node = self._ends_from_length(rows_node, node)
            span = self._slice_span(rows_node, indexer == "loc", named=indexer == "iloc")
            return replace(data, rows=_cut_each(data.rows, split, side, span))
        if value.parts:
            # `allrows.loc[train.index]` of pd.concat([train, test]): the rows taken on the other side of that same
            # split hold none of those labels (labels a split dealt are each on one side), so only train's are left;
            # labels numbered anew (ignore_index=True, reset_index) name other rows, of either side
            kept = frozenset(
                a.with_part(p)
                for a in data.rows
                for p in sorted(value.parts)
                if not data.renumbered and not any(q.split == p.split and q.side != p.side for q in a.parts)
            )
            return replace(data, rows=kept or frozenset(a.with_part(p) for a in data.rows for p in sorted(value.parts)))
        mask = value.data.mask if value.data is not None else None
        outside = value.data.outside if value.data is not None else None
        if mask is not None and outside is not None and outside[0] == mask:
            # ~df.index.isin(train.index): none of train's rows, and the other side of the mask as well
            rest = complement(data.rows, outside[1])
            data = replace(data, rows=rest) if rest is not None else data
        if mask is not None and value.data is not None:
            return self._cut_by(data, mask, ",".join(sorted(value.data.sources)) or "rows", node)
        if value.data is not None and value.data.rows and all(a.parts for a in value.data.rows):
            # positions a split dealt (`idx_tr, idx_te = train_test_split(np.arange(len(df)))`, then X[idx_tr]):
            # the rows at them went through every cut that dealt them, in order (validation positions split from
            # the training ones are apart from the test positions); positions of several sides put together
            # (np.concatenate(folds)) select rows put together
            rows = frozenset(_cut_as(a, taken.parts) for a in data.rows for taken in value.data.rows)
            self._shuffled_positions(data, value.data)
            return replace(data, rows=rows, merged=data.merged | value.data.merged)
        flag = _flag_kept(data, rows_node, value)
        if flag is not None and value.data is not None:
            # df[df["is_test"]]: a column of True and False the rows are chosen by, the mask `df["is_test"] == True`
            return self._cut_by(data, flag, ",".join(sorted(value.data.sources)), node)
        return data

    def rows_where(self, data: Data, node: ast.AST) -> Data:
        if data.mask is None:
            return data
        return self._cut_by(replace(data, mask=None), data.mask, ",".join(sorted(data.sources)) or "rows", node)

    def _cut_by(
        self, data: Data, condition: str, columns: str, node: ast.AST, query: frozenset[str] | None = None
    ) -> Data:
        """The rows where a mask's ``condition`` holds (a query's, with ``query`` its @ names): each condition of
        `a & b` a split of its own column's, so `date < cut` & anything shares no rows with `date >= cut`, and a
        second condition on one column narrows the first one's interval; ``columns`` names a lone condition's."""
        negated = negated_conjuncts(condition)
        if negated is not None:
            # ~(a & b): the rows that fail a, and those that hold a but fail b, each cut as a mask of its own
            # column, so they share none with the rows of a & b
            kept: set[Atom] = set()
            for i, failed in enumerate(negated):
                cut = data
                for held_before in negated[:i]:
                    cut = self._cut_by(cut, held_before, column_of(held_before, query) or columns, node, query)
                kept |= self._cut_by(cut, f"~({failed})", column_of(failed, query) or columns, node, query).rows
            return replace(data, rows=frozenset(kept))
        either = disjuncts_of_columns(condition, query)
        if either is not None:
            # (year == 2022) | ((year == 2023) & (q <= 2)): the rows of each condition, each cut as a mask of its
            # own columns, so a side `(year == 2023) & (q > 2)` shares none with either
            rows: set[Atom] = set()
            for one in either:
                rows |= self._cut_by(data, one, column_of(one, query) or columns, node, query).rows
            return replace(data, rows=frozenset(rows))
        held = conjuncts(condition)
        for part in held:
            column = column_of(part, query) if len(held) > 1 else None
            sid = self._part_split(f"mask:{column or columns}", node, data)
            data = data.masked(Part(sid, _side(part), mask_span(part, query), mask_union(part, query)))
        return data

    def _dated_slice(self, bounds: ast.Slice, node: ast.AST) -> str | None:
        """A slice of labels that are instants (`"2023-06-01"`, `pd.Timestamp(...)`), as the mask of the table's
        index it keeps, both ends held; None for any other slice."""
        if bounds.step is not None or not isinstance(node, ast.Subscript):
            return None
        given = [b for b in (bounds.lower, bounds.upper) if b is not None]
        if not given or any(instant_of(b) is None for b in given):
            return None
        table = node.value.value if isinstance(node.value, ast.Attribute) and node.value.attr == "loc" else node.value
        name = self.text(table)
        held = []
        if bounds.lower is not None:
            held.append(f"{name}.index >= {ast.unparse(bounds.lower)}")
        if bounds.upper is not None:
            after = period_after(bounds.upper)
            held.append(f"{name}.index < {after!r}" if after else f"{name}.index <= {ast.unparse(bounds.upper)}")
        return held[0] if len(held) == 1 else " & ".join(f"({h})" for h in held)

    def _slice_span(
        self, bounds: ast.Slice, closed_end: bool, named: bool = False
    ) -> tuple[str, Bound, Bound] | tuple[()]:
        """A slice's interval of positions, () when a bound cannot be read or it has a step; ``named``: a bound held
        in a name given another bound plus or minus a number is read as that."""
        if bounds.step is not None:
            return ()
        bounds = self._clamped_ends(bounds)
        lower = (
            self._bound(bounds.lower, True, upper=False, named=named) if bounds.lower is not None else (OPEN, 0, True)
        )
        upper = (
            self._bound(bounds.upper, closed_end, upper=True, named=named)
            if bounds.upper is not None
            else (OPEN, 0, True)
        )
        if lower is None or upper is None:
            return ()
        return (POSITIONS, lower, upper)

    def _ends_from_length(self, bounds: ast.Slice, node: ast.AST) -> ast.Slice:
        """A slice's ends written from the length of what it cuts (`df.iloc[:len(df) - 30]`, `X[:n - 30]` with `n =
        len(X)`) as the positions from the end they are (`[:-30]`), so they order against `[-40:]`."""
        base = node.value if isinstance(node, ast.Subscript) else None
        if isinstance(base, ast.Attribute) and base.attr == "iloc":
            base = base.value
        if base is None:
            return bounds
        sequence = ast.unparse(base)
        ends = [
            self.before_end(end, sequence) if end is not None and not isinstance(end, ast.Constant) else None
            for end in (bounds.lower, bounds.upper)
        ]
        if ends == [None, None]:
            return bounds
        lower, upper = (
            ast.copy_location(ast.Constant(moved), end) if moved is not None and end is not None else end
            for moved, end in zip(ends, (bounds.lower, bounds.upper), strict=True)
        )
        return ast.copy_location(ast.Slice(lower=lower, upper=upper, step=bounds.step), bounds)

    def _clamped_ends(self, bounds: ast.Slice) -> ast.Slice:
        """A slice whose ends are clamped to its own range read at their unclamped values: `[0:max(a - h, 0)]` is
        `[0:a - h]`, or no row when a - h < 0, and `[min(b + e, n):n]` is `[b + e:n]`, or none; either way it
        holds no row outside the unclamped slice (a purged fold's training positions)."""
        lower, upper = bounds.lower, bounds.upper
        starts_at_zero = lower is None or (isinstance(lower, ast.Constant) and lower.value == 0)
        chosen = self._min_max(upper) if upper is not None else None
        if chosen is not None and chosen[0] == "max" and starts_at_zero and len(chosen[1]) == 2:
            zero = [a for a in chosen[1] if isinstance(a, ast.Constant) and a.value == 0]
            if len(zero) == 1:
                upper = next(a for a in chosen[1] if a is not zero[0])
        chosen = self._min_max(lower) if lower is not None else None
        if chosen is not None and chosen[0] == "min" and upper is not None and len(chosen[1]) == 2:
            end = [a for a in chosen[1] if ast.dump(a) == ast.dump(upper)]
            if len(end) == 1:
                lower = next(a for a in chosen[1] if a is not end[0])
        if lower is bounds.lower and upper is bounds.upper:
            return bounds
        return ast.copy_location(ast.Slice(lower=lower, upper=upper), bounds)

    def _bound(
        self, node: ast.expr, closed: bool, depth: int = 0, upper: bool = True, named: bool = False
    ) -> Bound | None:
        """A slice bound as (what it counts from, how far): 800, -100 (from the end), n, n - window, len(df) - 24;
        ``upper`` says which end of the slice it is."""
        chosen = self._min_max(node)
        if chosen is not None and depth < _BOUND_DEPTH:
            name, args = chosen
            if (name == "min") != upper:  # a lower end at min(...), an upper one at max(...): no bound known
                return (self.whole(node), 0, closed)
            # `X[start:min(start + B, n_train)]`: the batch ends at n_train or before, so the bound that holds is
            # the plainest of the arguments (a name, a count), not the one that moves with the loop
            found = [(a, self._bound(a, closed, depth + 1, upper)) for a in args]
            plain = [b for a, b in found if b is not None and not isinstance(a, ast.BinOp)]
            usable = plain or [b for _, b in found if b is not None]
            if usable:
                return usable[-1]
        const = self.ev(node).const
        if isinstance(const, int) and not isinstance(const, bool):
            return ("" if const >= 0 else "<end>", const, closed)
        if isinstance(node, ast.BinOp) and self.plain_number(node.right) is None:
            node = opened(node)  # `len(df) - (n_test - n_val)`: `len(df) - n_test + n_val`, its terms in a row
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub) and depth < _BOUND_DEPTH:
            step = self.plain_number(node.right)  # `cut - 24 * 7`: a number of constants, folded
            base = self._bound(node.left, closed, depth + 1, upper, named)
            # `[b + embargo:]`, `[:a - gap]` with a gap never negative: the slice lies within `[b:]`, `[:a]`, which
            # stand for it where rows shared are asked (the unknown gap only takes rows away)
            inward = isinstance(node.op, ast.Add) != upper and base is not None and base[0] != "<end>"
            if step is None and inward and self.never_negative(node.right):
                return base
            if step is None:
                # `[len(ids) - n_test:]`: a bound of its own, as a product is, which `[:len(ids) - n_test + 50]`
                # is counted from
                return (self.whole(node), 0, closed)
            if _open_term(node.left, self.plain_number):
                base = (self.whole(node.left), 0, closed)
            if base is None or not isinstance(step, int) or isinstance(step, bool) or base[0] == "<end>":
                return None
            moved = base[1] + (step if isinstance(node.op, ast.Add) else -step)
            if base[0] == "" and moved < 0:  # `cut - win` of two counts: a position, never one from the end
                return None
            return (base[0], moved, closed)
        if isinstance(node, ast.Name) and depth < _BOUND_DEPTH:
            # `val_end = int(n * 0.85)`, then `[:val_end]`: a share of a length, compared with `[int(n * 0.70):]`
            written = self.assigned_once(node)
            if isinstance(written, ast.Call | ast.BinOp) and share_of(ast.unparse(written)) is not None:
                return (self.whole(written), 0, closed)
            given = self.given_as(node) if written is None else None
            if given is not None and not (isinstance(given, ast.Name) and given.id == node.id):
                # `values[start:end - 6]` in `windows(n_train, n_val)`: the bound that call gives
                return self._bound(given, closed, depth + 1, upper, named)
        if named and isinstance(node, ast.Name) and depth < _BOUND_DEPTH:
            # `test_start = train_end - 168`, then `[test_start:]`: the bound the name was given, so it compares
            # with `[:train_end]` (a value with a call in it is not walked again)
            written = self.assigned_once(node)
            if (
                isinstance(written, ast.BinOp)
                and isinstance(written.op, ast.Add | ast.Sub)
                and not any(isinstance(n, ast.Call) for n in ast.walk(written))
            ):
                followed = self._bound(written, closed, depth + 1, upper, named)
                if followed is not None:
                    return followed
        if isinstance(node, ast.Name | ast.Attribute | ast.Call | ast.Subscript) or (
            isinstance(node, ast.BinOp) and not isinstance(node.op, ast.Add | ast.Sub)
        ):
            # a product or a quotient (`i * k`, `n // 5`) is a bound of its own, as a name is: `[:i * k]` ends
            # where `[i * k:]` starts
            return (self.whole(node), 0, closed)
        return None

    def windowed(self, generators: list[ast.comprehension], element: ast.expr, value: Value) -> Value:
        """`[scaled[i - win:i, 0] for i in range(win, n)]` (windows over a series) or `[scaled[i, 0] for i in
        range(win, n)]` (their targets): one element per position from `win` on, so the result's rows are those of
        `scaled[win:]`, its positions counted from there (element j is the row win + j, the window ending before it).
        Any other comprehension's element is given back as it is."""
        if len(generators) != 1 or generators[0].ifs or value.data is None:
            return value
        gen = generators[0]
        counter = gen.iter
        if not (isinstance(gen.target, ast.Name) and isinstance(counter, ast.Call) and not counter.keywords):
            return value
        if not (isinstance(counter.func, ast.Name) and counter.func.id == "range" and 1 <= len(counter.args) <= 2):
            return value
        if self.ev(counter.func).names != {"builtins.range"}:
            return value
        name = gen.target.id
        by_position = any(
            isinstance(n, ast.Subscript) and any(isinstance(m, ast.Name) and m.id == name for m in ast.walk(n.slice))
            for n in ast.walk(element)
        )
        if not by_position:
            return value
        start = self._bound(counter.args[0], True, upper=False) if len(counter.args) == 2 else ("", 0, True)
        if start is None or start[0] != "":
            return value
        stripped = []
        ahead = set()  # how far past the loop's number each element's window ends (`[i:i + win]`: win)
        for atom in value.data.rows:
            parts = atom.parts
            while parts and parts[-1].split.startswith(SLICE) and counts_from(parts[-1], name):
                end = parts[-1].span[2] if len(parts[-1].span) == 3 else None
                if end is not None and end[0] == name:
                    ahead.add(end[1])
                parts = parts[:-1]  # the window around each position: the position stands for it
            stripped.append(Atom(atom.origin, parts))
        if len(ahead) > 1 or any(k < 0 for k in ahead):
            return value
        # Element j stands for the row its window ends before (or the row it takes): start + j + ahead.
        start = ("", start[1] + next(iter(ahead), 0), True)
        span = (POSITIONS, start, (OPEN, 0, True))
        rows = frozenset(stripped) if start[1] == 0 else _cut_each(frozenset(stripped), SLICE, "tail", span)
        data = replace(value.data, rows=rows)
        if _window_of_positions(element, name):
            # each element holds the values of the rows before the one it stands for: a lag, as shift(1) is
            data = replace(data, lagged=data.lagged | {element.lineno}, past=True)
        return replace(value, data=data)

    def _range_pieces(self, node: ast.expr) -> list[ast.Slice] | None:
        """The ranges positions are joined from, `np.concatenate([np.arange(0, a), np.arange(b, n)])`, `np.hstack`
        of ranges or `np.r_[0:a, b:n]`, written in place or as the one value a name is assigned (None: anything
        else, or one piece that is no range)."""
        if isinstance(node, ast.Name):
            written = self.assigned_once(node)
            node = written if written is not None else node
        if isinstance(node, ast.Subscript) and self.ev(node.value).names == {"numpy.r_"}:
            given = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            slices = [g for g in given if isinstance(g, ast.Slice) and g.step is None]
            return slices if len(slices) == len(given) and len(slices) > 1 else None
        if not (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords):
            return None
        if self.ev(node.func).names not in ({"numpy.concatenate"}, {"numpy.hstack"}):
            return None
        listed = node.args[0]
        if not isinstance(listed, ast.List | ast.Tuple) or len(listed.elts) < 2:
            return None
        ranges = [self._range_slice(e) for e in listed.elts]
        return [r for r in ranges if r is not None] if all(r is not None for r in ranges) else None

    def _archived_array(self, archive: Data, key: str, node: ast.Subscript) -> Data | None:
        """`data["X_test"]` of `data = np.load("imu.npz")`: an array of its own, not a column of one table. The
        arrays whose keys name one part (`X_test` and `y_test`: the part `test`) hold the same rows, read as a file
        of that name inside the archive (`imu.npz/test`), so a part named as the test set is one."""
        origins = [self.record.origins.get(a.origin) for a in archive.rows]
        if len(origins) != 1 or any(a.parts for a in archive.rows):
            return None
        origin = origins[0]
        if origin is None or origin.path is None or not origin.path.lower().endswith(".npz"):
            return None
        part = _ARRAY_ROLE.sub("", key)
        # keys that name a role only (`X`, `y`, `arr_0` of test.npz): the archive's rows, named by its file
        inside = origin.path if not part or _ROLE_ONLY.fullmatch(key) else f"{origin.path}/{part}"
        if inside not in self.archived:
            array = self.source(node, f"np.load({origin.path!r})[{key!r}]", read=True)
            for atom in array.rows:
                self.record.origins[atom.origin].path = inside
            self.archived[inside] = array
        return self.archived[inside]

    def _pass_row(self, node: ast.expr) -> ast.Slice | None:
        """`test[t]`, `te.iloc[[t]]`, `te.loc[ts]` where ``t`` is the innermost loop's own count, over `range(...)`
        (written there or held in a name), a table's index or `enumerate(...)`: the one row of each pass, as the
        slice `[t:t + 1]` (None for any other index)."""
        name = node.elts[0] if isinstance(node, ast.List) and len(node.elts) == 1 else node
        if not isinstance(name, ast.Name) or not self.loops:
            return None
        loop = self.loop_nodes.get(self.loops[-1])
        if isinstance(loop, ast.While):  # t = 0; while t < len(test): ...; t += 1
            return one_row(name) if name.id in counters(loop) else None
        if not isinstance(loop, ast.For):
            return None
        over = loop.iter
        if isinstance(over, ast.Name):
            over = self.assigned_once(over) or over
        target = loop.target
        if isinstance(target, ast.Tuple) and target.elts and isinstance(over, ast.Call):
            # for t, obs in enumerate(test): t counts the passes
            if self.ev(over.func).names != {"builtins.enumerate"}:
                return None
            target = target.elts[0]
        elif isinstance(over, ast.Call):
            if self.ev(over.func).names != {"builtins.range"}:
                return None
        elif not (isinstance(over, ast.Attribute) and over.attr == "index"):
            return None
        if not isinstance(target, ast.Name) or target.id != name.id:
            return None
        return one_row(name)

    def _range_slice(self, node: ast.expr) -> ast.Slice | None:
        """`np.arange(a, b)`, `range(a, b)` or `np.r_[a:b]`, written in place or as the one value a name is
        assigned: the positions of the slice `[a:b]`, so that two such ranges compare as two slices do (None:
        anything else)."""
        if isinstance(node, ast.Name):
            written = self.assigned_once(node)
            node = written if written is not None else node
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "tuple"):
            # list(range(a, b)): the same positions, in a list
            if len(node.args) == 1 and not node.keywords and self.ev(node.func).names == {f"builtins.{node.func.id}"}:
                return self._range_slice(node.args[0])
            return None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and node.slice.step is None:
            if self.ev(node.value).names == {"numpy.r_"}:  # np.r_[a:b]: np.arange(a, b)
                lower = node.slice.lower
                lower = None if isinstance(lower, ast.Constant) and lower.value == 0 else lower
                return ast.copy_location(ast.Slice(lower=lower, upper=node.slice.upper), node)
            # idx[:int(0.8 * n)] of idx = np.arange(n), never reordered (a shuffle in place makes it drawn
            # positions, which the walk follows as such): the positions of that slice itself
            whole = self._range_slice(node.value)
            if whole is None or whole.lower is not None:
                return None  # not positions of a range: nothing walked again
            held = self.ev(node.value)
            if held.data is not None or held.parts:
                return None
            return ast.copy_location(ast.Slice(lower=node.slice.lower, upper=node.slice.upper), node)
        if not isinstance(node, ast.Call) or node.keywords or not 1 <= len(node.args) <= 2:
            return None
        if any(isinstance(a, ast.Starred) for a in node.args):
            return None
        if self.ev(node.func).names not in ({"numpy.arange"}, {"builtins.range"}):
            return None
        lower, upper = (None, node.args[0]) if len(node.args) == 1 else (node.args[0], node.args[1])
        if lower is not None and isinstance(lower, ast.Constant) and lower.value == 0:
            lower = None
        return ast.copy_location(ast.Slice(lower=lower, upper=upper), node)

    def _min_max(self, node: ast.expr) -> tuple[str, list[ast.expr]] | None:
        """`min(a, b)` or `max(a, b)` of the builtins, written in place or as the one value a name is assigned."""
        if isinstance(node, ast.Name):
            written = self.assigned_once(node)
            node = written if written is not None else node
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("min", "max")):
            return None
        if node.keywords or len(node.args) < 2 or any(isinstance(a, ast.Starred) for a in node.args):
            return None
        if self.ev(node.func).names != {f"builtins.{node.func.id}"}:
            return None
        return node.func.id, list(node.args)

    def _written_mask(self, node: ast.expr) -> list[ast.expr]:
        """A selection's rows as written, and the values its names were assigned once: a mask named first
        (`keep = iso.fit_predict(X) == 1`, then `df[keep]`) is the comparison it holds."""
        found = [node]
        for name in ast.walk(node):
            if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Load):
                value = self.assigned_once(name)
                if value is not None:
                    found.append(value)
        return found

    def _shuffled_cut(self, data: Data, node: ast.AST) -> str:
        """A cut by position of rows put in random order (`df.sample(frac=1)` then `iloc[:n]`, `iloc[n:]`; positions
        of `np.random.permutation(n)` cut as `idx[:n]`): a split that shuffles, as train_test_split does, its
        slices compared with each other as slices are."""
        line = min(data.shuffled)
        sid = f"{SLICE}:shuffled at {line}"
        if sid not in self.record.splits:
            what = f"the cut by position after the shuffle at line {line}"
            self.record.splits[sid] = Split(sid, self.site(node), what, True, data)
        return sid

    def _shuffled_positions(self, table: Data, positions: Data) -> None:
        """Rows of a table taken at positions cut after a shuffle (`df.iloc[idx[:cut]]`, idx a permutation): the
        shuffled split is of the table's rows, in the order it holds them (by time, with lags)."""
        for sid in {p.split for a in positions.rows for p in a.parts}:
            split = self.record.splits.get(sid)
            if split is None or not split.shuffled or split.data is None or not positions.shuffled:
                continue
            if table.ordered or table.time_index or table.lagged:
                split.data = replace(
                    split.data,
                    ordered=split.data.ordered | table.ordered,
                    time_index=split.data.time_index | table.time_index,
                    lagged=split.data.lagged | table.lagged,
                )

    def _part_split(self, sid: str, node: ast.AST, data: Data) -> str:
        if sid not in self.record.splits:
            self.record.splits[sid] = Split(sid, self.site(node), sid.partition(":")[0], False, data)
        return sid

    def store_item(self, target: ast.Subscript, value: Value, stmt: ast.AST) -> None:
        """`df["new"] = ...`, `df.loc[mask, "c"] = ...`, `scores[name] = acc`: the table or dict changed."""
        base = target.value
        indexer = base.attr if isinstance(base, ast.Attribute) and base.attr in ("loc", "iloc", "at", "iat") else None
        holder_node = base.value if indexer is not None and isinstance(base, ast.Attribute) else base
        holder = self.ev(holder_node)
        key = self.ev(target.slice)
        for oid in sorted(holder.objects):
            found = self.record.objects[oid]
            if found.qualname == CONTAINER and key.data is not None and _counted_per_key(holder_node, stmt):
                # counts[w] = counts.get(w, 0) + 1 over every text's words: the words counted are a vocabulary
                # learned from those rows, its most frequent ones kept later
                what = f"{self.text(holder_node)}[...]"
                fid = self.fit(stmt, what, "the vocabulary and its counts", Strength.STATISTICS, key.data)
                key = value = Value(stats=frozenset({fid}))
            if found.qualname == CONTAINER:
                found.elements = found.elements.join(value)
                found.keys = found.keys.join(key)
                if key.const is not None:
                    found.entries[key.const] = found.entries.get(key.const, NOTHING).join(value)
        dicts = [self.record.objects[o] for o in holder.objects if self.record.objects[o].qualname == DATASET_DICT]
        if indexer is None and dicts and isinstance(key.const, str) and holder.data is None:
            for found in dicts:  # ds["train"] = concatenate_datasets([...]): that split's rows now, the others kept
                found.entries[key.const] = value
            return
        keyed = key.const is not None and any(self.record.objects[o].qualname == CONTAINER for o in holder.objects)
        predicted_into_blank = (
            holder.data is not None and holder.data.blank and value.data is not None and bool(value.data.predicted)
        )
        if holder.data is None or predicted_into_blank:
            # oof[va_idx] = model.predict(X.iloc[va_idx]) of oof = np.zeros(len(X)): an array of predictions
            if keyed:  # parts["test"] = ...: an entry of a dict, kept under its key, not rows of the dict itself
                return
            # vec[index[w]] = c, v[i] += 1 for the ids a fitted tokenizer gives: the array now holds what was fitted,
            # its positions chosen by it (a bag of words, a one-hot)
            placed = key.stats | (key.data.fits if key.data is not None else frozenset())
            if value.data is not None or value.stats or placed:
                filled = value.data if value.data is not None else self.source(stmt, f"{self.text(holder_node)}")
                filled = self.with_fits(filled, holder.stats | value.stats | placed)
                self.mutate(holder_node, replace(holder, data=filled))
            return
        data = holder.data
        if value.data is None and any(self.record.objects[o].qualname == CONTAINER for o in value.objects):
            # df["m"] = [f(row) for row in ...]: the column holds what the list's elements are made of
            inner = self.iterate(value)
            value = Value(data=inner.data, stats=value.stats | inner.stats, scores=value.scores | inner.scores)
        names = key.strings()
        if isinstance(target.slice, ast.Tuple) and len(target.slice.elts) == 2:
            names = self.ev(target.slice.elts[1]).strings()
        incoming = value.data
        fits = value.stats | (incoming.fits if incoming is not None else frozenset())
        if isinstance(target.slice, ast.Tuple) and not names:
            # X[r, index.get(w)] += 1 of a vocabulary learned from the rows: the cells it fills were chosen by it
            fits |= self.stats_in([self.ev(e) for e in target.slice.elts[1:]])
        columns = data.columns
        if columns is not None and names and indexer != "iloc":
            # A lag (values of earlier rows) is not computed from the row's own label; values from elsewhere
            # (a loader's target) were not computed from this table's columns.
            picked = incoming is not None and incoming.picked and not incoming.past and not incoming.elsewhere
            # of the columns it is computed from, those it holds only as earlier rows' values are a lag of them
            sources = incoming.sources - incoming.earlier if picked and incoming is not None else frozenset()
            number = incoming is not None and incoming.number
            for name in names:
                columns = columns.adding(name, sources, number)
                self.column_made(name, stmt)
            if incoming is not None and incoming.numeric:  # df["log_price"] = np.log1p(df["price"]): price too
                columns = replace(columns, numbers=columns.numbers | incoming.numeric)
        # Values stored in named columns carry their fits in those columns only: a LabelEncoder's codes of the
        # target in df["y"] leave with the column when the features are df.drop(columns="y").
        named = columns is not None and bool(names) and indexer != "iloc" and not (columns and columns.opaque)
        changed = replace(data.in_columns(fits, names or ()) if named else self.with_fits(data, fits), columns=columns)
        if incoming is not None and named and incoming.predicted:  # test["pred"] = model.predict(X_test)
            held = {(n, m) for n in names or () for m in incoming.predicted}
            changed = replace(changed, predictions=changed.predictions | held)
        if incoming is not None:
            changed = replace(
                changed,
                lagged=changed.lagged | incoming.lagged,
                # values from later rows stored in named columns are in those columns only: a target taken from
                # the next row (shift(-1)) is not a feature
                later=changed.later
                | ({(line, n) for line, _ in incoming.later for n in names or ()} if named else incoming.later),
                dates=changed.dates | (frozenset(names or ()) if incoming.dates else frozenset()),
                ordered=changed.ordered | incoming.ordered,
                rows=changed.rows if data.rows else incoming.rows,
            )
        self.mutate(holder_node, replace(holder, data=changed))


def _summary_of_rows(name: str, args: list[Value], kwargs: dict[str, Value]) -> bool:
    """Whether ``name(args)`` sums up each column over the rows: `describe()`, or `agg`/`aggregate` of reductions
    named by strings (`agg(["mean", "std"])`, `agg("median")`), down the rows (not `axis=1`)."""
    axis = kwargs.get("axis")
    if axis is not None and axis.const not in (0, "index"):
        return False
    if name == "describe":
        return True
    if name not in ("agg", "aggregate") or not args:
        return False
    named = args[0].strings()
    return named is not None and bool(named) and all(n in ROW_REDUCTIONS_BY_NAME for n in named)


ROW_REDUCTIONS_BY_NAME = frozenset({"mean", "median", "std", "var", "min", "max", "quantile", "sum", "sem", "mad"})


def _renumbered(data: Data, line: int) -> frozenset[tuple[Part, int]]:
    """The parts whose row labels reset_index numbers anew at ``line``: the last part each row was taken by (a
    whole table's labels are already its positions)."""
    return data.renumbered | {(a.parts[-1], line) for a in data.rows if a.parts}


# Methods that put the values of their argument in the rows they fill (fillna(other), where(cond, other)).
_FILLS_FROM = frozenset(["fillna", "combine_first", "where", "mask", "fill_null"])


def _dates_only(data: Data) -> bool:
    """Whether ``data`` is one column, of dates or times, picked from its table."""
    return data.picked and len(data.sources) == 1 and data.sources <= data.dates


# What a key of an archive's array says of its role, not of its part: X_test, y_test, test_x, labels_train
_ARRAY_ROLE = re.compile(r"(?i)^(x|y|features?|labels?|targets?|inputs?)_|_(x|y|features?|labels?|targets?)$")
# Keys that name a role only, no part: the archive's own rows
_ROLE_ONLY = re.compile(r"(?i)x|y|features?|labels?|targets?|inputs?|data|arr_\d+")
_SIDES = ("head", "tail")  # the two sides of a cut of a series, in order
# numpy's index tricks that put arrays together: np.c_[X, y] as column_stack, np.r_[a, b] as concatenate
_STACKERS = {"numpy.c_": "numpy.column_stack", "numpy.r_": "numpy.concatenate"}
# Running totals, maxima, minima and products: of every row up to and with each one
_RUNNING = frozenset({"cumsum", "cumprod", "cummax", "cummin"})
# A group's methods that read each row and those before (or after) it in order, named as text to `transform`
_ROW_ORDER_METHODS = frozenset(
    {"shift", "diff", "pct_change", "ffill", "bfill", "cumsum", "cumprod", "cummax", "cummin", "cumcount"}
)


def _from_later_rows(name: str, args: list[Value], kwargs: dict[str, Value]) -> bool:
    """Whether a method gives a row values of the rows after it: bfill, interpolate (which reads the next value),
    fillna(method="bfill"), shift(-k) (and diff(-k), pct_change(-k)), a centred rolling window; ffill and shift(k)
    read earlier rows only."""
    if name in ("bfill", "backfill"):
        return True
    if name == "interpolate":
        method = (args[0] if args else kwargs.get("method", NOTHING)).const
        return method not in ("pad", "ffill")
    if name == "fillna":
        method = kwargs.get("method", NOTHING).const
        return method in ("bfill", "backfill")
    if name in ("shift", "diff", "pct_change"):
        periods = (args[0] if args else kwargs.get("periods", NOTHING)).const
        return isinstance(periods, int) and not isinstance(periods, bool) and periods < 0
    if name == "rolling":
        return kwargs.get("center", NOTHING).const is True
    return False


def _from_earlier_rows(name: str, args: list[Value], kwargs: dict[str, Value]) -> bool:
    """Whether a method gives a row values of the rows before it: a trailing window, a running total, ffill, a lag
    shift(k) with k > 0 (in reversed rows, those are the rows after it)."""
    if name in ("rolling", "expanding", "ewm", "ffill", "pad", "cumsum", "cumprod", "cummax", "cummin"):
        return name != "rolling" or kwargs.get("center", NOTHING).const is not True
    if name in ("shift", "diff", "pct_change"):
        periods = (args[0] if args else kwargs.get("periods", NOTHING)).const
        return periods is None or (isinstance(periods, int) and not isinstance(periods, bool) and periods > 0)
    return False


def _reverses(bounds: ast.Slice) -> bool:
    """Whether a slice of every row takes them in reverse order: `[::-1]`."""
    step = bounds.step
    return isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub) and isinstance(step.operand, ast.Constant)


# Methods and functions that take values from earlier rows (a lag, a window, a running total).
EARLIER_ROWS = TIME_FEATURE_METHODS | frozenset(["cumsum", "cumprod", "cummax", "cummin", "cumcount"])
# Methods and functions that reduce rows to a statistic (a function given them learns it from the group).
GROUP_STATISTICS = ROW_REDUCTIONS | ROW_REDUCTIONS_NUMPY | frozenset(["count", "nunique", "agg", "aggregate"])


def _fit_function(qualname: str) -> bool:
    """Whether a library's function learns from the rows it is given (scipy's zscore, sklearn's scale)."""
    return (qualname.partition(".")[0], qualname.rpartition(".")[2]) in FIT_FUNCTIONS


def _written_in(site: Site, node: ast.AST) -> bool:
    """Whether a place lies inside the code of ``node`` (a lambda, a function's definition)."""
    start = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
    end = (getattr(node, "end_lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0)
    return start <= (site.line, site.column) <= end


def _called_names(function: ast.AST) -> set[str]:
    """The names of what a function's body calls: `s.shift(1)`, `np.mean(s)` and `mean(s)` give shift and mean
    (a function called by its bare name with more than one value, `max(v, 0)`, compares values: left out)."""
    found = set()
    for inner in ast.walk(function):
        if isinstance(inner, ast.Call):
            func = inner.func
            if isinstance(func, ast.Attribute):
                found.add(func.attr)
            elif isinstance(func, ast.Name) and len(inner.args) == 1:
                found.add(func.id)
    return found


INDICATOR = "indicator:"  # the mark of a merge's indicator column (its name follows) in Data.outside


def _is_index(node: ast.expr | None) -> bool:
    """Whether an expression is a table's index as written (`df.index`, `train.index`)."""
    return isinstance(node, ast.Attribute) and node.attr == "index"


def _members(data: Data, other: Value, receiver: ast.expr | None, given: ast.expr) -> frozenset[Atom]:
    """The rows the negation of a membership test, `~x.isin(other)`, surely leaves out: those of ``other``, when
    they are a side of a split and the test compares like with like, an index with their index
    (`df.index.isin(train.index)`) or a column with their same column (`df["id"].isin(train["id"])`: each of
    their rows has its key among theirs). Empty otherwise."""
    found = other.data
    if found is None or not found.rows or not all(a.parts for a in found.rows):
        return frozenset()
    if _is_index(receiver) and (_is_index(given) or other.parts):
        return found.rows
    same_column = len(data.sources) == 1 and data.sources == found.sources
    return found.rows if same_column and data.picked and found.picked else frozenset()


def _same_keys(kwargs: dict[str, Value]) -> bool:
    """Whether a join matches rows by the same columns on both sides (on=, or left_on= naming right_on=)."""
    left, right = kwargs.get("left_on"), kwargs.get("right_on")
    if left is None and right is None:
        return "left_index" not in kwargs and "right_index" not in kwargs
    return left is not None and right is not None and left.strings() is not None and left.strings() == right.strings()


def _entries_of(record: object, mapping: Value) -> list[tuple[Hashable, Value]]:
    """The keys and values of the dicts a mapping may be (`map({"yes": 1, "no": 0})`)."""
    from auditor.code.events import Record

    assert isinstance(record, Record)
    return [e for oid in mapping.objects for e in record.objects[oid].entries.items()]


def _numbers_of(record: object, mapping: Value) -> bool:
    """Whether a mapping (a dict literal) sends every key to a number: `map({"yes": 1, "no": 0})`."""
    values = [v for _, v in _entries_of(record, mapping)]
    return bool(values) and all(isinstance(v.const, int | float) and not isinstance(v.const, bool) for v in values)


def _texts_mapped(record: object, mapping: Value) -> bool:
    """Whether a mapping (a dict literal) has only texts for keys: `map({"yes": 1, "no": 0})`."""
    keys = [k for k, _ in _entries_of(record, mapping)]
    return bool(keys) and all(isinstance(k, str) for k in keys)


def dtype_choice(args: list[Value], kwargs: dict[str, Value]) -> str | None:
    """select_dtypes(include="number") keeps the numeric columns, exclude="number" or include="object" some of the
    others (None: unknown)."""

    def numeric(value: Value | None) -> bool | None:
        """True: numeric kinds only; False: no numeric kind; None: both, or not known."""
        if value is None:
            return None
        written = [*(value.strings() or []), *(n.rpartition(".")[2] for n in value.names)]
        if not written:
            return None
        kinds = {any(k in w.lower() for k in ("number", "int", "float", "complex")) for w in written}
        return kinds.pop() if len(kinds) == 1 else None

    include = numeric(kwargs.get("include", args[0] if args else None))
    exclude = numeric(kwargs.get("exclude", args[1] if len(args) > 1 else None))
    if include is True:
        return "number"
    if include is None and exclude is False and "include" not in kwargs and not args:
        # exclude="object": the numeric columns stay (read as "number"; a bool or date column it keeps too is
        # read as unknown, as it was)
        return "number"
    if include is False or (include is None and exclude is True):
        return "other"
    return None


# Methods of a polars expression that reduce a column over the rows (a per-row step such as shift or
# rolling_mean is not one).
# polars' tests of a column's values that pandas writes with other words: is_between(a, b, closed=...) keeps what
# between(a, b, inclusive=...) does, with "none" for pandas' "neither"
_POLARS_TESTS = {"is_between": "between", "is_in": "isin"}
_POLARS_CLOSED = {"none": "neither"}


def _polars_test(call: ast.Call) -> bool:
    """Whether ``call`` is one of polars' tests of a column's values (`pl.col("year").is_between(2015, 2020)`)."""
    return isinstance(call.func, ast.Attribute) and call.func.attr in _POLARS_TESTS


def _fills_with_statistic(call: ast.Call) -> str | None:
    """The statistic of the rows polars' `fill_null(strategy="mean")` (or "min", "max") fills the nulls with;
    None for any other call."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "fill_null"):
        return None
    strategy = next((k.value for k in call.keywords if k.arg == "strategy"), None)
    if isinstance(strategy, ast.Constant) and strategy.value in ("mean", "min", "max"):
        return str(strategy.value)
    return None


POLARS_REDUCTIONS = frozenset(
    ["mean", "median", "std", "var", "min", "max", "quantile", "sum", "n_unique", "mode", "skew", "kurtosis"]
)

SLICE = "slice"  # the split a slice of rows takes a side of (numbered by how many slices came before)


# polars methods that take values from other rows (a lag, a window, a group's statistic): what they make is not
# computed from the row's own values
_OTHER_ROWS = frozenset(
    ["shift", "diff", "pct_change", "over", "cum_sum", "cum_max", "cum_min", "cum_count", "cum_prod", "rank"]
)


def _row_wise_reads(expr: ast.expr) -> tuple[str, ...]:
    """The columns a polars expression reads (`pl.col("qid").hash() % 10` reads qid) when it computes each row from
    that row's own values; none when it takes any other row's (a shift, a rolling window, a group's statistic)."""
    read: list[str] = []
    for inner in ast.walk(expr):
        if not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)):
            continue
        name = inner.func.attr
        if name in _OTHER_ROWS or name.startswith("rolling") or name in POLARS_REDUCTIONS:
            return ()
        given = inner.args[0] if name == "col" and len(inner.args) == 1 else None
        if isinstance(given, ast.Constant) and isinstance(given.value, str):
            read.append(given.value)
    return tuple(dict.fromkeys(read))


def _aliases(expr: ast.expr) -> list[str]:
    """The names a polars expression gives its result: `.alias("name")` at its end (none known otherwise)."""
    named = isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "alias"
    first = expr.args[0] if named and isinstance(expr, ast.Call) and expr.args else None
    return [first.value] if isinstance(first, ast.Constant) and isinstance(first.value, str) else []


def _counted(args: list[Value], kwargs: dict[str, Value]) -> bool:
    """A single count argument (not rows, not a split's indices): take(n) and skip(n) of a stream of rows."""
    return len(args) == 1 and not kwargs and args[0].data is None and not args[0].parts and not args[0].items


def _fits_in(value: Value) -> frozenset[int]:
    """The fits the rows in ``value`` (or in its items: a tuple of features and label) went through."""
    found = value.data.fits if value.data is not None else frozenset()
    for item in value.items or ():
        found |= _fits_in(item)
    return found


def _sliced(atom: Atom, split: str, side: str, span: tuple[str, Bound, Bound] | tuple[()] = ()) -> Atom:
    depth = sum(p.split.startswith(SLICE) for p in atom.parts)
    return atom.with_part(Part(f"{split}{depth or ''}", side, span))


def _open_term(node: ast.expr, number: Callable[[ast.expr], object]) -> bool:
    """Whether a bound is a sum or difference with a term no number is known for (`len(ids) - n_test`)."""
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub) and number(node.right) is None


def _cut_each(
    rows: frozenset[Atom], split: str, side: str, span: tuple[str, Bound, Bound] | tuple[()]
) -> frozenset[Atom]:
    """``rows`` cut by position. Positions count in one sequence of rows: rows put together from several (a history
    a loop appends each pass's row to) are numbered across them all, so the cut composes with no one's own slice."""
    alone = len(rows) == 1
    return frozenset((_narrowed(a, span) if alone else None) or _sliced(a, split, side, span) for a in rows)


def _narrowed(atom: Atom, span: tuple[str, Bound, Bound] | tuple[()]) -> Atom | None:
    """A slice of rows just sliced by position, as one slice of the rows before, when the bounds compose:
    `df.iloc[n - 24:]` then `.iloc[24:]` are the rows from n, which `df.iloc[:n]` does not hold; windows from
    position 30 on (`X`, one per row of `s[30:]`) then `X[:cut - 30]` are the rows of `s[30:cut]`. None when they
    cannot be composed (the slice is then a slice of the slice)."""
    last = atom.parts[-1] if atom.parts else None
    if last is None or not last.split.startswith(SLICE) or not last.span or not span or last.span[0] != span[0]:
        return None
    _, start, end = span
    _, outer_start, outer_end = last.span
    # Bounds that are names compose only in rows that start at a count and run to the end (windows from position
    # `win` on): `s[:-1][n:]` beside `s[1:][:n]` (lagged features and their targets) stay slices of slices, whose
    # positions are the samples', not the series'.
    windows = outer_start[0] == "" and outer_start[1] > 0 and outer_end[0] == OPEN
    if not windows and (start[0] != "" or end[0] != OPEN):
        return None
    origin: Bound = ("", 0, True) if outer_start[0] == OPEN else outer_start  # where position 0 of the slice lies
    lower = outer_start if start[0] == OPEN else _shifted(start, origin)
    upper = outer_end if end[0] == OPEN else _shifted(end, origin)
    if lower is None or upper is None:
        return None
    if end[0] != OPEN and outer_end[0] != OPEN:  # the end of both: the nearer one, when they can be compared
        if outer_end[0] != upper[0]:
            return None
        upper = min(upper, outer_end, key=lambda b: (b[1], b[2]))
    # the first windows (`X[:a]` of windows from position `win` on) are the head of the rows the windows cover: a
    # cut against `X[b:]` that cannot be compared is a clean one, as `[:a]` and `[b:]` of the rows are
    head = lower[0] == OPEN or (windows and start[0] == OPEN)
    side = "head" if head else "tail" if upper[0] == OPEN else "range"
    return Atom(atom.origin, (*atom.parts[:-1], Part(last.split, side, (span[0], lower, upper))))


def _shifted(bound: Bound, origin: Bound) -> Bound | None:
    """A position counted in a slice, counted in the rows it was sliced from (the slice starts at ``origin``);
    None when neither counts from the start of the rows (two names cannot be added)."""
    if bound[0] == "":
        return (origin[0], origin[1] + bound[1], bound[2])
    if origin[0] == "" and bound[0] != "<end>":
        return (bound[0], bound[1] + origin[1], bound[2])
    return None


def _cut_as(atom: Atom, parts: tuple[Part, ...]) -> Atom:
    """``atom``'s rows through each of ``parts`` in turn."""
    for part in parts:
        atom = atom.with_part(part)
    return atom


def _keyed(data: Data, key: object, splits: tuple[str, ...] = KEYED_SPLITS) -> Data | None:
    """The rows a split that names its parts put under ``key`` (`combined.loc["train"]`, `ds["test"]`), None when
    none did. The last such split decides: `load_dataset(...)["train"].train_test_split()["test"]` is a test part."""
    if not isinstance(key, str):
        return None
    kept = frozenset(a for a in data.rows if _last_named(a, splits) == key)
    return replace(data, rows=kept) if kept else None


def _last_named(atom: Atom, splits: tuple[str, ...]) -> str | None:
    """The side of the last split among ``splits`` that took these rows."""
    named = [p.side for p in atom.parts if p.split.startswith(splits)]
    return named[-1] if named else None


def _same_origin(index: Data, data: Data) -> bool:
    """Whether an index's values come from the rows it indexes (a mask of them), not from another source."""
    return bool({a.origin for a in index.rows} & {a.origin for a in data.rows})


def _names_columns(index: Value, node: ast.expr) -> bool:
    """Whether a subscript's index names columns: a string, or a list of strings."""
    if isinstance(node, ast.Slice) or index.data is not None or index.parts:
        return False
    return index.strings() is not None and bool(index.strings())


class _Substituted(ast.NodeTransformer):
    """A query's names written as the values they are known to hold."""

    def __init__(self, values: dict[str, str | int | float | ast.expr]) -> None:
        self.values = values

    def visit_Name(self, node: ast.Name) -> ast.expr:
        value = self.values.get(node.id)
        if value is None:
            return node
        return ast.copy_location(value if isinstance(value, ast.expr) else ast.Constant(value), node)


def _group_statistic(data: Data, fid: int) -> Data:
    """`g["units"].transform("mean")`: each row's group's statistic, a value of the group's keys looked up in what
    the fit ``fid`` learned (as `.map(means)` is), not the row's own value of the column: a mean of the label is a
    target encoding, leaking as its fit does (the rows it learned from), not a label among the features."""
    return replace(data, fits=data.fits | {fid}, grouped=False, sources=data.group_key)


def _flag_kept(data: Data, rows_node: ast.expr, value: Value) -> str | None:
    """`df["is_test"] == True` for rows chosen by a column of the table itself (`df[df["is_test"]]`), `== False`
    for `df[~df["is_test"]]`: pandas takes a column given as the rows to keep as a mask, so it holds True and False.
    None for any other index."""
    given = value.data
    if given is None or not given.picked or len(given.sources) != 1 or given.predicted or not given.rows:
        return None
    origins = {a.origin for a in data.rows}
    if not all(a.origin in origins for a in given.rows):
        return None  # a column of another table: what its values select is not known
    negated = isinstance(rows_node, ast.UnaryOp) and isinstance(rows_node.op, ast.Invert)
    column = rows_node.operand if isinstance(rows_node, ast.UnaryOp) and negated else rows_node
    return f"{ast.unparse(column)} == {not negated}"


def _side(mask: str) -> str:
    """A mask's condition as the name of the side of its split, in one spelling (as ast writes it, so `a<1` and
    `a < 1` agree while the spaces inside a text such as `"2023-06-01 12:00"` stay)."""
    try:
        return ast.unparse(ast.parse(mask, mode="eval"))
    except (SyntaxError, ValueError, RecursionError):
        return "".join(mask.split())


__all__ = ["Frames", "dtype_choice", "is_time_name", "join_all"]


def _counted_per_key(holder: ast.expr, stmt: ast.AST) -> bool:
    """Whether a statement keeps a count per key in a dict: `d[k] += 1`, or `d[k] = d.get(k, 0) + 1`."""
    if isinstance(stmt, ast.AugAssign):
        return True
    if not isinstance(stmt, ast.Assign) or not isinstance(holder, ast.Name):
        return False
    return any(isinstance(n, ast.Name) and n.id == holder.id for n in ast.walk(stmt.value))


def _group_side(name: str, node: ast.Call) -> str | None:
    """The side of a cut within every group that `head(k)`, `tail(k)` or `nth(slice(k, None))` of a groupby takes:
    its first rows or its last ones (None: another method, or rows it cannot say)."""
    if name in ("head", "tail"):
        return name
    if name != "nth" or len(node.args) != 1:
        return None
    chosen = node.args[0]
    if not (isinstance(chosen, ast.Call) and isinstance(chosen.func, ast.Name) and chosen.func.id == "slice"):
        return None
    bounds = chosen.args
    if len(bounds) == 2 and _is_none(bounds[1]) and not _is_none(bounds[0]):
        return "tail"  # nth(slice(40, None)): from the 41st row of each group on
    if len(bounds) == 1 or (len(bounds) == 2 and (_is_none(bounds[0]) or _is_zero(bounds[0]))):
        return "head"  # nth(slice(40)), nth(slice(None, 40)), nth(slice(0, 40))
    return None


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _is_zero(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0


def _fits_of(values: Iterable[Value]) -> frozenset[int]:
    """The fits the rows of any of ``values`` went through."""
    return frozenset().union(*(v.data.fits for v in values if v.data is not None))


def _carried(value: Value) -> frozenset[int]:
    """The statistics a value was computed from: its own, and those of the rows it holds."""
    return value.stats | (value.data.fits if value.data is not None else frozenset())


_MEMBERS_WRITTEN = 64  # most members of a named list a mask's text spells out (a message quotes the mask)


def _members_written(node: ast.Call, args: list[Value]) -> ast.Call:
    """`df.year.isin(TEST_YEARS)` with the list the name holds written out (`isin([2020, 2021])`), so two masks
    compare by the values they keep, whatever names held them; the call as it is when a member is not known."""
    if len(node.args) != 1 or node.keywords or not isinstance(node.args[0], ast.Name) or not args:
        return node
    items = args[0].items
    consts = [c for item in items or () if isinstance(c := item.const, int | float | str) and not isinstance(c, bool)]
    if not items or len(items) > _MEMBERS_WRITTEN or len(consts) != len(items):
        return node
    written = ast.copy_location(ast.List(elts=[ast.Constant(c) for c in consts], ctx=ast.Load()), node.args[0])
    return ast.copy_location(ast.Call(func=node.func, args=[written], keywords=[]), node)


def _window_of_positions(element: ast.expr, name: str) -> bool:
    """Whether ``element`` takes a slice whose bounds count from the loop's ``name`` (`s[i - win:i]`,
    `s[i:i + win, 0]`): a window of several rows, not the one row at a position (a target, `s[i]`)."""
    for node in ast.walk(element):
        if isinstance(node, ast.Slice):
            bounds = [b for b in (node.lower, node.upper) if b is not None]
            if any(isinstance(m, ast.Name) and m.id == name for b in bounds for m in ast.walk(b)):
                return True
    return False


def _rows_listed(holder: Value, found: Obj) -> bool:
    """Whether a list holds rows and nothing else (`list(s[-60:])`, `s.tolist()`, then appended rows of those
    same sides): its items are its rows, read as the rows are."""
    elements = found.elements
    if holder.data is None or not holder.data.rows or elements.data is None or not elements.data.rows:
        return False
    if elements.objects or elements.items is not None or elements.scores or elements.stats:
        return False
    return elements.data.rows <= holder.data.rows
