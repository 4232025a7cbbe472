"""broadcast: elementwise ops in the loss that silently broadcast, e.g. (N,1) - (N,) -> (N,N)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, ClassVar

from auditor.core.findings import Finding, Severity
from auditor.pipeline.stage import AuditContext
from auditor.stages.numeric.base import NumericStage

if TYPE_CHECKING:
    from auditor.numeric.program import Program


class Broadcast(NumericStage):
    name = "broadcast"
    summary = (
        "elementwise ops in the loss that broadcast (N,1) against (N,) into (N,N); batch size 1; exact predictions"
    )
    codes: ClassVar[dict[str, str]] = {
        "BRD001": "an elementwise op in the loss broadcasts to more elements than either operand",
        "BRD002": "a batch of one sample loses its batch axis or breaks the loss",
        "BRD003": "predictions equal to the targets give a different loss in the model's output shape",
    }

    def probe(self, program: Program, context: AuditContext) -> Iterator[Finding]:
        import torch

        from auditor.numeric.broadcast import perfect_predictions, single_sample, targets_index_the_batch, trace_loss

        inputs, targets = program.batch()
        model = program.model().eval()  # eval: dropout off, batch norm works on one sample
        with torch.no_grad():
            outputs = program.forward(model, inputs)
            _, expansions = trace_loss(program, outputs, targets)
        for e in expansions:
            yield self.finding(
                "BRD001",
                Severity.ERROR,
                f"`{e.op}` in the loss combines {e.left} and {e.right} into {e.result}"
                f"{f' at {e.site}' if e.site else ''}: the lower-rank operand is extended by a leading axis, so "
                "every element of one is paired with every element of the other and the loss averages the wrong "
                "pairs without any error.",
                key=e.site or e.op,
                evidence={"op": e.op, "left": list(e.left), "right": list(e.right), "result": list(e.result)},
                examples=({"op": e.op, "shapes": f"{e.left} with {e.right} -> {e.result}", "at": e.site},),
                remediation="Give both operands the same shape first (e.g. prediction.squeeze(-1) or "
                "target.unsqueeze(-1)); which axis holds the samples decides which.",
            )
        with torch.no_grad():
            one = single_sample(program, model, inputs, targets)
        if one is not None:
            expected = (1, *one.outputs_full[1:]) if one.outputs_full else None
            problems = []
            # Targets that are positions in the batch (InfoNCE) cut to one sample point outside it: the cut,
            # not the loss, broke them, so only the model's side of the one-sample batch is judged.
            in_batch = one.error_in_loss and targets_index_the_batch(program, outputs, targets)
            if one.error is not None and not in_batch:
                problems.append(f"the model or the loss raised on one sample: {one.error}")
            elif expected is not None and one.outputs_one != expected:
                problems.append(f"the outputs are {one.outputs_one} instead of {expected}")
            for name, before, after, site in one.squeezes:
                problems.append(f"`{name}()` at {site or '?'} turned {before} into {after}")
            if problems:
                yield self.finding(
                    "BRD002",
                    Severity.ERROR,
                    "with a batch of one sample " + "; ".join(problems) + ". The last batch of an epoch, or "
                    "inference on one item, then computes a different loss or fails.",
                    key="batch size 1",
                    evidence={
                        "outputs_full_batch": list(one.outputs_full or ()),
                        "outputs_one_sample": list(one.outputs_one) if one.outputs_one is not None else None,
                        "squeezes": [
                            {"op": n, "before": list(b), "after": list(a), "at": s} for n, b, a, s in one.squeezes
                        ],
                    },
                    remediation="Squeeze a named axis (squeeze(-1)) instead of every axis of size 1.",
                )
        sensitivity = perfect_predictions(program, outputs, targets)
        if sensitivity is not None and abs(sensitivity.as_outputs - sensitivity.as_targets) > 1e-6 * (
            1 + abs(sensitivity.as_targets)
        ):
            s = sensitivity
            yield self.finding(
                "BRD003",
                Severity.ERROR,
                f"with predictions equal to the targets the loss is {s.as_outputs:.6f} when they have the model's "
                f"output shape {s.output_shape}, but {s.as_targets:.6f} with the targets' shape {s.target_shape}: "
                "the loss depends on the prediction's shape, not only its values.",
                key="exact predictions",
                evidence={
                    "output_shape": list(s.output_shape),
                    "target_shape": list(s.target_shape),
                    "loss_in_output_shape": round(s.as_outputs, 6),
                    "loss_in_target_shape": round(s.as_targets, 6),
                },
                remediation="Reshape the predictions to the targets' shape inside the loss before comparing.",
            )
