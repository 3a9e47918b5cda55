"""The paper's reported rows: per-model OracleCoverage, and notes that claim only what the released files say."""

from __future__ import annotations

import json
import shutil

import pytest

from lemmata.benchmarks.re2math.meta import RE2MATH
from lemmata.benchmarks.re2math.reported import oracle_coverage, reported_results
from lemmata.core.errors import InputError
from lemmata.release.sources import resolve_sources


def _sources(*names):
    return resolve_sources(RE2MATH, list(names))


def test_oracle_coverage_is_each_models_own_count():
    got = {m: (c.count, c.total) for m, c in oracle_coverage().items()}
    assert got == {"GPT-5.2": (71, 200), "Gemini 3.1 Pro": (67, 200), "Claude Opus 4.5": (71, 200),
                   "DeepSeek V3.2": (74, 200), "Qwen3-235B Thinking": (74, 200), "Kimi K2 Thinking": (74, 200),
                   "Grok 4": (74, 200)}


def test_reported_rows_carry_the_per_model_coverage_and_keep_the_printed_one():
    printed = json.loads(_sources("paper_all_tables.json")["paper_all_tables.json"].read_text("utf-8"))
    main = json.loads(_sources("paper_main_tables.json")["paper_main_tables.json"].read_text("utf-8"))
    main_by_model = {r["model"]: r for r in main["rows"]}
    results = reported_results()
    assert len(results) == 7
    for r, row in zip(results, printed["rows"]):
        cov = r.metrics["OracleCoverage"]
        own = main_by_model[r.model.name]
        assert f"{cov['count']}/{cov['total']}" == own["OracleCoverage_count"]
        assert cov["rate"] == own["OracleCoverage"]
        # the coverage is the denominator of the same model's Oracle ToolAcc
        assert cov["count"] == r.metrics["Oracle ToolAcc"]["total"] == row["main_table_2"]["Oracle ToolAcc"]["total"]
        lo, hi = cov["wilson95"]
        assert lo < cov["rate"] < hi
        kept = r.provenance["oracle_coverage"]
        assert kept["printed_normalised"]["count"] == row["main_table_2"]["OracleCoverage"]["success"] == 74
        assert kept["imported"]["from"] == "paper_main_tables.json"
        kept_printed = r.provenance["printed"]["main_table_2"]["OracleCoverage"]
        assert {k: kept_printed[k] for k in row["main_table_2"]["OracleCoverage"]} == row["main_table_2"]["OracleCoverage"]
    by_model = {r.model.name: r.metrics["OracleCoverage"]["count"] for r in results}
    assert (by_model["Claude Opus 4.5"], by_model["GPT-5.2"], by_model["Gemini 3.1 Pro"]) == (71, 71, 67)


def test_reported_notes_make_no_claim_the_released_files_do_not_make():
    sources = _sources("paper_all_tables.json", "paper_main_tables.json", "oracle_materialization_summary.json")
    released = " ".join(p.read_text("utf-8") for p in sources.values()).lower()
    for r in reported_results():
        text = " ".join(r.notes).lower()
        for claim in ("serpapi", "google scholar", "top 20", "live "):
            assert claim not in text, claim
            assert claim not in released  # the files themselves do not say it either
        assert "do not name the search backend" in text


@pytest.mark.parametrize("alias,unavailable", [("claude", 126), ("gemini", 129)])
def test_a_summary_that_disagrees_with_the_main_tables_is_refused(tmp_path, monkeypatch, alias, unavailable):
    """The check runs on the parsed numbers: an edited (and re-pinned) summary is caught by the cross-check."""
    import lemmata.benchmarks.re2math.reported as reported
    from lemmata.core.hashing import sha256_file

    src = _sources("paper_main_tables.json", "oracle_materialization_summary.json")
    for name, path in src.items():
        shutil.copyfile(path, tmp_path / name)
    summary = json.loads((tmp_path / "oracle_materialization_summary.json").read_text("utf-8"))
    summary["per_model_status_counts"][alias]["unavailable"] = unavailable
    (tmp_path / "oracle_materialization_summary.json").write_text(json.dumps(summary), "utf-8")
    with pytest.raises(InputError, match="sha256 mismatch"):
        oracle_coverage(tmp_path)
    pinned = RE2MATH.model_copy(update={"sources": tuple(
        s.model_copy(update={"sha256": sha256_file(tmp_path / s.name)}) if s.name == "oracle_materialization_summary.json"
        else s for s in RE2MATH.sources)})
    monkeypatch.setattr(reported, "RE2MATH", pinned)
    with pytest.raises(InputError) as err:
        oracle_coverage(tmp_path)
    assert err.value.problems[0].field == f"per_model_status_counts.{alias}"
