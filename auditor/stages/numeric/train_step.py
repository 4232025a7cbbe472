"""train_step: the training step on one tiny batch (zero_grad, parameters that move, the learning rate,
overfitting the batch, the loss at initialisation)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from auditor.core.config import AuditConfig
from auditor.core.findings import Finding, Severity, Table
from auditor.core.scope import scope_of
from auditor.pipeline.stage import AuditContext, StageOptions
from auditor.stages.numeric.base import NumericStage

if TYPE_CHECKING:
    from auditor.numeric.program import Program
    from auditor.numeric.step import Accumulation, InitialLoss, Movement, Overfit


class TrainStepOptions(StageOptions):
    overfit_steps: int = Field(default=200, ge=2, le=10_000, description="steps at most on the one batch")
    overfit_seconds: float = Field(
        default=4.0, gt=0, le=600, allow_inf_nan=False, description="CPU seconds at most for those steps"
    )
    overfit_ratio: float = Field(
        default=0.5,
        gt=0,
        lt=1,
        description="the loss must fall to this share of its first value (0.5: cut by half)",
    )


class TrainStep(NumericStage):
    name = "train_step"
    summary = (
        "the training step: gradients that accumulate (zero_grad), parameters that do not move, lr 0, "
        "a tiny batch that cannot be overfit, the loss at initialisation against log C"
    )
    needs = ("numeric", "numeric.optimizer", "numeric.step (optional)", "numeric.accumulate (optional)")
    Options = TrainStepOptions
    codes: ClassVar[dict[str, str]] = {
        "STP000": "what the step probes measured",
        "STP001": "gradients accumulate across steps: zero_grad is missing",
        "STP002": "trainable parameters that get a gradient do not move in a step",
        "STP003": "the learning rate is zero",
        "STP004": "one tiny batch is not overfit: the loss is not cut by the stated factor",
        "STP005": "the loss at initialisation is far from its expected value (log C)",
        "STP006": "the step runs the forward pass in eval mode: model.train() is missing",
    }

    def missing_input(self, config: AuditConfig) -> str | None:
        if config.numeric is None:
            return "no `numeric` section in the config"
        if config.numeric.optimizer is None:
            return "no `numeric.optimizer`: a training step needs the optimizer the model is trained with"
        return None

    def probe(self, program: Program, context: AuditContext) -> Iterator[Finding]:
        from auditor.numeric.step import one_thread

        with one_thread():
            found = list(self._probe(program))
        yield from found

    def _probe(self, program: Program) -> Iterator[Finding]:
        from auditor.numeric.step import Stepper, accumulation, batch_shapes, initial_loss, movement, overfit

        options = self.options
        assert isinstance(options, TrainStepOptions)
        stepper = Stepper(program)
        shapes = batch_shapes(program)
        allowed = program.code.spec.accumulate or 1
        rows: list[tuple[str, str]] = [("step", str(stepper.name))]
        acc = accumulation(program, stepper, allowed)
        if acc is not None:
            rows.append(("gradient per step (x the first)", ", ".join(f"{m:.4g}" for m in acc.multiples)))
            yield from self._accumulation(acc, stepper.name, shapes)
        moves = movement(program, stepper, allowed)
        rows.append(("learning rates", ", ".join(f"{lr:g}" for lr in moves.lrs)))
        rows.append(("parameter tensors moved in a step", str(moves.moved)))
        yield from self._movement(moves, stepper.name, program)
        if moves.zero_lr:
            rows.append(("overfit one batch", "not probed: the learning rate is 0"))
        else:
            fit = overfit(
                program, stepper, options.overfit_steps, options.overfit_seconds, options.overfit_ratio, allowed
            )
            if fit is None:
                rows.append(("overfit one batch", "not probed: the first loss is not finite (nonfinite_trace)"))
            else:
                rows.append(("overfit one batch", f"{fit.initial:.6g} -> {fit.final:.6g} in {fit.steps} step(s)"))
                yield from self._overfit(fit, stepper.name, shapes)
        init = initial_loss(program)
        if init is None:
            rows.append(("loss at initialisation", "not probed: the targets are not class indices for the outputs"))
        else:
            over = init.sum_over
            summed = (
                ""
                if over is None
                else f", a sum over {init.counted} targets"
                if over == init.counted
                else f", a sum over each sample's {over:g} targets"
            )
            rows.append(("loss at initialisation", f"{init.measured:.6g} (log C = {init.expected:.6g}{summed})"))
            yield from self._initial(init, program)
        yield self.finding(
            "STP000",
            Severity.INFO,
            f"{stepper.name} was run on the batch: " + "; ".join(f"{k}: {v}" for k, v in rows[1:]) + ".",
            tables=(Table(title="training step", columns=("probe", "result"), rows=tuple(rows)),),
        )

    def _accumulation(self, acc: Accumulation, step: str | None, shapes: dict[str, Any]) -> Iterator[Finding]:
        if acc.accumulates:
            calls = len(acc.multiples)
            allowed = f" (numeric.accumulate allows {acc.allowed})" if acc.allowed > 1 else ""
            yield self.finding(
                "STP001",
                Severity.ERROR,
                f"{step}, run {calls} times on one batch with the optimizer's update held back, leaves a gradient "
                f"{max(acc.multiples):.4g} times the first{allowed}: the gradients of earlier steps are added to "
                f"the new one by backward(){_at(acc.backward_at)}, so every update uses the sum of all past "
                "gradients.",
                key="accumulation",
                evidence={
                    "steps": calls,
                    "multiples": [round(m, 4) for m in acc.multiples],
                    "accumulate": acc.allowed,
                },
                examples=(
                    {
                        "batch": shapes,
                        "gradient_norms": [float(f"{n:.6g}") for n in acc.norms],
                        "gradient_multiples": [round(m, 4) for m in acc.multiples],
                        "at": acc.backward_at,
                    },
                ),
                remediation="Call optimizer.zero_grad() (or model.zero_grad()) before each backward(); if the "
                "accumulation is deliberate, say over how many steps with `numeric.accumulate: N`.",
            )
        if acc.eval_forward and acc.mode_dependent:
            shown = ", ".join(acc.mode_dependent[:5])
            yield self.finding(
                "STP006",
                Severity.WARNING,
                f"{step} was handed a model in eval mode, as after an evaluation, and ran its forward pass without "
                f"switching back to train mode: {shown} then train with dropout off and batch-norm statistics "
                "frozen.",
                key="train mode",
                evidence={"modules": list(acc.mode_dependent)},
                remediation="Call model.train() at the start of the step (or of each epoch, after every evaluation).",
            )

    def _movement(self, moves: Movement, step: str | None, program: Program) -> Iterator[Finding]:
        if moves.zero_lr and not moves.warmup:
            yield self.finding(
                "STP003",
                Severity.ERROR,
                f"the optimizer from {program.code.spec.optimizer} has learning rate 0 in every parameter group "
                f"({', '.join(f'{lr:g}' for lr in moves.lrs)}): no step changes any parameter.",
                key="learning rate",
                evidence={"learning_rates": list(moves.lrs)},
                remediation="Give the optimizer a positive learning rate (lr=...).",
            )
            return
        if moves.stuck:
            names = [s.name for s in moves.stuck]
            how = "" if moves.stepped else " The step never called optimizer.step()."
            if moves.stepped and all(s.cleared for s in moves.stuck):
                how = (
                    " backward() gave them a gradient that was cleared before optimizer.step() ran: zero_grad() "
                    "is called between backward() and step(), so no step applies anything."
                )
            yield self.finding(
                "STP002",
                Severity.ERROR,
                f"{len(names)} trainable parameter tensor(s) got a non-zero gradient and are unchanged after "
                f"{step}: {', '.join(names[:5])}{' and more' if len(names) > 5 else ''}.{how}",
                key="unmoved",
                evidence={"parameters": names},
                scope=scope_of(names, {"parameters": len(names)}),
                examples=tuple(
                    {
                        "parameter": s.name,
                        "shape": list(s.shape),
                        "max_abs_grad": float(f"{s.grad_max:.4g}"),
                        "lr": s.lr,
                    }
                    for s in moves.stuck[:3]
                ),
                remediation="Call optimizer.step() after backward() in every step (zero_grad() before backward() or "
                "after step(), never between them), and build the optimizer from the parameters the step trains.",
            )

    def _overfit(self, fit: Overfit, step: str | None, shapes: dict[str, Any]) -> Iterator[Finding]:
        if fit.reached:
            return
        import math

        if not math.isfinite(fit.final):
            what = f"the loss became {fit.final} after {fit.steps} step(s) (it was {fit.initial:.6g})"
        else:
            what = (
                f"the loss went from {fit.initial:.6g} to {fit.final:.6g} (best {fit.best:.6g}) in {fit.steps} step(s)"
            )
        timed = fit.timed_out
        yield self.finding(
            "STP004",
            Severity.WARNING if timed else Severity.ERROR,
            f"training on the one batch with {step}: {what}, short of {fit.ratio:g} of the first loss"
            + (
                f"; the {fit.seconds:.1f} s CPU budget ended before the {fit.budget_steps} steps"
                if timed
                else ". A loop that cannot memorise one tiny batch is broken: the loss, the "
                "step, the learning rate or the model."
            ),
            key="overfit",
            evidence={
                "steps": fit.steps,
                "initial_loss": _round(fit.initial),
                "final_loss": _round(fit.final),
                "best_loss": _round(fit.best),
                "ratio": fit.ratio,
                "timed_out": timed,
            },
            examples=({"batch": shapes, "losses": [_round(fit.initial), _round(fit.final)], "steps": fit.steps},),
            remediation="Check that the loss decreases at all (the learning rate, zero_grad, an activation before "
            "the loss); raise stages.train_step.overfit_steps or overfit_seconds if the model is only slow.",
        )

    def _initial(self, init: InitialLoss, program: Program) -> Iterator[Finding]:
        if not init.far_off:
            return
        negative = init.measured < 0
        why = (
            "a cross-entropy of probabilities is never negative: the loss is given probabilities where it "
            "expects log-probabilities, or the wrong sign"
            if negative
            else f"{init.measured / max(init.expected, init.reference):.3g} times what it should be: a wrong scale "
            "(a sum over another axis, a factor), a wrong target form, or a loss that is not a cross-entropy"
        )
        yield self.finding(
            "STP005",
            Severity.WARNING,
            f"the loss of the freshly initialised model from {program.code.spec.loss} is {init.measured:.6g}; a "
            f"{init.classes}-class cross-entropy there is about log {init.classes} = {init.expected:.4g} "
            f"({init.reference:.4g} for these outputs against random labels): {why}.",
            key="initial loss",
            evidence={
                "loss": _round(init.measured),
                "expected": _round(init.expected),
                "reference": _round(init.reference),
                "classes": init.classes,
            },
            examples=(
                {
                    "outputs": list(init.output_shape),
                    "targets": list(init.target_shape),
                    "loss": _round(init.measured),
                    "log_C": _round(init.expected),
                },
            ),
            remediation="Average the cross-entropy over the targets (reduction='mean'), give it raw logits and "
            "class-index targets, or log-probabilities for nll_loss.",
        )


def _at(site: str | None) -> str:
    return f" at {site}" if site else ""


def _round(value: float) -> Any:
    import math

    return round(value, 6) if math.isfinite(value) else str(value)
