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
    tolerance: float = 1e-5  # the largest max_change a correct computation can show

    @property
    def stable(self) -> bool:
        return self.error is None and self.finite_before and self.finite_after and self.max_change <= self.tolerance


def rounding_bound(dtype: torch.dtype, magnitude: float, classes: int) -> float:
    """How far a correct softmax of logits up to ``magnitude`` in ``dtype`` may be from the exact one.

    Rounding the logits moves each by up to eps/2 * |x|, and softmax's Jacobian turns that into at most
    eps * |x| in a probability; exp, sum and divide add a few eps per class. A factor 4 of margin on both
    (measured worst cases use under half of it).
    """
    eps = float(torch.finfo(dtype).eps)
    return eps * (4.0 * (1.0 + magnitude) + classes)


def probe_softmax(
    softmax: Callable[..., Any], logits: torch.Tensor, shift: float = SHIFT, name: str = "numeric.softmax"
) -> ShiftResult:
    """softmax(logits + shift, -1) in the logits' dtype against the exact softmax (float64) of the logits.

    The tolerance is what rounding allows a correct softmax in that dtype at that magnitude (rounding_bound),
    so torch.softmax, log_softmax().exp() and exp(x - logsumexp(x)) pass at any shift, and an exp that
    overflows does not. A function that is not a softmax at all (SMX004 says so) is judged by its own change.
    StageInputError when ``softmax`` returns anything but a tensor of the logits' shape: nothing to compare.
    """
    dtype = str(logits.dtype).removeprefix("torch.")
    try:
        with torch.no_grad():
            before = softmax(logits, -1)
            shifted = logits + shift
            after = softmax(shifted, -1)
    except RuntimeError as exc:  # e.g. an op without a float16 kernel on this device
        return ShiftResult(dtype, shift, False, False, float("inf"), float("nan"), str(exc).splitlines()[0])
    before, after = _probabilities(before, logits, name), _probabilities(after, logits, name)
    ok_before, ok_after = bool(torch.isfinite(before).all()), bool(torch.isfinite(after).all())
    row_sum = float(before.reshape(-1, before.shape[-1])[0].sum()) if before.dim() else float("nan")
    classes = int(logits.shape[-1]) if logits.dim() else 1
    exact = torch.softmax(logits.double(), -1)
    tol_before = rounding_bound(logits.dtype, _magnitude(logits), classes)
    tol_after = rounding_bound(logits.dtype, _magnitude(shifted), classes)
    if not (ok_before and ok_after):
        return ShiftResult(dtype, shift, ok_before, ok_after, float("inf"), row_sum, tolerance=tol_after)
    if float((before - exact).abs().max()) <= tol_before:  # a softmax: the shifted result must still be one
        change = float((after - exact).abs().max())
        return ShiftResult(dtype, shift, True, True, change, row_sum, tolerance=tol_after)
    change = float((after - before).abs().max())
    return ShiftResult(dtype, shift, True, True, change, row_sum, tolerance=tol_before + tol_after)


def _magnitude(t: torch.Tensor) -> float:
    finite = t.double()[torch.isfinite(t)]
    return float(finite.abs().max()) if finite.numel() else 0.0


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
    return value.double()


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


def target_form(outputs: Any, targets: Any) -> str | None:
    """'class-index', 'one-hot' or 'soft-label' when ``targets`` name classes of ``outputs``; None otherwise.

    One-hot and soft labels are float rows shaped like the outputs, non-negative and summing to 1 (the forms
    F.cross_entropy also takes); anything else (regression targets, multi-label 0/1 rows) is not probed.
    """
    if class_logits(outputs, targets):
        return "class-index"
    if not (
        isinstance(outputs, torch.Tensor)
        and isinstance(targets, torch.Tensor)
        and outputs.is_floating_point()
        and targets.is_floating_point()
        and targets.shape == outputs.shape
        and outputs.dim() >= 2
        and outputs.shape[-1] > 1
    ):
        return None
    rows = targets.detach().double().reshape(-1, targets.shape[-1])
    if not bool(torch.isfinite(rows).all()) or bool((rows < 0).any()):
        return None
    if not bool(torch.allclose(rows.sum(-1), torch.ones(len(rows), dtype=torch.float64), atol=1e-3)):
        return None
    return "one-hot" if bool(((rows == 0) | (rows == 1)).all()) else "soft-label"


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
