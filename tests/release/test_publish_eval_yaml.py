"""``lemmata publish`` uploads the release's ``eval.yaml`` (the Hub's Benchmark registration) in its one commit,
against an in-process Hub that takes commits (``hub_commits.CommitHub``), named only by ``HF_ENDPOINT``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml
from hub_commits import CommitHub

from lemmata.families import get_benchmark
from lemmata.release.citation import LEMMATA_URL
from lemmata.release.eval_yaml import EvalYaml, eval_yaml

ROOT = Path(__file__).parents[2]


def _publish(endpoint: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_ENDPOINT": endpoint, "HF_HUB_OFFLINE": "0", "HF_HUB_CACHE": str(tmp_path / "hf"),
           "HF_HUB_DISABLE_PROGRESS_BARS": "1", "HF_HUB_DISABLE_XET": "1"}
    return subprocess.run([sys.executable, "-m", "lemmata", "publish", *args], check=False, cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=180)


def test_publish_uploads_eval_yaml_with_one_task_per_track(re2math_release, tmp_path):
    with CommitHub() as hub:
        done = _publish(hub.endpoint, tmp_path, str(re2math_release), "--repo", "lemmata-test/re2math",
                        "--token", "hf_test")
    assert done.returncode == 0, done.stderr
    repo = hub.repo("dataset", "lemmata-test/re2math")
    files = repo.branches["main"]
    assert "eval.yaml" in files and "MANIFEST.json" in files and repo.tags == {"1.0.0": repo.commits[-1]["oid"]}
    assert len(repo.commits) == 1 and not repo.commits[0]["create_pr"]
    assert any(r.startswith("POST /api/datasets/lemmata-test/re2math/commit/main") for r in hub.requests)
    doc = yaml.safe_load(files["eval.yaml"])
    EvalYaml.model_validate({**doc, "tasks": tuple(doc["tasks"])})  # only the documented fields, all valid
    assert doc["evaluation_framework"] == "lemmata"
    assert [t["id"] for t in doc["tasks"]] == ["raw", "assisted"]
    assert LEMMATA_URL in doc["description"] and "re2math-1.0.0" in doc["description"]
    assert "OfflineToolAcc (higher is better)" in doc["description"]
    assert "scoring artifact" in doc["description"]  # the frozen tuple's parts are named


def test_dry_run_lists_eval_yaml(re2math_release, capsys):
    from lemmata.cli import main

    assert main(["publish", str(re2math_release), "--repo", "lemmata/re2math", "--dry-run"]) == 0
    assert "eval.yaml" in capsys.readouterr().out


def test_task_ids_are_stable_across_versions_and_ranking_tracks_name_their_split():
    old, new = get_benchmark("math-arxiv-meta-1.0.0"), get_benchmark("math-arxiv-meta-1.1.0")
    assert old.version != new.version
    assert [t.id for t in eval_yaml(old, LEMMATA_URL).tasks] == [t.id for t in eval_yaml(new, LEMMATA_URL).tasks]
    retrieve = eval_yaml(get_benchmark("mathnet-retrieve"), LEMMATA_URL)
    assert [(t.id, t.config, t.split) for t in retrieve.tasks] == [
        ("easy", "qrels", "easy"), ("medium", "qrels", "medium"), ("hard", "qrels", "hard")]
    mirb = eval_yaml(get_benchmark("mirb"), LEMMATA_URL)  # its track averages 15 qrels splits: none named
    assert [(t.id, t.config, t.split) for t in mirb.tasks] == [("zero-shot", None, None)]
