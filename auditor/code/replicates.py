"""Loops whose passes repeat one configuration: each name the loop binds serves only as a random seed, as the
indices of a fold, or as a label of what a pass recorded. Scores of such passes measure the spread of one
configuration (seeds, folds), so reporting their mean, spread or best value chooses nothing."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping, Sequence

# A keyword or a parameter that takes a seed: random_state=, seed=, bagging_seed=, rng=
SEED_NAME = re.compile(r"(?i)(seed|random_state)$|^rng$")
# Calls whose positional arguments are seeds: np.random.seed(s), torch.manual_seed(s), default_rng(s)
SEED_CALLS = frozenset(
    [
        "seed",
        "manual_seed",
        "manual_seed_all",
        "set_seed",
        "set_random_seed",
        "seed_everything",
        "default_rng",
        "RandomState",
        "PRNGKey",
        "check_random_state",
    ]
)


def is_replicate(node: ast.AST, functions: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef]) -> bool:
    """Whether the loop ``node`` (a for loop or a comprehension) repeats one configuration: every name it binds,
    or rebinds from itself in its body (``C *= 2``), is read only as a seed, a fold's indices (in a loop over a
    splitter's ``split()``) or a label (an f-string, a printed or recorded tuple, a key stored under)."""
    return _loop_parts(node) is not None and _names_serve(node, functions)


def changing_names(node: ast.AST) -> frozenset[str]:
    """The names a loop binds anew in each pass: its targets and every name its body assigns, but for a name each
    pass gives the same number (``eta = 0.1``, then ``eta *= 0.5``)."""
    parts = _loop_parts(node)
    if parts is None:
        return frozenset()
    targets, body, _ = parts
    bound = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    assigned = {n.id for b in body for n in ast.walk(b) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return frozenset(bound | {name for name in assigned - bound if not _same_each_pass(body, name)})


def _same_each_pass(body: Sequence[ast.AST], name: str) -> bool:
    """Whether every pass of a loop's ``body`` gives ``name`` the same values: set first from numbers alone, then
    only rebound from itself and numbers."""
    if not _set_first(body, name):
        return False
    parents = {child: parent for b in body for parent in ast.walk(b) for child in ast.iter_child_nodes(parent)}
    for b in body:
        for found in ast.walk(b):
            if not (isinstance(found, ast.Name) and found.id == name and isinstance(found.ctx, ast.Store)):
                continue
            stmt = parents.get(found, b)
            if not isinstance(stmt, ast.Assign | ast.AugAssign) or found not in _targets(stmt):
                return False  # a loop's target, `with ... as`, a walrus, or unpacked from something else
            if not all(_of_numbers(n, name) for n in ast.walk(stmt.value)):
                return False
    return True


def _targets(stmt: ast.Assign | ast.AugAssign) -> list[ast.expr]:
    return list(stmt.targets) if isinstance(stmt, ast.Assign) else [stmt.target]


def _of_numbers(node: ast.AST, name: str) -> bool:
    """Whether ``node`` may be part of an expression of numbers and of ``name`` itself."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int | float) and not isinstance(node.value, bool)
    if isinstance(node, ast.Name):
        return node.id == name
    return isinstance(node, ast.BinOp | ast.UnaryOp | ast.operator | ast.unaryop | ast.Load)


def pass_names(node: ast.AST) -> frozenset[str]:
    """The names whose value each pass of a loop takes from what it goes over: its targets, and the names its
    body assigns from them (``path = f"{d}/{name}"``), but not those it assigns the same value in every pass."""
    if isinstance(node, ast.While):
        return counters(node)
    parts = _loop_parts(node)
    if parts is None:
        return frozenset()
    targets, body, _ = parts
    found = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    assigns = [a for b in body for a in ast.walk(b) if isinstance(a, ast.Assign | ast.AnnAssign | ast.AugAssign)]
    grown = True
    while grown:
        grown = False
        for assign in assigns:
            if assign.value is None or not {n.id for n in ast.walk(assign.value) if isinstance(n, ast.Name)} & found:
                continue
            bound = assign.targets if isinstance(assign, ast.Assign) else [assign.target]
            new = {n.id for t in bound for n in ast.walk(t) if isinstance(n, ast.Name)} - found
            if new:
                found |= new
                grown = True
    return frozenset(found)


def counters(node: ast.While) -> frozenset[str]:
    """The names a while loop counts its passes with: moved by a number in its body (`t += 1`)."""
    return frozenset(
        found.target.id
        for stmt in node.body
        for found in ast.walk(stmt)
        if isinstance(found, ast.AugAssign)
        and isinstance(found.target, ast.Name)
        and isinstance(found.op, ast.Add | ast.Sub)
        and isinstance(found.value, ast.Constant)
        and type(found.value.value) is int
    )


def read_beside_seeds(call: ast.AST) -> frozenset[str]:
    """The names a constructor call reads, but for those it takes as seeds (``random_state=seed``)."""
    seeds = {
        id(n)
        for k in ast.walk(call)
        if isinstance(k, ast.keyword) and k.arg is not None and SEED_NAME.search(k.arg)
        for n in ast.walk(k.value)
    }
    return frozenset(
        n.id for n in ast.walk(call) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in seeds
    )


def step_names(call: ast.AST) -> frozenset[str]:
    """The names a pipeline's call is given as its steps (`make_pipeline(scaler, clf)`, `Pipeline([("m", clf)])`),
    or a model's as the estimator it wraps (`CalibratedClassifierCV(base)`): what they read is read where each
    was built."""
    if not isinstance(call, ast.Call):
        return frozenset()
    found: set[str] = set()
    for arg in [*call.args, *(k.value for k in call.keywords if k.arg in ("steps", "estimator", "base_estimator"))]:
        items = arg.elts if isinstance(arg, ast.List | ast.Tuple) else [arg]
        for item in items:
            if isinstance(item, ast.Tuple) and len(item.elts) == 2:
                item = item.elts[1]
            if isinstance(item, ast.Name):
                found.add(item.id)
    return frozenset(found)


def _loop_parts(node: ast.AST) -> tuple[list[ast.AST], list[ast.AST], list[ast.AST]] | None:
    """A loop's targets, body and iterated expressions (None for a while loop: what changes is not named)."""
    if isinstance(node, ast.For | ast.AsyncFor):
        targets: list[ast.AST] = [node.target]
        body: list[ast.AST] = list(node.body)
        iters: list[ast.AST] = [node.iter]
    elif isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
        targets = [g.target for g in node.generators]
        body = [*(i for g in node.generators for i in g.ifs), *(g.iter for g in node.generators[1:])]
        body += [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        iters = [node.generators[0].iter]
    else:
        return None
    return targets, body, iters


def _names_serve(node: ast.AST, functions: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef]) -> bool:
    parts = _loop_parts(node)
    assert parts is not None
    targets, body, iters = parts
    names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    names |= _rebound(body)
    folds = _over_folds(targets[0], iters[0])
    parents = {child: parent for b in body for parent in ast.walk(b) for child in ast.iter_child_nodes(parent)}
    for b in body:
        for found in ast.walk(b):
            if (
                isinstance(found, ast.Name)
                and found.id in names
                and isinstance(found.ctx, ast.Load)
                and not _label_or_seed(found, parents, functions, folds)
            ):
                return False
    return True


def _rebound(body: Iterable[ast.AST]) -> set[str]:
    """Names a loop's body rebinds from their own value (``C *= 2``, ``lr = lr / 2``): they change per pass, but
    for those each pass sets afresh before anything else reads them (``correct = 0``, then ``correct += ...``)."""
    found = set()
    for b in body:
        for node in ast.walk(b):
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                found.add(node.target.id)
            elif isinstance(node, ast.Assign):
                read = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
                found |= {t.id for t in node.targets if isinstance(t, ast.Name) and t.id in read}
    return {name for name in found if not _set_first(body, name)}


def _set_first(body: Iterable[ast.AST], name: str) -> bool:
    """Whether every pass of a loop's ``body`` first meets ``name`` in a plain assignment that does not read it:
    the statements run in order, a ``with`` block's included, until one mentions the name."""
    for stmt in body:
        if not any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(stmt)):
            continue
        if isinstance(stmt, ast.With | ast.AsyncWith) and not any(
            isinstance(n, ast.Name) and n.id == name for item in stmt.items for n in ast.walk(item)
        ):
            return _set_first(stmt.body, name)
        if not isinstance(stmt, ast.Assign):
            return False
        read = {n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)}
        return name not in read and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
    return False


def _over_folds(target: ast.AST, iterated: ast.AST) -> bool:
    """Whether a loop goes over a splitter's folds: ``for tr, te in cv.split(X, y)`` (or ``enumerate`` of it).
    A string's ``text.split()`` or ``line.split(",")`` is told apart by its arguments (a splitter is given
    the rows) and the names bound (a pair of index arrays, not one word)."""
    if isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[1], ast.Tuple):
        target = target.elts[1]  # for i, (tr, te) in enumerate(cv.split(X))
    if not (isinstance(target, ast.Tuple | ast.List) and len(target.elts) == 2):
        return False
    return any(isinstance(c, ast.Call) and _splits_rows(c) for c in ast.walk(iterated))


def _splits_rows(call: ast.Call) -> bool:
    """``cv.split(X)``, ``cv.split(X, y, groups)``, ``cv.split(X=X, y=y)``: a split() given rows, not a separator
    (``text.split()``, ``line.split(",")``, ``s.split(maxsplit=1)``)."""
    if not isinstance(call.func, ast.Attribute) or call.func.attr != "split":
        return False
    if any(k.arg in ("X", "y", "groups") for k in call.keywords):
        return True
    return bool(call.args) and not isinstance(call.args[0], ast.Constant)


def _called(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _label_or_seed(
    name: ast.Name,
    parents: Mapping[ast.AST, ast.AST],
    functions: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef],
    folds: bool,
) -> bool:
    node: ast.AST = name
    parent = parents.get(node)
    while isinstance(parent, ast.BinOp | ast.UnaryOp):  # seed + 1, fold * 7
        node, parent = parent, parents.get(parent)
    if isinstance(parent, ast.keyword):
        return parent.arg is not None and bool(SEED_NAME.search(parent.arg))
    if isinstance(parent, ast.Call) and node in parent.args:
        called = _called(parent)
        if called in SEED_CALLS:
            return True
        if called in ("print", "str", "repr", "int", "format", "info", "debug", "log", "write", "set_description"):
            return True
        above = parents.get(parent)
        if called in ("max", "min") and isinstance(above, ast.Assign):  # best = max(best, acc): a running max
            return any(isinstance(t, ast.Name) and t.id == name.id for t in above.targets)
        function = functions.get(called) if isinstance(parent.func, ast.Name) else None
        if function is not None:  # make_model(seed): the file's function takes it as its seed
            params = [*function.args.posonlyargs, *function.args.args]
            index = parent.args.index(node)
            return index < len(params) and bool(SEED_NAME.search(params[index].arg))
        return False
    if isinstance(parent, ast.FormattedValue | ast.JoinedStr):
        return True
    if isinstance(parent, ast.List) and _selects(parent, parents):
        return False  # X_tr[[feature]], df.loc[:, [feature]]: the columns a pass takes, a setting
    if isinstance(parent, ast.Tuple | ast.List | ast.Set) or (isinstance(parent, ast.Dict) and node in parent.keys):
        return True  # (seed, score) recorded: a label; choosing the best pair is a choice (picks)
    if isinstance(parent, ast.Subscript) and parent.slice is node:
        if isinstance(parent.ctx, ast.Store):  # scores[seed] = ...
            return True
        return folds  # X_train[train_idx], X_train.iloc[train_idx]: the rows of a fold
    return False


def _selects(listed: ast.List, parents: Mapping[ast.AST, ast.AST]) -> bool:
    """Whether a list is (an item of) a subscript's index: a selection of columns or rows, never a dict's key."""
    index: ast.AST = listed
    above = parents.get(index)
    if isinstance(above, ast.Tuple):  # df.loc[:, [feature]]
        index, above = above, parents.get(above)
    return isinstance(above, ast.Subscript) and above.slice is index


def keeps_compared_value(node: ast.If) -> bool:
    """Whether an ``if`` over a comparison only keeps a value it compared (``if acc > best: best = acc``): a
    running maximum, which says the best value, not which pass gave it (no ``else``, no other statement)."""
    test = node.test
    if not isinstance(test, ast.Compare) or node.orelse or not node.body:
        return False
    compared = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
    for stmt in node.body:
        if not isinstance(stmt, ast.Assign) or not all(isinstance(t, ast.Name) for t in stmt.targets):
            return False
        if not (isinstance(stmt.value, ast.Name) and stmt.value.id in compared):
            return False
    return True
