"""``lemmata run mathnet``: a chat model solves a MathNet-Solve subset under one MathRAG condition.

The generic :class:`~lemmata.oracles.chat_runner.ChatRunner` does the talking (concurrency, retries honouring
Retry-After, the on-disk request cache that makes a rerun free and an interrupted run resumable, abstentions
with reasons); this module only builds the messages (prompt ``mathnet_solve.v1``, figures as image parts or
descriptions, similar problems as context) and writes the submission, one line per problem sorted by id, so
the same answers give the same bytes, and beside it the run's request log (:func:`solve_logged`), which the scorer
checks against the release: every request recomputed by :func:`solve_jobs`, every record by :func:`record_of`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lemmata.benchmarks.mathnet import solve_data
from lemmata.benchmarks.mathnet.rag import allowed, pool_id, pool_of, retrieve_contexts
from lemmata.benchmarks.mathnet.solve_prompts import Modality, messages, prompt_id
from lemmata.core.errors import InputError, LemmataError
from lemmata.core.hashing import sha256_file
from lemmata.formats.results import ModelInfo


def ranker_for(spec: Any, k: int, *, quiet: bool = True) -> Any:
    """The ranker for a retriever — any spec ``lemmata evaluate --model`` accepts (``bm25``, ``static``,
    ``hybrid``, ``st:NAME``, ``model2vec:NAME``, ``openai:MODEL``, a local folder) or any model object it
    accepts (an encoder, anything with ``encode``) — returning the top ``k``."""
    from lemmata.core.registry import UnknownNameError
    from lemmata.retrievers.encoders import as_encoder
    from lemmata.retrievers.spec import ModelSpec, load_model
    from lemmata.tracks.model_runs import BaselineRanker, DenseRanker

    model = spec
    if isinstance(spec, str):
        try:
            model = load_model(spec)
        except UnknownNameError as exc:
            raise InputError.one("--retriever", str(exc), field="retriever") from None
    if isinstance(model, ModelSpec):
        return BaselineRanker(model.target, depth=k)
    return DenseRanker(as_encoder(model), depth=k, quiet=quiet)


def read_expert_pairs(path: str | Path, known: Mapping[str, Any]) -> tuple[dict[str, str], str]:
    """``{problem id: similar problem id}`` from a JSONL file of ``{"problem_id", "similar_id"}``, and its sha256."""
    from lemmata.core.jsonl import iter_jsonl

    path = Path(path)
    pairs: dict[str, str] = {}
    problems = []
    from lemmata.core.errors import Problem

    for line, obj in iter_jsonl(path, label=path.name):
        pid, sid = obj.get("problem_id"), obj.get("similar_id")
        if pid not in known or sid not in known:
            problems.append(Problem(path.name, "problem_id and similar_id must be problem ids of the release", line))
        elif pid in pairs:
            problems.append(Problem(path.name, f"problem {pid!r} paired twice", line, "problem_id"))
        else:
            pairs[pid] = sid
    if problems:
        raise InputError(problems)
    return pairs, sha256_file(path)


def contexts_for(condition: str, release, ids: Sequence[str], *, retriever_spec: Any, k: int,
                 expert_pairs: str | Path | None) -> tuple[dict[str, list[str]], dict[str, Any]]:
    """Context ids per problem and the header fields of the condition."""
    known = solve_data.problems(release)
    if condition == "zero-shot":
        return {pid: [] for pid in ids}, {}
    groups = solve_data.groups(release)
    if condition == "expert-rag":
        if expert_pairs is None:
            raise InputError.one("--expert-pairs", "expert-rag needs the expert pairs file (upstream has not "
                                 "published the paper's pairs)", field="expert-pairs")
        pairs, sha = read_expert_pairs(expert_pairs, known)
        out = {}
        for pid in ids:
            sid = pairs.get(pid)
            out[pid] = [sid] if sid is not None and allowed(pid, sid, groups) else []
        return out, {"expert_pairs_sha256": sha}
    if retriever_spec is None:
        raise InputError.one("--retriever", "retriever-rag needs a retriever spec", field="retriever")
    pool = pool_of(list(known.values()))
    ranker = ranker_for(retriever_spec, k)
    contexts = retrieve_contexts(ranker, {pid: known[pid]["problem"] for pid in ids}, pool, groups)
    info = ranker.model()
    spec = retriever_spec if isinstance(retriever_spec, str) else info.name
    return contexts, {"retrieval": {"retriever": info.model_dump(mode="json"), "spec": spec, "k": k,
                                    "pool": pool_id(pool, groups)}}


def solve_jobs(known: Mapping[str, Any], ids: Sequence[str], contexts: Mapping[str, Sequence[str]],
               figures: Mapping[str, Sequence[bytes]], modality: Modality, sampling: Any) -> list[Any]:
    """The run's requests, one per problem (id = the problem id): a function of the release, the modality and each
    problem's context ids, so a scorer recomputes every request of a run when it checks its request log."""
    from lemmata.oracles.chat_runner import ChatJob

    return [ChatJob(id=pid, messages=messages(known[pid], figures.get(pid, []), modality,
                                              [known[c] for c in contexts[pid]]), sampling=sampling)
            for pid in ids]


def record_of(pid: str, answer: Any, context_ids: Sequence[str]) -> dict[str, Any]:
    """A problem's record from its answer (a runner completion or a request log's answer: ``text``,
    ``abstention``): the one function the run and the scorer's request-log check use."""
    ok = answer.abstention is None
    return {"problem_id": pid, "solution": (answer.text or "") if ok else "", "final_answer": None,
            "abstained": answer.abstention, "context_ids": list(context_ids)}


def solve_logged(release, runner, *, subset: str, modality: Modality, condition: str = "zero-shot",
                 sampling=None, retriever_spec: Any = None, k: int = 1,
                 expert_pairs: str | Path | None = None, limit: int | None = None,
                 quiet: bool = False) -> tuple[list[dict[str, Any]], dict[str, Any], bytes]:
    """The submission lines (header first, its ``runner`` naming the request log), the run's metadata and its
    request log (every record is what :func:`record_of` makes of the logged answer)."""
    from lemmata.formats.runner_log import runner_field
    from lemmata.harness.runs import request_log
    from lemmata.oracles.chat_runner import Sampling

    sampling = sampling or Sampling()
    known = solve_data.problems(release)
    ids = sorted(solve_data.subset_ids(release, subset))
    if limit is not None:
        ids = ids[:limit]
    contexts, condition_fields = contexts_for(condition, release, ids, retriever_spec=retriever_spec, k=k,
                                              expert_pairs=expert_pairs)
    figures = solve_data.images(release, set(ids)) if modality == "text+image" else {}
    jobs = solve_jobs(known, ids, contexts, figures, modality, sampling)
    answers = runner.run(jobs, desc=f"mathnet {condition}", quiet=quiet)
    log, logged = request_log(runner, "mathnet-solve", release.release_id, prompt_id(), sampling, jobs, answers)
    records = [record_of(pid, entry.answer, contexts[pid]) for pid, entry in zip(ids, logged)]
    reported = runner.stats.endpoint_models.most_common(1)
    model = ModelInfo(name=runner.endpoint.model, kind="llm", endpoint_model=reported[0][0] if reported else None,
                      sampling=sampling.model_dump(mode="json"), prompt_version=prompt_id(), modality=modality)
    header = {"format": "lemmata-submission/1", "benchmark": "mathnet-solve", "release": release.release_id,
              "track": condition, "subset": subset, "model": model.model_dump(mode="json"), **condition_fields,
              "runner": runner_field(prompt_id(), log)}
    refused = sum(1 for pid in ids if answers[pid].abstention and figures.get(pid)
                  and answers[pid].abstention.startswith("rejected"))
    meta = {"condition": condition, "subset": subset, "problems": len(ids), "modality": modality,
            "image_requests_refused": refused,
            "abstentions": sum(1 for pid in ids if not answers[pid].ok)}
    if refused:
        meta["advice"] = (f"the endpoint rejected {refused} request(s) with image parts; if the model reads no "
                          "images, run with --modality text to send the figure descriptions instead")
    return [header, *records], meta, log


def solve_submission(release, runner, **options: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The submission lines (header first) and the run's metadata, self-reported (no request log: the header has
    no ``runner``); ``options`` as :func:`solve_logged`, which ``lemmata run mathnet`` uses."""
    lines, meta, _ = solve_logged(release, runner, **options)
    return [{k: v for k, v in lines[0].items() if k != "runner"}, *lines[1:]], meta


def write_lines(path: str | Path, lines: Sequence[Mapping[str, Any]]) -> Path:
    """The submission file, written atomically (one JSON object per line)."""
    from lemmata.core.jsonl import write_jsonl

    return write_jsonl(path, [dict(x) for x in lines])


def check_options(condition: str, retriever_spec: str | None, k: int) -> None:
    if condition != "retriever-rag" and retriever_spec is not None:
        raise LemmataError(f"--retriever applies to retriever-rag, not {condition}")
    if not 1 <= k <= 5:
        raise InputError.one("lemmata run mathnet", "--k must be between 1 and 5", field="k")
