"""token_alignment: targets shifted by one, PAD out of the loss, a causal mask that hides the future, and a
padding mask that hides the padding (also outside language models, when the inputs carry one)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, ClassVar

from pydantic import Field

from auditor.core.config import AuditConfig
from auditor.core.errors import StageNotApplicable
from auditor.core.findings import Finding, Severity, Table
from auditor.pipeline.stage import AuditContext, StageOptions
from auditor.stages.numeric.base import NumericStage

if TYPE_CHECKING:
    from auditor.numeric.alignment import AllIgnoredRisk
    from auditor.numeric.padding import PaddingLeak, PaddingMask
    from auditor.numeric.program import Program


class TokenAlignmentOptions(StageOptions):
    expected_shift: int = Field(
        default=1, ge=0, le=2, description="1: targets are the next tokens; 0: the loss shifts them itself"
    )
    # Finite and below 1: an infinite tolerance would call every moved output unmoved (a false pass).
    tolerance: float = Field(
        default=1e-5, gt=0, lt=1, allow_inf_nan=False, description="relative change of an output that counts as moved"
    )


class TokenAlignment(NumericStage):
    name = "token_alignment"
    summary = (
        "targets shifted by one, PAD excluded from the loss, a causal mask that hides the future; a padding mask "
        "that hides the padding"
    )
    needs = ("numeric", "numeric.language_model (without it: only the padding mask the inputs carry)")
    codes: ClassVar[dict[str, str]] = {
        "TOK000": "how targets line up with inputs",
        "TOK001": "targets are not the inputs shifted by the expected offset",
        "TOK002": "PAD or ignored target positions get a gradient from the loss",
        "TOK003": "changing future tokens changes earlier outputs: the model sees the future",
        "TOK004": "every target of the batch is ignored",
        "TOK005": "a batch whose targets are all ignored gives a NaN loss (a warning when the sample batch can be one)",
        "TOK006": "PAD after a sequence changes the outputs before it: an inverted or missing padding mask",
    }
    Options = TokenAlignmentOptions

    def missing_input(self, config: AuditConfig) -> str | None:
        # Without numeric.language_model only the padding probe runs, and only on inputs that carry a padding mask
        # (found once the batch is built: the stage skips itself without one).
        return None if config.numeric is not None else "no `numeric` section in the config"

    def probe(self, program: Program, context: AuditContext) -> Iterator[Finding]:
        import torch

        from auditor.numeric.alignment import (
            all_ignored_loss,
            all_ignored_risk,
            future_leak,
            last_position_gradient,
            loss_shift,
            pad_gradient,
            shift_rates,
            vocabulary_size,
        )
        from auditor.numeric.padding import PaddingMask, find_padding_mask, padding_leak
        from auditor.numeric.program import main_tensor, shape, tensors

        assert isinstance(self.options, TokenAlignmentOptions)
        lm = program.code.spec.language_model
        if lm is None:
            yield from self._padding_only(program)
            return
        inputs, targets = program.batch()
        # The token ids: the integer tensor of the inputs shaped like the targets (input_ids in a dict).
        candidates = [t for _, t in tensors(inputs) if not t.is_floating_point()]
        shaped = [t for t in candidates if isinstance(targets, torch.Tensor) and t.shape == targets.shape]
        ids = (shaped or candidates)[0] if candidates else main_tensor(inputs)
        target = targets
        if not (isinstance(ids, torch.Tensor) and isinstance(target, torch.Tensor)) or ids.is_floating_point():
            yield self.finding(
                "TOK000",
                Severity.INFO,
                "the inputs or targets are not integer token tensors; nothing to align.",
            )
            return
        excluded_values = [lm.ignore_index] + ([lm.pad_id] if lm.pad_id is not None else [])
        excluded = torch.zeros_like(target, dtype=torch.bool)
        for v in excluded_values:
            excluded |= target == v
        if bool(excluded.all()):
            yield self.finding(
                "TOK004",
                Severity.ERROR,
                f"every one of the {target.numel()} targets in the batch is PAD or ignore_index: the mean loss over "
                "zero tokens is 0/0 = NaN, and one such batch turns the parameters into NaN.",
                key="batch",
                evidence={"targets": target.numel()},
                remediation="Drop batches without a counted target in the loader, or guard the loss against zero "
                "counted tokens.",
            )
            return
        expected = self.options.expected_shift
        model = program.model()
        model.eval()
        with torch.no_grad():
            logits = main_tensor(program.forward(model, inputs))
        if not isinstance(logits, torch.Tensor) or not logits.is_floating_point():
            logits = None
        # Where the loss itself takes each position's label: 1 when it shifts (logits[:, :-1] vs labels[:, 1:]).
        by_loss = loss_shift(program, logits, target, excluded) if logits is not None else None
        shifting = by_loss is not None and by_loss > 0
        rates: dict[int, float] = {}
        if ids.shape == target.shape:
            rates = shift_rates(ids, target, excluded)
            best = max(rates, key=lambda s: -1 if math.isnan(rates[s]) else rates[s])
            table = Table(
                title="share of counted targets equal to the input token s positions later",
                columns=("shift s", "share"),
                rows=tuple((s, f"{r:.1%}" if not math.isnan(r) else "—") for s, r in rates.items()),
            )
            yield self.finding(
                "TOK000",
                Severity.INFO,
                f"targets match the inputs shifted by {best} at {rates[best]:.1%} of counted positions"
                + (f"; the loss compares each position with the target {by_loss} later." if shifting else "."),
                evidence={
                    "rates": {str(s): round(r, 4) for s, r in rates.items()},
                    "expected_shift": expected,
                    "loss_shift": by_loss,
                },
                tables=(table,),
            )
            # The shift the model learns is the targets' shift plus the loss's own: next token (1), or two ahead
            # when that is what expected_shift: 2 asks for.
            learned = best + (by_loss or 0)
            wanted = 2 if expected == 2 else 1
            if shifting and rates[best] >= 0.99 and learned != wanted:
                what = {0: "the model is asked to copy its input", 2: "it is asked to predict two tokens ahead"}
                yield self.finding(
                    "TOK001",
                    Severity.ERROR,
                    f"the targets equal the inputs shifted by {best} and the loss compares position t with the "
                    f"target {by_loss} later, so position t learns the token {learned} ahead: "
                    f"{what.get(learned, 'misaligned')}. The loss falls and the model learns no next-token "
                    "prediction.",
                    key=f"shift {learned}",
                    evidence={"found_shift": best, "loss_shift": by_loss, "expected_shift": expected},
                    tables=(table,),
                    remediation="Shift once: either targets = inputs (labels = input_ids) with a loss that shifts, "
                    "or targets = inputs[:, 1:] with a loss that compares them position by position.",
                )
            elif not shifting and rates.get(expected, 0.0) < 0.99 and rates[best] >= 0.99:
                what = {0: "the model is asked to copy its input", 2: "it is asked to predict two tokens ahead"}
                yield self.finding(
                    "TOK001",
                    Severity.ERROR,
                    f"the targets equal the inputs shifted by {best}, not {expected}: {what.get(best, 'misaligned')}. "
                    "The loss falls quickly and the model learns nothing about the next token.",
                    key=f"shift {best}",
                    evidence={"found_shift": best, "expected_shift": expected},
                    tables=(table,),
                    remediation="Build targets as inputs[:, 1:] against predictions for inputs[:, :-1] (or set "
                    "stages.token_alignment.expected_shift: 0 if the loss shifts internally).",
                )
        if logits is None:
            return
        if expected == 0 and not shifting and ids.shape == target.shape and rates.get(0, 0.0) >= 0.99:
            last = last_position_gradient(program, logits, target)
            if last is not None and last > 0:
                yield self.finding(
                    "TOK001",
                    Severity.ERROR,
                    "expected_shift is 0 (the loss is to shift the targets itself) and the targets equal the inputs, "
                    f"but the loss sends gradient ({last:.3g}) to the outputs of the last position, which has no next "
                    "token: the loss does not shift, so the model is asked to copy its input.",
                    key="shift 0",
                    evidence={"found_shift": 0, "expected_shift": 0, "last_position_gradient": round(last, 6)},
                    remediation="Shift inside the loss (logits[:, :-1] against labels[:, 1:]), or build shifted "
                    "targets and set expected_shift back to 1.",
                )
        pad = pad_gradient(program, logits, target, excluded_values, lm.ignore_index)
        if pad.error is not None or pad.leaking:
            injected = f" (the batch had none, so the last target was set to {lm.ignore_index})" if pad.injected else ""
            detail = (
                f"the loss raised on an ignored target: {pad.error}"
                if pad.error is not None
                else f"{pad.leaking} of {pad.positions} PAD/ignored target position(s) get a non-zero gradient, "
                f"the first at {pad.first}"
            )
            yield self.finding(
                "TOK002",
                Severity.ERROR,
                f"{detail}{injected}: the model is trained to predict padding, and the loss is averaged over tokens "
                "that are not text.",
                key="pad",
                evidence={
                    "positions": pad.positions,
                    "leaking": pad.leaking,
                    "pad_id": lm.pad_id,
                    "ignore_index": lm.ignore_index,
                },
                remediation=f"Pass ignore_index={lm.ignore_index} to the loss and set PAD targets to it "
                "(or mask them out before the mean).",
            )
        vocab = vocabulary_size(logits)
        for mode in ("eval", "train"):
            leak = future_leak(program, model, inputs, ids, vocab, mode, self.options.tolerance)
            if leak is not None and leak.first_moved is not None:
                yield self.finding(
                    "TOK003",
                    Severity.ERROR,
                    f"changing only the tokens after position {leak.position} changes the outputs at position "
                    f"{leak.first_moved} (by up to {leak.max_change:.3g}, {mode} mode): position t sees tokens after "
                    "t, so training teaches it to copy the future.",
                    key="causal mask",
                    evidence={
                        "mode": mode,
                        "position": leak.position,
                        "first_moved": leak.first_moved,
                        "max_change": round(leak.max_change, 6),
                        "input_shape": list(shape(ids)),
                    },
                    remediation="Apply a causal (upper-triangular) attention mask, e.g. "
                    "nn.Transformer.generate_square_subsequent_mask(T), or is_causal=True.",
                )
                break
        if lm.pad_id is not None:
            found = find_padding_mask(model, inputs, lm.pad_id)
            mask = found if isinstance(found, PaddingMask) and found.tensor.shape == ids.shape else None
            padding = padding_leak(program, model, inputs, ids, lm.pad_id, self.options.tolerance, mask)
            if padding is not None and padding.moved:
                yield self._padding(padding, list(shape(ids)), lm.pad_id, mask)
        ignored = all_ignored_loss(program, logits, target, lm.ignore_index)
        if isinstance(ignored, str):
            yield self.finding(
                "TOK005",
                Severity.WARNING,
                f"for a batch whose targets are all {lm.ignore_index} the loss raises ({ignored}): it does not "
                f"treat {lm.ignore_index} as ignored. Check that `language_model.ignore_index` is the value the "
                "loss ignores.",
                key="all ignored",
                evidence={"ignore_index": lm.ignore_index, "error": ignored},
                remediation=f"Pass ignore_index={lm.ignore_index} to the loss, or set the config's to the loss's.",
            )
        elif math.isnan(ignored):
            yield self._nan_when_all_ignored(all_ignored_risk(excluded), lm.ignore_index)

    def _padding_only(self, program: Program) -> Iterator[Finding]:
        """Outside a language model: PAD appended under the inputs' own padding mask must not move the outputs."""
        from auditor.numeric.padding import find_padding_mask, padding_leak
        from auditor.numeric.program import shape

        assert isinstance(self.options, TokenAlignmentOptions)
        inputs, _ = program.batch()
        model = program.model()
        found = find_padding_mask(model, inputs)
        if isinstance(found, str):
            raise StageNotApplicable(
                f"not a token-prediction model (no `numeric.language_model`) and {found}: nothing to probe"
            )
        leak = padding_leak(program, model, inputs, found.sequences, found.pad_id, self.options.tolerance, found)
        if leak is None:
            raise StageNotApplicable(
                f"the inputs carry a padding mask, `{found.name}`, but the model does not run on shorter sequences "
                "or its outputs do not line up with them: nothing to compare"
            )
        pad = "zeros" if found.pad_id is None else f"PAD {found.pad_id} (from {found.pad_from})"
        yield self.finding(
            "TOK000",
            Severity.INFO,
            f"no `numeric.language_model`: only the padding probe ran, with the inputs' `{found.name}` "
            f"{list(shape(found.tensor))}, which holds {found.pad_value!r} at padding (from {found.polarity_from}); "
            f"the sequences were padded with {pad}"
            + ("." if leak.moved else f": the outputs did not move (by up to {leak.max_change:.3g})."),
            evidence={
                "mask": found.name,
                "pad_value": found.pad_value,
                "polarity_from": found.polarity_from,
                "pad_id": found.pad_id,
                "pad_from": found.pad_from,
            },
        )
        if leak.moved:
            yield self._padding(leak, list(shape(found.sequences)), found.pad_id, found)

    def _padding(
        self, leak: PaddingLeak, input_shape: list[int], pad_id: int | None, mask: PaddingMask | None
    ) -> Finding:
        """TOK006: the tokens before the padding give other outputs with it than without it."""
        pad = "zeros" if pad_id is None else f"PAD ({pad_id})"
        marked = f" marked as padding in `{mask.name}`" if mask is not None else ""
        where = (
            f"at position {leak.position} of row {leak.row}"
            if leak.position is not None
            else f"in row {leak.row} of the outputs (they pool the sequence)"
        )
        if leak.hidden:
            why = (
                "With padding in the batch the real tokens' outputs are NaN or inf while the padding's are finite: "
                "the padding mask hides the real tokens instead of the PAD ones (it is inverted)."
            )
        elif leak.lost:
            why = (
                "Without padding the outputs are NaN or inf: the mask hides every real token, so it is inverted "
                "(it marks the real tokens as padding), and the model attends to the padding instead."
            )
        else:
            why = (
                "Real tokens attend to the padding: the padding mask is inverted (True where tokens are real) or "
                "missing, so a prediction depends on how much padding its batch has."
            )
        if mask is not None and mask.real:
            fix = (
                f"`{mask.name}` holds 1 at real tokens (Hugging Face's convention); nn.MultiheadAttention and "
                f"nn.TransformerEncoder take True where a key is padding: key_padding_mask = {mask.name} == 0."
            )
        else:
            fix = (
                f"Mask the keys that are PAD: key_padding_mask = ids == {pad_id} (True means ignore, in "
                "nn.MultiheadAttention), or attention_mask = ids != pad_id for Hugging Face models."
            )
        return self.finding(
            "TOK006",
            Severity.ERROR,
            f"the first {leak.kept} tokens of each sequence followed by {leak.length - leak.kept} {pad}{marked} "
            f"give other outputs than those {leak.kept} tokens alone: {where}, {leak.padded:.6g} with the padding "
            f"and {leak.unpadded:.6g} without (eval mode). {why}",
            key="padding mask",
            evidence={
                "kept": leak.kept,
                "length": leak.length,
                "pad_id": pad_id,
                "mask": mask.name if mask is not None else None,
                "first_moved": leak.position,
                "row": leak.row,
                "padded": _number(leak.padded),
                "unpadded": _number(leak.unpadded),
                "max_change": _number(leak.max_change),
                "real_tokens_masked": leak.hidden or leak.lost,
                "input_shape": input_shape,
            },
            remediation=fix + (" Pool over the real tokens only." if leak.position is None else ""),
        )

    def _nan_when_all_ignored(self, risk: AllIgnoredRisk, ignore_index: int) -> Finding:
        """TOK005 for a NaN loss on zero counted tokens: a warning only when the batch shows it can happen."""
        nan = f"for a batch whose targets are all {ignore_index}, the loss is NaN: a mean over zero counted tokens"
        evidence = {
            "ignore_index": ignore_index,
            "rows": risk.rows,
            "rows_without_target": len(risk.rows_without_target),
            "sequence_length": risk.length,
        }
        remediation = "Divide by max(count, 1), or skip batches without counted targets in the loader."
        if not risk.possible:
            return self.finding(
                "TOK005",
                Severity.INFO,
                f"{nan}, as with a plain F.cross_entropy(..., ignore_index={ignore_index}). Every row of the sample "
                "batch has a counted target, so only a loader that yields a batch without one would hit it.",
                key="all ignored",
                evidence=evidence,
                remediation=remediation,
            )
        if risk.rows_without_target:
            shown = ", ".join(str(r) for r in risk.rows_without_target[:5])
            why = (
                f"{len(risk.rows_without_target)} of the {risk.rows} rows of the sample batch have no counted "
                f"target (row {shown}): a batch of such rows, e.g. the last one of an epoch or one of size 1, "
                "gives NaN"
            )
        else:
            why = f"the sample batch's sequences are {risk.length} token long, too short to always have a next token"
        return self.finding(
            "TOK005",
            Severity.WARNING,
            f"{nan}, and {why}; one NaN step turns every parameter into NaN.",
            key="all ignored",
            evidence=evidence,
            examples=tuple({"row": r} for r in risk.rows_without_target[:5]),
            remediation=remediation,
        )


def _number(value: float) -> float | str:
    return round(value, 6) if math.isfinite(value) else str(value)
