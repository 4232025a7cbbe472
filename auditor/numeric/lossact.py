"""What each loss function is called with: probabilities, log-probabilities or raw scores, and the activation on
its input's autograd path; and whether the loss sums one term over the batch and averages another."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import torch

from auditor.numeric.program import Program, main_tensor, shape, tensors, tree_map
from auditor.numeric.tracing import CallRecorder, Provenance
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
    """The loss on the batch, given twice and given three times: a mean stays, a sum grows with the copies, and a
    loss that sums one term and averages another is k * summed_part + averaged_part for k copies."""

    once: float
    twice: float
    thrice: float
    exact: bool  # every value the loss computed was float64 (else float32 rounding may be in it)

    @property
    def summed_part(self) -> float:
        return self.twice - self.once

    @property
    def averaged_part(self) -> float:
        return 2 * self.once - self.twice

    @property
    def mixed(self) -> bool:
        """Both parts are more than rounding, and the third copy confirms the loss is one sum plus one mean.

        Their sizes at initialisation are not compared: a VAE's KL term starts near 0 and grows as it trains.
        """
        s, m = abs(self.summed_part), abs(self.averaged_part)
        scale = max(abs(self.once), abs(self.twice), abs(self.thrice))
        tol = (1e-9 if self.exact else 1e-5) * scale
        affine = abs(self.thrice - (3 * self.summed_part + self.averaged_part)) <= tol
        return min(s, m) > tol and affine


@dataclass(frozen=True)
class LossTrace:
    calls: tuple[LossCall, ...]
    reductions: tuple[Reduction, ...]
    error: str | None  # the loss raised (e.g. binary_cross_entropy on values outside [0, 1])


def trace_loss(program: Program, model: torch.nn.Module) -> LossTrace:
    """Forward (with gradients, so the input's history is kept) and the loss, every loss call recorded.

    A reduction counts only over values computed from the outputs or the targets: a penalty on the parameters
    is the same for any batch, whatever its first axis.
    """
    inputs, targets = program.batch()
    batch_size = _batch_size(targets)
    calls: list[LossCall] = []
    reductions: list[Reduction] = []
    sources = Provenance()

    def seen(name: str, args: tuple[Any, ...], kwargs: dict[str, Any], _result: Any, site: str | None) -> None:
        first = args[0] if args else kwargs.get("input")
        if not isinstance(first, torch.Tensor) or not first.is_floating_point():
            return
        if name in CLASS_LOSSES | BINARY_LOSSES and first.numel():
            calls.append(_describe(name, first, site))
        if not sources.of(first):
            return
        if name in REDUCING_LOSSES:
            reduction = kwargs.get("reduction", "mean")
            if reduction in ("sum", "mean") and _batched(first, batch_size):
                reductions.append(Reduction(str(reduction), name, shape(first), site))
        elif name in REDUCTIONS and _batched(first, batch_size) and _over_batch(first, args, kwargs):
            reductions.append(Reduction(REDUCTIONS[name], name, shape(first), site))

    def follow(_name: str, args: tuple[Any, ...], kwargs: dict[str, Any], result: Any, _site: str | None) -> None:
        sources.follow(args, kwargs, result)

    error = None
    torch.manual_seed(program.seed)
    with torch.enable_grad():
        outputs = program.forward(model, inputs)
        sources.mark(outputs, frozenset(["outputs"]))
        sources.mark(targets, frozenset(["targets"]))
        # The outer recorder follows each call's result; the inner one sees the call first, with its arguments.
        with (
            CallRecorder(follow, program.code.paths, attributes=True),
            CallRecorder(seen, program.code.paths, before=True),
        ):
            try:
                program.loss(outputs, targets)
            except UserCodeError as exc:
                error = str(exc).splitlines()[0]
    return LossTrace(tuple(dict.fromkeys(calls)), tuple(dict.fromkeys(reductions)), error)


def doubling(program: Program, model: torch.nn.Module) -> Doubling | None:
    """The loss on the outputs and targets, and on both given twice and three times along the batch axis (no new
    forward), in float64 when the loss takes it, so a term far smaller than another still shows."""
    inputs, targets = program.batch()
    n = _batch_size(targets)
    if n is None:
        return None
    torch.manual_seed(program.seed)
    with torch.no_grad():
        outputs = program.forward(model, inputs)
    wide = _losses(program, tree_map(_float64, outputs), tree_map(_float64, targets), n)
    if wide is not None:
        return Doubling(*wide)
    narrow = _losses(program, outputs, targets, n)
    return Doubling(*narrow) if narrow is not None else None


def _losses(program: Program, outputs: Any, targets: Any, n: int) -> tuple[float, float, float, bool] | None:
    """The loss on 1, 2 and 3 copies of the batch, and whether every value the loss computed was float64; None
    when it raises or is not one finite number."""
    narrow: list[str] = []

    def watch(name: str, _args: tuple[Any, ...], _kwargs: dict[str, Any], result: Any, _site: str | None) -> None:
        if not narrow and any(t.is_floating_point() and t.dtype != torch.float64 for _, t in tensors(result)):
            narrow.append(name)  # a float32 constant or a cast: rounding is float32's, whatever was given

    def copies(k: int) -> Any:
        def repeat(t: torch.Tensor) -> torch.Tensor:
            return torch.cat([t] * k) if t.dim() and t.shape[0] == n else t

        return repeat

    values = []
    with torch.no_grad(), CallRecorder(watch, program.code.paths):
        for k in (1, 2, 3):
            try:
                value = program.loss(tree_map(copies(k), outputs), tree_map(copies(k), targets))
            except UserCodeError:
                return None  # a loss that cannot take another batch size (or dtype) says nothing about its reduction
            if not (isinstance(value, torch.Tensor) and value.numel() == 1 and bool(torch.isfinite(value))):
                return None
            values.append(float(value))
    return values[0], values[1], values[2], not narrow


def _float64(t: torch.Tensor) -> torch.Tensor:
    return t.double() if t.is_floating_point() else t


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
