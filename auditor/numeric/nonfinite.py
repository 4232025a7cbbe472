"""The first op whose inputs are finite and whose output is not: in the forward pass, then in the backward pass."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from auditor.numeric.program import Program, finite, shape, tensors
from auditor.numeric.tracing import CallRecorder, ModuleStack


@dataclass(frozen=True)
class Origin:
    """Where a value became non-finite: the op, the module whose forward ran it, the user's line, the shapes."""

    op: str
    module: str
    site: str | None
    inputs: tuple[tuple[int, ...], ...]
    output: tuple[int, ...]
    bad: int  # non-finite elements in the output


@dataclass(frozen=True)
class Trace:
    batch_finite: bool
    forward: Origin | None
    backward: Origin | None
    loss_finite: bool
    backward_ran: bool


class _Forward:
    """Watches every op of a forward pass: the first to make NaN from NaN-free inputs, and the first to make
    inf from finite inputs. -inf written on purpose (an attention mask) is harmless while the result stays
    finite, so an origin is reported only when the outputs or the loss end up non-finite."""

    def __init__(self, program: Program, modules: ModuleStack) -> None:
        self.modules = modules
        self.first_nan: Origin | None = None
        self.first_inf: Origin | None = None
        self.made_by: dict[torch.autograd.graph.Node, tuple[str, str, str | None]] = {}
        self.mode = CallRecorder(self._seen, program.code.paths)

    def _seen(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], result: Any, site: str | None) -> None:
        module = self.modules.current or "loss"
        outs = [t for _, t in tensors(result) if t.is_floating_point()]
        for t in outs:
            if t.grad_fn is not None and t.grad_fn not in self.made_by:
                self.made_by[t.grad_fn] = (name, module, site)
        if self.first_nan is not None:
            return
        ins = [t for _, t in tensors((args, kwargs)) if t.is_floating_point()]
        if any(bool(torch.isnan(t).any()) for t in outs) and not any(bool(torch.isnan(t).any()) for t in ins):
            bad = [t for t in outs if bool(torch.isnan(t).any())]
            count = int(sum(int(torch.isnan(t).sum()) for t in bad))
            self.first_nan = Origin(name, module, site, tuple(shape(t) for t in ins), shape(bad[0]), count)
        elif self.first_inf is None and any(not finite(t) for t in outs) and all(finite(t) for t in ins):
            bad = [t for t in outs if not finite(t)]
            count = int(sum(int((~torch.isfinite(t)).sum()) for t in bad))
            self.first_inf = Origin(name, module, site, tuple(shape(t) for t in ins), shape(bad[0]), count)


def trace(program: Program) -> Trace:
    """Run forward and backward once in train mode (seeded), watching every op and every backward node."""
    model = program.model().train()
    inputs, targets = program.batch()
    batch_finite = all(finite(t) for _, t in tensors((inputs, targets)))
    modules = ModuleStack()
    forward = _Forward(program, modules)
    torch.manual_seed(program.seed)
    with torch.enable_grad(), modules.watching(model), forward.mode:
        outputs = program.forward(model, inputs)
        loss = program.loss(outputs, targets)
    loss_finite = isinstance(loss, torch.Tensor) and finite(loss)
    outputs_finite = all(finite(t) for _, t in tensors(outputs))
    if not (loss_finite and outputs_finite):
        # NaN comes from somewhere even when an earlier inf fed it; inf alone is blamed on its maker.
        origin = forward.first_nan or forward.first_inf if batch_finite else None
        return Trace(batch_finite, origin, None, loss_finite, False)
    if not isinstance(loss, torch.Tensor) or loss.dim() != 0 or loss.grad_fn is None:
        return Trace(batch_finite, None, None, loss_finite, False)
    first_backward: list[Origin] = []
    handles = []
    for node in _nodes(loss.grad_fn):

        def hook(grad_inputs: Any, grad_outputs: Any, node: Any = node) -> None:
            if first_backward:
                return
            incoming = [g for g in grad_outputs if g is not None]
            produced = [g for g in grad_inputs if g is not None]
            bad = [g for g in produced if not finite(g)]
            if bad and all(finite(g) for g in incoming):
                op, module, site = forward.made_by.get(node, (type(node).__name__, "?", None))
                count = int(sum(int((~torch.isfinite(g)).sum()) for g in bad))
                first_backward.append(
                    Origin(
                        f"{op} (backward: {type(node).__name__})",
                        module,
                        site,
                        tuple(shape(g) for g in incoming),
                        shape(bad[0]),
                        count,
                    )
                )

        handles.append(node.register_hook(hook))
    try:
        loss.backward()
    finally:
        for h in handles:
            h.remove()
    return Trace(batch_finite, None, first_backward[0] if first_backward else None, loss_finite, True)


def _nodes(root: Any) -> list[Any]:
    """Every node of the backward graph reachable from ``root``."""
    seen: dict[Any, None] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen[node] = None
        stack.extend(next_node for next_node, _ in node.next_functions)
    return list(seen)
