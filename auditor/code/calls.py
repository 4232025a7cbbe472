"""Calls in the walk: a call dispatched on what its callee may be (a library's name, a function of the file, a
method of an object, a table or a list of column names), calls of unknown code, which pass their arguments'
rows on and record nothing, and comparisons (a choice among scores, predictions against labels, masks)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import replace

from auditor.code.catalog import (
    CORRELATION,
    MONAI_TRANSFORMS,
    PER_GROUP,
    POLARS_EXPRESSION,
    SUMMARY_LEARNS,
    Kind,
    Strength,
)
from auditor.code.estimators import HF_TRAIN_NEW
from auditor.code.frames import INDICATOR, in_time
from auditor.code.library import Library
from auditor.code.masks import a_word, instant_of
from auditor.code.paths import path_method
from auditor.code.state import HF_METRIC, LOCAL, MONAI_METRIC, NEIGHBOURS, NOT_SELF, PARTIAL, SBERT_EVALUATOR
from auditor.code.values import NOTHING, Atom, Columns, Value, argument, join_all, join_datas, stats_of

CHOOSING_METHODS = frozenset(
    [
        "idxmax",
        "idxmin",
        "sort_values",
        "nlargest",
        "nsmallest",
        "max",
        "min",
        "argmax",
        "argmin",
        "sort",
        "argsort",
        "most_common",
    ]
)


# A table's writer and the reader that reads its file back (the rows written are the rows read).
_READ_BACK_BY = {
    "to_csv": "read_csv",
    "to_parquet": "read_parquet",
    "to_feather": "read_feather",
    "to_pickle": "read_pickle",
    "to_excel": "read_excel",
    "to_json": "read_json",
    "write_csv": "read_csv",
    "write_parquet": "read_parquet",
}
_PATHS = frozenset({"path", "path_or_buf", "excel_writer", "file"})


class Calls(Library):
    """How calls change values and what they record."""

    def call(self, node: ast.Call) -> Value:
        func = node.func
        receiver = self.ev(func.value) if isinstance(func, ast.Attribute) else None
        callee = None if isinstance(func, ast.Attribute) else self.ev(func)
        args: list[Value] = []
        for given in node.args:
            if not isinstance(given, ast.Starred):
                args.append(self.ev(given))
                continue
            # f(*data), data = (X, y): its items in their places; of a length the walk does not know, its items
            # put together as one argument
            held = self.ev(given.value)
            args += list(held.items) if held.items is not None else [self.iterate(held)]
        kwargs: dict[str, Value] = {}
        for kw in node.keywords:
            value = self.ev(kw.value)
            if kw.arg is not None:
                kwargs[kw.arg] = value
            else:  # **settings: a dict the walk knows the keys of gives them as keywords
                for oid in sorted(value.objects):
                    entries = self.record.objects[oid].entries
                    kwargs.update({k: v for k, v in entries.items() if isinstance(k, str) and k not in kwargs})
                if isinstance(kw.value, ast.Dict) and any(not isinstance(k, ast.Constant) for k in kw.value.keys):
                    # **{col + "_n": ...}: values under names the walk cannot know, kept together
                    elements = [self.record.objects[oid].elements for oid in sorted(value.objects)]
                    kwargs["**"] = kwargs.get("**", NOTHING).join(join_all(elements))
                # **search.best_params_, or a dict made of its items ({k.split("__")[1]: v for ...}): what they
                # were chosen on goes into what is built
                chosen = value.stats.union(*(self.record.objects[o].elements.stats for o in value.objects))
                if chosen:
                    kwargs.setdefault("**", Value(stats=chosen))
                if value.data is not None:  # model(**batch): the rows the batch holds, given by name
                    kwargs["**"] = kwargs.get("**", NOTHING).join(Value(data=value.data))
        if receiver is not None:
            assert isinstance(func, ast.Attribute)
            return self.call_method(receiver, func.attr, args, kwargs, node)
        assert callee is not None
        return self.call_value(callee, args, kwargs, node)

    def call_value(self, callee: Value, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        out = NOTHING
        known = False
        for qualname in sorted(callee.names):
            out = out.join(self.call_name(qualname, args, kwargs, node))
            known = True
        for fid in sorted(callee.functions):
            out = out.join(self.call_function(fid, args, dict(kwargs), node))
            known = True
        applied: frozenset[int] = frozenset()
        for oid in sorted(callee.objects):
            found = self.record.objects[oid]
            if found.role is not None and found.role.kind is Kind.STATELESS:
                applied |= found.baked  # Normalize(mean, std)(x): the statistics it was built with are in x now
            if found.role is not None and found.role.kind is Kind.LEARNER:  # a Keras layer or tokenizer called
                out = out.join(self._transform(found, args, kwargs, node))
                known = True
                continue
            called_as = self.local_method(found.qualname, "__call__") if found.qualname.startswith(LOCAL) else None
            if called_as is not None:  # an instance of the file's class called: its __call__, walked with self bound
                out = out.join(
                    self.call_function(called_as, [Value(objects=frozenset({oid})), *args], dict(kwargs), node)
                )
                known = True
                continue
            if found.qualname == PARTIAL:  # prep(df) of prep = partial(scale, cols=[...]): scale(df, cols=[...])
                func, bound = found.entries["#func"], found.entries["#args"].items or ()
                out = out.join(self.call_value(func, [*bound, *args], {**found.params, **kwargs}, node))
                known = True
                continue
            if found.qualname.startswith(MONAI_TRANSFORMS) and args:
                # post_pred(outputs): a MONAI transform, applied to each row alone; a model's predictions stay its
                out = out.join(Value(data=args[0].data, items=args[0].items))
                known = True
                continue
            if found.qualname == SBERT_EVALUATOR and (args or "model" in kwargs):  # evaluator(model)
                out = out.join(self.sbert_evaluated(found, argument(args, kwargs, 0, "model"), node))
                known = True
                continue
            if found.qualname == MONAI_METRIC:  # dice_metric(y_pred=outputs, y=labels): a batch scored, kept
                scored = self.metric(
                    str(found.params["#name"].const),
                    [kwargs.get("y", NOTHING), *args, kwargs.get("y_pred", NOTHING)],
                    {},
                    node,
                )
                found.entries["#scored"] = found.entries.get("#scored", NOTHING).join(scored)
                known = True
                continue
            called = self.torch_call(found, args, kwargs, node)  # a torch network's forward pass, or its loss
            if called is not None:
                out = out.join(called)
                known = True
        if callee.method is not None:
            receiver, name = callee.method
            out = out.join(self.call_method(receiver, name, args, kwargs, node))
            known = True
        out = out if known else self.unknown_call(args, kwargs, node)
        if applied and out.data is not None:
            out = replace(out, data=self.with_fits(out.data, applied))
        return out

    def call_method(
        self, receiver: Value, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        if name == HF_TRAIN_NEW:  # whatever tokenizer it is called on (loaded pretrained), a new one trained here
            return self.tokenizer_trained(args, kwargs, node)
        path = path_method(receiver, name, args, kwargs)
        if path is not None:  # root.expanduser(), root.joinpath("a.csv"): a path known as its text
            return Value(consts=frozenset({path}))
        out = NOTHING
        known = False
        for qualname in sorted(receiver.names):
            out = out.join(self.call_name(f"{qualname}.{name}", args, kwargs, node))
            known = True
        if POLARS_EXPRESSION in receiver.names:
            # (pl.col("a") - mu).alias("z"), pl.col("a").fill_null(df["a"].mean()): the statistics the chain holds
            given = [*args, *kwargs.values()]
            fitted = frozenset().union(*(v.data.fits for v in given if v.data is not None))  # select(...).item()
            out = out.join(Value(stats=receiver.stats | self.stats_in(given) | fitted))
        scorer = argument(args, kwargs, 0, "evaluator")
        for oid in sorted(scorer.objects) if name == "evaluate" else ():
            if self.record.objects[oid].qualname == SBERT_EVALUATOR:  # model.evaluate(evaluator): evaluator(model)
                return self.sbert_evaluated(self.record.objects[oid], receiver, node)
        for oid in sorted(receiver.objects):
            found = self.record.objects[oid]
            if found.qualname == MONAI_METRIC and name == "aggregate":  # the score of every batch it was given
                return found.entries.get("#scored", NOTHING)
            if found.qualname == HF_METRIC and name == "compute":
                # evaluate.load("accuracy").compute(predictions=..., references=...): a score of those rows
                given = [kwargs.get("references", NOTHING), kwargs.get("predictions", NOTHING), *args]
                metric = found.params.get("#name", NOTHING).const
                return self.metric(str(metric) if isinstance(metric, str) else "compute", given, {}, node)
        for oid in sorted(receiver.objects):
            found = self.record.objects[oid]
            if name == "_replace" and self.record_fields(found.qualname):
                # parts._replace(X_train=...) of a NamedTuple of the file: a copy, those fields given anew
                out = out.join(self.record_replaced(found, kwargs, node))
                known = True
                continue
            result = self.torch_method(self.record.objects[oid], name, args)
            if result is None:
                result = self.object_method(self.record.objects[oid], name, args, kwargs, node)
            if result is not None:
                out = out.join(result)
                known = True
        if receiver.data is not None and name == "backward" and receiver.data.predicted:
            for eid in receiver.scores:
                self.record.evaluations[eid].backpropagated = True
            out = out.join(self.backward(receiver.data, node))
            known = True
        elif receiver.data is None and name == "backward" and receiver.scores:
            # ((net(X) - y) ** 2).mean().backward(): a loss written by hand, read as a metric of those rows, is
            # what the network is trained by
            for eid in sorted(receiver.scores):
                scored = self.record.evaluations[eid]
                if scored.x is not None and scored.x.predicted:
                    scored.backpropagated = True
                    out = out.join(self.backward(scored.x, node))
                    known = True
        elif receiver.data is not None and name in _COMPARISON_METHODS and len(args) == 1 and not kwargs:
            # s.gt(15), s.eq("x"): the comparison written as a method, read as `s > 15` is
            assert isinstance(node.func, ast.Attribute)
            written = ast.Compare(left=node.func.value, ops=[_COMPARISON_METHODS[name]()], comparators=[node.args[0]])
            out = out.join(
                self.compare(ast.fix_missing_locations(ast.copy_location(written, node)), [receiver, args[0]])
            )
            known = True
        elif receiver.data is not None:
            reader = _READ_BACK_BY.get(name)
            where = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg in _PATHS), None)
            if reader is not None and where is not None:
                self.written_to(reader, where, receiver.data)
            out = out.join(self.data_method(receiver, name, args, kwargs, node))
            known = True
        if receiver.names_of is not None:
            out = out.join(self._names_method(receiver, name, args, node))
            known = True
        if receiver.scores:
            if name in CHOOSING_METHODS:
                # .max() of a column of scores is the best value; .idxmax() and sort_values() say which one
                values_only = name in ("max", "min", "sort") and self.only_scores(self.iterate(receiver))
                self.choose(node, f".{name}()", receiver.scores, picks=not values_only)
            out = out.join(Value(scores=receiver.scores))
            known = True
        if receiver.stats:
            out = out.join(Value(stats=receiver.stats))
            known = True
        return out if known else self.unknown_call([receiver, *args], kwargs, node)

    def _names_method(self, receiver: Value, name: str, args: list[Value], node: ast.Call) -> Value:
        """Methods of a list of column names: drop/difference leave names out, remove does so in place."""
        names = receiver.names_of
        assert names is not None
        left_out = args[0].strings() if args else None
        if name in ("drop", "difference", "remove") and left_out is not None:
            fewer = Value(names_of=names.without(left_out))
            if name == "remove" and isinstance(node.func, ast.Attribute):
                self.mutate(node.func.value, fewer)
                return NOTHING
            return fewer
        if name in ("tolist", "to_list", "copy", "to_numpy", "values"):
            return Value(names_of=names)
        return Value(names_of=Columns(opaque=True))

    def unknown_call(self, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """Code the walk does not know: its result holds its arguments' rows (values computed row by row from
        them), the statistics and scores they carry, and may be an object of unknown class."""
        given = [*args, *kwargs.values()]
        data = self.rows_of(given)
        stats = stats_of(given)
        scores = self.scores_in(given)
        if data is not None:
            data = replace(self.with_fits(data, stats), mask=None, against_truth=False, predicted=frozenset())
        elif not scores:  # rows from somewhere the walk cannot see (a loader of the user's): a source of its own
            data = self.source(node, f"{self.text(node.func)}()")
        opaque = self.obj(node, f"<result of {self.text(node.func)}>")
        return Value(
            data=data,
            objects=frozenset({opaque.id}),
            scores=scores,
            stats=stats if data is None else frozenset(),
            items=self._side_by_side(args),
        )

    def _side_by_side(self, args: list[Value]) -> tuple[Value, ...] | None:
        """For a result unpacked into as many names as it was given rows that share none (`X_train, X_test =
        scale(X_train, X_test)`, a helper of the user's or a library's): each name the rows in its place, as such
        a helper returns them. Without it the training part would hold the test rows too. Rows that may share
        some (`X, y` of one table) give no items: the result is all of them, as before."""
        parts = [a for a in args if a.data is not None]
        if len(parts) < 2:
            return None
        for i, a in enumerate(parts):
            for b in parts[i + 1 :]:
                assert a.data is not None and b.data is not None
                if not all(x.disjoint(y) for x in a.data.rows for y in b.data.rows):
                    return None
        return tuple(
            Value(data=replace(self.with_fits(a.data, a.stats), mask=None, against_truth=False, predicted=frozenset()))
            for a in parts
            if a.data is not None
        )

    def compare(self, node: ast.Compare, values: list[Value]) -> Value:
        mask = self._not_self(node, values)
        if mask is not None:
            return mask
        scored = [v for v in values if v.scores or self.scores_in([v])]
        if len(scored) >= 2:  # a choice of which one, unless its branch keeps only the best value (a running max)
            picks = id(node) not in self.value_compares
            self.choose(node, "a comparison of scores", self.scores_in(values), picks)
        datas = [v.data for v in values if v.data is not None]
        if not datas:
            # pvalues < 0.05 of a test of each column against the label, corr[cols] > 0.1: a mask of the columns
            # that predict the label. A mask by another statistic (a fraction missing) is not read as one.
            stats = frozenset(f for f in stats_of(values) if self._scores_columns(f))
            return Value(stats=stats) if stats and not scored else NOTHING
        joined = join_datas(datas)
        assert joined is not None
        predicted = [d for d in datas if d.predicted]
        if predicted and len(datas) >= 2:
            return Value(data=replace(joined, against_truth=True, mask=None))
        cut = any(isinstance(op, ast.Lt | ast.LtE | ast.Gt | ast.GtE) for op in node.ops)
        if predicted and not cut:  # pred == c: one class's predictions, the labels chosen nothing (no setting)
            return Value(data=replace(joined, mask=None))
        if predicted:  # proba > 0.5: still the model's predictions, cut at a threshold (a setting of their own)
            fixed = _fixed_cut(node, values)
            # a cut at a number is the same setting in every pass of a loop (over metrics, say); one at a name
            # may be another each pass (`for t in ts`)
            setting = (fixed, ()) if fixed is not None else (f"{node.lineno}:{node.col_offset}", tuple(self.loops))
            return Value(data=replace(joined, mask=None, tuned=joined.tuned | {setting}))
        timed = [d for d in datas if in_time(d)]
        if cut and timed:
            # a window back from the last date, `df.date > df.date.max() - pd.Timedelta("30D")`: the statistic only
            # places the cut in time, and chooses no row by its values
            joined = replace(joined, fits=frozenset().union(*(d.fits for d in timed)))
        elif cut:  # df.price < df.price.quantile(0.99): a threshold learned from the rows
            self.threshold(node, stats_of([v for v in values if v.data is None]))
        # read again, so never cut short
        text = self.whole(self.members_written(_known_bounds(node, values, self._instant_made, self.column_held)))
        numbers = [isinstance(v.const, int | float) and not isinstance(v.const, bool) for v in values]
        if cut and (any(numbers) or any(_number_written(o) for o in (node.left, *node.comparators))):
            # df["stars"] >= 4: a column of text cannot be ordered against a number, so it holds numbers
            shown = frozenset().union(*(d.sources for d in datas if d.picked))
            joined = replace(joined, numeric=joined.numeric | shown)
        texts = [isinstance(v.const, str) and instant_of(ast.Constant(v.const)) is None for v in values]
        # df["Churn"] == "Yes": a column equal to a word (no number, no date written as text) holds text
        worded = [isinstance(v.const, str) and a_word(v.const) for v in values]
        equal = all(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops)
        if ((cut and any(texts)) or (equal and any(worded))) and len(datas) == 1:
            # df["grade"] <= "B": a column ordered against a text (not a date) holds text, not numbers
            shown = frozenset(datas[0].sources) if datas[0].picked else frozenset()
            joined = replace(joined, textual=joined.textual | shown)
        return Value(data=replace(joined, mask=text, predicted=frozenset(), outside=_left_only(node, values, text)))

    def instants_written(self, node: ast.Call) -> ast.Call:
        """`s.between(CUT - GAP, END)` with each bound that names an instant written as that instant, as a
        comparison's bounds are (the call as it is when none does)."""
        args = [
            (self._instant_made(a) if isinstance(a, ast.Name) else _moved_instant(a, self._instant_made)) or a
            for a in node.args
        ]
        if args == node.args:
            return node
        return ast.copy_location(ast.Call(func=node.func, args=args, keywords=node.keywords), node)

    def _instant_made(self, name: ast.expr) -> ast.expr | None:
        """The call a name was last given, where it makes an instant of constants (`cut = pd.Timestamp(
        "2023-06-01")`, `datetime(2023, 6, 1)`); None for any other value or several reaching definitions."""
        if isinstance(name, ast.Call):  # pd.Timestamp(CFG["cut"]): the instant of the text the argument holds
            given = self.constants_given(name)
            if given is not name and instant_of(given) is not None:
                return given
        if not isinstance(name, ast.Name):  # pd.Timedelta(days=H): the span of the number H holds
            written = self.span_written(name)
            return written if written is not name else None
        # or the span it holds (`BUFFER = pd.Timedelta(days=30)`), which moves an instant it is added to
        return self.instant_held(self.names.definitions(name)) or self.span_held(name)

    def _not_self(self, node: ast.Compare, values: list[Value]) -> Value | None:
        """`ind != np.arange(len(X))[:, None]`: where each row's neighbours are not the row itself, a mask that
        leaves each row out of its own neighbours (robust to ties, where the row may not come first)."""
        if len(values) != 2 or not isinstance(node.ops[0], ast.NotEq):
            return None
        for indices, other in ((values[0], node.comparators[0]), (values[1], node.left)):
            kinds = {self.record.objects[o].qualname for o in indices.objects}
            numbered = any(
                isinstance(n, ast.Call) and self.text(n.func).split(".")[-1] == "arange" for n in ast.walk(other)
            )
            if NEIGHBOURS in kinds and numbered:
                found = self.obj(node, NOT_SELF)
                found.elements = Value(objects=frozenset({found.id}))  # each row's part of the mask: `zip(ind, m)`
                return Value(objects=frozenset({found.id}))
        return None

    def _scores_columns(self, fid: int) -> bool:
        """Whether fit ``fid`` scores the columns by how they predict the label (a test, a correlation)."""
        found = self.record.fits[fid]
        # a statistic of a column per group of another (`df.groupby(c)["y"].mean()`, each bin's default rate):
        # how the column varies with c, as an information-value screen reads it
        return found.strength is Strength.TARGET or found.learns in (CORRELATION, PER_GROUP)

    def attribute(self, base: Value, attr: str, node: ast.AST) -> Value:
        out = Value(method=(base, attr))
        for qualname in base.names:
            held = self.class_attribute(qualname, attr) if qualname.startswith(LOCAL) else None
            out = out.join(held if held is not None else Value(names=frozenset({f"{qualname}.{attr}"})))
        for oid in sorted(base.objects):
            found = self.record.objects[oid]
            held = (
                self.class_attribute(found.qualname, attr)
                if found.qualname.startswith(LOCAL) and attr not in found.entries
                else None
            )
            out = out.join(held if held is not None else self.object_attribute(found, attr, node))
        if base.data is not None and isinstance(node, ast.Attribute):
            out = out.join(self.data_attribute(base.data, attr, node))
        if base.scores:
            out = out.join(Value(scores=base.scores))
        stats = base.stats
        if attr in ("columns", "index"):  # describe().columns: the names of the columns, not what was learned
            stats = frozenset(f for f in stats if self.record.fits[f].learns != SUMMARY_LEARNS)
        if stats:  # a statistic's index or values (corr["y"].index): still what the rows taught
            out = out.join(Value(stats=stats))
        return out


def _known_bounds(
    node: ast.Compare,
    values: list[Value],
    made: Callable[[ast.expr], ast.expr | None],
    column: Callable[[ast.Name], ast.expr | None],
) -> ast.Compare:
    """The comparison with each bound whose value is known written as that value (`df.date < cut`, cut being
    "2023-06", as `df.date < '2023-06'`; ``made``: the call that made an instant a name holds, as
    `pd.Timestamp("2023-06-01")`; ``column``: the column of a table a name holds, as `df["year"]`): two masks then
    compare by the values they were cut at, whatever names held them, and a name given another value between two
    masks is two bounds."""
    operands = [node.left, *node.comparators]
    known: list[ast.expr] = []
    for operand, value in zip(operands, values, strict=True):
        const = value.const if value.data is None and not isinstance(operand, ast.Constant) else None
        if isinstance(const, str | int | float) and not isinstance(const, bool):
            known.append(ast.copy_location(ast.Constant(const), operand))
            continue
        # whatever the walk holds of it: a Timestamp made of a constant may be read as rows of unknown making
        instant = made(operand) if isinstance(operand, ast.Name | ast.Call) else _moved_instant(operand, made)
        if instant is None and isinstance(operand, ast.Name) and value.data is not None:
            # yrs = df["year"], then `yrs <= 2021`: the cut is of that column, as `df["year"] <= 2021` is
            instant = column(operand)
        known.append(operand if instant is None else instant)
    if known == operands:
        return node
    return ast.copy_location(ast.Compare(left=known[0], ops=node.ops, comparators=known[1:]), node)


def _moved_instant(operand: ast.expr, made: Callable[[ast.expr], ast.expr | None]) -> ast.expr | None:
    """`cut - pd.Timedelta(days=28)` with `cut` a name that holds an instant: the same written with that instant,
    so the bound compares as the instant it is; None when it is no such span of a name's instant."""
    if not (isinstance(operand, ast.BinOp) and isinstance(operand.op, ast.Add | ast.Sub)):
        return None
    left = made(operand.left) if isinstance(operand.left, ast.Name) else made(operand.left) or operand.left
    right = made(operand.right) if isinstance(operand.right, ast.Name) else made(operand.right) or operand.right
    if left is None or right is None:
        return None
    moved = ast.copy_location(ast.BinOp(left=left, op=operand.op, right=right), operand)
    return moved if instant_of(moved) is not None else None


def _left_only(node: ast.Compare, values: list[Value], text: str) -> tuple[str, frozenset[Atom]] | None:
    """`merged["_merge"] == "left_only"` on a merge with an indicator: the mask keeps the rows of the left table
    that are not among the right one's (None for any other comparison)."""
    if len(values) != 2 or not isinstance(node.ops[0], ast.Eq):
        return None
    for column, other in (values, values[::-1]):
        outside = column.data.outside if column.data is not None else None
        if outside is None or not outside[0].startswith(INDICATOR) or other.const != "left_only":
            continue
        if column.data is not None and column.data.sources == {outside[0].removeprefix(INDICATOR)}:
            return (text, outside[1])
    return None


# pandas' comparisons written as methods: s.gt(15) is s > 15
_COMPARISON_METHODS: dict[str, type[ast.cmpop]] = {
    "gt": ast.Gt,
    "ge": ast.GtE,
    "lt": ast.Lt,
    "le": ast.LtE,
    "eq": ast.Eq,
    "ne": ast.NotEq,
}


def _fixed_cut(node: ast.Compare, values: list[Value]) -> str | None:
    """A cut of predictions at a number (`proba > 0.5`) as text, so that the same cut written twice is one
    setting, not two; None when the threshold is not a number the reading knows."""
    if len(node.ops) != 1 or len(values) != 2:
        return None
    numbers = [v.const for v in values if isinstance(v.const, int | float) and not isinstance(v.const, bool)]
    if len(numbers) != 1 or not any(v.data is not None and v.data.predicted for v in values):
        return None
    op = type(node.ops[0]).__name__
    if values[0].const is numbers[0]:  # 0.5 < proba is proba > 0.5
        op = {"Lt": "Gt", "Gt": "Lt", "LtE": "GtE", "GtE": "LtE"}.get(op, op)
    return f"{op} {numbers[0]!r}"


def _number_written(node: ast.expr) -> bool:
    """Whether ``node`` is a number written in the program: `4`, `-1.5`, `24 * 7`."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int | float) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return _number_written(node.operand)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult | ast.Div | ast.Pow):
        return _number_written(node.left) and _number_written(node.right)
    return False
