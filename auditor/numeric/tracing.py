"""Watching the user's program run: every torch call through a TorchFunctionMode, and the module it ran in."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from auditor.numeric.program import Program, main_tensor, shape, tensors, user_site

MAX_OPS = 5000  # ops recorded per forward pass
RTOL = 1e-6  # a value that moves by less than this (relative) has not moved

# A callback sees (function name, args, kwargs, result, user file:line) after every torch call.
Listener = Callable[[str, tuple[Any, ...], dict[str, Any], Any, str | None], None]


class CallRecorder(TorchFunctionMode):
    """Calls ``listener`` after each torch function or tensor method the program calls (not nested ones); with
    ``before``, before each call, with its arguments and no result, so a call that raises (a loss rejecting
    its input) is seen too. Attribute reads (``.shape``, ``.T``) are left out unless ``attributes``."""

    def __init__(
        self, listener: Listener, paths: tuple[Path, ...], before: bool = False, attributes: bool = False
    ) -> None:
        super().__init__()
        self.listener, self.paths, self.before, self.attributes = listener, paths, before, attributes

    def __torch_function__(
        self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        kwargs = kwargs or {}
        name = getattr(func, "__name__", str(func))
        if self.before:
            self.listener(name, args, kwargs, None, user_site(self.paths))
            return func(*args, **kwargs)
        result = func(*args, **kwargs)
        # Attribute reads such as .shape are not computations; .T and .mT are, to one that follows values.
        if name not in ("__get__", "__set__") or (self.attributes and name == "__get__"):
            self.listener(name, args, kwargs, result, user_site(self.paths))
        return result


class Provenance:
    """Where the tensors a traced block makes come from: labels given to some tensors, carried by each call to
    what it returns. Each tensor is held, so no id is reused while the block runs."""

    def __init__(self) -> None:
        self._of: dict[int, tuple[torch.Tensor, frozenset[Any]]] = {}

    def mark(self, value: Any, labels: frozenset[Any]) -> None:
        """Every tensor in ``value`` comes from ``labels`` too."""
        for _, t in tensors(value):
            self._of[id(t)] = (t, labels | self.of(t))

    def of(self, t: Any) -> frozenset[Any]:
        held = self._of.get(id(t))
        return held[1] if held is not None and held[0] is t else frozenset()

    def follow(self, args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> None:
        """A call's result comes from whatever its tensor arguments come from."""
        if self._of:
            labels = frozenset().union(*(self.of(t) for _, t in tensors([args, kwargs])))
            if labels:
                self.mark(result, labels)


class ModuleStack:
    """The dotted path of the module whose forward is running ('' outside any), via forward hooks."""

    def __init__(self) -> None:
        self.stack: list[str] = []

    @property
    def current(self) -> str:
        return self.stack[-1] if self.stack else ""

    @contextmanager
    def watching(self, model: torch.nn.Module) -> Iterator[ModuleStack]:
        handles = []
        for name, module in model.named_modules():
            label = name or type(module).__name__

            def enter(_m: Any, _i: Any, label: str = label) -> None:
                self.stack.append(label)

            def leave(_m: Any, _i: Any, _o: Any) -> None:
                if self.stack:
                    self.stack.pop()

            handles.append(module.register_forward_pre_hook(enter))
            handles.append(module.register_forward_hook(leave))
        try:
            yield self
        finally:
            for h in handles:
                h.remove()
            self.stack.clear()


@dataclass(frozen=True)
class Op:
    """One recorded op: its name, the user's file:line, the module it ran in, the shapes in and out."""

    name: str
    site: str | None
    module: str
    inputs: tuple[tuple[int, ...], ...]
    shape: tuple[int, ...]


def record(
    program: Program, model: torch.nn.Module, inputs: Any, seed: int | None
) -> tuple[list[Op], list[torch.Tensor], Any]:
    """One forward pass without gradients (seeded first unless ``seed`` is None): every op's output tensor,
    copied, with what it was and where it ran."""
    ops: list[Op] = []
    values: list[torch.Tensor] = []
    stack = ModuleStack()

    def seen(name: str, args: tuple[Any, ...], kwargs: dict[str, Any], result: Any, site: str | None) -> None:
        value = main_tensor(result)
        if len(ops) >= MAX_OPS or value is None or value.is_complex():
            return
        ops.append(Op(name, site, stack.current, tuple(shape(t) for _, t in tensors((args, kwargs))), shape(value)))
        values.append(value.detach().clone())

    with torch.no_grad(), stack.watching(model), CallRecorder(seen, program.code.paths):
        if seed is not None:
            torch.manual_seed(seed)
        outputs = program.forward(model, inputs)
    return ops, values, outputs


def moved(a: torch.Tensor | None, b: torch.Tensor | None) -> torch.Tensor | None:
    """Which values of ``a`` differ in ``b`` (NaN against NaN has not moved); None when they do not line up."""
    if a is None or b is None or a.shape != b.shape or a.dtype != b.dtype:
        return None
    if a.dim() == 0:
        a, b = a.reshape(1), b.reshape(1)
    if not a.is_floating_point():
        return a != b
    x, y = a.double(), b.double()
    same = (x == y) | (torch.isnan(x) & torch.isnan(y)) | ((x - y).abs() <= RTOL * (1.0 + x.abs()))
    return ~same
