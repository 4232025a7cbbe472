from __future__ import annotations

from tests.conftest import codes, finding

ONLY = ["stable_softmax"]
CLASSIFIER = """
def model():
    return nn.Linear(3, 4)

def batch():
    return torch.randn(5, 3), torch.tensor([0, 1, 2, 3, 1])

def loss(out, y):
    return F.cross_entropy(out, y)

def naive(x, dim):
    e = torch.exp(x)
    return e / e.sum(dim, keepdim=True)

def stable(x, dim):
    e = torch.exp(x - x.max(dim, keepdim=True).values)
    return e / e.sum(dim, keepdim=True)

def wrong_axis(x, dim):
    e = torch.exp(x - x.max())
    return e / e.sum(0, keepdim=True)

def naive_loss(out, y):
    p = naive(out, -1)
    return -torch.log(p[torch.arange(len(y)), y]).mean()
"""


def test_naive_softmax_overflows_at_plus_1000(program) -> None:  # type: ignore[no-untyped-def]
    r = program(CLASSIFIER, ONLY, softmax="prog:naive")
    f = finding(r, "SMX001")
    assert f.evidence["finite_before"] is True and f.evidence["finite_after"] is False
    assert r.exit_code == 1


def test_stable_softmax_and_cross_entropy_pass(program) -> None:  # type: ignore[no-untyped-def]
    r = program(CLASSIFIER, ONLY, softmax="prog:stable")
    assert codes(r) == ["SMX000"] and r.exit_code == 0
    rows = finding(r, "SMX000").tables[0].rows
    assert [(row[0], row[1], row[2]) for row in rows] == [
        ("softmax", "float32", "+ 1000"),
        ("softmax", "float16", "+ 12"),
        ("loss", "float32", "+ 1000"),
        ("loss", "float32", "x 1000"),
    ]


def test_softmax_over_the_wrong_axis(program) -> None:  # type: ignore[no-untyped-def]
    f = finding(program(CLASSIFIER, ONLY, softmax="prog:wrong_axis"), "SMX004")
    assert f.evidence["row_sum"] != 1.0


def test_loss_built_on_a_naive_softmax(program) -> None:  # type: ignore[no-untyped-def]
    f = finding(program(CLASSIFIER, ONLY, loss="prog:naive_loss"), "SMX002")
    assert f.evidence["finite_after"] is False


def test_float16_overflow_is_a_warning(program) -> None:  # type: ignore[no-untyped-def]
    source = (
        CLASSIFIER
        + """
def fast_in_half(x, dim):
    # stable in float32; a hand-written fast path for float16 skips the max subtraction
    return torch.softmax(x, dim) if x.dtype == torch.float32 else naive(x, dim)
"""
    )
    r = program(source, ONLY, softmax="prog:fast_in_half")
    f = finding(r, "SMX003")
    assert f.severity == "warning" and f.evidence["dtype"] == "float16" and f.evidence["finite_after"] is False
    assert "SMX001" not in codes(r)


def test_regression_without_softmax_has_nothing_to_probe(program) -> None:  # type: ignore[no-untyped-def]
    source = (
        "def model():\n    return nn.Linear(2, 1)\n\ndef batch():\n    return torch.randn(3, 2), torch.randn(3, 1)\n"
    )
    source += "\ndef loss(out, y):\n    return F.mse_loss(out, y)\n"
    f = finding(program(source, ONLY), "SMX000")
    assert "nothing to probe" in f.message


def test_hand_written_log_of_softmax_fails_on_confident_logits(program) -> None:  # type: ignore[no-untyped-def]
    source = (
        CLASSIFIER
        + """
def log_of_softmax(out, y):
    return -torch.log(torch.softmax(out, 1)[torch.arange(len(y)), y]).mean()
"""
    )
    f = finding(program(source, ONLY, loss="prog:log_of_softmax"), "SMX002")
    assert "x 1000 (confident predictions)" in f.message


def test_log_softmax_outputs_with_nll_loss_and_regularized_losses_pass(program) -> None:  # type: ignore[no-untyped-def]
    source = CLASSIFIER.replace("return nn.Linear(3, 4)", "return nn.Sequential(nn.Linear(3, 4), nn.LogSoftmax(1))")
    source += "\ndef nll(out, y):\n    return F.nll_loss(out, y)\n"
    r = program(source, ONLY, loss="prog:nll")
    assert codes(r) == ["SMX000"] and "log-probabilities" in finding(r, "SMX000").message
    zloss = (
        CLASSIFIER
        + "\ndef zloss(out, y):\n    return F.cross_entropy(out, y) + 1e-4 * torch.logsumexp(out, -1).pow(2).mean()\n"
    )
    assert codes(program(zloss, ONLY, loss="prog:zloss")) == ["SMX000"]  # finite, so not an overflow


def test_softmax_returning_numpy_is_a_clear_stage_input_error(program) -> None:  # type: ignore[no-untyped-def]
    source = CLASSIFIER + "\ndef as_numpy(x, dim):\n    return torch.softmax(x, dim).numpy()\n"
    r = program(source, ONLY, softmax="prog:as_numpy")
    stage = next(s for s in r.stages if s.stage == "stable_softmax")
    assert stage.status == "error" and r.exit_code == 2
    assert stage.error is not None
    message = stage.error.message
    assert "numeric.softmax (prog:as_numpy)(logits, -1) returned a numpy.ndarray of shape (5, 4)" in message
    assert "expected a torch.Tensor of shape (5, 4)" in message
    assert "Traceback" not in message


def test_every_correct_softmax_formulation_passes(program) -> None:  # type: ignore[no-untyped-def]
    source = (
        CLASSIFIER
        + """
def via_logsumexp(x, dim):
    return torch.exp(x - torch.logsumexp(x, dim, keepdim=True))

def via_log_softmax(x, dim):
    return torch.log_softmax(x, dim).exp()

def builtin(x, dim):
    return torch.softmax(x, dim)
"""
    )
    for name in ("via_logsumexp", "via_log_softmax", "builtin", "stable"):
        r = program(source, ONLY, softmax=f"prog:{name}")
        assert codes(r) == ["SMX000"] and r.exit_code == 0, name


ONE_HOT = CLASSIFIER.replace(
    "return torch.randn(5, 3), torch.tensor([0, 1, 2, 3, 1])",
    "return torch.randn(5, 3), F.one_hot(torch.tensor([0, 1, 2, 3, 1]), 4).float()",
)


def test_naive_cross_entropy_on_one_hot_targets_is_found(program) -> None:  # type: ignore[no-untyped-def]
    source = ONE_HOT + "\ndef onehot_naive(out, y):\n    return -(y * torch.log(naive(out, -1))).sum(-1).mean()\n"
    f = finding(program(source, ONLY, loss="prog:onehot_naive"), "SMX002")
    assert f.evidence["targets"] == "one-hot" and f.evidence["finite_after"] is False
    assert f.evidence["logits_shape"] == [5, 4]


def test_soft_label_cross_entropy_stable_and_naive(program) -> None:  # type: ignore[no-untyped-def]
    soft = CLASSIFIER.replace(
        "return torch.randn(5, 3), torch.tensor([0, 1, 2, 3, 1])",
        "return torch.randn(5, 3), torch.softmax(torch.randn(5, 4), -1)",
    )
    source = (
        soft
        + "\ndef soft_stable(out, y):\n    return -(y * F.log_softmax(out, -1)).sum(-1).mean()\n"
        + "\ndef soft_naive(out, y):\n    return -(y * torch.log(naive(out, -1))).sum(-1).mean()\n"
    )
    r = program(source, ONLY, loss="prog:soft_stable")
    assert codes(r) == ["SMX000"] and "soft-label targets" in finding(r, "SMX000").message
    assert codes(program(source, ONLY, loss="prog:loss")) == ["SMX000"]  # F.cross_entropy takes probabilities
    assert finding(program(source, ONLY, loss="prog:soft_naive"), "SMX002").evidence["targets"] == "soft-label"
