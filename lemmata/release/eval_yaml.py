"""``eval.yaml``: how a published release registers itself as a Benchmark on the Hugging Face Hub.

The fields follow the Hub's documentation page "Evaluation Results" (``docs/hub/eval-results.md`` in
``huggingface/hub-docs``, section "Eval.yaml specification"): ``name``, ``description``,
``evaluation_framework`` and ``tasks[]``, each task with a required ``id`` and an optional ``config`` and
``split``. A model repository's ``.eval_results/*.yaml`` entry names a task by that ``id``
(``dataset.task_id``), so a task id is the track's name — never the release version — and a result scored on
any version of a release lands on the same leaderboard of the same repository. What a Lemmata number means
(which frozen tuple, which main score) goes into the description, the one free-text field the page lists.

``evaluation_framework`` is an enumeration the Hub maintains (``EVALUATION_FRAMEWORKS`` in
``huggingface.js/packages/tasks/src/eval.ts``, which lists ``inspect-ai``, ``mteb``, ``math-arena`` … but not
Lemmata when this was written): until ``lemmata`` is added there, the Hub may not show the repository as a
Benchmark, though the file uploads.
"""

from __future__ import annotations

from typing import Any

import yaml
from pydantic import Field, field_validator

from lemmata.core.meta import BenchmarkMeta
from lemmata.core.models import Frozen

EVAL_YAML = "eval.yaml"
EVALUATION_FRAMEWORK = "lemmata"
#: the task id of a release that declares no tracks (one leaderboard)
DEFAULT_TASK = "default"
#: what a Lemmata number is computed against; rows differing in any part are never ranked together
FROZEN_TUPLE = ("dataset release", "split", "retrieval artifact", "scoring artifact")


class EvalTask(Frozen):
    """One ``tasks[]`` item: a sub-leaderboard of the benchmark."""

    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-/]*$")
    config: str | None = None
    split: str | None = None


class EvalYaml(Frozen):
    """The whole file, with only the documented fields (the Hub validates it when it is pushed)."""

    name: str = Field(min_length=1)
    description: str = Field(min_length=1)
    evaluation_framework: str = Field(min_length=1)
    tasks: tuple[EvalTask, ...] = Field(min_length=1)

    @field_validator("tasks")
    @classmethod
    def _unique(cls, tasks: tuple[EvalTask, ...]) -> tuple[EvalTask, ...]:
        ids = [t.id for t in tasks]
        if len(set(ids)) != len(ids):
            raise ValueError(f"task ids must be unique, got {ids}")
        return tasks

    def to_yaml(self) -> str:
        doc: dict[str, Any] = self.model_dump(exclude={"tasks"})
        doc["tasks"] = [t.model_dump(exclude_none=True) for t in self.tasks]
        return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)


def task_id(meta: BenchmarkMeta, track: str) -> str:
    """The leaderboard a result of ``track`` belongs to: the track's name, the same in every version.

    >>> task_id(_toy(tracks=("raw", "assisted")), "raw"), task_id(_toy(), "anything")
    ('raw', 'default')
    """
    return track if meta.tracks else DEFAULT_TASK


def eval_yaml(meta: BenchmarkMeta, board_url: str) -> EvalYaml:
    """The ``eval.yaml`` of one release: a task per track (one ``default`` task without tracks).

    A ranking release whose tracks are splits of its ``qrels`` config names the config and split each is judged
    on; any other task leaves both to the Hub's defaults.

    >>> doc = eval_yaml(_toy(tracks=("raw", "assisted")), "https://example.org/board")
    >>> [t.id for t in doc.tasks], doc.evaluation_framework
    (['raw', 'assisted'], 'lemmata')
    >>> print(doc.to_yaml().split("tasks:")[1].strip())
    - id: raw
    - id: assisted
    """
    score = meta.main_score
    qrels = next((c.splits for c in meta.configs if c.name == "qrels"), ()) if meta.ranking else ()
    tasks = [EvalTask(id=task_id(meta, t), **({"config": "qrels", "split": t} if t in qrels else {}))
             for t in (meta.tracks or (DEFAULT_TASK,))]
    direction = "higher is better" if score.higher_is_better else "lower is better"
    description = (
        f"{meta.description.strip()}\n\n"
        f"Main score: {score.metric} ({direction}) — {score.description.strip()}\n"
        f"Release {meta.release_id} (tasks are its tracks: {', '.join(t.id for t in tasks)}; the same task ids in "
        f"every version). A Lemmata score is computed against a frozen tuple — {', '.join(FROZEN_TUPLE)} — and is "
        f"comparable only within one; each result's notes name its tuple.\n"
        f"Leaderboard, per-item audit and submission: {board_url}")
    return EvalYaml(name=meta.title, description=description, evaluation_framework=EVALUATION_FRAMEWORK,
                    tasks=tuple(tasks))


def _toy(**changes: Any) -> BenchmarkMeta:
    """A minimal release record for the doctests."""
    from lemmata.core.meta import ConfigSpec, MainScore

    fields: dict[str, Any] = {
        "name": "toy", "family": "toy", "title": "Toy", "description": "A toy benchmark.", "version": "1.0.0",
        "released": "2026-01-01", "task_type": "tool-retrieval", "upstream_repo": "o/toy",
        "paper_url": "https://example.org", "license": "MIT", "license_id": "mit",
        "citation": "@misc{toy, title={Toy}}",
        "configs": (ConfigSpec(name="default", description="all", splits=("test",), default=True),),
        "main_score": MainScore(metric="acc", description="share right")}
    return BenchmarkMeta(**{**fields, **changes})
