"""YAML loading: positions for every key, and bounded work whatever the file holds."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.core.errors import ConfigError
from auditor.core.yamlsource import MAX_ALIASES, MAX_DEPTH, MAX_EXPANDED_NODES, MAX_SCALAR_CHARS, load_yaml

runner = CliRunner()


def alias_bomb(levels: int) -> str:
    """A "billion laughs": each level is a list of nine aliases to the level below."""
    lines = ["version: 1", 'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [{','.join([f'*a{i - 1}'] * 9)}]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("levels", [7, 9])
def test_alias_bomb_is_rejected_at_the_alias_that_grows_it(levels: int) -> None:
    started = time.perf_counter()
    with pytest.raises(ConfigError) as err:
        load_yaml(Path("bomb.yaml"), alias_bomb(levels))
    # A generous bound: unbounded expansion takes tens of seconds at 7 levels and never ends at 9.
    assert time.perf_counter() - started < 5
    message = str(err.value)
    assert message.startswith("bomb.yaml:7:10: ")  # the first *a4 of line 7 pushes it past the bound
    assert f"{MAX_EXPANDED_NODES:,} nodes" in message and "*a4" in message


@pytest.mark.parametrize("command", ["run", "validate"])
def test_alias_bomb_exits_2_with_a_message(tmp_path: Path, command: str) -> None:
    config = tmp_path / "audit.yaml"
    config.write_text(alias_bomb(9), encoding="utf-8")
    result = runner.invoke(app, [command, str(config)], env={"COLUMNS": "300"})
    assert result.exit_code == 2
    assert "audit.yaml:7:10" in result.output and "aliases are expanded" in result.output
    assert "Traceback" not in result.output


def test_too_many_aliases_are_rejected_even_when_small() -> None:
    uses = ", ".join(["*x"] * (MAX_ALIASES + 1))
    with pytest.raises(ConfigError, match=rf"c.yaml:2:\d+: too many YAML aliases .* at most {MAX_ALIASES}"):
        load_yaml(Path("c.yaml"), f"x: &x 1\ny: [{uses}]\n")


def test_recursive_alias_is_rejected() -> None:
    with pytest.raises(ConfigError, match=r"r.yaml:1:8: YAML alias \*a refers to the node that contains it"):
        load_yaml(Path("r.yaml"), "a: &a [*a]\n")


def test_ordinary_anchors_and_merge_keys_still_work() -> None:
    text = (
        "defaults: &d {enabled: true, max_examples: 3}\n"
        "stages:\n"
        "  group_overlap: *d\n"
        "  split_integrity:\n"
        "    <<: *d\n"
        "    max_examples: 5\n"
    )
    document = load_yaml(Path("ok.yaml"), text)
    assert document.data["stages"]["group_overlap"] == {"enabled": True, "max_examples": 3}
    assert document.data["stages"]["split_integrity"] == {"enabled": True, "max_examples": 5}
    position = document.where(("stages", "split_integrity", "max_examples"))
    assert position is not None and (position.line, position.column) == (6, 5)


def test_control_character_names_its_position() -> None:
    with pytest.raises(ConfigError, match=r"c.yaml:2:4: character '\\x08' \(U\+0008\) is not allowed in YAML"):
        load_yaml(Path("c.yaml"), "version: 1\nab:\x08\n")


@pytest.mark.parametrize(
    "text",
    ["x: " + "[" * 10_000 + "]" * 10_000 + "\n", "".join(" " * i + f"k{i}:\n" for i in range(500))],
    ids=["flow", "block"],
)
def test_nesting_deeper_than_a_config_is_refused_at_its_line(text: str) -> None:
    with pytest.raises(ConfigError, match=rf"^c.yaml:\d+:\d+: nested more than {MAX_DEPTH} levels deep"):
        load_yaml(Path("c.yaml"), text)


def test_a_config_nested_to_the_bound_still_loads() -> None:
    def nested(depth: int) -> str:  # the document's mapping and the innermost value are two more levels
        return "x: " + "[" * depth + "1" + "]" * depth + "\n"

    value = load_yaml(Path("c.yaml"), nested(MAX_DEPTH - 2)).data["x"]
    for _ in range(MAX_DEPTH - 3):
        value = value[0]
    assert value == [1]
    with pytest.raises(ConfigError, match="nested more than"):
        load_yaml(Path("c.yaml"), nested(MAX_DEPTH - 1))


def test_a_value_longer_than_a_config_holds_is_refused_without_quoting_it() -> None:
    with pytest.raises(ConfigError) as raised:
        load_yaml(Path("c.yaml"), "a: ok\nb: '" + "x" * (MAX_SCALAR_CHARS + 1) + "'\n")
    message = str(raised.value)
    assert message.startswith("c.yaml:2:4: a value of 65,537 characters") and len(message) < 200
    assert load_yaml(Path("c.yaml"), "b: '" + "x" * MAX_SCALAR_CHARS + "'\n").data["b"] == "x" * MAX_SCALAR_CHARS


@pytest.mark.parametrize(
    ("written", "read"),
    [("010", "010"), ("0x10", "0x10"), ("1_000", "1_000"), ("12:30", "12:30"), ("1.10", "1.10"), ("+12", "+12")],
)
def test_a_number_yaml_would_read_as_another_value_keeps_its_text(written: str, read: str) -> None:
    """YAML 1.1 reads 010 as 8 and 12:30 as 750: a key value written so must stay the value written."""
    assert load_yaml(Path("a.yaml"), f"key: {written}\n").data == {"key": read}


def test_numbers_written_as_their_value_stay_numbers() -> None:
    data = load_yaml(Path("a.yaml"), "a: 17\nb: -3\nc: 0.5\nd: 7.0\ne: .inf\n").data
    assert data == {"a": 17, "b": -3, "c": 0.5, "d": 7.0, "e": float("inf")}


def test_an_accept_key_written_010_does_not_accept_the_writer_8(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text("sample_id,writer,split\n1,010,train\n2,8,train\n3,x,test\n4,8,test\n")
    (tmp_path / "audit.yaml").write_text(
        "version: 1\nmanifest: {path: m.csv, id: sample_id, split: split}\nkeys: {groups: [writer]}\n"
        "accept:\n  - {code: GRP001, key: 010, reason: calibration writer}\n"
        "stages:\n  group_overlap: {max_examples: 010}\n"
    )
    result = runner.invoke(app, ["run", str(tmp_path / "audit.yaml"), "--out", str(tmp_path / "r"), "-q"])
    assert result.exit_code == 1, result.output
    assert "key='010'" in (tmp_path / "r" / "report.md").read_text()
