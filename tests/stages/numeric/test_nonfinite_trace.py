from __future__ import annotations

from tests.conftest import codes, finding
from tests.stages.numeric.conftest import line_of

ONLY = ["nonfinite_trace"]
LOGFEAT = """
class LogFeatures(nn.Module):
    def forward(self, x):
        return torch.log(x)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.centre = nn.Linear(2, 2)
        self.logfeat = LogFeatures()
        self.head = nn.Linear(2, 1)

    def forward(self, x):
        return self.head(self.logfeat(self.centre(x))).squeeze(-1)

def model():
    return Net()

def batch():
    return torch.tensor([[1.0, -2.0], [3.0, 4.0], [-5.0, 6.0]]), torch.tensor([1.0, 2.0, 3.0])

def loss(out, y):
    return ((out - y) ** 2).mean()
"""


def test_forward_nan_is_blamed_on_the_first_module_not_the_propagating_ones(program) -> None:  # type: ignore[no-untyped-def]
    r = program(LOGFEAT, ONLY)
    f = finding(r, "NAN001")
    assert f.evidence["op"] == "log" and f.evidence["module"] == "logfeat"
    assert f.evidence["at"].endswith(f"prog.py:{line_of(LOGFEAT, 'torch.log(x)')}")
    assert "NAN002" not in codes(r) and r.exit_code == 1


def test_clamped_log_is_finite(program) -> None:  # type: ignore[no-untyped-def]
    source = LOGFEAT.replace("torch.log(x)", "torch.log(x.clamp(min=1e-6))")
    assert codes(program(source, ONLY)) == ["NAN000"]


def test_backward_inf_from_sqrt_at_zero(program) -> None:  # type: ignore[no-untyped-def]
    source = LOGFEAT.replace("torch.log(x)", "torch.sqrt(x * 0)")
    f = finding(program(source, ONLY), "NAN002")
    assert f.evidence["op"].startswith("sqrt (backward: SqrtBackward0)") and f.evidence["module"] == "logfeat"
    safe = LOGFEAT.replace("torch.log(x)", "torch.sqrt(x * 0 + 1e-6)")
    assert codes(program(safe, ONLY)) == ["NAN000"]


def test_nan_made_in_the_loss(program) -> None:  # type: ignore[no-untyped-def]
    source = LOGFEAT.replace("torch.log(x)", "x").replace(
        "return ((out - y) ** 2).mean()", "return ((out - y) ** 2).sum() / (y - y).sum()"
    )
    f = finding(program(source, ONLY), "NAN001")
    assert f.evidence["module"] == "loss" and f.evidence["op"] in ("div", "__truediv__")


def test_non_finite_batch_is_not_blamed_on_an_op(program) -> None:  # type: ignore[no-untyped-def]
    source = LOGFEAT.replace("torch.log(x)", "x").replace("[3.0, 4.0]", "[float('nan'), 4.0]")
    assert codes(program(source, ONLY)) == ["NAN003"]


MASKED = """
class Attend(nn.Module):
    def __init__(self, rows_fully_masked=False):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.full = rows_fully_masked

    def forward(self, x):
        T = x.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(T)   # -inf above the diagonal, on purpose
        if self.full:
            mask = torch.full((T, T), float("-inf"))
        scores = self.proj(x) @ x.transpose(1, 2) + mask
        return torch.softmax(scores, -1) @ x

def model():
    return Attend()

def batch():
    return torch.randn(2, 5, 4), torch.randn(2, 5, 4)

def loss(out, y):
    return ((out - y) ** 2).mean()
"""


def test_intentional_minus_inf_masks_are_not_blamed(program) -> None:  # type: ignore[no-untyped-def]
    assert codes(program(MASKED, ONLY)) == ["NAN000"]


def test_a_fully_masked_row_is_blamed_on_the_op_that_makes_nan(program) -> None:  # type: ignore[no-untyped-def]
    f = finding(program(MASKED.replace("return Attend()", "return Attend(True)"), ONLY), "NAN001")
    assert f.evidence["op"] == "softmax" and f.evidence["module"] == "Attend"


MULTITASK = """
def model():
    return nn.Linear(4, 3)

def batch():
    g = torch.Generator().manual_seed(0)
    y = torch.tensor([[1.0, 0.0, float('nan')], [0.0, float('nan'), 1.0], [1.0, 1.0, 0.0], [float('nan'), 0.0, 1.0]])
    return torch.randn(4, 4, generator=g), y

def loss(out, y):
    known = ~torch.isnan(y)  # NaN marks a task this sample has no label for
    return F.binary_cross_entropy_with_logits(out[known], y[known])
"""


def test_nan_marking_missing_labels_that_the_loss_masks_out_is_no_error(program) -> None:  # type: ignore[no-untyped-def]
    r = program(MULTITASK, [*ONLY, "batch_inspect"])
    assert finding(r, "NAN003").severity.value == "info" and finding(r, "BAT001").severity.value == "info"
    assert "masks them out" in finding(r, "NAN003").message and r.exit_code == 0


def test_nan_labels_kept_in_the_loss_are_still_an_error(program) -> None:  # type: ignore[no-untyped-def]
    # No mask: the NaN labels reach the loss, which is NaN.
    source = MULTITASK.replace(
        "return F.binary_cross_entropy_with_logits(out[known], y[known])",
        "return F.binary_cross_entropy_with_logits(out, y)",
    )
    r = program(source, [*ONLY, "batch_inspect"])
    assert finding(r, "NAN003").severity.value == "error" and finding(r, "BAT001").severity.value == "error"
