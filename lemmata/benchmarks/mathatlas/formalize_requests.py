"""The requests ``lemmata run mathatlas`` sends and what it writes from each answer, as functions of the release and
the answer alone: the run (:mod:`~lemmata.benchmarks.mathatlas.formalize_run`) and the scorer's request-log check
(:meth:`~lemmata.benchmarks.mathatlas.track.MathAtlasHandler.check_runner_log`) both call them.

The prompts are the authors' (``offendo/math-atlas``: ``benchmarks/prompts/theorem_zero_shot.txt``,
``definition_zero_shot.txt``, the system message of ``benchmarks/formatters/few_shot.py``); the dependency block is
upstream's ``informal`` mode (``benchmarks/dependency_context.py``); the Lean is taken from the reply as upstream
does (:func:`~lemmata.benchmarks.mathatlas.extract.extract_lean`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lemmata.benchmarks.mathatlas.extract import extract_lean
from lemmata.benchmarks.mathatlas.templates import template, version_of
from lemmata.oracles.chat_runner import ChatJob, Sampling
from lemmata.oracles.judge import Rubric

__all__ = ["CONTEXT_HEADER", "DEP_CHARS", "MAX_DEPS", "PROMPTS", "context_block", "formal_of", "formalize_jobs",
           "prompt", "prompt_version", "release_rows"]

PROMPTS = {"statement": ("formalize-statement", 1), "definition": ("formalize-definition", 1)}
#: upstream ``DependencyContext`` defaults: direct dependencies shown, characters of each
MAX_DEPS, DEP_CHARS = 12, 800
CONTEXT_HEADER = ("## Background: prerequisites of this item\nThe item below comes from a textbook. It relies on the "
                  "following concepts, taken from the same source. Use them to pick the right definitions and "
                  "hypotheses.")


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


def release_rows(release_id: str) -> tuple[dict[str, dict[str, Any]], dict[tuple[str, str], str]]:
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


def formalize_jobs(rows: Mapping[str, dict[str, Any]], refs: Mapping[tuple[str, str], str], entity_ids: list[str],
                   *, context: str, sampling: Sampling = Sampling()) -> tuple[list[ChatJob], dict[str, list[str]]]:
    """The run's requests, one per entity (id = the entity id), and the dependencies each was shown: a function of
    the release alone, so a scorer recomputes every request of a run when it checks its request log."""
    jobs, shown = [], {}
    for e in entity_ids:
        row = rows[e]
        kind = "definition" if row["entity_type"] == "definition" else "statement"
        deps = [(refs.get((e, t)), rows[t]) for t in row["dependencies"] if t in rows][:MAX_DEPS]
        block = context_block(deps) if context == "dependencies" else ""
        shown[e] = [t for t in row["dependencies"] if t in rows][:MAX_DEPS] if block else []
        jobs.append(ChatJob(id=e, sampling=sampling, messages=tuple(prompt(kind).render(
            {"context": block + "\n\n" if block else "", "text": row["statement"].strip()}))))
    return jobs, shown


def formal_of(answer: Any, entity_type: str) -> tuple[str | None, str | None]:
    """``(Lean, None)`` from an answer (a runner completion or a request log's answer: ``text``, ``abstention``),
    else ``(None, why)``: the one function the run and the scorer's request-log check turn an answer into a
    record's ``formal_statement`` with."""
    from lemmata.benchmarks.mathatlas.formal_statement import statement_problems

    lean = extract_lean(answer.text) if answer.abstention is None else ""
    problems = statement_problems(lean, "definitions" if entity_type == "definition" else "statements")[:1] \
        if lean else []
    why = (answer.abstention or "no Lean in the reply") if not lean else (
        f"refused by the formal-statement rules: line {problems[0][0]}: {problems[0][1]}" if problems else None)
    return (None, why) if why else (lean, None)
