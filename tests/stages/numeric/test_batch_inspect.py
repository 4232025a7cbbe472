from __future__ import annotations

from tests.conftest import codes, finding
from tests.stages.numeric.conftest import REGRESSION, result

ONLY = ["batch_inspect"]
MSE = """
def loss(out, y):
    return ((out.squeeze(1) - y) ** 2).mean()
"""


def test_a_clean_batch_is_tabled(program) -> None:  # type: ignore[no-untyped-def]
    r = program(REGRESSION + MSE, ONLY)
    assert codes(r) == ["BAT000"] and r.exit_code == 0
    rows = {row[0]: row for row in finding(r, "BAT000").tables[0].rows}
    assert rows["inputs"][1:] == ("(3, 2)", "float32", "cpu", True)
    assert rows["outputs"][1] == "(3, 1)" and rows["loss"][1] == "()"


def test_non_finite_inputs(program) -> None:  # type: ignore[no-untyped-def]
    source = REGRESSION.replace("[3.0, 4.0]", "[float('nan'), 4.0]") + MSE
    f = finding(program(source, ONLY), "BAT001")
    assert f.key == "inputs" and f.evidence["non_finite"] == 1 and f.examples[0]["index"] == [1, 0]


def test_non_finite_outputs_from_a_finite_batch(program) -> None:  # type: ignore[no-untyped-def]
    source = REGRESSION + "\ndef loss(out, y):\n    return (torch.log(out - 100) - y).mean()\n"
    assert finding(program(source, ONLY), "BAT002").evidence == {"non_finite": "loss"}


def test_batch_size_mismatch_and_dtype_mismatch(program) -> None:  # type: ignore[no-untyped-def]
    source = REGRESSION.replace("torch.tensor([1.0, 2.0, 3.0])", "torch.tensor([1.0, 2.0], dtype=torch.float64)")
    source += "\ndef loss(out, y):\n    return (out.sum() - y.sum()) ** 2\n"
    r = program(source, ONLY)
    assert finding(r, "BAT004").evidence == {"outputs": [3, 1], "targets": [2]}
    assert finding(r, "BAT005").evidence == {"outputs": "float32", "targets": "float64"}


def test_loss_that_is_not_a_scalar(program) -> None:  # type: ignore[no-untyped-def]
    source = REGRESSION + "\ndef loss(out, y):\n    return (out.squeeze(1) - y) ** 2\n"
    assert finding(program(source, ONLY), "BAT006").evidence == {"loss": "shape (3,)"}


def test_empty_batch(program) -> None:  # type: ignore[no-untyped-def]
    source = REGRESSION.replace("return x, torch.tensor([1.0, 2.0, 3.0])", "return x[:0], torch.zeros(0)") + MSE
    assert finding(program(source, ONLY), "BAT007").evidence == {"empty": ["inputs", "targets"]}


def test_batch_that_is_not_a_pair_is_an_input_error(program) -> None:  # type: ignore[no-untyped-def]
    source = REGRESSION.replace("return x, torch.tensor([1.0, 2.0, 3.0])", "return x") + MSE
    r = program(source, ONLY)
    res = result(r, "batch_inspect")
    assert res.status == "error" and r.exit_code == 2
    assert res.error is not None and "expected a pair (inputs, targets)" in res.error.message


def test_a_loss_returning_logs_or_not_a_scalar_does_not_break_other_stages(program) -> None:  # type: ignore[no-untyped-def]
    every = ["batch_inspect", "broadcast", "detached_graph", "stable_softmax", "nonfinite_trace"]
    logs = REGRESSION + (
        "\ndef loss(out, y):\n    value = ((out.squeeze(1) - y) ** 2).mean()\n    return value, {'mse': value.item()}\n"
    )
    r = program(logs, every)
    assert r.exit_code == 0 and not [f.code for f in r.findings if f.severity != "info"]
    per_sample = REGRESSION + "\ndef loss(out, y):\n    return (out.squeeze(1) - y) ** 2\n"
    r = program(per_sample, every)
    assert all(s.status != "error" for s in r.stages), [s.error for s in r.stages if s.error]
    assert [f.code for f in r.findings if f.severity != "info"] == ["BAT006"]


def test_a_loss_that_raises_is_a_finding_next_to_the_shapes(program) -> None:  # type: ignore[no-untyped-def]
    source = """
def model():
    return nn.Linear(2, 3)

def batch():
    return torch.randn(4, 2), torch.tensor([0, 1, 2])

def loss(out, y):
    return F.cross_entropy(out, y)
"""
    r = program(source, ONLY)
    assert finding(r, "BAT004").evidence == {"outputs": [4, 3], "targets": [3]}
    assert "Expected input batch_size (4) to match target batch_size (3)" in finding(r, "BAT008").message


def test_other_stages_do_not_probe_an_empty_batch(program) -> None:  # type: ignore[no-untyped-def]
    source = REGRESSION.replace("return x, torch.tensor([1.0, 2.0, 3.0])", "return x[:0], torch.zeros(0)") + MSE
    r = program(source, ["batch_inspect", "nonfinite_trace"])
    assert codes(r) == ["BAT007"]
    res = result(r, "nonfinite_trace")
    assert res.status == "error" and res.error is not None and "empty tensors" in res.error.message


def test_a_loss_that_returns_none(program) -> None:  # type: ignore[no-untyped-def]
    source = REGRESSION + "\ndef loss(out, y):\n    ((out.squeeze(1) - y) ** 2).mean()\n"
    assert finding(program(source, ONLY), "BAT006").evidence == {"loss": "a NoneType"}


TWO_VIEWS = """
class Siamese(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 2)

    def forward(self, views):
        a, b = views
        return self.net(a) - self.net(b)

def model():
    return Siamese()

def batch():
    g = torch.Generator().manual_seed(0)
    views = (torch.randn(6, 4, generator=g), torch.randn(6, 4, generator=g))
    return VIEWS, torch.randn(6, 2, generator=g)

def loss(outputs, targets):
    return F.mse_loss(outputs, targets)
"""


def test_a_tuple_of_inputs_spread_into_a_forward_of_one_argument_says_how_to_pass_it(program) -> None:  # type: ignore[no-untyped-def]
    r = program(TWO_VIEWS.replace("VIEWS", "views"), only=["batch_inspect", "broadcast"])
    res = result(r, "broadcast")
    assert res.status == "error" and r.exit_code == 2
    assert res.error is not None and "passed as model(*inputs)" in res.error.message
    assert "return the inputs as a list" in res.error.message
    # As the message says: a list is given to forward as one argument.
    fixed = program(TWO_VIEWS.replace("VIEWS", "list(views)"), only=["batch_inspect", "broadcast"])
    assert all(s.status != "error" for s in fixed.stages), [s.error for s in fixed.stages if s.error]
