from __future__ import annotations

from tests.conftest import codes, finding
from tests.stages.numeric.conftest import REGRESSION, line_of

ONLY = ["detached_graph"]
TWO_LAYERS = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(2, 4)
        self.head = nn.Linear(4, 1)

    def forward(self, x):
        return self.head(torch.relu(self.body(x))).squeeze(-1)

def model():
    return Net()

def batch():
    return torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), torch.tensor([1.0, 2.0, 3.0])

def loss(out, y):
    return ((out - y) ** 2).mean()
"""


def test_item_rewrapped_in_a_tensor_cuts_the_loss(program) -> None:  # type: ignore[no-untyped-def]
    source = TWO_LAYERS.replace(
        "return ((out - y) ** 2).mean()", "value = ((out - y) ** 2).mean().item()\n    return torch.tensor(value)"
    )
    r = program(source, ONLY)
    f = finding(r, "GRD001")
    assert f.examples[0]["op"] == "item" and f.examples[0]["at"].endswith(f"prog.py:{line_of(source, '.item()')}")
    assert r.exit_code == 1


def test_leaf_loss_with_requires_grad_is_still_cut(program) -> None:  # type: ignore[no-untyped-def]
    source = TWO_LAYERS.replace(
        "return ((out - y) ** 2).mean()", "return torch.tensor(((out - y) ** 2).mean().item(), requires_grad=True)"
    )
    assert "GRD001" in codes(program(source, ONLY))


def test_detach_inside_the_model_leaves_parameters_unreachable(program) -> None:  # type: ignore[no-untyped-def]
    source = TWO_LAYERS.replace("torch.relu(self.body(x))", "torch.relu(self.body(x)).detach()")
    f = finding(program(source, ONLY), "GRD002")
    assert f.severity == "error" and f.evidence == {"parameters": ["body.weight", "body.bias"]}
    assert f.examples[0]["op"] == "detach" and f.examples[0]["at"].endswith(f"prog.py:{line_of(source, '.detach()')}")


def test_unused_parameter_without_a_cut_is_a_warning(program) -> None:  # type: ignore[no-untyped-def]
    source = TWO_LAYERS.replace(
        "self.head = nn.Linear(4, 1)", "self.head = nn.Linear(4, 1)\n        self.spare = nn.Linear(4, 4)"
    )
    f = finding(program(source, ONLY), "GRD002")
    assert f.severity == "warning" and f.evidence == {"parameters": ["spare.weight", "spare.bias"]}
    # What an acceptance of it covers: these parameters; another one cut off later is a new part.
    assert f.scope.values == ("spare.bias", "spare.weight") and f.scope.counts == {"parameters": 2}


def test_zero_gradient_is_told_apart_from_none(program) -> None:  # type: ignore[no-untyped-def]
    source = TWO_LAYERS.replace("return self.head(", "return 0 * self.body(x).sum(-1) + self.head(")
    r = program(source, ONLY)
    assert "GRD002" not in codes(r)
    assert finding(r, "GRD000").evidence["zero"] == 0  # body also feeds head: not all zero
    zero = TWO_LAYERS.replace(
        "return self.head(torch.relu(self.body(x))).squeeze(-1)", "return 0 * self.body(x).sum(-1) + self.head.bias"
    )
    f = finding(program(zero, ONLY), "GRD003")
    assert f.evidence == {"parameters": ["body.weight", "body.bias"]}


def test_parameters_missing_from_the_optimizer(program) -> None:  # type: ignore[no-untyped-def]
    source = TWO_LAYERS + "\ndef optimizer(model):\n    return torch.optim.SGD(model.body.parameters(), lr=0.1)\n"
    f = finding(program(source, ONLY, optimizer="prog:optimizer"), "GRD004")
    assert f.evidence == {"parameters": ["head.weight", "head.bias"]}
    whole = TWO_LAYERS + "\ndef optimizer(model):\n    return torch.optim.SGD(model.parameters(), lr=0.1)\n"
    assert "GRD004" not in codes(program(whole, ONLY, optimizer="prog:optimizer"))


def test_frozen_teacher_and_logging_item_are_not_findings(program) -> None:  # type: ignore[no-untyped-def]
    source = TWO_LAYERS.replace(
        "return ((out - y) ** 2).mean()",
        "value = ((out - y) ** 2).mean()\n    print('loss', value.item())\n    return value",
    ).replace("self.head = nn.Linear(4, 1)", "self.head = nn.Linear(4, 1)\n        self.body.requires_grad_(False)")
    r = program(source, ONLY)
    assert codes(r) == ["GRD000", "GRD005"] and r.exit_code == 0
    assert finding(r, "GRD005").evidence == {"parameters": ["body.weight", "body.bias"]}


def test_simple_regression_passes(program) -> None:  # type: ignore[no-untyped-def]
    source = REGRESSION + "\ndef loss(out, y):\n    return ((out.squeeze(-1) - y) ** 2).mean()\n"
    assert codes(program(source, ONLY)) == ["GRD000"]


def test_a_rewrapped_term_inside_the_loss(program) -> None:  # type: ignore[no-untyped-def]
    source = TWO_LAYERS.replace(
        "return ((out - y) ** 2).mean()",
        "penalty = torch.tensor(out.abs().mean().item())\n    return ((out - y) ** 2).mean() + 0.1 * penalty",
    )
    f = finding(program(source, ONLY), "GRD006")
    assert f.severity == "warning" and f.evidence["taken_out"]["op"] == "item"
    assert f.evidence["wrapped"]["at"].endswith(f"prog.py:{line_of(source, 'penalty = torch.tensor')}")


def test_an_optimizer_factory_that_returns_something_else(program) -> None:  # type: ignore[no-untyped-def]
    from tests.stages.numeric.conftest import result

    source = TWO_LAYERS + "\ndef optimizer(model):\n    return [1, 2]\n"
    r = program(source, ONLY, optimizer="prog:optimizer")
    res = result(r, "detached_graph")
    assert res.status == "error" and res.error is not None and res.error.traceback == ""
    assert "returned a list of 2; expected a torch.optim.Optimizer" in res.error.message
