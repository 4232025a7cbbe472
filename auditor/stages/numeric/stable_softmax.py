"""stable_softmax: a softmax or softmax-based loss that is not shift-invariant (logits + 1000 give NaN), and
dot-product attention whose scores nothing scales by 1/sqrt(d) (the softmax saturates at initialisation)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar

from auditor.core.findings import Finding, Severity, Table
from auditor.pipeline.stage import AuditContext
from auditor.stages.numeric.base import NumericStage

if TYPE_CHECKING:
    from auditor.numeric.attention import AttentionProbe, UnscaledAttention
    from auditor.numeric.program import Program
    from auditor.numeric.shift import ShiftResult


class StableSoftmax(NumericStage):
    name = "stable_softmax"
    summary = (
        "softmax / cross-entropy that is not shift-invariant (logits + 1000 give NaN); attention scores q·kᵀ "
        "not scaled by 1/sqrt(d)"
    )
    needs = ("numeric", "numeric.softmax (optional)")
    codes: ClassVar[dict[str, str]] = {
        "SMX000": "what was probed",
        "SMX001": "the softmax overflows or changes when a constant is added to the logits",
        "SMX002": "the loss overflows or changes when a constant is added to the class logits",
        "SMX003": "the softmax overflows in float16",
        "SMX004": "the softmax's probabilities do not sum to 1",
        "SMX005": "a softmax over dot-product attention scores q·kᵀ that nothing scales by 1/sqrt(d): it saturates",
    }

    def probe(self, program: Program, context: AuditContext) -> Iterator[Finding]:
        import torch

        from auditor.numeric.attention import unscaled_attention
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
        attention = unscaled_attention(program, model, inputs)
        yield from (self._unscaled(a) for a in attention.unscaled)
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
            yield self.finding("SMX000", Severity.INFO, f"{reason}: nothing to probe{_attention_note(attention)}.")
            return
        yield self.finding(
            "SMX000",
            Severity.INFO,
            f"{len(results)} shift probe(s) run"
            + (f" ({form} targets)" if form is not None and kind is None else "")
            + "".join(f"; {n}" for n in notes)
            + _attention_note(attention)
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

    def _unscaled(self, a: UnscaledAttention) -> Finding:
        p = a.product
        root = math.sqrt(p.depth)
        return self.finding(
            "SMX005",
            Severity.ERROR,
            f"the `{a.softmax}`{_at(a.site)} runs over the keys of `{p.op}` of two tensors computed from the input "
            f"({list(p.left)} and {list(p.right)}{_at(p.site)}, d = {p.depth}) that nothing divides by sqrt(d) = "
            f"{root:.3g}: at initialisation its {list(a.scores)} scores spread {a.spread:.3g} (standard deviation "
            f"along the keys) where q·kᵀ/sqrt(d) would spread {a.scaled_spread:.3g}, and a query's largest weight "
            f"averages {a.peak:.3g} over {a.keys} keys instead of {a.scaled_peak:.3g}. q·kᵀ grows with d, so the "
            "softmax starts near saturation, where its gradient vanishes: attention learns slowly and settles on "
            "one key per query.",
            key=f"attention {a.site or p.site or p.op}",
            evidence={
                "op": p.op,
                "d": p.depth,
                "left": list(p.left),
                "right": list(p.right),
                "product_at": p.site,
                "softmax_at": a.site,
                "spread": round(a.spread, 6),
                "scaled_spread": round(a.scaled_spread, 6),
                "peak": round(a.peak, 6),
                "scaled_peak": round(a.scaled_peak, 6),
                "keys": a.keys,
            },
            remediation=f"Divide the scores by math.sqrt({p.depth}) (or scale q by {p.depth} ** -0.5 before the "
            "product), or use F.scaled_dot_product_attention, which does.",
        )


def _attention_note(probe: AttentionProbe) -> str:
    """What the attention probe saw, for SMX000 ('' when the forward pass calls no softmax)."""
    if not probe.softmaxes:
        return ""
    said = f"; {probe.softmaxes} softmax call(s) in the forward pass"
    if probe.unscaled:
        said += f", {len(probe.unscaled)} over unscaled attention scores"
    for a in probe.small:
        said += (
            f"; the softmax{_at(a.site)} runs over an unscaled q·kᵀ (d = {a.product.depth}) whose scores spread "
            f"only {a.spread:.3g} at initialisation (the scaling folded into the initialisation, as in T5): not a "
            "finding"
        )
    return said


def _at(site: str | None) -> str:
    return f" at {site}" if site else ""


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
