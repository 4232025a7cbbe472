"""train_step: zero_grad, parameters that move, lr 0, overfitting one batch, the loss at initialisation."""

from __future__ import annotations

import math

from auditor.core.findings import Severity
from tests.conftest import codes, finding
from tests.stages.numeric.conftest import REGRESSION, line_of, result

ONLY = ["train_step"]
CLASSIFIER = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Dropout(0.2))
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        return self.head(self.body(x))

def model():
    return Net()

def batch():
    g = torch.Generator().manual_seed(0)
    return torch.randn(8, 4, generator=g), torch.tensor([0, 1, 2, 0, 1, 2, 0, 1])

def loss(out, y):
    return F.cross_entropy(out, y)

def optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=0.01)
"""
OPT = {"optimizer": "prog:optimizer"}
STEP = {"optimizer": "prog:optimizer", "step": "prog:step"}


def with_step(*lines: str) -> str:
    """CLASSIFIER with a `step(model, opt, batch)` that unpacks the batch and then runs ``lines``."""
    return (
        CLASSIFIER + "\ndef step(model, opt, batch):\n" + "".join(f"    {line}\n" for line in ("x, y = batch", *lines))
    )


def warnings_and_errors(report) -> list[str]:  # type: ignore[no-untyped-def]
    return [f.code for f in report.findings if f.severity >= Severity.WARNING]


def test_canonical_step_on_a_correct_classifier_with_dropout_finds_nothing(program) -> None:  # type: ignore[no-untyped-def]
    r = program(CLASSIFIER, ONLY, **OPT)
    assert warnings_and_errors(r) == [] and codes(r) == ["STP000"] and r.exit_code == 0
    rows = dict(finding(r, "STP000").tables[0].rows)
    assert rows["step"] == "the canonical step" and rows["gradient per step (x the first)"] == "1, 1"


def test_a_step_without_zero_grad_accumulates_gradients(program) -> None:  # type: ignore[no-untyped-def]
    source = with_step(
        "model.train()",
        "l = loss(model(x), y)",
        "l.backward()",
        "opt.step()",
        "return l",
    )
    f = finding(program(source, ONLY, **STEP), "STP001")
    assert f.severity == "error" and f.evidence["multiples"] == [1.0, 2.0]
    assert f.examples[0]["at"].endswith(f"prog.py:{line_of(source, 'l.backward()')}")
    assert f.examples[0]["batch"] == {"inputs": [8, 4], "targets": [8]}
    assert "prog:step" in f.message and "zero_grad" in f.remediation


def test_a_step_without_zero_grad_is_found_under_gradient_clipping(program) -> None:  # type: ignore[no-untyped-def]
    # Clipped to a norm below the batch's gradient, the summed gradient reaches step() no larger than the first:
    # the gradient is read where backward() leaves it, before the clipping.
    source = with_step(
        "model.train()",
        "l = loss(model(x), y)",
        "l.backward()",
        "torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)",
        "opt.step()",
        "return l.item()",
    )
    f = finding(program(source, ONLY, **STEP), "STP001")
    assert f.evidence["multiples"] == [1.0, 2.0]


def test_gradient_clipping_with_zero_grad_is_right(program) -> None:  # type: ignore[no-untyped-def]
    source = with_step(
        "model.train()",
        "opt.zero_grad()",
        "l = loss(model(x), y)",
        "l.backward()",
        "torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)",
        "opt.step()",
        "return l.item()",
    )
    r = program(source, ONLY, **STEP)
    assert warnings_and_errors(r) == [] and r.exit_code == 0


def test_zero_grad_after_the_update_is_right(program) -> None:  # type: ignore[no-untyped-def]
    source = with_step(
        "model.train()",
        "l = loss(model(x), y)",
        "l.backward()",
        "opt.step()",
        "opt.zero_grad(set_to_none=True)",
        "return l.item()",
    )
    r = program(source, ONLY, **STEP)
    assert warnings_and_errors(r) == [], [f.message for f in r.findings]


def accumulating_step(every: int) -> str:
    """A step that adds 1/every of the gradient a call and updates the parameters every `every` calls."""
    return f"""
calls = [0]

def step(model, opt, batch):
    x, y = batch
    model.train()
    out = loss(model(x), y)
    (out / {every}).backward()
    calls[0] += 1
    if calls[0] % {every} == 0:
        opt.step()
        opt.zero_grad()
    return out.detach()
"""


ACCUMULATING = CLASSIFIER + accumulating_step(2)


def test_deliberate_accumulation_is_allowed_by_numeric_accumulate(program) -> None:  # type: ignore[no-untyped-def]
    assert "STP001" not in codes(program(ACCUMULATING, ["train_step"], accumulate=2, **STEP))


SLOW_SGD = CLASSIFIER.replace(
    "torch.optim.Adam(model.parameters(), lr=0.01)", "torch.optim.SGD(model.parameters(), lr=0.1)"
)


def test_the_overfit_budget_counts_updates_when_the_step_accumulates(program) -> None:  # type: ignore[no-untyped-def]
    # Four calls to an update: 40 calls are 10 updates, which this SGD step needs more than.
    accumulating = SLOW_SGD + accumulating_step(4)
    plain = program(
        SLOW_SGD + "\ndef step(model, opt, batch):\n    x, y = batch\n    model.train()\n"
        "    opt.zero_grad()\n    out = loss(model(x), y)\n    out.backward()\n    opt.step()\n"
        "    return out.detach()\n",
        ONLY,
        stages={"train_step": {"overfit_steps": 40}},
        **STEP,
    )
    fitted = dict(finding(plain, "STP000").tables[0].rows)["overfit one batch"]
    steps = int(fitted.rsplit(" in ", 1)[1].split()[0])
    assert "STP004" not in codes(plain) and steps > 10  # the updates it needs
    r = program(accumulating, ONLY, accumulate=4, stages={"train_step": {"overfit_steps": 40}}, **STEP)
    assert "STP004" not in codes(r) and "STP001" not in codes(r)


def test_accumulation_beyond_what_numeric_accumulate_allows_is_found(program) -> None:  # type: ignore[no-untyped-def]
    never_cleared = ACCUMULATING.replace("        opt.zero_grad()\n", "")
    f = finding(program(never_cleared, ONLY, accumulate=2, **STEP), "STP001")
    assert f.evidence["multiples"] == [1.0, 2.0, 3.0] and f.evidence["accumulate"] == 2


def test_a_step_that_never_updates_leaves_parameters_unmoved(program) -> None:  # type: ignore[no-untyped-def]
    source = with_step(
        "model.train()",
        "opt.zero_grad()",
        "l = loss(model(x), y)",
        "l.backward()",
        "return l",
    )
    f = finding(program(source, ONLY, **STEP), "STP002")
    assert set(f.evidence["parameters"]) == {"body.0.weight", "body.0.bias", "head.weight", "head.bias"}
    assert "never called optimizer.step()" in f.message


def test_parameters_left_out_of_the_optimizer_are_not_reported_twice(program) -> None:  # type: ignore[no-untyped-def]
    source = CLASSIFIER.replace("torch.optim.Adam(model.parameters()", "torch.optim.Adam(model.body.parameters()")
    assert "STP002" not in codes(program(source, ONLY, **OPT))


def test_learning_rate_zero_is_found_once(program) -> None:  # type: ignore[no-untyped-def]
    r = program(CLASSIFIER.replace("lr=0.01", "lr=0.0"), ONLY, **OPT)
    assert warnings_and_errors(r) == ["STP003"] and finding(r, "STP003").evidence == {"learning_rates": [0.0]}


def test_a_warm_up_from_zero_is_not_a_zero_learning_rate(program) -> None:  # type: ignore[no-untyped-def]
    source = CLASSIFIER.replace(
        "    return torch.optim.Adam(model.parameters(), lr=0.01)",
        "    opt = torch.optim.Adam(model.parameters(), lr=0.01)\n"
        "    torch.optim.lr_scheduler.LambdaLR(opt, lambda s: s / 10)\n"
        "    return opt",
    )
    r = program(source, ONLY, **OPT)
    assert warnings_and_errors(r) == []
    assert dict(finding(r, "STP000").tables[0].rows)["overfit one batch"] == "not probed: the learning rate is 0"


def test_a_batch_that_cannot_be_overfit_is_an_error(program) -> None:  # type: ignore[no-untyped-def]
    r = program(CLASSIFIER.replace("lr=0.01", "lr=1e-7"), ONLY, **OPT)
    f = finding(r, "STP004")
    assert f.severity == "error" and f.evidence["steps"] == 200 and not f.evidence["timed_out"]
    assert f.evidence["final_loss"] > 0.5 * f.evidence["initial_loss"]


def test_overfit_budget_ending_first_is_a_warning(program) -> None:  # type: ignore[no-untyped-def]
    r = program(
        CLASSIFIER.replace("lr=0.01", "lr=1e-7"), ONLY, stages={"train_step": {"overfit_seconds": 0.001}}, **OPT
    )
    f = finding(r, "STP004")
    assert f.severity == "warning" and f.evidence["timed_out"] and f.evidence["steps"] < 200


def test_a_regression_with_plain_sgd_overfits(program) -> None:  # type: ignore[no-untyped-def]
    source = (
        REGRESSION
        + """
def loss(out, y):
    return ((out.squeeze(-1) - y) ** 2).mean()

def optimizer(model):
    return torch.optim.SGD(model.parameters(), lr=0.01)
"""
    )
    r = program(source, ONLY, **OPT)
    assert warnings_and_errors(r) == []
    assert dict(finding(r, "STP000").tables[0].rows)["loss at initialisation"].startswith("not probed")


def test_loss_scaled_far_beyond_log_c_is_found(program) -> None:  # type: ignore[no-untyped-def]
    f = finding(program(CLASSIFIER.replace("F.cross_entropy(out, y)", "F.cross_entropy(out, y) * 100"), ONLY, **OPT),
                "STP005")  # fmt: skip
    assert f.severity == "warning" and f.evidence["classes"] == 3
    assert math.isclose(f.evidence["expected"], math.log(3), rel_tol=1e-5) and f.evidence["loss"] > 100


def test_nll_loss_on_probabilities_is_negative_at_initialisation(program) -> None:  # type: ignore[no-untyped-def]
    source = CLASSIFIER.replace("F.cross_entropy(out, y)", "F.nll_loss(torch.softmax(out, -1), y)")
    assert "never negative" in finding(program(source, ONLY, **OPT), "STP005").message


def test_a_documented_sum_and_a_focal_loss_are_not_far_off(program) -> None:  # type: ignore[no-untyped-def]
    summed = CLASSIFIER.replace("F.cross_entropy(out, y)", "F.cross_entropy(out, y, reduction='sum')")
    r = program(summed, ONLY, **OPT)
    assert "STP005" not in codes(r)
    assert "a sum over 8 targets" in dict(finding(r, "STP000").tables[0].rows)["loss at initialisation"]
    focal = CLASSIFIER.replace(
        "return F.cross_entropy(out, y)",
        "ce = F.cross_entropy(out, y, reduction='none')\n    return (0.25 * (1 - torch.exp(-ce)) ** 2 * ce).mean()",
    )
    assert "STP005" not in codes(program(focal, ONLY, **OPT))


def test_a_step_without_model_train_runs_dropout_in_eval_mode(program) -> None:  # type: ignore[no-untyped-def]
    source = with_step(
        "opt.zero_grad()",
        "l = loss(model(x), y)",
        "l.backward()",
        "opt.step()",
        "return l",
    )
    f = finding(program(source, ONLY, **STEP), "STP006")
    assert f.severity == "warning" and f.evidence == {"modules": ["body.2"]}
    without_dropout = source.replace(", nn.Dropout(0.2)", "")
    assert "STP006" not in codes(program(without_dropout, ONLY, **STEP))


def test_no_trainable_parameters_is_a_skip_with_its_reason(program) -> None:  # type: ignore[no-untyped-def]
    source = CLASSIFIER.replace("return Net()", "return Net().requires_grad_(False)").replace(
        "torch.optim.Adam(model.parameters(), lr=0.01)", "torch.optim.Adam([nn.Parameter(torch.zeros(1))])"
    )
    r = program(source, ONLY, **OPT)
    stage = result(r, "train_step")
    assert stage.status == "skipped" and "no trainable parameters" in (stage.skip_reason or "")
    assert r.exit_code == 2  # nothing was audited


def test_without_an_optimizer_the_stage_is_skipped(program) -> None:  # type: ignore[no-untyped-def]
    stage = result(program(CLASSIFIER, ["train_step", "batch_inspect"]), "train_step")
    assert stage.status == "skipped" and "numeric.optimizer" in (stage.skip_reason or "")


def test_a_step_that_returns_no_loss_is_named(program) -> None:  # type: ignore[no-untyped-def]
    source = (
        CLASSIFIER
        + """
def step(model, opt, batch):
    return None
"""
    )
    stage = result(program(source, ONLY, **STEP), "train_step")
    assert stage.status == "error" and stage.error is not None
    assert "prog:step (numeric.step) returned a NoneType" in stage.error.message


LM = """
def model():
    return nn.Sequential(nn.Embedding(10, 16), nn.Linear(16, 10))

def batch():
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, 10, (4, 6), generator=g)
    return ids, torch.randint(0, 10, (4, 6), generator=g)

def loss(out, y):
    return F.cross_entropy(out.reshape(-1, 10), y.reshape(-1), reduction="sum") / out.shape[0]

def optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=0.01)
"""


def test_a_sentence_level_sum_is_a_deliberate_scale(program) -> None:  # type: ignore[no-untyped-def]
    # Summed over each sentence's 6 tokens and averaged over the 4 sentences: 6 log 10, on purpose.
    r = program(LM, ONLY, **OPT)
    assert "STP005" not in codes(r)
    assert "a sum over each sample's 6 targets" in dict(finding(r, "STP000").tables[0].rows)["loss at initialisation"]
    assert "STP005" in codes(program(LM.replace("/ out.shape[0]", "* 3"), ONLY, **OPT))


def test_zero_grad_between_backward_and_step_is_named_as_why_nothing_moves(program) -> None:  # type: ignore[no-untyped-def]
    source = with_step(
        "model.train()",
        "l = loss(model(x), y)",
        "l.backward()",
        "opt.zero_grad()",
        "opt.step()",
        "return l",
    )
    r = program(source, ONLY, **STEP)
    f = finding(r, "STP002")
    assert f.severity == "error" and r.exit_code == 1
    assert "cleared before optimizer.step() ran" in f.message and "zero_grad() is called between" in f.message
    assert {"head.weight", "head.bias"} <= set(f.evidence["parameters"])


def test_zero_grad_after_step_or_before_backward_moves_every_parameter(program) -> None:  # type: ignore[no-untyped-def]
    for order in (
        ("opt.zero_grad()", "l = loss(model(x), y)", "l.backward()", "opt.step()"),
        ("l = loss(model(x), y)", "l.backward()", "opt.step()", "opt.zero_grad()"),
    ):
        r = program(with_step("model.train()", *order, "return l"), ONLY, **STEP)
        assert "STP002" not in codes(r) and r.exit_code == 0, (order, codes(r))
