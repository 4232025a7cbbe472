"""A lambda given a name (`standardize = lambda f: (f - f.mean()) / f.std()`) is read as the function it is: a
call of the name walks its body with the arguments given, as for a `def`."""

from __future__ import annotations

import ast
import copy
from dataclasses import replace

from auditor.code.sources import Program


def with_named_lambdas(program: Program) -> Program:
    """``program`` with each `name = lambda ...:` statement read as `def name(...): return ...`; its statements and
    contexts stay the file's as written (``own_tree``). A file without one is returned as it is, not copied."""
    if not any(_named_lambda(node) for node in ast.walk(program.tree)):
        return program
    tree = _AsFunctions().visit(copy.deepcopy(program.tree))
    return replace(program, tree=tree, own_tree=program.own_tree or program.tree)


def _named_lambda(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Lambda)
    )


class _AsFunctions(ast.NodeTransformer):
    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        self.generic_visit(node)
        if not _named_lambda(node):
            return node
        target, given = node.targets[0], node.value
        assert isinstance(target, ast.Name) and isinstance(given, ast.Lambda)
        body = ast.copy_location(ast.Return(value=given.body), given.body)
        made = ast.FunctionDef(name=target.id, args=given.args, body=[body], decorator_list=[], returns=None)
        return ast.copy_location(made, node)
