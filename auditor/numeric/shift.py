"""Shift probes: softmax(x + c) equals softmax(x), and a softmax-based loss ignores a constant added to logits."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from auditor.core.errors import StageInputError

SHIFT = 1000.0
HALF_SHIFT = 12.0  # exp(12) > 65504, the largest float16


@dataclass(frozen=True)
class ShiftResult:
    """One probe: the values before and after the shift, as plain numbers for the report."""

    dtype: str
    shift: float
    finite_before: bool
    finite_after: bool
    max_change: float  # inf when either side is not finite
    row_sum: float  # of the unshifted probabilities (the first row), NaN for a loss
    error: str | None = None
    scale: float = 1.0

    @property
    def stable(self) -> bool:
        return (
            self.error is None
            and self.finite_before
            and self.finite_after
            and self.max_change <= _tolerance(self.dtype)
        )


def _tolerance(dtype: str) -> float:
    return 1e-2 if dtype == "float16" else 1e-5


def probe_softmax(
    softmax: Callable[..., Any], logits: torch.Tensor, shift: float = SHIFT, name: str = "numeric.softmax"
) -> ShiftResult:
    """softmax(logits, -1) against softmax(logits + shift, -1), in the logits' dtype.

    StageInputError when ``softmax`` returns anything but a tensor of the logits' shape: nothing to compare.
    """
    dtype = str(logits.dtype).removeprefix("torch.")
    try:
        with torch.no_grad():
            before = softmax(logits, -1)
            after = softmax(logits + shift, -1)
    except RuntimeError as exc:  # e.g. an op without a float16 kernel on this device
        return ShiftResult(dtype, shift, False, False, float("inf"), float("nan"), str(exc).splitlines()[0])
    before, after = _probabilities(before, logits, name), _probabilities(after, logits, name)
    ok_before, ok_after = bool(torch.isfinite(before).all()), bool(torch.isfinite(after).all())
    change = float((before - after).abs().max()) if ok_before and ok_after else float("inf")
    row_sum = float(before.reshape(-1, before.shape[-1])[0].sum()) if before.dim() else float("nan")
    return ShiftResult(dtype, shift, ok_before, ok_after, change, row_sum)


def _probabilities(value: Any, logits: torch.Tensor, name: str) -> torch.Tensor:
    """``value`` as float32 when it is a tensor shaped like ``logits``; StageInputError saying what it is else."""
    expected = f"expected a torch.Tensor of shape {tuple(logits.shape)}, like the logits (e.g. torch.softmax(x, dim))"
    if not isinstance(value, torch.Tensor):
        kind = type(value)
        shape = getattr(value, "shape", None)
        what = f"{kind.__module__}.{kind.__qualname__}" + (f" of shape {tuple(shape)}" if shape is not None else "")
        raise StageInputError(
            f"{name}(logits, -1) returned a {what}; {expected}. Keep the softmax in torch "
            "(no .numpy(), no numpy/scipy functions) so it can be checked and trained through."
        )
    if value.shape != logits.shape:
        raise StageInputError(f"{name}(logits, -1) returned a tensor of shape {tuple(value.shape)}; {expected}")
    return value.float()


def probe_loss(
    loss: Callable[[Any, Any], Any], outputs: torch.Tensor, targets: Any, shift: float = SHIFT, scale: float = 1.0
) -> ShiftResult | None:
    """loss(outputs, targets) against loss(outputs * scale + shift, targets); None when the loss is no scalar."""
    dtype = str(outputs.dtype).removeprefix("torch.")
    with torch.no_grad():
        before = loss(outputs, targets)
        after = loss(outputs * scale + shift, targets)
    if not all(isinstance(v, torch.Tensor) and v.numel() == 1 for v in (before, after)):
        return None
    b, a = float(before), float(after)
    ok_b, ok_a = math.isfinite(b), math.isfinite(a)
    change = abs(a - b) / (1.0 + abs(b)) if ok_a and ok_b else float("inf")
    return ShiftResult(dtype, shift, ok_b, ok_a, change, float("nan"), scale=scale)


def normalized(outputs: torch.Tensor) -> str | None:
    """'log-probabilities' or 'probabilities' when the model already normalizes its outputs, else None."""
    rows = outputs.detach().float().reshape(-1, outputs.shape[-1])
    if bool((rows <= 0).all()) and bool(torch.allclose(torch.logsumexp(rows, -1), torch.zeros(len(rows)), atol=1e-4)):
        return "log-probabilities"
    if bool((rows >= 0).all()) and bool(torch.allclose(rows.sum(-1), torch.ones(len(rows)), atol=1e-4)):
        return "probabilities"
    return None


def class_logits(outputs: Any, targets: Any) -> bool:
    """Whether outputs look like class scores for integer targets (where a loss must be shift-invariant)."""
    return (
        isinstance(outputs, torch.Tensor)
        and isinstance(targets, torch.Tensor)
        and outputs.is_floating_point()
        and not targets.is_floating_point()
        and not targets.is_complex()
        and targets.dtype != torch.bool
        and outputs.dim() >= 2
        and outputs.shape[-1] > 1
    )
