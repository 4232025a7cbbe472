"""Regular expressions from a config: refused before they run when running them could never end.

A token_pattern runs in Python's `re`, which keeps Python's Unicode `\\w` and `\\b` (scikit-learn's
token_pattern means them; RE2's are ASCII), but a repeated part that can itself match in several ways, as in
`(\\w+\\s?\\w*)+\\d`, takes time exponential in the text's length; possessive repeats and atomic groups,
which never backtrack, are the way to write one that is safe. A split_pattern runs in Arrow (RE2, linear
time), whose split never ends on a pattern that matches the empty string.
"""

from __future__ import annotations

import re
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
    if not _ambiguous(list(parsed), False):
        return None
    return (
        "it repeats a group holding a repeat, an optional part or alternatives (as in `(a+)+` or `(a|aa)*`), "
        "which Python's re may take exponential time to match; make the inner repeat possessive (`a++`, `a?+`) "
        "or the repeated group atomic (`(?>...)`)"
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


def empty_separator(pattern: str) -> str | None:
    """A text in which the RE2 ``pattern`` matches an empty string (None when it does so in none of the
    probes): Arrow's split on such a pattern never ends. Raises pyarrow's ArrowInvalid for a bad pattern."""
    import pyarrow as pa
    import pyarrow.compute as pc

    # Each match is wrapped in \x01 ... \x02 (a replace, unlike a split, steps over empty matches).
    marked = pc.replace_substring_regex(pa.array(_PROBES), pattern, "\x01\\0\x02")
    empty = pc.match_substring(marked, "\x01\x02").to_pylist()
    return next((probe for probe, hit in zip(_PROBES, empty, strict=True) if hit), None)
