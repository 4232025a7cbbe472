"""The model in eval mode: the same input twice gives the same outputs, and other inputs give other results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from auditor.numeric.program import Program, main_tensor, shape, summed, tensors, tree_map
from auditor.numeric.tracing import Op, moved, record
from auditor.numeric.usercode import UserCodeError


@dataclass(frozen=True)
class Repeat:
    """Two eval-mode passes on one input: the output element that differs most, and the first op that differed."""

    output_shape: tuple[int, ...]
    index: tuple[int, ...] | None  # None: the outputs are identical
    first: float
    second: float
    op: Op | None  # the first op whose output differed (its inputs, earlier outputs, did not)
    ops: int


def repeat(program: Program, model: torch.nn.Module, inputs: Any) -> Repeat | None:
    """Two forward passes in a row on ``inputs``, seeded once (noise drawn twice differs); None without a
    float output."""
    torch.manual_seed(program.seed)
    ops_a, values_a, out_a = record(program, model, inputs, None)
    ops_b, values_b, out_b = record(program, model, inputs, None)
    a, b = main_tensor(out_a), main_tensor(out_b)
    changed = moved(a, b)
    if a is None or b is None or changed is None:
        return None
    out_shape = shape(a)
    if not bool(changed.any()):
        return Repeat(out_shape, None, 0.0, 0.0, None, len(ops_a))
    gap = (a.double() - b.double()).abs().reshape(changed.shape).nan_to_num(nan=float("inf"))
    gap[~changed] = -1.0
    flat = int(gap.flatten().argmax())
    index = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), changed.shape))
    op = None
    if len(ops_a) == len(ops_b):
        for o, x, y in zip(ops_a, values_a, values_b, strict=True):
            m = moved(x, y)
            if m is None or bool(m.any()):
                op = o
                break
    first, second = a.reshape(changed.shape)[index], b.reshape(changed.shape)[index]
    return Repeat(out_shape, index, float(first), float(second), op, len(ops_a))


@dataclass(frozen=True)
class InputUse:
    """The loss on the batch and on the batch with its inputs zeroed, and whether anything else differed."""

    zeroed: tuple[str, ...]  # where the zeroed tensors are in the inputs ('[0]', "['ids']")
    shapes: tuple[tuple[int, ...], ...]
    loss: float
    zeroed_loss: float
    ignored: bool  # outputs, loss and every parameter's gradient identical: the inputs change nothing


class ZeroedRefused(Exception):
    """The model raised on the batch with its inputs zeroed, a batch no real data need resemble."""


def input_use(program: Program, model: torch.nn.Module, inputs: Any, targets: Any) -> InputUse | None:
    """The batch against the same batch with its float inputs zeroed (integer ones when it has no float one);
    None when nothing can be zeroed, the inputs already are zero, or the loss is not a number."""
    chosen = [(p, t) for p, t in tensors(inputs) if t.is_floating_point()]
    if not chosen:
        chosen = [(p, t) for p, t in tensors(inputs) if t.dtype != torch.bool and not t.is_complex()]
    if not chosen or all(not bool(t.any()) for _, t in chosen):
        return None
    picked = {id(t) for _, t in chosen}
    zeroed = tree_map(lambda t: torch.zeros_like(t) if id(t) in picked else t, inputs)
    first = _run(program, model, inputs, targets)
    try:
        second = _run(program, model, zeroed, targets)
    except UserCodeError as exc:
        # The zeroed batch is the probe's own: a model may rightly refuse it (sequence lengths of 0).
        raise ZeroedRefused(str(exc)) from None
    if first is None or second is None:
        return None
    (out_a, loss_a, grads_a), (out_b, loss_b, grads_b) = first, second
    same_out = _same(out_a, out_b)
    same_loss = _same(torch.tensor(loss_a), torch.tensor(loss_b))
    # A zero-initialised head gives the same outputs for any input, but its gradient still depends on it.
    same_grads = bool(grads_a) and len(grads_a) == len(grads_b) and all(map(_same, grads_a, grads_b))
    return InputUse(
        tuple(p or "inputs" for p, _ in chosen),
        tuple(shape(t) for _, t in chosen),
        loss_a,
        loss_b,
        same_out and same_loss and same_grads,
    )


def _run(
    program: Program, model: torch.nn.Module, inputs: Any, targets: Any
) -> tuple[torch.Tensor, float, list[torch.Tensor]] | None:
    """Outputs, loss and the parameters' gradients of one seeded eval-mode pass."""
    model.zero_grad(set_to_none=True)
    with torch.enable_grad():
        torch.manual_seed(program.seed)
        outputs = program.forward(model, inputs)
        out = main_tensor(outputs)
        loss = summed(program.loss(outputs, targets))
        if out is None or not isinstance(loss, torch.Tensor) or loss.numel() != 1:
            return None
        if loss.requires_grad:
            loss.backward()
    grads = [p.grad.detach().clone() for p in model.parameters() if p.grad is not None]
    model.zero_grad(set_to_none=True)
    return out.detach().clone(), float(loss.detach()), grads


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    changed = moved(a, b)
    return changed is not None and not bool(changed.any())
