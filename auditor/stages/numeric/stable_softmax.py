"""stable_softmax: a softmax or softmax-based loss that is not shift-invariant (logits + 1000 give NaN)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar

from auditor.core.findings import Finding, Severity, Table
from auditor.pipeline.stage import AuditContext
from auditor.stages.numeric.base import NumericStage

if TYPE_CHECKING:
    from auditor.numeric.program import Program
    from auditor.numeric.shift import ShiftResult


class StableSoftmax(NumericStage):
    name = "stable_softmax"
    summary = "softmax / cross-entropy that is not shift-invariant (logits + 1000 give NaN)"
    needs = ("numeric", "numeric.softmax (optional)")
    codes: ClassVar[dict[str, str]] = {
        "SMX000": "what was probed",
        "SMX001": "the softmax overflows or changes when a constant is added to the logits",
        "SMX002": "the loss overflows or changes when a constant is added to the class logits",
        "SMX003": "the softmax overflows in float16",
        "SMX004": "the softmax's probabilities do not sum to 1",
    }

    def probe(self, program: Program, context: AuditContext) -> Iterator[Finding]:
        import torch

        from auditor.numeric.program import main_tensor
        from auditor.numeric.shift import (
            HALF_SHIFT,
            normalized,
            probe_loss,
            probe_softmax,
            rounding_bound,
            target_form,
        )

        inputs, targets = program.batch()
        model = program.model().eval()
        with torch.no_grad():
            outputs = program.forward(model, inputs)
        out = main_tensor(outputs)
        results: list[tuple[str, ShiftResult]] = []
        notes: list[str] = []
        if program.code.has("softmax"):
            logits = None
            if out is not None and out.is_floating_point() and out.dim() and out.shape[-1] > 1:
                # The model's own dtype (float64, bfloat16), but float16 has its own probe below.
                logits = out.detach() if out.dtype in (torch.float32, torch.float64, torch.bfloat16) else out.float()
            if logits is None:
                logits = torch.randn(4, 5, generator=torch.Generator().manual_seed(0))

            def softmax(x: Any, dim: int) -> Any:
                return program.code.call("softmax", x, dim)

            name = f"numeric.softmax ({program.code.spec.softmax})"
            wide = probe_softmax(softmax, logits, name=name)
            half = probe_softmax(softmax, logits.half(), HALF_SHIFT, name=name)
            results += [("softmax", wide), ("softmax", half)]
            if not wide.stable:
                yield self.finding(
                    "SMX001",
                    Severity.ERROR,
                    f"{program.code.spec.softmax} gives {_outcome(wide)} when {wide.shift:g} is added to every logit; "
                    "softmax(x + c) must equal softmax(x). exp() of a large logit overflows to inf and inf/inf is "
                    "NaN.",
                    key="softmax",
                    evidence=_evidence(wide),
                    remediation="Subtract the row maximum before exp (x - x.max(dim, keepdim=True).values), or use "
                    "torch.softmax / log_softmax.",
                )
            elif not half.stable and half.error is None:
                yield self.finding(
                    "SMX003",
                    Severity.WARNING,
                    f"{program.code.spec.softmax} gives {_outcome(half)} in float16 with logits + {half.shift:g} "
                    "(exp overflows float16 above about 11): mixed-precision training will produce NaN.",
                    key="softmax float16",
                    evidence=_evidence(half),
                    remediation="Subtract the row maximum before exp, or compute the softmax in float32.",
                )
            if wide.finite_before and abs(wide.row_sum - 1.0) > max(1e-4, rounding_bound(logits.dtype, 0.0, 8)):
                yield self.finding(
                    "SMX004",
                    Severity.ERROR,
                    f"{program.code.spec.softmax}(logits, -1) sums to {wide.row_sum:.6f} along the last axis, not 1: "
                    "it normalizes over the wrong axis or the wrong values.",
                    key="softmax sum",
                    evidence={"row_sum": round(wide.row_sum, 6)},
                    remediation="Normalize over the class axis (dim=-1) with exp(x - max) / sum.",
                )
        form = target_form(outputs, targets)
        kind = normalized(outputs) if form is not None else None
        if form is not None and kind is None:

            def loss(o: Any, t: Any) -> Any:
                return program.loss(o, t)

            # Shifted logits and confident ones (x 1000): a stable cross-entropy stays finite for both.
            probes = [
                probe_loss(loss, outputs.float(), targets),
                probe_loss(loss, outputs.float(), targets, 0.0, 1000.0),
            ]
            for probe in probes:
                if probe is None:
                    continue
                results.append(("loss", probe))
                if probe.finite_before and not probe.finite_after:
                    what = f"+ {probe.shift:g}" if probe.scale == 1.0 else f"x {probe.scale:g} (confident predictions)"
                    yield self.finding(
                        "SMX002",
                        Severity.ERROR,
                        f"{program.code.spec.loss} gives NaN or inf for the class logits {what} ({form} targets, "
                        f"shape {list(targets.shape)}); a cross-entropy "
                        "computed as log(softmax(x)) or from exp(x) overflows or takes log(0), where "
                        "log_softmax and F.cross_entropy stay finite.",
                        key="loss",
                        evidence={**_evidence(probe), "targets": form, "logits_shape": list(outputs.shape)},
                        remediation="Use F.cross_entropy on raw logits (it takes class indices and, for one-hot or "
                        "soft labels, probabilities), or -(y * log_softmax(x)).sum(-1), instead of log(softmax(x)) "
                        "or exp(x) / sum.",
                    )
                    break
        elif kind is not None:
            notes.append(f"the model outputs {kind}, so the loss is not probed with shifted logits")
        if not results:
            reason = "; ".join(notes) or (
                "no `numeric.softmax` is configured and the targets are neither class indices nor one-hot or soft "
                "labels over the outputs' classes"
            )
            yield self.finding("SMX000", Severity.INFO, f"{reason}: nothing to probe.")
            return
        yield self.finding(
            "SMX000",
            Severity.INFO,
            f"{len(results)} shift probe(s) run"
            + (f" ({form} targets)" if form is not None and kind is None else "")
            + "".join(f"; {n}" for n in notes)
            + ".",
            tables=(
                Table(
                    title="shift probes",
                    columns=("probe", "dtype", "change to the input", "finite before", "finite after", "max change"),
                    rows=tuple(
                        (what, r.dtype, _change(r), r.finite_before, r.finite_after, _number(r.max_change))
                        for what, r in results
                    ),
                ),
            ),
        )


def _change(r: ShiftResult) -> str:
    return f"+ {r.shift:g}" if r.scale == 1.0 else f"x {r.scale:g}"


def _outcome(r: ShiftResult) -> str:
    if r.error is not None:
        return f"an error ({r.error})"
    if not r.finite_after:
        return "NaN or inf" + ("" if r.finite_before else " even before the shift")
    if not r.finite_before:
        return "NaN or inf before the shift"
    return f"values that change by up to {r.max_change:.3g}"


def _evidence(r: ShiftResult) -> dict[str, Any]:
    return {
        "dtype": r.dtype,
        "shift": r.shift,
        "finite_before": r.finite_before,
        "finite_after": r.finite_after,
        "max_change": _number(r.max_change),
    }


def _number(value: float) -> float | str:
    return "inf" if value == float("inf") else round(value, 6)
