from __future__ import annotations

from tests.conftest import codes, finding
from tests.stages.numeric.conftest import VAE, line_of

ONLY = ["eval_mode"]
CLASSIFIER = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.drop = nn.Dropout(0.5)
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        h = self.drop(torch.relu(self.body(x)))
        h = F.dropout(h, p=0.2, training=self.training)
        return self.head(h)

def model():
    return Net()

def batch():
    return torch.randn(6, 4), torch.tensor([0, 1, 2, 0, 1, 2])

def loss(out, y):
    return F.cross_entropy(out, y)
"""


def test_dropout_modules_and_functional_dropout_that_follow_eval_pass(program) -> None:  # type: ignore[no-untyped-def]
    r = program(CLASSIFIER, ONLY)
    assert codes(r) == ["EVM000"] and r.exit_code == 0
    assert "identical outputs [6, 3]" in finding(r, "EVM000").message


def test_functional_dropout_left_on_in_eval_is_found_with_its_line(program) -> None:  # type: ignore[no-untyped-def]
    source = CLASSIFIER.replace("training=self.training", "training=True")
    r = program(source, ONLY)
    f = finding(r, "EVM001")
    assert f.severity == "error" and r.exit_code == 1
    assert f.evidence["op"] == "dropout" and f.evidence["first"] != f.evidence["second"]
    assert f.evidence["at"].endswith(f"prog.py:{line_of(source, 'training=True')}")
    assert f.evidence["output_shape"] == [6, 3] and "training=self.training" in f.remediation


def test_noise_added_in_eval_is_found(program) -> None:  # type: ignore[no-untyped-def]
    source = CLASSIFIER.replace("return self.head(h)", "return self.head(h + 0.1 * torch.randn_like(h))")
    f = finding(program(source, ONLY), "EVM001")
    assert f.evidence["op"] == "randn_like" and f.evidence["at"].endswith(f"prog.py:{line_of(source, 'randn_like')}")
    guarded = CLASSIFIER.replace(
        "return self.head(h)",
        "if self.training:\n            h = h + 0.1 * torch.randn_like(h)\n        return self.head(h)",
    )
    assert codes(program(guarded, ONLY)) == ["EVM000"]


def test_a_model_that_ignores_its_input(program) -> None:  # type: ignore[no-untyped-def]
    source = CLASSIFIER.replace(
        "h = self.drop(torch.relu(self.body(x)))", "h = self.drop(torch.relu(self.body(torch.ones_like(x))))"
    )
    r = program(source, ONLY)
    f = finding(r, "EVM002")
    assert f.evidence["zeroed"] == ["inputs"] and f.evidence["shapes"] == [[6, 4]]
    assert f.evidence["loss"] == f.evidence["zeroed_loss"] and r.exit_code == 1


def test_a_zero_initialised_head_does_not_ignore_its_input(program) -> None:  # type: ignore[no-untyped-def]
    # Outputs and loss are the same for any input at initialisation, but the head's gradient is not.
    source = CLASSIFIER.replace(
        "return Net()",
        "net = Net()\n    nn.init.zeros_(net.head.weight)\n    nn.init.zeros_(net.head.bias)\n    return net",
    )
    r = program(source, ONLY)
    assert codes(r) == ["EVM000"] and "the input is used" in finding(r, "EVM000").message


def test_nothing_to_compare_is_a_skip_with_its_reason(program) -> None:  # type: ignore[no-untyped-def]
    source = """
class Counter(nn.Module):
    def forward(self, flags):
        return {"count": int(flags.sum())}

def model():
    return Counter()

def batch():
    return torch.tensor([True, False, True]), torch.tensor([2])

def loss(out, y):
    return torch.tensor(float(out["count"] - int(y)))
"""
    r = program(source, ["batch_inspect", *ONLY])
    stage = next(s for s in r.stages if s.stage == "eval_mode")
    assert stage.status == "skipped" and "no tensor to compare" in (stage.skip_reason or "")


PACKED = """
class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 8)
        self.rnn = nn.LSTM(8, 8, batch_first=True)
        self.head = nn.Linear(8, 3)

    def forward(self, ids, lengths):
        packed = nn.utils.rnn.pack_padded_sequence(self.embed(ids), lengths, batch_first=True, enforce_sorted=False)
        out, _ = self.rnn(packed)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
        return self.head(out[:, 0])

def model():
    return Tagger()

def batch():
    return (torch.tensor([[1, 2, 3], [4, 5, 0]]), torch.tensor([3, 2])), torch.tensor([0, 1])

def loss(out, y):
    return F.cross_entropy(out, y)
"""


def test_a_model_that_refuses_its_inputs_zeroed_is_not_blamed_for_it(program) -> None:  # type: ignore[no-untyped-def]
    # Sequence lengths of 0 are the probe's doing, not the model's fault: the comparison is left out, said so.
    r = program(PACKED, ONLY)
    assert codes(r) == ["EVM000"] and r.exit_code == 0
    message = finding(r, "EVM000").message
    assert "not compared with zeroed inputs, which the model refuses" in message and "greater than 0" in message


SAMPLED_IN_EVAL = VAE.replace(
    "z = mu + torch.exp(0.5 * logvar) * torch.randn_like(mu) if self.training else mu",
    "z = mu + torch.exp(0.5 * logvar) * torch.randn_like(mu)",
)


def test_a_vae_that_decodes_its_mean_in_eval_passes(program) -> None:  # type: ignore[no-untyped-def]
    r = program(VAE, ONLY)
    assert codes(r) == ["EVM000"] and r.exit_code == 0


def test_a_vae_that_samples_its_latent_in_eval_is_found(program) -> None:  # type: ignore[no-untyped-def]
    # Evaluation should decode the posterior's mean: a sampled latent scores another reconstruction each time.
    r = program(SAMPLED_IN_EVAL, ONLY)
    f = finding(r, "EVM001")
    assert f.severity == "error" and r.exit_code == 1
    assert f.evidence["op"] == "randn_like" and f.evidence["at"].endswith(f"prog.py:{line_of(VAE, 'z = mu')}")
    assert "if self.training else mu" in f.remediation and "accept this finding" in f.remediation


def test_sampling_in_eval_by_design_is_accepted_for_that_draw_only(program) -> None:  # type: ignore[no-untyped-def]
    # Nothing in the model tells a sampler by design from a draw left on: the config says so, for this draw.
    key = finding(program(SAMPLED_IN_EVAL, ONLY), "EVM001").key
    reason = "the test ELBO is estimated with one sample on purpose"
    r = program(SAMPLED_IN_EVAL, ONLY, accept=[{"code": "EVM001", "key": key, "reason": reason}])
    f = next(f for f in r.findings if f.code == "EVM001")
    assert f.accepted and f.accept_reason == reason and r.exit_code == 0
    # Dropout left on beside it is another draw: the acceptance does not cover it.
    dropout = SAMPLED_IN_EVAL.replace("h = self.encoder(x)", "h = F.dropout(self.encoder(x), 0.2, training=True)")
    r = program(dropout, ONLY, accept=[{"code": "EVM001", "key": key, "reason": reason}])
    assert finding(r, "EVM001").evidence["op"] == "dropout" and r.exit_code == 1
