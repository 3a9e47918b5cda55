"""``.eval_results/<benchmark>.yaml``: a Lemmata result as the entry a model repository carries on the Hub.

The format is the Hub's "Evaluation Results" page (``docs/hub/eval-results.md`` in ``huggingface/hub-docs``,
section "Adding Evaluation Results"): a YAML list of ``{dataset: {id, task_id}, value, date, source: {url,
name}, notes}``, where ``dataset.id`` is the benchmark's Hub dataset and ``task_id`` a task of its ``eval.yaml``
(:mod:`lemmata.release.eval_yaml`: the track's name). Entries are built with ``huggingface_hub``'s own
``EvalResultEntry`` and serialised by its ``eval_result_entries_to_yaml``, so the file is what the client library
itself writes. A model's page shows such a file, when it arrives through an open pull request, as
"community-provided": :func:`open_pull_request` only ever opens one (``create_pr=True``), never pushes.

Only a final number is exported: a result with items still awaiting an oracle (``pending_oracle``) has a
partial score, which a model page would show as the model's result.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import urlencode

import yaml

from lemmata.core.errors import InputError, LemmataError, Problem
from lemmata.core.meta import BenchmarkMeta
from lemmata.formats.results import Result
from lemmata.release.eval_yaml import task_id
from lemmata.release.publish import failure_reason

EVAL_RESULTS_DIR = ".eval_results"


def audit_url(result_id: str, board_url: str) -> str:
    """The entry's audit page on the board (every item, verdict and the frozen tuple).

    >>> audit_url("ab" * 32, "https://huggingface.co/spaces/lemmata/leaderboard")[-40:]
    'leaderboard?tab=audit&entry=abababababab'
    """
    return f"{board_url}?{urlencode({'tab': 'audit', 'entry': result_id[:12]})}"


def notes(result: Result) -> str:
    """What the number was computed against and how it was made: the frozen tuple, the status, the kind."""
    f = result.frozen
    source = "scored by Lemmata from the submitted predictions" if result.kind == "scored" else \
        "reported in the paper, transcribed by Lemmata (not re-scored)"
    return (f"Lemmata {result.benchmark}/{result.track}, {result.main.metric}; frozen tuple: dataset release "
            f"{f.dataset_release}, split {f.split}, retrieval artifact {f.retrieval_artifact or 'none'}, scoring "
            f"artifact {f.scoring_artifact}; status {result.status}; {source}; result {result.result_id}")


def refusals(results: Iterable[Result]) -> list[Problem]:
    """Why each result that is not final cannot be exported (empty when all can)."""
    out = []
    for r in results:
        if r.status != "complete" or r.pending or r.main.value is None:
            out.append(Problem(r.result_id[:12], f"{r.pending} item(s) still await an oracle: its "
                               f"{r.main.metric} is not final and is not exported as a model's result",
                               field="status"))
    return out


def dataset_id(meta: BenchmarkMeta, owner: str) -> str:
    """The Hub dataset a release is published as, and whose leaderboard its ``.eval_results`` entries join (every
    version of a release publishes to the same repository, so its task ids stay put)."""
    return f"{owner}/{meta.name}"


def entry(result: Result, meta: BenchmarkMeta, *, owner: str, board_url: str) -> dict[str, Any]:
    """One ``.eval_results`` entry (as ``huggingface_hub`` serialises it) of a final result of release ``meta``."""
    from huggingface_hub import EvalResultEntry, eval_result_entries_to_yaml

    problems = refusals([result])
    if problems:
        raise InputError(problems)
    made = EvalResultEntry(
        dataset_id=dataset_id(meta, owner), task_id=task_id(meta, result.track), value=result.main.value,
        date=result.frozen.date, source_url=audit_url(result.result_id, board_url),
        source_name="Lemmata audit" if result.kind == "scored" else "Lemmata (reported in the paper)",
        notes=notes(result))
    return eval_result_entries_to_yaml([made])[0]


def files(pairs: Sequence[tuple[Result, BenchmarkMeta]], *, owner: str, board_url: str) -> dict[str, bytes]:
    """``{".eval_results/<benchmark>.yaml": YAML}``, one file per benchmark, entries in the order given.

    Every result that is not final is named before anything is written (:class:`InputError`).
    """
    problems = refusals(r for r, _ in pairs)
    if problems:
        raise InputError(problems)
    grouped: dict[str, list[dict[str, Any]]] = {}
    for result, meta in pairs:
        grouped.setdefault(meta.name, []).append(entry(result, meta, owner=owner, board_url=board_url))
    return {f"{EVAL_RESULTS_DIR}/{name}.yaml":
            yaml.safe_dump(entries, sort_keys=False, allow_unicode=True, width=100).encode("utf-8")
            for name, entries in grouped.items()}


def open_pull_request(model_repo: str, contents: dict[str, bytes], *, token: str | None = None,
                      description: str = "") -> str:
    """Open one pull request adding ``contents`` to a model repository; returns its URL. Never a direct push:
    the model's owner merges it or not. Network problems become one sentence."""
    if model_repo.count("/") != 1 or not all(model_repo.split("/")):
        raise LemmataError(f"--model-repo must be OWNER/NAME, got {model_repo!r}")
    try:
        from huggingface_hub import CommitOperationAdd, HfApi

        info = HfApi(token=token).create_commit(
            model_repo, repo_type="model", create_pr=True,
            operations=[CommitOperationAdd(path_in_repo=path, path_or_fileobj=data)
                        for path, data in sorted(contents.items())],
            commit_message=f"Add Lemmata evaluation results ({', '.join(sorted(contents))})",
            commit_description=description)
        return str(info.pr_url)
    except Exception as exc:  # noqa: BLE001 - any hub/network failure is reported as one sentence
        raise LemmataError(f"could not open a pull request on https://huggingface.co/{model_repo}: "
                           f"{failure_reason(exc)}") from None
