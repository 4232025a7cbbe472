"""What each loss function is called with: probabilities, log-probabilities or raw scores, and the activation on
its input's autograd path; and whether the loss sums one term over the batch and averages another."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import torch

from auditor.numeric.program import Program, main_tensor, shape, tree_map
from auditor.numeric.tracing import CallRecorder
from auditor.numeric.usercode import UserCodeError

CLASS_LOSSES = {"cross_entropy", "nll_loss"}
BINARY_LOSSES = {"binary_cross_entropy", "binary_cross_entropy_with_logits"}
# Loss functions whose `reduction` (default 'mean') decides how they reduce over the batch.
REDUCING_LOSSES = CLASS_LOSSES | BINARY_LOSSES | {
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div", "poisson_nll_loss", "soft_margin_loss",
    "gaussian_nll_loss", "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
    "multilabel_soft_margin_loss", "multi_margin_loss", "triplet_margin_loss",
}  # fmt: skip
REDUCTIONS = {"sum": "sum", "nansum": "sum", "mean": "mean", "nanmean": "mean"}
# Autograd nodes that only move or copy values: the activation that made a tensor is found through them.
_PASS_THROUGH = {"View", "UnsafeView", "Reshape", "ReshapeAlias", "Squeeze", "Unsqueeze", "Permute", "Transpose",
                 "Select", "Slice", "Clone", "ToCopy", "Expand", "Alias", "T", "Unbind", "Split",
                 "SplitWithSizes"}  # fmt: skip
_MADE_BY = {
    "SigmoidBackward0": "sigmoid", "SoftmaxBackward0": "softmax", "LogSoftmaxBackward0": "log_softmax",
    "HardsigmoidBackward0": "hardsigmoid", "AddmmBackward0": "linear", "MmBackward0": "linear",
    "BmmBackward0": "linear", "LinearBackward0": "linear", "ConvolutionBackward0": "convolution",
}  # fmt: skip
_TOL = 1e-4


@dataclass(frozen=True)
class LossCall:
    """One call of a loss function: what its input holds, what made it, where it was called."""

    op: str
    shape: tuple[int, ...]
    site: str | None
    low: float
    high: float
    # 'probabilities' | 'log-probabilities' | 'log-probabilities over the batch axis' | 'scores', along the class
    # axis (class losses only)
    form: str
    row_sum: tuple[float, float] | None  # the smallest and largest sum along the class axis (class losses)
    made_by: str | None  # the op on the input's autograd path: sigmoid, softmax, linear, ... (None: unknown)


@dataclass(frozen=True)
class Reduction:
    """A reduction over the batch axis inside the loss: an explicit sum/mean, or a loss function's reduction."""

    kind: str  # 'sum' | 'mean'
    op: str
    shape: tuple[int, ...]
    site: str | None


@dataclass(frozen=True)
class Doubling:
    """The loss on the batch and on the batch given twice: a mean stays, a sum doubles, a mix does neither."""

    once: float
    twice: float

    @property
    def summed_part(self) -> float:
        return self.twice - self.once

    @property
    def averaged_part(self) -> float:
        return 2 * self.once - self.twice

    @property
    def mixed(self) -> bool:
        s, m = abs(self.summed_part), abs(self.averaged_part)
        return s + m > 0 and min(s, m) > 0.05 * (s + m)


@dataclass(frozen=True)
class LossTrace:
    calls: tuple[LossCall, ...]
    reductions: tuple[Reduction, ...]
    error: str | None  # the loss raised (e.g. binary_cross_entropy on values outside [0, 1])


def trace_loss(program: Program, model: torch.nn.Module) -> LossTrace:
    """Forward (with gradients, so the input's history is kept) and the loss, every loss call recorded."""
    inputs, targets = program.batch()
    batch_size = _batch_size(targets)
    calls: list[LossCall] = []
    reductions: list[Reduction] = []

    def seen(name: str, args: tuple[Any, ...], kwargs: dict[str, Any], _result: Any, site: str | None) -> None:
        first = args[0] if args else kwargs.get("input")
        if not isinstance(first, torch.Tensor) or not first.is_floating_point():
            return
        if name in CLASS_LOSSES | BINARY_LOSSES and first.numel():
            calls.append(_describe(name, first, site))
        if name in REDUCING_LOSSES:
            reduction = kwargs.get("reduction", "mean")
            if reduction in ("sum", "mean") and _batched(first, batch_size):
                reductions.append(Reduction(str(reduction), name, shape(first), site))
        elif name in REDUCTIONS and _batched(first, batch_size) and _over_batch(first, args, kwargs):
            reductions.append(Reduction(REDUCTIONS[name], name, shape(first), site))

    error = None
    torch.manual_seed(program.seed)
    with torch.enable_grad():
        outputs = program.forward(model, inputs)
        with CallRecorder(seen, program.code.paths, before=True):
            try:
                program.loss(outputs, targets)
            except UserCodeError as exc:
                error = str(exc).splitlines()[0]
    return LossTrace(tuple(dict.fromkeys(calls)), tuple(dict.fromkeys(reductions)), error)


def doubling(program: Program, model: torch.nn.Module) -> Doubling | None:
    """The loss on the outputs and targets, and on both given twice along the batch axis (no new forward)."""
    inputs, targets = program.batch()
    n = _batch_size(targets)
    if n is None:
        return None
    torch.manual_seed(program.seed)
    with torch.no_grad():
        outputs = program.forward(model, inputs)

        def twice(t: torch.Tensor) -> torch.Tensor:
            return torch.cat([t, t]) if t.dim() and t.shape[0] == n else t

        try:
            once = program.loss(outputs, targets)
            doubled = program.loss(tree_map(twice, outputs), tree_map(twice, targets))
        except UserCodeError:
            return None  # a loss that cannot take another batch size says nothing about its reduction
    values = [v for v in (once, doubled) if isinstance(v, torch.Tensor) and v.numel() == 1]
    if len(values) != 2 or not all(bool(torch.isfinite(v)) for v in values):
        return None
    return Doubling(float(values[0]), float(values[1]))


def _batch_size(targets: Any) -> int | None:
    t = main_tensor(targets)
    return int(t.shape[0]) if t is not None and t.dim() else None


def _batched(t: torch.Tensor, n: int | None) -> bool:
    """Whether ``t``'s first axis runs over the samples: the batch, or its positions flattened (N * T tokens)."""
    return n is not None and n > 1 and t.dim() > 0 and t.shape[0] > 0 and t.shape[0] % n == 0


def _over_batch(t: torch.Tensor, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether a sum/mean call reduces the batch axis (no dim, or a dim list holding 0)."""
    dim = kwargs.get("dim", args[1] if len(args) > 1 and not isinstance(args[1], torch.dtype) else None)
    if dim is None:
        return True
    dims = dim if isinstance(dim, tuple | list) else (dim,)
    return any(isinstance(d, int) and d % t.dim() == 0 for d in dims)


def _describe(name: str, x: torch.Tensor, site: str | None) -> LossCall:
    with torch.no_grad():
        values = x.detach().double()
        low, high = float(values.min()), float(values.max())
        form, row_sum = "scores", None
        if name in CLASS_LOSSES:
            axis = 1 if values.dim() >= 2 else 0
            if values.shape[axis] > 1:
                sums = values.sum(axis)
                row_sum = (float(sums.min()), float(sums.max()))
                lse = torch.logsumexp(values, axis)
                # Half-precision log-probabilities carry about three digits: their rows sum less exactly.
                tol = 1e-3 if x.dtype in (torch.float32, torch.float64) else 5e-2
                if low >= -_TOL and high <= 1 + _TOL and bool(((sums - 1).abs() <= 1e-3).all()):
                    form = "probabilities"
                elif high <= _TOL and bool((lse.abs() <= tol).all()):
                    form = "log-probabilities"
                elif (
                    high <= _TOL
                    and axis == 1
                    and values.shape[0] > 1
                    and bool((torch.logsumexp(values, 0).abs() <= tol).all())
                ):
                    form = "log-probabilities over the batch axis"
    return LossCall(name, shape(x), site, low, high, form, row_sum, made_by(x))


def made_by(t: torch.Tensor) -> str | None:
    """The first op on ``t``'s autograd path that is not a reshape or a copy, by name (None: no history)."""
    node = t.grad_fn
    for _ in range(32):
        if node is None:
            return None
        kind = type(node).__name__
        if kind in _MADE_BY:
            return _MADE_BY[kind]
        op = re.sub(r"Backward\d*$", "", kind)
        if op not in _PASS_THROUGH:
            return op.lower()
        node = next((n for n, _ in node.next_functions if n is not None), None)
    return None
