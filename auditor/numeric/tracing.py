"""Watching the user's program run: every torch call through a TorchFunctionMode, and the module it ran in."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from auditor.numeric.program import user_site

# A callback sees (function name, args, kwargs, result, user file:line) after every torch call.
Listener = Callable[[str, tuple[Any, ...], dict[str, Any], Any, str | None], None]


class CallRecorder(TorchFunctionMode):
    """Calls ``listener`` after each torch function or tensor method the program calls (not nested ones)."""

    def __init__(self, listener: Listener, paths: tuple[Path, ...]) -> None:
        super().__init__()
        self.listener, self.paths = listener, paths

    def __torch_function__(
        self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        kwargs = kwargs or {}
        result = func(*args, **kwargs)
        name = getattr(func, "__name__", str(func))
        if name not in ("__get__", "__set__"):  # attribute reads such as .shape are not computations
            self.listener(name, args, kwargs, result, user_site(self.paths))
        return result


class ArgumentRecorder(TorchFunctionMode):
    """Calls ``listener`` before each torch function the program calls, with its arguments and no result: a call
    that raises (a loss rejecting its input) is seen too."""

    def __init__(self, listener: Listener, paths: tuple[Path, ...]) -> None:
        super().__init__()
        self.listener, self.paths = listener, paths

    def __torch_function__(
        self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        kwargs = kwargs or {}
        self.listener(getattr(func, "__name__", str(func)), args, kwargs, None, user_site(self.paths))
        return func(*args, **kwargs)


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
