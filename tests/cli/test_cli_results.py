"""``lemmata results export --format eval-results`` and ``lemmata results push``: stored results as the Hub's
``.eval_results`` YAML, opened as a pull request on a model repository of an in-process Hub (``HF_ENDPOINT``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml
from hub_commits import CommitHub, Repo

from lemmata.cli import main
from lemmata.core.hashing import sha256_bytes
from lemmata.families import get_benchmark
from lemmata.formats.results import FrozenTuple, ModelInfo, Score, make_result
from lemmata.store import Store

ROOT = Path(__file__).parents[2]
RELEASE = get_benchmark("mathatlas").release_id


def _result(name: str, *, pending: int = 0, track: str = "statements"):
    return make_result(
        kind="scored", benchmark="mathatlas", track=track,
        frozen=FrozenTuple(dataset_release=RELEASE, split="statements/test", retrieval_artifact=None,
                           scoring_artifact="lemmata-judge/1", date="2026-11-20"),
        submission_sha256=sha256_bytes(name.encode()), model=ModelInfo(name=name),
        main=Score(metric="correct", value=None if pending else 0.42, count=42, total=100),
        pending=pending, status="pending_oracle" if pending else "complete")


def _store(tmp_path: Path, *results) -> Path:
    store = Store(tmp_path / "store")
    for r in results:
        store.add_result(r)
    return store.root


def _entries(text: bytes) -> list:
    from huggingface_hub import parse_eval_result_entries

    return parse_eval_result_entries(yaml.safe_load(text))  # the client library's own reader


def test_export_writes_eval_results_entries(tmp_path, capsys):
    done, other = _result("solver-a"), _result("solver-b", track="definitions")
    store = _store(tmp_path, done, other)
    out = tmp_path / "model"
    assert main(["results", "export", done.result_id[:10], other.result_id, "--store", str(store),
                 "--format", "eval-results", "--out", str(out)]) == 0
    path = out / ".eval_results" / "mathatlas.yaml"
    assert capsys.readouterr().out.strip() == str(path)
    first, second = _entries(path.read_bytes())
    assert (first.dataset_id, first.task_id, first.value, first.date) == ("lemmata/mathatlas", "statements", 0.42,
                                                                          "2026-11-20")
    assert second.task_id == "definitions"
    assert first.source_url.endswith(f"?tab=audit&entry={done.result_id[:12]}") and first.source_name
    for part in (RELEASE, "split statements/test", "retrieval artifact none", "scoring artifact lemmata-judge/1",
                 "status complete", done.result_id):
        assert part in first.notes


def test_pending_results_are_refused_as_final(tmp_path, capsys):
    pending = _result("half-judged", pending=7)
    store = _store(tmp_path, pending)
    assert main(["results", "export", pending.result_id, "--store", str(store), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "7 item(s) still await an oracle" in err and "field 'status'" in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()


def test_unknown_or_ambiguous_ids_are_named(tmp_path, capsys):
    store = _store(tmp_path, _result("a"))
    assert main(["results", "export", "deadbeef00", "--store", str(store)]) == 2
    assert "deadbeef00" in capsys.readouterr().err


def test_push_opens_a_pull_request_never_a_direct_push(tmp_path):
    done = _result("solver-a")
    store = _store(tmp_path, done)
    env = {**os.environ, "HF_HUB_OFFLINE": "0", "HF_HUB_CACHE": str(tmp_path / "hf"),
           "HF_HUB_DISABLE_PROGRESS_BARS": "1", "HF_HUB_DISABLE_XET": "1"}
    with CommitHub() as hub:
        hub.repos[("model", "someone/their-model")] = Repo(kind="model", private=False)
        done_run = subprocess.run(
            [sys.executable, "-m", "lemmata", "results", "push", done.result_id, "--store", str(store),
             "--model-repo", "someone/their-model", "--token", "hf_test"],
            check=False, cwd=ROOT, env={**env, "HF_ENDPOINT": hub.endpoint}, capture_output=True, text=True,
            timeout=180)
    assert done_run.returncode == 0, done_run.stderr
    repo = hub.repo("model", "someone/their-model")
    assert repo.branches["main"] == {}  # nothing pushed to main
    assert len(repo.pulls) == 1 and done_run.stdout.strip() == f"{hub.endpoint}/someone/their-model/discussions/1"
    commits = [r for r in hub.requests if r.startswith("POST /api/models/someone/their-model/commit/")]
    assert commits == ["POST /api/models/someone/their-model/commit/main?create_pr=1"]
    (entry,) = _entries(repo.pulls[0]["files"][".eval_results/mathatlas.yaml"])
    assert (entry.dataset_id, entry.task_id, entry.value) == ("lemmata/mathatlas", "statements", 0.42)
    assert "Lemmata" in repo.commits[0]["summary"] and done.result_id in repo.commits[0]["description"]


def test_push_dry_run_prints_the_files(tmp_path, capsys):
    done = _result("solver-a")
    store = _store(tmp_path, done)
    assert main(["results", "push", done.result_id, "--store", str(store), "--model-repo", "o/m", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("--- .eval_results/mathatlas.yaml\n") and "task_id: statements" in out
