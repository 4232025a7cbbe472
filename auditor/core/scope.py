"""What a finding is about, as values and counts (its scope), and how a later scope exceeds an accepted one.

An acceptance covers the scope it was given: a later finding with the same fingerprint but a new subject value,
a larger count or a new split pair has grown beyond it and is escalated, never absorbed.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import zlib
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from auditor.core.spelling import normal_form

# Up to this many subject values a scope lists them (so a growth can name the new ones); beyond it, only the
# digest of the full set is kept, and any change of the set is a growth that cannot say which values are new.
MAX_LISTED = 1000
# Beyond MAX_LISTED and up to this many values, a scope also keeps each value's 64-bit hash (its members): a later
# set can then be shown to lie within it, or how many of its values do not, though neither can be named. Beyond
# it, only the digest (at about 10 bytes a value, the members would make a report megabytes larger).
MAX_MEMBERS = 10_000
SHOWN = 10  # most new values a growth's text names
# Counts kept per split pair (or per split) up to this many pairs; beyond (many folds: ~n²/2 pairs), the totals.
MAX_PAIR_COUNTS = 100
# The evidence field of a place in code's line-free identity (core/findings.py): what it is, never a count.
IDENTITY = "identity"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def normalise_spelling(text: str) -> str:
    """One spelling of a text: the spelling checks' normal form (core/spelling.py) as first defined, inner space
    runs as one.

    Two spellings the checks call one value share a fingerprint, but the form is the one fingerprints and scopes
    were first made of (normal_form's ``fingerprint``): stored ones (reviews, accepted scopes, digests of sets
    too large to list) must keep comparing equal. So every number is read wholly by value here (`1.10` = `1.1`,
    which the checks keep apart) and the punctuation at the ends of a value (step 5) stays; runs of inner
    whitespace are one space, as in the checks' form (step 3).
    """
    return " ".join(normal_form(text, fingerprint=True).split())


def named_form(text: str) -> tuple[str, str]:
    """The form in which a value an `accept:` entry names is the value a finding holds: one in both the fingerprint
    form and the checks' own (`1.10` and `1.1` are two groups to the checks, so an entry naming one is not an
    acceptance of the other, though their fingerprint forms agree)."""
    return normalise_spelling(text), " ".join(normal_form(text).split())


class Scope(_Frozen):
    """The subject values of a finding (groups, entities, digests, components, pairs) and the counts that matter.

    ``values`` are listed (as first spelled) up to MAX_LISTED; ``digest`` is of the full set, spelling-normalised;
    ``counts`` None means no count is bound (an `accept:` entry names values only).
    """

    values: tuple[str, ...] = ()
    n_values: int = 0
    digest: str | None = None
    counts: dict[str, int] | None = None
    members: str | None = Field(
        default=None,
        description="beyond MAX_LISTED values (up to MAX_MEMBERS): each value's 64-bit hash (the first 8 bytes of "
        "the sha256 of its JSON-quoted normal form), sorted, delta coded, zlib-compressed, base64",
    )

    spellings: tuple[str, ...] = Field(
        default=(),
        description="for a finding about how values are spelled: every spelling of its values as written, distinct "
        "and sorted (up to MAX_LISTED); a later spelling not among them was never reviewed, though the same value",
    )
    n_spellings: int = 0
    spelling_digest: str | None = Field(
        default=None, description="sha256 of the JSON list of every spelling as written, sorted; None: not recorded"
    )

    @property
    def listed(self) -> bool:
        """Whether every subject value is listed (not only the digest of the set)."""
        return len(self.values) == self.n_values

    @property
    def spellings_listed(self) -> bool:
        """Whether every spelling is listed (not only the digest of the set)."""
        return len(self.spellings) == self.n_spellings


def scope_of(values: Iterable[Any] = (), counts: Mapping[str, int] | None = None) -> Scope:
    """The scope of a finding about ``values`` (one per spelling-normalised value, sorted) with ``counts``."""
    texts = [str(v) for v in values]
    # Built back to front, so each normal form keeps its first spelling (one C-level pass, not a loop of lookups).
    spelled = dict(zip(reversed([normalise_spelling(t) for t in texts]), reversed(texts), strict=True))
    normal = sorted(spelled)
    members = members_of(texts) if MAX_LISTED < len(normal) <= MAX_MEMBERS else None
    return digested_scope(
        len(normal),
        set_digest(normal),
        [spelled[n] for n in normal] if len(normal) <= MAX_LISTED else [],
        counts,
        members,
    )


def spelled(scope: Scope, spellings: Iterable[str]) -> Scope:
    """``scope`` binding the spellings of its values as written (`Test`, `test`): a finding about spellings is
    covered only for those reviewed, and a new `TEST` of the same value is growth."""
    every = sorted({str(v) for v in spellings})
    return scope.model_copy(
        update={
            "spellings": tuple(every) if len(every) <= MAX_LISTED else (),
            "n_spellings": len(every),
            "spelling_digest": spelling_set_digest(every),
        }
    )


def spelling_set_digest(every: list[str]) -> str | None:
    """The digest of a set of spellings as written (sorted, distinct): sha256 of their JSON list."""
    return hashlib.sha256(json.dumps(every, ensure_ascii=False).encode("utf-8")).hexdigest() if every else None


def set_digest(normal: list[str]) -> str | None:
    """The digest of a scope's values: sha256 of the JSON list of their distinct normal forms, sorted."""
    return hashlib.sha256(json.dumps(normal, ensure_ascii=False).encode("utf-8")).hexdigest() if normal else None


def digested_scope(
    n_values: int,
    digest: str | None,
    spellings: Sequence[str],
    counts: Mapping[str, int] | None = None,
    members: str | None = None,
) -> Scope:
    """The scope of ``n_values`` distinct values whose set has ``digest`` (set_digest), with their first spellings
    in the order of their normal forms (needed only up to MAX_LISTED values) and, beyond that, their members: for a
    caller that normalised the values once for many scopes."""
    return Scope(
        values=tuple(spellings) if n_values <= MAX_LISTED else (),
        n_values=n_values,
        digest=digest,
        counts=None if counts is None else dict(counts),
        members=members if MAX_LISTED < n_values <= MAX_MEMBERS else None,
    )


def members_of(values: Iterable[str]) -> str:
    """A scope's members from its values as spelled: each value's 64-bit hash taken of both its forms (named_form),
    so that `1.10` is not a member where only `1.1` is."""
    import numpy as np

    # sorted and unique; two values of one 64-bit hash (odds ~3e-12 at 10,000 values) are kept once
    words = np.unique(np.fromiter((_word(v) for v in values), dtype=np.uint64))
    deltas = np.diff(words, prepend=np.uint64(0))
    return base64.b64encode(zlib.compress(deltas.astype(">u8").tobytes(), 6)).decode("ascii")


def _word(value: str) -> int:
    text = json.dumps(named_form(value), ensure_ascii=False)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def member_words(scope: Scope) -> Any:
    """The sorted 64-bit hashes of a scope's values (a numpy array): from its members, or from its listed values;
    None when it keeps only a digest, or its members do not decode."""
    import numpy as np

    if scope.listed:
        return np.unique(np.fromiter((_word(v) for v in scope.values), dtype=np.uint64))
    if scope.members is None:
        return None
    try:
        raw = zlib.decompress(base64.b64decode(scope.members, validate=True))
    except (binascii.Error, zlib.error, ValueError):
        return None
    if len(raw) % 8:
        return None
    return np.cumsum(np.frombuffer(raw, dtype=">u8").astype(np.uint64), dtype=np.uint64)


def inconsistency(scope: Scope) -> str | None:
    """What in a scope its own values contradict (None: nothing): listed values must be one per normal form, as
    many as its count, with the digest of their set. A scope of more than MAX_LISTED values keeps only the
    digest, which nothing here can check; an uploaded report is believed that far and no further."""
    if scope.n_values < 0:
        return f"a negative count of values ({scope.n_values})"
    if scope.members is not None and not MAX_LISTED < scope.n_values <= MAX_MEMBERS:
        return f"members kept for {scope.n_values} values (only for {MAX_LISTED + 1} to {MAX_MEMBERS})"
    if scope.members is not None:
        words = member_words(scope)
        if words is None:
            return "members that do not decode"
        if len(words) < scope.n_values or not bool((words[1:] > words[:-1]).all()):
            return f"{len(words)} members, not ascending and at least one per value, for {scope.n_values} values"
    wrong = _spelling_inconsistency(scope)
    if wrong is not None:
        return wrong
    if scope.n_values > MAX_LISTED:
        return (
            f"{len(scope.values)} values listed beyond {MAX_LISTED} (only the digest is kept)" if scope.values else None
        )
    if len(scope.values) != scope.n_values:
        return f"{len(scope.values)} values listed for a count of {scope.n_values}"
    normal = [normalise_spelling(v) for v in scope.values]
    if normal != sorted(set(normal)):
        return "values not one per spelling-normalised value in their order"
    if scope.digest != set_digest(normal):
        return "a digest that is not the digest of its values"
    return None


def _spelling_inconsistency(scope: Scope) -> str | None:
    """What in a scope's spellings contradicts itself: listed up to MAX_LISTED, distinct and sorted, as many as
    counted, with the digest of their set."""
    if scope.spelling_digest is None:
        return "spellings without their digest" if scope.spellings or scope.n_spellings else None
    if scope.n_spellings <= 0:
        return f"a spelling digest for {scope.n_spellings} spellings"
    if scope.n_spellings > MAX_LISTED:
        return f"{len(scope.spellings)} spellings listed beyond {MAX_LISTED}" if scope.spellings else None
    if list(scope.spellings) != sorted(set(scope.spellings)) or len(scope.spellings) != scope.n_spellings:
        return f"{len(scope.spellings)} spellings listed, not distinct and sorted, for a count of {scope.n_spellings}"
    if scope.spelling_digest != spelling_set_digest(list(scope.spellings)):
        return "a spelling digest that is not the digest of its spellings"
    return None


def numbers(evidence: Mapping[str, Any], prefix: str = "") -> dict[str, int | float]:
    """Numeric leaves of evidence by dotted path; a list of per-pair records is keyed by its split pair."""
    found: dict[str, int | float] = {}
    for name, value in evidence.items():
        path = f"{prefix}{name}"
        if isinstance(value, bool) or (not prefix and name == IDENTITY):
            continue
        if isinstance(value, int | float):
            found[path] = value
        elif isinstance(value, Mapping):
            found.update(numbers(value, path + "."))
        elif isinstance(value, list | tuple) and all(isinstance(v, Mapping) and "splits" in v for v in value):
            for record in value:
                label = "|".join(str(s) for s in record["splits"])
                found.update(numbers({k: v for k, v in record.items() if k != "splits"}, f"{path}.{label}."))
    return found


def counts_of(evidence: Mapping[str, Any]) -> dict[str, int]:
    """The whole-number leaves of evidence (counts, per split pair): the default counts of a scope."""
    return {k: v for k, v in numbers(evidence).items() if isinstance(v, int)}


class CountGrowth(_Frozen):
    field: str
    accepted: int | None  # None: the acceptance had no such count (a new split pair, a new kind of count)
    seen: int


class Growth(_Frozen):
    """How a finding exceeds the scope an acceptance covers: the values and counts that are new."""

    accepted_values: tuple[str, ...] = ()
    new_values: tuple[str, ...] = ()
    unlisted: int = 0  # values beyond the acceptance that cannot be named: at least this many (a set too large to list)
    uncompared: tuple[int, int] | None = Field(
        default=None,
        description="(values before, values now) of a set that differs from the accepted one where either is too "
        "large to list: which values are new cannot be told, nor whether any is",
    )
    compared: tuple[int, int] | None = Field(
        default=None,
        description="(values before, values now) of sets too large to list, compared by their members' hashes: "
        "`unlisted` values are not in the accepted set, though they cannot be named",
    )
    counts: tuple[CountGrowth, ...] = ()

    @property
    def values_differ(self) -> bool:
        """Whether the subject values are (or may be) beyond the acceptance: new ones named, counted or untold."""
        return bool(self.new_values or self.unlisted or self.uncompared)

    @property
    def text(self) -> str:
        """One line for a reviewer: which values are new, which counts rose."""
        parts = []
        if self.new_values:
            shown = ", ".join(repr(v) for v in self.new_values[:SHOWN])
            more = f" and {len(self.new_values) - SHOWN} more" if len(self.new_values) > SHOWN else ""
            parts.append(f"new value(s) {shown}{more}")
        if self.unlisted or self.uncompared:
            parts.append(unlisted_text(self))
        for c in self.counts:
            parts.append(f"{c.field} {c.seen} (new)" if c.accepted is None else f"{c.field} {c.accepted} → {c.seen}")
        if self.accepted_values:
            shown = ", ".join(repr(v) for v in self.accepted_values[:SHOWN])
            more = f" and {len(self.accepted_values) - SHOWN} more" if len(self.accepted_values) > SHOWN else ""
            parts.append(f"still accepted: {shown}{more}")
        return "; ".join(parts)


TOO_MANY = "too many to list"


def unlisted_text(g: Growth) -> str:
    """How a set of values too large to list differs from the accepted one, claiming no more than is known: a
    set kept only as its digest cannot show that a smaller one is a part of it, nor name what is new."""
    if g.compared is not None:
        before, now = g.compared
        return f"{g.unlisted} of {now} value(s) not in the accepted set of {before} ({TOO_MANY} by name)"
    if g.uncompared is None:  # a Growth stored before the sizes were kept
        return f"the set of values changed ({g.unlisted} value(s) more or different, too many to list)"
    before, now = g.uncompared
    if now > before:
        return f"the set of values grew from {before} to {now} (at least {now - before} new; {TOO_MANY})"
    if now == before:
        return (
            f"the set of values changed: {now} values, as many as before but not the same (at least 1 new; {TOO_MANY})"
        )
    return (
        f"the set of values changed from {before} to {now}: too many to list, so whether any is new cannot be told "
        "(it may only have shrunk)"
    )


def growth(accepted: Scope, seen: Scope, same: Callable[[str], Hashable] = normalise_spelling) -> Growth | None:
    """How ``seen`` exceeds ``accepted`` (None when it is the same or smaller: the acceptance covers it).

    ``same`` gives the form in which two listed values are one: by default their spelling-normalised form; a
    subject whose case and digits mean something (a statement of code) passes a stricter one."""
    new_values: tuple[str, ...] = ()
    unlisted = 0
    uncompared: tuple[int, int] | None = None
    compared: tuple[int, int] | None = None
    if seen.n_values:
        # Members hash a value in both of named_form's forms: they compare as the data checks' own forms do.
        hashed = _by_members(accepted, seen) if same in (normalise_spelling, named_form) else None
        if accepted.listed and seen.listed:
            known = {same(v) for v in accepted.values}
            new_values = tuple(v for v in seen.values if same(v) not in known)
        elif hashed is not None:
            # Both sets' members are known: a set within the accepted one is covered; values beyond it are
            # counted (and named when the later set is listed).
            new_values, unlisted = hashed
            compared = (accepted.n_values, seen.n_values) if unlisted else None
        elif seen.digest != accepted.digest:
            # One side is only a digest: a different set cannot be shown to be a subset, so it counts as grown
            # (never as the same), saying only what is known: the sizes, and how many are new at least.
            # As many values or more, and not the same set: one at least is new. Fewer: maybe none is.
            unlisted = max(seen.n_values - accepted.n_values, 1) if seen.n_values >= accepted.n_values else 0
            uncompared = (accepted.n_values, seen.n_values)
    respelled, respelled_unlisted = _new_spellings(accepted, seen)
    if respelled:
        new_values = (*new_values, *(v for v in respelled if v not in new_values))
    if respelled_unlisted and uncompared is None and compared is None:
        unlisted = max(unlisted, 1)
        uncompared = (accepted.n_spellings, seen.n_spellings)
    grown: list[CountGrowth] = []
    if accepted.counts is not None and seen.counts is not None:
        for name, value in seen.counts.items():
            before = accepted.counts.get(name)
            if before is None or value > before:
                grown.append(CountGrowth(field=name, accepted=before, seen=value))
    if not new_values and uncompared is None and compared is None and not grown:
        return None
    kept_forms = {same(v) for v in accepted.values}
    kept = tuple(v for v in seen.values if same(v) in kept_forms)
    return Growth(
        accepted_values=kept,
        new_values=new_values,
        unlisted=unlisted,
        uncompared=uncompared,
        compared=compared,
        counts=tuple(grown),
    )


def _new_spellings(accepted: Scope, seen: Scope) -> tuple[tuple[str, ...], bool]:
    """(the spellings of ``seen`` not among those ``accepted`` recorded, whether the set differs beyond naming): a
    spelling is new as written, however alike. An acceptance that recorded none (made before spellings were kept,
    or of a finding not about spellings) says nothing of them, as a scope without values says nothing of values."""
    if accepted.spelling_digest is None or seen.spelling_digest in (None, accepted.spelling_digest):
        return (), False
    if accepted.spellings_listed and seen.spellings_listed:
        known = set(accepted.spellings)
        return tuple(v for v in seen.spellings if v not in known), False
    return (), True


def _by_members(accepted: Scope, seen: Scope) -> tuple[tuple[str, ...], int] | None:
    """(the listed values of ``seen`` not in ``accepted``, how many unlisted ones are not) by the values' 64-bit
    hashes, when both sets' hashes are known and one at least is too large to list; None otherwise."""
    import numpy as np

    if accepted.listed and seen.listed:
        return None
    before, now = member_words(accepted), member_words(seen)
    if before is None or now is None:
        return None
    if seen.listed:
        known = set(before.tolist())
        return tuple(v for v in seen.values if _word(v) not in known), 0
    return (), int((~np.isin(now, before, assume_unique=True)).sum())


def union(scopes: Iterable[Scope]) -> Scope:
    """One scope covering all of ``scopes`` (the same fingerprint found more than once in a report)."""
    every = list(scopes)
    if len(every) == 1:
        return every[0]
    if all(s.listed for s in every):
        values: set[str] = {v for s in every for v in s.values}
        merged = scope_of(values)
    else:
        merged = max(every, key=lambda s: s.n_values)
    recorded = [s for s in every if s.spelling_digest is not None]
    if recorded and all(s.spellings_listed for s in recorded):
        merged = spelled(merged, (v for s in recorded for v in s.spellings))
    elif recorded:
        widest = max(recorded, key=lambda s: s.n_spellings)
        merged = merged.model_copy(
            update={k: getattr(widest, k) for k in ("spellings", "n_spellings", "spelling_digest")}
        )
    counts: dict[str, int] | None = None
    if all(s.counts is not None for s in every):
        counts = {}
        for s in every:
            for name, value in (s.counts or {}).items():
                counts[name] = max(counts.get(name, value), value)
    return merged.model_copy(update={"counts": counts})
