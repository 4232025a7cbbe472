"""batch_inspect: shape, dtype, device and finiteness of the tiny batch, the model's outputs and the loss."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar

from auditor.core.findings import Finding, Severity, Table
from auditor.numeric.usercode import UserCodeError
from auditor.pipeline.stage import AuditContext
from auditor.stages.numeric.base import NumericStage

if TYPE_CHECKING:
    import torch

    from auditor.numeric.program import Program


class BatchInspect(NumericStage):
    needs_filled_batch = False
    name = "batch_inspect"
    summary = "shape, dtype, device and finiteness of a tiny batch's inputs, targets, outputs and loss"
    codes: ClassVar[dict[str, str]] = {
        "BAT000": "the batch, outputs and loss at a glance",
        "BAT001": "non-finite values in the batch",
        "BAT002": "non-finite outputs or loss from a finite batch",
        "BAT003": "tensors on different devices",
        "BAT004": "outputs and targets disagree on the batch size",
        "BAT005": "floating targets of another precision than the outputs",
        "BAT006": "the loss is not a scalar",
        "BAT007": "empty tensors in the batch",
        "BAT008": "the loss raises on the batch",
    }

    def _non_finite(self, where: str, t: torch.Tensor, masked: bool) -> Finding:
        import torch

        from auditor.numeric.program import shape

        count = int((~torch.isfinite(t)).sum())
        first = [int(i) for i in (~torch.isfinite(t)).nonzero()[0]]
        return self.finding(
            "BAT001",
            Severity.INFO if masked else Severity.ERROR,
            f"{where} holds {count} non-finite value(s) (NaN or inf), the first at index {tuple(first)}; "
            + (
                "the loss on the batch is finite, so they are masked out before it (missing values marked NaN)."
                if masked
                else "every loss computed from it is NaN."
            ),
            key=where,
            evidence={"tensor": where, "non_finite": count, "shape": list(shape(t)), "loss_finite": masked},
            examples=({"index": first, "value": str(t[tuple(first)].item())},),
            remediation="Clean or impute these values before batching, and assert torch.isfinite in the loader."
            if not masked
            else "Nothing to do if NaN marks values the loss leaves out.",
        )

    def probe(self, program: Program, context: AuditContext) -> Iterator[Finding]:
        import torch

        from auditor.numeric.program import describe, finite, main_tensor, shape, tensors

        inputs, targets = program.batch()
        model = program.model()
        rows: list[tuple[Any, ...]] = []
        parts = {"inputs": list(tensors(inputs)), "targets": list(tensors(targets))}
        for role, found in parts.items():
            for where, t in found:
                rows.append((f"{role}{where}", str(shape(t)), _dtype(t), str(t.device), finite(t)))
        params = list(model.parameters())
        devices = {str(p.device) for p in params} | {str(t.device) for found in parts.values() for _, t in found}
        if len(devices) > 1:
            yield self.finding(
                "BAT003",
                Severity.ERROR,
                f"the model's parameters and the batch are on different devices ({', '.join(sorted(devices))}); "
                "the forward pass fails or copies silently.",
                evidence={"devices": sorted(devices)},
                remediation="Move the batch to the model's device (batch.to(next(model.parameters()).device)).",
            )
            return
        empty = [f"{role}{w}" for role, found in parts.items() for w, t in found if t.numel() == 0]
        if empty:
            yield self.finding(
                "BAT007",
                Severity.ERROR,
                f"{', '.join(empty)} hold no values; a loss over an empty batch is NaN.",
                evidence={"empty": empty},
                remediation="Check the sampler and the collate function; drop empty batches before the loss.",
            )
            return
        bad_batch = [
            (f"{role}{w}", t)
            for role, found in parts.items()
            for w, t in found
            if t.is_floating_point() and not finite(t)
        ]
        with torch.no_grad():
            outputs = program.forward(model, inputs)
        out = main_tensor(outputs)
        for where, t in tensors(outputs):
            rows.append((f"outputs{where}", str(shape(t)), _dtype(t), str(t.device), finite(t)))
        raised = False
        try:
            loss = program.loss(outputs, targets)
        except UserCodeError as exc:
            # Reported as a finding, so the shapes and dtypes below still explain why.
            loss, raised = None, True
            yield self.finding(
                "BAT008",
                Severity.ERROR,
                f"the loss raised on the batch: {exc}",
                key="loss",
                evidence={"error": str(exc).splitlines()[0]},
                remediation="See the shapes and dtypes in BAT000 and the findings next to this one.",
            )
        if isinstance(loss, torch.Tensor):
            rows.append(("loss", str(shape(loss)), _dtype(loss), str(loss.device), finite(loss)))
        # NaN marking a missing value that the loss masks out (multi-task labels) leaves the loss finite.
        masked = isinstance(loss, torch.Tensor) and finite(loss)
        for where, t in bad_batch:
            yield self._non_finite(where, t, masked)
        table = Table(title="tensors", columns=("tensor", "shape", "dtype", "device", "finite"), rows=tuple(rows))
        yield self.finding(
            "BAT000",
            Severity.INFO,
            f"inputs, targets, outputs and loss of the batch from {program.code.spec.batch}.",
            tables=(table,),
        )
        target = main_tensor(targets)
        if out is not None and target is not None and out.dim() and target.dim() and out.shape[0] != target.shape[0]:
            yield self.finding(
                "BAT004",
                Severity.ERROR,
                f"the outputs have {out.shape[0]} rows but the targets {target.shape[0]} (outputs {describe(out)}, "
                f"targets {describe(target)}): the loss pairs the wrong samples or broadcasts.",
                evidence={"outputs": list(shape(out)), "targets": list(shape(target))},
                remediation="Make dim 0 the sample axis of both (check transposes and flatten/view calls).",
            )
        if (
            out is not None
            and target is not None
            and out.is_floating_point()
            and target.is_floating_point()
            and out.dtype != target.dtype
        ):
            yield self.finding(
                "BAT005",
                Severity.WARNING,
                f"the targets are {_dtype(target)} but the outputs {_dtype(out)}: the loss is computed in the wider "
                "type, or raises in some losses.",
                evidence={"outputs": _dtype(out), "targets": _dtype(target)},
                remediation=f"Cast the targets once in the loader: targets.to({_dtype(out)}).",
            )
        if raised:
            return
        if not isinstance(loss, torch.Tensor) or loss.dim() != 0:
            what = f"shape {shape(loss)}" if isinstance(loss, torch.Tensor) else f"a {type(loss).__name__}"
            yield self.finding(
                "BAT006",
                Severity.ERROR,
                f"{program.code.spec.loss} returned {what}, not a scalar tensor; backward() needs a scalar and a "
                "mean over the wrong axes hides it.",
                evidence={"loss": what},
                remediation="Reduce the loss to a scalar (mean over the samples) inside the loss function.",
            )
        elif not bad_batch and (not all(finite(t) for _, t in tensors(outputs)) or not finite(loss)):
            where = "outputs" if not all(finite(t) for _, t in tensors(outputs)) else "loss"
            yield self.finding(
                "BAT002",
                Severity.ERROR,
                f"the batch is finite but the {where} {'are' if where == 'outputs' else 'is'} not; the "
                "nonfinite_trace stage names the first op that produced it.",
                evidence={"non_finite": where},
                remediation="Run nonfinite_trace, then fix that op (a log of zero, a division, an overflow).",
            )


def _dtype(t: Any) -> str:
    return str(t.dtype).removeprefix("torch.")
