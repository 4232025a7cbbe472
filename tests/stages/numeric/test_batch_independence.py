from __future__ import annotations

from tests.conftest import codes, finding
from tests.stages.numeric.conftest import line_of, result

ONLY = ["batch_independence"]
SEQUENCE = """
N, T, D = 4, 6, 8

class Tagger(nn.Module):
    '''A sequence tagger: seq-first attention over (T, N, D), as nn.MultiheadAttention takes by default.'''

    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(3, D)
        self.attn = nn.MultiheadAttention(D, 2)
        self.head = nn.Linear(D, 5)

    def forward(self, x):
        h = self.embed(x)                      # (N, T, D)
        h = h.permute(1, 0, 2)                 # (T, N, D)
        h, _ = self.attn(h, h, h, need_weights=False)
        h = h.permute(1, 0, 2)                 # (N, T, D)
        return self.head(h)

def model():
    return Tagger()

def batch():
    return torch.randn(N, T, 3), torch.randint(0, 5, (N, T))

def loss(out, y):
    return F.cross_entropy(out.reshape(-1, 5), y.reshape(-1))
"""
MLP = """
class Net(nn.Module):
    def __init__(self, norm):
        super().__init__()
        self.body = nn.Linear(4, 6)
        self.norm = norm
        self.head = nn.Linear(6, 3)

    def forward(self, x):
        h = self.norm(self.body(x)) + torch.ones(6)   # a bias add (N, 6) + (6,)
        return self.head(torch.relu(h))

def model():
    return Net(NORM)

def batch():
    return torch.randn(5, 4), torch.tensor([0, 1, 2, 0, 1])

def loss(out, y):
    return F.cross_entropy(out, y)
"""


def test_view_where_permute_was_meant_names_the_view(program) -> None:  # type: ignore[no-untyped-def]
    source = SEQUENCE.replace(
        "h = h.permute(1, 0, 2)                 # (T, N, D)", "h = h.view(T, N, D)  # meant: permute(1, 0, 2)"
    ).replace("h = h.permute(1, 0, 2)                 # (N, T, D)", "h = h.view(N, T, D)")
    r = program(source, ONLY)
    f = finding(r, "BIX001")
    assert f.severity == "error" and r.exit_code == 1
    assert f.evidence["op"] == "view" and f.evidence["kind"] == "scrambles"
    assert f.evidence["at"].endswith(f"prog.py:{line_of(source, 'h.view(T, N, D)')}")
    assert f.evidence["input_shapes"] == [[4, 6, 8]] and f.evidence["op_output_shape"] == [6, 4, 8]
    assert f.evidence["before"] != f.evidence["after"] and f.evidence["gradient"] > 0
    assert "permute" in f.remediation


def test_correct_sequence_model_with_permute_passes(program) -> None:  # type: ignore[no-untyped-def]
    r = program(SEQUENCE, ONLY)
    assert codes(r) == ["BIX000"] and r.exit_code == 0
    assert finding(r, "BIX000").evidence == {"samples": 4, "ops": finding(r, "BIX000").evidence["ops"],
                                              "output_shape": [4, 6, 5]}  # fmt: skip


def test_batch_first_attention_flatten_and_reshape_back_pass(program) -> None:  # type: ignore[no-untyped-def]
    source = (
        SEQUENCE.replace("nn.MultiheadAttention(D, 2)", "nn.MultiheadAttention(D, 2, batch_first=True)")
        .replace("        h = h.permute(1, 0, 2)                 # (T, N, D)\n", "")
        .replace(
            "h = h.permute(1, 0, 2)                 # (N, T, D)\n        return self.head(h)",
            "return self.head(h.reshape(N * T, D)).view(N, T, 5)  # per-token head on flattened rows",
        )
    )
    assert codes(program(source, ONLY)) == ["BIX000"]


def test_normalisations_that_keep_samples_apart_pass(program) -> None:  # type: ignore[no-untyped-def]
    assert codes(program(MLP.replace("NORM", "nn.LayerNorm(6)"), ONLY)) == ["BIX000"]
    r = program(MLP.replace("NORM", "nn.BatchNorm1d(6)"), ONLY)
    assert codes(r) == ["BIX000", "BIX002"] and r.exit_code == 0  # running statistics in eval mode
    assert finding(r, "BIX002").evidence == {"modules": ["norm"]}


def test_reduction_and_softmax_over_the_batch_axis(program) -> None:  # type: ignore[no-untyped-def]
    centred = MLP.replace("NORM", "nn.Identity()").replace(
        "h = self.norm(self.body(x))", "h = self.body(x)\n        h = h - h.mean(0)"
    )
    f = finding(program(centred, ONLY), "BIX001")
    assert f.evidence["op"] == "mean" and f.evidence["kind"] == "mixes"
    assert f.evidence["at"].endswith(f"prog.py:{line_of(centred, 'h.mean(0)')}")
    wrong_dim = MLP.replace("NORM", "nn.Identity()").replace(
        "return self.head(torch.relu(h))", "return torch.softmax(self.head(h), dim=0)"
    )
    f = finding(program(wrong_dim, ONLY), "BIX001")
    assert f.evidence["op"] == "softmax" and "dim 0" in f.remediation


def test_batchnorm_forced_into_training_statistics_in_eval_is_a_fault(program) -> None:  # type: ignore[no-untyped-def]
    forced = MLP.replace("NORM", "nn.Identity()").replace(
        "h = self.norm(self.body(x))", "h = F.batch_norm(self.body(x), None, None, training=True)"
    )
    f = finding(program(forced, ONLY), "BIX001")
    assert f.evidence["op"] == "batch_norm" and "running statistics" in f.remediation


def test_token_inputs_are_changed_within_the_vocabulary(program) -> None:  # type: ignore[no-untyped-def]
    source = """
class Bag(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.head = nn.Linear(4, 2)

    def forward(self, ids):
        return self.head(self.embed(ids).mean(1))

def model():
    return Bag()

def batch():
    return torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), torch.tensor([0, 1, 0])

def loss(out, y):
    return F.cross_entropy(out, y)
"""
    assert codes(program(source, ONLY)) == ["BIX000"]
    mixed = source.replace("self.embed(ids).mean(1)", "self.embed(ids).mean(1) + self.embed(ids).mean((0, 1))")
    f = finding(program(mixed, ONLY), "BIX001")
    assert f.evidence["op"] == "mean" and f.evidence["gradient"] is None  # no gradient w.r.t. token ids


def test_a_batch_of_one_is_skipped_with_its_reason(program) -> None:  # type: ignore[no-untyped-def]
    source = MLP.replace("NORM", "nn.Identity()").replace(
        "return torch.randn(5, 4), torch.tensor([0, 1, 2, 0, 1])", "return torch.randn(1, 4), torch.tensor([0])"
    )
    r = program(source, ["batch_inspect", *ONLY])
    stage = result(r, "batch_independence")
    assert stage.status == "skipped" and "needs two or more" in (stage.skip_reason or "")
    assert r.exit_code == 0  # a skip is neither a pass of this check nor a failure of the audit


def test_a_time_first_batch_through_an_rnn_is_a_warning_saying_so(program) -> None:  # type: ignore[no-untyped-def]
    # nn.GRU takes (T, N, D) by default: step t depends on the steps before it, never on later ones.
    source = """
class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(3, 8)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        h, _ = self.rnn(x)
        return self.head(h)

def model():
    return Recurrent()

def batch():
    return torch.randn(5, 2, 3), torch.randint(0, 2, (5, 2))

def loss(out, y):
    return F.cross_entropy(out.reshape(-1, 2), y.reshape(-1))
"""
    f = finding(program(source, ONLY), "BIX001")
    assert f.severity == "warning" and f.evidence["forward_only"] is True and "sequence-first" in f.message
