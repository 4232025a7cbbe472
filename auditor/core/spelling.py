"""When two spellings are one value: the normal form of a text, one value at a time.

The normal form is what the spelling checks compare (manifest/spelling.py computes it column-wise and is
tested against this function) and, as first defined (see the end), what fingerprints compare keys by. In
order:

1. Unicode NFKC, then full case folding (`ß` -> `ss`; `İ` -> `i`): compatibility forms are their letters
   (full-width `w1` U+FF57 U+FF11 is `w1`, the ligature U+FB01 is `fi`, a superscript `²` is `2`).
2. Format characters (category Cf: zero-width space and joiners, the byte-order mark, the soft hyphen,
   direction marks) dropped; decimal digits of any script (Arabic-Indic U+0661, Devanagari U+0967) written
   as ASCII digits; NFKC again.
3. Surrounding whitespace (anything ``str.isspace`` accepts) removed, and each run of it inside a value is one
   space (`John  Smith` and `John<TAB>Smith` are `john smith`: a doubled key press or a tab is how one name
   gets two spellings); inner spaces stay (`a b` is not `ab`).
4. A number is read by its value: ``[+-]digits[.digits][e[+-]digits]`` is written as a plain decimal,
   exactly (no floating point): `1e3` = `1000` = `1000.0` = `+01000`, `1.5e1` = `15`, `-0` = `0`. A
   fraction of zeros goes (`7.0` = `7.00` = `7`: how pandas writes an integer column that held a blank),
   but a fraction that is not all zeros, written without an exponent, keeps its digits as written, trailing
   zeros too: `1.10` is not `1.1` and `0.50` is not `0.5`. Dotted ids (subject.session, chapter.section)
   are common and `1.10` is the tenth, not the first; the price is that a non-integer float id written
   `1.50` in one split and `1.5` in another is two values (rare: float ids are). With an exponent every
   digit is read by value (`1.50e0` = `1.5`). Leading zeros do not count (`007` = `7`, a zip code `02134`
   = `2134`, `01.10` = `1.10`): a lost leading zero is how one code usually gets two spellings, and both
   are shown. An exponent beyond ±100 is left as text, so a normal form is never much longer than what was
   written. `0x10`, `1,000`, `1_000` and `w01` are text, and so is an exponent after a zero-padded
   mantissa: `000e5` and `01e2` are hex (a digest or a padded hex id, where `e` is a digit), not 0 and 100.
5. Any other value loses what only wraps or ends it: whitespace, quotes (Unicode categories Pi and Pf, and
   `"` `'` `` ` ``), brackets (Ps and Pe) and sentence punctuation (`.` `,` `;` `:` `!` `?` `¡` `¿`; step 1
   made their full-width and other compatibility forms these) at either end: `"deep."`, `(deep)`, `deep?`,
   `«Deep»` and `Deep` are one value; what is left is read as a number again (`(007)` = `7`). Every other
   symbol or punctuation mark at an end is part of the value (`+ - # * % & @ / \\ $ ~ ^ _ = < > |`, `§`, `€`,
   ...): `A+`, `A-` and `A` are three values (blood types, grades), as are `C++`, `C#` and `C`, `5%` and
   `5`, `$5` and `5`. Inside a value punctuation is structure and stays: `a-1`, `a_1` and `a1` are three
   values (`1-23` and `12-3` must not meet), and so are `1,000` and `1000`. A value made of these marks only
   keeps them (`?` and `!` stay two values, never blank).

Fingerprints and acceptance scopes (core/scope.py) are stored and compared across versions, so they keep the
form they were first made of (``normal_form(text, fingerprint=True)``): steps 1-4 with every number read
wholly by value (`1.10` = `1.1`), and no step 5.
"""

from __future__ import annotations

import re
import unicodedata

# Every character Python's str.isspace() accepts, so the trim matches str.strip() exactly.
WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
# Step 5's marks besides whitespace: quotes, brackets and sentence punctuation. Only these, after NFKC (so
# the full-width U+FF01 is `!` already): any other mark at an end is part of the value (`A+` is not `A-`).
END_PUNCTUATION = "\"'`.,;:!?\u00a1\u00bf"
END_CATEGORIES = frozenset({"Pi", "Pf", "Ps", "Pe"})  # initial and final quotes, opening and closing brackets
# Whitespace other than the plain space: a value holding one may hold a run to be written as one space.
_OTHER_SPACE = re.compile("[" + re.escape(WHITESPACE.replace(" ", "")) + "]")
MAX_EXPONENT = 100  # |exponent| above this: the number stays text (`1e400` would be 401 characters)
NUMBER = re.compile(r"(?P<sign>[+-]?)(?P<int>[0-9]*)(?:\.(?P<frac>[0-9]*))?(?:e(?P<exp>[+-]?[0-9]+))?")


def is_format(char: str) -> bool:
    """A format character (Cf): invisible, so never part of how a value is spelled."""
    return unicodedata.category(char) == "Cf"


def fold_char(char: str) -> str:
    """One character's part of the normal form before the final NFKC (``char`` already NFKC)."""
    if is_format(char):
        return ""
    if char == "\u0130":  # İ: its full folding adds a combining dot; the simple one, `i`, is what is meant
        return "i"
    digit = unicodedata.decimal(char, None) if not char.isascii() else None
    return str(digit) if digit is not None else char.casefold()


def plain_number(sign: str, integer: str, fraction: str, exponent: int) -> str:
    """The shortest plain decimal of sign, digits and exponent: ('-', '12', '50', 1) -> '-125'."""
    digits = integer + fraction
    point = len(integer) + exponent  # the value is 0.DIGITS x 10^point
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    if not digits:
        return "0"
    if point >= len(digits):
        body = digits + "0" * (point - len(digits))
    elif point > 0:
        body = f"{digits[:point]}.{digits[point:]}"
    else:
        body = "0." + "0" * -point + digits
    return f"-{body}" if sign == "-" else body


def is_mark(char: str) -> bool:
    """Whitespace, a quote, a bracket or sentence punctuation: what step 5 drops at the ends of a value."""
    return char in END_PUNCTUATION or unicodedata.category(char) in END_CATEGORIES or char.isspace()


def strip_marks(text: str) -> str:
    """``text`` without its leading and trailing runs of marks (is_mark; all of it when nothing else is left:
    a value of marks only is kept)."""
    start, end = 0, len(text)
    while start < end and is_mark(text[start]):
        start += 1
    while end > start and is_mark(text[end - 1]):
        end -= 1
    return text[start:end] if start < end else text


def normal_form(text: str, fingerprint: bool = False) -> str:
    """The normal form of one text value (see the module docstring); '' for a blank one. ``fingerprint=True``
    gives the form fingerprints are made of: every number wholly by value, no step 5 (a fingerprint must not
    change)."""
    if text.isascii():
        # ASCII is its own NFKC, holds no format character and no other script's digit: only case folds.
        t = text.lower().strip()
    else:
        t = unicodedata.normalize("NFKC", text)
        t = unicodedata.normalize("NFKC", "".join(fold_char(c) for c in t))
        t = t.strip()
    if not t.isascii() or "  " in t or _OTHER_SPACE.search(t):
        t = " ".join(t.split())
    number = _number(t, fingerprint)
    if number is not None or fingerprint:
        return number if number is not None else t
    stripped = strip_marks(t)
    return _number(stripped) or stripped


def _number(t: str, by_value: bool = False) -> str | None:
    """The normal form of ``t`` when it is written as a number (step 4; ``t`` itself when its exponent is too
    large), else None. ``by_value``: the fraction's trailing zeros go too (`1.10` -> `1.1`), as fingerprints
    had it."""
    number = NUMBER.fullmatch(t)
    if number is None or not (number["int"] or number["frac"]):
        return None
    if number["exp"] is not None and len(number["int"]) > 1 and number["int"].startswith("0"):
        return None  # a zero-padded mantissa before an `e`: hex text (`000e5`), not a number
    fraction = number["frac"] or ""
    if not by_value and number["exp"] is None and fraction.strip("0"):
        # A dotted id's fraction is written digits (`1.10` is not `1.1`); only its leading zeros and sign go.
        body = f"{number['int'].lstrip('0') or '0'}.{fraction}"
        return f"-{body}" if number["sign"] == "-" else body
    written = (number["exp"] or "0").lstrip("+-").lstrip("0")
    if len(written) > len(str(MAX_EXPONENT)) or int(written or 0) > MAX_EXPONENT:
        return t
    exponent = -int(written or 0) if (number["exp"] or "").startswith("-") else int(written or 0)
    return plain_number(number["sign"], number["int"], fraction, exponent)
