"""The state of one program's walk, shared by the parts that read statements, calls and tables: the values
bound to each definition, the objects built and the events recorded, each keyed by the node that made it
(and the chain of calls it was made in), so that walking a loop's body again updates rather than repeats."""

from __future__ import annotations

import ast
import operator
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from auditor.code.catalog import Role, Strength
from auditor.code.events import Evaluation, Fit, Obj, Origin, Record, Selection, Site, Split, Train
from auditor.code.masks import duration_of, instant_of
from auditor.code.names import Names
from auditor.code.sources import Program
from auditor.code.values import NOTHING, Atom, Data, Part, Value, data_of

TEXT_LIMIT = 60  # characters of an expression quoted in the evidence


def shortened(written: str, limit: int = TEXT_LIMIT) -> str:
    """A text quoted in the evidence, cut to ``limit`` characters with an ellipsis."""
    return written if len(written) <= limit else written[: limit - 1] + "…"


# The node masks of a PyTorch Geometric graph (Planetoid's Cora), each the side of the split the data set came with.
GRAPH_MASKS = {"train_mask": "train", "val_mask": "validation", "test_mask": "test"}
GRAPH_SIDES = tuple(GRAPH_MASKS.values())
CONTAINER = "builtins.list"  # the qualified name of the objects lists, tuples, sets and dicts are
SPLITS = "<splits>"  # the qualified name of what a splitter's split() returns
# What a neighbours search (kneighbors, radius_neighbors) returns as indices: rows that may include each queried
# row itself, or, with no rows given or the first column left out, other rows only.
NEIGHBOURS = "<neighbours>"
OTHER_NEIGHBOURS = "<other rows' neighbours>"
# `ind != np.arange(n)[:, None]`: where each row's neighbours are not the row itself; indices taken by it are other rows
NOT_SELF = "<not each row itself>"
BATCHES = "<batches>"  # what DataLoader(ds) yields: many rows at a time
# weights a hand-written gradient descent learns (`w -= lr * X[tr].T @ (p - y[tr])` in a loop): a model of the
# rows its steps read, whose predictions are `X @ w`
WEIGHTS = "<weights learned by gradient steps>"
DATASET_DICT = "datasets.DatasetDict"  # a Hub data set's published splits, each under its name
# argparse: a parser's options as the script runs without arguments (their defaults), read as its namespace's
ARGUMENT_PARSER = "argparse.ArgumentParser"
ARGUMENTS = "argparse.Namespace"
# MONAI's metric objects (DiceMetric(...)): called on a batch's predictions and labels, they keep its score;
# aggregate() gives the score of every batch they were called on
MONAI_METRIC = "monai.<metric>"
# functools.partial(f, *args, **kwargs): calling it calls f with those arguments first
PARTIAL = "functools.partial"
SCORE_TABLE = "pandas.<table of scores>"  # pd.DataFrame(rows) of dicts of scores: each column's scores by its name
HF_METRIC = "evaluate.<metric>"  # what Hugging Face's evaluate.load(name) returns: compute() scores rows
# sentence-transformers' evaluators (EmbeddingSimilarityEvaluator(s1, s2, scores)): built on rows, they score the
# model they are called with (evaluator(model), model.evaluate(evaluator)) on those rows
SBERT_EVALUATOR = "sentence_transformers.<evaluator>"
# Calls whose result holds the values of their one argument in its order: a set of a slice of ids is that slice.
_ORDER_KEPT = frozenset(["set", "frozenset", "list", "tuple", "array", "asarray", "Series", "Index"])
LOCAL = "<local>."  # the prefix of the qualified names of the file's own classes


# The arithmetic the bounds of a run of rows or a slice are read through (see plain_number).
_ARITHMETIC: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
}


class WalkState(ABC):
    """Shared state and the constructors of the records; the walk itself lives in the subclasses."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.names = Names.of(program.tree)
        self.record = Record()
        self.defs: dict[ast.AST, Value] = {}  # a definition (target, argument) -> the value last bound to it
        self.current: dict[str, list[ast.AST]] = {}  # module-level name -> the definitions last bound to it
        # the file's class ('<local>.Cfg') -> the values its body binds (`scaler = MinMaxScaler()`): `Cfg.scaler`
        self.class_attributes: dict[str, dict[str, Value]] = {}
        self.loops: list[int] = []  # the loops around the statement being walked
        self.train_nodes: dict[int, ast.AST] = {}  # a training -> the call that trained
        self.loop_nodes: dict[int, ast.AST] = {}  # each loop's node, by its id
        # the arrays of an .npz archive, by the part of the data their key names (`imu.npz/test` for X_test, y_test)
        self.archived: dict[str, Data] = {}
        self.pass_names: dict[int, frozenset[str]] = {}  # each loop's names taken anew per pass (once read)
        # `if acc > best: best = acc`: comparisons whose branch keeps only the compared value (a running max)
        self.value_compares: set[int] = set()
        # (a comparison or a between() call, the chain of calls) -> the row statistics it compares a column with
        # (`df.price < df.price.quantile(0.99)`): a selection of rows by it keeps rows chosen by those statistics
        self.thresholds: dict[tuple[int, tuple[int, ...]], frozenset[int]] = {}
        self.calls: list[ast.AST] = []  # the calls of the file's own functions being walked (innermost last)
        # the item each loop over a literal sequence is walking (`for d in [train, test]`): a statistic taken in
        # one pass is of that item's rows, apart from the same statement's in the other passes
        self.item_passes: list[int] = []
        # the row statistics the `if` tests around the statement compare (`if p < 0.01: keep.append(c)`): what a
        # list grows by there was chosen with them, as a comprehension's conditions choose its elements
        self.branch_stats: list[frozenset[int]] = []
        # what the trials of a tuning run being walked report (Ray Tune's `tune.report(...)`), innermost last
        self.reports: list[Value] = []
        # the split a graph's node masks (data.train_mask, data.test_mask) stand for, by the graph's sources
        self.graph_masks: dict[frozenset[int], str] = {}
        # the sides of the if/else statements being walked in a loop: what each branch adds to a list is its side
        self.branch_sides: list[Part] = []
        self._ids: dict[tuple[str, int, tuple[int, ...], tuple[int, ...]], int] = {}
        self._next = 1
        self._assigned: dict[ast.AST, ast.expr] | None = None  # `name = value` of the program, by target (read once)
        self._parameters: dict[int, ast.FunctionDef | ast.AsyncFunctionDef] | None = None  # each parameter's function

    # The walk (interpret.py) ------------------------------------------------------------------------------

    @abstractmethod
    def ev(self, node: ast.AST) -> Value:
        """The value of an expression."""

    @abstractmethod
    def mutate(self, target: ast.AST, value: Value) -> None:
        """Rebind what ``target`` (a name, or the table a `.loc` reads) refers to, to ``value``."""

    @abstractmethod
    def lookup(self, node: ast.Name) -> Value:
        """What the name ``node`` holds where the walk is."""

    @abstractmethod
    def iterate(self, value: Value) -> Value:
        """What one iteration over ``value`` yields."""

    @abstractmethod
    def item_statistics(self, found: Obj) -> frozenset[int]:
        """The row statistics in every item an object of the file's `Dataset` class gives."""

    @abstractmethod
    def column(self, data: Data, name: str) -> Data:
        """One column of a table, named by the column (frames.py)."""

    @abstractmethod
    def call_function(self, fid: int, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """A call of a function defined in the file."""

    @abstractmethod
    def call_value(self, callee: Value, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """A call of whatever ``callee`` may be: a library's name, a function of the file, a method."""

    @abstractmethod
    def is_local_class(self, qualname: str) -> bool:
        """Whether ``qualname`` ('<local>.Prep') names a class the file defines."""

    @abstractmethod
    def local_bases(self, qualname: str) -> list[ast.expr]:
        """The base classes of the file's own class ``qualname``, as written (none for another class)."""

    @abstractmethod
    def function_node(self, fid: int) -> ast.FunctionDef | ast.AsyncFunctionDef:
        """The definition of the file's function ``fid``."""

    @abstractmethod
    def names_passed(self, names: set[str]) -> set[str]:
        """``names`` with, for each that is a parameter of the file's functions being walked, the names the
        calls that led here read for it (`evaluate(name)` gives `path` the names of `name`)."""

    @abstractmethod
    def call_lambda(self, node: ast.Lambda, args: list[Value]) -> Value:
        """The value of a lambda's body with its positional parameters bound to ``args``."""

    # Calls (calls.py) and tables (frames.py) --------------------------------------------------------------

    @abstractmethod
    def object_attribute(self, found: Obj, attr: str, node: ast.AST | None = None) -> Value:
        """An attribute of an object the program built."""

    @abstractmethod
    def data_method(
        self, receiver: Value, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        """A method of a table or an array."""

    @abstractmethod
    def rows_where(self, data: Data, node: ast.AST) -> Data:
        """The rows of ``data`` where its mask holds (`df[mask]`'s), each cut by the mask's condition."""

    @abstractmethod
    def data_attribute(self, data: Data, attr: str, node: ast.Attribute) -> Value:
        """An attribute of a table or an array (a column, its index, its values)."""

    @abstractmethod
    def class_attribute(self, qualname: str, attr: str) -> Value | None:
        """Attribute ``attr`` the body of the file's class ``qualname`` bound (None: not one it binds)."""

    @abstractmethod
    def instants_written(self, node: ast.Call) -> ast.Call:
        """A call with each argument that names an instant written as that instant."""

    @abstractmethod
    def record_replaced(self, found: Obj, changed: dict[str, Value], node: ast.Call) -> Value:
        """A copy of a record object of the file with some fields given anew."""

    @abstractmethod
    def record_fields(self, qualname: str) -> list[str]:
        """The fields of the file's `@dataclass` or `NamedTuple` ``qualname``, in order ([] for another class)."""

    @abstractmethod
    def local_method(self, qualname: str, name: str) -> int | None:
        """The function id of method ``name`` of the file's own class ``qualname`` ('<local>.Scorer')."""

    @abstractmethod
    def attribute(self, base: Value, attr: str, node: ast.AST) -> Value:
        """An attribute of any value."""

    @abstractmethod
    def rows_taken(self, data: Data, at: ast.expr, positions: Value, node: ast.AST) -> Data:
        """The rows of ``data`` at the positions ``positions`` (written as ``at``) names."""

    @abstractmethod
    def unknown_call(self, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """A call of code the walk does not know."""

    # Keys and ids -----------------------------------------------------------------------------------------

    def key_id(self, kind: str, node: ast.AST) -> tuple[int, bool]:
        """The id of what ``node`` makes in the current chain of calls, and whether it is new."""
        passes = tuple(self.item_passes) if kind in ("fit", "evaluation") else ()
        key = (kind, id(node), tuple(id(c) for c in self.calls), passes)
        found = self._ids.get(key)
        if found is not None:
            return found, False
        self._ids[key] = self._next
        self._next += 1
        return self._ids[key], True

    def threshold(self, node: ast.AST, stats: frozenset[int]) -> None:
        """Note that ``node`` compares a column with the row statistics ``stats`` (read back by thresholds_in)."""
        if stats:
            key = (id(node), tuple(id(c) for c in self.calls))
            self.thresholds[key] = self.thresholds.get(key, frozenset()) | stats

    def thresholds_in(self, node: ast.AST) -> frozenset[int]:
        """The row statistics the comparisons written in ``node`` compare columns with, in this chain of calls."""
        calls = tuple(id(c) for c in self.calls)
        return frozenset().union(*(self.thresholds.get((id(n), calls), frozenset()) for n in ast.walk(node)))

    def assigned_once(self, name: ast.Name) -> ast.expr | None:
        """The value ``name`` reads where it has one definition, `name = value` (or its place in `a, b = x, y`);
        None where it has several, or one of another kind (a loop's target, a parameter)."""
        defs = self.names.definitions(name)
        return self._assigned_values().get(defs[0]) if len(defs) == 1 else None

    def given_as(self, name: ast.Name) -> ast.expr | None:
        """What the call being walked wrote for the parameter ``name`` reads (`end` of `windows(0, n_train)` is
        `n_train`); None for any other name, a parameter given by a default, `*args` or `**kwargs`."""
        defs = self.names.definitions(name)
        if len(defs) != 1 or not isinstance(defs[0], ast.arg) or not self.calls:
            return None
        if self._parameters is None:
            self._parameters = {
                id(a): f
                for f in self.names.nodes
                if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                for a in [*f.args.posonlyargs, *f.args.args, *f.args.kwonlyargs]
            }
        function = self._parameters.get(id(defs[0]))
        call = self.calls[-1]
        if function is None or not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
            return None
        if call.func.id != function.name or any(isinstance(a, ast.Starred) for a in call.args):
            return None
        for keyword in call.keywords:
            if keyword.arg == defs[0].arg:
                return keyword.value
        positional = [*function.args.posonlyargs, *function.args.args]
        at = next((i for i, a in enumerate(positional) if a is defs[0]), None)
        return call.args[at] if at is not None and at < len(call.args) else None

    def span_held(self, name: ast.expr) -> ast.expr | None:
        """The span of fixed length a name holds as its one value (`GAP = pd.Timedelta(days=30)`, `timedelta(
        weeks=2)`, `"28D"` given to to_timedelta); None for any other value."""
        made = self.assigned_once(name) if isinstance(name, ast.Name) else None
        made = self.span_written(made) if made is not None else None
        return made if made is not None and duration_of(made) is not None else None

    def span_written(self, node: ast.expr) -> ast.expr:
        """A span whose length a name or a constant key's item holds (`pd.Timedelta(days=H)`, H = 7;
        `days=CFG["gap"]`) written with that number, so it is the span of fixed length it makes; ``node`` itself
        for anything else."""
        if not isinstance(node, ast.Call):
            return node
        written = self.constants_given(node)
        return written if written is not node and duration_of(written) is not None else node

    def slice_held(self, name: ast.expr) -> ast.Subscript | None:
        """The slice of a sequence a name holds as its one value, through copies that keep its order (`test_ids =
        set(ids[:30])`, `list(...)`, `np.array(...)`, `.tolist()`); None for any other value."""
        made = self.assigned_once(name) if isinstance(name, ast.Name) else name
        while made is not None:
            if isinstance(made, ast.Subscript) and isinstance(made.slice, ast.Slice):
                return self._bounds_written(made) if isinstance(made.value, ast.Name) else None
            if isinstance(made, ast.Call) and len(made.args) == 1 and not made.keywords:
                called = made.func.attr if isinstance(made.func, ast.Attribute) else getattr(made.func, "id", "")
                made = made.args[0] if called in _ORDER_KEPT else None
            elif isinstance(made, ast.Call) and isinstance(made.func, ast.Attribute) and not made.args:
                made = made.func.value if made.func.attr in ("tolist", "to_numpy", "to_list", "copy") else None
            else:
                made = None
        return None

    def _bounds_written(self, taken: ast.Subscript) -> ast.Subscript:
        """`ids[:N]` with N a known whole number written as that number (`ids[:60]`), so it orders against
        bounds written as numbers."""
        bounds = taken.slice
        assert isinstance(bounds, ast.Slice)
        ends: list[ast.expr | None] = []
        for end in (bounds.lower, bounds.upper):
            value = self.ev(end).const if isinstance(end, ast.Name) else None
            if end is not None and value is None:
                value = self.before_end(end, ast.unparse(taken.value))
            if isinstance(value, int) and not isinstance(value, bool) and end is not None:
                ends.append(ast.copy_location(ast.Constant(value), end))
            else:
                ends.append(self._terms_written(end) if end is not None else None)
        if ends == [bounds.lower, bounds.upper]:
            return taken
        written = ast.copy_location(ast.Slice(lower=ends[0], upper=ends[1], step=bounds.step), bounds)
        return ast.copy_location(ast.Subscript(value=taken.value, slice=written, ctx=taken.ctx), taken)

    def _terms_written(self, end: ast.expr, depth: int = 0) -> ast.expr:
        """A bound of sums and differences with each name that holds a whole number written as it, and a name given
        such a sum written as that sum (`end = len(ids) - n_test + n_val`, n_val = 40: `len(ids) - n_test + 40`), so
        its terms compare with another bound's; ``end`` itself when nothing is known."""
        if depth > 4:
            return end
        if isinstance(end, ast.Name):
            const = self.ev(end).const
            if isinstance(const, int) and not isinstance(const, bool):
                return ast.copy_location(ast.Constant(const), end)
            made = self.assigned_once(end)
            if isinstance(made, ast.BinOp) and isinstance(made.op, ast.Add | ast.Sub):
                return self._terms_written(made, depth + 1)
            return end
        if isinstance(end, ast.BinOp) and isinstance(end.op, ast.Add | ast.Sub):
            left, right = self._terms_written(end.left, depth + 1), self._terms_written(end.right, depth + 1)
            if left is end.left and right is end.right:
                return end
            return ast.copy_location(ast.BinOp(left=left, op=end.op, right=right), end)
        return end

    def before_end(self, end: ast.expr, sequence: str, depth: int = 0) -> int | None:
        """`len(ids) - 30`, `n - 30` with `n = len(ids)`, or a name holding either, as the position counted from
        the end of ``sequence`` (-30) it is; None for any other bound."""
        if isinstance(end, ast.Name) and depth < 4:
            made = self.assigned_once(end)
            return self.before_end(made, sequence, depth + 1) if made is not None else None
        if not (isinstance(end, ast.BinOp) and isinstance(end.op, ast.Add | ast.Sub)):
            return None
        # a number written, held in a name or made of them (`n - (N_TEST - WARMUP)`): what the walk folds it to
        back = self.ev(end.right).const if _of_names_and_numbers(end.right) else None
        if not isinstance(back, int) or isinstance(back, bool):
            return None
        inner = self.before_end(end.left, sequence, depth + 1) if depth < 4 else None
        if inner is not None:  # `len(ids) - n_test + 50`: 50 rows past the end of `[:len(ids) - n_test]`
            moved = inner + back if isinstance(end.op, ast.Add) else inner - back
            return moved if moved < 0 else None
        if isinstance(end.op, ast.Add) or back <= 0:
            return None
        whole: ast.expr | None = end.left
        if isinstance(whole, ast.Name):
            whole = self.assigned_once(whole)
        return -back if whole is not None and _length_of(whole, sequence) else None

    def members_written(self, node: ast.expr) -> ast.expr:
        """A mask with the set it tests membership in written as the slice it holds (`df.pid.isin(test_ids)` as
        `df.pid.isin(ids[:30])`, `r.pid in test_ids` too), so two masks of slices of one sequence compare by
        their positions; ``node`` itself when it is no such mask."""
        test = node.operand if isinstance(node, ast.UnaryOp) else node
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr == "isin":
            held = self.slice_held(test.args[0]) if len(test.args) == 1 and not test.keywords else None
            written: ast.expr | None = ast.Call(func=test.func, args=[held], keywords=[]) if held else None
        elif isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In | ast.NotIn):
            held = self.slice_held(test.comparators[0])
            written = ast.Compare(left=test.left, ops=test.ops, comparators=[held]) if held else None
        else:
            return node
        if written is None:
            return node
        written = ast.copy_location(written, test)
        if isinstance(node, ast.UnaryOp):
            return ast.copy_location(ast.UnaryOp(op=node.op, operand=written), node)
        return written

    def instant_held(self, defs: list[Any], depth: int = 0) -> ast.expr | None:
        """The call the one definition ``defs`` holds, where it makes an instant of constants (`cut =
        pd.Timestamp("2023-06-01")`, `datetime(2023, 6, 1)`); None for any other value or several definitions."""
        if len(defs) != 1 or not isinstance(defs[0], ast.Name):
            return None
        made = self._assigned_values().get(defs[0])
        if isinstance(made, ast.Call):  # cut = pd.Timestamp(CUT): the instant of the text the name holds
            made = self.constants_given(made)
        if isinstance(made, ast.BinOp) and isinstance(made.op, ast.Add | ast.Sub) and depth < 8:
            # start = cut - pd.Timedelta(days=28), cut holding an instant: that instant moved (by a span a name
            # may hold too, `cut - GAP`)
            held = made.left
            if isinstance(held, ast.Name):
                left = self.instant_held(self.names.definitions(held), depth + 1)
            else:  # pd.Timestamp(CUT) + BUFFER
                left = self.constants_given(held) if isinstance(held, ast.Call) else held
            right = self.span_held(made.right) or self.span_written(made.right)
            if left is not None:
                made = ast.copy_location(ast.BinOp(left=left, op=made.op, right=right), made)
        return made if made is not None and instant_of(made) is not None else None

    def constants_given(self, call: ast.Call) -> ast.Call:
        """The call with each argument that is a name or a constant key's item holding a known text or number written
        as that constant (`pd.Timestamp(CUT)` as `pd.Timestamp("2017-03-01")`); the call itself when none is."""

        def written(arg: ast.expr) -> ast.expr:
            # a name, `CFG["cut"]` or an f-string of names only: anything else is not evaluated again
            if isinstance(arg, ast.Subscript):
                if not (isinstance(arg.value, ast.Name) and isinstance(arg.slice, ast.Constant)):
                    return arg
            elif isinstance(arg, ast.JoinedStr):
                if not all(_of_names(v) for v in arg.values):
                    return arg
            elif not isinstance(arg, ast.Name):
                return arg
            value = self.ev(arg)
            const = value.const if value.data is None else None
            if not isinstance(const, str | int | float) or isinstance(const, bool):
                return arg
            return ast.copy_location(ast.Constant(const), arg)

        args = [written(a) for a in call.args]
        keywords = [ast.keyword(k.arg, written(k.value)) for k in call.keywords]
        if all(a is b for a, b in zip(args, call.args, strict=True)) and all(
            k.value is j.value for k, j in zip(keywords, call.keywords, strict=True)
        ):
            return call
        return ast.copy_location(ast.Call(func=call.func, args=args, keywords=keywords), call)

    def column_held(self, name: ast.Name) -> ast.expr | None:
        """The column of a table a name holds as it was taken (`yrs = df["year"]`, `df.year.to_numpy()`, `.values`):
        `df["year"]`, so a mask of the name cuts the rows by that column; None for anything else, or several
        definitions."""
        defs = self.names.definitions(name)
        if len(defs) != 1 or not isinstance(defs[0], ast.Name):
            return None
        made = self._assigned_values().get(defs[0])
        while isinstance(made, ast.Call) and isinstance(made.func, ast.Attribute):
            if made.args or made.keywords or made.func.attr not in ("to_numpy", "copy"):
                return None
            made = made.func.value  # df["year"].to_numpy(): the same values
        if isinstance(made, ast.Attribute) and made.attr in ("values", "array"):
            made = made.value if not isinstance(made.value, ast.Name) else None
        if isinstance(made, ast.Subscript) and isinstance(made.value, ast.Name):
            key = made.slice
            return made if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
        if isinstance(made, ast.Attribute) and isinstance(made.value, ast.Name):
            return made if self.lookup(made.value).data is not None else None
        return None

    def _assigned_values(self) -> dict[ast.AST, ast.expr]:
        """Each name assigned by `name = value` in the program, to its value, and each of `a, b = x, y` to its own
        (read once)."""
        found = self._assigned
        if found is None:
            found = {}
            for stmt in ast.walk(self.program.tree):
                if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
                    continue
                target, value = stmt.targets[0], stmt.value
                if isinstance(target, ast.Name):
                    found[target] = value
                elif _unpacked_alike(target, value):
                    assert isinstance(target, ast.Tuple | ast.List) and isinstance(value, ast.Tuple | ast.List)
                    pairs = zip(target.elts, value.elts, strict=True)
                    found.update((t, v) for t, v in pairs if isinstance(t, ast.Name))
            self._assigned = found
        return found

    def never_negative(self, expr: ast.expr, depth: int = 0) -> bool:
        """Whether an expression is a number no run makes negative: a count (`len(df)`), a constant of at least
        zero, their sums, products and quotients, `int`/`round`/`abs` of one, a `max` with one such argument, or a
        name assigned once such a value (`embargo = int(0.01 * n)`)."""
        if depth > 8:
            return False
        if isinstance(expr, ast.Constant):
            return isinstance(expr.value, int | float) and not isinstance(expr.value, bool) and expr.value >= 0
        if isinstance(expr, ast.Name):
            written = self.assigned_once(expr)
            return written is not None and self.never_negative(written, depth + 1)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add | ast.Mult | ast.FloorDiv | ast.Div):
            return self.never_negative(expr.left, depth + 1) and self.never_negative(expr.right, depth + 1)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and not expr.keywords and expr.args:
            name = self.ev(expr.func).names
            if name in ({"builtins.len"}, {"builtins.abs"}):
                return True
            if name in ({"builtins.int"}, {"builtins.round"}):
                return self.never_negative(expr.args[0], depth + 1)
            if name == {"builtins.max"}:
                return any(self.never_negative(a, depth + 1) for a in expr.args)
        return False

    def plain_number(self, expr: ast.expr, depth: int = 0) -> int | None:
        """The whole number an expression of numbers and names comes to (`k`, `N + 1`, `2 * N`, a name assigned
        once such an expression, `warmup = 24 * 7`); None for anything else, which is not evaluated again (a call
        evaluated a second time would be walked twice), and for a number too large to count rows."""
        if isinstance(expr, ast.Constant | ast.Name):
            value = expr.value if isinstance(expr, ast.Constant) else self.ev(expr).const
            if value is None and isinstance(expr, ast.Name) and depth < 8:
                written = self.assigned_once(expr)
                return self.plain_number(written, depth + 1) if written is not None else None
            return value if isinstance(value, int) and not isinstance(value, bool) else None
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub) and depth < 8:
            inner = self.plain_number(expr.operand, depth + 1)
            return -inner if inner is not None else None
        if isinstance(expr, ast.BinOp) and type(expr.op) in _ARITHMETIC and depth < 8:
            left, right = self.plain_number(expr.left, depth + 1), self.plain_number(expr.right, depth + 1)
            if left is None or right is None or (isinstance(expr.op, ast.FloorDiv) and right == 0):
                return None
            found = _ARITHMETIC[type(expr.op)](left, right)
            return found if abs(found) < 2**63 else None
        return None

    def site(self, node: ast.AST) -> Site:
        via = tuple((c.lineno, c.col_offset) for c in self.calls if isinstance(c, ast.Call))
        return Site(getattr(node, "lineno", 0), getattr(node, "col_offset", 0), via)

    @staticmethod
    def text(node: ast.AST | None) -> str:
        """An expression as written, shortened for the evidence."""
        return shortened(WalkState.whole(node))

    @staticmethod
    def whole(node: ast.AST | None) -> str:
        """An expression as written, whole: what a later step reads again (a mask's condition), not a quote."""
        if node is None:
            return ""
        try:
            return ast.unparse(node)
        except (ValueError, RecursionError):  # a tree ast cannot write back
            return type(node).__name__

    # Records ----------------------------------------------------------------------------------------------

    def origin(self, node: ast.AST, what: str, made_from: frozenset[Atom] = frozenset(), how: str = "") -> int:
        oid, new = self.key_id(f"origin:{what}", node)
        if new:
            self.record.origins[oid] = Origin(oid, self.site(node), what, made_from, how)
        elif made_from:
            found = self.record.origins[oid]
            found.made_from |= made_from
        return oid

    def source(self, node: ast.AST, what: str, read: bool = False) -> Data:
        """Rows from a new source made at ``node``: a reader call (``read``), or a value whose making the walk
        cannot see (an argument nobody passed, a call of unknown code)."""
        oid = self.origin(node, what)
        self.record.origins[oid].read = self.record.origins[oid].read or read
        return Data(frozenset({Atom(oid)}))

    def pool(self, node: ast.AST, rows: frozenset[Atom], how: str) -> frozenset[Atom]:
        """The rows of a pool made at ``node`` from ``rows`` (copies or synthetic rows of them)."""
        return frozenset({Atom(self.origin(node, f"pool:{how}", rows, how))})

    def obj(self, node: ast.AST, qualname: str, role: Role | None = None) -> Obj:
        """The object built at ``node`` (one per node and chain of calls: a loop builds it once)."""
        oid, new = self.key_id("object", node)
        if new:
            self.record.objects[oid] = Obj(oid, self.site(node), qualname, role, loops=tuple(self.loops))
        return self.record.objects[oid]

    def container(self, node: ast.AST, elements: Value = NOTHING, keys: Value = NOTHING) -> Obj:
        found = self.obj(node, CONTAINER)
        found.elements = found.elements.join(elements)
        found.keys = found.keys.join(keys)
        return found

    def fit(
        self,
        node: ast.AST,
        what: str,
        learns: str,
        strength: Strength,
        data: Data | None,
        reported: bool = True,
        kind: str = "fit",
        by: frozenset[str] = frozenset(),
    ) -> int:
        fid, new = self.key_id(kind, node)
        rows = data.rows if data is not None else frozenset()
        if new:
            self.record.fits[fid] = Fit(fid, self.site(node), what, learns, strength, rows, reported, data, by=by)
        else:
            found = self.record.fits[fid]
            found.rows |= rows
            if data is not None:
                found.data = data if found.data is None else found.data.join(data)
        return fid

    def column_made(self, name: str, node: ast.AST) -> None:
        """Note the line storing a column ``name``, when it is a line of the program's own scope (one a reader of a
        finding can go to as it is)."""
        if not self.site(node).via:
            self.record.column_lines.setdefault(name, set()).add(getattr(node, "lineno", 0))

    def train(self, node: ast.AST, what: str, model: Obj, x: Data | None, y: Data | None) -> Train:
        tid, new = self.key_id("train", node)
        self.train_nodes[tid] = node
        if new:
            self.record.trains[tid] = Train(tid, self.site(node), what, model.id, x, y, loops=tuple(self.loops))
        else:
            found = self.record.trains[tid]
            found.x = _join(found.x, x)
            found.y = _join(found.y, y)
        return self.record.trains[tid]

    def evaluation(
        self,
        node: ast.AST,
        what: str,
        models: frozenset[int],
        x: Data | None,
        y: Data | None,
        **facts: object,
    ) -> int:
        eid, new = self.key_id("evaluation", node)
        trains = frozenset(t for m in models for t in self.record.objects[m].trains)
        if new:
            self.record.evaluations[eid] = Evaluation(
                eid,
                self.site(node),
                what,
                models,
                trains,
                x,
                y,
                loops=tuple(self.loops),
                **facts,  # type: ignore[arg-type]
            )
        else:
            found = self.record.evaluations[eid]
            found.models |= models
            found.trains |= trains
            found.x, found.y = _join(found.x, x), _join(found.y, y)
        return eid

    def split(
        self,
        node: ast.AST,
        what: str,
        shuffled: bool,
        data: Data | None,
        temporal: bool = False,
        published: bool = False,
    ) -> str:
        sid = f"{what}@{self.key_id('split', node)[0]}"
        found = self.record.splits.get(sid)
        if found is None:
            loops = tuple(self.loops)
            self.record.splits[sid] = Split(sid, self.site(node), what, shuffled, data, temporal, loops, published)
        else:
            found.data = _join(found.data, data)
        return sid

    def choose(self, node: ast.AST, what: str, scores: frozenset[int], picks: bool = True) -> None:
        """Scores compared at ``node``; ``picks``: the choice says which one is best, not only the best value."""
        if scores:
            site = self.site(node)
            for s in self.record.selections:
                if s.site == site:
                    s.scores |= scores
                    s.picks = s.picks or picks
                    return
            self.record.selections.append(Selection(site, what, scores, picks))

    def only_scores(self, value: Value) -> bool:
        """Whether ``value`` holds scores and nothing else (no model, name, setting or rows beside them)."""
        numbers = all(isinstance(c, int | float) and not isinstance(c, bool) for c in value.consts)  # best = 0.0
        return bool(value.scores) and value.data is None and not value.objects and not value.items and numbers

    def placeholder(self, node: ast.AST, what: str) -> Value:
        """What a value no caller gave is taken to be: rows of its own, and an object of unknown class."""
        return Value(data=self.source(node, what), objects=frozenset({self.obj(node, f"<{what}>").id}))

    def parts_rows(self, parts: frozenset[Part]) -> Data | None:
        """The rows a split's positions stand for (`test_idx` of `split(X)`): its rows through that part."""
        rows: set[Atom] = set()
        for part in sorted(parts):
            split = self.record.splits.get(part.split)
            if split is None or split.data is None:
                return None
            rows |= {a.with_part(part) for a in split.data.rows}
        return Data(frozenset(rows)) if rows else None

    def graph_sides(self, value: Value) -> bool:
        """Whether ``value`` is one or more of a graph's node masks (data.train_mask) and nothing else."""
        masks = set(self.graph_masks.values())
        return value == Value(parts=value.parts) and bool(value.parts) and all(p.split in masks for p in value.parts)

    def graph_complement(self, value: Value) -> Value:
        """`~data.test_mask`: the graph's other named sides (its unlabelled nodes give no labels to score)."""
        return Value(parts=frozenset(Part(p.split, side) for p in value.parts for side in GRAPH_SIDES) - value.parts)

    def rows_of(self, values: list[Value], depth: int = 0) -> Data | None:
        """The rows among ``values``, also those inside lists and tuples of them (np.stack([...])), nested a few
        deep (`torch.tensor([[float(u)]])`)."""
        found = data_of(values)
        nested = [self.iterate(v) for v in values if v.data is None and (v.items is not None or v.objects)]
        inner = self.rows_of(nested, depth + 1) if nested and depth < 2 else data_of(nested)
        if found is None:
            return inner
        return found if inner is None else found.join(inner)

    def scores_in(self, values: list[Value], depth: int = 0) -> frozenset[int]:
        """The evaluations whose scores are among ``values``, looking into lists, dicts and tuples."""
        return self._collect(values, "scores", depth)

    def stats_in(self, values: list[Value], depth: int = 0) -> frozenset[int]:
        """The row statistics among ``values``, looking into lists, dicts and tuples (kw_args={"lo": lo})."""
        return self._collect(values, "stats", depth)

    def chosen_names_stats(self, value: Value) -> frozenset[int]:
        """The row statistics a list of names was chosen with: its own, or its elements' when a loop grew it
        (`if p < 0.01: keep.append(c)`); an attribute's receiver (`X.describe().columns`) is not looked into."""
        found = set(value.stats)
        for oid in value.objects:
            obj = self.record.objects[oid]
            if obj.qualname == CONTAINER:
                found |= obj.elements.stats
        return frozenset(found)

    def _collect(self, values: list[Value], facet: str, depth: int) -> frozenset[int]:
        found: set[int] = set()
        for value in values:
            found |= getattr(value, facet)
            if depth >= 3:
                continue
            inner: list[Value] = list(value.items or ())
            if value.method is not None:
                inner.append(value.method[0])
            for oid in value.objects:
                obj = self.record.objects[oid]
                if obj.qualname == CONTAINER:
                    inner += [obj.elements, obj.keys, *obj.entries.values()]
            if inner:
                found |= self._collect(inner, facet, depth + 1)
        return frozenset(found)

    def with_fits(self, data: Data, stats: frozenset[int]) -> Data:
        return data.everywhere_too(stats)


def _join(a: Data | None, b: Data | None) -> Data | None:
    if a is None:
        return b
    if b is None:
        return a
    return a.join(b)


def _unpacked_alike(target: ast.expr, value: ast.expr) -> bool:
    """`a, b = x, y`: as many names as values written, none starred, so each name is its own value."""
    return (
        isinstance(target, ast.Tuple | ast.List)
        and isinstance(value, ast.Tuple | ast.List)
        and len(target.elts) == len(value.elts)
        and not any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts))
    )


def _of_names_and_numbers(node: ast.expr) -> bool:
    """Whether ``node`` is arithmetic of names and numbers only (`N_TEST - WARMUP`), which evaluating cannot change."""
    return all(
        isinstance(n, ast.Name | ast.Constant | ast.BinOp | ast.UnaryOp | ast.operator | ast.unaryop | ast.Load)
        for n in ast.walk(node)
    )


def _length_of(node: ast.expr, sequence: str) -> bool:
    """Whether ``node`` is the length of ``sequence``: `len(ids)`, `len(df.index)`, `df.shape[0]`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
        measured = ast.unparse(node.args[0])
        return measured in (sequence, f"{sequence}.index")
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "shape"
        and ast.unparse(node.value.value) == sequence
        and isinstance(node.slice, ast.Constant)
        and node.slice.value == 0
    )


def _of_names(part: ast.expr) -> bool:
    """Whether a part of an f-string is text or a name's value (`{CUT_MONTH:02d}`): nothing a walk evaluates twice."""
    if isinstance(part, ast.FormattedValue):
        spec = part.format_spec
        written = spec is None or (isinstance(spec, ast.JoinedStr) and all(_of_names(v) for v in spec.values))
        return isinstance(part.value, ast.Name) and written
    return isinstance(part, ast.Constant)
