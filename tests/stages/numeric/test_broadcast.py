from __future__ import annotations

from tests.conftest import codes, finding
from tests.stages.numeric.conftest import REGRESSION, line_of

ONLY = ["broadcast"]
# Predictions equal to the targets: the seed's example (1, 2, 3) against (1, 2, 3).
EXACT = """
class Exact(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1))

    def forward(self, x):
        return x[:, :1] * self.scale

def model():
    return Exact()

def batch():
    return torch.tensor([[1.0], [2.0], [3.0]]), torch.tensor([1.0, 2.0, 3.0])
"""


def test_n1_against_n_is_found_with_shapes_and_line(program) -> None:  # type: ignore[no-untyped-def]
    source = EXACT + "\ndef loss(out, y):\n    return ((out - y) ** 2).mean()\n"
    r = program(source, ONLY)
    f = finding(r, "BRD001")
    assert f.evidence == {"op": "sub", "left": [3, 1], "right": [3], "result": [3, 3]}
    assert f.key == f"src/prog.py:{line_of(source, 'out - y')}"  # relative to the config, as accept names it
    assert f.scope.counts is None  # its shapes are not a scope: a batch of 4 is the same problem, not a larger one
    exact = finding(r, "BRD003")
    assert exact.evidence["loss_in_output_shape"] == 1.333333 and exact.evidence["loss_in_target_shape"] == 0.0
    assert r.exit_code == 1


def test_mse_loss_function_broadcasts_too(program) -> None:  # type: ignore[no-untyped-def]
    source = EXACT + "\ndef loss(out, y):\n    return F.mse_loss(out, y)\n"
    assert finding(program(source, ONLY), "BRD001").evidence["op"] == "mse_loss"


def test_matching_shapes_bias_add_and_explicit_pairwise_ops_pass(program) -> None:  # type: ignore[no-untyped-def]
    source = (
        EXACT
        + """
def loss(out, y):
    bias = torch.zeros(1)
    shifted = out + bias                      # (N,1) + (1,): a bias add
    pairwise = out[:, None, :] - out[None, :, :]   # (N,1,1) - (1,N,1): pairwise on purpose
    centres = torch.zeros(4, 1)
    to_centres = out.unsqueeze(1) - centres        # (N,1,1) - (4,1): distances to 4 centres
    return ((shifted.squeeze(-1) - y) ** 2).mean() + 0 * pairwise.mean() + 0 * to_centres.mean()
"""
    )
    assert codes(program(source, ONLY)) == []


def test_squeeze_that_removes_the_batch_axis(program) -> None:  # type: ignore[no-untyped-def]
    source = (
        REGRESSION.replace("return nn.Linear(2, 1)", "return Squeezed()")
        + """
class Squeezed(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(2, 1)

    def forward(self, x):
        return self.linear(x).squeeze()

def loss(out, y):
    return ((out - y) ** 2).mean()
"""
    )
    f = finding(program(source, ONLY), "BRD002")
    assert "the outputs are () instead of (1,)" in f.message
    assert f.evidence["squeezes"][0]["before"] == [1, 1] and f.evidence["squeezes"][0]["after"] == []
    assert f.evidence["squeezes"][0]["at"].endswith(f"prog.py:{line_of(source, '.squeeze()')}")


def test_squeeze_of_a_named_axis_passes(program) -> None:  # type: ignore[no-untyped-def]
    source = REGRESSION + "\ndef loss(out, y):\n    return ((out.squeeze(-1) - y) ** 2).mean()\n"
    assert codes(program(source, ONLY)) == []


def test_loss_that_fails_on_one_sample(program) -> None:  # type: ignore[no-untyped-def]
    source = (
        REGRESSION
        + """
def loss(out, y):
    if len(y) < 2:
        raise ValueError("need two samples")
    return ((out.squeeze(-1) - y) ** 2).mean()
"""
    )
    f = finding(program(source, ONLY), "BRD002")
    assert "raised on one sample" in f.message and "need two samples" in f.message


def test_classification_targets_skip_the_exact_prediction_probe(program) -> None:  # type: ignore[no-untyped-def]
    source = """
def model():
    return nn.Linear(2, 3)

def batch():
    return torch.randn(4, 2), torch.tensor([0, 2, 1, 0])

def loss(out, y):
    return F.cross_entropy(out, y)
"""
    assert codes(program(source, ONLY)) == []


RANKNET = """
def model():
    return nn.Linear(4, 1)

def batch():
    g = torch.Generator().manual_seed(0)
    return torch.randn(8, 4, generator=g), torch.tensor([3.0, 1.0, 2.0, 0.0, 1.0, 3.0, 2.0, 0.0])

def loss(out, y):
    s = out.squeeze(1)
    diff = s.unsqueeze(1) - s                    # every pair of scores: (8, 1) with (8,) on purpose
    above = (y.unsqueeze(1) > y).float()         # every pair of labels, the same way
    return F.binary_cross_entropy_with_logits(diff, above)
"""


def test_pairwise_matrices_built_from_one_side_are_meant(program) -> None:  # type: ignore[no-untyped-def]
    # RankNet: scores against scores and labels against labels grow into (N, N) by design.
    assert "BRD001" not in codes(program(RANKNET, ONLY))
    # Scores against labels the same way is the silent mismatch.
    wrong = RANKNET.replace("diff = s.unsqueeze(1) - s", "diff = s.unsqueeze(1) - y")
    f = finding(program(wrong, ONLY), "BRD001")
    assert f.evidence == {"op": "sub", "left": [8, 1], "right": [8], "result": [8, 8]}


# SimCLR-style InfoNCE: each target is the position of the anchor's positive in the batch (i <-> i ^ 1), so the
# (N, N) similarity matrix has one class per sample; one sample alone has no positive to point at.
INFONCE = """
class Projection(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(6, 4)

    def forward(self, x):
        return F.normalize(self.linear(x), dim=-1)

def model():
    return Projection()

def batch():
    g = torch.Generator().manual_seed(0)
    return torch.randn(8, 6, generator=g), torch.arange(8) ^ 1

def loss(z, positives):
    sim = z @ z.T / 0.1
    sim = sim.masked_fill(torch.eye(len(sim), dtype=torch.bool), float("-inf"))
    return F.cross_entropy(sim, positives)
"""


def test_in_batch_positive_indices_are_not_a_loss_that_fails_on_one_sample(program) -> None:  # type: ignore[no-untyped-def]
    # Cut to its first sample, the target 1 points past a batch of one: the cut broke the targets, not the loss.
    assert codes(program(INFONCE, ONLY)) == []


def test_in_batch_targets_still_find_a_squeeze_and_class_labels_still_fail_on_one_sample(program) -> None:  # type: ignore[no-untyped-def]
    squeezed = INFONCE.replace("return F.normalize(self.linear(x), dim=-1)", "return self.linear(x).squeeze()")
    squeezed = squeezed.replace("nn.Linear(6, 4)", "nn.Linear(6, 1)").replace("sim = z @ z.T", "sim = z[:, None] * z")
    f = finding(program(squeezed, ONLY), "BRD002")
    assert "the outputs are () instead of (1,)" in f.message and "turned (1, 1) into ()" in f.message
    assert "raised" not in f.message  # the in-batch targets cut to one sample are not the loss's failure
    # Class labels that happen to be below the batch size are no in-batch indices: the failure is the loss's.
    labels = """
def model():
    return nn.Linear(6, 8)

def batch():
    g = torch.Generator().manual_seed(0)
    return torch.randn(8, 6, generator=g), torch.tensor([1, 0, 3, 2, 5, 4, 7, 6])

def loss(out, y):
    if len(y) < 2:
        raise ValueError("need two samples")
    return F.cross_entropy(out, y)
"""
    f = finding(program(labels, ONLY), "BRD002")
    assert "need two samples" in f.message
