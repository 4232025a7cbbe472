"""When two spellings are one value: the normal form of a text, one value at a time.

The normal form is what the spelling checks compare (manifest/spelling.py computes it column-wise and is
tested against this function) and what fingerprints compare keys by. In order:

1. Unicode NFKC, then full case folding (`ß` -> `ss`; `İ` -> `i`): compatibility forms are their letters
   (full-width `w1` U+FF57 U+FF11 is `w1`, the ligature U+FB01 is `fi`, a superscript `²` is `2`).
2. Format characters (category Cf: zero-width space and joiners, the byte-order mark, the soft hyphen,
   direction marks) dropped; decimal digits of any script (Arabic-Indic U+0661, Devanagari U+0967) written
   as ASCII digits; NFKC again.
3. Surrounding whitespace (anything ``str.isspace`` accepts) removed; inner spaces stay (`a b` is not `ab`).
4. A number is read by its value: ``[+-]digits[.digits][e[+-]digits]`` is written as the shortest plain
   decimal, exactly (no floating point): `1e3` = `1000` = `1000.0` = `+01000`, `-0` = `0`, `1.50` = `1.5`.
   Leading zeros do not count (`007` = `7`, a zip code `02134` = `2134`): a lost leading zero is how one
   code usually gets two spellings, and both are shown. An exponent beyond ±100 is left as text, so a
   normal form is never much longer than what was written. `0x10`, `1,000`, `1_000` and `w01` are text, and
   so is an exponent after a zero-padded mantissa: `000e5` and `01e2` are hex (a digest or a padded hex
   id, where `e` is a digit), not 0 and 100.
5. Any other value loses the runs of punctuation and symbols (Unicode categories P and S) and whitespace at
   either end: `$deeP$`, `?deep`, `"deep."` and `Deep` are one value; what is left is read as a number
   again (`$5` = `5`, `(007)` = `7`). Inside a value punctuation is structure and stays: `a-1`, `a_1` and
   `a1` are three values (`1-23` and `12-3` must not meet), and so are `1,000` and `1000`. A value made of
   punctuation and symbols only keeps them (`?` and `!` stay two values, never blank).
"""

from __future__ import annotations

import re
import unicodedata

# Every character Python's str.isspace() accepts, so the trim matches str.strip() exactly.
WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
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
    """Punctuation, a symbol or whitespace: what step 5 drops at the ends of a value."""
    return unicodedata.category(char)[0] in "PS" or char.isspace()


def strip_marks(text: str) -> str:
    """``text`` without its leading and trailing runs of punctuation, symbols and whitespace (all of it when
    nothing else is left: a value of marks only is kept)."""
    start, end = 0, len(text)
    while start < end and is_mark(text[start]):
        start += 1
    while end > start and is_mark(text[end - 1]):
        end -= 1
    return text[start:end] if start < end else text


def normal_form(text: str, marks: bool = True) -> str:
    """The normal form of one text value (see the module docstring); '' for a blank one. ``marks=False``
    stops before step 5 (what fingerprints were made of before it: a fingerprint must not change)."""
    if text.isascii():
        # ASCII is its own NFKC, holds no format character and no other script's digit: only case folds.
        t = text.lower().strip()
    else:
        t = unicodedata.normalize("NFKC", text)
        t = unicodedata.normalize("NFKC", "".join(fold_char(c) for c in t))
        t = t.strip()
    number = _number(t)
    if number is not None or not marks:
        return number if number is not None else t
    stripped = strip_marks(t)
    return _number(stripped) or stripped


def _number(t: str) -> str | None:
    """The plain decimal of ``t`` when it is written as a number (step 4; ``t`` itself when its exponent is
    too large), else None."""
    number = NUMBER.fullmatch(t)
    if number is None or not (number["int"] or number["frac"]):
        return None
    if number["exp"] is not None and len(number["int"]) > 1 and number["int"].startswith("0"):
        return None  # a zero-padded mantissa before an `e`: hex text (`000e5`), not a number
    written = (number["exp"] or "0").lstrip("+-").lstrip("0")
    if len(written) > len(str(MAX_EXPONENT)) or int(written or 0) > MAX_EXPONENT:
        return t
    exponent = -int(written or 0) if (number["exp"] or "").startswith("-") else int(written or 0)
    return plain_number(number["sign"], number["int"], number["frac"] or "", exponent)
