"""Scopes and their growth: a new value, a higher count or a new split pair grows a scope; the same or a smaller
one does not; a set too large to list changes by its digest."""

from __future__ import annotations

from auditor.core.findings import Finding, Severity
from auditor.core.scope import MAX_LISTED, Scope, growth, inconsistency, scope_of, spelled, union


def test_same_or_smaller_scope_has_no_growth() -> None:
    accepted = scope_of(["cam-A", "cam-B"], {"entities": 2, "rows": 5})
    assert growth(accepted, accepted) is None
    assert growth(accepted, scope_of(["cam-B"], {"entities": 1, "rows": 3})) is None
    assert growth(accepted, scope_of(["CAM-B "], {"entities": 1})) is None  # another spelling of the same value


def test_a_new_value_a_higher_count_and_a_new_pair_are_growth() -> None:
    accepted = scope_of(["cam-B"], {"entities": 1, "train|test.rows": 2})
    new_value = growth(accepted, scope_of(["cam-A", "cam-B"], {"entities": 2, "train|test.rows": 2}))
    assert new_value is not None and new_value.new_values == ("cam-A",) and new_value.accepted_values == ("cam-B",)
    more = growth(accepted, scope_of(["cam-B"], {"entities": 1, "train|test.rows": 6}))
    assert more is not None and [(c.field, c.accepted, c.seen) for c in more.counts] == [("train|test.rows", 2, 6)]
    pair = growth(accepted, scope_of(["cam-B"], {"entities": 1, "train|test.rows": 2, "train|val.rows": 1}))
    assert pair is not None and [(c.field, c.accepted) for c in pair.counts] == [("train|val.rows", None)]
    assert "train|val.rows 1 (new)" in pair.text


def test_unbound_counts_bind_only_values() -> None:
    named = scope_of(["cam-B"])  # an `accept:` entry: values, no counts
    assert growth(named, scope_of(["cam-B"], {"rows": 100})) is None


def test_an_unlisted_set_grows_when_its_digest_changes() -> None:
    many = [f"v{i}" for i in range(MAX_LISTED + 1)]
    big = scope_of(many)
    assert not big.listed and big.values == () and growth(big, scope_of(many)) is None
    changed = growth(big, scope_of([*many[:-1], "other"]))
    assert changed is not None and changed.unlisted >= 1


def test_union_covers_each_of_its_scopes() -> None:
    merged = union([scope_of(["a"], {"rows": 3}), scope_of(["b"], {"rows": 1, "pairs": 1})])
    assert merged.values == ("a", "b") and merged.counts == {"rows": 3, "pairs": 1}


def test_a_finding_without_a_given_scope_takes_its_counts_and_keeps_its_fingerprint() -> None:
    plain = Finding(code="X1", stage="s", severity=Severity.ERROR, title="t", message="m", evidence={"rows": 3})
    assert plain.scope == Scope(counts={"rows": 3})
    scoped = plain.model_copy(update={"scope": scope_of(["w1"], {"rows": 3})})
    again = Finding.model_validate(scoped.model_dump())
    assert again.scope == scoped.scope and again.fingerprint == plain.fingerprint


def test_punctuation_at_the_ends_of_a_key_leaves_its_fingerprint_as_it_was() -> None:
    from auditor.core.findings import fingerprint
    from auditor.core.scope import normalise_spelling
    from auditor.core.spelling import normal_form

    # The checks call `writer-a!` and `writer-a` one value; a fingerprint made before they did must not move.
    assert normal_form("writer-a!") == normal_form("writer-a")
    assert normalise_spelling("near copy (file)") == "near copy (file)"
    assert normalise_spelling("W2 ") == normalise_spelling("w2")  # the older steps still apply
    a = fingerprint("UPS003", "shared_upstream", "near copy (file)", {"split_pair": "train|test"})
    b = fingerprint("UPS003", "shared_upstream", "near copy (file", {"split_pair": "train|test"})
    assert a != b


def test_a_dotted_id_keeps_the_fingerprint_and_scope_digest_it_had() -> None:
    """The checks keep `1.10` apart from `1.1` now; fingerprints and scopes are stored, so theirs do not move.

    The literals were computed before the checks kept a fraction's digits: a review's stored fingerprint and an
    accepted scope's digest (all that is kept of a set too large to list) must still compare equal."""
    from auditor.core.findings import fingerprint
    from auditor.core.scope import normalise_spelling
    from auditor.core.spelling import normal_form

    assert normal_form("1.10") != normal_form("1.1") and normal_form("A+") != normal_form("A-")
    assert normalise_spelling("1.10") == normalise_spelling("1.1") == "1.1"
    assert fingerprint("GRP001", "group_overlap", "1.10", {"key": "subject"}) == "004bca23a41896b5"
    assert fingerprint("GRP005", "group_overlap", "A+", {"key": "blood"}) == "3e3b7dcff59e6902"
    scope = scope_of(["1.10", "2.50", "A+", '"deep."', "0.50"])
    assert scope.digest == "749dd94230000ea3fa9a241e546e7c56a344d3ccf6098e03313abaa0090f6473"


def test_a_scope_the_audit_writes_is_consistent_and_a_contradicted_one_is_not() -> None:
    """Spelling variants, one value, none, and past MAX_LISTED (digest only): all as written; then each lie."""
    for values in (["w1", "W1", "ｗ１", "b", "a"], ["x"], [], [f"v{i}" for i in range(MAX_LISTED + 5)]):
        assert inconsistency(scope_of(values, {"rows": 3})) is None
    s = scope_of(["a", "b", "c"])
    assert "count of 4" in str(inconsistency(s.model_copy(update={"n_values": 4})))
    assert "digest" in str(inconsistency(s.model_copy(update={"digest": scope_of(["a", "b", "d"]).digest})))
    assert "one per" in str(inconsistency(s.model_copy(update={"values": ("a", "c", "b")})))
    assert "one per" in str(inconsistency(s.model_copy(update={"values": ("a", "A", "b")})))
    many = scope_of([f"v{i}" for i in range(MAX_LISTED + 5)])
    assert "beyond" in str(inconsistency(many.model_copy(update={"values": ("v1",)})))


def test_a_new_spelling_of_a_reviewed_value_is_growth_and_a_reviewed_one_is_not() -> None:
    accepted = spelled(scope_of(["alice"], {"values": 1}), ["alice", "Alice"])
    assert growth(accepted, accepted) is None
    assert growth(accepted, spelled(scope_of(["alice"], {"values": 1}), ["Alice", "alice"])) is None
    assert growth(accepted, spelled(scope_of(["alice"], {"values": 1}), ["alice"])) is None  # fewer: covered
    grown = growth(accepted, spelled(scope_of(["alice"], {"values": 1}), ["alice", "Alice", "ALICE "]))
    assert grown is not None and grown.new_values == ("ALICE ",) and grown.values_differ
    assert "new value(s) 'ALICE '" in grown.text


def test_an_acceptance_that_recorded_no_spellings_says_nothing_of_them() -> None:
    """A scope stored before spellings were kept (or an `accept:` entry's): as a scope without values."""
    assert growth(scope_of(["alice"], {"values": 1}), spelled(scope_of(["alice"], {"values": 1}), ["ALICE"])) is None


def test_spellings_too_many_to_list_grow_by_their_digest() -> None:
    many = [f"w{i}" for i in range(MAX_LISTED + 1)]
    accepted = spelled(scope_of(["w"]), many)
    assert accepted.spellings == () and accepted.n_spellings == MAX_LISTED + 1 and inconsistency(accepted) is None
    assert growth(accepted, spelled(scope_of(["w"]), list(reversed(many)))) is None
    grown = growth(accepted, spelled(scope_of(["w"]), [*many, "W0 "]))
    assert grown is not None and grown.values_differ and grown.uncompared == (MAX_LISTED + 1, MAX_LISTED + 2)


def test_union_keeps_every_spelling_and_a_contradicted_spelling_list_is_inconsistent() -> None:
    one = spelled(scope_of(["alice"]), ["alice", "Alice"])
    two = spelled(scope_of(["alice"]), ["ALICE"])
    merged = union([one, two])
    assert merged.spellings == ("ALICE", "Alice", "alice") and inconsistency(merged) is None
    assert inconsistency(one.model_copy(update={"spellings": ("Alice", "alice", "x")})) is not None
    assert inconsistency(one.model_copy(update={"spellings": ("alice", "Alice")})) is not None  # not sorted
    assert inconsistency(one.model_copy(update={"spelling_digest": "0" * 64})) is not None
    assert inconsistency(one.model_copy(update={"spelling_digest": None})) is not None
