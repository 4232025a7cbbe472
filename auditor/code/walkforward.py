"""Walk-forward loops: each pass fits a model on a history, forecasts, then adds what it goes over to that history.
Each pass's item is that pass's row of the rows gone over, so a row added after the pass's forecast is one a later
pass trains on, and one added before it is the row forecast."""

from __future__ import annotations

import ast


def adds_to_history(node: ast.AST) -> bool:
    """Whether the loop's body fits a model on a name (`ARIMA(history).fit()`, `m.fit(history)`), or forecasts from
    it (`m.predict(np.array(history[-5:])[None, :])` of a model fitted once), and adds to that name
    (`history.append(obs)`, `history += [obs]`, `history = pd.concat([history, row])`)."""
    if not isinstance(node, ast.For | ast.AsyncFor | ast.While):
        return False
    fitted: set[str] = set()
    grown: set[str] = set()
    for stmt in node.body:
        for found in ast.walk(stmt):
            if isinstance(found, ast.Call) and isinstance(found.func, ast.Attribute):
                if found.func.attr in ("fit", "predict", "forecast"):
                    fitted |= {n.id for n in ast.walk(found) if isinstance(n, ast.Name)}
                if found.func.attr in ("append", "extend", "insert") and isinstance(found.func.value, ast.Name):
                    grown.add(found.func.value.id)
            if isinstance(found, ast.AugAssign) and isinstance(found.target, ast.Name):  # history += [obs]
                grown.add(found.target.id)
            if isinstance(found, ast.Assign) and len(found.targets) == 1 and isinstance(found.targets[0], ast.Name):
                name = found.targets[0].id
                if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(found.value)):
                    grown.add(name)
    return bool(fitted & grown)


def one_row(name: ast.Name) -> ast.Slice:
    """The slice `[name:name + 1]`: the one row of each pass a loop's name stands for."""
    after = ast.BinOp(left=ast.Name(id=name.id, ctx=ast.Load()), op=ast.Add(), right=ast.Constant(value=1))
    row = ast.Slice(lower=ast.Name(id=name.id, ctx=ast.Load()), upper=after)
    return ast.fix_missing_locations(ast.copy_location(row, name))
