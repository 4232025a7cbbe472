"""`audit lab`: the four classic faults, reproduced in memory and found by the same stage code as a real audit.

Every number printed is computed on the spot: the broadcast stage measures the (3, 3) shape and both MSE
values, detached_graph and a real backward() show the cut graph, stable_softmax probes exp at 1000, and
group_overlap reads a four-row manifest.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from auditor.core.config import NumericSpec, config_from_mapping
from auditor.core.findings import Finding
from auditor.numeric.usercode import TORCH_HINT, UserCode, torch_available
from auditor.pipeline.runner import run_audit
from auditor.pipeline.stage import Acceptances, AuditContext, Stage

SCOPE = (
    "scope of these fixes: the numeric path and the group check. A program that computes what its author "
    "means is not yet a model that generalizes; that needs an honest split and an evaluation run once."
)


@dataclass(frozen=True)
class LabResult:
    """What the lab measured; None for the numeric part when torch is missing."""

    broadcast_shape: tuple[int, ...] | None
    wrong_mse: float | None
    right_mse: float | None
    detached_backward_fails: bool | None
    kept_gradient: float | None
    direct_exp_finite: bool | None
    stable_sum: float | None
    crossing_writers: list[str]
    codes: dict[str, list[str]]


def run_lab() -> LabResult:
    """Reproduce the four faults; the numeric three need torch."""
    writers, group_codes = _writers()
    codes = {"group_overlap": group_codes}
    if not torch_available():
        return LabResult(None, None, None, None, None, None, None, writers, codes)
    import torch

    predictions_class, square_class = _module_classes()

    # 1. A (3,1) prediction against (3,) targets: the broadcast stage on an in-memory program.
    def pred_model() -> torch.nn.Module:
        return predictions_class()

    def batch() -> tuple[torch.Tensor, torch.Tensor]:
        return torch.tensor([[1.0], [2.0], [3.0]]), torch.tensor([1.0, 2.0, 3.0])

    def mse(out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return ((out - y) ** 2).mean()

    found = _stage_findings("broadcast", {"model": pred_model, "batch": batch, "loss": mse})
    codes["broadcast"] = [f.code for f in found]
    expansion = next(f for f in found if f.code == "BRD001")
    exact = next(f for f in found if f.code == "BRD003")

    # 2. x = 2, loss x**2: .item() re-wrapped in torch.tensor cuts the graph; kept, the gradient is 4.
    def square_model() -> torch.nn.Module:
        return square_class()

    def unit_batch() -> tuple[torch.Tensor, torch.Tensor]:
        return torch.ones(1), torch.zeros(1)

    def rewrapped(out: torch.Tensor, _y: torch.Tensor) -> torch.Tensor:
        return torch.tensor(out.item())

    def kept(out: torch.Tensor, _y: torch.Tensor) -> torch.Tensor:
        return out

    found = _stage_findings("detached_graph", {"model": square_model, "batch": unit_batch, "loss": rewrapped})
    codes["detached_graph"] = [f.code for f in found]
    fails = False
    try:
        rewrapped(square_class()(torch.ones(1)), torch.zeros(1)).backward()
    except RuntimeError:
        fails = True
    square = square_class()
    kept(square(torch.ones(1)), torch.zeros(1)).backward()
    assert square.x.grad is not None
    gradient = float(square.x.grad)

    # 3. exp(1000) overflows: the stable_softmax probe on a direct and a max-shifted softmax.
    from auditor.numeric.shift import probe_softmax

    logits = torch.tensor([[0.0, 1.0]])
    direct = probe_softmax(_direct_softmax, logits, shift=1000.0)
    stable_probe = probe_softmax(_stable_softmax, logits, shift=1000.0)
    stable_sum = float(_stable_softmax(torch.tensor([1000.0, 1001.0]), -1).sum())
    codes["stable_softmax"] = ["SMX001"] if not direct.stable else []
    if not stable_probe.stable:
        codes["stable_softmax"].append("stable softmax failed its probe")
    return LabResult(
        broadcast_shape=tuple(expansion.evidence["result"]),
        wrong_mse=exact.evidence["loss_in_output_shape"],
        right_mse=exact.evidence["loss_in_target_shape"],
        detached_backward_fails=fails,
        kept_gradient=gradient,
        direct_exp_finite=direct.finite_after,
        stable_sum=stable_sum,
        crossing_writers=writers,
        codes=codes,
    )


def render_lab(r: LabResult) -> str:
    """The lab's report as plain text."""
    lines = []
    if r.broadcast_shape is None:
        lines.append(f"numeric faults not run: {TORCH_HINT}")
    else:
        lines += [
            f"broadcast error shape: {r.broadcast_shape}, wrong MSE={r.wrong_mse:.6f}, right MSE={r.right_mse:.6f}",
            f"backward after .item() re-wrap fails: {r.detached_backward_fails}; gradient with the graph kept = "
            f"{r.kept_gradient:.1f}",
            f"direct exp probabilities all finite: {r.direct_exp_finite}; stable probabilities sum = "
            f"{r.stable_sum:.6f}",
        ]
    lines.append(f"writers crossing splits: {r.crossing_writers}")
    lines.append(SCOPE)
    lines.append("found by: " + "; ".join(f"{stage} {', '.join(c) or '-'}" for stage, c in r.codes.items()))
    return "\n".join(lines)


def _stage_findings(name: str, functions: dict[str, Callable[..., Any]]) -> list[Finding]:
    """Run one built-in numeric stage on in-memory callables, exactly as an audit would."""
    from auditor.pipeline.registry import discover, load_stages

    spec = NumericSpec(model="lab:model", batch="lab:batch", loss="lab:loss")
    loaded = config_from_mapping({"numeric": spec.model_dump(exclude_none=True)})
    stage_class = next(c for c in load_stages(discover()) if c.name == name)
    stage: Stage = stage_class()
    context = AuditContext(loaded, None, Acceptances([]), numeric=UserCode(spec, (), dict(functions)))
    return list(stage.run(context))


def _writers() -> tuple[list[str], list[str]]:
    """train {writer-a, writer-b}, test {writer-a, writer-c}: group_overlap on a four-row manifest."""
    with tempfile.TemporaryDirectory() as tmp:
        manifest = Path(tmp) / "manifest.csv"
        manifest.write_text(
            "id,split,writer\n1,train,writer-a\n2,train,writer-b\n3,test,writer-a\n4,test,writer-c\n", encoding="utf-8"
        )
        loaded = config_from_mapping(
            {"manifest": {"path": "manifest.csv", "id": "id", "split": "split"}, "keys": {"groups": ["writer"]}},
            base_dir=Path(tmp),
        )
        report = run_audit(loaded, only=["group_overlap"])
    crossing = sorted({e["group"] for f in report.findings if f.code == "GRP001" for e in f.examples})
    return crossing, sorted({f.code for f in report.findings})


def _direct_softmax(x: Any, dim: int) -> Any:
    import torch

    e = torch.exp(x)
    return e / e.sum(dim, keepdim=True)


def _stable_softmax(x: Any, dim: int) -> Any:
    import torch

    e = torch.exp(x - x.max(dim, keepdim=True).values)
    return e / e.sum(dim, keepdim=True)


def _module_classes() -> tuple[Any, Any]:
    import torch

    class Predictions(torch.nn.Module):
        """Returns its (3,1) input as the prediction, so predictions equal the targets."""

        def __init__(self) -> None:
            super().__init__()
            self.scale = torch.nn.Parameter(torch.ones(1))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x * self.scale

    class Square(torch.nn.Module):
        """x = 2; forward gives x**2."""

        def __init__(self) -> None:
            super().__init__()
            self.x = torch.nn.Parameter(torch.tensor(2.0))

        def forward(self, _unit: torch.Tensor) -> torch.Tensor:
            return self.x**2

    return Predictions, Square
