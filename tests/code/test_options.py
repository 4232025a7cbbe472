"""A script's argparse options read as it runs without arguments: each option's default under its name, groups'
options the parser's, `set_defaults` overriding; arguments written in the code (`parse_args(["--root", "y"])`) may
set any option, so none is known then."""

from __future__ import annotations

import textwrap
from pathlib import Path

from auditor.code.interpret import Walker
from auditor.code.sources import read_program


def _namespaces(tmp_path: Path, body: str) -> list[dict[str, object]]:
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(body))
    record = Walker(read_program(script)).run()
    return [
        {name: next(iter(value.consts)) if len(value.consts) == 1 else "?" for name, value in o.entries.items()}
        for o in record.objects.values()
        if o.qualname == "argparse.Namespace"
    ]


def test_options_are_their_defaults_unless_the_code_gives_the_arguments(tmp_path: Path) -> None:
    body = """
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default="data")
    parser.add_argument("-e", "--epochs", type=int, default=3)
    parser.add_argument("--fast", action="store_true")
    parser.add_argument("--out")
    parser.add_argument("config")
    group = parser.add_argument_group("io")
    group.add_argument("--cache", dest="cache_dir", default="/tmp/c")
    parser.set_defaults(epochs=5)
    args = parser.parse_args()
    known, rest = parser.parse_known_args()
    given = parser.parse_args(["--data-dir", "elsewhere"])
    """
    expected = {
        "data_dir": "data",
        "epochs": 5,
        "fast": False,
        "out": None,
        "config": "?",  # a positional argument has no default: not known
        "cache_dir": "/tmp/c",
    }
    assert _namespaces(tmp_path, body) == [expected, expected, {}]
