"""Every Eval Ever: a Lemmata result as one aggregate record of the shared evaluation datastore.

The format is ``every-eval-ever`` 0.3.0's ``eval.schema.json`` (its pydantic twin ``eval_types.EvaluationLog``),
and the place of a record is what its validator (``validator/validation_core.py``) demands:
``data/<benchmark>/<developer>/<model>/<uuid>.json``, the file name a UUID of version 4. A Lemmata result is
immutable and content-addressed, so its record is too: the UUID is the result id's first 128 bits with the
version-4 and RFC 4122 variant bits set (a uuid5 would carry version 5, which the datastore's file-name rule
refuses), the record's times are the result's own (``frozen.date``, ``scored_at``), and exporting the same result
again writes the same bytes.

Where each part of a result goes (every field named is one the schema provides):

- the benchmark and track: the collection folder and ``evaluation_name`` (``<benchmark>/<track>``);
- the model: ``model_info`` (``id`` its declared name; what else it declared, and its identity hash, as
  ``additional_details``; ``deployment_type`` is ``unknown``: Lemmata scores predictions, it does not see who
  served the model);
- each headline metric: one ``evaluation_results`` entry, its interval as ``uncertainty.confidence_interval``
  (95 % where the interval kind says so) — the main score always, and every other rate of the result that the
  glossary gives a direction (counts such as ``judged_queries`` are not scores);
- the frozen tuple: ``source_data`` (the release's Hub dataset and split) with every part in its
  ``additional_details``; the result id, version, content hashes and audit page: ``source_metadata``.

A result whose items still await an oracle has a partial score. The schema has no field for "not final", so such
a record says it everywhere the schema lets a reader look: ``status: pending_oracle`` and ``final: false`` in
``source_metadata`` and in each score's ``details`` (with the pending count and the bounds the score can still
end in, where the scorer computes them), and its ``evaluation_description`` begins "PARTIAL". A result with no
computable number yet (every item pending) is refused: the schema's ``score`` must be a number.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import uuid
from pathlib import PurePosixPath
from typing import Any

from lemmata.core.errors import InputError, Problem
from lemmata.formats.results import ModelInfo, Result, Score
from lemmata.release.eval_results import audit_url

#: the ``every-eval-ever`` schema these records follow (``eval.schema.json``'s ``version``)
SCHEMA_VERSION = "0.3.0"
#: the datastore's root folder (``_EXPECTED_PATH_PARTS``: data / benchmark / developer / model / file)
DATA_DIR = "data"
#: a model whose declared name has no ``owner/`` part and whose URL names no Hub owner is filed under this
#: developer: the datastore refuses an empty or ``unknown`` folder
UNATTRIBUTED = "unattributed"

_UNSAFE = re.compile(r'[<>:"\\|?*\x00-\x1f/]')
_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)), *(f"LPT{i}" for i in range(1, 10))}
_HUB_OWNER = re.compile(r"^https?://(?:www\.)?huggingface\.co/(?!datasets/|spaces/)([^/?#]+)/[^/?#]+")


def record_uuid(result_id: str) -> str:
    """The record's UUID: 128 bits of the result's content hash, shaped as the version 4 the datastore requires.

    >>> record_uuid("ab" * 32)
    'abababab-abab-4bab-abab-abababababab'
    """
    return str(uuid.UUID(bytes=bytes.fromhex(result_id[:32]), version=4))


def path_component(name: str) -> str:
    """One portable folder name, as the datastore's path check accepts it (``/`` and ``:`` become ``_``).

    >>> path_component("org/model:v1"), path_component("data"), path_component("CON.v2"), path_component("x. ")
    ('org_model_v1', '_data', '_CON.v2', 'x')
    """
    out = _UNSAFE.sub("_", name.strip()).rstrip(". ")
    if not out or out == "data" or out.split(".", 1)[0].upper() in _RESERVED:
        out = f"_{out}"
    return out


def developer_and_model(model: ModelInfo) -> tuple[str, str]:
    """The developer and model folders: the declared name's ``owner/`` part (its Hub spelling), else the Hub owner
    of its URL, else :data:`UNATTRIBUTED`; the datastore derives the same two from ``model_info``.

    >>> developer_and_model(ModelInfo(name="intfloat/e5-base-v2"))
    ('intfloat', 'e5-base-v2')
    >>> developer_and_model(ModelInfo(name="bm25", url="https://huggingface.co/lemmata/bm25"))
    ('lemmata', 'bm25')
    >>> developer_and_model(ModelInfo(name="bm25"))
    ('unattributed', 'bm25')
    """
    if "/" in model.name:
        owner, rest = model.name.split("/", 1)
        return path_component(owner), path_component(rest)
    return path_component(developer(model)), path_component(model.name)


def developer(model: ModelInfo) -> str:
    """Who provides the model, as far as the result says (see :func:`developer_and_model`)."""
    if "/" in model.name:
        return model.name.split("/", 1)[0]
    m = _HUB_OWNER.match(model.url or "")
    return m.group(1) if m else UNATTRIBUTED


def relative_path(result: Result) -> str:
    """Where the record of ``result`` lives in the datastore (relative to its root)."""
    dev, model = developer_and_model(result.model)
    return PurePosixPath(DATA_DIR, path_component(result.benchmark), dev, model,
                         f"{record_uuid(result.result_id)}.json").as_posix()


def _text(value: Any) -> str:
    """A string for an ``additional_details`` map (the schema allows strings only)."""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)


def _details(pairs: dict[str, Any]) -> dict[str, str]:
    return {k: _text(v) for k, v in pairs.items() if v is not None}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _epoch(iso: str) -> str:
    """``scored_at`` as Unix seconds, the form the schema asks of ``retrieved_timestamp``.

    >>> _epoch("2026-11-20T10:00:00+00:00")
    '1795168800'
    """
    stamp = dt.datetime.fromisoformat(iso)
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=dt.UTC)
    return str(int(stamp.timestamp()))


def headline_scores(result: Result, higher_is_better: bool) -> list[tuple[Score, bool]]:
    """The main score, then every other metric of the result that is a rate (a float; integers are counts such as
    ``judged_queries``) with a documented direction, each with whether higher is better. A ranking track stores
    ``{"mean", "ci95", "interval_kind"}`` per measure."""
    from lemmata.metrics.glossary import lookup

    out = [(result.main, higher_is_better)]
    for key, raw in result.metrics.items():
        term = lookup(key)
        if key == result.main.metric or term is None or term.higher_is_better is None:
            continue
        value, ci, kind = (raw.get("mean"), raw.get("ci95"), raw.get("interval_kind")) if isinstance(raw, dict) \
            else (raw, None, None)
        if not _number(value) or isinstance(value, int):  # an integer is a count (judged_queries), not a score
            continue
        interval = tuple(ci) if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(map(_number, ci)) else None
        out.append((Score(metric=key, value=value, interval=interval, interval_kind=kind), term.higher_is_better))
    return out


def _status(result: Result) -> dict[str, Any]:
    final = result.status == "complete" and not result.pending
    return {"status": result.status, "final": "true" if final else "false",
            "pending_items": result.pending or None}


def _evaluation(result: Result, score: Score, higher_is_better: bool, source_data: dict[str, Any]) -> dict[str, Any]:
    """One ``evaluation_results`` entry."""
    status = _status(result)
    partial = "PARTIAL (not final): " if status["final"] == "false" else ""
    uncertainty: dict[str, Any] = {}
    if score.interval is not None:
        ci: dict[str, Any] = {"lower": score.interval[0], "upper": score.interval[1]}
        if score.interval_kind and score.interval_kind.endswith("95"):
            ci["confidence_level"] = 0.95
        if score.interval_kind:
            ci["method"] = score.interval_kind
        uncertainty["confidence_interval"] = ci
    if score.total is not None:
        uncertainty["num_samples"] = score.total
    details = _details({**status, "count": score.count, "total": score.total,
                        "bounds": list(score.bounds) if score.bounds else None})
    return {
        "evaluation_result_id": f"{result.track}/{score.metric}",
        "evaluation_name": f"{result.benchmark}/{result.track}",
        "source_data": source_data,
        "evaluation_timestamp": result.frozen.date,
        "metric_config": {
            "evaluation_description": f"{partial}Lemmata {result.benchmark}, track {result.track}: {score.metric}"
                                      + (f" ({result.pending} item(s) still await an oracle)" if partial else ""),
            "metric_id": f"lemmata.{result.benchmark}.{score.metric}",
            "metric_name": score.metric,
            "lower_is_better": not higher_is_better,
        },
        "score_details": {"score": score.value, "details": details,
                          **({"uncertainty": uncertainty} if uncertainty else {})},
    }


def record(result: Result, *, hf_repo: str, higher_is_better: bool, board_url: str,
           library_version: str) -> dict[str, Any]:
    """The aggregate record of one result; ``hf_repo`` is the Hub dataset its release is published as."""
    if result.main.value is None:
        raise InputError([Problem(result.result_id[:12], f"no {result.main.metric} is computable yet (every item "
                                  "awaits an oracle): an Every Eval Ever score must be a number", field="main.value")])
    f = result.frozen
    frozen = {"dataset_release": f.dataset_release, "split": f.split,
              "retrieval_artifact": f.retrieval_artifact or "none", "scoring_artifact": f.scoring_artifact,
              "date": f.date, "group_key": f.group_key()}
    split = f.split.rsplit("/", 1)[-1]
    source_data = {"dataset_name": f.dataset_release, "source_type": "hf_dataset", "hf_repo": hf_repo,
                   "hf_split": split, "additional_details": frozen}
    m = result.model
    availability = {True: "open_weights", False: "closed_weights"}.get(m.open_weights, "unknown")  # type: ignore
    declared = m.model_dump(mode="json", exclude={"name", "open_weights"})
    scored = result.kind == "scored"
    return {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": f"lemmata/{result.benchmark}/{result.track}/{m.name}/{result.result_id}",
        "evaluation_timestamp": f.date,
        "retrieved_timestamp": _epoch(result.scored_at),
        "source_metadata": {
            "source_name": "Lemmata" if scored else "Lemmata (reported in the paper, not re-scored)",
            "source_type": "evaluation_run" if scored else "documentation",
            "source_organization_name": "Lemmata",
            "source_organization_url": board_url,
            "evaluator_relationship": "third_party" if scored else "other",
            "additional_details": _details({
                "result_id": result.result_id, "result_version": result.version, "supersedes": result.supersedes,
                "kind": result.kind, **_status(result), "submission_sha256": result.submission_sha256,
                "sealed_sha256": result.sealed_sha256, "scored_at": result.scored_at,
                "audit_url": audit_url(result.result_id, board_url), **{f"frozen.{k}": v for k, v in frozen.items()},
            }),
        },
        "eval_library": {"name": "lemmata", "version": library_version,
                         "additional_details": {"scoring_artifact": f.scoring_artifact}},
        "model_info": {
            "name": m.name, "id": m.name, "developer": developer(m),
            "additional_details": _details({**declared, "identity": m.identity(), "deployment_type": "unknown",
                                            "model_availability": availability}),
        },
        "evaluation_results": [_evaluation(result, s, better, source_data)
                               for s, better in headline_scores(result, higher_is_better)],
    }


def to_bytes(doc: dict[str, Any]) -> bytes:
    """The record as stored: indented UTF-8 JSON, keys in the order built, one trailing newline."""
    return (json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")
