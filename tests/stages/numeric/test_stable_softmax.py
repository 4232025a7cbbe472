from __future__ import annotations

import pytest

from tests.conftest import codes, finding
from tests.stages.numeric.conftest import line_of

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


# A text classifier with one hand-written self-attention layer: embeddings (unit variance), a LayerNorm,
# one projection to q, k, v; the scores are left to each test (SCORES).
ATTENTION = """
import math

VOCAB, T, D, H = 50, 8, 128, 2
DH = D // H

class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.norm = nn.LayerNorm(D)
        self.qkv = nn.Linear(D, 3 * D)
        self.temperature = nn.Parameter(torch.tensor(1.0))
        self.head = nn.Linear(D, 3)

    def forward(self, ids):
        x = self.norm(self.embed(ids))
        n = x.shape[0]
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(n, T, H, DH).transpose(1, 2)
        k = k.view(n, T, H, DH).transpose(1, 2)
        v = v.view(n, T, H, DH).transpose(1, 2)
        SCORES
        return self.head(h.transpose(1, 2).reshape(n, T, D).mean(1))

def model():
    return Attention()

def batch():
    g = torch.Generator().manual_seed(0)
    return torch.randint(0, VOCAB, (4, T), generator=g), torch.tensor([0, 1, 2, 0])

def loss(out, y):
    return F.cross_entropy(out, y)
"""


def attention(scores: str) -> str:
    return ATTENTION.replace("SCORES", scores.replace("\n", "\n        "))


@pytest.mark.parametrize(
    "scores",
    [
        "scores = q @ k.transpose(-2, -1)\nh = scores.softmax(dim=-1) @ v",
        "scores = torch.matmul(q, k.mT).masked_fill(torch.zeros(T, T, dtype=torch.bool), float('-inf'))\n"
        "h = F.softmax(scores, dim=-1) @ v",
        "scores = torch.einsum('nhqd,nhkd->nhqk', q, k)\nh = torch.softmax(scores, -1) @ v",
    ],
    ids=["matmul", "masked", "einsum"],
)
def test_attention_scores_not_scaled_are_found_with_their_lines(program, scores: str) -> None:  # type: ignore[no-untyped-def]
    source = attention(scores)
    r = program(source, ONLY)
    f = finding(r, "SMX005")
    assert f.severity == "error" and r.exit_code == 1
    assert f.evidence["d"] == 64 and f.evidence["left"] == [4, 2, 8, 64]
    assert f.evidence["product_at"].endswith(f"prog.py:{line_of(source, 'scores = ')}")
    assert f.evidence["softmax_at"].endswith(f"prog.py:{line_of(source, 'h = ')}")
    assert f.evidence["spread"] > 1.5 and abs(f.evidence["scaled_spread"] - f.evidence["spread"] / 8) < 1e-6
    assert f.evidence["peak"] > f.evidence["scaled_peak"] and "math.sqrt(64)" in f.remediation


@pytest.mark.parametrize(
    "scores",
    [
        "scores = q @ k.transpose(-2, -1) / math.sqrt(DH)\nh = scores.softmax(dim=-1) @ v",
        "scores = q @ k.transpose(-2, -1)\nscores /= math.sqrt(DH)\nh = scores.softmax(dim=-1) @ v",
        "q = q * DH ** -0.5\nh = torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v",
        "h = F.scaled_dot_product_attention(q, k, v)",
        "h = torch.softmax(q @ k.transpose(-2, -1) * self.temperature, dim=-1) @ v",
        "h = torch.softmax(q @ k.transpose(-2, -1) / self.temperature.exp(), dim=-1) @ v",
        "q, k = F.normalize(q, dim=-1), F.normalize(k, dim=-1)\nh = torch.softmax(10 * q @ k.mT, dim=-1) @ v",
    ],
    ids=[
        "divided",
        "divided in place",
        "queries scaled",
        "sdpa",
        "learned temperature",
        "learned log temperature",
        "cosine",
    ],
)
def test_scaled_attention_is_not_a_finding(program, scores: str) -> None:  # type: ignore[no-untyped-def]
    r = program(attention(scores), ONLY)
    assert codes(r) == ["SMX000"] and r.exit_code == 0


def test_scaling_folded_into_the_initialisation_is_not_a_finding(program) -> None:  # type: ignore[no-untyped-def]
    # T5 does not divide by sqrt(d): it draws its query projection with std (D * d) ** -0.5 and its key
    # projection with D ** -0.5, so the unscaled scores of unit-variance inputs spread about 1.
    source = attention("scores = q @ k.transpose(-2, -1)\nh = scores.softmax(dim=-1) @ v").replace(
        "return Attention()",
        "m = Attention()\n    with torch.no_grad():\n"
        "        nn.init.normal_(m.qkv.weight[:D], std=(D * DH) ** -0.5)\n"
        "        nn.init.normal_(m.qkv.weight[D : 2 * D], std=D ** -0.5)\n    return m",
    )
    r = program(source, ONLY)
    assert codes(r) == ["SMX000"] and r.exit_code == 0
    assert "unscaled q·kᵀ (d = 64) whose scores spread only 1.0" in finding(r, "SMX000").message


@pytest.mark.parametrize(
    "source",
    [
        # nn.MultiheadAttention scales inside its own call.
        """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 128)
        self.attn = nn.MultiheadAttention(128, 2, batch_first=True)
        self.head = nn.Linear(128, 3)

    def forward(self, ids):
        h = self.embed(ids)
        return self.head(self.attn(h, h, h, need_weights=False)[0].mean(1))
""",
        # A softmax over a layer's outputs: a product with a weight, not of two activations.
        """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 128)
        self.gate = nn.Linear(128, 4)
        self.experts = nn.Linear(128, 4 * 3)

    def forward(self, ids):
        h = self.embed(ids).mean(1)
        weights = torch.softmax(h @ self.gate.weight.T * 4, dim=-1)
        return (weights.unsqueeze(-1) * self.experts(h).view(-1, 4, 3)).sum(1)
""",
        # Attention pooling with a learned query: the query is a parameter, not computed from the input.
        """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 128)
        self.query = nn.Parameter(torch.randn(128))
        self.head = nn.Linear(128, 3)

    def forward(self, ids):
        h = self.embed(ids)
        weights = torch.softmax(h @ self.query, dim=-1)
        return self.head((weights.unsqueeze(-1) * h).sum(1))
""",
    ],
    ids=["multihead attention", "mixture of experts gate", "learned query"],
)
def test_softmaxes_that_are_not_unscaled_attention(program, source: str) -> None:  # type: ignore[no-untyped-def]
    rest = """
def model():
    return Net()

def batch():
    g = torch.Generator().manual_seed(0)
    return torch.randint(0, 50, (4, 8), generator=g), torch.tensor([0, 1, 2, 0])

def loss(out, y):
    return F.cross_entropy(out, y)
"""
    r = program(source + rest, ONLY)
    assert codes(r) == ["SMX000"] and r.exit_code == 0
