"""Where the autograd graph is cut, and what the loss's gradient reaches: none, zero, frozen, not optimized."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import torch

from auditor.numeric.program import Program, shape, summed, tensors
from auditor.numeric.tracing import CallRecorder, Provenance

# Calls that leave the graph when applied to a tensor that requires grad.
LEAVES_GRAPH = {"item", "tolist", "numpy", "detach", "detach_"}
# Calls that make a tensor from plain data, and the place of that data among their arguments (a method's self
# is its first): `x.new_tensor(v)` wraps a number as `torch.tensor(v)` does.
WRAP_DATA = {"tensor": 0, "as_tensor": 0, "from_numpy": 0, "asarray": 0, "scalar_tensor": 0, "new_tensor": 1}
REWRAPS = {name for name, at in WRAP_DATA.items() if at == 0}  # their data could be a tensor taken whole
_DATA = {"new_tensor": "data", "tensor": "data", "as_tensor": "data", "scalar_tensor": "s"}


@dataclass(frozen=True)
class Cut:
    """A call that took a value out of the graph: what, on which shape, where."""

    op: str
    shape: tuple[int, ...]
    site: str | None


@dataclass
class Reach:
    """What one backward pass of the loss reached."""

    loss_has_graph: bool
    cuts: list[Cut] = field(default_factory=list)
    unreachable: list[str] = field(default_factory=list)  # trainable, grad None
    zero: list[str] = field(default_factory=list)  # trainable, grad exactly 0 everywhere
    frozen: list[str] = field(default_factory=list)  # requires_grad False
    not_optimized: list[str] = field(default_factory=list)  # trainable, in no optimizer param group
    reached: list[str] = field(default_factory=list)
    backward_error: str | None = None
    rewrapped: list[tuple[Cut, Cut]] = field(default_factory=list)  # inside the loss: value taken out, wrapped
    # trainable, grad None, and every forward of their module ran under no_grad: parameter -> the module
    under_no_grad: dict[str, str] = field(default_factory=dict)


class CutRecorder:
    """Records calls that take a value out of the graph while gradients are on, and tensors built from plain
    numbers inside the loss: a number taken out and wrapped again is a constant that trains nothing."""

    def __init__(self, program: Program) -> None:
        self.cuts: list[Cut] = []
        self.in_loss = False
        self.loss_events: list[tuple[str, Cut]] = []  # ("cut" | "wrap", call), in order, inside the loss
        self._from_wrap = Provenance()  # tensors made inside the loss from a wrap: the wraps (numbered) they use
        self._wraps = 0
        self.mode = CallRecorder(self._seen, program.code.paths)

    def _seen(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], result: Any, site: str | None) -> None:
        if not torch.is_grad_enabled():
            return
        if self.in_loss:
            self._from_wrap.follow(args, kwargs, result)
        if not args:
            return
        first = args[0]
        if name in LEAVES_GRAPH and isinstance(first, torch.Tensor) and first.requires_grad:
            cut = Cut(name, shape(first), site)
            self.cuts.append(cut)
            if self.in_loss:
                self.loss_events.append(("cut", cut))
        elif name in REWRAPS and any(t.requires_grad for _, t in tensors(first)):
            self.cuts.append(Cut(f"torch.{name}", shape(next(t for _, t in tensors(first))), site))
        elif name in WRAP_DATA and self.in_loss:
            at = WRAP_DATA[name]
            data = args[at] if len(args) > at else kwargs.get(_DATA.get(name, ""))
            if data is not None and not any(True for _ in tensors(data)):
                prefix = "Tensor." if name.startswith("new_") else "torch."
                wrap = Cut(f"{prefix}{name}", (), site)
                self.loss_events.append(("wrap", wrap))
                self._from_wrap.mark(result, frozenset([self._wraps]))
                self._wraps += 1

    def rewrapped(self, loss: Any = None) -> list[tuple[Cut, Cut]]:
        """Inside the loss: each value taken out (.item(), .tolist(), .numpy()) and then wrapped in a tensor that
        the loss is made of (given ``loss``; a wrap kept for logging only adds nothing to it)."""
        into = self._from_wrap.of(loss) if loss is not None else None
        pairs, taken, wraps = [], None, 0
        for kind, call in self.loss_events:
            if kind == "cut" and call.op in ("item", "tolist", "numpy"):
                taken = taken or call
            elif kind == "wrap":
                wraps += 1  # the wraps in loss_events are self._wraps, in order
                # The first wrap after a value taken out is where it went: a term of the loss, or only a log.
                if taken is not None and (into is None or wraps - 1 in into):
                    pairs.append((taken, call))
                taken = None
        return pairs


@contextmanager
def _grad_modes(model: torch.nn.Module) -> Iterator[dict[str, set[bool]]]:
    """For each module (by dotted name), whether gradients were on in the forwards it ran."""
    modes: dict[str, set[bool]] = {}
    handles = []
    for name, module in model.named_modules():

        def seen(_m: Any, _i: Any, name: str = name) -> None:
            modes.setdefault(name, set()).add(torch.is_grad_enabled())

        handles.append(module.register_forward_pre_hook(seen))
    try:
        yield modes
    finally:
        for h in handles:
            h.remove()


def _owners(model: torch.nn.Module) -> dict[str, str]:
    """Each parameter's module: the one that holds it directly (its name without the last part)."""
    return {n: n.rpartition(".")[0] for n, _ in model.named_parameters()}


def reach(program: Program) -> Reach:
    """One forward, loss and backward in train mode, with the parameters sorted by what their gradient is."""
    model = program.model().train()
    optimizer = program.optimizer(model)
    inputs, targets = program.batch()
    recorder = CutRecorder(program)
    with torch.enable_grad(), recorder.mode, _grad_modes(model) as modes:
        outputs = program.forward(model, inputs)
        recorder.in_loss = True
        loss = summed(program.loss(outputs, targets))
    result = Reach(
        # A leaf (torch.tensor(v, requires_grad=True)) requires grad but has no history either.
        loss_has_graph=isinstance(loss, torch.Tensor) and loss.grad_fn is not None,
        cuts=list(dict.fromkeys(recorder.cuts)),
        rewrapped=recorder.rewrapped(loss),
    )
    named = list(model.named_parameters())
    result.frozen = [n for n, p in named if not p.requires_grad]
    if optimizer is not None:
        held = {id(p) for group in optimizer.param_groups for p in group["params"]}
        result.not_optimized = [n for n, p in named if p.requires_grad and id(p) not in held]
    if not result.loss_has_graph:
        result.unreachable = [n for n, p in named if p.requires_grad]
        return result
    model.zero_grad(set_to_none=True)
    try:
        loss.backward()
    except RuntimeError as exc:
        result.backward_error = str(exc).splitlines()[0]
        return result
    owners = _owners(model)
    for n, p in named:
        if not p.requires_grad:
            continue
        if p.grad is None:
            result.unreachable.append(n)
            owner = owners.get(n)
            if owner is not None and modes.get(owner) == {False}:
                result.under_no_grad[n] = owner
        elif not bool(p.grad.any()):
            result.zero.append(n)
        else:
            result.reached.append(n)
    return result
