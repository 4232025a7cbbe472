"""eval_mode: in eval mode one input gives one output (no dropout or noise left on) and the input matters."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, ClassVar

from auditor.core.errors import StageNotApplicable
from auditor.core.findings import Finding, Severity
from auditor.pipeline.stage import AuditContext
from auditor.stages.numeric.base import NumericStage

if TYPE_CHECKING:
    from auditor.numeric.evaluation import Repeat
    from auditor.numeric.program import Program

_RANDOM = ("dropout", "rand", "bernoulli", "normal", "multinomial", "poisson")
_GAUSSIAN = ("randn", "normal")  # noise, or a sampled latent (a VAE's z = mu + std * eps)


class EvalMode(NumericStage):
    name = "eval_mode"
    summary = "eval-mode outputs that differ on one input (dropout or noise left on), a model that ignores its input"
    codes: ClassVar[dict[str, str]] = {
        "EVM000": "what was compared: two eval-mode passes, the batch against zeroed inputs",
        "EVM001": "two eval-mode forward passes on one input give different outputs",
        "EVM002": "zeroed inputs give the same outputs, loss and gradients: the model ignores its input",
    }

    def probe(self, program: Program, context: AuditContext) -> Iterator[Finding]:
        from auditor.numeric.evaluation import ZeroedRefused, input_use, repeat

        inputs, targets = program.batch()
        model = program.model().eval()
        again = repeat(program, model, inputs)
        refused = None
        try:
            use = input_use(program, model, inputs, targets)
        except ZeroedRefused as exc:
            use, refused = None, str(exc)
        if again is None and use is None:
            raise StageNotApplicable(
                "the model's outputs hold no tensor to compare and "
                + (f"it refuses its inputs zeroed ({refused})" if refused else "no input tensor could be zeroed")
            )
        notes = [f"not compared with zeroed inputs, which the model refuses: {refused}"] if refused else []
        if again is None:
            notes.append("the outputs hold no tensor to compare")
        elif again.index is None:
            notes.append(f"two eval-mode passes give identical outputs {list(again.output_shape)}")
        if use is None:
            if refused is None:
                notes.append("no input could be zeroed (or the loss is not a number)")
        elif not use.ignored:
            notes.append(
                "zeroed inputs change the outputs, the loss or the gradients (loss "
                f"{use.loss:.6g} against {use.zeroed_loss:.6g}): the input is used"
            )
        yield self.finding("EVM000", Severity.INFO, "; ".join(notes) + ".")
        if again is not None and again.index is not None:
            yield self._nondeterministic(again)
        if use is not None and use.ignored:
            where = ", ".join(f"inputs{p}" if p.startswith("[") else p for p in use.zeroed)
            yield self.finding(
                "EVM002",
                Severity.ERROR,
                f"with {where} {', '.join(str(list(s)) for s in use.shapes)} set to zero the model gives the same "
                f"outputs, the same loss ({use.loss:.6g} and {use.zeroed_loss:.6g}) and the same gradient for every "
                "parameter: it ignores its input, so training can learn only the targets' average.",
                key="input ignored",
                evidence={
                    "zeroed": list(use.zeroed),
                    "shapes": [list(s) for s in use.shapes],
                    "loss": round(use.loss, 6),
                    "zeroed_loss": round(use.zeroed_loss, 6),
                },
                remediation="Check that forward() uses its argument (not a stored or default tensor) and that "
                "no mask or multiplication by zero cuts the input off.",
            )

    def _nondeterministic(self, r: Repeat) -> Finding:
        op = r.op
        where = (
            f" The first op whose output differed is `{op.name}` at {op.site or 'an unknown line'}"
            + (f" in module {op.module}" if op.module else "")
            + f" ({', '.join(str(list(s)) for s in op.inputs) or 'no tensor inputs'} -> {list(op.shape)})."
            if op is not None
            else ""
        )
        random = op is not None and any(word in op.name for word in _RANDOM)
        if op is not None and any(word in op.name for word in _GAUSSIAN):
            # A VAE that samples its latent in eval is the classic case: evaluation should decode the mean.
            remediation = (
                "Draw noise only when self.training is True. A sampled latent is its mean in eval: "
                "z = mu + std * torch.randn_like(std) if self.training else mu. If sampling in eval is the model's "
                "purpose (generation, an ELBO estimated by sampling), accept this finding with that reason."
            )
        elif random or op is None:
            remediation = (
                "Pass training=self.training to F.dropout (or use nn.Dropout), and draw noise only when "
                "self.training is True. If sampling in eval is the model's purpose (a VAE's sample, MC dropout), "
                "accept this finding with that reason."
            )
        else:
            remediation = "Make the forward pass deterministic in eval mode: no state that changes from call to call."
        return self.finding(
            "EVM001",
            Severity.ERROR,
            f"two forward passes in eval mode on the same input give {r.first:.6g} and {r.second:.6g} at "
            f"{list(r.index or ())} of the outputs {list(r.output_shape)}: dropout or noise is still on after "
            f"model.eval(), so every evaluation scores a different model.{where}",
            key=f"{op.name} {op.site}" if op is not None else "outputs",
            evidence={
                "output_shape": list(r.output_shape),
                "index": list(r.index or ()),
                "first": r.first,
                "second": r.second,
                "op": op.name if op is not None else None,
                "at": op.site if op is not None else None,
                "module": op.module if op is not None else None,
            },
            remediation=remediation,
        )
