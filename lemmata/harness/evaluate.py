"""``lemmata.evaluate``: run a model on ranking tracks and get the results the board ranks, plus the files.

>>> sorted(tracks())
['mathnet-retrieve', 'mirb', 're2math-source-retrieval', 're2math-theorem-retrieval', 'taobench-equivalence']

The model is anything :func:`lemmata.retrievers.spec.load_model` accepts — a
spec string (``bm25``, ``st:NAME``, ``model2vec:NAME``, ``openai:MODEL``, a
folder), an :class:`~lemmata.retrievers.encoders.Encoder`, or any object with
``encode(texts, …)``. Each track's tasks come from its family's record
(``Family.evaluation``, or derived from a declared release's metadata), read
through the registry (:func:`lemmata.families.evaluation_tracks`): nothing
here names a benchmark. Each task becomes one submission file under ``out`` —
exactly the file a user would upload — which is then validated and scored by
the one scoring path (:mod:`lemmata.scoring`), into ``store`` when one is given
(so it lands on the board) or in memory. The result id printed is the id the
space computes for the same file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lemmata import families
from lemmata.core.atomic import atomic_write_bytes
from lemmata.core.errors import InputError
from lemmata.core.registry import UnknownNameError, suggest
from lemmata.formats.results import Result, now_iso

EVALUATE_SUBMITTER = "lemmata-evaluate"


def tracks() -> Any:
    """Every ranking track `lemmata evaluate` can run -> the function building its tasks (a lazy registry)."""
    return families.evaluation_tracks()


def default_tracks() -> tuple[str, ...]:
    """What ``tracks=None`` runs: every family's default ranking tracks (Re²Math's 354k-record source retrieval is
    asked for by name)."""
    return families.default_evaluation_tracks()


@dataclass(frozen=True)
class Evaluation:
    """One task's submission file and its scored result."""

    task: str
    path: Path
    result: Result
    stats: dict[str, Any]


def parse_track(selector: str) -> tuple[str, str | None]:
    """``NAME`` or ``NAME:VARIANT`` (a variant or any ``/`` part of it, e.g. ``raw``, ``taobench-150``).

    >>> parse_track("re2math-theorem-retrieval:raw")
    ('re2math-theorem-retrieval', 'raw')
    >>> parse_track("mathnet")
    Traceback (most recent call last):
    ...
    lemmata.core.registry.UnknownNameError: unknown ranking track 'mathnet'; did you mean 'mathnet-retrieve'? (known: mathnet-retrieve, mirb, re2math-source-retrieval, re2math-theorem-retrieval, taobench-equivalence)
    """
    name, _, variant = selector.strip().partition(":")
    if name not in tracks():
        raise UnknownNameError(suggest("ranking track", name, tracks()))
    return name, variant or None


def resolve_tasks(selectors: Sequence[str] | None, *, split: str = "test", year_cutoff: bool = True) -> list[Any]:
    """The tasks the selectors name, in order (an unknown variant fails with the known ones; a plain ``NAME`` leaves
    out the variants run only on request)."""
    out = []
    for selector in selectors or default_tracks():
        name, variant = parse_track(selector)
        tasks = tracks()[name](name, split=split, year_cutoff=year_cutoff)
        if variant is not None:
            labels = [t.name.split(":", 1)[1] for t in tasks]
            chosen = [t for t, label in zip(tasks, labels) if variant == label or variant in label.split("/")]
            if not chosen:
                raise UnknownNameError(suggest(f"variant of {name}", variant, labels))
            tasks = chosen
        else:
            tasks = [t for t in tasks if not t.on_request]
        out.extend(tasks)
    return out


def model_slug(model: Any) -> str:
    """A file-name-safe model label with a short identity hash (prompts or index differ: another file).

    >>> from lemmata.formats.results import ModelInfo
    >>> model_slug(ModelInfo(name="intfloat/e5 small")).startswith("intfloat-e5-small.")
    True
    """
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", model.name).strip("-.")[-60:] or "model"
    return f"{safe}.{model.identity()[:8]}"


def instruction_template(encoder: Any, instructions: bool | str | None) -> str | None:
    """The template a run puts each task's declared instruction in, or None for a run without instructions.

    ``instructions``: None — the model's own declaration (a sentence-transformers model whose own query prompt is
    ``Instruct: …\\nQuery:``, or an object with ``instruction_template``); True — that, else the
    e5-mistral / gte-Qwen / NV-Embed template :data:`~lemmata.retrievers.encoders.INSTRUCT_TEMPLATE`; a string — that
    template; False — none (``--no-instructions``).

    >>> class Plain: pass
    >>> instruction_template(Plain(), None) is None, instruction_template(Plain(), True)
    (True, 'Instruct: {instruction}\\nQuery: ')
    >>> instruction_template(Plain(), "{instruction}: ")
    '{instruction}: '
    """
    from lemmata.retrievers.encoders import INSTRUCT_TEMPLATE, check_template, declared_template

    if instructions is False:
        return None
    if isinstance(instructions, str):
        return check_template(instructions)
    own = declared_template(encoder)
    return own or (INSTRUCT_TEMPLATE if instructions is True else None)


def _ranker(model: Any, *, depth: int, index: str, batch_size: int, prompts: Mapping[str, str] | None,
            devices: Sequence[str] | None, max_length: int | None, cache: Any, quiet: bool, name: str | None,
            instructions: bool | str | None = None):
    from lemmata.retrievers.encoders import as_encoder
    from lemmata.retrievers.spec import ModelSpec, load_model
    from lemmata.tracks.model_runs import BaselineRanker, DenseRanker

    if isinstance(model, (str, ModelSpec)):
        model = load_model(model, prompts=prompts, devices=devices, max_length=max_length)
        prompts = None
    if isinstance(model, ModelSpec):
        if instructions:
            raise InputError.one("instructions", f"the built-in {model.target} baseline takes no instructions")
        return BaselineRanker(model.target, depth=depth, quiet=quiet)
    encoder = as_encoder(model, name=name, prompts=prompts)
    return DenseRanker(encoder, cache=cache, depth=depth, batch_size=batch_size, index=index, quiet=quiet,
                       instruction_template=instruction_template(encoder, instructions))


def evaluate(model: Any, tracks: Sequence[str] | None = None, *, split: str = "test", out: str | Path | None = None,
             store: Any = None, depth: int = 100, index: str = "auto", year_cutoff: bool = True,
             prompts: Mapping[str, str] | None = None, batch_size: int = 256, devices: Sequence[str] | None = None,
             max_length: int | None = None, cache: Any = None, quiet: bool = False, name: str | None = None,
             notes: str | None = None, filename_stem: str | None = None,
             instructions: bool | str | None = None, rerank: Any = None,
             rerank_depth: int | None = None) -> list[Evaluation]:
    """Run ``model`` on every task of ``tracks`` (default :func:`default_tracks`); write, score and return them.

    ``store``: a :class:`lemmata.store.Store` (or its folder) to add and score the files into, as
    ``lemmata score`` does; None scores in memory only. ``out``: where the files go (default
    ``$LEMMATA_HOME/runs``). ``index``: ``exact``, ``approximate`` (a FAISS IVF index; ``hnsw``: a usearch HNSW
    graph; either one's recall@10 against exact search is measured and recorded) or ``auto`` (approximate above
    a million documents; a run with a year cutoff or exclusions is always exact). ``year_cutoff``: apply
    Re²Math source retrieval's per-query cutoff as a filter. ``instructions``: whether a task's declared query
    instruction (a track part's ``instruction``) is put before its queries, and in which template (see
    :func:`instruction_template`; by default for a model that declares it takes instructions). A run that applied
    them records the template in the model identity (``model.instruction_template``): instructed and
    uninstructed runs are distinct systems. ``rerank``: a second stage — a ``--rerank`` spec
    (:func:`lemmata.retrievers.rerank.parse_rerank_spec`) or an object with ``identity`` and ``rerank(queries,
    candidates)`` — that rescores the first stage's top ``rerank_depth`` documents (default ``depth``); the file
    holds those, and the reranker's identity is part of the model's (``model.reranker``).
    """
    from lemmata.core.paths import lemmata_home
    from lemmata.tracks.model_runs import BaselineRanker, run_task

    if depth < 1 or depth > 1000:
        raise InputError.one("depth", f"depth must be between 1 and 1000, got {depth}")
    if rerank_depth is not None and not 1 <= rerank_depth <= 1000:
        raise InputError.one("rerank_depth", f"rerank depth must be between 1 and 1000, got {rerank_depth}")
    if rerank_depth is not None and rerank is None:
        raise InputError.one("rerank_depth", "a rerank depth needs a reranker (--rerank SPEC)")
    first_depth = rerank_depth or depth
    ranker = _ranker(model, depth=first_depth, index=index, batch_size=batch_size, prompts=prompts,
                     devices=devices, max_length=max_length, cache=cache, quiet=quiet, name=name,
                     instructions=instructions)
    if rerank is not None:
        from lemmata.retrievers.rerank import load_reranker
        from lemmata.tracks.model_runs import RerankingRanker

        second = load_reranker(rerank, device=devices[0] if devices else None) if isinstance(rerank, str) else rerank
        ranker = RerankingRanker(ranker, second, depth=first_depth)
    folder = Path(out) if out is not None else lemmata_home() / "runs"
    if isinstance(store, (str, Path)):
        from lemmata.store import Store

        store = Store(store)
    baseline = isinstance(ranker, BaselineRanker)
    done: list[Evaluation] = []
    try:
        for task in resolve_tasks(tracks, split=split, year_cutoff=year_cutoff):
            data, stats = run_task(task, ranker, notes=notes)
            stem = filename_stem or (ranker.name if baseline else model_slug(ranker.model()))
            path = folder / f"{task.filename}.{stem}.jsonl"
            atomic_write_bytes(path, data)
            if store is not None:
                from lemmata.scoring import SUBMITTER, score_file

                result = score_file(path, store, submitter=SUBMITTER if baseline else EVALUATE_SUBMITTER)
            else:
                from lemmata.scoring import score_upload

                result = score_upload(data, path.name, received_at=now_iso())[2]
            stats = {**stats, **({"parts": ranker.stats[-len(task.parts):]} if hasattr(ranker, "stats") else {})}
            done.append(Evaluation(task=task.name, path=path, result=result, stats=stats))
    finally:
        for owner in (getattr(ranker, "encoder", None), ranker if rerank is not None else None):
            close = getattr(owner, "close", None)
            if callable(close):
                close()
    return done
