"""Which samples each value of a forward pass depends on: change one sample at a time and watch every op.

In eval mode a sample's outputs may depend on its own inputs only. Each sample's inputs are changed in turn
(floats by noise, token ids by other ids of the batch's range), every op of the forward pass is recorded,
and a value that moves when sample i changes depends on i. The first op whose output holds a value that
depends on two samples mixes them (a reduction or softmax over the batch axis); the first whose samples are
interleaved along every axis scrambles them (a `view` across the batch axis where `permute` was meant).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from auditor.numeric.program import Program, main_tensor, shape, tensors, tree_map
from auditor.numeric.tracing import Op, moved, record

MAX_SAMPLES = 8  # samples changed one at a time; more only cost time


@dataclass(frozen=True)
class Mixing:
    """The first op whose output ties two samples together, and an element that shows it."""

    op: Op
    kind: str  # "mixes": one value depends on both samples; "scrambles": they share an index along every axis
    samples: tuple[int, int]
    index: tuple[int, ...]  # of the op's output: a value of the two samples (kind "mixes"), or one of each


@dataclass(frozen=True)
class Dependence:
    """Sample ``moved``'s output changed when only sample ``changed``'s input did: the value before and after."""

    changed: int
    moved: int
    index: tuple[int, ...]  # of the output
    before: float
    after: float
    gradient: float | None  # |d output[moved] / d input[changed]|, when the inputs are floats


@dataclass(frozen=True)
class Independence:
    samples: int
    output_shape: tuple[int, ...]
    batch_axis: int
    dependence: Dependence | None
    first: Mixing | None
    ops: int
    # Every dependence runs from an earlier to a later index: the first axis may be time (a sequence-first batch).
    forward_only: bool = False


def batch_size(inputs: Any) -> int | None:
    """The batch size: the leading size of the inputs' first tensor with an axis (None for scalars only)."""
    sizes = [t.shape[0] for _, t in tensors(inputs) if t.dim()]
    return int(sizes[0]) if sizes else None


def independence(program: Program, model: torch.nn.Module, inputs: Any, n: int) -> Independence | None:
    """Trace the forward pass with each of the ``n`` samples changed in turn; None when the outputs have no axis
    of size ``n`` (nothing says which output belongs to which sample)."""
    base_ops, base_values, base_out = record(program, model, inputs, program.seed)
    out = main_tensor(base_out)
    if out is None or not any(s == n for s in out.shape):
        return None
    axis = 0 if out.shape[0] == n else next(a for a, s in enumerate(out.shape) if s == n)
    g = torch.Generator().manual_seed(program.seed)
    depends: list[list[torch.Tensor | None] | None] = []  # per sample: per op, which of its values moved
    dependence: Dependence | None = None
    pairs: list[tuple[int, int]] = []  # (changed, moved)
    for i in range(n):
        ops, values, changed_out = record(program, model, _changed(inputs, n, i, g), program.seed)
        moved_out = moved(out, main_tensor(changed_out))
        if moved_out is not None:
            others = moved_out.clone()
            others.select(axis, i).fill_(False)
            per_sample = others.movedim(axis, 0).reshape(n, -1).any(1)
            pairs += [(i, int(j)) for j in per_sample.nonzero().flatten()]
            hit = others.nonzero()
            if dependence is None and len(hit):
                index = tuple(int(v) for v in hit[0])
                after = main_tensor(changed_out)
                assert after is not None
                dependence = Dependence(i, index[axis], index, float(out[index]), float(after[index]), None)
        same = len(ops) == len(base_ops) and all(a.shape == b.shape for a, b in zip(ops, base_ops, strict=True))
        depends.append([moved(a, b) for a, b in zip(base_values, values, strict=True)] if same else None)
    if dependence is not None:
        dependence = _with_gradient(program, model, inputs, n, axis, dependence)
    first = _first_mixing(base_ops, depends) if dependence is not None else None
    forward_only = bool(pairs) and all(j > i for i, j in pairs)
    return Independence(n, shape(out), axis, dependence, first, len(base_ops), forward_only)


def _changed(inputs: Any, n: int, i: int, g: torch.Generator) -> Any:
    """``inputs`` with sample i's values changed in every tensor of batch size ``n`` (bool masks stay)."""

    def change(t: torch.Tensor) -> torch.Tensor:
        if not t.dim() or t.shape[0] != n or t.dtype == torch.bool or t.is_complex() or not t[i].numel():
            return t
        c = t.clone()
        if t.is_floating_point():
            spread = float(t.double().std()) if t.numel() > 1 else 1.0
            spread = spread if spread > 0 and spread < float("inf") else 1.0
            c[i] = t[i] + (torch.randn(t[i].shape, generator=g, dtype=torch.float64) * spread).to(t.dtype)
        else:  # token ids or class indices: others from the range the batch uses, so an embedding still takes them
            low, high = int(t.min()), int(t.max())
            if high > low:
                c[i] = torch.randint(low, high + 1, t[i].shape, generator=g).to(t.dtype)
        return c

    return tree_map(change, inputs)


def _first_mixing(ops: list[Op], depends: list[list[torch.Tensor | None] | None]) -> Mixing | None:
    """The first op with a value of two samples, or with two samples' values interleaved along every axis."""
    if any(d is None for d in depends):
        return None  # the forward pass took other paths for other inputs: ops do not line up
    per_sample = [d for d in depends if d is not None]
    for k, op in enumerate(ops):
        masks = [m for d in per_sample if (m := d[k]) is not None]
        if len(masks) < len(per_sample):
            continue
        found = _mixed(torch.stack(masks))
        if found is not None:
            kind, samples, index = found
            return Mixing(op, kind, samples, index)
    return None


def _mixed(dep: torch.Tensor) -> tuple[str, tuple[int, int], tuple[int, ...]] | None:
    """For ``dep`` (samples, *shape): a value of two samples, or no axis whose every index holds one sample."""
    count = dep.sum(0)
    if bool((count >= 2).any()):
        index = tuple(int(v) for v in (count >= 2).nonzero()[0])
        who = dep.reshape(len(dep), -1)[:, int(count.flatten().ge(2).nonzero()[0])].nonzero().flatten()
        return "mixes", (int(who[0]), int(who[1])), index
    if not bool(dep.any()) or dep.dim() < 2:
        return None
    for axis in range(1, dep.dim()):
        others = tuple(d for d in range(1, dep.dim()) if d != axis)
        per_index = dep.any(dim=others) if others else dep  # (samples, size along axis)
        if bool((per_index.sum(0) <= 1).all()):
            return None  # along this axis every index belongs to one sample: the samples stay apart
    # Scrambled: along the first axis an index holds values of two samples; show one value of each.
    per_index = dep.any(dim=tuple(range(2, dep.dim()))) if dep.dim() > 2 else dep
    k = int((per_index.sum(0) >= 2).nonzero()[0])
    who = per_index[:, k].nonzero().flatten()
    a, b = int(who[0]), int(who[1])
    first = tuple(int(v) for v in dep[a].nonzero()[0])
    return "scrambles", (a, b), first


def _with_gradient(
    program: Program, model: torch.nn.Module, inputs: Any, n: int, axis: int, dep: Dependence
) -> Dependence:
    """``dep`` with |d output[moved] / d input[changed]| when the changed inputs are float tensors."""
    floats: list[torch.Tensor] = []

    def leaf(t: torch.Tensor) -> torch.Tensor:
        if t.dim() and t.shape[0] == n and t.is_floating_point():
            t = t.detach().clone().requires_grad_(True)
            floats.append(t)
        return t

    watched = tree_map(leaf, inputs)
    if not floats:
        return dep
    with torch.enable_grad():
        torch.manual_seed(program.seed)
        out = main_tensor(program.forward(model, watched))
        if out is None or not out.requires_grad:
            return dep
        grads: tuple[torch.Tensor | None, ...] = torch.autograd.grad(
            out.select(axis, dep.moved).float().sum(), floats, allow_unused=True
        )
    total = sum(float(g[dep.changed].double().abs().sum()) for g in grads if g is not None)
    return Dependence(dep.changed, dep.moved, dep.index, dep.before, dep.after, total)
