"""Safe YAML loading that remembers where every key and value stands, for errors with line:column."""

from __future__ import annotations

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


def _mark(node: yaml.Node) -> Position:
    return Position(node.start_mark.line + 1, node.start_mark.column + 1)


def load_yaml(path: Path, text: str) -> YamlDocument:
    """Parse ``text`` with the safe loader; duplicate keys are errors, as they are almost always typos."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return YamlDocument(path, None, {})
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
    positions: dict[Loc, Position] = {}
    _walk(path, node, (), positions)
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
