"""Padding: which input is the padding mask and which value marks padding in it, and whether PAD appended to
the sequences (marked so in the mask) changes the outputs of the real tokens."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

import torch

from auditor.numeric.program import Program, main_tensor, tensors, tree_map
from auditor.numeric.usercode import UserCodeError

# Inputs named for the padding, by the value that marks a real token: Hugging Face's attention_mask and BERT's
# input_mask hold 1 for a real token; PyTorch's key padding masks hold True for padding. A bare `mask` says
# neither (causal, MLM or padding), so it names nothing.
MASK_NAMES = {
    "attention_mask": True, "input_mask": True, "key_padding_mask": False, "src_key_padding_mask": False,
    "padding_mask": False, "pad_mask": False,
}  # fmt: skip
# Where a model keeps its PAD id when the batch does not show it.
PAD_ATTRIBUTES = ("pad_id", "pad_token_id", "padding_idx", "pad_idx", "pad_index")


@dataclass(frozen=True)
class PaddingMask:
    """A padding mask among the inputs, the sequences it masks and how padding is written in both."""

    tensor: torch.Tensor
    name: str
    sequences: torch.Tensor  # the ids (N, T) or the features (N, T, ...) the mask runs along
    real: bool  # the mask's value (as a bool) at a real token
    polarity_from: str  # 'the batch' or 'its name'
    pad_id: int | None  # None for float features, which are padded with zeros
    pad_from: str | None  # 'numeric.language_model.pad_id', 'the batch', or the model's attribute

    @property
    def pad_value(self) -> Any:
        """What the mask holds at padding, in its own dtype."""
        return (not self.real) if self.tensor.dtype == torch.bool else int(not self.real)


def named_inputs(model: torch.nn.Module, inputs: Any) -> list[tuple[str, torch.Tensor]]:
    """The input tensors with the names the model takes them by: a dict's keys, or the forward's parameters."""
    if isinstance(inputs, dict):
        return [(str(k), v) for k, v in inputs.items() if isinstance(v, torch.Tensor)]
    if not isinstance(inputs, tuple):
        return []
    try:
        parameters = list(inspect.signature(model.forward).parameters.values())
    except (TypeError, ValueError):
        return []
    named = []
    for p, value in zip(parameters, inputs, strict=False):
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            break
        if isinstance(value, torch.Tensor):
            named.append((p.name, value))
    return named


def find_padding_mask(model: torch.nn.Module, inputs: Any, pad_id: int | None = None) -> PaddingMask | str:
    """The inputs' padding mask, or why there is none to probe with.

    A mask counts only by its name (MASK_NAMES) and its form: 0/1 or bool, shaped (N, T) like a sequence input.
    Which value marks padding is read from the batch when it has padding at one end of a row, else from the
    name; the PAD id from the config, else the ids the batch's padding holds, else the model's attribute or
    nn.Embedding padding_idx.
    """
    named = named_inputs(model, inputs)
    masks = [(n, t) for n, t in named if n in MASK_NAMES and _binary(t) and t.dim() == 2]
    if not masks:
        return "the inputs carry no padding mask (" + ", ".join(MASK_NAMES) + ")"
    name, mask = masks[0]
    along = [t for n, t in named if t is not mask and t.dim() >= 2 and t.shape[:2] == mask.shape]
    ids = [t for t in along if not t.is_floating_point() and t.dim() == 2 and not _binary(t)]
    floats = [t for t in along if t.is_floating_point()]
    if not (ids or floats):
        return f"no input runs along `{name}` {list(mask.shape)} (token ids or features of that shape)"
    sequences = (ids or floats)[0]
    real, polarity_from = _polarity(mask, MASK_NAMES[name])
    if sequences.is_floating_point():
        return PaddingMask(mask, name, sequences, real, polarity_from, None, None)
    pad_from: str | None = "numeric.language_model.pad_id" if pad_id is not None else None
    if pad_id is None:
        held = sequences[mask.bool() != real].unique()
        if held.numel() == 1:
            pad_id, pad_from = int(held), "the batch"
    if pad_id is None:
        pad_id, pad_from = _model_pad_id(model)
    if pad_id is None:
        return (
            f"`{name}` marks no padding in the batch and the model names no PAD id ({', '.join(PAD_ATTRIBUTES)}, "
            "or an nn.Embedding padding_idx)"
        )
    return PaddingMask(mask, name, sequences, real, polarity_from, pad_id, pad_from)


def _binary(t: torch.Tensor) -> bool:
    if t.dtype == torch.bool:
        return True
    if t.is_floating_point() or t.is_complex() or not t.numel():
        return False
    return bool(((t == 0) | (t == 1)).all())


def _polarity(mask: torch.Tensor, by_name: bool) -> tuple[bool, str]:
    """The value at a real token: a sequence is never all padding, so one end of every row is real; the batch
    decides when exactly one end agrees across rows and some row has the other value at its other end."""
    m = mask.bool()
    first, last = m[:, 0], m[:, -1]
    right = bool((first == first[0]).all()) and bool((last != first[0]).any())  # padded at the end
    left = bool((last == last[0]).all()) and bool((first != last[0]).any())  # padded at the start
    if right and not left:
        return bool(first[0]), "the batch"
    if left and not right:
        return bool(last[0]), "the batch"
    if right and left and bool(first[0]) == by_name:
        return by_name, "the batch"
    if right and left and bool(last[0]) == by_name:
        return by_name, "the batch"
    return by_name, "its name"


def _model_pad_id(model: torch.nn.Module) -> tuple[int | None, str | None]:
    for attribute in PAD_ATTRIBUTES:
        for owner, where in ((model, "the model"), (getattr(model, "config", None), "the model's config")):
            value = getattr(owner, attribute, None) if owner is not None else None
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                return value, f"{where}'s `{attribute}`"
    found = {m.padding_idx for m in model.modules() if isinstance(m, torch.nn.Embedding) and m.padding_idx is not None}
    if len(found) == 1:
        return int(found.pop()), "the model's nn.Embedding padding_idx"
    return None, None


@dataclass(frozen=True)
class PaddingLeak:
    """The same tokens with and without PAD after them: whether and where the outputs of the real ones moved."""

    kept: int  # positions kept as they were; the rest of the sequence is PAD
    length: int
    moved: bool
    position: int | None  # the earliest kept position whose outputs moved (None: outputs without a position axis)
    row: int
    padded: float  # that output with PAD after it, and without
    unpadded: float
    max_change: float
    hidden: bool = False  # with PAD after them, the real tokens' outputs are NaN/inf and PAD's are finite
    lost: bool = False  # without PAD the outputs are NaN/inf and with it finite: the mask hides every real token


def padding_leak(
    program: Program,
    model: torch.nn.Module,
    inputs: Any,
    sequences: torch.Tensor,
    pad_id: int | None,
    tolerance: float,
    mask: PaddingMask | None = None,
) -> PaddingLeak | None:
    """The first half of each sequence followed by PAD, against that half alone, in eval mode: PAD must not move
    the outputs of the tokens before it (or the outputs, for a model that pools the sequence). Inputs running
    along the sequences are cut with them; at the padding the mask says padding, other integer ones (an
    attention mask of a language model, token types) 0, features 0. None when the model does not run on the
    shorter sequences, or its outputs cannot be lined up."""
    if sequences.dim() < 2 or sequences.shape[1] < 2:
        return None
    length = int(sequences.shape[1])
    kept = (length + 1) // 2
    lead = sequences.shape[:2]
    along = [t for _, t in tensors(inputs) if t.dim() >= 2 and t.shape[:2] == lead]

    def padded(t: torch.Tensor) -> torch.Tensor:
        if not any(t is x for x in along):
            return t
        if t is sequences and pad_id is not None:
            fill = torch.full_like(t[:, kept:], pad_id)
        elif mask is not None and t is mask.tensor:
            fill = torch.full_like(t[:, kept:], mask.pad_value)
        else:
            fill = torch.zeros_like(t[:, kept:])
        return torch.cat([t[:, :kept], fill], dim=1)

    def cut(t: torch.Tensor) -> torch.Tensor:
        return t[:, :kept] if any(t is x for x in along) else t

    model.eval()
    with torch.no_grad():
        try:
            torch.manual_seed(program.seed)
            with_pad = main_tensor(program.forward(model, tree_map(padded, inputs)))
            torch.manual_seed(program.seed)
            without = main_tensor(program.forward(model, tree_map(cut, inputs)))
        except UserCodeError:  # a model built for one sequence length only: nothing to compare with
            return None
    if not (isinstance(with_pad, torch.Tensor) and isinstance(without, torch.Tensor)):
        return None
    if not (with_pad.is_floating_point() and without.is_floating_point()) or with_pad.dim() < 1:
        return None
    if with_pad.dim() >= 2 and with_pad.shape[1] == length and without.dim() >= 2 and without.shape[1] == kept:
        return _per_position(with_pad, without, kept, length, tolerance)
    if with_pad.shape == without.shape and with_pad.shape[0] == lead[0]:
        return _pooled(with_pad, without, kept, length, tolerance)
    return None


def _per_position(
    with_pad: torch.Tensor, without: torch.Tensor, kept: int, length: int, tolerance: float
) -> PaddingLeak | None:
    a, b = with_pad[:, :kept].double(), without.double()
    if a.shape != b.shape:
        return None
    # A causal model sees no PAD before a real token, so an inverted mask shows as every real token masked out.
    hidden = not bool(torch.isfinite(a).all()) and bool(torch.isfinite(with_pad[:, kept:]).all())
    lost = not bool(torch.isfinite(b).all()) and bool(torch.isfinite(a).all())
    diff = _gap(a, b)
    per_position = diff.reshape(diff.shape[0], kept, -1).amax(dim=(0, 2))
    scale = _scale(b, tolerance)
    moved = (per_position > scale).nonzero()
    if not len(moved):
        first = (~torch.isfinite(a)).reshape(a.shape[0], kept, -1).any(dim=(0, 2)).nonzero()
        if hidden:
            position = int(first[0])
            row = int((~torch.isfinite(a[:, position])).reshape(a.shape[0], -1).any(1).nonzero()[0])
            value = float(a[row, position].reshape(-1)[0])
            return PaddingLeak(
                kept, length, True, position, row, value, float(b[row, position].reshape(-1)[0]), 0.0, True
            )
        return PaddingLeak(kept, length, False, None, 0, 0.0, 0.0, float(per_position.max()))
    position = int(moved[0])
    at = diff[:, position].reshape(diff.shape[0], -1)
    row, column = divmod(int(at.flatten().argmax()), at.shape[1])
    return PaddingLeak(
        kept,
        length,
        True,
        position,
        row,
        float(a[row, position].reshape(-1)[column]),
        float(b[row, position].reshape(-1)[column]),
        float(per_position.max()),
        hidden,
        lost,
    )


def _pooled(with_pad: torch.Tensor, without: torch.Tensor, kept: int, length: int, tolerance: float) -> PaddingLeak:
    a, b = with_pad.double(), without.double()
    diff = _gap(a, b)
    lost = not bool(torch.isfinite(b).all()) and bool(torch.isfinite(a).all())
    hidden = not bool(torch.isfinite(a).all()) and bool(torch.isfinite(b).all())
    largest = float(diff.max()) if diff.numel() else 0.0
    if not diff.numel() or largest <= _scale(b, tolerance):
        return PaddingLeak(kept, length, False, None, 0, 0.0, 0.0, largest)
    flat = diff.reshape(diff.shape[0], -1)
    row, column = divmod(int(flat.flatten().argmax()), flat.shape[1])
    return PaddingLeak(
        kept,
        length,
        True,
        None,
        row,
        float(a[row].reshape(-1)[column]),
        float(b[row].reshape(-1)[column]),
        largest,
        hidden,
        lost,
    )


def _gap(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """|a - b|, NaN against NaN 0 and NaN against a number infinite."""
    both_nan = torch.isnan(a) & torch.isnan(b)
    return (a - b).abs().nan_to_num(nan=float("inf")).masked_fill(both_nan, 0.0)


def _scale(reference: torch.Tensor, tolerance: float) -> float:
    real = reference[torch.isfinite(reference)]
    return tolerance * (1.0 + (float(real.abs().max()) if real.numel() else 0.0))
