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
:class:`~lemmata.oracles.chat_runner.ChatRunner` (concurrent, cached, resumable); every answer the run used is
written to a request log beside the submission (header ``runner``), which the scorer checks against the release:
every request recomputed by :func:`formalize_jobs`, every record re-read from its answer by :func:`formal_of`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from lemmata.benchmarks.mathatlas.formalize_requests import (PROMPTS, context_block, formal_of, formalize_jobs,
                                                             prompt, prompt_version, release_rows)
from lemmata.oracles.chat_runner import ChatJob, ChatRunner, Completion, Sampling

__all__ = ["PROMPTS", "context_block", "formal_of", "formalize", "formalize_jobs", "prompt", "prompt_version",
           "run_mathatlas"]


def formalize(runner: ChatRunner, release_id: str, entity_ids: list[str], *, context: str,
              sampling: Sampling = Sampling(), quiet: bool = False,
              ) -> tuple[list[dict[str, Any]], dict[str, Any], bytes]:
    """One record per entity (``formal_statement`` the extracted Lean, or null), the run's abstention counts and
    its request log (:func:`~lemmata.harness.runs.request_log`; every record is what :func:`formal_of` takes from
    the logged answer)."""
    from lemmata.formats.runner_log import LOG_LIMIT
    from lemmata.harness.runs import request_log

    rows, refs = release_rows(release_id)
    jobs, shown = formalize_jobs(rows, refs, entity_ids, context=context, sampling=sampling)
    formal: dict[str, tuple[str | None, str | None]] = {}

    def read(job: ChatJob, c: Completion) -> None:
        """Each answer as it arrives (lexing Lean while other requests are still in flight): its Lean, or why not."""
        formal[job.id] = formal_of(c, rows[job.id]["entity_type"])

    answers = runner.run(jobs, desc=f"MathAtlas ({context})", quiet=quiet, on_answer=read)
    log, logged = request_log(runner, "mathatlas", release_id, prompt_version(), sampling, jobs, answers)
    for job, entry in zip(jobs, logged):
        if entry.answer.abstention is not None and entry.answer.abstention.startswith(LOG_LIMIT):
            formal[job.id] = formal_of(entry.answer, rows[job.id]["entity_type"])  # dropped to fit the log
    abstained = Counter(why.split(":")[0] for _, why in formal.values() if why)
    records = [{"entity_id": e, "formal_statement": formal[e][0]} for e in entity_ids]
    meta = {"entities": len(entity_ids), "context": context,
            "with_dependency_context": sum(1 for v in shown.values() if v),
            "abstentions": dict(sorted(abstained.items())),
            "abstention_reasons": {e: formal[e][1] for e in entity_ids if formal[e][1]}}  # entity order: stable bytes
    return records, meta, log


def run_mathatlas(runner: ChatRunner, out_dir: str | Path, *, track: str, context: str,
                  sampling: Sampling = Sampling(), limit: int | None = None,
                  quiet: bool = False) -> tuple[Path, dict[str, Any]]:
    """Formalize every entity of ``track`` in the current MathAtlas release; write the submission and, beside it,
    its request log (:func:`~lemmata.formats.runner_log.log_beside`), whose sha256 the header's ``runner`` records."""
    from lemmata.benchmarks.mathatlas.meta import MATHATLAS
    from lemmata.benchmarks.mathatlas.track import track_entities
    from lemmata.formats.envelope import SUBMISSION_FORMAT
    from lemmata.formats.runner_log import runner_field
    from lemmata.harness.runs import run_model_info, write_logged
    from lemmata.oracles.judge import slug

    ids = list(track_entities(MATHATLAS.release_id, track))[:limit]
    records, meta, log = formalize(runner, MATHATLAS.release_id, ids, context=context, sampling=sampling,
                                   quiet=quiet)
    model = run_model_info(runner, sampling, prompt_version())
    smoke = f" Smoke run: the first {limit} entities only; the others count as abstained." if limit else ""
    header = {"format": SUBMISSION_FORMAT, "benchmark": "mathatlas", "release": MATHATLAS.release_id, "track": track,
              "context": context, "model": model.model_dump(mode="json"), "runner": runner_field(prompt_version(), log),
              "notes": f"lemmata run mathatlas: prompts {prompt_version()}, context {context}; Lean extracted from "
                       f"the last fenced block of each reply, thinking stripped; unusable replies abstain.{smoke}"}
    path = Path(out_dir) / f"mathatlas.{MATHATLAS.release_id}.{track}.{context}.{slug(runner.endpoint.model)}.jsonl"
    write_logged(path, [header, *records], log)
    return path, meta
