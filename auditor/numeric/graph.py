"""Where the autograd graph is cut, and what the loss's gradient reaches: none, zero, frozen, not optimized."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

from auditor.numeric.program import Program, shape, tensors
from auditor.numeric.tracing import CallRecorder

# Calls that leave the graph when applied to a tensor that requires grad.
LEAVES_GRAPH = {"item", "tolist", "numpy", "detach", "detach_"}
REWRAPS = {"tensor", "as_tensor", "from_numpy", "asarray"}


@dataclass(frozen=True)
class Cut:
    """A call that took a value out of the graph: what, on which shape, where."""

    op: str
    shape: tuple[int, ...]
    site: str | None


@dataclass
class Reach:
    """What one backward pass of the loss reached."""

    loss_has_graph: bool
    cuts: list[Cut] = field(default_factory=list)
    unreachable: list[str] = field(default_factory=list)  # trainable, grad None
    zero: list[str] = field(default_factory=list)  # trainable, grad exactly 0 everywhere
    frozen: list[str] = field(default_factory=list)  # requires_grad False
    not_optimized: list[str] = field(default_factory=list)  # trainable, in no optimizer param group
    reached: list[str] = field(default_factory=list)
    backward_error: str | None = None


class CutRecorder:
    """Records calls that take a value out of the graph while gradients are on."""

    def __init__(self, program: Program) -> None:
        self.cuts: list[Cut] = []
        self.mode = CallRecorder(self._seen, program.code.paths)

    def _seen(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], result: Any, site: str | None) -> None:
        if not torch.is_grad_enabled() or not args:
            return
        first = args[0]
        if name in LEAVES_GRAPH and isinstance(first, torch.Tensor) and first.requires_grad:
            self.cuts.append(Cut(name, shape(first), site))
        elif name in REWRAPS and any(t.requires_grad for _, t in tensors(first)):
            self.cuts.append(Cut(f"torch.{name}", shape(next(t for _, t in tensors(first))), site))


def reach(program: Program) -> Reach:
    """One forward, loss and backward in train mode, with the parameters sorted by what their gradient is."""
    model = program.model().train()
    optimizer = program.code.call("optimizer", model) if program.code.has("optimizer") else None
    inputs, targets = program.batch()
    recorder = CutRecorder(program)
    with torch.enable_grad(), recorder.mode:
        outputs = program.forward(model, inputs)
        loss = program.loss(outputs, targets)
    result = Reach(
        # A leaf (torch.tensor(v, requires_grad=True)) requires grad but has no history either.
        loss_has_graph=isinstance(loss, torch.Tensor) and loss.grad_fn is not None,
        cuts=list(dict.fromkeys(recorder.cuts)),
    )
    named = list(model.named_parameters())
    result.frozen = [n for n, p in named if not p.requires_grad]
    if optimizer is not None:
        held = {id(p) for group in optimizer.param_groups for p in group["params"]}
        result.not_optimized = [n for n, p in named if p.requires_grad and id(p) not in held]
    if not result.loss_has_graph:
        result.unreachable = [n for n, p in named if p.requires_grad]
        return result
    model.zero_grad(set_to_none=True)
    try:
        loss.backward()
    except RuntimeError as exc:
        result.backward_error = str(exc).splitlines()[0]
        return result
    for n, p in named:
        if not p.requires_grad:
            continue
        if p.grad is None:
            result.unreachable.append(n)
        elif not bool(p.grad.any()):
            result.zero.append(n)
        else:
            result.reached.append(n)
    return result
