"""Dot-product attention in the forward pass: a softmax over q·kᵀ that nothing scaled (no 1/sqrt(d))."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

from auditor.numeric.program import Program, shape, tensors
from auditor.numeric.tracing import CallRecorder, Provenance

# Ops that only move, copy or select values: a product or a scale seen through them is still there.
_MOVES = {
    "view", "reshape", "transpose", "permute", "contiguous", "__getitem__", "chunk", "split", "unbind", "flatten",
    "unflatten", "unsqueeze", "squeeze", "expand", "expand_as", "to", "float", "double", "half", "bfloat16",
    "type", "type_as", "clone", "narrow", "select", "movedim", "swapaxes", "swapdims", "t", "__get__",
    "tensor_split", "split_with_sizes", "repeat_interleave", "detach",
}  # fmt: skip
# Ops that add a mask or a bias to the scores: the scores stay the unscaled product.
_MASKS = {"masked_fill", "masked_fill_", "add", "add_", "__add__", "__radd__", "__iadd__", "sub", "sub_",
          "__sub__", "__isub__", "where"}  # fmt: skip
# Ops that scale what they are given: by a constant, a learned temperature, a norm (cosine attention).
_SCALES = {
    "mul", "mul_", "__mul__", "__rmul__", "__imul__", "div", "div_", "__truediv__", "__itruediv__", "true_divide",
    "multiply", "divide", "normalize", "layer_norm", "rms_norm", "group_norm", "tanh", "sigmoid", "softmax",
    "log_softmax", "cosine_similarity", "baddbmm", "addbmm", "addmm",
}  # fmt: skip
_PRODUCTS = {"matmul", "bmm", "__matmul__", "__rmatmul__", "einsum"}
_SOFTMAX = {"softmax", "_softmax", "log_softmax"}
# Unscaled scores this spread out already push the softmax towards one key per query; q·kᵀ/sqrt(d) of unit
# components spreads 1. A model that folds the scaling into its initialisation (T5) spreads about 1 unscaled.
SATURATING_SPREAD = 1.5


@dataclass(frozen=True)
class Product:
    """q·kᵀ of two tensors computed from the input, neither scaled: its contraction size and operands."""

    op: str
    depth: int  # d, the size of the contracted axis
    left: tuple[int, ...]
    right: tuple[int, ...]
    site: str | None


@dataclass(frozen=True)
class UnscaledAttention:
    """A softmax over an unscaled product: how spread its scores are, and how peaked its weights, both ways."""

    product: Product
    softmax: str
    site: str | None
    scores: tuple[int, ...]
    spread: float  # the scores' standard deviation along the softmax axis, averaged over rows
    peak: float  # the largest weight of a row, averaged over rows
    scaled_spread: float  # the same with the scores divided by sqrt(d)
    scaled_peak: float
    keys: int


class _Watch:
    """Follows the input through the forward pass: which tensors come from it, which were scaled, and which are
    an unscaled product of two of them."""

    def __init__(self, program: Program, inputs: Any) -> None:
        self.mode = CallRecorder(self._seen, program.code.paths, attributes=True)
        self.sources = Provenance()
        self.sources.mark(inputs, frozenset(["input"]))
        self._scaled: dict[int, torch.Tensor] = {}
        self._product: dict[int, tuple[torch.Tensor, Product]] = {}
        self.found: list[UnscaledAttention] = []
        self.softmaxes = 0

    def _seen(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], result: Any, site: str | None) -> None:
        given = [t for _, t in tensors([args, kwargs])]
        self.sources.follow(args, kwargs, result)
        made = [t for _, t in tensors(result)]
        if name in _SOFTMAX:
            self.softmaxes += 1
            if given and (product := self.product(given[0])) is not None and _last_axis(args, kwargs, given[0]):
                self.found.append(_measure(product, name, site, given[0]))
        if name in _PRODUCTS:
            product = self._multiply(name, args, site)
            for t in made:
                self._forget(t)
                if product is not None:
                    self._product[id(t)] = (t, product)
            return
        carried = next((p for t in given if (p := self.product(t)) is not None), None)
        scaled = name in _SCALES or (name in _MOVES and any(self.scaled(t) for t in given))
        for t in made:
            self._forget(t)  # an in-place op returns the tensor it was given: what it was is overwritten
            if scaled:
                self._scaled[id(t)] = t
            elif carried is not None and (name in _MOVES or name in _MASKS):
                self._product[id(t)] = (t, carried)

    def _forget(self, t: torch.Tensor) -> None:
        self._scaled.pop(id(t), None)
        self._product.pop(id(t), None)

    def scaled(self, t: torch.Tensor) -> bool:
        held = self._scaled.get(id(t))
        return held is not None and held is t

    def product(self, t: torch.Tensor) -> Product | None:
        held = self._product.get(id(t))
        return held[1] if held is not None and held[0] is t else None

    def _multiply(self, name: str, args: tuple[Any, ...], site: str | None) -> Product | None:
        """The product's contraction size when both operands come from the input and neither was scaled."""
        if name == "einsum":
            if not args or not isinstance(args[0], str):
                return None
            operands = list(args[1][0] if len(args) == 2 and isinstance(args[1], tuple | list) else args[1:])
            depth = _einsum_depth(args[0], operands)
        else:
            operands = [a for a in args[:2] if isinstance(a, torch.Tensor)]
            if name == "__rmatmul__":
                operands.reverse()
            ok = len(operands) == 2 and operands[0].dim() >= 2 and operands[1].dim() >= 2
            depth = int(operands[0].shape[-1]) if ok else None
        if depth is None or depth < 2 or len(operands) != 2:
            return None
        left, right = operands
        if not all(isinstance(t, torch.Tensor) and t.is_floating_point() for t in (left, right)):
            return None
        if not all("input" in self.sources.of(t) for t in (left, right)) or self.scaled(left) or self.scaled(right):
            return None
        return Product(name, depth, shape(left), shape(right), site)


def _einsum_depth(equation: str, operands: list[Any]) -> int | None:
    """The size of the axes an einsum of two operands sums over (None for any other einsum)."""
    spec = equation.replace(" ", "")
    if "->" not in spec or "." in spec or len(operands) != 2:
        return None
    given, out = spec.split("->")
    parts = given.split(",")
    if len(parts) != 2:
        return None
    if any(not isinstance(t, torch.Tensor) or t.dim() != len(p) for t, p in zip(operands, parts, strict=True)):
        return None
    summed = [i for i, c in enumerate(parts[0]) if c in parts[1] and c not in out]
    return math.prod(int(operands[0].shape[i]) for i in summed) if summed else None


def _last_axis(args: tuple[Any, ...], kwargs: dict[str, Any], t: torch.Tensor) -> bool:
    """Whether the softmax runs over the keys: the product's last axis."""
    dim = kwargs.get("dim", args[1] if len(args) > 1 else None)
    return isinstance(dim, int) and t.dim() > 0 and dim % t.dim() == t.dim() - 1


def _measure(product: Product, name: str, site: str | None, scores: torch.Tensor) -> UnscaledAttention:
    values = scores.detach().double()
    rows = values.reshape(-1, values.shape[-1])
    rows = rows[torch.isfinite(rows).all(-1)]  # rows a mask cuts with -inf are left out of the spread
    keys = int(values.shape[-1])
    if not rows.numel() or keys < 2:
        return UnscaledAttention(product, name, site, shape(scores), 0.0, 1.0, 0.0, 1.0, keys)
    scaled = rows / math.sqrt(product.depth)
    return UnscaledAttention(
        product,
        name,
        site,
        shape(scores),
        float(rows.std(-1).mean()),
        float(rows.softmax(-1).amax(-1).mean()),
        float(scaled.std(-1).mean()),
        float(scaled.softmax(-1).amax(-1).mean()),
        keys,
    )


@dataclass(frozen=True)
class AttentionProbe:
    softmaxes: int  # softmax calls in the forward pass
    unscaled: tuple[UnscaledAttention, ...]  # over an unscaled product, spread enough to saturate
    small: tuple[UnscaledAttention, ...]  # over an unscaled product whose scores are small at initialisation


def unscaled_attention(program: Program, model: torch.nn.Module, inputs: Any) -> AttentionProbe:
    """One forward pass in eval mode, without gradients: every softmax over the keys of an unscaled q·kᵀ."""
    watch = _Watch(program, inputs)
    model.eval()
    with torch.no_grad(), watch.mode:
        torch.manual_seed(program.seed)
        program.forward(model, inputs)
    unique = list({(a.site, a.product.site): a for a in watch.found}.values())
    return AttentionProbe(
        watch.softmaxes,
        tuple(a for a in unique if a.spread > SATURATING_SPREAD),
        tuple(a for a in unique if a.spread <= SATURATING_SPREAD),
    )
