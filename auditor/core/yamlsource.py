"""Safe YAML loading that remembers where every key and value stands, for errors with line:column."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from auditor.core.errors import ConfigError

Loc = tuple[str | int, ...]


@dataclass(frozen=True)
class Position:
    line: int  # 1-based
    column: int  # 1-based


@dataclass(frozen=True)
class YamlDocument:
    """The plain data of a YAML file and the position of each key path within it."""

    path: Path
    data: Any
    positions: dict[Loc, Position] = field(default_factory=dict)

    def where(self, loc: Loc) -> Position | None:
        """Position of the deepest prefix of ``loc`` that exists in the file."""
        for end in range(len(loc), -1, -1):
            pos = self.positions.get(tuple(loc[:end]))
            if pos is not None:
                return pos
        return None


# A config needs a few anchors at most; these bounds stop an alias bomb ("billion laughs") while
# composing, before anything walks or validates the expanded document.
MAX_ALIASES = 100
MAX_EXPANDED_NODES = 100_000
# A config nests a handful of levels and its values are names, paths and sentences: deeper nesting would
# exhaust the composer's recursion (a RecursionError, not a message), and a longer value is not a config's.
MAX_DEPTH = 64
MAX_SCALAR_CHARS = 65_536


def _mark(node: yaml.Node) -> Position:
    return Position(node.start_mark.line + 1, node.start_mark.column + 1)


# A number keeps its value only when that is how it is written (17, 0.5). YAML 1.1 also reads 010 as 8, 0x10 as
# 16, 1_000 as 1000, 12:30 as 750 and 1.10 as 1.1: such a scalar keeps its text, so `key: 010` names the value
# 010, not 8 (a number field still reads the text as a number).
class _BoundedLoader(yaml.SafeLoader):
    """The safe loader, counting alias uses and the node count of the document with aliases expanded."""

    def construct_yaml_int(self, node: yaml.ScalarNode) -> Any:
        value = super().construct_yaml_int(node)
        return value if str(value) == node.value else str(node.value)

    def construct_yaml_float(self, node: yaml.ScalarNode) -> Any:
        value = super().construct_yaml_float(node)
        if value != value or value in (float("inf"), float("-inf")):  # .nan, .inf: no text to keep
            return value
        return value if repr(value) == node.value else str(node.value)

    def __init__(self, path: Path, text: str) -> None:
        super().__init__(text)
        self._path = path
        self._aliases = 0
        self._expanded = 0
        self._depth = 0
        # expanded size of each finished node, by identity; an anchor missing here is still open
        self._sizes: dict[int, int] = {}

    def _reject(self, mark: yaml.Mark, reason: str) -> ConfigError:
        return ConfigError(f"{self._path}:{mark.line + 1}:{mark.column + 1}: {reason}")

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            target = self.anchors.get(event.anchor)
            if target is None:  # undefined alias: the composer's own error says so
                return super().compose_node(parent, index)
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise self._reject(
                    event.start_mark,
                    f"too many YAML aliases (*{event.anchor} is use number {self._aliases}); "
                    f"a config may use at most {MAX_ALIASES}",
                )
            size = self._sizes.get(id(target))
            if size is None:
                raise self._reject(
                    event.start_mark,
                    f"YAML alias *{event.anchor} refers to the node that contains it; "
                    "expected an alias to a finished node, not a recursive structure",
                )
            self._count(event.start_mark, size, f"alias *{event.anchor}")
            return super().compose_node(parent, index)
        event = self.peek_event()
        start = event.start_mark
        if isinstance(event, yaml.ScalarEvent) and len(event.value) > MAX_SCALAR_CHARS:
            raise self._reject(
                start,
                f"a value of {len(event.value):,} characters; a config value is at most {MAX_SCALAR_CHARS:,} "
                "(a name, a path, a pattern or a sentence)",
            )
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise self._reject(
                start, f"nested more than {MAX_DEPTH} levels deep; expected a config of a few levels of sections"
            )
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if isinstance(node, yaml.MappingNode):
            children = [child for pair in node.value for child in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        else:
            children = []
        self._sizes[id(node)] = 1 + sum(self._sizes.get(id(child), 1) for child in children)
        self._count(start, 1, "node")
        return node

    def _count(self, mark: yaml.Mark, size: int, what: str) -> None:
        self._expanded += size
        if self._expanded > MAX_EXPANDED_NODES:
            raise self._reject(
                mark,
                f"the document grows past {MAX_EXPANDED_NODES:,} nodes once aliases are expanded "
                f"(at this {what}); expected a config of ordinary size",
            )


_BoundedLoader.add_constructor("tag:yaml.org,2002:int", _BoundedLoader.construct_yaml_int)
_BoundedLoader.add_constructor("tag:yaml.org,2002:float", _BoundedLoader.construct_yaml_float)


def load_yaml(path: Path, text: str) -> YamlDocument:
    """Parse ``text`` with the safe loader; duplicate keys are errors, as they are almost always typos."""
    try:
        loader = _BoundedLoader(path, text)
    except yaml.reader.ReaderError as exc:  # a control character: the reader refuses the text up front
        before = text[: exc.position]
        line, column = before.count("\n") + 1, exc.position - (before.rfind("\n") + 1) + 1
        raise ConfigError(
            f"{path}:{line}:{column}: character {chr(exc.character)!r} (U+{exc.character:04X}) is not allowed in "
            "YAML; expected printable text"
        ) from None
    try:
        node = loader.get_single_node()
        if node is None:
            return YamlDocument(path, None, {})
        # Walk before constructing: merge keys (<<) are flattened into the node by construction, and
        # an override of a merged key is not a duplicate.
        positions: dict[Loc, Position] = {}
        _walk(path, node, (), positions)
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        problem = exc.problem or "invalid YAML"
        context = f" ({exc.context})" if exc.context else ""
        raise ConfigError(f"{where}: YAML syntax error: {problem}{context}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: YAML error: {exc}") from None
    finally:
        loader.dispose()
    return YamlDocument(path, data, positions)


def _walk(path: Path, node: yaml.Node, loc: Loc, out: dict[Loc, Position]) -> None:
    out[loc] = _mark(node)
    if isinstance(node, yaml.MappingNode):
        seen: dict[Any, Position] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node)
            if key == "<<":
                continue
            here = _mark(key_node)
            if key in seen:
                first = seen[key]
                raise ConfigError(
                    f"{path}:{here.line}:{here.column}: duplicate key '{key}' "
                    f"(first defined at line {first.line}); YAML would silently keep only the last one"
                )
            seen[key] = here
            out[(*loc, key)] = here
            _walk(path, value_node, (*loc, key), out)
            out[(*loc, key)] = here
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(path, item, (*loc, i), out)


_PLAIN = re.compile(r"[A-Za-z_.][A-Za-z0-9_.\-/]*")
_YAML_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "none", "~"}


def yaml_scalar(value: str) -> str:
    """A string as a YAML scalar for a written config: plain when unambiguous, else double-quoted (JSON
    strings are valid YAML), so no name reads back as a boolean, a null or a number."""
    if _PLAIN.fullmatch(value) and value.lower() not in _YAML_WORDS:
        return value
    return json.dumps(value)
