"""The family's versioned prompt templates (``prompts/<name>.v<version>.md``), read through one loader.

Every prompt MathAtlas sends — the formalizer's (``formalize-statement.v1``, ``formalize-definition.v1``) and the
faithfulness rubrics a judge or an MA-Align model answers (``faithful-statement.v1``, ``faithful-definition.v1``)
— is pinned by name and version per kind of entity (a *prompt set*, ``kind -> (name, version)``). A run declares
its set's :func:`version_of` as its model's ``prompt_version``; a template's bytes are hashed into every judge
artifact that uses it, so an edit without a version bump is refused there.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from importlib import resources

from lemmata.oracles.judge import Rubric, parse_rubric

__all__ = ["template", "templates", "version_of"]


@lru_cache(maxsize=None)
def template(name: str, version: int) -> Rubric:
    """The shipped template ``prompts/<name>.v<version>.md``."""
    data = (resources.files("lemmata.benchmarks.mathatlas") / "prompts" / f"{name}.v{version}.md").read_bytes()
    return parse_rubric(name, version, data)


def templates(prompts: Mapping[str, tuple[str, int]]) -> dict[str, Rubric]:
    """Every template of a prompt set, by kind."""
    return {kind: template(name, version) for kind, (name, version) in prompts.items()}


def version_of(prompts: Mapping[str, tuple[str, int]]) -> str:
    """The prompt version a run on this set declares: its template ids, sorted and joined.

    >>> version_of({"statement": ("faithful-statement", 1), "definition": ("faithful-definition", 1)})
    'faithful-definition.v1+faithful-statement.v1'
    """
    return "+".join(sorted(f"{name}.v{version}" for name, version in prompts.values()))
