"""``lemmata results export --format eee``: stored results as Every Eval Ever aggregate records, checked with the
``every-eval-ever`` package's own validator (``every_eval_ever.validator.validation_core.validate_file``, with its
datastore checks: path layout, companion files, score metadata, model deployment, model identity path) and read
back with its own pydantic model (``every_eval_ever.eval_types.EvaluationLog``).

The complete result is the MathNet-Retrieve example submission (``submissions/mathnet/``) scored against the test
fixture release; the pending one is built as a MathNet-Solve run without a grader stores it (status
``pending_oracle``, a partial pass rate and its bounds, as ``tests/benchmarks/mathnet/test_solve_run.py`` shows).
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from every_eval_ever.eval_types import EvaluationLog
from every_eval_ever.validator.validation_core import validate_file

from lemmata.cli import main
from lemmata.core.hashing import sha256_bytes
from lemmata.formats.results import FrozenTuple, ModelInfo, Result, Score, make_result
from lemmata.store import Store

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "submissions" / "mathnet" / "example-mathnet-retrieve-hard.jsonl"


def _pending(value: float | None = 0.25) -> Result:
    return make_result(
        kind="scored", benchmark="mathnet-solve", track="zero-shot",
        frozen=FrozenTuple(dataset_release="mathnet-solve-1.1.0", split="lemmata_strat_70/test",
                           retrieval_artifact=None, scoring_artifact="proofgrade-grader/1", date="2026-11-20"),
        submission_sha256=sha256_bytes(b"pending solver"), model=ModelInfo(name="acme/solver-p", open_weights=True),
        main=Score(metric="ProofGrade", value=value, count=4, total=16, bounds=(0.25, 0.6875)),
        pending=7, status="pending_oracle", scored_at="2026-11-20T10:00:00+00:00")


def _exported(out: Path) -> list[Path]:
    return sorted(out.rglob("*.json"))


def _validate(out: Path, path: Path):
    """The validator as the datastore's bot runs it: the repository path, every file of the batch, its reader."""
    batch = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    return validate_file(path, repo_path=path.relative_to(out).as_posix(), available_files=batch,
                         read_repo_file=lambda rel: (out / rel).read_text("utf-8"), run_semantic_checks=True)


def _export(out: Path, *refs: str, store: Path) -> int:
    return main(["results", "export", *refs, "--store", str(store), "--format", "eee", "--out", str(out)])


def test_scored_and_pending_results_validate_and_read_back(retrieve_release, tmp_path, capsys):
    store = tmp_path / "store"
    scored_file = tmp_path / "scored.json"
    assert main(["score", str(EXAMPLE), "--out", str(scored_file), "--store", str(store), "--quiet"]) == 0
    scored = Result.from_file(scored_file)
    pending = _pending()
    Store(store).add_result(pending)
    capsys.readouterr()

    out = tmp_path / "eee"
    assert _export(out, str(scored_file), pending.result_id[:10], store=store) == 0
    files = _exported(out)
    assert capsys.readouterr().out.splitlines() == [str(p) for p in [out / _repo_path(scored), out / _repo_path(pending)]]
    assert sorted(files) == sorted([out / _repo_path(scored), out / _repo_path(pending)])
    for path in files:
        report = _validate(out, path)
        assert report.valid and report.errors == [] and report.warnings == [], (path, report)

    log = EvaluationLog.model_validate_json((out / _repo_path(scored)).read_text("utf-8"))
    assert (log.model_info.id, log.model_info.name) == (scored.model.name, scored.model.name)
    details = log.source_metadata.additional_details
    assert details["result_id"] == scored.result_id and details["status"] == "complete" and details["final"] == "true"
    assert details["frozen.dataset_release"] == scored.frozen.dataset_release == "mathnet-retrieve-1.0.0"
    assert details["frozen.split"] == scored.frozen.split and details["frozen.date"] == scored.frozen.date
    assert details["sealed_sha256"] == scored.sealed_sha256
    main_entry, *others = log.evaluation_results
    assert main_entry.evaluation_name == "mathnet-retrieve/hard"
    assert main_entry.metric_config.metric_name == scored.main.metric and not main_entry.metric_config.lower_is_better
    assert main_entry.score_details.score == scored.main.value
    assert main_entry.source_data.hf_repo.endswith("/mathnet-retrieve")
    assert main_entry.source_data.additional_details["scoring_artifact"] == scored.frozen.scoring_artifact
    if scored.main.interval:
        ci = main_entry.score_details.uncertainty.confidence_interval
        assert (ci.lower, ci.upper) == tuple(scored.main.interval)
    # every other headline measure, with its query-bootstrap interval
    assert sorted(e.metric_config.metric_name for e in others) == ["recall@1", "recall@10"]  # counts are not scores
    for e in others:
        stored = scored.metrics[e.metric_config.metric_name]
        ci = e.score_details.uncertainty.confidence_interval
        assert e.score_details.score == stored["mean"] and [ci.lower, ci.upper] == stored["ci95"]
        assert ci.confidence_level == 0.95 and ci.method == "query_bootstrap95"

    partial = EvaluationLog.model_validate_json((out / _repo_path(pending)).read_text("utf-8"))
    assert partial.model_info.developer == "acme" and partial.model_info.additional_details["model_availability"] \
        == "open_weights"
    assert partial.source_metadata.additional_details["status"] == "pending_oracle"
    (entry,) = partial.evaluation_results
    assert entry.score_details.score == 0.25 and entry.score_details.details == {
        "status": "pending_oracle", "final": "false", "pending_items": "7", "count": "4", "total": "16",
        "bounds": "[0.25, 0.6875]"}
    assert entry.metric_config.evaluation_description.startswith("PARTIAL (not final)")

    again = tmp_path / "again"
    assert _export(again, str(scored_file), pending.result_id, store=store) == 0
    assert [p.read_bytes() for p in _exported(again)] == [p.read_bytes() for p in files]  # byte-identical


def _repo_path(result: Result) -> str:
    from lemmata.release.eee import relative_path

    return relative_path(result)


def test_the_validator_rejects_a_broken_export(tmp_path):
    pending = _pending()
    store = tmp_path / "store"
    Store(store).add_result(pending)
    out = tmp_path / "eee"
    assert _export(out, pending.result_id, store=store) == 0
    (path,) = _exported(out)
    assert _validate(out, path).valid
    doc = json.loads(path.read_text("utf-8"))
    del doc["model_info"]  # a required field
    path.write_text(json.dumps(doc), "utf-8")
    report = _validate(out, path)
    assert not report.valid and any(e["loc"] == "model_info" for e in report.errors)
    # a name-based UUID (version 5) is not a datastore file name
    named = path.with_name(f"{uuid.uuid5(uuid.NAMESPACE_URL, pending.result_id)}.json")
    path.rename(named)
    assert any("UUID4" in e["msg"] for e in _validate(out, named).errors)


def test_a_result_with_no_number_yet_is_refused(tmp_path, capsys):
    nothing = _pending(value=None)
    store = tmp_path / "store"
    Store(store).add_result(nothing)
    assert _export(tmp_path / "eee", nothing.result_id, store=store) == 2
    err = capsys.readouterr().err
    assert nothing.result_id[:12] in err and "field 'main.value'" in err and "Traceback" not in err
    assert not (tmp_path / "eee").exists()
    broken = tmp_path / "broken.json"
    broken.write_text(nothing.to_json().replace('"kind": "scored"', '"kind": "guessed"'), "utf-8")
    assert _export(tmp_path / "eee", str(broken), store=store) == 2
    err = capsys.readouterr().err
    assert f"{broken}, field 'kind'" in err and "Traceback" not in err
    assert not (tmp_path / "eee").exists()
