"""The walk of one program in statement order: each name's value from the definitions beniget says reach it,
loops walked twice (so a value bound late in the body reaches its start), the file's own functions walked at
each call with the arguments bound (and once more on their own if no call reached them)."""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import replace

from auditor.code.calls import Calls
from auditor.code.catalog import POLARS_EXPRESSION, Kind, Role
from auditor.code.events import Obj, Record
from auditor.code.frames import Frames
from auditor.code.library import positions_left
from auditor.code.masks import complete_columns_of
from auditor.code.names import builtin_name
from auditor.code.replicates import changing_names, is_replicate, keeps_compared_value, pass_names
from auditor.code.sources import MODULE_LINES, Program
from auditor.code.state import (
    BATCHES,
    CONTAINER,
    LOCAL,
    NEIGHBOURS,
    NOT_SELF,
    OTHER_NEIGHBOURS,
    SPLITS,
    WEIGHTS,
)
from auditor.code.values import EACH_ITEM, NOTHING, Columns, Data, Part, Value, join_all, own_taken_out
from auditor.code.walkforward import adds_to_history, one_row

LOOP_PASSES = 2  # a loop's body is walked twice: a value bound at its end reaches its start on the second
NESTED_LOOP_PASSES = 2  # loops nested this deep or less are walked twice; deeper ones once
MAX_CALL_DEPTH = 64  # the file's own functions are followed this many calls deep (main() -> run() -> prep() -> ...)
# The walk's cost stays linear in the file: a function is walked at most this many times (then its calls give
# what its walks returned), and the whole walk visits at most this many statements per statement of the file.
WALKS_PER_FUNCTION = 12
STATEMENTS_PER_STATEMENT = 40
_LISTED_ITEMS = 64  # a list made by * is read item by item up to this length
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)  # definitions whose bodies bind their own names


class Walker(Calls, Frames):
    """Walks one Program and records its sources, objects, fits, trainings, splits, scores and choices."""

    def __init__(self, program: Program) -> None:
        super().__init__(program)
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        self._function_ids: dict[ast.AST, int] = {}
        self._lambdas: set[int] = set()  # the functions lambdas are read as: each walked where it is called
        self._loops_naming: dict[int, bool] = {}  # by a for loop's id: whether its body makes names of its number
        self._methods: set[int] = set()  # functions defined in a class: walked on their own only
        self._walked: set[int] = set()
        self._active: list[int] = []
        self._active_calls: list[ast.Call] = []  # the call that walks each of _active
        self._returns: list[Value] = []
        self._yields: list[Value] = []  # what each function being walked yields (a generator's items)
        # each function being walked: its items in the order it yields them, while that order is certain (every
        # yield outside any loop but one walked item by item), the loops and item passes open when it began
        self._yield_order: list[tuple[list[Value] | None, int, int]] = []
        self._walks: dict[int, int] = {}  # function -> how many times its body was walked
        self._summaries: dict[int, Value] = {}  # function -> the join of what its walks returned
        self._memo: dict[tuple[object, ...], Value] = {}  # a call with the same arguments: its return value
        self._local_names: dict[int, list[ast.Name]] = {}  # the names each function of the file binds
        self._rebound: dict[int, frozenset[str]] = {}  # of those, the ones bound anew (see _rebinds)
        self.gradients = {}
        # loops (by node) checked for repeating one configuration: the names each pass binds anew, None if not
        self._replicates: dict[int, frozenset[str] | None] = {}
        self._by_name: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] | None = None
        self._literal_lists: dict[ast.expr, ast.List | ast.Tuple] | None = None  # `combine = [a, b]`, by target
        # the file's own classes: '<local>.Name' -> (its methods by name, the class)
        self._classes: dict[str, tuple[dict[str, ast.FunctionDef | ast.AsyncFunctionDef], ast.ClassDef]] = {}
        statements = 0
        for node in self.names.nodes:
            if isinstance(node, ast.stmt):
                statements += 1
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self._function_ids[node] = len(self.functions)
                self.functions.append(node)
            elif isinstance(node, ast.If) and keeps_compared_value(node):
                self.value_compares.add(id(node.test))
            elif isinstance(node, ast.ClassDef):
                methods = self._classes.setdefault(f"{LOCAL}{node.name}", ({}, node))[0]
                for item in node.body:
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                        self._methods.add(id(item))
                        methods[item.name] = item
        self._budget = STATEMENTS_PER_STATEMENT * statements + 10_000

    def run(self) -> Record:
        """Walk the module, then each function no call reached, its arguments rows of unknown source."""
        self.block(self.program.tree.body)
        for fid, fn in enumerate(self.functions):
            # A function of an imported module that no call reached is its module's to judge, when that module
            # is read as a file of its own, not each importer's (code/modules.py).
            if fid not in self._walked and fid not in self._lambdas and fn.lineno < MODULE_LINES:
                self.enter(fid, fn)
        return self.record

    # Statements -------------------------------------------------------------------------------------------

    def block(self, body: Sequence[ast.stmt]) -> None:
        for stmt in body:
            self._budget -= 1
            try:
                self.stmt(stmt)
            except RecursionError:  # an expression nested past what the walk can follow: left out
                continue

    def stmt(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Assign):
            value = self._step_written_out(node) or self.ev(node.value)
            for target in node.targets:
                self.assign(target, value, node)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.assign(node.target, self.ev(node.value), node)
        elif isinstance(node, ast.AugAssign):
            target = node.target
            before = self.lookup(target) if isinstance(target, ast.Name) else self.ev(target)
            given = self.ev(node.value)
            # history += [obs]: the list extended, as history + [obs] makes it
            combined = self._lists_added(node.op, node, before, given) or self.combine(before, given)
            combined = self._weights_stepped(node, node.target, node.op, node.value, before, given) or combined
            self.assign(node.target, combined, node)
            if isinstance(target, ast.Name) and before.data is not None:
                # `X -= X.mean(0)` changes an array or a frame in place: what else holds it (a caller) sees it
                self.mutate(target, combined)
        elif isinstance(node, ast.Expr):
            self.ev(node.value)
        elif isinstance(node, ast.For | ast.AsyncFor):
            iterated = self.ev(node.iter)
            known = iterated.items
            self._count_passes(node, node.iter, known)
            most = EACH_ITEM
            if known is None and self._names_made_in(node):
                # for k in range(7): df[f"lag_{k}"] = y.shift(k): each pass makes the column of its own number, so
                # the loop is walked number by number (lag_0, a copy of y, is one of them)
                known, most = self._counted(node.iter, NAMES_WALKED), NAMES_WALKED
            if self._counted(node.iter) and self._indexes_pieces(node):
                # for i in range(5): test = folds[i]: one pass stands for every fold (each is held out in turn),
                # walked as the first, so the pieces kept apart stay apart
                first = Value(consts=frozenset({0}))
                self.loop(node, node.body, lambda: self.assign(node.target, first, node))
            elif known is not None and 1 <= len(known) <= most and len(self.loops) < NESTED_LOOP_PASSES:
                # for name, x in [("tr", X_train), ("te", X_test)]: each pass takes its own item, so what the
                # body stores under each name holds that part's rows only
                self.loop_items(
                    node,
                    node.body,
                    node.target,
                    known,
                    self._listed_names(node.iter, len(known)),
                    self._entries_iterated(node.iter, len(known)),
                )
            else:
                element = self.iterate(iterated)
                if adds_to_history(node):
                    element = self._each_pass_row(node.target, element)
                if iterated.data is not None and iterated.data.grouped:
                    # for seg, part in test.groupby("segment"): each pass holds one group's rows, another's
                    self.record.group_passes.add(self.key_id("loop", node)[0])
                self.loop(node, node.body, lambda: self.assign(node.target, element, node))
            self.block(node.orelse)
        elif isinstance(node, ast.While):
            self.loop(node, node.body, lambda: self.ev(node.test))
            self.block(node.orelse)
        elif isinstance(node, ast.If):
            tested = self.ev(node.test)
            test = tested.const
            self.branch_stats.append(self.stats_in([tested]))
            # in a loop, an if/else whose branches each add to a list deals what it goes over to two sides (a
            # scaffold split: `train_idx.extend(group)` while under a size, else `test_idx.extend(group)`)
            sides = self._branch_sides(node) if test is None and node.orelse and self.loops else None
            try:
                # `if False:` / `DEBUG = False ... if DEBUG:`: a branch that cannot run holds no leak
                if test is not False:
                    self._in_branch(node.body, sides[0] if sides else None)
                    if test is True:
                        self._arguments_replaced(node.body)
                if test is not True:
                    self._in_branch(node.orelse, sides[1] if sides else None)
            finally:
                self.branch_stats.pop()
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                value = self.ev(item.context_expr)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, value, node)
            self.block(node.body)
        elif isinstance(node, ast.Try | ast.TryStar):
            self.block(node.body)
            for handler in node.handlers:
                self.block(handler.body)
            self.block(node.orelse)
            self.block(node.finalbody)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:
                self.ev(decorator)
            self.defs[node] = Value(functions=frozenset({self._function_ids[node]}))
        elif isinstance(node, ast.ClassDef):
            self._class_body(node)
        elif isinstance(node, ast.Return):
            if node.value is not None and self._returns:
                self._returns[-1] = self._returns[-1].join(self.ev(node.value))
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                self.delete(target)
        elif isinstance(node, ast.Match):
            subject = self.ev(node.subject).const
            for case in node.cases:
                # `MODE = "raw"; match MODE: case "eager": ...`: a case that cannot match runs nothing, and once a
                # case certainly matches, none after it runs
                taken = _case_taken(case, subject) if subject is not None else None
                if taken is False:
                    continue
                self.block(case.body)
                if taken is True:
                    break
        elif isinstance(node, ast.Raise | ast.Assert):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.ev(child)

    def _names_made_in(self, loop: ast.For | ast.AsyncFor) -> bool:
        """Whether a loop's body makes a text of its number (read once a loop, however often it is walked)."""
        made = self._loops_naming.get(id(loop))
        if made is None:
            made = self._loops_naming[id(loop)] = _names_made_in(loop)
        return made

    def _count_passes(self, node: ast.AST, over: ast.expr, items: tuple[Value, ...] | None) -> None:
        """Note how many passes the loop at ``node`` makes, where what it goes over says: the items of a literal
        sequence, or `range()` of constants (the tries a score chosen in it is the best of)."""
        count = len(items) if items is not None else None
        if count is None and isinstance(over, ast.Call) and isinstance(over.func, ast.Name) and over.func.id == "range":
            ends = [e for e in (self.ev(a).const for a in over.args) if type(e) is int]
            if 1 <= len(ends) == len(over.args) <= 3 and not over.keywords and ends[2:] != [0]:
                count = len(range(*ends))
        if count is None and isinstance(over, ast.Call) and self.ev(over.func).names == {"itertools.product"}:
            # itertools.product([2, 3, 5], [1, 10]): a pass per combination of the lists' items
            lengths = [len(items) for a in over.args if (items := self.ev(a).items) is not None]
            if lengths and len(lengths) == len(over.args) and not over.keywords:
                count = math.prod(lengths)
        if count is not None:
            lid = self.key_id("loop", node)[0]
            self.record.pass_counts[lid] = count
            body = node.body if isinstance(node, ast.For | ast.AsyncFor) else []
            if any(_may_skip(n) for stmt in body for n in ast.walk(stmt)):
                self.record.passes_at_most.add(lid)

    def _branch_sides(self, node: ast.If) -> tuple[Part, Part]:
        """The two sides an if/else in a loop deals to, one a branch."""
        sid = self.split(node, "if/else", False, None)
        self.record.splits[sid].loops = ()  # one split over every pass, not a new one each pass
        return Part(sid, "if"), Part(sid, "else")

    def _in_branch(self, body: list[ast.stmt], side: Part | None) -> None:
        if side is not None:
            self.branch_sides.append(side)
        try:
            self.block(body)
        finally:
            if side is not None:
                self.branch_sides.pop()

    def enter_loop(self, node: ast.AST) -> int:
        """The id of the loop at ``node``, now the innermost; noted once if its passes repeat one configuration."""
        lid, _ = self.key_id("loop", node)
        if id(node) not in self._replicates:  # once per loop, whatever chain of calls walks it
            if self._by_name is None:
                self._by_name = {f.name: f for f in self.functions}
            self._replicates[id(node)] = changing_names(node) if is_replicate(node, self._by_name) else None
        changing = self._replicates[id(node)]
        if changing is not None:
            self.record.replicates[lid] = changing
        self.loop_nodes[lid] = node
        if lid not in self.record.pass_names:
            self.record.pass_names[lid] = pass_names(node)
        self.loops.append(lid)
        return lid

    def loop(self, node: ast.AST, body: Sequence[ast.stmt], each: object) -> None:
        self.enter_loop(node)
        try:
            passes = LOOP_PASSES if len(self.loops) <= NESTED_LOOP_PASSES else 1
            for _ in range(passes):
                each()  # type: ignore[operator]
                self.block(body)
        finally:
            self.loops.pop()

    def loop_items(
        self,
        node: ast.AST,
        body: Sequence[ast.stmt],
        target: ast.AST,
        items: Sequence[Value],
        origins: Sequence[ast.Name | None] = (),
        entries: Sequence[tuple[int, str]] = (),
    ) -> None:
        """A loop over a literal sequence of a few items: the body walked once per item, in order. What the body
        changes in place on an item (`for d in [train, test]: d["age"] = ...`) is changed on the name it came from,
        or on the dict's entry (`for k, d in parts.items(): d["age"] = ...`, ``entries``: the dict and key of each)."""
        held = target.elts[1] if entries and isinstance(target, ast.Tuple) and len(target.elts) == 2 else target
        lid = self.enter_loop(node)
        self.record.pass_values[lid] = _item_values(items)
        try:
            for i, item in enumerate(items):
                self.assign(target, item, node)
                bound = self.defs.get(held) if isinstance(held, ast.Name) else None
                self.item_passes.append(i)
                try:
                    self.block(body)
                finally:
                    self.item_passes.pop()
                origin = origins[i] if i < len(origins) else None
                after = self.defs.get(held) if isinstance(held, ast.Name) else None
                if after is None or after is bound:
                    continue
                if origin is not None and held is target:
                    self.mutate(origin, after)
                if i < len(entries):
                    oid, key = entries[i]
                    self.record.objects[oid].entries[key] = after
        finally:
            self.loops.pop()

    def _entries_iterated(self, iterated: ast.expr, count: int) -> list[tuple[int, str]]:
        """The dict and key of each item of `parts.items()`, a dict of a few entries under constant keys, in the
        order the items come (none for anything else)."""
        if not (isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Attribute)):
            return []
        if iterated.func.attr != "items" or iterated.args or not isinstance(iterated.func.value, ast.Name):
            return []
        held = self.lookup(iterated.func.value).objects
        if len(held) != 1:
            return []
        (oid,) = held
        keys = list(self.record.objects[oid].entries)
        if len(keys) != count or not all(isinstance(k, str) for k in keys):
            return []
        return [(oid, str(k)) for k in keys]

    def _listed_names(self, iterated: ast.expr, count: int) -> list[ast.Name | None]:
        """The name each item of a loop's literal sequence was read from: `[train, test]` written in the loop's
        header or bound once to a name (`combine = [train, test]`); None for an item that is no name."""
        elts: list[ast.expr] | None = None
        if isinstance(iterated, ast.List | ast.Tuple):
            elts = iterated.elts
        elif isinstance(iterated, ast.Name):
            defs = self.names.definitions(iterated)
            if len(defs) == 1 and isinstance(defs[0], ast.Name):
                if self._literal_lists is None:
                    self._literal_lists = {
                        n.targets[0]: n.value
                        for n in self.names.nodes
                        if isinstance(n, ast.Assign)
                        and len(n.targets) == 1
                        and isinstance(n.value, ast.List | ast.Tuple)
                    }
                listed = self._literal_lists.get(defs[0])
                elts = listed.elts if listed is not None else None
        if elts is None or len(elts) != count:
            return []
        return [e if isinstance(e, ast.Name) else None for e in elts]

    def assign(self, target: ast.AST, value: Value, stmt: ast.AST) -> None:
        line = getattr(stmt, "lineno", 0)
        if isinstance(target, ast.Name):
            bound = value if value.data is None else replace(value, data=value.data.stepped(target.id, line))
            self.defs[target] = bound
            if not self.calls or target in self.names.global_targets:  # `global X` in a function: the module's X
                self.current[target.id] = [target]
        elif isinstance(target, ast.Tuple | ast.List):
            self.unpack(target.elts, value, stmt)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, value, stmt)
        elif isinstance(target, ast.Subscript):
            self.store_item(target, value, stmt)
        elif isinstance(target, ast.Attribute):  # self.model = ...: the object keeps it under that name
            for oid in self.ev(target.value).objects:
                found = self.record.objects[oid]
                found.entries[target.attr] = found.entries.get(target.attr, NOTHING).join(value)

    def unpack(self, targets: Sequence[ast.expr], value: Value, stmt: ast.AST) -> None:
        starred = [i for i, t in enumerate(targets) if isinstance(t, ast.Starred)]
        items = value.items
        if items is not None and not starred and len(items) == len(targets):
            for target, item in zip(targets, items, strict=True):
                self.assign(target, item, stmt)
            return
        if items is not None and len(starred) == 1 and len(items) >= len(targets) - 1:
            # X_tr, X_te, *ys = train_test_split(X, y): the named targets take their own items, the starred one
            # a list of those left between them
            at, after = starred[0], len(targets) - starred[0] - 1
            rest = items[at : len(items) - after]
            for target, item in zip(targets[:at], items[:at], strict=True):
                self.assign(target, item, stmt)
            self.assign(targets[at], self._literal_list(stmt, rest), stmt)
            for target, item in zip(targets[at + 1 :], items[len(items) - after :], strict=True):
                self.assign(target, item, stmt)
            return
        element = self.iterate(value)
        if value.data is not None and element.data is not None and not value.data.each_row:
            # xb, yb = batch: a batch's inputs and labels, each still many rows (a row's fields stay one row)
            element = replace(element, data=replace(element.data, each_row=False))
        for target in targets:
            self.assign(target, element, stmt)

    def enter(self, fid: int, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """Walk a function no call reached: each argument rows of their own and an object of unknown class."""
        args = fn.args
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if arg is not None:
                self.defs[arg] = self.placeholder(arg, f"argument {arg.arg} of {fn.name}()")
        self.calls.append(fn)
        self._walked.add(fid)
        self._returns.append(NOTHING)
        self._yields.append(NOTHING)
        self._yield_order.append((None, len(self.loops), len(self.item_passes)))
        try:
            self.block(fn.body)
        finally:
            self._returns.pop()
            self._yields.pop()
            self._yield_order.pop()
            self.calls.pop()

    def function_node(self, fid: int) -> ast.FunctionDef | ast.AsyncFunctionDef:
        return self.functions[fid]

    def names_passed(self, names: set[str]) -> set[str]:
        found = set(names)
        for fid, call in zip(reversed(self._active), reversed(self._active_calls), strict=True):
            if not isinstance(call.func, ast.Name):  # a method's or a lambda's call: its arguments do not line up
                break
            spec = self.functions[fid].args
            positional = [*spec.posonlyargs, *spec.args]
            given: list[ast.expr] = [
                a for i, a in enumerate(call.args) if i < len(positional) and positional[i].arg in found
            ]
            given += [k.value for k in call.keywords if k.arg in found]
            found |= {n.id for expr in given for n in ast.walk(expr) if isinstance(n, ast.Name)}
        return found

    def call_function(self, fid: int, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """A call of a function defined in the file: its body walked with the arguments bound."""
        fn = self.functions[fid]
        if fid in self._active or len(self.calls) >= MAX_CALL_DEPTH:
            if fid not in self._active:
                self.record.deep_calls += 1  # said in the summary: what was not read is never silent
            return self.unknown_call(args, kwargs, node)
        try:
            memo_key: tuple[object, ...] | None = (fid, tuple(args), tuple(sorted(kwargs.items())), len(self.calls))
            hash(memo_key)
        except TypeError:
            memo_key = None
        if memo_key is not None and memo_key in self._memo:
            return self._memo[memo_key]
        if self._walks.get(fid, 0) >= WALKS_PER_FUNCTION or self._budget <= 0:
            return self._summaries.get(fid) or self.unknown_call(args, kwargs, node)
        self._walks[fid] = self._walks.get(fid, 0) + 1
        # what an earlier call bound to the function's own names is not bound in this one until it runs (`if mean
        # is None: mean = df.mean()` skipped when the training statistics are given)
        for local in self._locals(fid, fn):
            self.defs.pop(local, None)
        self._bind(fn, args, kwargs)
        self._walked.add(fid)
        self._active.append(fid)
        self._active_calls.append(node)
        self.calls.append(node)
        self._returns.append(NOTHING)
        self._yields.append(NOTHING)
        self._yield_order.append(([] if _yields_plainly(fn) else None, len(self.loops), len(self.item_passes)))
        given = self._given_names(fn, args, node)
        first_new = self._next
        try:
            self.block(fn.body)
            result = self._returns[-1]
            items = self._yields[-1]
            if items != NOTHING:
                # batch_iterator(): a generator, its items what the body yields (slices of the texts); yielded
                # one per part, `for p in parts: yield sc.transform(p)`, each kept apart for unpacking
                order = self._yield_order[-1][0]
                each = tuple(order) if order is not None and len(order) >= 2 else None
                result = Value(objects=frozenset({self.container(node, items).id}), data=items.data, items=each)
            changed = [(name, self.defs[arg]) for arg, name, bound in given if self.defs.get(arg) is not bound]
        finally:
            self._returns.pop()
            self._yields.pop()
            self._yield_order.pop()
            self.calls.pop()
            self._active.pop()
            self._active_calls.pop()
        for name, value in changed:
            # `df[cols] = scaler.fit_transform(df[cols])` inside the function changed the caller's frame in place
            self.mutate(name, value)
        self._summaries[fid] = self._summaries.get(fid, NOTHING).join(result)
        # a factory's result (`def make_rf(): return RandomForestClassifier()`, a new list) is a new object at each
        # call: two calls are two models, never one trained twice
        if memo_key is not None and not any(o >= first_new for o in result.objects):
            self._memo[memo_key] = result
        return result

    def _given_names(
        self, fn: ast.FunctionDef | ast.AsyncFunctionDef, args: list[Value], node: ast.Call
    ) -> list[tuple[ast.arg, ast.Name, Value]]:
        """The arguments given as a caller's name, each with the parameter it binds and its value then: a change in
        place of the parameter (not a rebinding) is a change of the caller's object too."""
        # A method's first argument is its object (`cleaner.run(df)` binds df to its second parameter); a static
        # method's (`Prep.run(df)`) are the call's.
        offset = len(args) - len(node.args) if isinstance(node.func, ast.Attribute) else 0
        if offset not in (0, 1) or not any(isinstance(a, ast.Name) for a in node.args):
            return []  # arguments that do not line up with the call's, or none given by name
        positional = [*fn.args.posonlyargs, *fn.args.args]
        # A parameter the body binds again (`df = df.copy()`) may no longer be the caller's object: left out
        # (`a -= a.mean(0)` changes an array or a frame in place: not a new binding).
        rebound = self._rebinds(self._function_ids[fn], fn)
        return [
            (positional[i + offset], given, args[i + offset])
            for i, given in enumerate(node.args)
            if i + offset < min(len(positional), len(args))
            and isinstance(given, ast.Name)
            and args[i + offset].data is not None
            and positional[i + offset].arg not in rebound
            # the name given is that value (not a function applied to each row, `df.apply(f)`)
            and self.lookup(given).data is not None
        ]

    def _rebinds(self, fid: int, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
        """The names the function's body binds anew (read once per function): not those it only changes by
        augmented assignment (`a -= m` changes an array or a frame in place)."""
        found = self._rebound.get(fid)
        if found is None:
            augmented = {s.target for s in ast.walk(fn) if isinstance(s, ast.AugAssign)}
            found = frozenset(n.id for n in self._locals(fid, fn) if n not in augmented)
            self._rebound[fid] = found
        return found

    def _arguments_replaced(self, body: Sequence[ast.stmt]) -> None:
        """A branch certainly taken that assigns an argument of the function walked (`if mean is None: mean =
        df.mean()`): the argument holds that value from then on, not the one given, so later reads are not both."""
        if not self._active:
            return
        fn = self.functions[self._active[-1]]
        spec = fn.args
        arguments = {a.arg: a for a in (*spec.posonlyargs, *spec.args, *spec.kwonlyargs)}
        for stmt in body:
            if not isinstance(stmt, ast.Assign):
                continue
            for target in stmt.targets:
                names = target.elts if isinstance(target, ast.Tuple | ast.List) else [target]
                for name in names:
                    if isinstance(name, ast.Name) and name.id in arguments and name in self.defs:
                        self.defs[arguments[name.id]] = self.defs[name]

    def _locals(self, fid: int, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Name]:
        """The names the function's body binds (read once per function)."""
        found = self._local_names.get(fid)
        if found is None:
            # Not those of the functions and classes it defines: their own scopes (a module read as a function
            # holds every function of the module).
            found = []
            todo: list[ast.AST] = list(fn.body)
            while todo:
                node = todo.pop()
                if isinstance(node, ast.Name):
                    if isinstance(node.ctx, ast.Store):
                        found.append(node)
                elif isinstance(node, _SCOPES):
                    todo.extend(node.decorator_list)  # they run in this scope; its body is a scope of its own
                else:
                    todo.extend(ast.iter_child_nodes(node))
            self._local_names[fid] = found
        return found

    def _bind(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, args: list[Value], kwargs: dict[str, Value]) -> None:
        spec = fn.args
        positional = [*spec.posonlyargs, *spec.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(spec.defaults)) + list(spec.defaults)
        for i, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
            if i < len(args):
                self.defs[arg] = args[i]
            elif arg.arg in kwargs:
                self.defs[arg] = kwargs.pop(arg.arg)
            else:
                self.defs[arg] = self.ev(default) if default is not None else NOTHING
        for arg, kw_default in zip(spec.kwonlyargs, spec.kw_defaults, strict=True):
            if arg.arg in kwargs:
                self.defs[arg] = kwargs.pop(arg.arg)
            else:
                self.defs[arg] = self.ev(kw_default) if kw_default is not None else NOTHING
        if spec.vararg is not None:
            extra = args[len(positional) :]
            self.defs[spec.vararg] = Value(items=tuple(extra))
        if spec.kwarg is not None:
            # **fit_kwargs: a dict of the keywords left, each under its name, so `model.fit(X, y, **fit_kwargs)`
            # passes eval_set= on as the caller wrote it
            held = self.container(spec.kwarg, join_all(kwargs.values()), Value(consts=frozenset(kwargs)))
            held.entries.update(kwargs)
            self.defs[spec.kwarg] = Value(objects=frozenset({held.id}))

    def is_local_class(self, qualname: str) -> bool:
        """Whether ``qualname`` ('<local>.Prep') names a class the file defines."""
        return qualname in self._classes

    def local_bases(self, qualname: str) -> list[ast.expr]:
        found = self._classes.get(qualname)
        return list(found[1].bases) if found is not None else []

    def _class_body(self, node: ast.ClassDef) -> None:
        """A class body runs where the class is defined: what it binds (`scaler = MinMaxScaler()`, `X =
        PCA().fit_transform(raw)`) is the class's attribute, read as `Cfg.scaler` or on an instance."""
        bound: dict[str, Value] = {}
        module_names = dict(self.current)  # the class's names are its own: a module's X is not the class's X
        for stmt in node.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            self.stmt(stmt)
            targets = (
                stmt.targets
                if isinstance(stmt, ast.Assign)
                else [stmt.target]
                if isinstance(stmt, ast.AnnAssign | ast.AugAssign)
                else []
            )
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store) and name in self.defs:
                        bound[name.id] = self.defs[name]
        for held in bound:
            if held in module_names:
                self.current[held] = module_names[held]
            else:
                self.current.pop(held, None)
        self.class_attributes[f"{LOCAL}{node.name}"] = bound

    def class_attribute(self, qualname: str, attr: str) -> Value | None:
        """Attribute ``attr`` the body of the file's class ``qualname`` (or of a base class the file defines) bound."""
        seen: set[str] = set()
        todo = [qualname]
        while todo:
            current = todo.pop(0)
            if current in seen:
                continue
            seen.add(current)
            if attr in self.class_attributes.get(current, {}):
                return self.class_attributes[current][attr]
            if current in self._classes:
                todo += [f"{LOCAL}{b.id}" for b in self._classes[current][1].bases if isinstance(b, ast.Name)]
        return None

    def record_fields(self, qualname: str) -> list[str]:
        """The fields, in order, of the file's class ``qualname`` when it is a record built from them: a
        `@dataclass` or a `NamedTuple` (its annotated names in the class body); [] for any other class."""
        if qualname not in self._classes:
            return []
        node = self._classes[qualname][1]
        named = [ast.unparse(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list]
        bases = [ast.unparse(b) for b in node.bases]
        if not any(n.rpartition(".")[2] == "dataclass" for n in named) and not any(
            b.rpartition(".")[2] == "NamedTuple" for b in bases
        ):
            return []
        return [s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]

    def local_method(self, qualname: str, name: str) -> int | None:
        """Method ``name`` of the file's class ``qualname`` or of a base class the file defines too."""
        seen: set[str] = set()
        todo = [qualname]
        while todo:
            current = todo.pop(0)
            if current in seen or current not in self._classes:
                continue
            seen.add(current)
            methods, node = self._classes[current]
            if name in methods:
                return self._function_ids[methods[name]]
            todo += [f"{LOCAL}{b.id}" for b in node.bases if isinstance(b, ast.Name)]
        return None

    # Names ------------------------------------------------------------------------------------------------

    def lookup(self, node: ast.Name) -> Value:
        defs = self.names.definitions(node)
        rebound = self.current.get(node.id)
        if not self.calls and rebound and any(d in self.names.global_targets for d in rebound):
            # `normalise()` assigned X after `global X`: the module reads the value the call gave it
            return join_all([self.defs.get(d, NOTHING) for d in rebound])
        if self.calls and defs and all(not isinstance(d, ast.AST) or d in self.names.module_level for d in defs):
            # A module-level name read inside a function: its value when the call happens, not at the module's end.
            current = self.current.get(node.id)
            if current:
                defs = list(current)
        out = NOTHING
        for d in defs:
            if isinstance(d, ast.alias):
                path = self.names.import_path(d, node.id)
                if path is not None:
                    out = out.join(Value(names=frozenset({path})))
            elif isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef):
                out = out.join(Value(functions=frozenset({self._function_ids[d]})))
            elif isinstance(d, ast.ClassDef):
                out = out.join(Value(names=frozenset({f"{LOCAL}{d.name}"})))
            elif isinstance(d, ast.AST):
                out = out.join(self.defs.get(d, NOTHING))
            else:
                name = builtin_name(d)
                if name is not None:
                    out = out.join(Value(names=frozenset({name})))
        return out

    def mutate(self, target: ast.AST, value: Value) -> None:
        if isinstance(target, ast.Attribute) and target.attr in ("loc", "iloc", "at", "iat"):
            self.mutate(target.value, value)
            return
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            # self.df["ratio"] = ...: the table an object holds is changed in place, under that attribute
            for oid in self.lookup(target.value).objects:
                found = self.record.objects[oid]
                if target.attr in found.entries:
                    found.entries[target.attr] = value
            return
        if not isinstance(target, ast.Name):
            return
        defs = [d for d in self.names.definitions(target) if isinstance(d, ast.AST)]
        if self.calls and defs and all(d in self.names.module_level for d in defs):
            defs = list(self.current.get(target.id, defs))
        for d in defs:
            if isinstance(d, ast.Name | ast.arg) and d in self.defs:
                self.defs[d] = value

    # Expressions ------------------------------------------------------------------------------------------

    def ev(self, node: ast.AST) -> Value:
        method = getattr(self, "_ev_" + type(node).__name__, None)
        if method is None:
            for child in ast.iter_child_nodes(node):  # an expression the walk does not model: its parts still run
                if isinstance(child, ast.expr):
                    self.ev(child)
            return NOTHING
        found: Value = method(node)
        return found

    def _ev_Yield(self, node: ast.Yield) -> Value:
        given = self.ev(node.value) if node.value is not None else NOTHING
        if self._yields:
            self._yields[-1] = self._yields[-1].join(given)
            order, loops, passes = self._yield_order[-1]
            if order is not None:
                # each loop around it since the function began walked item by item: one yield per item, in order
                if len(self.loops) - loops == len(self.item_passes) - passes:
                    order.append(given)
                else:
                    self._yield_order[-1] = (None, loops, passes)
        return NOTHING  # what send() passes in: nothing the walk follows

    def _ev_YieldFrom(self, node: ast.YieldFrom) -> Value:
        given = self.iterate(self.ev(node.value))
        if self._yields:
            self._yields[-1] = self._yields[-1].join(given)
            _, loops, passes = self._yield_order[-1]
            self._yield_order[-1] = (None, loops, passes)
        return NOTHING

    def _ev_Constant(self, node: ast.Constant) -> Value:
        value = node.value
        short = not isinstance(value, str) or len(value) <= 200  # a column name, a flag; not a document
        if (isinstance(value, str | int | float | bool) or value is None) and short:
            return Value(consts=frozenset({value}))
        return NOTHING

    def _ev_Name(self, node: ast.Name) -> Value:
        return self.lookup(node)

    def _ev_Attribute(self, node: ast.Attribute) -> Value:
        base = self.ev(node.value)
        return self.attribute(base, node.attr, node)

    def _ev_Call(self, node: ast.Call) -> Value:
        return self.call(node)

    def _ev_Subscript(self, node: ast.Subscript) -> Value:
        return self.subscript(node)

    def _step_written_out(self, node: ast.Assign) -> Value | None:
        """`w = w - lr * X[tr].T @ err` in a loop: the gradient step `w -= ...` written out (None for anything else,
        which is evaluated as written)."""
        value = node.value
        if not (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and isinstance(value, ast.BinOp)):
            return None
        target = node.targets[0]
        if not (isinstance(value.left, ast.Name) and value.left.id == target.id and _a_gradient(value.right)):
            return None
        before, given = self.lookup(target), self.ev(value.right)
        return self._weights_stepped(node, target, value.op, value.right, before, given)

    def _weights_stepped(
        self, node: ast.stmt, target: ast.expr, op: ast.operator, step: ast.expr, before: Value, given: Value
    ) -> Value | None:
        """`w -= lr * X[tr].T @ (p - y[tr]) / n` in a loop: weights a hand-written gradient descent learns from the
        rows its step reads, a model trained on them (its predictions are `X @ w`); None for any other step."""
        if not self.loops or not isinstance(target, ast.Name) or given.data is None or not given.data.rows:
            return None
        if not isinstance(op, ast.Sub | ast.Add) or not _a_gradient(step):
            return None
        held = [o for o in before.objects if self.record.objects[o].qualname == WEIGHTS]
        if not held and before.data is not None and not before.data.blank:
            return None  # an array of rows changed in place (`X -= X.mean(0)`), no weights
        model = self.record.objects[held[0]] if held else self.obj(node, WEIGHTS, Role(Kind.MODEL))
        rows = replace(given.data, predicted=frozenset(), against_truth=False)
        model.trains = model.trains | {self.train(node, f"{target.id} (gradient steps)", model, rows, None).id}
        return Value(objects=frozenset({model.id}), stats=given.stats)

    def _ev_BinOp(self, node: ast.BinOp) -> Value:
        left, right = self.ev(node.left), self.ev(node.right)
        weights = [o for o in right.objects if self.record.objects[o].qualname == WEIGHTS]
        if isinstance(node.op, ast.MatMult) and weights and left.data is not None:
            # X[te] @ w of weights learned by gradient steps: that model's predictions of the left's rows
            made = replace(left.data, predicted=frozenset(weights), columns=None, mask=None, fed=left.data.fits)
            return Value(data=made, stats=left.stats)
        joined = _texts_joined(node.op, left, right) or _counts_folded(node.op, left, right)
        if joined is not None:  # "lag_" + str(k), N_BANDS - 1: a name or a count, known
            return joined
        if isinstance(node.op, ast.BitOr) and self.graph_sides(left) and self.graph_sides(right):
            return Value(parts=left.parts | right.parts)  # data.train_mask | data.val_mask: the nodes of both
        if isinstance(node.op, ast.MatMult) and left.data is not None and right.data is not None:
            # oof @ w, X @ components: the rows are the left's; the right's rows are summed over, what they were
            # computed with kept (weights being fitted are not rows scored)
            right = Value(stats=right.stats | right.data.fits, scores=right.scores)
        listed = self._lists_added(node.op, node, left, right)
        if listed is not None:
            return listed
        combined = self.combine(left, right)
        if isinstance(node.op, ast.Sub) and combined.data is not None and own_taken_out(left, right):
            # g.cumsum() - df["y"]: the running total less the row's own value, the earlier rows' only
            combined = replace(combined, data=replace(combined.data, past=True, running=frozenset()))
        if isinstance(node.op, _NUMERIC_OPS) and combined.data is not None:
            # df["price"] / df["sqft"], df["sales"] - 1: columns of text have no such arithmetic, so they are numbers
            shown = frozenset().union(*(v.data.sources for v in (left, right) if v.data is not None and v.data.picked))
            combined = replace(combined, data=replace(combined.data, numeric=combined.data.numeric | shown))
        if combined.data is not None and _makes_a_number(node.op, left, right):
            # df["yield_t_ha"] * 14.87: a number, which select_dtypes("number") keeps
            combined = replace(combined, data=replace(combined.data, number=True))
        masks = [v.data.mask for v in (left, right) if v.data is not None and v.data.mask is not None]
        if isinstance(node.op, ast.BitAnd) and len(masks) == 2 and combined.data is not None:
            # (df.date < cut) & (df.store != 3): the rows where both hold, each condition kept (frames.py)
            combined = replace(combined, data=replace(combined.data, mask=f"({masks[0]}) & ({masks[1]})"))
        if isinstance(node.op, ast.BitOr) and len(masks) == 2 and combined.data is not None:
            # (df.year == 2021) | (df.year == 2022): the rows where either holds (masks.py's mask_union)
            combined = replace(combined, data=replace(combined.data, mask=f"({masks[0]}) | ({masks[1]})"))
        if combined.data is None and combined.names_of is None and combined.items is None:
            items = self._list_items(node.op, left, right)
            if items is not None:
                combined = replace(combined, items=items)
        return combined

    def _lists_added(
        self, op: ast.operator, node: ast.BinOp | ast.AugAssign, left: Value, right: Value
    ) -> Value | None:
        """`history[1:] + [test[t]]`: a list the program built and a written list put together, a list of the rows of
        both, as extend() makes it (in a loop after the pass's forecast, each pass's row is a later pass's)."""
        if not isinstance(op, ast.Add) or left.items is not None or not self._a_list(left):
            return None  # [X0] + [copies ...]: a written list first is read as list arithmetic (_list_items)
        if right.items is None and not self._a_list(right):
            return None
        rows = self.rows_of([left, right])
        if rows is None:
            return None
        # history + [test[t]], or + list(test[t:t + 1]): the rows the right side's items hold
        added = [item.data for item in right.items if item.data is not None] if right.items is not None else []
        if right.items is None and (held := self.rows_of([right])) is not None:
            added.append(held)
        if added:
            self.note_appended_after_fit(added, node)
        made = self.container(node, Value(data=rows))
        return Value(objects=frozenset({made.id}), data=rows)

    def _a_list(self, value: Value) -> bool:
        return any(self.record.objects[o].qualname == CONTAINER for o in value.objects)

    def _list_items(self, op: ast.operator, left: Value, right: Value) -> tuple[Value, ...] | None:
        """The items of list arithmetic, as a concatenation reads them: ``[a] * 3`` is a three times, and
        ``[a] + [f(a) for _ in range(3)]`` is a then the comprehension's elements, counted once (their number
        is unknown): either way, rows of a that come in again."""
        if isinstance(op, ast.Mult):
            for listed, times in ((left, right), (right, left)):
                count = times.const
                if listed.items is None or type(count) is not int or count < 0:
                    continue
                if len(listed.items) * count <= _LISTED_ITEMS:
                    return listed.items * count
                # Longer, it is read as its first items twice: still a list of what comes in again, and
                # (([a] * 64) * 64) * 64 ... cannot grow without end.
                return listed.items[: _LISTED_ITEMS // 2] * min(count, 2)
            return None
        if not isinstance(op, ast.Add) or (left.items is None) == (right.items is None):
            return None
        other = right if left.items is not None else left
        if not any(self.record.objects[o].qualname == CONTAINER for o in other.objects):
            return None  # not a list the walk built: a + b of something else
        elements = (self.iterate(other),)
        return (*left.items, *elements) if left.items is not None else (*elements, *(right.items or ()))

    def _ev_UnaryOp(self, node: ast.UnaryOp) -> Value:
        value = self.ev(node.operand)
        if isinstance(node.op, ast.Invert | ast.Not) and self.graph_sides(value):
            return self.graph_complement(value)
        if value.data is not None and value.data.mask is not None and isinstance(node.op, ast.Invert | ast.Not):
            return replace(value, data=replace(value.data, mask=f"~({value.data.mask})"))
        if value.consts:  # -1 is not 1: shift(-1) reads the next row, shift(1) the one before
            return replace(value, consts=frozenset(_unary(node.op, c) for c in value.consts) - {None})
        return value

    def _ev_BoolOp(self, node: ast.BoolOp) -> Value:
        values = [self.ev(v) for v in node.values]
        # `fit and not refit` of known flags: the operand Python stops at, so a branch it rules out is not taken
        for value in values:
            const = _one_constant(value)
            if const is _UNKNOWN:
                break
            if bool(const) is isinstance(node.op, ast.Or):
                return value
        else:
            return values[-1]
        return join_all(values)

    def _ev_Compare(self, node: ast.Compare) -> Value:
        values = [self.ev(node.left), *(self.ev(c) for c in node.comparators)]
        known = _identity(node, values)
        if known is None:
            known = _constants_compared(node, values)
        if known is not None:
            # `if mean is None:` in a helper given the training statistics, `if split == "train":` in one given
            # "test": the branch that fits new statistics is not taken at that call (`is` and a comparison of
            # two constants are never a mask over rows)
            return Value(consts=frozenset({known}))
        return self.compare(node, values)

    def _ev_IfExp(self, node: ast.IfExp) -> Value:
        # As an `if` statement: `X.mean(0) if mean is None else mean` given the training mean takes that mean only
        test = self.ev(node.test).const
        if test is True:
            return self.ev(node.body)
        if test is False:
            return self.ev(node.orelse)
        return self.ev(node.body).join(self.ev(node.orelse))

    def _ev_NamedExpr(self, node: ast.NamedExpr) -> Value:
        value = self.ev(node.value)
        self.assign(node.target, value, node)
        return value

    def _ev_Starred(self, node: ast.Starred) -> Value:
        return self.ev(node.value)

    def _ev_Tuple(self, node: ast.Tuple) -> Value:
        return self._sequence(node, node.elts, container=False)

    def _ev_List(self, node: ast.List) -> Value:
        return self._sequence(node, node.elts, container=True)

    def _ev_Set(self, node: ast.Set) -> Value:
        return self._sequence(node, node.elts, container=True)

    def _sequence(self, node: ast.AST, elts: Sequence[ast.expr], container: bool) -> Value:
        values = [self.ev(e) for e in elts]
        fixed = None if any(isinstance(e, ast.Starred) for e in elts) else tuple(values)
        if not container and fixed is not None:
            return Value(items=fixed)
        joined = join_all(
            self.iterate(v) if isinstance(e, ast.Starred) else v for e, v in zip(elts, values, strict=True)
        )
        found = self.container(node, joined)
        for i, value in enumerate(values):
            found.entries[i] = value
        starred = [v for e, v in zip(elts, values, strict=True) if isinstance(e, ast.Starred)]
        if container and isinstance(node, ast.expr) and any(self._a_list(v) for v in starred):
            # [*history, test[t]]: a list the program built and rows added to it, a list of the rows of both as
            # history + [test[t]] is (_lists_added)
            # (a starred slice of rows, `*test[t:t + 1]`, is rows added, as a starred list of rows is)
            rows = [
                self.rows_of([v])
                for e, v in zip(elts, values, strict=True)
                if not self._a_list(v) or not isinstance(e, ast.Starred)
            ]
            added = [d for d in rows if d is not None]
            if added:
                self.note_appended_after_fit(added, node)
            return Value(objects=frozenset({found.id}), data=self.rows_of(values))
        return Value(objects=frozenset({found.id}), items=fixed)

    def _literal_list(self, node: ast.AST, items: tuple[Value, ...]) -> Value:
        """A list of ``items`` made at ``node``, each kept under its position."""
        found = self.container(node, join_all(items))
        found.entries.update(enumerate(items))
        return Value(objects=frozenset({found.id}), items=items)

    def _ev_Dict(self, node: ast.Dict) -> Value:
        keys = [self.ev(k) if k is not None else NOTHING for k in node.keys]
        values = [self.ev(v) for v in node.values]
        found = self.container(node, join_all(values), join_all(keys))
        for k, v in zip(keys, values, strict=True):
            if k.const is not None:
                found.entries[k.const] = found.entries.get(k.const, NOTHING).join(v)
        return Value(objects=frozenset({found.id}))

    def _ev_ListComp(self, node: ast.ListComp) -> Value:
        return self._comprehension(node, node.generators, lambda: (self.ev(node.elt), NOTHING))

    def _ev_SetComp(self, node: ast.SetComp) -> Value:
        return self._comprehension(node, node.generators, lambda: (self.ev(node.elt), NOTHING))

    def _ev_GeneratorExp(self, node: ast.GeneratorExp) -> Value:
        return self._comprehension(node, node.generators, lambda: (self.ev(node.elt), NOTHING))

    def _ev_DictComp(self, node: ast.DictComp) -> Value:
        return self._comprehension(node, node.generators, lambda: (self.ev(node.value), self.ev(node.key)))

    def _comprehension(self, node: ast.AST, generators: list[ast.comprehension], element: object) -> Value:
        names = self._column_filter(node, generators)
        if names is not None:
            return names
        rest = self._positions_not_in(node, generators)
        if rest is not None:
            return rest
        self.enter_loop(node)
        each: list[Value] | None = None
        keys: list[Value] = []
        chosen: frozenset[int] = frozenset()  # row statistics the conditions keep elements by
        kept_by: list[Value] = []  # the conditions of a comprehension over one source's rows
        try:
            source = self.ev(generators[0].iter)
            if source.data is None and source.objects:
                # [f(t) for t in tokens] of a list a loop filled with one element per row: over those rows
                rows = self._given_rows(source)
                source = replace(source, data=rows) if rows is not None else source
            counted = self._counted(generators[0].iter)
            if len(generators) == 1 and not generators[0].ifs:
                self._count_passes(node, generators[0].iter, source.items)
            if len(generators) == 1 and counted and generators[0].ifs:
                # [folds[j] for j in range(5) if j != i]: the elements of the numbers the condition keeps
                each = []
                for item in counted:
                    if self._kept(generators[0], item, node):
                        each.append(element()[0])  # type: ignore[operator]
            known = source.items
            if known is not None and any(
                self.record.objects[o].qualname == CONTAINER and self.record.objects[o].elements != join_all(known)
                for o in source.objects
            ):
                known = None  # `tokens = []`, then appended to in a loop: its items are no longer the written ones
            limit = EACH_ITEM
            if known is None and not generators[0].ifs and _a_name_made(node):
                # [f"mfcc_{i}" for i in range(40)]: the names of each number, known one by one (a text each, so
                # more of them are read than of elements that are rows)
                # (a dict's values walked per key too, as a loop's body is: `{f"lag_{k}": y.shift(k) for k in ...}`)
                limit = NAMES_WALKED if isinstance(node, ast.DictComp) else NAMES_MADE
                known = self._counted(generators[0].iter, limit)
            if each is not None:
                value, key = join_all(each), NOTHING
            elif len(generators) == 1 and not generators[0].ifs and known is not None and len(known) <= limit:
                # [sc.transform(x) for x in (X_train, X_test)]: one element per item, kept apart, so unpacking
                # the result gives each part its own rows (not both parts put back together)
                self.record.pass_values[self.loops[-1]] = _item_values(known)
                each = []
                for i, item in enumerate(known):
                    self.assign(generators[0].target, item, node)
                    self.item_passes.append(i)  # a pass per item: `read_csv(f"{name}.csv")` reads the file it names
                    try:
                        made, made_key = element()  # type: ignore[operator]
                    finally:
                        self.item_passes.pop()
                    each.append(made)
                    keys.append(made_key)
                value, key = join_all(each), join_all(keys)
            else:
                for i, gen in enumerate(generators):
                    self.assign(gen.target, self.iterate(source if i == 0 else self.ev(gen.iter)), node)
                    for condition in gen.ifs:
                        held = self.ev(condition)
                        chosen |= self.stats_in([held])
                        if len(generators) == 1:
                            kept_by.append(held)
                value, key = element()  # type: ignore[operator]
                if isinstance(node, ast.ListComp | ast.GeneratorExp):
                    value = self.windowed(generators, node.elt, value)
        finally:
            self.loops.pop()
        found = self.container(node, value, key)
        if each is not None and isinstance(node, ast.ListComp | ast.GeneratorExp):
            found.entries.update(enumerate(each))  # scaled[0]: the first item's element, not every item's
            return Value(objects=frozenset({found.id}), scores=value.scores, items=tuple(each))
        if keys and isinstance(node, ast.DictComp):
            # {k: f(v) for k, v in parts.items()}: each part's element under its own key, so Xs["train"] is
            # the training part's only
            for made, made_key in zip(each or (), keys, strict=True):
                if made_key.const is not None:
                    found.entries[made_key.const] = found.entries.get(made_key.const, NOTHING).join(made)
        rows = self._rows_per_item(node, source, value, kept_by)
        # [c for c in cols if df[c].mean() > 0]: what the conditions kept was chosen with those rows' statistics;
        # [c for c in sorted(corr, key=...)[:10]]: what it goes over was
        return Value(objects=frozenset({found.id}), scores=value.scores, data=rows, stats=chosen | source.stats)

    def _positions_not_in(self, node: ast.AST, generators: list[ast.comprehension]) -> Value | None:
        """`[i for i in range(n) if i not in test_idx]`: the positions a drawn sample left, as np.setdiff1d gives
        them (None: another comprehension, or positions not drawn by a split)."""
        if len(generators) != 1 or not isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp):
            return None
        gen = generators[0]
        target = gen.target
        if not (isinstance(target, ast.Name) and isinstance(node.elt, ast.Name) and node.elt.id == target.id):
            return None
        if len(gen.ifs) != 1 or not isinstance(gen.ifs[0], ast.Compare):
            return None
        condition = gen.ifs[0]
        left = condition.left
        if not (isinstance(left, ast.Name) and left.id == target.id and len(condition.ops) == 1):
            return None
        if not isinstance(condition.ops[0], ast.NotIn):
            return None
        remaining = positions_left(self.ev(gen.iter).data, self.ev(condition.comparators[0]).data)
        return Value(data=remaining) if remaining is not None else None

    def _counted(self, iterated: ast.expr, most: int = EACH_ITEM) -> tuple[Value, ...] | None:
        """The numbers of `range(k)` with k a known count of at most a few: a loop over them walked number by number,
        so `folds[i]` is one piece in each pass (None: any other iterable)."""
        if isinstance(iterated, ast.Name):  # LAGS = range(0, 7), then `for k in LAGS`
            iterated = self.assigned_once(iterated) or iterated
        if not (isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.func.id == "range"):
            return None
        if not 1 <= len(iterated.args) <= 2 or iterated.keywords or "range" in self.current:
            return None
        ends = [self.ev(a).const for a in iterated.args]
        if not all(type(e) is int for e in ends):
            return None
        numbers = range(*(int(str(e)) for e in ends))
        if not 2 <= len(numbers) <= most:
            return None
        return tuple(Value(consts=frozenset({i})) for i in numbers)

    def _each_pass_row(self, target: ast.expr, element: Value) -> Value:
        """In a walk forward, what each pass goes over is that pass's row of those rows (`for obs in test`, `for t,
        obs in enumerate(test)`, `for ts, obs in zip(test.index, test.values)`): named by the target it is bound to,
        as `test[t:t + 1]` is by `t`."""
        if isinstance(target, ast.Name) and element.data is not None and element.data.rows:
            return replace(element, data=self._rows(element.data, one_row(target), NOTHING, target))
        if isinstance(target, ast.Tuple) and element.items is not None and len(element.items) == len(target.elts):
            items = tuple(self._each_pass_row(t, v) for t, v in zip(target.elts, element.items, strict=True))
            return replace(element, items=items)
        return element

    def _indexes_pieces(self, node: ast.For | ast.AsyncFor) -> bool:
        """Whether the loop's number picks one of the pieces of np.array_split or np.split (`folds[i]`)."""
        if not isinstance(node.target, ast.Name):
            return False
        for inner in (n for stmt in node.body for n in ast.walk(stmt)):
            if not (isinstance(inner, ast.Subscript) and isinstance(inner.value, ast.Name)):
                continue
            if not (isinstance(inner.slice, ast.Name) and inner.slice.id == node.target.id):
                continue
            items = self.ev(inner.value).items
            if items and all(_a_piece(item) for item in items):
                return True
        return False

    def _kept(self, generator: ast.comprehension, item: Value, node: ast.AST) -> bool:
        """Whether a comprehension's conditions can hold for ``item`` (False only when one is known false)."""
        self.assign(generator.target, item, node)
        for condition in generator.ifs:
            if not (isinstance(condition, ast.Compare) and len(condition.ops) == 1):
                continue
            op, left, right = condition.ops[0], self.ev(condition.left), self.ev(condition.comparators[0])
            if not isinstance(op, ast.Eq | ast.NotEq) or len(left.consts) != 1 or len(right.consts) != 1:
                continue
            if (left.consts == right.consts) != isinstance(op, ast.Eq):
                return False
        return True

    def _rows_per_item(self, node: ast.AST, source: Value, value: Value, kept_by: list[Value]) -> Data | None:
        """[[r["a"], r["b"]] for r in records], [bow(t) for t in texts]: one element per row of a data source, so
        the result holds that source's rows, with what each element was computed with (a learned vocabulary);
        ``kept_by``: the conditions that keep some rows, each a mask of them as `df[mask]`'s."""
        if not isinstance(node, ast.ListComp | ast.GeneratorExp) or self.only_scores(value):
            return None  # [(m(x).argmax(1) == y).sum() for x, y in loader]: a score per batch, no row
        element = self.rows_of([value, *self._inner_items(value)])
        rows = self.rows_of([source])  # a table's rows, or records read one by one into a list
        if element is not None and element.predicted and (rows is not None or self._zipped(source)):
            # [net(x).item() for x in X_te], [net(u, i) for u, i in zip(te.user, te.item)]: a model's predictions
            # of the rows, one row at a time
            return replace(element, each_row=False, mask=None)
        if rows is None or rows.predicted:
            return None
        fits = self.stats_in([value]) | (element.fits if element is not None else frozenset())
        for held in kept_by:
            # [... for r in df.itertuples() if r.patient in test_patients]: the rows where it holds, as the rows of
            # df[df.patient.isin(test_patients)] are, so the rows of `not in` are the other side
            if held.data is not None and held.data.mask is not None and not held.data.predicted:
                rows = self._cut_by(rows, held.data.mask, ",".join(sorted(held.data.sources)) or "rows", node)
        # the elements' columns are whatever each element is made of: not the source's
        return replace(self.with_fits(rows, fits), mask=None, columns=Columns(opaque=True))

    def _zipped(self, source: Value) -> bool:
        """Whether ``source`` is zip() of rows: columns of one table (or tables) met a row at a time."""
        for oid in source.objects:
            items = self.record.objects[oid].elements.items
            if self.record.objects[oid].qualname != CONTAINER or items is None:
                continue
            if any(i.data is not None and i.data.each_row for i in items):
                return True
        return False

    def _inner_items(self, value: Value) -> list[Value]:
        """The items of the lists and tuples an element is made of ([r["a"], r["b"]]), and the keys of its dicts
        ({str(i): 1 for i in tok.encode(t).ids})."""
        inner = [self.iterate(Value(objects=frozenset({oid}))) for oid in value.objects]
        return inner + [self.record.objects[oid].keys for oid in value.objects]

    def _column_filter(self, node: ast.AST, generators: list[ast.comprehension]) -> Value | None:
        """[c for c in df.columns if c not in (...)]: the table's columns less those named; any other
        comprehension over column names names columns the walk cannot know."""
        if len(generators) != 1 or not isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp):
            return None
        gen = generators[0]
        source = self.ev(gen.iter)
        if source.names_of is None:
            return None
        target = gen.target
        if not (isinstance(target, ast.Name) and isinstance(node.elt, ast.Name) and node.elt.id == target.id):
            return Value(names_of=Columns(opaque=True), stats=self._chosen_by(node, gen))
        excluded: list[str] = []
        numeric = False
        matched: list[str] = []
        for condition in (c for given in gen.ifs for c in _conjuncts(given)):
            pattern = _name_pattern(condition, target.id, self.ev)
            if pattern is not None:  # c.startswith(("num_", "risk_")), "risk" in c: the names it matches
                matched.append(pattern)
                continue
            if _keeps_numbers(condition, target.id):
                numeric = True  # df[c].dtype != "object": numeric columns kept, as select_dtypes("number") keeps
                continue
            # df[c].nunique() > 1: every column that varies, the label among them; so does df[c].std() > 0, since
            # pandas' std of a column of text raises: the program runs only when every column holds numbers
            if _keeps_varying(condition, target.id) is not None or _column_named(
                complete_columns_of(condition), target.id
            ):
                continue  # df[c].notna().all(), df[c].isna().mean() < 0.3: every complete column, the label too
            named = _excluded_names(condition, target.id, self.ev)
            if named is None:
                return Value(names_of=Columns(opaque=True), stats=self._chosen_by(node, gen))
            excluded += named
        names = source.names_of.without(excluded)
        if numeric and not names.opaque and names.dtypes is None:
            names = replace(names, dtypes="number")
        if matched and not names.opaque:
            # every pattern held at once: each a lookahead of the one name
            both = matched[0] if len(matched) == 1 and names.matched is None else None
            names = replace(names, matched=both) if both is not None else Columns(opaque=True)
        return Value(names_of=names)

    def _chosen_by(self, node: ast.AST, gen: ast.comprehension) -> frozenset[int]:
        """The row statistics the conditions of a comprehension over column names compute, each name in turn
        (`[c for c in X.columns if abs(X[c].corr(y)) > 0.3]`): the names kept were chosen with those rows, as
        `corr[corr > 0.3].index` would be."""
        self.enter_loop(node)
        try:
            self.assign(gen.target, NOTHING, node)  # one column name, which the walk cannot know
            chosen = self.stats_in([self.ev(condition) for condition in gen.ifs])
            element = getattr(node, "elt", None)
            target = gen.target.id if isinstance(gen.target, ast.Name) else None
            if isinstance(element, ast.expr) and not (isinstance(element, ast.Name) and element.id == target):
                # [abs(X[c].corr(y)) for c in X.columns]: each name's statistic, which a later zip ranks them by
                chosen |= self.stats_in([self.ev(element)])
            return chosen
        finally:
            self.loops.pop()

    def _ev_JoinedStr(self, node: ast.JoinedStr) -> Value:
        """An f-string of known parts is the text it makes (`f"{year}-{month:02d}-01"`, year and month being 2023
        and 6): a date cut or a column name so written compares as the text itself."""
        parts: list[str] | None = []
        for part in node.values:
            value = self.ev(part.value if isinstance(part, ast.FormattedValue) else part).const
            text = _formatted(part, value)
            parts = None if parts is None or text is None else [*parts, text]
        made = "".join(parts) if parts is not None else None
        return Value(consts=frozenset({made})) if made is not None and len(made) <= 200 else NOTHING

    def _ev_FormattedValue(self, node: ast.FormattedValue) -> Value:
        self.ev(node.value)
        return NOTHING

    def _ev_Lambda(self, node: ast.Lambda) -> Value:
        """A lambda as a value (kept in a dict, `{"z": lambda d: ...}`, passed on later): a function of the file, its
        body returned, so a call of what holds it walks it as the lambda written in place is."""
        fid = self._function_ids.get(node)
        if fid is None:
            body = ast.copy_location(ast.Return(value=node.body), node.body)
            made = ast.FunctionDef(name="<lambda>", args=node.args, body=[body], decorator_list=[], returns=None)
            fid = len(self.functions)
            self.functions.append(ast.copy_location(made, node))
            self._function_ids[node] = self._function_ids[made] = fid
            self._lambdas.add(fid)
        return Value(functions=frozenset({fid}))

    def call_lambda(self, node: ast.Lambda, args: list[Value]) -> Value:
        positional = [*node.args.posonlyargs, *node.args.args]
        # the defaults line up with the last parameters: `lambda d, c="acc_x": ...` called with the table alone
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(node.args.defaults)) + [*node.args.defaults]
        for i, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
            self.defs[arg] = args[i] if i < len(args) else self.ev(default) if default is not None else NOTHING
        return self.ev(node.body)

    # Values -----------------------------------------------------------------------------------------------

    def iterate(self, value: Value) -> Value:
        """What one iteration over ``value`` yields."""
        out = join_all(value.items) if value.items is not None else NOTHING
        for oid in value.objects:
            found = self.record.objects[oid]
            # a list, or a neighbours search's indices or mask: each row's part
            if found.qualname in (CONTAINER, NEIGHBOURS, OTHER_NEIGHBOURS, NOT_SELF):
                out = out.join(found.elements)
            elif found.qualname == SPLITS and found.split is not None:
                train, test = Part(found.split, "train"), Part(found.split, "test")
                out = out.join(Value(items=(Value(parts=frozenset({train})), Value(parts=frozenset({test})))))
            elif found.qualname in self._classes:
                # a torch Dataset of the file's own: its items are the rows it holds at the index asked (self.x[i])
                # and the statistics a step it calls on them was built with (`self.transform(self.x[i])` of a
                # Normalize(mean, std) given when it was made)
                baked = self.item_statistics(found)
                for name in self._items_held(found.qualname):
                    entry = found.entries.get(name)
                    if entry is not None and entry.data is not None:
                        out = out.join(Value(data=self.with_fits(entry.data, baked)))
        if value.data is not None and value.data.grouped:  # for k, g in df.groupby("k"): one group's rows a pass
            out = out.join(Value(data=replace(value.data, grouped=False, one_group=True, mask=None)))
        elif value.data is not None:
            batched = any(self.record.objects[o].qualname == BATCHES for o in value.objects)
            out = out.join(Value(data=replace(value.data, each_row=not batched)))
        if value.names_of is not None and value.names_of.matched is not None and value.names_of.base is None:
            # for c in [c for c in df.columns if c.startswith("f_")]: each pass one of the names the pattern keeps
            out = out.join(Value(names_of=value.names_of))
        if value.scores or value.stats:
            out = out.join(Value(scores=value.scores, stats=value.stats))
        return out

    def item_statistics(self, found: Obj) -> frozenset[int]:
        """The row statistics in every item an object of the file's `Dataset` class gives: those its
        `__getitem__` reads from outside (`MEAN`), from the object (`self.mu` learned in `__init__`) or through a
        step it calls (`self.transform` of a Normalize(mean, std))."""
        if found.qualname not in self._classes:
            return frozenset()
        held = self._items_held(found.qualname)
        called = self._own_attributes(found.qualname, called=True)
        own = frozenset().union(
            *(
                entry.stats | (entry.data.fits if entry.data is not None else frozenset())
                for name in self._own_attributes(found.qualname) - held - called
                if (entry := found.entries.get(name)) is not None
            )
        )
        return frozenset().union(
            self._statistics_read(found.qualname),
            own,
            *(self.record.objects[o].baked for name in called for o in found.entries.get(name, NOTHING).objects),
        )

    def _own_attributes(self, qualname: str, called: bool = False) -> set[str]:
        """The attributes of the object a `Dataset` class of the file reads in its `__getitem__` (`self.mu`), or only
        those it calls there (`self.transform(...)`)."""
        getitem = self._classes[qualname][0].get("__getitem__")
        if getitem is None or not getitem.args.args:
            return set()
        own = getitem.args.args[0].arg
        found: set[str] = set()
        for n in ast.walk(getitem):
            read = n.func if called and isinstance(n, ast.Call) else None if called else n
            if isinstance(read, ast.Attribute) and isinstance(read.value, ast.Name) and read.value.id == own:
                found.add(read.attr)
        return found

    def _statistics_read(self, qualname: str) -> frozenset[int]:
        """The row statistics a `Dataset` class of the file reads from outside in its `__getitem__`
        (`(self.x[i] - MEAN) / STD` of `MEAN = X.mean(0)`): in every item it gives."""
        getitem = self._classes[qualname][0].get("__getitem__")
        if getitem is None:
            return frozenset()
        own = {a.arg for a in [*getitem.args.posonlyargs, *getitem.args.args, *getitem.args.kwonlyargs]}
        read = [
            n
            for stmt in getitem.body
            for n in ast.walk(stmt)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in own
        ]
        return frozenset().union(*(self.lookup(n).stats for n in read))

    def _items_held(self, qualname: str) -> set[str]:
        """The attributes a `Dataset` class of the file gives its items from, read at the index asked
        (`return self.x[i], self.y[i]` in `__getitem__`, `self.ann.iloc[i]`); none for another class, or for rows
        reached otherwise
        (`self.df.iloc[self.idx[i]]` gives the rows of `df` at positions it holds, not every row of it)."""
        methods, node = self._classes[qualname]
        bases = [ast.unparse(b) for b in node.bases]
        getitem = methods.get("__getitem__")
        if getitem is None or not any(b == "Dataset" or b.endswith(".Dataset") for b in bases):
            return set()
        params = [a.arg for a in getitem.args.args]
        if len(params) < 2:
            return set()
        found: set[str] = set()
        for n in ast.walk(getitem):
            if not (isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Name) and n.slice.id == params[1]):
                continue
            held = n.value
            if (
                isinstance(held, ast.Attribute)
                and held.attr in ("iloc", "loc")
                and isinstance(held.value, ast.Attribute)
            ):
                held = held.value  # self.ann.iloc[i]: the i-th row of the table it holds
            if isinstance(held, ast.Attribute) and isinstance(held.value, ast.Name) and held.value.id == params[0]:
                found.add(held.attr)
        return found

    def combine(self, left: Value, right: Value) -> Value:
        """An arithmetic result: rows of both, the statistics either used, the scores either came from."""
        data: Data | None = None
        for side in (left, right):
            if side.data is not None:
                data = side.data if data is None else data.join(side.data)
        stats = left.stats | right.stats
        if data is not None:
            # predictions minus labels (an error to average): a score in the making
            truth = (left.data is not None and right.data is not None) and bool(left.data.predicted) != bool(
                right.data.predicted
            )
            data = replace(
                self.with_fits(data, stats), mask=None, chain=data.chain, against_truth=truth or data.against_truth
            )
            if truth and any(v.data is not None and v.data.predicted and v.data.horizon for v in (left, right)):
                # test - np.array(preds) of a walk forward's forecasts: errors of forecasts, as a metric's are
                data = replace(data, horizon=True)
            return Value(data=data, scores=left.scores | right.scores)
        items = None
        if left.items is not None and right.items is not None:  # a + b of two lists: their items in order
            items = left.items + right.items
        names = _names_union(left, right)
        if names is not None:
            return Value(names_of=names)
        if POLARS_EXPRESSION in left.names | right.names:  # pl.col("x") - pl.col("x").mean(): an expression
            return Value(names=frozenset({POLARS_EXPRESSION}), stats=stats)
        # [x] * 4, list + list: still those lists' values
        return Value(objects=left.objects | right.objects, items=items, scores=left.scores | right.scores, stats=stats)

    def delete(self, target: ast.AST) -> None:
        if isinstance(target, ast.Subscript):
            holder = self.ev(target.value)
            names = self.ev(target.slice).strings()
            if holder.data is not None and holder.data.columns is not None and names:
                data = replace(holder.data, columns=holder.data.columns.without(names))
                self.mutate(target.value, replace(holder, data=data))


def _conjuncts(condition: ast.expr) -> list[ast.expr]:
    """The conditions `a and b` holds both of (a comprehension's `if` written as one)."""
    if isinstance(condition, ast.BoolOp) and isinstance(condition.op, ast.And):
        return [c for v in condition.values for c in _conjuncts(v)]
    return [condition]


def _keeps_numbers(condition: ast.expr, name: str) -> bool:
    """`df[c].dtype != "object"` (or `!= object`, `!= "O"`): a test of each column named ``name`` that keeps every
    numeric column (and perhaps others: the columns kept are known only to hold the numeric ones)."""
    if not (isinstance(condition, ast.Compare) and len(condition.ops) == 1 and isinstance(condition.ops[0], ast.NotEq)):
        return False
    left, right = condition.left, condition.comparators[0]
    if not (isinstance(left, ast.Attribute) and left.attr in ("dtype", "dtypes")):
        return False
    if not isinstance(left.value, ast.Subscript):
        return False
    if not (isinstance(left.value.slice, ast.Name) and left.value.slice.id == name):
        return False
    text = right.value if isinstance(right, ast.Constant) else right.id if isinstance(right, ast.Name) else None
    return text in ("object", "O", "str", "string", "category")


_VARY = {"nunique": 1, "std": 0, "var": 0}  # the value a column that holds one value has


def _column_named(column: ast.expr | None, name: str) -> bool:
    """Whether ``column`` is `df[name]`, the column of a loop's name."""
    return isinstance(column, ast.Subscript) and isinstance(column.slice, ast.Name) and column.slice.id == name


def _keeps_varying(condition: ast.expr, name: str) -> bool | None:
    """`df[c].nunique() > 1` (or `>= 2`, `!= 1`; `std() > 0`, `var() > 0`): a test of each column named ``name``
    that keeps every column holding more than one value, a label always among them. True for std and var (of
    numbers only: a column of text makes them raise), False for nunique, None for any other condition."""
    if not (isinstance(condition, ast.Compare) and len(condition.ops) == 1):
        return None
    call, op, bound = condition.left, condition.ops[0], condition.comparators[0]
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _VARY):
        return None
    column = call.func.value
    if not (isinstance(column, ast.Subscript) and isinstance(column.slice, ast.Name) and column.slice.id == name):
        return None
    if not (isinstance(bound, ast.Constant) and isinstance(bound.value, int | float)):
        return None
    one = _VARY[call.func.attr]
    kept = (
        (isinstance(op, ast.Gt) and bound.value == one)
        or (isinstance(op, ast.GtE) and bound.value == one + 1 and call.func.attr == "nunique")
        or (isinstance(op, ast.NotEq) and bound.value == one)
    )
    return call.func.attr != "nunique" if kept else None


def _excluded_names(condition: ast.expr, name: str, ev: object) -> list[str] | None:
    """The names `c not in [...]`, `c != "x"` or `c not in ("a", "b")` leaves out (None: another condition)."""
    if not (isinstance(condition, ast.Compare) and len(condition.ops) == 1):
        return None
    left, op, right = condition.left, condition.ops[0], condition.comparators[0]
    if not (isinstance(left, ast.Name) and left.id == name):
        return None
    value = ev(right)  # type: ignore[operator]
    names = value.strings()
    if isinstance(op, ast.NotEq) and isinstance(value.const, str):
        return [value.const]
    if isinstance(op, ast.NotIn) and names is not None:
        return names
    return None


def _identity(node: ast.Compare, values: list[Value]) -> bool | None:
    """`x is None` or `x is not None` when what x may be is known: only None (a default left as it is), or only
    things that are not None (rows, statistics, objects). None when it may be either, or for any other comparison."""
    if len(node.ops) != 1 or not isinstance(node.ops[0], ast.Is | ast.IsNot) or len(values) != 2:
        return None
    sides = (node.left, node.comparators[0])
    nones = [i for i, n in enumerate(sides) if isinstance(n, ast.Constant) and n.value is None]
    if len(nones) != 1:
        return None
    other = values[1 - nones[0]]
    if other.consts == {None} and replace(other, consts=frozenset()) == NOTHING:
        is_none = True
    elif None not in other.consts and _not_none(other):
        is_none = False
    else:
        return None
    return is_none if isinstance(node.ops[0], ast.Is) else not is_none


def _constants_compared(node: ast.Compare, values: list[Value]) -> bool | None:
    """`split == "train"`, `name != "test"`, `split in ("train", "val")` when each side is one known constant
    (or a literal collection of them): its truth; None otherwise."""
    if len(node.ops) != 1 or len(values) != 2:
        return None
    op = node.ops[0]
    left, right = _one_constant(values[0]), values[1]
    if left is _UNKNOWN:
        return None
    if isinstance(op, ast.In | ast.NotIn):
        if right.items is None:
            return None
        options = [_one_constant(v) for v in right.items]
        if any(o is _UNKNOWN for o in options):
            return None
        found = any(left == o for o in options)
        return found if isinstance(op, ast.In) else not found
    other = _one_constant(right)
    if other is _UNKNOWN or not isinstance(op, ast.Eq | ast.NotEq):
        return None
    equal = left == other
    return equal if isinstance(op, ast.Eq) else not equal


_UNKNOWN = object()


def _one_constant(value: Value) -> object:
    """The one constant a value certainly is (a string, number, bool or None), else _UNKNOWN."""
    if len(value.consts) != 1 or replace(value, consts=frozenset()) != NOTHING:
        return _UNKNOWN
    (const,) = value.consts
    return const if isinstance(const, str | int | float | bool) or const is None else _UNKNOWN


def _not_none(value: Value) -> bool:
    """Whether ``value`` is certainly something: rows, statistics, an object, a name, a function, a tuple."""
    return bool(
        value.data is not None
        or value.stats
        or value.objects
        or value.names
        or value.functions
        or value.items is not None
        or value.scores
        or value.consts
    )


def _may_skip(node: ast.AST) -> bool:
    """Whether a statement of a loop's body may leave a pass without its model: `continue`, `break`, or an `if`
    around a fit (`if a != 10: ...fit(...)`); an `if` that only keeps the best score so far does not."""
    if isinstance(node, ast.Break | ast.Continue):
        return True
    if not isinstance(node, ast.If):
        return False
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("fit", "fit_transform")
        for stmt in [*node.body, *node.orelse]
        for n in ast.walk(stmt)
    )


def _item_values(items: Sequence[Value]) -> frozenset[str]:
    """The constants of a literal sequence's items, as a mask writes them (`2019`, `retail`)."""
    constants = (c for item in items for c in item.consts)
    return frozenset(str(c) for c in constants if isinstance(c, int | float | str) and not isinstance(c, bool))


def _names_union(left: Value, right: Value) -> Columns | None:
    """numeric_cols + categorical_cols, or a list of column names plus named ones: the names of both."""
    sides = []
    for side in (left, right):
        if side.names_of is not None:
            sides.append(side.names_of)
        elif side.strings() is not None:
            sides.append(Columns(frozenset(side.strings() or ())))
        else:
            return None
    if left.names_of is None and right.names_of is None:
        return None
    return sides[0].union(sides[1])


def _unary(op: ast.unaryop, const: Hashable) -> Hashable | None:
    """A constant under a unary operator, as Python computes it; None where it does not apply (-"a")."""
    if isinstance(op, ast.Not):
        return not const
    if isinstance(const, bool) or not isinstance(const, int | float | complex):
        return None
    if isinstance(op, ast.USub):
        return -const
    if isinstance(op, ast.UAdd):
        return const
    return ~const if isinstance(const, int) else None


def _a_piece(item: Value) -> bool:
    """Whether ``item`` is one piece of np.array_split or np.split: rows whose last part is a piece of that split."""
    data = item.data
    return (
        data is not None
        and bool(data.rows)
        and all(a.parts and a.parts[-1].split.startswith(("np.array_split@", "np.split@")) for a in data.rows)
    )


def _formatted(part: ast.expr, value: object) -> str | None:
    """One part of an f-string as the text it makes of a known text or whole number; None when not known."""
    if not isinstance(value, str | int) or isinstance(value, bool):
        return None
    if not isinstance(part, ast.FormattedValue):
        return str(value)
    spec = part.format_spec
    written = [v.value for v in spec.values if isinstance(v, ast.Constant)] if isinstance(spec, ast.JoinedStr) else []
    if spec is not None and (not isinstance(spec, ast.JoinedStr) or len(written) != len(spec.values)):
        return None  # a spec with a field of its own, `{x:{width}}`
    shown = {-1: value, 115: str(value), 114: repr(value), 97: ascii(value)}.get(part.conversion)
    try:
        return format(shown, "".join(str(w) for w in written)) if shown is not None else None
    except (ValueError, TypeError):
        return None


# Arithmetic that text (or a column of it) does not have: `+` joins texts, `*` repeats them, `%` formats them.
_NUMERIC_OPS = (ast.Sub, ast.Div, ast.FloorDiv, ast.Pow)


def _makes_a_number(op: ast.operator, left: Value, right: Value) -> bool:
    """Whether a column and a number put together by ``op`` make numbers: `x * 14.87`, `x / 30`, `x + 1`, `x ** 2`
    (text times an integer repeats it, and dates less a number are dates: neither is said to be a number)."""
    sides = [v for v in (left, right) if v.data is not None]
    consts = [v.const for v in (left, right) if v.data is None and type(v.const) in (int, float)]
    if len(sides) != 1 or len(consts) != 1 or sides[0].data is None or sides[0].data.dates:
        return False
    if isinstance(op, ast.Mult):
        return type(consts[0]) is float
    return isinstance(op, ast.Add | ast.Sub | ast.Div | ast.FloorDiv | ast.Pow)


def _case_taken(case: ast.match_case, subject: object) -> bool | None:
    """Whether a case of a `match` on the known value ``subject`` matches it: True or False when its pattern
    says so plainly (a constant, `None`, `_`, an `|` of them), None when it cannot tell (a class pattern, a
    guard that holds or not)."""

    def matches(pattern: ast.pattern) -> bool | None:
        if isinstance(pattern, ast.MatchValue) and isinstance(pattern.value, ast.Constant):
            value = pattern.value.value
            if type(value) is not type(subject):  # `case 1` matches 1.0 and True: said only of one type
                return None
            return bool(value == subject)
        if isinstance(pattern, ast.MatchSingleton):
            return pattern.value is subject
        if isinstance(pattern, ast.MatchAs) and pattern.pattern is None:
            return True  # `case _` or a bare name: matches anything
        if isinstance(pattern, ast.MatchOr):
            each = [matches(p) for p in pattern.patterns]
            return True if any(e is True for e in each) else False if all(e is False for e in each) else None
        return None

    found = matches(case.pattern)
    if found is True and case.guard is not None:
        return None
    return found


def _yields_plainly(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether every `yield` of ``fn`` is a statement of its own body or of `for` loops in it, never under a
    condition, a `while` or a `try`: what it yields is then known in order from one walk of its body."""

    def plain(statements: list[ast.stmt]) -> bool:
        for stmt in statements:
            if isinstance(stmt, ast.For):
                if not plain(stmt.body) or stmt.orelse:
                    return False
            elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
                continue
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Yield):
                if stmt.value.value is not None and _holds_yield(stmt.value.value):
                    return False
            elif _holds_yield(stmt):
                return False
        return True

    return plain(fn.body)


def _holds_yield(node: ast.AST) -> bool:
    """Whether a yield is written in ``node``, outside the functions and classes defined in it."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Yield | ast.YieldFrom | ast.Await):
            return True
        stack += [
            c
            for c in ast.iter_child_nodes(current)
            if not isinstance(c, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda)
        ]
    return False


def _name_pattern(condition: ast.expr, name: str, ev: Callable[[ast.AST], Value]) -> str | None:
    """The pattern a test of a column name ``name`` keeps names by, as a regular expression: `c.startswith(p)`
    (or a tuple of prefixes), `c.endswith(s)`, `"x" in c`, `re.search(p, c)` / `re.match(p, c)`; None for any
    other test."""
    if isinstance(condition, ast.Compare) and len(condition.ops) == 1 and isinstance(condition.ops[0], ast.In):
        right = condition.comparators[0]
        text = ev(condition.left).const
        if isinstance(right, ast.Name) and right.id == name and isinstance(text, str):
            return re.escape(text)
        return None
    if not isinstance(condition, ast.Call):
        return None
    func = condition.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == name:
        if func.attr not in ("startswith", "endswith") or len(condition.args) != 1 or condition.keywords:
            return None
        given = ev(condition.args[0])
        texts = [given.const] if given.items is None else [i.const for i in given.items]
        if not texts or not all(isinstance(t, str) for t in texts):
            return None
        either = "|".join(re.escape(str(t)) for t in texts)
        return f"^(?:{either})" if func.attr == "startswith" else f"(?:{either})$"
    called = ast.unparse(func)
    if called in ("re.search", "re.match") and len(condition.args) == 2 and not condition.keywords:
        pattern, subject = ev(condition.args[0]).const, condition.args[1]
        if isinstance(pattern, str) and isinstance(subject, ast.Name) and subject.id == name:
            return pattern if called == "re.search" else f"^(?:{pattern})"
    return None


# Names made of the numbers of a range, `[f"mfcc_{i}" for i in range(40)]`, are read one by one up to this many.
NAMES_MADE = 256


# A loop over a range whose body makes names of its numbers is walked number by number up to this many.
NAMES_WALKED = 32


def _names_made_in(loop: ast.For | ast.AsyncFor) -> bool:
    """Whether a loop's body makes a text of its number (`f"lag_{k}"`, `"lag_" + str(k)`): the name of a column
    each pass stores or reads, known once the number is."""
    if not isinstance(loop.target, ast.Name):
        return False
    number = loop.target.id

    def reads_number(part: ast.AST) -> bool:
        return any(isinstance(n, ast.Name) and n.id == number for n in ast.walk(part))

    for inner in (n for stmt in loop.body for n in ast.walk(stmt)):
        if isinstance(inner, ast.JoinedStr) and any(
            isinstance(v, ast.FormattedValue) and reads_number(v.value) for v in inner.values
        ):
            return True
        if isinstance(inner, ast.BinOp) and any(
            isinstance(side, ast.Constant) and isinstance(side.value, str) and reads_number(other)
            for side, other in ((inner.left, inner.right), (inner.right, inner.left))
        ):
            return True
    return False


def _a_name_made(node: ast.AST) -> bool:
    """Whether a comprehension's element builds a text from its numbers (`f"band_{i}"`, `"lag_" + str(k)`): a
    list of column names, each known once its number is (or a dict's keys: `{f"lag_{k}": ... for k in ...}`)."""
    element = node.elt if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp) else None
    if isinstance(node, ast.DictComp):
        element = node.key
    if isinstance(element, ast.JoinedStr):
        return True
    return isinstance(element, ast.BinOp) and any(
        isinstance(side, ast.Constant) and isinstance(side.value, str) for side in (element.left, element.right)
    )


def _counts_folded(op: ast.operator, left: Value, right: Value) -> Value | None:
    """`N_BANDS - 1`, `N + 1`, `2 * k`: two known whole numbers, and nothing else, make a known one (a bound of a
    range, a number in a column's name); None otherwise."""
    counts = (left.const, right.const)
    if not all(type(c) is int for c in counts) or not isinstance(op, ast.Add | ast.Sub | ast.Mult | ast.FloorDiv):
        return None
    if left != Value(consts=left.consts) or right != Value(consts=right.consts):
        return None
    a, b = int(str(counts[0])), int(str(counts[1]))
    if isinstance(op, ast.FloorDiv) and b == 0:
        return None
    made = (
        a + b
        if isinstance(op, ast.Add)
        else a - b
        if isinstance(op, ast.Sub)
        else a * b
        if isinstance(op, ast.Mult)
        else a // b
    )
    return Value(consts=frozenset({made})) if abs(made) < 10**12 else None


def _texts_joined(op: ast.operator, left: Value, right: Value) -> Value | None:
    """`"lag_" + "3"`, `"lag_%d" % 3`: a known text added to another, or formatted with a known number or text, and
    nothing else, make the text they make (None otherwise)."""
    texts = (left.const, right.const)
    if left != Value(consts=left.consts) or right != Value(consts=right.consts):
        return None
    if isinstance(op, ast.Mod) and isinstance(texts[0], str) and type(texts[1]) in (int, str):
        if re.sub(r"%%|%0?\d?[dis]", "", texts[0]).count("%"):
            return None  # a width or a conversion of its own (`"%09999999d"`): not a name's number, not made here
        try:
            made = texts[0] % texts[1]
        except (TypeError, ValueError, OverflowError):  # "%d" % "a", "%s %s" % 1: not one text
            return None
        return Value(consts=frozenset({made})) if len(made) <= 200 else None
    if not isinstance(op, ast.Add) or not all(isinstance(t, str) for t in texts):
        return None
    made = f"{texts[0]}{texts[1]}"
    return Value(consts=frozenset({made})) if len(made) <= 200 else None


def _a_gradient(step: ast.expr) -> bool:
    """Whether a step is written as a linear model's gradient: the rows turned and multiplied (`X[tr].T @ (p - y)`,
    `np.dot(X.T, err)`, `X.T.dot(err)`)."""

    def turned(node: ast.expr) -> bool:  # `X.T`, or it scaled (`lr * X[tr].T @ err`: `(lr * X[tr].T) @ err`)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult | ast.Div):
            return turned(node.left) or turned(node.right)
        return isinstance(node, ast.Attribute) and node.attr == "T"

    for n in ast.walk(step):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult) and turned(n.left):
            return True
        if _dot_of_turned(n, turned):
            return True
    return False


def _dot_of_turned(node: ast.AST, turned: Callable[[ast.expr], bool]) -> bool:
    """`X.T.dot(err)` or `np.dot(X.T, err)`: a product of the rows turned."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "dot"):
        return False
    return turned(node.func.value) or bool(node.args and turned(node.args[0]))
