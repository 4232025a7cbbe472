"""nonfinite_trace: the first op or module whose inputs are finite and whose output is not, forward and backward."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar

from auditor.core.findings import Finding, Severity
from auditor.pipeline.stage import AuditContext
from auditor.stages.numeric.base import NumericStage

if TYPE_CHECKING:
    from auditor.numeric.nonfinite import Origin
    from auditor.numeric.program import Program


class NonfiniteTrace(NumericStage):
    name = "nonfinite_trace"
    summary = "the first op or module whose inputs are finite and whose output is not, forward and backward"
    codes: ClassVar[dict[str, str]] = {
        "NAN000": "forward and backward passes are finite",
        "NAN001": "the first op that turns finite values into NaN or inf in the forward pass",
        "NAN002": "the first op whose backward turns a finite gradient into NaN or inf",
        "NAN003": "the batch itself holds NaN or inf",
    }

    def probe(self, program: Program, context: AuditContext) -> Iterator[Finding]:
        from auditor.numeric.nonfinite import trace

        t = trace(program)
        # NaN marking missing values that the loss masks out leaves the loss and the gradients finite.
        masked = t.loss_finite and t.forward is None and t.backward is None
        if not t.batch_finite:
            yield self.finding(
                "NAN003",
                Severity.INFO if masked else Severity.ERROR,
                "the batch holds NaN or inf before any op runs; batch_inspect shows where. "
                + (
                    "The loss and the backward pass stay finite: the loss masks them out."
                    if masked
                    else "Every value computed from it is non-finite, so no op can be blamed."
                ),
                key="batch",
                remediation="Clean the data or impute before batching."
                if not masked
                else "Nothing to do if NaN marks values the loss leaves out.",
            )
        if t.forward is not None:
            o = t.forward
            yield self.finding(
                "NAN001",
                Severity.ERROR,
                f"`{o.op}` in {_where(o)} turns finite inputs {_shapes(o)} into {o.bad} non-finite value(s); every "
                "later NaN only propagates from here.",
                key=o.module,
                evidence=_evidence(o),
                examples=({"op": o.op, "module": o.module, "at": o.site},),
                remediation="Guard this op's domain (clamp before log/sqrt/div, subtract the max before exp) rather "
                "than replacing NaN afterwards, which hides the cause.",
            )
        if t.backward is not None:
            o = t.backward
            yield self.finding(
                "NAN002",
                Severity.ERROR,
                f"the forward pass is finite, but the gradient of `{o.op}` in {_where(o)} turns a finite incoming "
                f"gradient into {o.bad} non-finite value(s) (e.g. sqrt or a norm at 0, a division by a value near "
                "0); the first optimizer step will write NaN into the parameters.",
                key=o.module,
                evidence=_evidence(o),
                examples=({"op": o.op, "module": o.module, "at": o.site},),
                remediation="Keep the op away from the point where its derivative is infinite (e.g. sqrt(x + eps)).",
            )
        if t.batch_finite and t.forward is None and t.backward is None and t.loss_finite:
            yield self.finding(
                "NAN000",
                Severity.INFO,
                "the forward pass, the loss and the backward pass stay finite on the batch."
                if t.backward_ran
                else "the forward pass and the loss stay finite; the loss has no graph, so no backward ran.",
            )


def _where(o: Origin) -> str:
    module = "the loss" if o.module == "loss" else f"module `{o.module}`"
    return f"{module}{f' at {o.site}' if o.site else ''}"


def _shapes(o: Origin) -> str:
    return ", ".join(str(s) for s in o.inputs) or "(it creates the tensor)"


def _evidence(o: Origin) -> dict[str, Any]:
    return {
        "op": o.op,
        "module": o.module,
        "at": o.site,
        "input_shapes": [list(s) for s in o.inputs],
        "output_shape": list(o.output),
        "non_finite": o.bad,
    }
