"""The user's program on its tiny batch: a fresh seeded model, the batch, a forward pass and the loss.

torch is imported here, and this module is imported only when a numeric stage runs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import torch

from auditor.numeric.usercode import USER_FAILURES, UserCode, UserCodeError, short_traceback, user_path

SEED = 0
TARGET_KEYS = ("labels", "label", "targets", "target")
_AUDITOR = str(Path(__file__).resolve().parents[1])
_TORCH = str(Path(torch.__file__).resolve().parent)
# Frames that are never the user's: this package, torch, Python itself and the environment's scripts.
_NOT_USER = (_AUDITOR, _TORCH, "<", sys.prefix, sys.base_prefix, sys.exec_prefix)


class Program:
    """Builds what a probe needs from the user's callables; every call is seeded, so probes are deterministic."""

    def __init__(self, code: UserCode, seed: int = SEED) -> None:
        self.code, self.seed = code, seed
        self._batch: tuple[Any, Any] | None = None

    def model(self) -> torch.nn.Module:
        torch.manual_seed(self.seed)
        model = self.code.call("model")
        if not isinstance(model, torch.nn.Module):
            raise UserCodeError(
                f"{self.code.spec.model} (numeric.model) returned a {type(model).__name__}; expected a torch.nn.Module"
            )
        return model

    def optimizer(self, model: torch.nn.Module) -> torch.optim.Optimizer | None:
        """The user's optimizer for ``model`` (None when the config names none)."""
        if not self.code.has("optimizer"):
            return None
        optimizer = self.code.call("optimizer", model)
        if not isinstance(optimizer, torch.optim.Optimizer):
            raise UserCodeError(
                f"{self.code.spec.optimizer} (numeric.optimizer) returned {_kind(optimizer)}; expected a "
                "torch.optim.Optimizer built from the model's parameters"
            )
        return optimizer

    def batch(self) -> tuple[Any, Any]:
        """(inputs, targets), built once per stage run."""
        if self._batch is None:
            torch.manual_seed(self.seed)
            batch = self.code.call("batch")
            if isinstance(batch, dict) and (label := next((k for k in TARGET_KEYS if k in batch), None)):
                # A Hugging Face style batch: the labels are the targets, the rest are the model's inputs.
                batch = ({k: v for k, v in batch.items() if k != label}, batch[label])
            if not (isinstance(batch, tuple | list) and len(batch) == 2):
                raise UserCodeError(
                    f"{self.code.spec.batch} (numeric.batch) returned {_kind(batch)}; expected a pair "
                    "(inputs, targets) or a dict with a 'labels' entry"
                )
            if not any(True for _ in tensors(batch[0])):
                raise UserCodeError(f"{self.code.spec.batch} (numeric.batch): the inputs hold no tensor")
            self._batch = (batch[0], batch[1])
        return self._batch

    def empty(self) -> bool:
        """Whether some tensor of the batch holds no values."""
        return any(t.numel() == 0 for _, t in tensors(self.batch()))

    def forward(self, model: torch.nn.Module, inputs: Any) -> Any:
        """model(inputs); a tuple is passed as positional arguments, a dict as keyword arguments."""
        with user_path(self.code.paths):
            try:
                if isinstance(inputs, dict):
                    return model(**inputs)
                if isinstance(inputs, tuple):
                    return model(*inputs)
                return model(inputs)
            except USER_FAILURES as exc:
                hint = ""
                if isinstance(inputs, tuple) and isinstance(exc, TypeError) and "positional argument" in str(exc):
                    # forward(self, views) given a pair of views: the tuple was spread into two arguments
                    hint = (
                        f"; the batch's inputs are a tuple of {len(inputs)}, passed as model(*inputs): for a forward "
                        "that takes the tuple as one argument, return the inputs as a list from numeric.batch"
                    )
                raise UserCodeError(
                    f"the model's forward ({self.code.spec.model}) raised {short_traceback(exc, self.code.paths)}"
                    + hint
                ) from None

    def loss(self, outputs: Any, targets: Any) -> Any:
        """The loss; a (loss, logs) tuple or a {"loss": ...} dict, as training loops often return, gives its loss."""
        result = self.code.call("loss", outputs, targets)
        if isinstance(result, tuple | list) and result and isinstance(result[0], torch.Tensor):
            return result[0]
        if isinstance(result, dict) and isinstance(result.get("loss"), torch.Tensor):
            return result["loss"]
        return result


def user_site(paths: tuple[Path, ...]) -> str | None:
    """The innermost stack frame in the user's files; else the innermost outside torch and this package.

    Called for every op a traced program runs: it walks frames directly, reading no source lines.
    """
    fallback = None
    roots = tuple(str(p) + "/" for p in paths)
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if roots and name.startswith(roots):
            return f"{name}:{frame.f_lineno}"
        if fallback is None and not name.startswith(_NOT_USER) and "/site-packages/" not in name:
            fallback = f"{name}:{frame.f_lineno}"
        frame = frame.f_back
    return fallback


def tensors(obj: Any, path: str = "") -> Iterator[tuple[str, torch.Tensor]]:
    """Every tensor inside nested tuples, lists and dicts, with where it is ('[0]', "['ids']")."""
    if isinstance(obj, torch.Tensor):
        yield path, obj
    elif isinstance(obj, dict):
        for key, value in obj.items():
            yield from tensors(value, f"{path}[{key!r}]")
    elif isinstance(obj, tuple | list):
        for i, value in enumerate(obj):
            yield from tensors(value, f"{path}[{i}]")


def tree_map(fn: Callable[[torch.Tensor], Any], obj: Any) -> Any:
    """``obj`` with every tensor replaced by fn(tensor), keeping the structure."""
    if isinstance(obj, torch.Tensor):
        return fn(obj)
    if isinstance(obj, dict):
        return {k: tree_map(fn, v) for k, v in obj.items()}
    if isinstance(obj, tuple | list):
        return type(obj)(tree_map(fn, v) for v in obj)
    return obj


def first_rows(obj: Any, n: int) -> Any:
    """The first ``n`` samples: every tensor with a batch axis is cut along dim 0."""
    return tree_map(lambda t: t[:n] if t.dim() else t, obj)


def shape(t: torch.Tensor) -> tuple[int, ...]:
    return tuple(int(s) for s in t.shape)


def describe(t: torch.Tensor) -> str:
    return f"{shape(t)} {str(t.dtype).removeprefix('torch.')} {t.device}"


def main_tensor(obj: Any) -> torch.Tensor | None:
    """The first tensor of a structure (a model's outputs may be a tuple: logits first)."""
    return next((t for _, t in tensors(obj)), None)


def finite(t: torch.Tensor) -> bool:
    return bool(torch.isfinite(t).all()) if t.is_floating_point() or t.is_complex() else True


def _kind(value: Any) -> str:
    if isinstance(value, tuple | list):
        return f"a {type(value).__name__} of {len(value)}"
    return f"a {type(value).__name__}"


def summed(loss: Any) -> Any:
    """A tensor loss reduced to a scalar (batch_inspect reports a loss that is not one), else unchanged."""
    return loss.sum() if isinstance(loss, torch.Tensor) and loss.dim() else loss
