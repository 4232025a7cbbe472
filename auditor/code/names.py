"""Names in a program resolved by beniget's def-use chains: which definitions reach each use, and the
qualified import path of a name bound by an import (so `pp.StandardScaler` is sklearn.preprocessing's)."""

from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import beniget


class _Chains(beniget.DefUseChains):
    """beniget's chains without its warnings on stdout (an unbound name is ordinary in a notebook), and with a
    use of each name a query's text takes with @ (`df.query("year < @cut")` reads `cut` where it is called)."""

    def __init__(self) -> None:
        super().__init__()
        self.taken: dict[ast.Call, dict[str, ast.Name]] = {}

    def warn(self, msg: str, node: ast.AST) -> None:
        return None

    def visit_Call(self, node: ast.Call) -> Any:
        found = super().visit_Call(node)
        text = _query_text(node)
        if text is not None:
            for name in dict.fromkeys(re.findall(r"@(\w+)", text)):
                use = ast.copy_location(ast.Name(id=name, ctx=ast.Load()), node)
                self.visit(use)
                self.taken.setdefault(node, {})[name] = use
        return found


def _query_text(node: ast.Call) -> str | None:
    """The condition of `x.query("...")` or `x.eval("...")` written in the call, None for any other call."""
    if not isinstance(node.func, ast.Attribute) or node.func.attr not in ("query", "eval"):
        return None
    given = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "expr"), None)
    return given.value if isinstance(given, ast.Constant) and isinstance(given.value, str) else None


@dataclass
class Names:
    """The def-use chains of one module and the imports that bind names."""

    uses: dict[ast.AST, list[Any]]  # a Name in Load context -> beniget Defs that may reach it
    imports: dict[ast.alias, str] = field(default_factory=dict)  # alias -> the module (or module.name) it binds
    module_level: set[ast.AST] = field(default_factory=set)  # definitions in the module's own scope
    nodes: list[ast.AST] = field(default_factory=list)  # every node of the module, walked once for all who need it
    # per query call, the names its text takes with @, each as a use of its own (not in the tree) at the call
    taken: dict[ast.Call, dict[str, ast.Name]] = field(default_factory=dict)
    # names a function assigns after `global X`: each binds the module's X from the call on
    global_targets: set[ast.Name] = field(default_factory=set)

    @classmethod
    def of(cls, tree: ast.Module) -> Names:
        _prune_unreachable(tree)
        chains = _Chains()
        try:
            chains.visit(tree)
        except (AttributeError, AssertionError):  # beniget does not follow some `match` patterns
            if not _flatten_matches(tree):
                raise
            chains = _Chains()
            chains.visit(tree)
        uses = beniget.UseDefChains(chains).chains
        names = cls(uses, taken=chains.taken)
        names.module_level = {d.node for d in chains.locals.get(tree, ())}
        names.nodes = list(ast.walk(tree))
        names.global_targets = _global_targets(names.nodes)
        for node in names.nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    # `import a.b` binds a; `import a.b as c` binds a.b
                    names.imports[alias] = alias.name if alias.asname else alias.name.partition(".")[0]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                base = node.module or ""
                for alias in node.names:
                    names.imports[alias] = f"{base}.{alias.name}" if alias.name != "*" else f"{base}.*"
        return names

    def definitions(self, use: ast.Name) -> list[Any]:
        """The definitions that may reach ``use``: AST nodes (assignment targets, arguments, functions,
        classes, import aliases) or, for a builtin, the builtin object itself."""
        return [d.node for d in self.uses.get(use, ())]

    def only_calls(self) -> frozenset[tuple[int, int]]:
        """Where a function of the module is called, for each function whose one use is that call and which is
        given no rows there (`main()` under `if __name__ == "__main__":`, `main(parser.parse_args())`), as (line,
        column) of the call: what leaks inside such a call, the function's own lines do."""
        uses: dict[ast.AST, list[ast.AST]] = {}
        for use, defs in self.uses.items():
            for d in defs:
                if isinstance(d.node, ast.FunctionDef | ast.AsyncFunctionDef):
                    uses.setdefault(d.node, []).append(use)
        called = {id(n.func): n for n in self.nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        # names given the command line's options or a constant (`DATA_PATH = "d.csv"`): no rows
        options = {
            id(t)
            for n in self.nodes
            if isinstance(n, ast.Assign) and (_parses_options(n.value) or isinstance(n.value, ast.Constant))
            for t in n.targets
            if isinstance(t, ast.Name)
        }
        found = set()
        for used in uses.values():
            call = called.get(id(used[0])) if len(used) == 1 else None
            if call is None:
                continue
            given = [*call.args, *(k.value for k in call.keywords)]
            if all(self._not_rows(arg, options) for arg in given):
                found.add((call.lineno, call.col_offset))
        return frozenset(found | self._only_method_calls(options))

    def _only_method_calls(self, options: set[int]) -> set[tuple[int, int]]:
        """The one call of a method of the module's classes (`Trainer("d.csv").run()`), on an object the class made
        of no rows, given none itself; and that object's making, when the class is made nowhere else."""
        classes = {n.name: n for n in self.nodes if isinstance(n, ast.ClassDef)}
        defined = Counter(
            f.name
            for c in classes.values()
            for f in c.body
            if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and not f.name.startswith("__")
        )
        calls: dict[str, list[ast.Call]] = {}
        made: dict[str, list[ast.Call]] = {}
        values = {id(t): n.value for n in self.nodes if isinstance(n, ast.Assign) for t in n.targets}
        for n in self.nodes:
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
                calls.setdefault(n.func.attr, []).append(n)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in classes:
                made.setdefault(n.func.id, []).append(n)
        found = set()
        for name, count in defined.items():
            used = calls.get(name, [])
            if count != 1 or len(used) != 1:
                continue
            call = used[0]
            assert isinstance(call.func, ast.Attribute)
            maker: ast.expr | None = call.func.value
            if isinstance(maker, ast.Name):  # t = Trainer("d.csv"); t.run()
                reaching = self.definitions(maker)
                maker = values.get(id(reaching[0])) if len(reaching) == 1 else None
            if not (isinstance(maker, ast.Call) and isinstance(maker.func, ast.Name) and maker.func.id in classes):
                continue
            given = [*maker.args, *(k.value for k in maker.keywords), *call.args, *(k.value for k in call.keywords)]
            if all(self._not_rows(arg, options) for arg in given):
                found.add((call.lineno, call.col_offset))
                if len(made[maker.func.id]) == 1:
                    found.add((maker.lineno, maker.col_offset))
        return found

    def _not_rows(self, arg: ast.expr, given: set[int]) -> bool:
        """Whether a call's argument is a constant, the program's options (`parser.parse_args()`) or a name
        ``given`` only such values (`DATA_PATH = "d.csv"`, `args = parser.parse_args()`)."""
        if isinstance(arg, ast.Constant) or _parses_options(arg):
            return True
        reaching = self.definitions(arg) if isinstance(arg, ast.Name) else []
        return bool(reaching) and all(id(d) in given for d in reaching)

    def import_path(self, alias: ast.alias, used_as: str) -> str | None:
        """The qualified name ``used_as`` has when bound by ``alias`` (a star import binds every name)."""
        path = self.imports.get(alias)
        if path is None:  # a relative import: the project's own module, not a library's
            return None
        return f"{path[:-2]}.{used_as}" if path.endswith(".*") else path


def _parses_options(node: ast.expr) -> bool:
    """`parser.parse_args()`, `parse_known_args()[0]`: the command line's options, no rows."""
    if isinstance(node, ast.Subscript):
        node = node.value
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _OPTIONS


_OPTIONS = ("parse_args", "parse_known_args")


def _global_targets(nodes: list[ast.AST]) -> set[ast.Name]:
    """The names each function assigns that its `global` statement declares (a nested function's own aside)."""
    found: set[ast.Name] = set()
    for function in nodes:
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        own = [n for stmt in function.body for n in _walk_own(stmt)]
        declared = {name for n in own if isinstance(n, ast.Global) for name in n.names}
        if declared:
            found |= {n for n in own if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in declared}
    return found


def _walk_own(node: ast.AST) -> list[ast.AST]:
    """``node`` and what it holds, short of the functions, classes and lambdas defined in it (scopes of their own)."""
    out: list[ast.AST] = []
    stack = [node]
    while stack:
        current = stack.pop()
        out.append(current)
        for child in ast.iter_child_nodes(current):
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
                stack.append(child)
    return out


_ENDS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def _prune_unreachable(tree: ast.AST) -> None:
    """Statements after a `raise`, `return`, `break` or `continue` in the same block never run; beniget's
    chains fail on names they use, so they are left out of the tree (the walk would not reach them either).
    Only statements are visited, not the expressions in them."""
    blocks: list[list[ast.stmt]] = [tree.body] if isinstance(tree, ast.Module) else []
    while blocks:
        block = blocks.pop()
        for i, stmt in enumerate(block):
            if isinstance(stmt, _ENDS):
                del block[i + 1 :]
                break
            for name in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, name, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    blocks.append(inner)
            for handler in getattr(stmt, "handlers", ()):
                blocks.append(handler.body)
            for case in getattr(stmt, "cases", ()):
                blocks.append(case.body)


def _flatten_matches(tree: ast.AST) -> bool:
    """Each `match` statement replaced by its subject and then every case's body, one after the other (what
    the walk does with it anyway); whether there was one."""
    found = False
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if not isinstance(block, list) or not any(isinstance(s, ast.Match) for s in block):
                continue
            flat: list[ast.stmt] = []
            for stmt in block:
                if isinstance(stmt, ast.Match):
                    found = True
                    flat.append(ast.copy_location(ast.Expr(stmt.subject), stmt))
                    flat.extend(s for case in stmt.cases for s in case.body)
                else:
                    flat.append(stmt)
            block[:] = flat
    return found


def builtin_name(obj: Any) -> str | None:
    """'builtins.max' for a builtin object beniget returns as a name's definition."""
    name = getattr(obj, "__name__", None)
    return f"builtins.{name}" if isinstance(name, str) else None
