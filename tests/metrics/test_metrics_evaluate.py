"""The ``metrics/`` evaluate modules: offline local loading, thin-wrapper equivalence, cards and apps."""

from __future__ import annotations

import ast
import json
import socket

import pytest
import yaml

from lemmata.metrics import correctness_report, evaluate_run, pass_at_k_summary, run_from_rankings, tool_acc_report
from lemmata.core.paths import repo_root

METRICS_DIR = repo_root() / "metrics"
MODULES = ["tool_acc", "recall_at_k", "correctness"]


@pytest.fixture
def offline(monkeypatch):
    """No network at all: any TCP/UDP connection attempt fails the test."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    real_connect = socket.socket.connect

    def refuse(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            raise AssertionError(f"network access attempted: {address}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", refuse)


def _evaluate():
    """The ``evaluate`` library, imported when a test runs: it imports ``transformers`` (seconds of CPU), which
    would otherwise be paid by every worker while collecting, before any test starts."""
    import evaluate

    return evaluate


def load(name, config=None, tmp_path=None):
    kwargs = {"cache_dir": str(tmp_path)} if tmp_path else {}
    return _evaluate().load(str(METRICS_DIR / name), config, **kwargs)


TOOL_PREDICTIONS = [
    {"instance_id": "g1", "ground": "yes", "suff": "yes", "anchor_match": "yes", "cite_rank": "3",
     "selected_source": "cited", "oracle_ground": "yes", "oracle_suff": "yes"},
    {"instance_id": "g2", "ground": "yes", "suff": "no", "anchor_match": "no", "cite_rank": "",
     "selected_source": "alternative", "oracle_ground": "", "oracle_suff": ""},
    {"instance_id": "g3", "ground": "yes", "suff": "yes", "anchor_match": "no", "cite_rank": "41",
     "selected_source": "alternative", "oracle_ground": "pending", "oracle_suff": "pending"},
    {"instance_id": "g4", "ground": "uncertain", "suff": "no", "anchor_match": "", "cite_rank": "1",
     "selected_source": "cited", "oracle_ground": "", "oracle_suff": ""},
]
TOOL_REFERENCES = [
    {"instance_id": "g1", "paper_key": "2103.01234", "domain": "analysis_pde", "oracle_evaluable": True},
    {"instance_id": "g2", "paper_key": "2103.01234", "domain": "analysis_pde", "oracle_evaluable": False},
    {"instance_id": "g3", "paper_key": "1911.05678", "domain": "geometry_topology", "oracle_evaluable": True},
    {"instance_id": "g4", "paper_key": "2205.00042", "domain": "geometry_topology", "oracle_evaluable": False},
]


def test_tool_acc_module_is_a_thin_wrapper(offline, tmp_path):
    out = load("tool_acc", tmp_path=tmp_path).compute(predictions=TOOL_PREDICTIONS, references=TOOL_REFERENCES)
    assert {k: v for k, v in out.items() if k != "report"} == {
        "ToolAcc": 0.5, "GroundRate": 0.75, "AnchorAcc": 1 / 3, "CiteRecall@20": 0.5, "OracleCoverage": 0.5,
        "Oracle ToolAcc": 0.5, "AltSourceToolAcc": 0.25, "AltSourceSuccessRate": 0.5, "DeltaToOracle": 0.0,
        "pending": 1}
    rows = [dict(p, **r) for p, r in zip(TOOL_PREDICTIONS, TOOL_REFERENCES)]
    for row in rows:
        for key in ("anchor_match", "oracle_ground", "oracle_suff"):
            row[key] = row[key] or None
        row["cite_rank"] = int(row["cite_rank"]) if row["cite_rank"] else None
    assert out["report"] == tool_acc_report(rows).model_dump(mode="json")


def test_tool_acc_module_batches_and_kwargs(offline, tmp_path):
    module = load("tool_acc", tmp_path=tmp_path)
    for pred, ref in zip(TOOL_PREDICTIONS, TOOL_REFERENCES):
        module.add(prediction=pred, reference=ref)
    out = module.compute(cite_recall_n=2, n_resamples=50, seed=3)
    assert out["CiteRecall@2"] == 0.25 and out["report"]["n_resamples"] == 50 and out["report"]["seed"] == 3


@pytest.mark.parametrize("mutate, message", [
    (lambda p, r: r.__setitem__(0, dict(r[0], instance_id="zz")), r"no prediction for instance_id\(s\) \['zz'\]"),
    (lambda p, r: p.__setitem__(1, dict(p[1], instance_id="g1")), "duplicate instance_id 'g1'"),
    (lambda p, r: p.__setitem__(2, dict(p[2], ground="probably")), r"\(g3\), field 'ground'"),
    (lambda p, r: p.__setitem__(0, dict(p[0], cite_rank="0")), "field 'g1.cite_rank'"),
])
def test_tool_acc_module_errors_name_the_instance(offline, tmp_path, mutate, message):
    preds, refs = [dict(p) for p in TOOL_PREDICTIONS], [dict(r) for r in TOOL_REFERENCES]
    mutate(preds, refs)
    with pytest.raises(ValueError, match=message):
        load("tool_acc", tmp_path=tmp_path).compute(predictions=preds, references=refs)


def test_recall_module_matches_library(offline, tmp_path):
    module = load("recall_at_k", tmp_path=tmp_path)
    preds = [["d3", "d1", "d7"], ["d2", "d9"], ["d5", "d6", "d8"]]
    refs = [["d1", "d4"], ["d2"], ["d8"]]
    out = module.compute(predictions=preds, references=refs, k=[1, 3], n_resamples=0)
    assert out == {"recall@1": 1 / 3, "recall@3": 5 / 6, "ci95": {"recall@1": None, "recall@3": None}, "n_queries": 3}
    out = module.compute(predictions=preds, references=refs, measures=["ndcg@3", "mrr@10"], n_resamples=200, seed=1)
    ev = evaluate_run(run_from_rankings({"q0": preds[0], "q1": preds[1], "q2": preds[2]}),
                      {"q0": {"d1": 1, "d4": 1}, "q1": {"d2": 1}, "q2": {"d8": 1}}, ["ndcg@3", "mrr@10"],
                      n_resamples=200, seed=1)
    assert out["ndcg@3"] == ev.means()["ndcg@3"] and out["ci95"]["mrr@10"] == list(ev.measures["mrr@10"].ci95)


def test_recall_module_scores_grades_and_ties(offline, tmp_path):
    out = load("recall_at_k", tmp_path=tmp_path).compute(
        predictions=[["d3", "d1", "d7"], ["d9", "d2"]], references=[["d1", "d4"], ["d2"]],
        prediction_scores=[[0.8, 0.8, 0.1], [0.4, 0.4]], reference_grades=[[2, 1], [1]],
        measures=["ndcg@3", "mrr@1", "recall@2"], query_ids=["gap-17", "gap-42"], n_resamples=1000)
    assert out["mrr@1"] == 1.0 and out["recall@2"] == 0.75
    assert out["ndcg@3"] == pytest.approx((2 / (2 + 1 / 1.584962500721156) + 1.0) / 2)


@pytest.mark.parametrize("kwargs, message", [
    (dict(predictions=[["a", "a"]], references=[["a"]]), "ranked twice"),
    (dict(predictions=[["a"]], references=[[]]), "no relevant document"),
    (dict(predictions=[["a"]], references=[["a"]], k=0), "k must be a positive integer"),
    (dict(predictions=[["a"], ["b"]], references=[["a"], ["b"]], query_ids=["x", "x"]), r"duplicate query id\(s\) \['x'\]"),
    (dict(predictions=[["a", "b"]], references=[["a"]], prediction_scores=[[1.0]]), "1 scores for 2 documents"),
    (dict(predictions=[["a", "b"]], references=[["a"]], prediction_scores=[[1.0, float("nan")]]), "'b' is NaN"),
    (dict(predictions=[["a"]], references=[["a"]], reference_grades=[[1.5]]), "not an integer"),
])
def test_recall_module_errors(offline, tmp_path, kwargs, message):
    with pytest.raises(ValueError, match=message):
        load("recall_at_k", tmp_path=tmp_path).compute(**kwargs)


def test_correctness_module_matches_library(offline, tmp_path):
    preds = [{"item_id": "a", "compiles": "yes", "faithful": "yes"}, {"item_id": "b", "compiles": "yes", "faithful": "no"},
             {"item_id": "c", "compiles": "no", "faithful": "not_evaluable"},
             {"item_id": "d", "compiles": "yes", "faithful": "pending"}]
    refs = [{"item_id": i, "group": g} for i, g in zip("abcd", ["ch2", "ch2", "ch3", "ch3"])]
    out = load("correctness", tmp_path=tmp_path).compute(predictions=preds, references=refs)
    assert (out["correctness"], out["compile_rate"], out["pending"]) == (0.25, 0.75, 1)
    expected = correctness_report([dict(p, group=r["group"]) for p, r in zip(preds, refs)])
    assert out["report"] == expected.model_dump(mode="json")
    ungrouped = load("correctness", tmp_path=tmp_path).compute(
        predictions=preds, references=[{"item_id": i, "group": ""} for i in "abcd"])
    assert ungrouped["report"]["correctness"]["per_domain"] == {}


def test_pass_at_k_configuration(offline, tmp_path):
    preds = [{"item_id": "a", "n": 8, "c": 3, "pending": 0}, {"item_id": "b", "n": 8, "c": 0, "pending": 0},
             {"item_id": "c", "n": 8, "c": 1, "pending": 2}]
    refs = [{"item_id": i, "group": g} for i, g in zip("abc", ["ch2", "ch2", "ch3"])]
    out = load("correctness", "pass_at_k", tmp_path=tmp_path).compute(
        predictions=preds, references=refs, k=[1, 8], n_resamples=100, seed=4)
    for k in (1, 8):
        s = pass_at_k_summary([dict(p, group=r["group"]) for p, r in zip(preds, refs)], k, n_resamples=100, seed=4)
        assert out[f"pass@{k}"] == s.mean and out["ci95"][f"pass@{k}"] == list(s.ci95)
    assert out["pending_items"] == 1 and out["per_group"]["pass@8"] == {"ch2": 0.5, "ch3": 1.0}
    with pytest.raises(ValueError, match="exceeds the number of attempts"):
        load("correctness", "pass_at_k", tmp_path=tmp_path).compute(predictions=preds, references=refs, k=9)


def test_unknown_configuration_is_refused(offline):
    with pytest.raises(KeyError, match="unknown configuration 'pass@k'"):
        _evaluate().load(str(METRICS_DIR / "correctness"), "pass@k")


@pytest.mark.parametrize("name", MODULES)
def test_relative_local_path_loads(offline, monkeypatch, tmp_path, name):
    monkeypatch.chdir(repo_root())
    module = _evaluate().load(f"metrics/{name}", cache_dir=str(tmp_path))
    assert module.name == name and module.citation and module.description


def test_relative_local_path_computes(offline, monkeypatch, tmp_path):
    monkeypatch.chdir(repo_root())
    module = _evaluate().load("metrics/recall_at_k", cache_dir=str(tmp_path))
    assert module.compute(predictions=[["a"]], references=[["a"]], n_resamples=0)["recall@10"] == 1.0


@pytest.mark.parametrize("name", MODULES)
def test_module_folder_layout_and_imports(name):
    folder = METRICS_DIR / name
    assert sorted(p.name for p in folder.iterdir() if p.suffix in (".py", ".md")) == sorted(["app.py", "README.md", f"{name}.py"])
    script = (folder / f"{name}.py").read_text(encoding="utf-8")
    tree = ast.parse(script)
    for node in tree.body:  # evaluate's import scanner misreads `import a, b`: one import per line
        if isinstance(node, ast.Import):
            assert len(node.names) == 1, f"{name}.py line {node.lineno}: one import per line"
    imported = {n.module for n in tree.body if isinstance(n, ast.ImportFrom)}
    assert imported <= {"lemmata.metrics.evaluate_adapters", "lemmata.benchmarks.re2math.meta"} and \
        "lemmata.metrics.evaluate_adapters" in imported, "all logic lives in lemmata"
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert len(classes) == 1 and {f.name for f in classes[0].body if isinstance(f, ast.FunctionDef)} == {"_info", "_compute"}


@pytest.mark.parametrize("name", MODULES)
def test_metric_card(name):
    text = (METRICS_DIR / name / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["app_file"] == "app.py" and front["sdk"] == "gradio"
    assert {"evaluate", "metric"} <= set(front["tags"])
    assert front["title"] and front["description"]
    for heading in ("## Metric Description", "## How to Use", "### Inputs", "### Output Values", "### Examples",
                    "## Limitations and Bias", "## Citation"):
        assert heading in text, f"{name}/README.md lacks {heading}"


@pytest.mark.parametrize("name", MODULES)
def test_app_is_a_page_over_its_own_folder(name):
    tree = ast.parse((METRICS_DIR / name / "app.py").read_text(encoding="utf-8"))
    calls = [ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert "evaluate.load" in calls and "metric_app" in calls
    load_call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == "evaluate.load")
    assert "Path(__file__).resolve().parent" in ast.unparse(load_call.args[0])


@pytest.mark.parametrize("name", MODULES)
def test_app_page_builds_and_computes_its_example(name):
    """The page builds on the installed Gradio and its prefilled example computes without error."""
    import runpy

    from lemmata.metrics.widget import EXAMPLES, compute_from_json

    namespace = runpy.run_path(str(METRICS_DIR / name / "app.py"), run_name="app")
    assert namespace["demo"].__class__.__name__ == "Blocks"
    out = compute_from_json(namespace["module"], json.dumps(EXAMPLES[name]))
    assert "error" not in out, out
    broken = compute_from_json(namespace["module"], '{"predictions": []}')
    assert "error" in broken