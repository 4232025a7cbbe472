"""Token-prediction probes: the shift between inputs and targets, PAD out of the loss, a causal mask that holds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from auditor.numeric.program import Program, finite, main_tensor, summed, tree_map
from auditor.numeric.usercode import UserCodeError

SHIFTS = (0, 1, 2)


def shift_rates(inputs: torch.Tensor, targets: torch.Tensor, excluded: torch.Tensor) -> dict[int, float]:
    """For each shift s, the share of counted positions where targets[:, i] == inputs[:, i + s]."""
    rates = {}
    length = inputs.shape[-1]
    for s in SHIFTS:
        if s >= length:
            continue
        same = targets[..., : length - s] == inputs[..., s:]
        counted = ~excluded[..., : length - s]
        n = int(counted.sum())
        rates[s] = float((same & counted).sum()) / n if n else float("nan")
    return rates


@dataclass(frozen=True)
class PadGradient:
    """Gradient the loss sends to the logits at positions whose target is PAD or ignored."""

    positions: int  # excluded positions checked
    leaking: int  # of them, positions with a non-zero gradient
    first: tuple[int, ...] | None
    injected: bool  # the batch had no excluded position; one target was set to ignore_index
    error: str | None = None


def pad_gradient(
    program: Program, logits: torch.Tensor, targets: torch.Tensor, excluded_values: list[int], ignore_index: int
) -> PadGradient:
    """Backward from the loss to a copy of the logits; excluded positions must get exactly zero gradient."""
    targets = targets.clone()
    excluded = _is_any(targets, excluded_values)
    injected = not bool(excluded.any())
    if injected:
        targets.view(-1)[-1] = ignore_index
        excluded = _is_any(targets, excluded_values)
    leaf = logits.detach().clone().requires_grad_(True)
    try:
        summed(program.loss(leaf, targets)).backward()
    except (UserCodeError, RuntimeError) as exc:
        return PadGradient(int(excluded.sum()), int(excluded.sum()), None, injected, str(exc).splitlines()[0])
    grad = leaf.grad if leaf.grad is not None else torch.zeros_like(leaf)
    per_position = grad.abs().reshape(*targets.shape, -1).amax(-1) if grad.dim() > targets.dim() else grad.abs()
    leaking = excluded & (per_position != 0)
    first = tuple(int(i) for i in leaking.nonzero()[0]) if bool(leaking.any()) else None
    return PadGradient(int(excluded.sum()), int(leaking.sum()), first, injected)


def last_position_gradient(program: Program, logits: torch.Tensor, targets: torch.Tensor) -> float | None:
    """The largest gradient the loss sends to the outputs of the last position (None when shapes do not align).

    A loss that shifts the targets itself (labels equal to the inputs) compares position t with label t+1,
    so the last position, which has no next token, gets exactly zero gradient.
    """
    if logits.dim() != targets.dim() + 1 or logits.shape[:-1] != targets.shape:
        return None
    ran, grad = _output_gradient(program, logits, targets)
    if not ran:
        return None
    return float(grad[..., -1, :].abs().max()) if grad is not None else 0.0


def _output_gradient(program: Program, logits: torch.Tensor, targets: torch.Tensor) -> tuple[bool, torch.Tensor | None]:
    """Whether the loss ran on (a copy of) the outputs, and the gradient it sent them (None: none)."""
    leaf = logits.detach().clone().requires_grad_(True)
    try:
        summed(program.loss(leaf, targets)).backward()
    except (UserCodeError, RuntimeError):
        return False, None
    return True, leaf.grad


def loss_shift(program: Program, logits: torch.Tensor, targets: torch.Tensor, excluded: torch.Tensor) -> int | None:
    """How many positions later the loss takes the label it pulls the outputs at position t toward.

    A cross-entropy's gradient at position t is most negative at the class of the label it is compared with,
    so the loss's own pairing reads off the gradient: 0 for a loss that takes targets as they are, 1 for one
    that compares logits[:, t] with labels[:, t + 1] (Hugging Face's causal LM loss). None when no single
    offset explains at least 99% of the positions with a gradient (a loss that is not per-token classes).
    """
    if logits.dim() != targets.dim() + 1 or logits.shape[:-1] != targets.shape or targets.dim() < 1:
        return None
    _, found = _output_gradient(program, logits, targets)
    if found is None or not finite(found):
        return None
    grad = found.detach()
    pulled = grad.argmin(-1)  # the class each position is pulled toward
    trained = grad.abs().amax(-1) > 0
    length = targets.shape[-1]
    explained = []
    for offset in SHIFTS:
        if offset >= length:
            continue
        counted = trained[..., : length - offset] & ~excluded[..., offset:]
        n = int(counted.sum())
        same = pulled[..., : length - offset] == targets[..., offset:]
        if n >= 2 and float((same & counted).sum()) / n >= 0.99:
            explained.append(offset)
    return explained[0] if len(explained) == 1 else None


def _is_any(t: torch.Tensor, values: list[int]) -> torch.Tensor:
    out = torch.zeros_like(t, dtype=torch.bool)
    for v in values:
        out |= t == v
    return out


@dataclass(frozen=True)
class FutureLeak:
    """How much outputs at positions <= t move when only tokens after t change."""

    mode: str
    position: int
    max_change: float
    first_moved: int | None  # the earliest position <= t whose output moved


def future_leak(
    program: Program, model: torch.nn.Module, inputs: Any, ids: torch.Tensor, vocab: int, mode: str, tolerance: float
) -> FutureLeak | None:
    """Change every token after the middle position; outputs up to it must not move (same RNG seed both runs).

    ``ids`` is the token tensor inside ``inputs`` (a tensor, tuple or dict); the rest is passed unchanged.
    """
    length = ids.shape[-1]
    if length < 2:
        return None
    t = (length - 1) // 2
    changed = ids.clone()
    # Stay inside the vocabulary: the logits' last axis when known, else the largest id seen.
    modulus = vocab if vocab > 1 else int(ids.max()) + 1
    if modulus < 2:
        return None
    changed[..., t + 1 :] = (changed[..., t + 1 :] + 1) % modulus
    changed_inputs = tree_map(lambda x: changed if x is ids else x, inputs)
    model.train(mode == "train")
    with torch.no_grad():
        torch.manual_seed(program.seed)
        before = main_tensor(program.forward(model, inputs))
        torch.manual_seed(program.seed)
        after = main_tensor(program.forward(model, changed_inputs))
    if before is None or after is None or before.shape != after.shape or before.dim() < 2:
        return None
    diff = (before.float() - after.float()).abs()
    per_position = diff.reshape(diff.shape[0], diff.shape[1], -1).amax(dim=(0, 2))  # (T,)
    scale = tolerance * (1.0 + float(before.float().abs().max()))
    moved = (per_position[: t + 1] > scale).nonzero()
    return FutureLeak(mode, t, float(per_position[: t + 1].max()), int(moved[0]) if len(moved) else None)


@dataclass(frozen=True)
class AllIgnoredRisk:
    """What the sample batch says about batches with no counted target: can the loader produce one?"""

    rows_without_target: tuple[int, ...]  # rows (leading axes flattened) whose every target is PAD or ignored
    rows: int
    length: int  # tokens per sequence

    @property
    def possible(self) -> bool:
        """A row with nothing to predict, or sequences too short to have a next token, make such batches."""
        return bool(self.rows_without_target) or self.length < 2


def all_ignored_risk(excluded: torch.Tensor) -> AllIgnoredRisk:
    """Rows of the batch that alone (batch size 1, the last batch of an epoch) would have no counted target."""
    length = int(excluded.shape[-1]) if excluded.dim() else 1
    rows = excluded.reshape(-1, length) if length else excluded.reshape(1, 0)
    empty = rows.all(dim=-1).nonzero().flatten()
    return AllIgnoredRisk(tuple(int(i) for i in empty), int(rows.shape[0]), length)


def all_ignored_loss(program: Program, logits: torch.Tensor, targets: torch.Tensor, ignore_index: int) -> float | str:
    """The loss of a batch whose every target is ignore_index (NaN for a plain mean over zero tokens)."""
    try:
        with torch.no_grad():
            loss = summed(program.loss(logits.detach(), torch.full_like(targets, ignore_index)))
    except UserCodeError as exc:
        return str(exc).splitlines()[0]
    return float(loss) if isinstance(loss, torch.Tensor) and loss.numel() == 1 and finite(loss) else float("nan")


def vocabulary_size(logits: Any) -> int:
    return int(logits.shape[-1]) if isinstance(logits, torch.Tensor) and logits.dim() >= 3 else 0
