"""loss_activation: a loss given the wrong kind of values (softmax before cross_entropy, sigmoid before
BCE-with-logits, logits to BCE, probabilities to nll_loss), and a loss that sums one term and averages another."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar

from auditor.core.findings import Finding, Severity, Table
from auditor.pipeline.stage import AuditContext
from auditor.stages.numeric.base import NumericStage

if TYPE_CHECKING:
    from auditor.numeric.lossact import Doubling, LossCall, LossTrace
    from auditor.numeric.program import Program

_PROBABILITY_MAKERS = {"sigmoid", "softmax", "hardsigmoid"}
_SCORE_MAKERS = {"linear", "convolution"}


class LossActivation(NumericStage):
    name = "loss_activation"
    summary = (
        "a loss given the wrong kind of values (softmax before cross_entropy, sigmoid before BCE-with-logits, "
        "logits to BCE, probabilities to nll_loss); a loss that sums one term and averages another"
    )
    codes: ClassVar[dict[str, str]] = {
        "ACT000": "the loss calls seen and what their inputs hold",
        "ACT001": "cross_entropy on rows that are already probabilities (softmax before the loss)",
        "ACT002": "binary_cross_entropy_with_logits on sigmoid outputs (values confined to [0, 1])",
        "ACT003": "binary_cross_entropy on unbounded scores (logits) instead of probabilities",
        "ACT004": "nll_loss on probabilities instead of log-probabilities",
        "ACT005": "the loss sums one term over the batch and averages another",
        "ACT006": "nll_loss on values that are not log-probabilities over the classes (raw scores, or normalised "
        "over the batch axis)",
    }

    def probe(self, program: Program, context: AuditContext) -> Iterator[Finding]:
        from auditor.numeric.lossact import doubling, trace_loss

        model = program.model().eval()  # eval: one deterministic forward pass; gradients stay on for the history
        trace = trace_loss(program, model)
        for call in trace.calls:
            yield from self._judge(call, program)
        double = doubling(program, model) if trace.error is None else None
        yield from self._reduction(trace, double, program)
        yield self._summary(trace, double)

    def _judge(self, c: LossCall, program: Program) -> Iterator[Finding]:
        at = f" at {c.site}" if c.site else ""
        example = _example(c)
        if c.op == "cross_entropy" and c.form == "probabilities":
            yield self.finding(
                "ACT001",
                Severity.ERROR,
                f"`cross_entropy`{at} is given {c.shape} rows that are already probabilities (every value in "
                f"[{c.low:.4g}, {c.high:.4g}], each row summing to {_sums(c)}){_maker(c)}. cross_entropy applies "
                "log_softmax itself, so the probabilities are softmaxed twice: the loss cannot fall much below "
                "its start and the gradients are squashed.",
                key=c.site or c.op,
                evidence=_evidence(c),
                examples=(example,),
                remediation="Give cross_entropy / CrossEntropyLoss the raw logits (drop the softmax at the end of "
                "the model); apply softmax only for predictions.",
            )
        elif c.op == "nll_loss" and c.form == "probabilities":
            yield self.finding(
                "ACT004",
                Severity.ERROR,
                f"`nll_loss`{at} is given {c.shape} probabilities (values in [{c.low:.4g}, {c.high:.4g}], rows "
                f"summing to {_sums(c)}){_maker(c)}; it expects log-probabilities, so the loss is -p of the target "
                "class: negative, bounded, and not a likelihood.",
                key=c.site or c.op,
                evidence=_evidence(c),
                examples=(example,),
                remediation="Use log_softmax instead of softmax before nll_loss, or cross_entropy on the logits.",
            )
        elif c.op == "nll_loss" and (
            c.form == "log-probabilities over the batch axis" or (c.form == "scores" and c.high > _SCORE_TOL)
        ):
            batch_axis = c.form != "scores"
            yield self.finding(
                "ACT006",
                Severity.ERROR,
                f"`nll_loss`{at} is given {c.shape} values in [{c.low:.4g}, {c.high:.4g}]{_maker(c)}: "
                + (
                    "they are log-probabilities over the batch axis (each column's, not each row's, exp sums to "
                    "1): log_softmax ran over dim 0, so the loss compares samples, not classes."
                    if batch_axis
                    else "raw scores, not log-probabilities (those are never above 0). nll_loss takes minus the "
                    "target's value, so the loss falls without bound by making that score large."
                ),
                key=c.site or c.op,
                evidence=_evidence(c),
                examples=(example,),
                remediation="log_softmax over the class axis (dim=1) before nll_loss, or cross_entropy on the logits.",
            )
        elif (
            c.op == "binary_cross_entropy_with_logits"
            and c.made_by in _PROBABILITY_MAKERS
            and c.low >= 0.0
            and c.high <= 1.0
        ):
            yield self.finding(
                "ACT002",
                Severity.ERROR,
                f"`binary_cross_entropy_with_logits`{at} is given {c.shape} values confined to [0, 1] (here "
                f"[{c.low:.4g}, {c.high:.4g}]){_maker(c)}; it applies the sigmoid itself, so every prediction "
                "lies between sigmoid(0) = 0.5 and sigmoid(1) = 0.73 and the loss can never reach 0.",
                key=c.site or c.op,
                evidence=_evidence(c),
                examples=(example,),
                remediation="Give BCEWithLogitsLoss the raw logits (drop the sigmoid); apply sigmoid only for "
                "predictions.",
            )
        elif c.op == "binary_cross_entropy" and (c.low < 0.0 or c.high > 1.0 or c.made_by in _SCORE_MAKERS):
            outside = c.low < 0.0 or c.high > 1.0
            how = (
                "outside [0, 1], so the loss raises (or, on a batch where they happen to fit, computes nonsense)"
                if outside
                else f"straight from a {c.made_by} layer with no sigmoid: they lie in [0, 1] only by chance on "
                "this batch, and the loss raises on the first batch where they do not"
            )
            yield self.finding(
                "ACT003",
                Severity.ERROR,
                f"`binary_cross_entropy`{at} is given {c.shape} unbounded scores (values in [{c.low:.4g}, "
                f"{c.high:.4g}]) {how}. BCELoss expects probabilities.",
                key=c.site or c.op,
                evidence=_evidence(c),
                examples=(example,),
                remediation="Use binary_cross_entropy_with_logits / BCEWithLogitsLoss on the logits (stable), or "
                "apply a sigmoid before BCELoss.",
            )

    def _reduction(self, trace: LossTrace, double: Doubling | None, program: Program) -> Iterator[Finding]:
        kinds = {r.kind for r in trace.reductions}
        if double is None or not double.mixed or kinds != {"sum", "mean"}:
            return
        summed = next(r for r in trace.reductions if r.kind == "sum")
        averaged = next(r for r in trace.reductions if r.kind == "mean")
        yield self.finding(
            "ACT005",
            Severity.WARNING,
            f"the loss from {program.code.spec.loss} sums one term over the batch (`{summed.op}` on {summed.shape}"
            f"{_at(summed.site)}) and averages another (`{averaged.op}` on {averaged.shape}{_at(averaged.site)}): "
            f"it is {double.once:.6g} on the batch and {double.twice:.6g} on the batch given twice, so "
            f"{double.summed_part:.6g} of it grows with the batch size and {double.averaged_part:.6g} does not. "
            "Their balance changes with the batch size, and the summed term dominates large batches"
            + _share(double)
            + ".",
            key="reduction",
            evidence={
                "loss_once": round(double.once, 6),
                "loss_twice": round(double.twice, 6),
                "summed_part": round(double.summed_part, 6),
                "averaged_part": round(double.averaged_part, 6),
            },
            examples=(
                {"op": summed.op, "reduction": "sum", "shape": list(summed.shape), "at": summed.site},
                {"op": averaged.op, "reduction": "mean", "shape": list(averaged.shape), "at": averaged.site},
            ),
            remediation="Reduce every term the same way (mean over the batch, or sum everywhere with the "
            "learning rate set for it), or weigh the terms explicitly.",
        )

    def _summary(self, trace: LossTrace, double: Doubling | None) -> Finding:
        rows = tuple(
            (c.op, str(c.shape), c.form if c.op in ("cross_entropy", "nll_loss") else f"[{c.low:.4g}, {c.high:.4g}]",
             c.made_by or "?", c.site or "?")
            for c in trace.calls
        )  # fmt: skip
        said = f"{len(trace.calls)} loss call(s) of the kinds judged" if trace.calls else "no cross-entropy, NLL or "
        said += "" if trace.calls else "BCE call"
        if double is not None:
            said += f"; the loss on the batch given twice: {double.once:.6g} -> {double.twice:.6g}"
        if trace.error is not None:
            said += f"; the loss raised: {trace.error}"
        return self.finding(
            "ACT000",
            Severity.INFO,
            said + ".",
            tables=(Table(title="loss calls", columns=("op", "input", "values", "made by", "at"), rows=rows),)
            if rows
            else (),
        )


def _share(double: Doubling) -> str:
    """The smaller part's share of the loss when it is under 5%: small now, and the mix all the same."""
    s, m = abs(double.summed_part), abs(double.averaged_part)
    share = min(s, m) / (s + m)
    if share >= 0.05:
        return ""
    which = "averaged" if m < s else "summed"
    return f" (here the {which} term is {100 * share:.2g}% of the loss at initialisation)"


def _at(site: str | None) -> str:
    return f" at {site}" if site else ""


_SCORE_TOL = 1e-3  # a log-probability is never above 0; a little above is rounding


def _sums(c: LossCall) -> str:
    if c.row_sum is None:
        return "?"
    low, high = c.row_sum
    return f"{low:.6g}" if abs(high - low) < 1e-6 else f"{low:.6g} to {high:.6g}"


def _maker(c: LossCall) -> str:
    return f", made by `{c.made_by}`" if c.made_by else ""


def _evidence(c: LossCall) -> dict[str, Any]:
    return {
        "op": c.op,
        "shape": list(c.shape),
        "min": round(c.low, 6),
        "max": round(c.high, 6),
        "form": c.form,
        "made_by": c.made_by,
        "at": c.site,
    }


def _example(c: LossCall) -> dict[str, Any]:
    example: dict[str, Any] = {"op": c.op, "input": list(c.shape), "values": [round(c.low, 6), round(c.high, 6)]}
    if c.row_sum is not None:
        example["row_sums"] = [round(c.row_sum[0], 6), round(c.row_sum[1], 6)]
    example["at"] = c.site
    return example
