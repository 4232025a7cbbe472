"""detached_graph: a loss cut from the graph, and parameters the loss cannot reach or the optimizer does not hold."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar

from auditor.core.findings import Finding, Severity, Table
from auditor.core.scope import scope_of
from auditor.pipeline.stage import AuditContext
from auditor.stages.numeric.base import NumericStage

if TYPE_CHECKING:
    from auditor.numeric.graph import Cut
    from auditor.numeric.program import Program


class DetachedGraph(NumericStage):
    name = "detached_graph"
    summary = "a loss cut from the graph, parameters the loss cannot reach or the optimizer does not hold"
    needs = ("numeric", "numeric.optimizer (optional)")
    codes: ClassVar[dict[str, str]] = {
        "GRD000": "what the loss's gradient reaches",
        "GRD001": "the loss has no grad_fn: it is cut from the graph",
        "GRD002": "trainable parameters the loss cannot reach (grad None)",
        "GRD003": "trainable parameters whose gradient is exactly zero",
        "GRD004": "trainable parameters missing from the optimizer",
        "GRD005": "parameters frozen on purpose (requires_grad False)",
        "GRD006": "a term of the loss taken out of the graph and wrapped again: a constant that trains nothing",
        "GRD007": "parameters held fixed on purpose: run under no_grad or detached, and left out of the optimizer "
        "(a target network, an EMA teacher, a probed backbone)",
    }

    def probe(self, program: Program, context: AuditContext) -> Iterator[Finding]:
        from auditor.numeric.graph import reach

        r = reach(program)
        optimizer_given = program.code.has("optimizer")
        cuts = tuple(_cut(c) for c in r.cuts[:10])
        where = f"; the graph was cut at {_sites(r.cuts)}" if r.cuts else ""
        if not r.loss_has_graph or r.backward_error is not None:
            if not r.loss_has_graph:
                message = (
                    f"the loss from {program.code.spec.loss} has no grad_fn, so backward() fails or trains nothing"
                    f"{where}. A value taken out with .item() or .detach() and wrapped again in torch.tensor(...) "
                    "keeps the number and loses its history."
                )
                evidence: dict[str, Any] = {"cuts": [c["op"] for c in cuts]}
            else:
                message = f"backward() on the loss failed: {r.backward_error}{where}."
                evidence = {"error": r.backward_error}
            yield self.finding(
                "GRD001",
                Severity.ERROR,
                message,
                key="loss",
                evidence=evidence,
                examples=cuts,
                remediation="Compute the loss from tensors end to end; keep .item() for logging only.",
            )
            return
        for taken, wrapped in r.rewrapped:
            yield self.finding(
                "GRD006",
                Severity.WARNING,
                f"inside the loss, `{taken.op}` at {taken.site or 'an unknown line'} takes a value out of the graph "
                f"and `{wrapped.op}` at {wrapped.site or 'an unknown line'} wraps a number in a tensor again: that "
                "term adds to the loss but is a constant, so it trains nothing.",
                key=f"{taken.site}",
                evidence={"taken_out": _cut(taken), "wrapped": _cut(wrapped)},
                remediation="Keep the term a tensor (drop .item() and torch.tensor), or leave it out of the loss "
                "if it is only for logging.",
            )
        yield self.finding(
            "GRD000",
            Severity.INFO,
            f"{len(r.reached)} parameter tensor(s) get a gradient, {len(r.zero)} a zero gradient, "
            f"{len(r.unreachable)} none, {len(r.frozen)} are frozen.",
            evidence={
                "reached": len(r.reached),
                "zero": len(r.zero),
                "unreachable": len(r.unreachable),
                "frozen": len(r.frozen),
                "not_optimized": len(r.not_optimized),
            },
        )
        # Run under no_grad and left out of the optimizer: both say "not trained here", on purpose.
        not_optimized = set(r.not_optimized)
        # Left out of the optimizer and cut off by no_grad or by a detach of their outputs: not trained here, on
        # purpose (a target network, an EMA teacher, a linear probe's backbone).
        detached = [c for c in r.cuts if c.op in ("detach", "detach_")]
        held = [n for n in r.unreachable if n in not_optimized and (n in r.under_no_grad or detached)]
        owners = {n: r.under_no_grad.get(n, n.rpartition(".")[0]) for n in held}
        unreachable = [n for n in r.unreachable if n not in held]
        no_grad = [n for n in unreachable if n in r.under_no_grad]
        if unreachable:
            # A cut seen on the way makes an unreachable parameter a bug; without one it may be unused on purpose.
            # Run under no_grad while the optimizer holds them: the optimizer was meant to train them.
            optimized = optimizer_given and any(n not in not_optimized for n in no_grad)
            severity = Severity.ERROR if r.cuts or optimized else Severity.WARNING
            modules = sorted({r.under_no_grad[n] for n in no_grad})
            why = (
                f"; {_names(modules)} ran only under torch.no_grad()"
                + (", yet the optimizer holds their parameters" if optimized else "")
                if no_grad
                else ""
            )
            yield self.finding(
                "GRD002",
                severity,
                f"{len(unreachable)} trainable parameter tensor(s) get no gradient from the loss (grad is None): "
                f"{_names(unreachable)}{where}{why}. They never change in training.",
                key="unreachable",
                evidence={"parameters": unreachable},
                scope=scope_of(unreachable, {"parameters": len(unreachable)}),
                examples=cuts,
                tables=(_table(unreachable, "grad None"),),
                remediation="Remove the cut (.detach(), .item(), .numpy(), torch.tensor on a tensor) between these "
                "parameters and the loss, or freeze them on purpose with requires_grad_(False).",
            )
        if r.zero:
            yield self.finding(
                "GRD003",
                Severity.WARNING,
                f"{len(r.zero)} trainable parameter tensor(s) reach the loss but their gradient is exactly zero on "
                f"this batch: {_names(r.zero)}. Dead activations, a multiplication by zero, or a masked-out path.",
                key="zero gradient",
                evidence={"parameters": r.zero},
                scope=scope_of(r.zero, {"parameters": len(r.zero)}),
                tables=(_table(r.zero, "grad all 0"),),
                remediation="Check the activations and masks on the path to these parameters.",
            )
        # Only those that get a gradient: one without is told once, above (GRD002) or below (GRD007).
        stranded = [n for n in r.not_optimized if n not in set(r.unreachable)]
        if stranded:
            yield self.finding(
                "GRD004",
                Severity.ERROR,
                f"{len(stranded)} trainable parameter tensor(s) are in no parameter group of the optimizer "
                f"from {program.code.spec.optimizer}: {_names(stranded)}. They get gradients and never move.",
                key="not in optimizer",
                evidence={"parameters": stranded},
                scope=scope_of(stranded, {"parameters": len(stranded)}),
                remediation="Build the optimizer from model.parameters() after the model is complete.",
            )
        if held:
            modules = sorted({owners[n] for n in held})
            how = (
                "their module ran only under torch.no_grad()"
                if all(n in r.under_no_grad for n in held)
                else f"the graph to them is cut at {_sites(detached)}"
            )
            yield self.finding(
                "GRD007",
                Severity.INFO,
                f"{len(held)} parameter tensor(s) of {_names(modules)} are held fixed on purpose: {how} and the "
                f"optimizer leaves them out ({_names(held)}), as a target network, an EMA teacher or a probed "
                "backbone is. They change only by the copy or average the training loop makes, if any.",
                key="held fixed",
                evidence={"parameters": held, "modules": modules},
                scope=scope_of(held, {"parameters": len(held)}),
                remediation="Nothing to do if they are updated by copying or averaging; requires_grad_(False) on "
                "them says so in the code.",
            )
        if r.frozen:
            yield self.finding(
                "GRD005",
                Severity.INFO,
                f"{len(r.frozen)} parameter tensor(s) are frozen (requires_grad False): {_names(r.frozen)}.",
                key="frozen",
                evidence={"parameters": r.frozen},
                scope=scope_of(r.frozen, {"parameters": len(r.frozen)}),
            )


def _cut(c: Cut) -> dict[str, Any]:
    return {"op": c.op, "shape": list(c.shape), "at": c.site}


def _sites(cuts: list[Cut]) -> str:
    return ", ".join(f"`{c.op}` ({c.site or 'unknown line'})" for c in cuts[:3])


def _names(names: list[str]) -> str:
    shown = ", ".join(names[:5])
    return shown + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _table(names: list[str], state: str) -> Table:
    return Table(title="parameters", columns=("parameter", "gradient"), rows=tuple((n, state) for n in names[:50]))
