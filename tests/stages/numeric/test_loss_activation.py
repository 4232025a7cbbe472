"""loss_activation: what each loss is called with, and mixed reductions; no finding on correct losses."""

from __future__ import annotations

import pytest

from auditor.core.findings import Severity
from tests.conftest import codes, finding
from tests.stages.numeric.conftest import VAE, line_of

ONLY = ["loss_activation"]
CLASSES = """
class Net(nn.Module):
    def __init__(self, scale=1.0):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 16), nn.ReLU())
        self.head = nn.Linear(16, 3)
        self.scale = scale

    def forward(self, x):
        return self.head(self.body(x)) * self.scale

def model():
    return Net()

def batch():
    g = torch.Generator().manual_seed(0)
    return torch.randn(8, 4, generator=g), torch.tensor([0, 1, 2, 0, 1, 2, 0, 1])

def loss(out, y):
    return F.cross_entropy(out, y)
"""
BINARY = """
def model():
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))

def batch():
    g = torch.Generator().manual_seed(0)
    return torch.randn(8, 4, generator=g), torch.tensor([0., 1., 1., 0., 1., 0., 0., 1.])

def loss(out, y):
    return F.binary_cross_entropy_with_logits(out.squeeze(-1), y)
"""


def alarms(report) -> list[str]:  # type: ignore[no-untyped-def]
    return [f.code for f in report.findings if f.severity >= Severity.WARNING]


def test_softmax_before_cross_entropy_is_found_with_its_line(program) -> None:  # type: ignore[no-untyped-def]
    source = CLASSES.replace("return F.cross_entropy(out, y)", "return F.cross_entropy(torch.softmax(out, -1), y)")
    r = program(source, ONLY)
    f = finding(r, "ACT001")
    assert f.severity == "error" and f.evidence["made_by"] == "softmax" and f.evidence["shape"] == [8, 3]
    assert f.examples[0]["row_sums"] == [1.0, 1.0]
    assert f.examples[0]["at"].endswith(f"prog.py:{line_of(source, 'F.cross_entropy(torch.softmax')}")
    assert r.exit_code == 1


def test_softmax_in_the_model_before_cross_entropy_loss_module(program) -> None:  # type: ignore[no-untyped-def]
    source = CLASSES.replace("* self.scale", "* self.scale\n\n    def __call__(self, x):\n"
                             "        return torch.softmax(super().__call__(x), dim=1)").replace(
        "return F.cross_entropy(out, y)", "return nn.CrossEntropyLoss()(out, y)")  # fmt: skip
    assert alarms(program(source, ONLY)) == ["ACT001"]


@pytest.mark.parametrize(
    "loss",
    [
        "F.cross_entropy(out, y)",
        "F.cross_entropy(out, y, label_smoothing=0.1)",
        "F.nll_loss(F.log_softmax(out, -1), y)",
        "F.cross_entropy(F.log_softmax(out, -1), y)",
        "F.cross_entropy(out, y, reduction='sum')",
        "(0.25 * (1 - torch.exp(-F.cross_entropy(out, y, reduction='none'))) ** 2 "
        "* F.cross_entropy(out, y, reduction='none')).mean()",
        "F.cross_entropy(out, y) + 0.01 * (out ** 2).sum() / out.shape[0]",
    ],
    ids=["plain", "label smoothing", "log_softmax nll", "log_softmax ce", "sum", "focal", "penalty as a mean"],
)
def test_correct_class_losses_give_no_finding(program, loss: str) -> None:  # type: ignore[no-untyped-def]
    r = program(CLASSES.replace("return F.cross_entropy(out, y)", f"return {loss}"), ONLY)
    assert alarms(r) == [] and r.exit_code == 0, [f.message for f in r.findings]


def test_small_logits_are_not_probabilities(program) -> None:  # type: ignore[no-untyped-def]
    """Logits scaled into [0, 1) sum to anything but 1 per row: raw scores, correctly given to the loss."""
    source = CLASSES.replace("return Net()", "return Net(scale=0.01)").replace(
        "return F.cross_entropy(out, y)", "return F.cross_entropy(out.abs(), y)"
    )
    r = program(source, ONLY)
    assert alarms(r) == [] and finding(r, "ACT000").tables[0].rows[0][2] == "scores"


def test_nll_loss_on_probabilities_is_found(program) -> None:  # type: ignore[no-untyped-def]
    source = CLASSES.replace("return F.cross_entropy(out, y)", "return F.nll_loss(torch.softmax(out, -1), y)")
    f = finding(program(source, ONLY), "ACT004")
    assert f.evidence["form"] == "probabilities" and "log_softmax" in f.remediation


@pytest.mark.parametrize(
    ("loss", "form"),
    [
        ("F.nll_loss(out, y)", "scores"),
        ("F.nll_loss(F.log_softmax(out, dim=0), y)", "log-probabilities over the batch axis"),
    ],
    ids=["raw logits", "log_softmax over the batch"],
)
def test_nll_loss_on_what_is_not_log_probabilities_is_found(program, loss: str, form: str) -> None:  # type: ignore[no-untyped-def]
    r = program(CLASSES.replace("return F.cross_entropy(out, y)", f"return {loss}"), ONLY)
    f = finding(r, "ACT006")
    assert f.severity == "error" and f.evidence["form"] == form and r.exit_code == 1


@pytest.mark.parametrize(
    "loss",
    [
        "F.nll_loss(F.log_softmax(out.bfloat16(), -1), y)",  # half-precision log-probabilities, rows inexact
        "F.nll_loss(torch.log(torch.softmax(out, -1) + 1e-9), y)",
        "F.nll_loss(F.log_softmax(out, -1) - 0.5, y)",  # all below 0, rows off: not clearly wrong, left alone
    ],
    ids=["bfloat16", "log of softmax", "shifted"],
)
def test_log_probabilities_however_made_are_fine_for_nll_loss(program, loss: str) -> None:  # type: ignore[no-untyped-def]
    r = program(CLASSES.replace("return F.cross_entropy(out, y)", f"return {loss}"), ONLY)
    assert "ACT006" not in codes(r), [f.message for f in r.findings]


def test_sigmoid_before_bce_with_logits_is_found(program) -> None:  # type: ignore[no-untyped-def]
    source = BINARY.replace("(out.squeeze(-1), y)", "(torch.sigmoid(out).squeeze(-1), y)")
    f = finding(program(source, ONLY), "ACT002")
    assert f.evidence["made_by"] == "sigmoid" and 0.0 <= f.evidence["min"] <= f.evidence["max"] <= 1.0


def test_logits_that_happen_to_lie_in_0_1_are_fine_for_bce_with_logits(program) -> None:  # type: ignore[no-untyped-def]
    source = BINARY.replace("(out.squeeze(-1), y)", "(0.5 + 0.01 * out.squeeze(-1), y)")
    r = program(source, ONLY)
    assert alarms(r) == [] and r.exit_code == 0


def test_bce_on_logits_is_found_even_though_the_loss_raises(program) -> None:  # type: ignore[no-untyped-def]
    source = BINARY.replace("F.binary_cross_entropy_with_logits(out.squeeze(-1), y)",
                            "nn.BCELoss()(out.squeeze(-1) * 10, y)")  # fmt: skip
    r = program(source, ONLY)
    f = finding(r, "ACT003")
    assert f.evidence["min"] < 0 or f.evidence["max"] > 1
    assert "the loss raised" in finding(r, "ACT000").message


def test_bce_straight_from_a_linear_layer_is_found_when_values_fit(program) -> None:  # type: ignore[no-untyped-def]
    source = BINARY.replace(
        "F.binary_cross_entropy_with_logits(out.squeeze(-1), y)", "F.binary_cross_entropy(out.squeeze(-1), y)"
    ).replace(
        "return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))",
        "m = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))\n"
        "    with torch.no_grad():\n        m[2].weight.zero_()\n        m[2].bias.fill_(0.5)\n    return m",
    )
    f = finding(program(source, ONLY), "ACT003")
    assert f.evidence["made_by"] == "linear" and f.evidence["min"] == f.evidence["max"] == 0.5


def test_bce_on_sigmoid_outputs_is_right(program) -> None:  # type: ignore[no-untyped-def]
    source = BINARY.replace("F.binary_cross_entropy_with_logits(out.squeeze(-1), y)",
                            "F.binary_cross_entropy(torch.sigmoid(out).squeeze(-1), y)")  # fmt: skip
    assert alarms(program(source, ONLY)) == []


def test_a_loss_that_sums_one_term_and_averages_another_is_found(program) -> None:  # type: ignore[no-untyped-def]
    source = CLASSES.replace("return F.cross_entropy(out, y)", "return F.cross_entropy(out, y) + (out ** 2).sum()")
    f = finding(program(source, ONLY), "ACT005")
    assert f.severity == "warning"
    assert [e["reduction"] for e in f.examples] == ["sum", "mean"]
    assert [e["op"] for e in f.examples] == ["sum", "cross_entropy"]
    assert f.examples[0]["at"].endswith(f"prog.py:{line_of(source, '(out ** 2).sum()')}")
    assert abs(f.evidence["loss_twice"] - f.evidence["loss_once"] - f.evidence["summed_part"]) < 1e-5


def test_a_loss_summed_everywhere_is_not_mixed(program) -> None:  # type: ignore[no-untyped-def]
    source = CLASSES.replace(
        "return F.cross_entropy(out, y)", "return F.cross_entropy(out, y, reduction='sum') + (out ** 2).sum()"
    )
    assert alarms(program(source, ONLY)) == []


def test_mixed_reductions_over_flattened_token_positions(program) -> None:  # type: ignore[no-untyped-def]
    source = """
def model():
    return nn.Sequential(nn.Embedding(10, 8), nn.Linear(8, 10))

def batch():
    g = torch.Generator().manual_seed(0)
    return torch.randint(0, 10, (4, 6), generator=g), torch.randint(0, 10, (4, 6), generator=g)

def loss(out, y):
    tokens = F.cross_entropy(out.reshape(-1, 10), y.reshape(-1))
    return tokens + (out.softmax(-1).max(-1).values).sum()
"""
    f = finding(program(source, ONLY), "ACT005")
    assert f.examples[1]["op"] == "cross_entropy" and f.examples[1]["shape"] == [24, 10]


VAE_LOSS = "    return (reconstruction + kl).mean()"


def test_a_vae_that_sums_the_reconstruction_and_averages_the_kl(program) -> None:  # type: ignore[no-untyped-def]
    # At initialisation the KL term is under a thousandth of the summed reconstruction: small, and still a mix.
    source = VAE.replace(
        '    reconstruction = F.binary_cross_entropy_with_logits(logits, x, reduction="none").sum(1)\n'
        "    kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(1)\n" + VAE_LOSS,
        '    reconstruction = F.binary_cross_entropy_with_logits(logits, x, reduction="sum")\n'
        "    kl = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())\n    return reconstruction + kl",
    )
    r = program(source, ONLY)
    f = finding(r, "ACT005")
    assert [e["op"] for e in f.examples] == ["binary_cross_entropy_with_logits", "mean"]
    assert f.examples[0]["at"].endswith(f"prog.py:{line_of(source, 'reduction=')}")
    assert f.examples[1]["at"].endswith(f"prog.py:{line_of(source, 'torch.mean(')}")
    assert 0 < f.evidence["averaged_part"] < 1e-3 * f.evidence["summed_part"]
    assert "(here the averaged term is 0.0" in f.message and alarms(r) == ["ACT005"]


@pytest.mark.parametrize(
    "reduced",
    [
        VAE_LOSS,
        "    return reconstruction.sum() / x.shape[0] + kl.mean()",
        "    return reconstruction.sum() + kl.sum()",
        "    return (reconstruction + kl).mean() + 0.1 * sum(p.pow(2).mean() for p in penalised)",
        "    return (reconstruction + kl).sum() + sum(p.pow(2).mean() for p in penalised)",
    ],
    ids=[
        "per sample, averaged",
        "summed then divided by the batch",
        "summed",
        "mean with weight decay",
        "sum with weight decay",
    ],
)
def test_a_vae_loss_reduced_one_way_is_not_mixed(program, reduced: str) -> None:  # type: ignore[no-untyped-def]
    # A penalty on the parameters is the same for any batch: its mean is over no batch, though the first axis
    # of the encoder's weight (24) is a multiple of the batch's (12).
    source = VAE.replace("def loss(outputs, x):", "penalised = []\n\ndef loss(outputs, x):").replace(
        "def model():\n    return VAE()",
        "def model():\n    m = VAE()\n    penalised[:] = list(m.parameters())\n    return m",
    )
    r = program(source.replace(VAE_LOSS, reduced), ONLY)
    assert alarms(r) == [] and r.exit_code == 0
