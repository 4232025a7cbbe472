"""The site's reference pages, written from the code so they cannot drift: the config, the checks, the API.

`python docs/gen_reference.py` rewrites them; `--check` lists the stale ones and exits 1
(tests/test_docs.py runs the check).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
GENERATED = "<!-- made by docs/gen_reference.py from the code: edit the code or docs/templates/, not this page -->"

# -- the config reference, from schemas/config.schema.json and each stage's Options model -------------------


def _type(prop: dict[str, Any]) -> str:
    """A JSON Schema property's type in a few words: `string`, `list of string`, `ManifestSpec or null`."""
    if "$ref" in prop:
        name = prop["$ref"].rsplit("/", 1)[1]
        return f"[{name}](#{name.lower()})"
    if "const" in prop:
        return f"`{json.dumps(prop['const'])}`"
    if "enum" in prop:
        return " \\| ".join(f"`{v}`" for v in prop["enum"])
    if "anyOf" in prop:
        return " or ".join(_type(p) for p in prop["anyOf"])
    kind = prop.get("type", "any")
    if kind == "array":
        return f"list of {_type(prop['items'])}" if "items" in prop else "list"
    if kind == "object" and isinstance(prop.get("additionalProperties"), dict):
        return f"map of {_type(prop['additionalProperties'])}"
    return str(kind)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _default(prop: dict[str, Any], required: bool) -> str:
    if required:
        return "required"
    if "default" not in prop:
        return ""
    return f"`{json.dumps(prop['default'], ensure_ascii=False)}`"


def _fields_table(schema: dict[str, Any]) -> list[str]:
    required = set(schema.get("required", []))
    lines = ["| key | type | default | what |", "|---|---|---|---|"]
    for name, prop in schema.get("properties", {}).items():
        what = prop.get("description", "")
        lines.append(f"| `{name}` | {_cell(_type(prop))} | {_cell(_default(prop, name in required))} | {_cell(what)} |")
    return lines


def config_reference() -> str:
    from auditor.pipeline.registry import discover, load_stages

    schema = json.loads((REPO / "schemas" / "config.schema.json").read_text(encoding="utf-8"))
    out = [
        GENERATED,
        "# Config reference",
        "",
        "Every key `audit.yaml` takes, from the models the loader validates with (the same models give",
        "`schemas/config.schema.json`). Unknown keys are errors naming file:line:column and the closest valid key.",
        "The [config guide](../config.md) explains the sections with an annotated example.",
        "",
        "## audit.yaml",
        "",
        schema.get("description", ""),
        "",
        *_fields_table(schema),
    ]
    for name, sub in schema.get("$defs", {}).items():
        out += ["", f"## {name}", "", sub.get("description", ""), "", *_fields_table(sub)]
    out += [
        "",
        "## stages",
        "",
        "Options per stage, under `stages: {STAGE: {...}}`; every stage accepts `enabled`.",
    ]
    for cls in load_stages(discover()):
        options = cls.Options.model_json_schema()
        out += ["", f"### stages.{cls.name}", "", cls.summary, "", *_fields_table(options)]
    return "\n".join(line.rstrip() for line in out) + "\n"


# -- the check catalogue: the stages' code catalogues placed into the prose of docs/templates/checks.md ----

CODES_MARK = re.compile(r"^<!-- codes: (\w+) -->$", re.M)
SEVERITY_TABLE = re.compile(r"^\| code \| severity \| finding \|\n\|---\|---\|---\|\n((?:\|.*\|\n)+)", re.M)
ROW = re.compile(r"^\| (\w+) \| (.*?) \| (.*) \|$")


def _stage_section(cls: Any, prose: str) -> str:
    """A stage's prose with its severity table merged into one table of the codes the stage declares."""
    where = f"docs/templates/checks.md, {cls.name}"
    found = SEVERITY_TABLE.search(prose)
    if found is None:
        raise SystemExit(f"{where}: no `| code | severity | finding |` table")
    said = {m.group(1): (m.group(2), m.group(3)) for m in map(ROW.match, found.group(1).splitlines()) if m}
    unknown = sorted(set(said) - set(cls.codes))
    if unknown:
        raise SystemExit(f"{where}: the table names codes the stage does not report: {', '.join(unknown)}")
    rows = [
        f"| {code} | {said.get(code, ('', ''))[0]} | {_cell(title)} | {said.get(code, ('', ''))[1]} |"
        for code, title in cls.codes.items()
    ]
    table = "\n".join(["| code | severity | the report's title | what it reports |", "|---|---|---|---|", *rows]) + "\n"
    return f"*{cls.summary}.*" + prose[: found.start()] + table + prose[found.end() :]


def checks_reference() -> str:
    from auditor.pipeline.registry import discover, load_stages

    stages = {cls.name: cls for cls in load_stages(discover())}
    template = (DOCS / "templates" / "checks.md").read_text(encoding="utf-8")
    parts = CODES_MARK.split(template)  # prose, name, prose, name, ...
    placed = parts[1::2]
    missing = sorted(set(stages) - set(placed))
    if missing:
        raise SystemExit(f"docs/templates/checks.md: no `<!-- codes: NAME -->` place for {', '.join(missing)}")
    out = [GENERATED, "\n", parts[0]]
    for name, prose in zip(parts[1::2], parts[2::2], strict=True):
        # A stage's section ends at the next heading of its own level or above (what follows is another's).
        cut = re.search(r"^#{1,3} ", prose, flags=re.M)
        own, rest = (prose[: cut.start()], prose[cut.start() :]) if cut else (prose, "")
        out += [_stage_section(stages[name], own), rest]
    return "".join(out)


# -- the service's API, from the OpenAPI schema of the FastAPI app -------------------------------------------


def openapi_schema() -> dict[str, Any]:
    import sqlalchemy

    from auditor.service.app import create_app
    from auditor.service.context import ServiceContext

    app = create_app(ServiceContext(engine=sqlalchemy.create_engine("sqlite://")))
    inner = getattr(app, "app", app)  # the FastAPI app inside the body limit
    schema: dict[str, Any] = inner.openapi()
    return schema


def api_reference() -> str:
    schema = openapi_schema()
    out = [
        GENERATED,
        "# API reference",
        "",
        "Every route of the service, from its OpenAPI schema (served at `/openapi.json`; `/docs` renders it on the",
        "server). Routes under `/api` need `Authorization: Bearer <token>`; what each role may do is in",
        "[the service](../service.md).",
        "",
        "| method | path | what | parameters |",
        "|---|---|---|---|",
    ]
    for path, item in schema["paths"].items():
        for method, op in item.items():
            params = ", ".join(
                f"`{p['name']}` ({p['in']}{', required' if p.get('required') else ''})"
                for p in op.get("parameters", [])
            )
            if "requestBody" in op:
                params = ", ".join(filter(None, [params, "JSON body"]))
            what = op.get("description", "").split("\n", 1)[0] or op.get("summary", "")
            out.append(f"| {method.upper()} | `{path}` | {_cell(what)} | {params} |")
    bodies = schema.get("components", {}).get("schemas", {})
    if bodies:
        out += ["", "## Bodies", ""]
        for name, body in bodies.items():
            out += [f"### {name}", "", body.get("description", ""), "", *_fields_table(body), ""]
    return "\n".join(line.rstrip() for line in out).rstrip() + "\n"


PAGES = {
    "reference/config.md": config_reference,
    "reference/checks.md": checks_reference,
    "reference/api.md": api_reference,
}


def stale(docs: Path = DOCS) -> list[str]:
    """The generated pages under ``docs`` whose text differs from what the code gives now (or that are missing)."""
    return [
        name
        for name, make in PAGES.items()
        if not (docs / name).is_file() or (docs / name).read_text(encoding="utf-8") != make()
    ]


def main(argv: list[str]) -> int:
    if "--check" in argv:
        names = stale()
        for name in names:
            print(f"docs/{name} is stale: run `python docs/gen_reference.py`")
        return 1 if names else 0
    for name, make in PAGES.items():
        (DOCS / name).parent.mkdir(parents=True, exist_ok=True)
        (DOCS / name).write_text(make(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    raise SystemExit(main(sys.argv[1:]))
