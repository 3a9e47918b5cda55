"""The frozen offline scholarly artifact, built from the real Re2Math release."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from lemmata.core.errors import InputError, LemmataError
from lemmata.core.hashing import sha256_file
from lemmata.benchmarks.re2math.render import render_instance
from lemmata.release.load import open_release
from lemmata.benchmarks.re2math.scholar.artifact import (
    ARTIFACT_VERSION,
    MaterialisationLog,
    artifact_id,
    default_artifact,
    open_artifact,
)
from lemmata.benchmarks.re2math.scholar.citations import parse_citation
from lemmata.core.identifiers import arxiv_id_year
from lemmata.benchmarks.re2math.scholar.matcher import SourceRef, _refs_of, is_citing_paper, match_candidate, match_sources
from lemmata.benchmarks.re2math.scholar.querycache import SearchResult


@pytest.fixture(scope="session")
def artifact_dir(scholar_artifacts) -> Path:
    """The run's 1.0.0 artifact (built once for every worker by ``scholar_artifacts``; read-only: tests that tamper
    copy it first)."""
    return scholar_artifacts / artifact_id()


@pytest.fixture(scope="session")
def artifact(artifact_dir):
    return open_artifact(artifact_dir)


@pytest.fixture(scope="session")
def rows(re2math_release):
    return open_release(re2math_release).rows("full", "full")


@pytest.fixture(scope="session")
def eval_rows(re2math_release):
    return open_release(re2math_release).rows("eval200", "test")


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_build_is_byte_identical_across_runs_and_hash_seeds(artifact_dir, re2math_release, tmp_path):
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    code = "import sys; from lemmata.benchmarks.re2math.scholar.artifact import build_artifact; build_artifact(sys.argv[1], sys.argv[2])"
    subprocess.run([sys.executable, "-c", code, str(re2math_release), str(tmp_path)], check=True, env=env)
    again = _files(tmp_path / artifact_id())
    assert again == _files(artifact_dir)
    assert {"ARTIFACT.json", "MANIFEST.json", "records.jsonl", "statements.jsonl", "attributions.jsonl",
            "index/data.csc.index.npy", "index/vocab.index.json", "index/params.index.json"} <= set(again)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp folder left behind


def test_artifact_describes_itself(artifact, re2math_release, rows):
    info = artifact.info
    assert info.id == artifact.artifact_id == f"re2math-scholar-offline-{ARTIFACT_VERSION}"
    assert info.release_id == "re2math-1.0.0"
    assert info.release_manifest_sha256 == sha256_file(Path(re2math_release) / "MANIFEST.json")
    assert info.backend["library"] == "bm25s" and (info.backend["k1"], info.backend["b"]) == (1.5, 0.75)
    assert info.tokenizer["stemmer"] is None and info.tokenizer["version"] == "1"
    counts = info.counts
    assert counts["instances"] == len(rows) == 860
    assert counts["citing_papers"] == len({r["paper_key"] for r in rows}) == 631
    assert counts["records"] == counts["sources"] + counts["citing_papers"] == len(artifact)
    assert counts["bibliography_strings"] == len({r["z"]["citation_content"] for r in rows})
    assert counts["instances_cited_after_cutoff"] == sum(a.cited_after_cutoff for a in artifact.attributions())
    manifest = json.loads((artifact.root / "MANIFEST.json").read_text())
    assert manifest["release_id"] == info.id and manifest["sources"][0]["sha256"] == info.release_manifest_sha256


def test_records_are_deduplicated_sources_and_citing_papers(artifact, rows):
    ids = [r.id for r in artifact.records]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert all(i.startswith(("src-", "paper-")) for i in ids)
    # every bibliography string lives in exactly one record
    owner = Counter(c for r in artifact.records for c in r.citations)
    assert set(owner) == {r["z"]["citation_content"] for r in rows} and set(owner.values()) == {1}
    # fewer records than strings: the same work cited in different styles is one record
    assert sum(r.kind == "source" for r in artifact.records) < len(owner)
    merged = [r for r in artifact.records if len(r.citations) > 1]
    assert merged
    for rec in merged:  # each string of a merged record is the same work as another string of it
        refs = [SourceRef.from_citation(c) for c in rec.citations]
        assert all(any(match_sources(a, b).matched for b in refs if b is not a) for a in refs), rec.id
    # citing papers: one record each, dated by their earliest publication_year
    years: dict[str, list[int]] = {}
    for row in rows:
        years.setdefault(row["paper_key"], []).append(row["publication_year"])
    for key, ys in years.items():
        rec = artifact.record(f"paper-{key}")
        assert rec.kind == "citing_paper" and rec.arxiv_id == key
        assert rec.year is not None and rec.year <= min(ys)
    z_ids = {r["z"]["citation_content"]: (r["z"]["doi"], r["z"]["arxiv_id"]) for r in rows}
    for rec in artifact.records:
        if rec.kind == "source":  # dated by the earliest year its strings or arXiv ids give
            parsed = [parse_citation(c, *z_ids[c]) for c in rec.citations]
            known = [p.year for p in parsed if p.year] + [arxiv_id_year(p.arxiv_id) for p in parsed if p.arxiv_id]
            assert rec.year == (min(known) if known else None)


def _later_than(result: SearchResult, cutoff: int | None) -> list[str]:
    return [c.id for c in result.candidates if cutoff is not None and c.year is not None and c.year > cutoff]


def test_year_filter_never_violated_on_real_queries(artifact, rows, eval_rows):
    binding = 0
    for i, row in enumerate(rows):
        cutoff = row["publication_year"]
        result = artifact.search(row["x"]["global_context"]["target_theorem"], cutoff)
        assert _later_than(result, cutoff) == []
        assert result.settings.year_cutoff == cutoff and len(result.candidates) <= 20
        if i % 2:
            continue
        # the filtered list is exactly the full ranking with later records removed, cut at 20
        full = artifact.search(row["x"]["global_context"]["target_theorem"], None, 300)
        expected = [c.id for c in full.candidates if c.year is None or c.year <= cutoff][:20]
        assert result.ids() == expected and (len(expected) == 20 or len(full.candidates) < 300)
        binding += full.ids()[:20] != expected
    assert binding > 50  # the cutoff really removes records for many instances
    for row in eval_rows:
        for track, window in (("raw", 5), ("assisted", 1)):
            cutoff = row["publication_year"]
            result = artifact.search(render_instance(row, track, window), cutoff)
            assert _later_than(result, cutoff) == [] and result.candidates
    for cutoff in (1950, 1980, 2000, 2010, 2020):
        assert _later_than(artifact.search("Ricci curvature lower bound manifold", cutoff, 200), cutoff) == []


def test_unknown_years_are_kept_and_ranking_is_deterministic(artifact):
    undated = [r for r in artifact.records if r.year is None]
    assert undated
    rec = undated[0]
    result = artifact.search(rec.title, 1800)
    assert rec.id in result.ids() and all(c.year is None for c in result.candidates)
    again = artifact.search(rec.title, 1800)
    assert again.ids() == result.ids() and [c.score for c in again.candidates] == [c.score for c in result.candidates]
    scores = [(-(c.score or 0.0), c.id) for c in artifact.search("theorem lemma manifold group", None, 60).candidates]
    assert scores == sorted(scores)  # score descending, then record id ascending
    assert artifact.search("the of and", 2020).candidates == []  # no informative word: no candidates


def test_cited_source_is_found_by_its_title(artifact, eval_rows):
    found = reachable = 0
    for row in eval_rows:
        attribution = artifact.attribution(row["instance_id"])
        title = parse_citation(row["z"]["citation_content"]).title
        if attribution.cited_after_cutoff or not title:
            continue
        reachable += 1
        found += attribution.record_id in artifact.search(title, row["publication_year"]).ids()
    assert reachable > 180 and found == reachable


def test_matcher_agrees_with_the_artifact(artifact, rows, eval_rows):
    """Every instance's cited record matches its z; no other record of the artifact does (Eval-200)."""
    for row in rows:
        gold = artifact.record(artifact.attribution(row["instance_id"]).record_id)
        assert match_candidate(gold.candidate(1, 1.0), row["z"]).matched, row["instance_id"]
    refs = [(r.id, _refs_of(r.candidate(1, 1.0))) for r in artifact.records]
    for row in eval_rows:
        z = SourceRef.from_z(row["z"])
        gold = artifact.attribution(row["instance_id"]).record_id
        others = [rid for rid, rs in refs if rid != gold and any(match_sources(r, z).matched for r in rs)]
        assert others == [], row["instance_id"]


def test_citing_paper_exclusion_on_real_rows(artifact, rows, eval_rows):
    for row in rows:
        own = artifact.record(f"paper-{row['paper_key']}").candidate(1, 1.0)
        assert is_citing_paper(own, row).matched
        cited = artifact.record(artifact.attribution(row["instance_id"]).record_id).candidate(1, 1.0)
        assert not is_citing_paper(cited, row).matched, row["instance_id"]
    # a search-engine hit of another version of the paper: arXiv id with a version, or the same title
    row = eval_rows[0]
    version = SourceRef(arxiv_id=row["paper"]["paper_id"] + "v9" if "v" not in row["paper"]["paper_id"]
                        else row["paper"]["paper_id"].rsplit("v", 1)[0] + "v9")
    assert is_citing_paper(version, row).rule == "arxiv"
    assert is_citing_paper(SourceRef(title=row["paper"]["title"].upper() + "."), row).rule == "title"
    papers = [artifact.record(f"paper-{k}").candidate(1, 1.0) for k in sorted({r["paper_key"] for r in rows})]
    for row in eval_rows[::10]:
        flagged = [p.id for p in papers if is_citing_paper(p, row).matched]
        assert flagged == [f"paper-{row['paper_key']}"]


def test_materialisation_returns_release_statements_and_logs(artifact, eval_rows, tmp_path):
    log_path = tmp_path / "materialised.jsonl"
    own = MaterialisationLog()
    for row in eval_rows:
        rid = artifact.attribution(row["instance_id"]).record_id
        mat = artifact.materialise(rid, instance_id=row["instance_id"], log=log_path)
        latex = row["y"]["reference_tool_latex"]
        assert latex in [s.latex for s in mat.statements] and latex.strip() in mat.text
        assert mat.record.id == rid and mat.artifact_id == artifact.artifact_id
        sid = artifact.attribution(row["instance_id"]).statement_id
        assert sid in [s.id for s in mat.statements] and f"[{sid}]" in mat.text
        assert row["instance_id"] not in mat.text  # the frozen text does not reveal which gap it serves
        artifact.materialise(rid, instance_id=row["instance_id"], log=own)
    events = MaterialisationLog.read(log_path)
    assert [e.instance_id for e in events] == [r["instance_id"] for r in eval_rows] == [e.instance_id for e in own.events]
    assert all(e.record_id.startswith(("src-", "paper-")) and e.at.endswith("+00:00") for e in events)
    before = len(artifact.log.events)
    paper = artifact.materialise(f"paper-{eval_rows[0]['paper_key']}")
    assert paper.record.kind == "citing_paper" and len(artifact.log.events) == before + 1
    assert artifact.log.events[-1].instance_id is None
    with pytest.raises(InputError, match="did you mean"):
        artifact.materialise(artifact.records[0].id[:-1])
    # statements are stable ids over the release: the same statement text of a record is one id
    all_ids = [s for r in artifact.records for s in r.statement_ids]
    assert len(all_ids) == len(set(all_ids)) == artifact.info.counts["statements"]


@pytest.mark.parametrize("victim", ["records.jsonl", "index/data.csc.index.npy", "ARTIFACT.json",
                                    "attributions.jsonl"])
def test_one_changed_byte_is_rejected(artifact_dir, tmp_path, victim):
    copy = tmp_path / artifact_dir.name
    shutil.copytree(artifact_dir, copy)
    path = copy / victim
    raw = bytearray(path.read_bytes())
    i = len(raw) // 2
    raw[i] = (raw[i] + 1) % 256
    path.write_bytes(bytes(raw))
    with pytest.raises(InputError, match="modified") as err:
        open_artifact(copy)
    assert victim in str(err.value)


def test_added_or_missing_files_are_rejected(artifact_dir, tmp_path):
    copy = tmp_path / artifact_dir.name
    shutil.copytree(artifact_dir, copy)
    (copy / "index" / "extra.npy").write_bytes(b"\x00")
    with pytest.raises(InputError, match="not listed"):
        open_artifact(copy)
    (copy / "index" / "extra.npy").unlink()
    (copy / "statements.jsonl").unlink()
    with pytest.raises(InputError, match="missing"):
        open_artifact(copy)


def test_default_artifact_builds_release_and_artifact_when_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("LEMMATA_HOME", str(tmp_path / "home"))
    with pytest.raises(LemmataError, match="lemmata artifact build"):
        default_artifact(build=False)
    art = default_artifact()
    assert art.root == tmp_path / "home" / "artifacts" / artifact_id()
    assert (tmp_path / "home" / "releases" / "re2math-1.0.0" / "MANIFEST.json").is_file()
    assert default_artifact(build=False).info == art.info


def test_cli_build_search_open_verify(artifact_dir, re2math_release, tmp_path, capsys):
    from lemmata.cli import main

    assert main(["artifact", "build", "--version", "1.0.0", "--release", str(re2math_release), "--out", str(tmp_path),
                 "--quiet"]) == 0
    built = Path(capsys.readouterr().out.strip())
    assert _files(built) == _files(artifact_dir)

    cache = tmp_path / "queries.jsonl"
    assert main(["artifact", "search", "almost rigidity warped products", "--cutoff", "1997", "--artifact",
                 str(built), "--json", "--record", str(cache), "--instance", "x_gap_0"]) == 0
    result = SearchResult.model_validate_json(capsys.readouterr().out)
    assert result.artifact_id == artifact_id() and result.candidates
    assert all(c.year is None or c.year <= 1997 for c in result.candidates)
    assert cache.read_text().count("\n") == 2  # header + the recorded query

    assert main(["artifact", "search", "almost rigidity warped products", "--cutoff", "none", "-n", "3",
                 "--artifact", str(built)]) == 0
    out = capsys.readouterr().out
    assert "year cutoff none" in out and out.count("\n") == 4

    top = result.candidates[0].id
    log = tmp_path / "open.jsonl"
    assert main(["artifact", "open", top, "--artifact", str(built), "--instance", "x_gap_0", "--log", str(log)]) == 0
    assert "## Theorem-like statements" in capsys.readouterr().out
    assert json.loads(log.read_text())["record_id"] == top

    assert main(["artifact", "verify", str(built)]) == 0
    assert "every file matches" in capsys.readouterr().out
    (built / "records.jsonl").write_text("tampered\n")
    assert main(["artifact", "verify", str(built)]) == 2
    assert "records.jsonl" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["artifact", "search", "q", "--cutoff", "soon"])
