"""The training step on one tiny batch: gradients that pile up across steps, parameters that do not move, a
learning rate of zero, a batch that cannot be overfit, and the loss at initialisation against its form's value.

The step is the user's own (`numeric.step`, called as step(model, optimizer, batch)) or the canonical one:
zero_grad, forward, loss, backward, optimizer.step.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import torch

from auditor.core.errors import StageNotApplicable
from auditor.numeric.program import Program, main_tensor, shape, summed, tree_map
from auditor.numeric.tracing import CallRecorder
from auditor.numeric.usercode import UserCodeError

# Modules whose behaviour differs between train() and eval(): a step that runs them in eval mode trains wrongly.
_MODE_DEPENDENT = (torch.nn.modules.dropout._DropoutNd, torch.nn.modules.batchnorm._BatchNorm)
_SAME = 1e-4  # relative difference under which two gradients of one batch are the same


class Stepper:
    """One training step as the program takes it; seeded before each call, so dropout draws the same masks."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.custom = program.code.has("step")
        self.name = program.code.spec.step if self.custom else "the canonical step"

    def __call__(self, model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> float:
        """Run one step on a fresh copy of the batch (a step may change it in place); the loss it returned."""
        batch = tree_map(torch.Tensor.clone, self.program.batch())
        torch.manual_seed(self.program.seed)
        with torch.enable_grad():
            if self.custom:
                returned = self.program.code.call("step", model, optimizer, batch)
            else:
                returned = self._canonical(model, optimizer, batch)
        return self._value(returned)

    def _canonical(self, model: torch.nn.Module, optimizer: torch.optim.Optimizer, batch: Any) -> Any:
        model.train()
        optimizer.zero_grad(set_to_none=True)
        inputs, targets = batch
        loss = summed(self.program.loss(self.program.forward(model, inputs), targets))
        if not isinstance(loss, torch.Tensor) or loss.grad_fn is None:
            raise StageNotApplicable("the loss has no graph (detached_graph reports it), so no step can train")
        loss.backward()
        optimizer.step()
        return loss

    def _value(self, returned: Any) -> float:
        if isinstance(returned, tuple | list) and returned:
            returned = returned[0]
        if isinstance(returned, dict) and "loss" in returned:
            returned = returned["loss"]
        if isinstance(returned, torch.Tensor) and returned.numel() >= 1:
            return float(returned.detach().float().sum())
        if isinstance(returned, int | float) and not isinstance(returned, bool):
            return float(returned)
        raise UserCodeError(
            f"{self.name} (numeric.step) returned a {type(returned).__name__}; expected the step's loss (a tensor or "
            "a number)"
        )


@contextmanager
def one_thread() -> Iterator[None]:
    """torch on one thread while the block runs: on a tiny batch, threads only wait for each other, and on a busy
    machine their spinning made 200 steps take seconds instead of a fraction of one."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def batch_shapes(program: Program) -> dict[str, list[int]]:
    """The shape of every tensor of the batch, for a finding's example ('inputs', "targets['mask']")."""
    from auditor.numeric.program import tensors

    inputs, targets = program.batch()
    found = [(f"inputs{w}", t) for w, t in tensors(inputs)] + [(f"targets{w}", t) for w, t in tensors(targets)]
    return {where: list(shape(t)) for where, t in found}


def trainable(model: torch.nn.Module) -> list[tuple[str, torch.nn.Parameter]]:
    """The parameters a step may change; StageNotApplicable when there are none."""
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    if not named:
        raise StageNotApplicable("the model has no trainable parameters, so there is no step to check")
    return named


def _grads(named: list[tuple[str, torch.nn.Parameter]]) -> dict[str, torch.Tensor]:
    return {n: p.grad.detach().clone() for n, p in named if p.grad is not None}


@contextmanager
def watched(
    optimizer: torch.optim.Optimizer,
    named: list[tuple[str, torch.nn.Parameter]],
    *,
    apply: bool,
    before: Callable[[], None] | None = None,
) -> Iterator[list[dict[str, torch.Tensor]]]:
    """Each call of optimizer.step() records the gradients it would apply; with apply=False the update is held
    back. The gradient is taken at step() because a correct step may clear it right after (zero_grad last);
    ``before`` runs first at each step()."""
    taken: list[dict[str, torch.Tensor]] = []
    original = optimizer.step
    own = vars(optimizer).get("step")  # a scheduler wraps step() on the instance; it is put back afterwards

    def step(*args: Any, **kwargs: Any) -> Any:
        if before is not None:
            before()
        taken.append(_grads(named))
        return original(*args, **kwargs) if apply else None

    optimizer.step = step  # type: ignore[method-assign]  # the instance's attribute, restored afterwards
    try:
        yield taken
    finally:
        if own is None:
            del optimizer.step
        else:
            optimizer.step = own  # type: ignore[method-assign]


@dataclass(frozen=True)
class Accumulation:
    """Gradients of one batch over consecutive steps with the update held back, as multiples of the first."""

    multiples: tuple[float, ...]
    norms: tuple[float, ...]  # of each call's gradient
    residual: float  # how far the largest gradient is from that multiple of the first (relative)
    allowed: int  # numeric.accumulate, else 1
    stepped: bool  # whether the step called optimizer.step() at all
    eval_forward: bool  # the step ran the forward pass with the model still in eval mode
    mode_dependent: tuple[str, ...]  # the model's dropout and batch-norm modules
    backward_at: str | None  # the user's line that called backward()

    @property
    def accumulates(self) -> bool:
        """The gradient grows beyond what `numeric.accumulate` allows: zero_grad is missing."""
        return max(self.multiples) > self.allowed + 0.5 and self.residual < 0.05


def accumulation(program: Program, stepper: Stepper, allowed: int) -> Accumulation | None:
    """allowed + 1 steps on one batch, update held back; None when the step yields no gradient to compare.

    The model is handed over in eval mode (as after an evaluation): a step that does not call model.train()
    runs its forward pass in eval mode, which the forward hook sees.
    """
    model = program.model()
    optimizer = _optimizer(program, model)
    named = trainable(model)
    model.eval()
    modes: list[bool] = []
    handle = model.register_forward_pre_hook(lambda m, _i: modes.append(m.training))
    vectors: list[torch.Tensor] = []
    stepped = False
    sites: list[str | None] = []
    # The gradients as the last backward() left them. clip_grad_norm_ between backward() and step() rescales
    # .grad in place, so a summed gradient would reach step() no larger than the first, and carry over clipped.
    left: dict[str, torch.Tensor] = {}

    def seen(name: str, _args: Any, _kwargs: Any, _result: Any, site: str | None) -> None:
        if name == "backward":
            sites.append(site)
            left.clear()
            left.update(_grads(named))

    def unclip() -> None:
        # The update is held back anyway: step() sees, and the next call starts from, the unclipped gradient.
        # A gradient zeroed since backward() (zero_grad before step(), which the overfit probe finds) stays zero.
        with torch.no_grad():
            for n, p in named:
                g = p.grad
                if g is not None and n in left and g.shape == left[n].shape and bool(g.any()):
                    g.copy_(left[n])

    try:
        for _ in range(allowed + 1):
            left.clear()
            with (
                watched(optimizer, named, apply=False, before=unclip) as taken,
                CallRecorder(seen, program.code.paths),
            ):
                stepper(model, optimizer)
            stepped = stepped or bool(taken)
            grads = taken[-1] if taken else _grads(named)
            if not grads:
                return None
            vectors.append(torch.cat([grads[n].flatten().double() if n in grads else _zeros(p) for n, p in named]))
    finally:
        handle.remove()
    first = vectors[0]
    norm = float(first @ first)
    if norm == 0.0 or not math.isfinite(norm):
        return None
    multiples = tuple(float(v @ first) / norm for v in vectors)
    top = max(range(len(vectors)), key=lambda i: multiples[i])
    residual = float((vectors[top] - multiples[top] * first).norm() / max(float(vectors[top].norm()), 1e-30))
    dependent = tuple(n or type(m).__name__ for n, m in model.named_modules() if isinstance(m, _MODE_DEPENDENT))
    norms = tuple(float(v.norm()) for v in vectors)
    backward_at = sites[0] if sites else None
    return Accumulation(
        multiples, norms, residual, allowed, stepped, bool(modes) and not modes[0], dependent, backward_at
    )


def _zeros(p: torch.Tensor) -> torch.Tensor:
    return torch.zeros(p.numel(), dtype=torch.float64)


@dataclass(frozen=True)
class Stuck:
    """A parameter that got a gradient in a real step and did not change."""

    name: str
    shape: tuple[int, ...]
    grad_max: float
    lr: float
    cleared: bool = False  # backward() gave it a gradient that was gone when optimizer.step() ran


@dataclass(frozen=True)
class Movement:
    stuck: tuple[Stuck, ...]
    moved: int
    stepped: bool
    zero_lr: bool  # every group with trainable parameters has learning rate 0
    warmup: bool  # ... but a scheduler's initial_lr is not 0 (a warm-up starting at 0)
    lrs: tuple[float, ...]


def movement(program: Program, stepper: Stepper, calls: int) -> Movement:
    """``calls`` real steps on one batch (``numeric.accumulate`` of them when set): which parameters moved."""
    model = program.model()
    optimizer = _optimizer(program, model)
    named = trainable(model)
    before = {n: p.detach().clone() for n, p in named}
    groups = {id(p): g for g in optimizer.param_groups for p in g["params"]}
    lrs = tuple(_lr(g) for g in optimizer.param_groups if any(p.requires_grad for p in g["params"]))
    zero_lr = bool(lrs) and all(lr == 0.0 for lr in lrs)
    warmup = zero_lr and any(float(g.get("initial_lr", 0.0) or 0.0) > 0 for g in optimizer.param_groups)
    seen: dict[str, float] = {}
    # What backward() itself left in each gradient: a step that clears it before optimizer.step() (zero_grad()
    # between them) applies nothing, and its parameters got a gradient all the same.
    produced: dict[str, float] = {}

    def record(name: str) -> Callable[[torch.Tensor], None]:
        def hook(param: torch.Tensor) -> None:
            g = param.grad
            if g is not None and g.numel():
                produced[name] = max(produced.get(name, 0.0), float(g.detach().abs().max()))

        return hook

    hooks = [p.register_post_accumulate_grad_hook(record(n)) for n, p in named]
    stepped = False
    try:
        for _ in range(calls):
            with watched(optimizer, named, apply=True) as taken:
                stepper(model, optimizer)
            stepped = stepped or bool(taken)
            for grads in taken or [_grads(named)]:
                for n, g in grads.items():
                    seen[n] = max(seen.get(n, 0.0), float(g.abs().max()) if g.numel() else 0.0)
    finally:
        for handle in hooks:
            handle.remove()
    stuck, moved = [], 0
    for n, p in named:
        if not torch.equal(before[n], p.detach()):
            moved += 1
            continue
        group = groups.get(id(p))
        grad = seen.get(n, 0.0)
        cleared = stepped and grad == 0.0 and produced.get(n, 0.0) > 0.0
        if cleared:
            grad = produced[n]
        if group is None or grad == 0.0 or not math.isfinite(grad):
            continue  # not optimized (GRD004) or no gradient (GRD002, GRD003): reported by detached_graph
        lr = _lr(group)
        if lr == 0.0:
            continue  # a group frozen by its learning rate, or all of them (reported as such)
        # An update below the parameter's float resolution cannot show; it is not evidence of a fault.
        if lr * grad < float(torch.finfo(p.dtype).eps) * float(p.detach().abs().max()):
            continue
        stuck.append(Stuck(n, shape(p), grad, lr, cleared))
    return Movement(tuple(stuck), moved, stepped, zero_lr, warmup, lrs)


def _lr(group: dict[str, Any]) -> float:
    lr = group.get("lr", 0.0)
    return float(lr.item() if isinstance(lr, torch.Tensor) else lr)


@dataclass(frozen=True)
class Overfit:
    """Steps on one batch until the loss falls to ``ratio`` of its first value, or the budget ends."""

    steps: int
    seconds: float
    initial: float
    final: float
    best: float
    ratio: float
    budget_steps: int
    timed_out: bool

    @property
    def reached(self) -> bool:
        return math.isfinite(self.final) and self.final <= self.target

    @property
    def target(self) -> float:
        return self.initial * self.ratio if self.initial >= 0 else self.initial / self.ratio


def overfit(
    program: Program, stepper: Stepper, steps: int, seconds: float, ratio: float, per_update: int = 1
) -> Overfit | None:
    """Train on the one batch with the user's step; stop once the loss is cut to ``ratio`` of its first value.

    The budget is ``steps`` optimizer updates: a step that accumulates over ``per_update`` calls
    (numeric.accumulate) gets that many calls, and CPU seconds, for each. The seconds count this process's CPU
    time, so a machine busy with other work does not cut the run short. None when the first loss is not
    finite: nothing can be cut, and nonfinite_trace says where it comes from.
    """
    steps, seconds = steps * per_update, seconds * per_update
    model = program.model()
    optimizer = _optimizer(program, model)
    trainable(model)
    start = time.process_time()
    initial = stepper(model, optimizer)
    if not math.isfinite(initial):
        return None
    losses = [initial]
    done = 1
    while done < steps and time.process_time() - start < seconds:
        losses.append(stepper(model, optimizer))
        done += 1
        if not math.isfinite(losses[-1]) or losses[-1] <= _target(initial, ratio):
            break
    finite = [v for v in losses if math.isfinite(v)]
    elapsed = time.process_time() - start
    timed_out = done < steps and math.isfinite(losses[-1]) and losses[-1] > _target(initial, ratio)
    best = min(finite) if finite else float("nan")
    return Overfit(done, elapsed, initial, losses[-1], best, ratio, steps, timed_out)


def _target(initial: float, ratio: float) -> float:
    return initial * ratio if initial >= 0 else initial / ratio


@dataclass(frozen=True)
class InitialLoss:
    """The loss of the fresh model on the batch against what a C-class cross-entropy gives there."""

    classes: int
    counted: int  # targets that are class indices (ignored positions left out)
    measured: float
    expected: float  # log C
    reference: float  # the cross-entropy these very outputs give against uniformly random labels
    output_shape: tuple[int, ...]
    target_shape: tuple[int, ...]

    @property
    def summed(self) -> bool:
        """The loss is the per-target value summed, not averaged: a deliberate form, not a wrong scale."""
        return self.sum_over is not None

    @property
    def sum_over(self) -> float | None:
        """How many targets the loss adds up, when it is a sum: all of them (`reduction="sum"`), or each
        sample's, averaged over the samples (a sentence-level sum, `reduction="sum"` / N)."""
        samples = self.output_shape[0] if self.output_shape else 1
        sizes = [float(self.counted)]
        if samples > 1 and self.counted / samples > 1:
            sizes.append(self.counted / samples)
        for n in sizes:
            if self.counted > 1 and abs(self.measured - n * self.reference) <= 0.25 * n * self.reference:
                return n
        return None

    @property
    def far_off(self) -> bool:
        if self.measured < 0:
            return True  # no cross-entropy of probabilities is negative
        return self.measured > 3.0 * max(self.expected, self.reference) and not self.summed


def initial_loss(program: Program) -> InitialLoss | None:
    """The fresh model's loss for class-index targets; None when the outputs are not class scores for them."""
    from auditor.numeric.shift import class_logits, normalized

    model = program.model().train()
    inputs, targets = program.batch()
    torch.manual_seed(program.seed)
    with torch.no_grad():
        outputs = program.forward(model, inputs)
        out = main_tensor(outputs)
        if not isinstance(out, torch.Tensor) or not class_logits(out, targets):
            return None
        axis = _class_axis(out, targets)
        if axis is None:
            return None
        loss = summed(program.loss(outputs, targets))
        if not isinstance(loss, torch.Tensor) or loss.numel() != 1 or not bool(torch.isfinite(loss)):
            return None
        classes = int(out.shape[axis])
        scores = out.detach().double().movedim(axis, -1).reshape(-1, classes)
        labels = targets.reshape(-1)
        valid = (labels >= 0) & (labels < classes)
        if not bool(valid.any()):
            return None
        kind = normalized(out.movedim(axis, -1))
        if kind == "probabilities":
            logp = scores.clamp_min(1e-30).log()
        elif kind == "log-probabilities":
            logp = scores
        else:
            logp = torch.log_softmax(scores, -1)
        reference = float((-logp[valid].mean(-1)).mean())
    return InitialLoss(classes, int(valid.sum()), float(loss), math.log(classes), reference, shape(out), shape(targets))


def _class_axis(out: torch.Tensor, targets: torch.Tensor) -> int | None:
    """-1 for (N, C) or (N, T, C) scores against (N,) or (N, T) targets; 1 for (N, C, d...) against (N, d...)."""
    if tuple(out.shape[:-1]) == tuple(targets.shape):
        return -1
    if out.dim() >= 3 and (out.shape[0], *out.shape[2:]) == tuple(targets.shape):
        return 1
    return None


def _optimizer(program: Program, model: torch.nn.Module) -> torch.optim.Optimizer:
    optimizer = program.optimizer(model)
    if optimizer is None:  # the stage needs numeric.optimizer; this is only reached by a misconfigured plugin
        raise StageNotApplicable("no `numeric.optimizer` is configured, so no step can be taken")
    return optimizer
