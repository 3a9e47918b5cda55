"""What the Submit tab teaches for one benchmark: a valid header, the schema and example files, the CLI command.

The header template is generated from the benchmark's committed JSON Schema
(the same models the handler validates with) and the registry (the release the
space serves), so it cannot drift from what is accepted: every required field
is filled with an allowed value (the schema's own example, else the shipped
example's, else the first), a number with its lower bound, a boolean with
``false``, and the model name with a placeholder to replace.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from lemmata.core.paths import repo_root

PLACEHOLDER_MODEL = "my-system"


class SubmitGuide(BaseModel):
    """Everything the Submit tab shows for one benchmark."""

    model_config = ConfigDict(frozen=True)

    benchmark: str
    header: dict[str, Any]
    schema_path: str | None
    example_path: str | None
    command: str


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if ref and ref.startswith("#/$defs/"):
        return schema["$defs"][ref.rsplit("/", 1)[-1]]
    if "anyOf" in node:  # optional fields: the first non-null branch
        return _resolve(schema, next(b for b in node["anyOf"] if b.get("type") != "null"))
    return node


def _value(schema: dict[str, Any], node: dict[str, Any], name: str, release: str | None,
           shipped: dict[str, Any] | None = None) -> Any:
    """A valid value for one schema node (``shipped``: the example header's value of a free-text field).

    >>> _value({}, {"enum": ["raw", "assisted"]}, "track", None), _value({}, {"type": "integer", "minimum": 1}, "n", None)
    ('raw', 1)
    >>> _value({}, {"enum": ["world-2.1.0", "world-2.2.0"], "examples": ["world-2.2.0"]}, "corpus", None)
    'world-2.2.0'
    >>> _value({}, {"enum": ["zero-shot", "retriever-rag"], "examples": ["zero-shot"]}, "track", None,
    ...        shipped={"track": "retriever-rag"}), _value({}, {"enum": [1, 3, 5]}, "window", None, {"window": 5})
    ('zero-shot', 5)
    """
    node = _resolve(schema, node)
    if "const" in node:
        return node["const"]
    if "enum" in node:  # the schema's own example (the current world, not a superseded one; MathNet-Solve's
        # zero-shot, which needs no retrieval declaration), else the shipped example's choice (Re²Math's canonical
        # window), else the first
        offered = [*node.get("examples", ()), *([shipped.get(name)] if shipped else []), node.get("default")]
        return next((v for v in offered if v in node["enum"]), node["enum"][0])
    kind = node.get("type")
    if kind == "object":
        props = node.get("properties", {})
        return {k: _value(schema, props[k], k, release, shipped) for k in node.get("required", []) if k in props}
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        low = node.get("minimum", node.get("exclusiveMinimum", 0))
        return int(low) if kind == "integer" else float(low)
    if kind == "array":
        return [_value(schema, node.get("items", {}), name, release, shipped) for _ in range(node.get("minItems", 0))]
    if name == "release" and release:
        return release
    if name == "name":
        return PLACEHOLDER_MODEL
    if shipped and isinstance(shipped.get(name), str):  # e.g. the retrieval artifact or Lean version it used
        return shipped[name]
    return node.get("default") or f"<{name}>"


def header_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The header's definition in a line schema (the first ``oneOf`` branch)."""
    return _resolve(schema, schema["oneOf"][0])


def served_release(benchmark: str, pattern: str | None) -> str | None:
    """The release id the space serves for a submission ``benchmark`` (by registry name, else by the pattern)."""
    import re

    from lemmata.families import list_benchmarks

    metas = list_benchmarks()
    for meta in metas:
        if meta.name == benchmark:
            return meta.release_id
    for meta in metas:
        if pattern and re.fullmatch(pattern, meta.release_id):
            return meta.release_id
    return None


def header_template(benchmark: str) -> dict[str, Any]:
    """A header that the benchmark's handler accepts, with a placeholder model name to replace."""
    from lemmata.families import handlers

    files = handlers()[benchmark].schema_files()
    schema = json.loads(files[0].text)
    header = header_schema(schema)
    pattern = header.get("properties", {}).get("release", {}).get("pattern")
    example = example_path(benchmark)
    shipped = None
    if example is not None:
        with (repo_root() / example).open("rb") as fh:
            shipped = json.loads(fh.readline(1 << 16))
    return _value(schema, header, "header", served_release(benchmark, pattern), shipped)


def example_path(benchmark: str, root: Path | None = None) -> str | None:
    """The repository path of a shipped example submission whose header names ``benchmark`` (first line only)."""
    root = root or repo_root()
    for path in sorted((root / "submissions").glob("*/*.jsonl")):
        with path.open("rb") as fh:
            first = fh.readline(1 << 16)
        try:
            if json.loads(first).get("benchmark") == benchmark:
                return path.relative_to(root).as_posix()
        except (ValueError, AttributeError):
            continue
    return None


def submit_guide(benchmark: str) -> SubmitGuide:
    from lemmata.families import handlers

    files = handlers()[benchmark].schema_files()
    return SubmitGuide(benchmark=benchmark, header=header_template(benchmark),
                       schema_path=f"submissions/schema/{files[0].filename}" if files else None,
                       example_path=example_path(benchmark), command="lemmata score FILE")


def repo_link(repo_url: str | None, path: str) -> str:
    """A link to a file of the repository at its default branch (Hub and GitHub both serve ``blob/main``); with no
    repository configured (a space run from a checkout), the checkout's own file, served by this server.

    >>> repo_link("https://github.com/lemmata/lemmata/", "submissions/schema/x.json")
    'https://github.com/lemmata/lemmata/blob/main/submissions/schema/x.json'
    >>> repo_link(None, "submissions/schema/x.json").startswith("/gradio_api/file=/")
    True
    """
    if repo_url:
        return f"{repo_url.rstrip('/')}/blob/main/{path}"
    return local_file_url(repo_root() / path)


def local_file_url(path: Path) -> str:
    """The address this server serves a local file under (it must be among ``launch``'s ``allowed_paths``)."""
    from urllib.parse import quote

    return "/gradio_api/file=" + quote(str(Path(path).resolve()))


#: what a space run from a checkout serves of it for the links above (schemas, examples, guides, the README)
LOCAL_SERVED = ("submissions", "README.md")


def code_link_md(repo_url: str | None) -> str:
    """The markdown link to the code, schemas and examples: the repository, or the local checkout's README."""
    if repo_url:
        return f"[{repo_url}]({repo_url})"
    return f"[README.md of this checkout]({repo_link(None, 'README.md')}) (schemas and examples under `submissions/`)"


def guide_markdown(benchmark: str, repo_url: str) -> str:
    """The Submit tab's guide for one benchmark: header template, schema and example links, the CLI command."""
    guide = submit_guide(benchmark)
    links = []
    if guide.schema_path:
        links.append(f"[JSON Schema]({repo_link(repo_url, guide.schema_path)}) (`{guide.schema_path}`)")
    if guide.example_path:
        links.append(f"[example submission]({repo_link(repo_url, guide.example_path)}) (`{guide.example_path}`)")
    from lemmata.families import handlers

    note = getattr(handlers().get(benchmark), "guide_note", None)  # a family's own line (its example's command)
    if note:
        links.append(note)
    return (f"**Header for `{benchmark}`** — line 1 of the file; replace `{PLACEHOLDER_MODEL}` and check the "
            "declarations:\n\n```json\n" + json.dumps(guide.header, ensure_ascii=False) + "\n```\n\n"
            + ("; ".join(links) + ".\n\n" if links else "")
            + "Check the whole file before uploading (the `lemmata` package of the repository lists every "
              f"problem at once):\n\n```bash\n{guide.command}\n```\n")
