"""Regular expressions from a config: refused before they run when running them could never end.

A token_pattern runs in Python's `re`, which keeps Python's Unicode `\\w` and `\\b` (scikit-learn's
token_pattern means them; RE2's are ASCII), but a repeated part that can itself match in several ways, as in
`(\\w+\\s?\\w*)+\\d`, takes time exponential in the text's length, and k repeats in a row that can take the
same characters, followed by something that can fail, as in `[\\w ]*[\\w ]*[\\w ]*!`, take time growing as the
length to the power k; possessive repeats and atomic groups, which never backtrack, are the way to write one
that is safe. A split_pattern runs in Arrow (RE2, linear
time), whose split never ends on a pattern that matches the empty string.
"""

from __future__ import annotations

import re
import re._compiler as sre_compile
import re._constants as sre  # the parser's own names for the pattern's parts (Python >= 3.11)
import re._parser as sre_parse
from typing import Any

_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT)
# Texts in which a separator is tried: an empty match depends only on the characters either side of it
# (`^`, `$`, `\\b`, `\\B`), so every pair of these kinds of character, and the ends, are tried.
_PROBE_CHARS = ("a", "Z", "1", "_", " ", "\t", "\n", ",", ".", "-", "é", "東")
_PROBES = ("", *_PROBE_CHARS, *(a + b for a in _PROBE_CHARS for b in _PROBE_CHARS))


def backtracking_risk(pattern: str) -> str | None:
    """Why ``pattern`` can take exponential time in `re` (None when it cannot); assumes it compiles.

    Inside a repeat that backtracks, every part must match one way only: no part of varying length (`+`,
    `*`, `?`, `{1,3}`) and no alternatives, unless it is possessive or atomic (then it never backtracks).
    """
    try:
        parsed = sre_parse.parse(pattern)
    except (re.error, RecursionError, OverflowError):
        return None  # compiling it reports the problem
    if _ambiguous(list(parsed), False):
        return (
            "it repeats a group holding a repeat, an optional part or alternatives (as in `(a+)+` or `(a|aa)*`), "
            "which Python's re may take exponential time to match; make the inner repeat possessive (`a++`, "
            "`a?+`) or the repeated group atomic (`(?>...)`)"
        )
    in_a_row = _Runs(parsed.state).sequence(list(parsed), tail_fails=False)
    if in_a_row < 2:
        return None
    return (
        f"it has {in_a_row} repeats in a row that can take the same characters, then something that can fail (as "
        "in `\\w*\\w*!`): on a text it does not match, Python's re tries every way of sharing the text among "
        f"them, in time growing as the text's length to the power {in_a_row}; make all but one of them possessive "
        "(`\\w*+`), merge them into one, or put between them a character none of them takes"
    )


def _ambiguous(items: list[tuple[Any, Any]], repeated: bool) -> bool:
    """Whether ``items`` can match one text in many ways; ``repeated``: they lie inside a backtracking repeat."""
    for op, av in items:
        if op in _REPEATS:
            least, most, body = av
            if repeated and least != most:
                return True
            if _ambiguous(list(body), repeated or most > 1):
                return True
        elif op is sre.POSSESSIVE_REPEAT:
            if _ambiguous(list(av[2]), False):  # never backtracked into: only its own body counts
                return True
        elif op is sre.ATOMIC_GROUP:
            if _ambiguous(list(av), False):
                return True
        elif op is sre.SUBPATTERN:
            if _ambiguous(list(av[3]), repeated):
                return True
        elif op is sre.BRANCH:
            if repeated or any(_ambiguous(list(a), False) for a in av[1]):
                return True
        elif op in (sre.ASSERT, sre.ASSERT_NOT):  # a lookaround is atomic in re
            if _ambiguous(list(av[1]), False):
                return True
        elif op is sre.GROUPREF_EXISTS:
            _, yes, no = av
            if repeated or _ambiguous(list(yes), False) or (no is not None and _ambiguous(list(no), False)):
                return True
    return False


# Characters the repeats' classes are tried on: every ASCII one, and of each kind a few beyond (Latin letters with
# marks, other scripts, their digits, full-width forms, a ligature, format and combining characters, an emoji).
_UNIVERSE = (
    "".join(chr(c) for c in range(128))
    + "\xa0\xb2\xb5\xc0\xdf\xe9\xff\u0100\u0301\u03b1\u0416\u05d0"
    + ("\u0661\u0915\u200b\u2028\u3000\u6771\uac00\ufb01\uff21\uff11\U0001f600")
)
_SINGLE = (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN)


Runs = list[tuple[frozenset[int], int]]  # repeats a later one may share characters with, and their chains


class _Runs:
    """Counts the longest chain of backtracking repeats in a row that can take the same characters."""

    def __init__(self, state: Any) -> None:
        self.state = state

    def chars(self, item: tuple[Any, Any]) -> frozenset[int]:
        """The characters (of _UNIVERSE, by position) one character-matching item takes, as re itself says."""
        matcher = sre_compile.compile(sre_parse.SubPattern(self.state, [item]), self.state.flags)
        return frozenset(i for i, c in enumerate(_UNIVERSE) if matcher.fullmatch(c))

    def single(self, items: list[tuple[Any, Any]]) -> tuple[Any, Any] | None:
        """The one character-matching item ``items`` come to (through plain groups), else None."""
        while len(items) == 1 and items[0][0] is sre.SUBPATTERN:
            items = list(items[0][1][3])
        return items[0] if len(items) == 1 and items[0][0] in _SINGLE else None

    def sequence(self, items: list[tuple[Any, Any]], tail_fails: bool) -> int:
        """The longest chain in ``items``, or in a part within them, that something after it can make fail
        (``tail_fails``: what follows ``items`` can)."""
        return self.walk(items, [], tail_fails)[0]

    def walk(self, items: list[tuple[Any, Any]], runs: Runs, tail_fails: bool) -> tuple[int, Runs]:
        """The longest chain through ``items`` after the repeats ``runs``, and the repeats still open after them."""
        worst = 0
        for i, (op, av) in enumerate(items):
            after_fails = tail_fails or any(_can_fail(o, a) for o, a in items[i + 1 :])
            if op in _REPEATS:
                least, most, body = av
                one = self.single(list(body))
                if one is not None and least != most and most >= 2:
                    taken = self.chars(one)
                    chain = 1 + max((n for chars, n in runs if chars & taken), default=0)
                    if after_fails:
                        worst = max(worst, chain)
                    if least:  # it takes a character: a repeat before it that cannot take it ends there
                        runs = [(chars, n) for chars, n in runs if chars & taken]
                    runs = [*runs, (taken, chain)]
                elif most == 1:  # `(...)?` or `(...){1}`: its parts are in the row (and, optional, so is skipping it)
                    inner, through = self.walk(list(body), runs, after_fails)
                    worst = max(worst, inner)
                    runs = through if least else [*runs, *through]
                else:
                    worst = max(worst, self.sequence(list(body), tail_fails=True))
                    if least:
                        runs = []
            elif op is sre.POSSESSIVE_REPEAT and (one := self.single(list(av[2]))) is not None and av[1] >= 2:
                # Never gives back, but takes again after every way the repeats before it share the text: one
                # more in their row. Later repeats are in a row with those before it (it may take nothing).
                taken = self.chars(one)
                chain = 1 + max((n for chars, n in runs if chars & taken), default=0)
                if after_fails and chain >= 2:
                    worst = max(worst, chain)
            elif op is sre.SUBPATTERN:
                inner, runs = self.walk(list(av[3]), runs, after_fails)
                worst = max(worst, inner)
            elif op in _SINGLE:
                taken = self.chars((op, av))
                runs = [(chars, n) for chars, n in runs if chars & taken]
            elif op is sre.AT or op in (sre.ASSERT, sre.ASSERT_NOT):
                # Takes no character: repeats either side of it stay in a row. A lookaround is atomic in re.
                if op is not sre.AT:
                    worst = max(worst, self.sequence(list(av[1]), tail_fails=False))
            else:  # alternatives, possessive and atomic parts, references: looked into, and they end a row
                worst = max(worst, self._inside(op, av, after_fails))
                runs = []
        return worst, runs

    def _inside(self, op: Any, av: Any, after_fails: bool) -> int:
        if op is sre.BRANCH:
            return max((self.sequence(list(a), after_fails) for a in av[1]), default=0)
        if op is sre.POSSESSIVE_REPEAT:  # never backtracked into: only what fails inside one turn counts
            return self.sequence(list(av[2]), tail_fails=False)
        if op is sre.ATOMIC_GROUP:
            return self.sequence(list(av), tail_fails=False)
        if op is sre.GROUPREF_EXISTS:
            _, yes, no = av
            return max(self.sequence(list(yes), after_fails), self.sequence(list(no or []), after_fails))
        return 0


def _can_fail(op: Any, av: Any) -> bool:
    """Whether an item can fail to match where it is tried (a repeat that may match nothing cannot)."""
    if op in _REPEATS or op is sre.POSSESSIVE_REPEAT:
        return bool(av[0]) and any(_can_fail(o, a) for o, a in av[2])
    if op is sre.SUBPATTERN:
        return any(_can_fail(o, a) for o, a in av[3])
    return True


def empty_separator(pattern: str) -> str | None:
    """A text in which the RE2 ``pattern`` matches an empty string (None when it does so in none of the
    probes): Arrow's split on such a pattern never ends. Raises pyarrow's ArrowInvalid for a bad pattern."""
    import pyarrow as pa
    import pyarrow.compute as pc

    # Each match is wrapped in \x01 ... \x02 (a replace, unlike a split, steps over empty matches).
    marked = pc.replace_substring_regex(pa.array(_PROBES), pattern, "\x01\\0\x02")
    empty = pc.match_substring(marked, "\x01\x02").to_pylist()
    return next((probe for probe, hit in zip(_PROBES, empty, strict=True) if hit), None)
