"""batch_independence: in eval mode no sample's output depends on another sample's input."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar

from auditor.core.errors import StageNotApplicable
from auditor.core.findings import Finding, Severity
from auditor.pipeline.stage import AuditContext
from auditor.stages.numeric.base import NumericStage

if TYPE_CHECKING:
    from auditor.numeric.mixing import Mixing
    from auditor.numeric.program import Program

_RESHAPES = {"view", "reshape", "view_as", "reshape_as", "flatten", "unflatten", "unsqueeze", "expand"}


class BatchIndependence(NumericStage):
    name = "batch_independence"
    summary = "a sample's eval-mode outputs depend on other samples (a view across the batch, a mean over dim 0)"
    codes: ClassVar[dict[str, str]] = {
        "BIX000": "what was probed: samples changed one at a time, ops traced",
        "BIX001": "in eval mode a sample's outputs depend on another sample's inputs",
        "BIX002": "BatchNorm mixes the batch in training mode (expected; eval mode is checked)",
    }

    def probe(self, program: Program, context: AuditContext) -> Iterator[Finding]:
        from auditor.numeric.mixing import MAX_SAMPLES, batch_size, independence
        from auditor.numeric.program import first_rows

        inputs, _ = program.batch()
        n = batch_size(inputs)
        if n is None or n < 2:
            raise StageNotApplicable(
                f"the batch holds {n or 'no'} sample(s) along its first axis; independence needs two or more"
            )
        if n > MAX_SAMPLES:
            inputs, n = first_rows(inputs, MAX_SAMPLES), MAX_SAMPLES
        model = program.model().eval()
        found = independence(program, model, inputs, n)
        if found is None:
            raise StageNotApplicable(
                f"the model's outputs have no axis of the batch's size {n}, so no output belongs to one sample"
            )
        dep = found.dependence
        yield self.finding(
            "BIX000",
            Severity.INFO,
            f"each of {n} samples changed in turn in eval mode, {found.ops} ops traced; the outputs "
            f"{list(found.output_shape)} (batch axis {found.batch_axis}) "
            + ("depend on other samples." if dep is not None else "of each sample depend on its own inputs only."),
            evidence={"samples": n, "ops": found.ops, "output_shape": list(found.output_shape)},
        )
        if dep is not None:
            first = found.first
            gradient = f", gradient {dep.gradient:.3g}" if dep.gradient is not None else ""
            where = f" {_where(first)}" if first is not None else ""
            evidence: dict[str, Any] = {
                "changed_sample": dep.changed,
                "moved_sample": dep.moved,
                "output_index": list(dep.index),
                "before": _number(dep.before),
                "after": _number(dep.after),
                "gradient": None if dep.gradient is None else _number(dep.gradient),
                "output_shape": list(found.output_shape),
                "forward_only": found.forward_only,
            }
            examples: tuple[dict[str, Any], ...] = ()
            if first is not None:
                evidence.update(
                    op=first.op.name,
                    at=first.op.site,
                    module=first.op.module,
                    kind=first.kind,
                    input_shapes=[list(s) for s in first.op.inputs],
                    op_output_shape=list(first.op.shape),
                )
                examples = (
                    {
                        "op": first.op.name,
                        "at": first.op.site,
                        "input_shapes": [list(s) for s in first.op.inputs],
                        "output_shape": list(first.op.shape),
                        "samples": list(first.samples),
                        "index": list(first.index),
                    },
                )
            # Only earlier samples reaching later ones is what a recurrent model over a time-first batch does.
            time_first = (
                " Every dependence runs from an earlier to a later index of the first axis: if that axis is time "
                "(a sequence-first batch for an RNN), this is expected and the batch axis is another one."
                if found.forward_only
                else ""
            )
            yield self.finding(
                "BIX001",
                Severity.WARNING if found.forward_only else Severity.ERROR,
                f"in eval mode, changing only sample {dep.changed}'s inputs changes sample {dep.moved}'s output at "
                f"{list(dep.index)} from {dep.before:.6g} to {dep.after:.6g}{gradient}: the samples of a batch are "
                f"not independent, so a prediction depends on what else is in its batch.{where}{time_first}",
                key=f"{first.op.name} {first.op.site}" if first is not None else "outputs",
                evidence=evidence,
                examples=examples,
                remediation=_remedy(first),
            )
        norms = sorted(name or type(m).__name__ for name, m in model.named_modules() if "BatchNorm" in type(m).__name__)
        if norms:
            yield self.finding(
                "BIX002",
                Severity.INFO,
                f"{', '.join(norms[:5])} normalize with the batch's statistics in training mode, so there the "
                "samples depend on each other: expected of BatchNorm, and why eval mode is what is checked.",
                key="batchnorm",
                evidence={"modules": norms},
            )


def _where(first: Mixing) -> str:
    op = first.op
    shapes = ", ".join(str(list(s)) for s in op.inputs)
    at = f"at {op.site}" if op.site else "(line unknown)"
    inside = f" in module {op.module}" if op.module else ""
    if first.kind == "scrambles":
        how = (
            f"its output interleaves samples {first.samples[0]} and {first.samples[1]} along every axis, so what "
            "follows treats parts of different samples as one"
        )
    else:
        how = f"its output at {list(first.index)} depends on samples {first.samples[0]} and {first.samples[1]} together"
    return f"The first op that ties samples together is `{op.name}` {at}{inside} ({shapes} -> {list(op.shape)}): {how}."


def _remedy(first: Mixing | None) -> str:
    if first is not None and first.op.name in _RESHAPES:
        return (
            "Reorder axes with permute/transpose (e.g. x.permute(1, 0, 2) for (N, T, D) -> (T, N, D)); view and "
            "reshape keep the memory order, so they cut across the batch axis instead of swapping it."
        )
    if first is not None and "norm" in first.op.name:
        return "Normalize with running statistics in eval mode (call model.eval(); do not pass training=True)."
    return "Reduce, normalize or softmax over a sample's own axes (dim=1 or -1), never over the batch axis (dim 0)."


def _number(value: float) -> float | str:
    return value if value == value and abs(value) != float("inf") else str(value)
