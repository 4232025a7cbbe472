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


def test_a_term_rewrapped_by_new_tensor_inside_the_loss(program) -> None:  # type: ignore[no-untyped-def]
    source = TWO_LAYERS.replace(
        "return ((out - y) ** 2).mean()",
        "return ((out - y) ** 2).mean() + out.new_tensor(0.1 * out.abs().mean().item())",
    )
    f = finding(program(source, ONLY), "GRD006")
    assert f.evidence["wrapped"]["op"] == "Tensor.new_tensor"


def test_a_value_rewrapped_for_logging_only_is_not_a_term_of_the_loss(program) -> None:  # type: ignore[no-untyped-def]
    # The copy kept for a log never reaches the loss: it trains nothing, and is not meant to.
    source = TWO_LAYERS.replace(
        "return ((out - y) ** 2).mean()",
        "loss = ((out - y) ** 2).mean()\n    logged = {'loss': torch.tensor(loss.item())}\n"
        "    weight = torch.tensor(1.0)\n    return loss * weight",
    )
    assert codes(program(source, ONLY)) == ["GRD000"]


def test_an_optimizer_factory_that_returns_something_else(program) -> None:  # type: ignore[no-untyped-def]
    from tests.stages.numeric.conftest import result

    source = TWO_LAYERS + "\ndef optimizer(model):\n    return [1, 2]\n"
    r = program(source, ONLY, optimizer="prog:optimizer")
    res = result(r, "detached_graph")
    assert res.status == "error" and res.error is not None and res.error.traceback == ""
    assert "returned a list of 2; expected a torch.optim.Optimizer" in res.error.message


DQN = """
class QNetworks(nn.Module):
    '''An online Q-network and its target copy; the target is synced by copying, never trained.'''

    def __init__(self):
        super().__init__()
        self.online = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
        self.target = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
        self.target.load_state_dict(self.online.state_dict())

    def forward(self, batch):
        obs, action, reward, next_obs = batch
        q = self.online(obs).gather(1, action[:, None]).squeeze(1)
        with torch.no_grad():
            bootstrap = reward + 0.99 * self.target(next_obs).max(1).values
        return q, bootstrap

def model():
    return QNetworks()

def batch():
    g = torch.Generator().manual_seed(0)
    obs, next_obs = torch.randn(8, 4, generator=g), torch.randn(8, 4, generator=g)
    action, reward = torch.randint(0, 2, (8,), generator=g), torch.randn(8, generator=g)
    return ((obs, action, reward, next_obs),), torch.zeros(8)

def loss(out, _unused):
    q, bootstrap = out
    return F.smooth_l1_loss(q, bootstrap)

def optimizer(model):
    return torch.optim.Adam(model.online.parameters(), lr=1e-3)
"""

EMA = """
class MeanTeacher(nn.Module):
    '''A student trained by the optimizer and a teacher that follows it as an exponential moving average.'''

    def __init__(self):
        super().__init__()
        self.student = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 4))
        self.teacher = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 4))

    @torch.no_grad()
    def update_teacher(self, decay=0.99):
        for t, s in zip(self.teacher.parameters(), self.student.parameters()):
            t.mul_(decay).add_(s, alpha=1 - decay)

    def forward(self, x):
        with torch.no_grad():
            soft = F.softmax(self.teacher(x), -1)
        return self.student(x), soft

def model():
    return MeanTeacher()

def batch():
    return torch.randn(6, 3), torch.tensor([0, 1, 2, 3, 0, 1])

def loss(out, y):
    logits, soft = out
    return F.cross_entropy(logits, y) + F.kl_div(F.log_softmax(logits, -1), soft, reduction="batchmean")

def optimizer(model):
    return torch.optim.SGD(model.student.parameters(), lr=0.1)
"""


def test_dqn_target_network_is_one_info_not_two_contradicting_findings(program) -> None:  # type: ignore[no-untyped-def]
    r = program(DQN, ONLY, optimizer="prog:optimizer")
    assert codes(r) == ["GRD000", "GRD007"] and r.exit_code == 0
    f = finding(r, "GRD007")
    assert f.severity == "info" and f.evidence["modules"] == ["target.0", "target.2"]
    assert f.evidence["parameters"] == ["target.0.weight", "target.0.bias", "target.2.weight", "target.2.bias"]


def test_ema_teacher_is_held_fixed_on_purpose(program) -> None:  # type: ignore[no-untyped-def]
    r = program(EMA, ONLY, optimizer="prog:optimizer")
    assert codes(r) == ["GRD000", "GRD007"] and r.exit_code == 0
    assert all(p.startswith("teacher.") for p in finding(r, "GRD007").evidence["parameters"])


def test_a_target_network_held_by_detach_and_left_out_of_the_optimizer_is_held_fixed(program) -> None:  # type: ignore[no-untyped-def]
    detached = DQN.replace(
        "with torch.no_grad():\n            bootstrap = reward + 0.99 * self.target(next_obs).max(1).values",
        "bootstrap = reward + 0.99 * self.target(next_obs).max(1).values.detach()",
    )
    assert ".detach()" in detached
    r = program(detached, ONLY, optimizer="prog:optimizer")
    assert codes(r) == ["GRD000", "GRD007"] and r.exit_code == 0
    f = finding(r, "GRD007")
    assert f.evidence["modules"] == ["target.0", "target.2"] and "cut at `detach`" in f.message
    # The optimizer holding them says they were meant to train: the detach is then the bug.
    whole = detached.replace("model.online.parameters()", "model.parameters()")
    g = finding(program(whole, ONLY, optimizer="prog:optimizer"), "GRD002")
    assert g.severity == "error" and g.evidence["parameters"][0] == "target.0.weight"


def test_no_grad_around_parameters_the_optimizer_holds_is_an_error(program) -> None:  # type: ignore[no-untyped-def]
    whole = DQN.replace("model.online.parameters()", "model.parameters()")
    f = finding(program(whole, ONLY, optimizer="prog:optimizer"), "GRD002")
    assert f.severity == "error" and "ran only under torch.no_grad(), yet the optimizer holds" in f.message
    assert "GRD007" not in codes(program(whole, ONLY, optimizer="prog:optimizer"))


def test_a_module_left_out_of_the_optimizer_and_trained_is_still_grd004(program) -> None:  # type: ignore[no-untyped-def]
    # The target network without its no_grad gets gradients: leaving it out of the optimizer is the bug.
    trained = DQN.replace("with torch.no_grad():\n            bootstrap", "if True:\n            bootstrap")
    r = program(trained, ONLY, optimizer="prog:optimizer")
    assert "GRD004" in codes(r) and "GRD007" not in codes(r) and "GRD002" not in codes(r)
