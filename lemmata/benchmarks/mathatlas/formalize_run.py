"""MathAtlas's protocol for a chat model: formalize every entity of a track in Lean 4, zero-shot or with the
statements its dependencies point to.

The prompts are the authors' (``offendo/math-atlas``: ``benchmarks/prompts/theorem_zero_shot.txt`` for theorems,
examples and exercises, ``benchmarks/prompts/definition_zero_shot.txt`` for definitions, the system message of
``benchmarks/formatters/few_shot.py``), shipped as ``prompts/formalize-statement.v1.md`` and
``prompts/formalize-definition.v1.md``. Under the ``dependencies`` condition the prompt starts with the block of
upstream's ``informal`` dependency mode (``benchmarks/dependency_context.py``): the direct dependencies of the
entity that are in the release (its ``object_links``, self-links dropped, distinct, in reference order, at most
12), each as its reference, label and type and its text cut at 800 characters; an entity without one gets the
zero-shot prompt, as upstream. The Lean is taken from the reply as upstream does
(:func:`~lemmata.benchmarks.mathatlas.extract.extract_lean`: thinking stripped, the last fenced block). A reply
the runner could not get, an empty extraction, or Lean the submission rules refuse
(:mod:`~lemmata.benchmarks.mathatlas.formal_statement`) is an abstention (``formal_statement: null``, counted as
not compiling), its reason kept in the run's metadata. Requests go through
:class:`~lemmata.oracles.chat_runner.ChatRunner` (concurrent, cached, resumable).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from lemmata.benchmarks.mathatlas.extract import extract_lean
from lemmata.benchmarks.mathatlas.templates import template, version_of
from lemmata.oracles.chat_runner import ChatJob, ChatRunner, Completion, Sampling
from lemmata.oracles.judge import Rubric

PROMPTS = {"statement": ("formalize-statement", 1), "definition": ("formalize-definition", 1)}
#: upstream ``DependencyContext`` defaults: direct dependencies shown, characters of each
MAX_DEPS, DEP_CHARS = 12, 800
CONTEXT_HEADER = ("## Background: prerequisites of this item\nThe item below comes from a textbook. It relies on the "
                  "following concepts, taken from the same source. Use them to pick the right definitions and "
                  "hypotheses.")

__all__ = ["PROMPTS", "context_block", "formalize", "prompt", "prompt_version", "run_mathatlas"]


def prompt(kind: str) -> Rubric:
    return template(*PROMPTS[kind])


def prompt_version() -> str:
    """The prompt ids a run declares, e.g. ``formalize-definition.v1+formalize-statement.v1``."""
    return version_of(PROMPTS)


def _truncate(text: str) -> str:
    text = (text or "").strip()
    return text if len(text) <= DEP_CHARS else text[:DEP_CHARS].rstrip() + " …"


def context_block(deps: list[tuple[str | None, dict[str, Any]]]) -> str:
    """Upstream's ``informal`` dependency block for ``(reference, entity row)`` pairs; empty without any.

    >>> print(context_block([("Definition 1.2", {"identifier": "1.2", "names": [], "entity_type": "definition",
    ...                                          "statement": "A set is open if ..."})]))
    ## Background: prerequisites of this item
    The item below comes from a textbook. It relies on the following concepts, taken from the same source. Use them to pick the right definitions and hypotheses.
    <BLANKLINE>
    ### 1. "Definition 1.2" (1.2; definition)
    A set is open if ...
    >>> context_block([])
    ''
    """
    if not deps:
        return ""
    parts = [CONTEXT_HEADER]
    for i, (ref, dep) in enumerate(deps, 1):
        label = dep.get("identifier") or ", ".join(dep.get("names") or []) or "unlabelled"
        title = (f'### {i}. "{ref}" ({label}; {dep["entity_type"]})' if ref
                 else f"### {i}. {label} ({dep['entity_type']})")
        parts.append(title + "\n" + _truncate(dep.get("statement", "")))
    return "\n\n".join(parts)


def _release_rows(release_id: str) -> tuple[dict[str, dict[str, Any]], dict[tuple[str, str], str]]:
    """Every entity row of the release by id (split test, then hard) and the first reference text of each link."""
    from lemmata.benchmarks.mathatlas.meta import ATLAS_SPLITS, MATHATLAS
    from lemmata.catalog import load_release, read_columns

    release = load_release(MATHATLAS, release_id)
    rows: dict[str, dict[str, Any]] = {}
    names = ["entity_id", "entity_type", "statement", "names", "identifier", "dependencies"]
    for split in ATLAS_SPLITS:
        cols = read_columns(release, "entities", split, names)
        for values in zip(*cols.values()):
            rows.setdefault(values[0], dict(zip(cols, values)))
    links = read_columns(release, "dependencies", "open", ["entity_id", "depends_on", "reference"])
    refs: dict[tuple[str, str], str] = {}
    for e, t, ref in zip(links["entity_id"], links["depends_on"], links["reference"]):
        if ref:
            refs.setdefault((e, t), ref)
    return rows, refs


def formalize(runner: ChatRunner, release_id: str, entity_ids: list[str], *, context: str,
              sampling: Sampling = Sampling(), quiet: bool = False) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One record per entity (``formal_statement`` the extracted Lean, or null) and the run's abstention counts."""
    from lemmata.benchmarks.mathatlas.formal_statement import statement_problems

    rows, refs = _release_rows(release_id)
    jobs, shown = [], {}
    for e in entity_ids:
        row = rows[e]
        kind = "definition" if row["entity_type"] == "definition" else "statement"
        deps = [(refs.get((e, t)), rows[t]) for t in row["dependencies"] if t in rows][:MAX_DEPS]
        block = context_block(deps) if context == "dependencies" else ""
        shown[e] = [t for t in row["dependencies"] if t in rows][:MAX_DEPS] if block else []
        jobs.append(ChatJob(id=e, sampling=sampling, messages=tuple(prompt(kind).render(
            {"context": block + "\n\n" if block else "", "text": row["statement"].strip()}))))
    formal: dict[str, str | None] = {}
    abstained: Counter[str] = Counter()
    reasons: dict[str, str] = {}

    def read(job: ChatJob, c: Completion) -> None:
        """Each answer as it arrives (lexing Lean while other requests are still in flight): its Lean, or why not."""
        lean = extract_lean(c.text) if c.ok else ""
        rules = "definitions" if rows[job.id]["entity_type"] == "definition" else "statements"
        problems = statement_problems(lean, rules)[:1] if lean else []
        why = (c.abstention or "no Lean in the reply") if not lean else (
            f"refused by the formal-statement rules: line {problems[0][0]}: {problems[0][1]}" if problems else None)
        if why:
            abstained[why.split(":")[0]] += 1
            reasons[job.id] = why
        formal[job.id] = None if why else lean

    runner.run(jobs, desc=f"MathAtlas ({context})", quiet=quiet, on_answer=read)
    records = [{"entity_id": e, "formal_statement": formal[e]} for e in entity_ids]
    meta = {"entities": len(entity_ids), "context": context,
            "with_dependency_context": sum(1 for v in shown.values() if v),
            "abstentions": dict(sorted(abstained.items())),
            "abstention_reasons": {e: reasons[e] for e in entity_ids if e in reasons}}  # entity order: stable bytes
    return records, meta


def run_mathatlas(runner: ChatRunner, out_dir: str | Path, *, track: str, context: str,
                  sampling: Sampling = Sampling(), limit: int | None = None,
                  quiet: bool = False) -> tuple[Path, dict[str, Any]]:
    """Formalize every entity of ``track`` in the current MathAtlas release; write the submission."""
    from lemmata.benchmarks.mathatlas.meta import MATHATLAS
    from lemmata.benchmarks.mathatlas.track import track_entities
    from lemmata.core.jsonl import write_jsonl
    from lemmata.formats.envelope import SUBMISSION_FORMAT
    from lemmata.harness.runs import run_model_info
    from lemmata.oracles.judge import slug

    ids = list(track_entities(MATHATLAS.release_id, track))[:limit]
    records, meta = formalize(runner, MATHATLAS.release_id, ids, context=context, sampling=sampling, quiet=quiet)
    model = run_model_info(runner, sampling, prompt_version())
    smoke = f" Smoke run: the first {limit} entities only; the others count as abstained." if limit else ""
    header = {"format": SUBMISSION_FORMAT, "benchmark": "mathatlas", "release": MATHATLAS.release_id, "track": track,
              "context": context, "model": model.model_dump(mode="json"),
              "notes": f"lemmata run mathatlas: prompts {prompt_version()}, context {context}; Lean extracted from "
                       f"the last fenced block of each reply, thinking stripped; unusable replies abstain.{smoke}"}
    name = f"mathatlas.{MATHATLAS.release_id}.{track}.{context}.{slug(runner.endpoint.model)}.jsonl"
    return write_jsonl(Path(out_dir) / name, [header, *records]), meta
