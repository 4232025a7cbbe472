"""Probes for silent broadcasting in the loss: traced ops, batch size 1, and predictions equal to targets."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

from auditor.numeric.program import Program, first_rows, main_tensor, shape, tree_map
from auditor.numeric.tracing import CallRecorder, Provenance
from auditor.numeric.usercode import UserCodeError

# Integer dtypes a target that holds positions in the batch can have.
_INDEX_DTYPES = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8)
# Binary elementwise functions and operators whose operands broadcast, and losses that broadcast input/target.
ELEMENTWISE = {
    "add", "sub", "subtract", "rsub", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
    "remainder", "fmod", "pow", "float_power", "atan2", "hypot", "maximum", "minimum", "fmax", "fmin",
    "eq", "ne", "lt", "le", "gt", "ge", "logaddexp", "xlogy", "copysign", "where", "abs_diff",
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
    "__floordiv__", "__rfloordiv__", "__mod__", "__pow__", "__rpow__",
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss", "soft_margin_loss", "gaussian_nll_loss",
}  # fmt: skip


@dataclass(frozen=True)
class Expansion:
    """An elementwise op whose result is larger than both operands because a lower-rank one was extended."""

    op: str
    left: tuple[int, ...]
    right: tuple[int, ...]
    result: tuple[int, ...]
    site: str | None


def implicit_expansion(a: torch.Tensor, b: torch.Tensor) -> tuple[int, ...] | None:
    """The broadcast shape when two operands of equal size but different rank grow into a larger result.

    (N,1) with (N,) gives (N,N): the same N values on both sides were meant to pair up. A bias add (N,C)+(C,)
    does not grow; an explicit pairwise op, (N,1,D)-(1,N,D) or (N,1,D)-(C,D), pairs operands of different
    sizes on purpose.
    """
    if a.dim() == b.dim() or a.dim() == 0 or b.dim() == 0 or a.numel() != b.numel():
        return None
    try:
        result = tuple(torch.broadcast_shapes(a.shape, b.shape))
    except RuntimeError:
        return None
    if math.prod(result) > a.numel():
        return result
    return None


class ExpansionRecorder:
    """Collects implicit expansions of the ops a block of user code runs.

    Each tensor made there is followed back to the outputs and the targets it comes from. An expansion of two
    operands known to come from one side only (`s.unsqueeze(1) - s` on scores, `y.unsqueeze(1) == y` on
    labels) builds a pairwise matrix on purpose; one that meets outputs and targets, or a tensor of unknown
    origin, is the silent mismatch.
    """

    def __init__(self, program: Program, outputs: Any = None, targets: Any = None) -> None:
        self.found: list[Expansion] = []
        self.mode = CallRecorder(self._seen, program.code.paths)
        self._sides = Provenance()
        self._sides.mark(outputs, frozenset(["outputs"]))
        self._sides.mark(targets, frozenset(["targets"]))

    def _seen(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], result: Any, site: str | None) -> None:
        self._sides.follow(args, kwargs, result)
        if name not in ELEMENTWISE:
            return
        operands = [a for a in (*args[:3], *kwargs.values()) if isinstance(a, torch.Tensor)]
        if name == "where" and len(operands) == 3:
            operands = operands[1:]
        if len(operands) < 2:
            return
        a, b = operands[0], operands[1]
        grown = implicit_expansion(a, b)
        one_side = self._sides.of(a) == self._sides.of(b) and len(self._sides.of(a)) == 1
        if grown is not None and not one_side:
            self.found.append(Expansion(name, shape(a), shape(b), grown, site))

    def distinct(self) -> list[Expansion]:
        return list(dict.fromkeys(self.found))


def trace_loss(program: Program, outputs: Any, targets: Any) -> tuple[Any, list[Expansion]]:
    """The loss, and the implicit expansions its ops made."""
    recorder = ExpansionRecorder(program, outputs, targets)
    with recorder.mode:
        loss = program.loss(outputs, targets)
    return loss, recorder.distinct()


@dataclass(frozen=True)
class SingleSample:
    """What the program does with a batch of one sample."""

    outputs_full: tuple[int, ...] | None
    outputs_one: tuple[int, ...] | None
    squeezes: tuple[tuple[str, tuple[int, ...], tuple[int, ...], str | None], ...]
    error: str | None
    expansions: tuple[Expansion, ...]
    error_in_loss: bool = False  # the model ran on the one sample and the loss raised


def single_sample(program: Program, model: torch.nn.Module, inputs: Any, targets: Any) -> SingleSample | None:
    """Run the model and the loss on the first sample alone; None when the batch holds one sample already."""
    full = main_tensor(program.forward(model, inputs))
    first = main_tensor(inputs)
    if first is None or first.dim() == 0 or first.shape[0] < 2:
        return None
    squeezes: list[tuple[str, tuple[int, ...], tuple[int, ...], str | None]] = []

    def watch(name: str, args: tuple[Any, ...], kwargs: dict[str, Any], result: Any, site: str | None) -> None:
        # squeeze() without a dim removes every axis of size 1, the batch axis of a one-sample batch too.
        if name not in ("squeeze", "squeeze_") or len(args) != 1 or kwargs or not isinstance(args[0], torch.Tensor):
            return
        before = args[0]
        if before.dim() and before.shape[0] == 1 and isinstance(result, torch.Tensor) and result.dim() < before.dim():
            squeezes.append((name, shape(before), shape(result), site))

    recorder = ExpansionRecorder(program)
    one_inputs, one_targets = first_rows(inputs, 1), first_rows(targets, 1)
    error = None
    out_one = None
    with CallRecorder(watch, program.code.paths):
        try:
            outputs = program.forward(model, one_inputs)
            out_one = main_tensor(outputs)
            with recorder.mode:
                program.loss(outputs, one_targets)
        except UserCodeError as exc:
            error = str(exc)
    return SingleSample(
        shape(full) if full is not None else None,
        shape(out_one) if out_one is not None else None,
        tuple(dict.fromkeys(squeezes)),
        error,
        tuple(recorder.distinct()),
        error_in_loss=error is not None and out_one is not None,
    )


def targets_index_the_batch(program: Program, outputs: Any, targets: Any) -> bool:
    """Whether the targets are positions in the batch (InfoNCE's positive of each anchor), not class labels.

    Such targets are relabelled when the samples are reordered: rolling the outputs and the targets by one
    sample keeps the loss only with each target moved to its sample's new position, while a class label keeps
    the loss unmoved. A batch cut to one sample then has targets that point outside it by construction.
    """
    if not isinstance(targets, torch.Tensor) or targets.dim() != 1 or targets.dtype not in _INDEX_DTYPES:
        return False
    n = len(targets)
    out = main_tensor(outputs)
    if n < 2 or out is None or out.dim() == 0 or out.shape[0] != n or not bool(((targets >= 0) & (targets < n)).all()):
        return False
    order = torch.roll(torch.arange(n), 1)
    position = torch.empty_like(order)
    position[order] = torch.arange(n)  # where each original sample stands once rolled
    rolled = tree_map(lambda t: t[order] if t.dim() and t.shape[0] == n else t, outputs)
    try:
        with torch.no_grad():
            base = program.loss(outputs, targets)
            relabelled = program.loss(rolled, position[targets[order]])
            as_labels = program.loss(rolled, targets[order])
    except UserCodeError:
        return False
    values = (base, relabelled, as_labels)
    if not all(isinstance(v, torch.Tensor) and v.numel() == 1 for v in values):
        return False
    b, r, a = (float(v) for v in values)
    if not (math.isfinite(b) and math.isfinite(r)):
        return False
    tolerance = 1e-5 * (1 + abs(b))
    # Read as class labels, the rolled targets may pair an anchor with itself, masked to -inf: an inf loss.
    return abs(r - b) <= tolerance and not abs(a - b) <= tolerance


@dataclass(frozen=True)
class ShapeSensitivity:
    """The loss for predictions equal to the targets, in the model's output shape and in the targets' shape."""

    output_shape: tuple[int, ...]
    target_shape: tuple[int, ...]
    as_outputs: float
    as_targets: float


def perfect_predictions(program: Program, outputs: Any, targets: Any) -> ShapeSensitivity | None:
    """Feed the targets themselves as predictions; None when that is not meaningful (classes, other sizes)."""
    out, target = main_tensor(outputs), targets
    if (
        not isinstance(out, torch.Tensor)
        or not isinstance(target, torch.Tensor)
        or not isinstance(outputs, torch.Tensor)
    ):
        return None
    if not target.is_floating_point() or out.numel() != target.numel() or out.shape == target.shape:
        return None
    try:
        with torch.no_grad():
            as_outputs = program.loss(target.reshape(out.shape).to(out.dtype), targets)
            # A loss written for the model's output shape may reject the targets' shape: then no comparison.
            as_targets = program.loss(target.clone().to(out.dtype), targets)
    except UserCodeError:
        return None
    if not (isinstance(as_outputs, torch.Tensor) and isinstance(as_targets, torch.Tensor)):
        return None
    if as_outputs.numel() != 1 or as_targets.numel() != 1:
        return None
    return ShapeSensitivity(shape(out), shape(target), float(as_outputs), float(as_targets))
