"""The offline scholarly world 2.0 and its distractor corpus, built from the real mirror.

``math-arxiv-meta-1.0.0`` (the haystack) and ``re2math-scholar-offline-2.0.0``
(haystack + Re2Math's cited sources and citing papers): composition, one work
one record, one record shape for every origin, no reference statement in
anything a system can read, the year cutoff, tamper detection and the CLI.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from lemmata.core.errors import InputError
from lemmata.core.hashing import sha256_file
from lemmata.release.load import open_release

PARQUET = "data/default/train-00000-of-00001.parquet"


@pytest.fixture(scope="session")
def world_dir(scholar_artifacts) -> Path:
    """The session's 2.0.0 world (``conftest.scholar_artifacts``, built once per run; read-only here)."""
    return scholar_artifacts / "re2math-scholar-offline-2.0.0"


@pytest.fixture(scope="session")
def world(world_dir):
    from lemmata.benchmarks.re2math.scholar.world.v2_0 import open_world

    return open_world(world_dir)


@pytest.fixture(scope="session")
def rows(re2math_release):
    return open_release(re2math_release).rows("full", "full")


@pytest.fixture(scope="session")
def records(world_dir):
    import pyarrow.parquet as pq

    return pq.read_table(world_dir / "records.parquet").to_pydict()


# -- the distractor release ----------------------------------------------------------------------------


def test_distractor_release_is_registered_pinned_and_complete(distractor_release):
    import pyarrow.parquet as pq

    from lemmata.benchmarks.math_arxiv_meta.meta import PARQUET_SHA256, ROWS
    from lemmata.families import builder_classes
    from lemmata.families import get_benchmark

    meta = get_benchmark("math-arxiv-meta")
    assert meta.release_id == "math-arxiv-meta-1.0.0" and meta.source(
        "math_arxiv_meta_1991_2019.parquet").sha256 == PARQUET_SHA256
    assert [c.meta for c in builder_classes("math-arxiv-meta")] == [meta, get_benchmark("math-arxiv-meta-1.1.0")]
    rel = open_release(distractor_release)  # manifest verified
    assert rel.manifest.sources[0].sha256 == PARQUET_SHA256
    schema = pq.read_schema(distractor_release / PARQUET)
    assert "large_string" not in str(schema) and schema.field("year").type == "int16"
    assert b"huggingface" in schema.metadata
    table = pq.read_table(distractor_release / PARQUET, columns=["arxiv_id", "year", "abstract"])
    assert table.num_rows == ROWS
    ids = table["arxiv_id"].to_pylist()
    assert ids == sorted(ids) and len(set(ids)) == ROWS
    assert min(table["year"].to_pylist()) == 1991 and max(table["year"].to_pylist()) == 2019


def test_distractor_card_says_where_it_comes_from_and_what_it_misses(distractor_release):
    card = (distractor_release / "README.md").read_text("utf-8")
    for phrase in ("1991", "2019", "70%", "2017-03", "journal-only", "CC0", "10.5281/zenodo.1463242",
                   "HeinrichHartmann/arxiv_meta", "staeiou/arxiv_archive", "canonical remote",
                   "`lemmata publish`", "345,376"):
        assert phrase in card, phrase
    cff = (distractor_release / "CITATION.cff").read_text("utf-8")
    assert "CC0-1.0" in cff


def test_distractor_release_loads_offline_and_croissant_validates(distractor_release, tmp_path):
    import datasets
    import mlcroissant as mlc

    ds = datasets.load_dataset(str(distractor_release), split="train", cache_dir=str(tmp_path / "hf"))
    assert ds.num_rows == 345_376 and ds.features["title"].dtype == "string"
    assert ds[0]["arxiv_id"] == "0704.0002"
    doc = json.loads((distractor_release / "croissant.json").read_text("utf-8"))
    assert doc["conformsTo"] == "http://mlcommons.org/croissant/1.1"
    assert "https://creativecommons.org/publicdomain/zero/1.0/" in json.dumps(doc["license"])
    dataset = mlc.Dataset(jsonld=distractor_release / "croissant.json")
    assert not dataset.metadata.issues.errors
    first = list(itertools.islice(dataset.records("default"), 2))
    assert [r["default/arxiv_id"].decode() for r in first] == ds[:2]["arxiv_id"]


def test_distractor_build_refuses_other_bytes(tmp_path):
    from lemmata.benchmarks.math_arxiv_meta.builder import MathArxivMetaBuilder

    src = tmp_path / "mirror"
    src.mkdir()
    (src / "math_arxiv_meta_1991_2019.parquet").write_bytes(b"not the pinned file")
    with pytest.raises(InputError) as err:
        MathArxivMetaBuilder(source_dir=src).build(tmp_path / "out", quiet=True)
    assert "sha256 mismatch" in str(err.value)
    assert not (tmp_path / "out" / "math-arxiv-meta-1.0.0").exists()


def test_distractor_checks_name_row_and_field():
    import pyarrow as pa

    from lemmata.benchmarks.math_arxiv_meta.builder import check_table, record_features

    schema = record_features().arrow_schema
    good = {"arxiv_id": "0704.0001", "title": "A", "authors": ["X, Y"], "year": 2007, "created": None,
            "abstract": "a", "categories": [], "primary_category": None, "subjects": [], "msc": [], "doi": None,
            "comment": None, "sources": ["s"]}
    bad_rows = [good, {**good, "arxiv_id": "0704.0002v2", "title": " "}, {**good, "arxiv_id": "0704.0003", "year": 1990},
                {**good, "arxiv_id": "0704.0003", "authors": []}]
    problems = check_table(pa.Table.from_pylist(bad_rows, schema=schema), "f.parquet")
    where = {(p.field, p.line) for p in problems}
    assert ("arxiv_id", 2) in where and ("title", 2) in where and ("year", 3) in where
    assert ("authors", 4) in where and ("arxiv_id", 4) in where  # duplicate id on row 4
    assert all(p.file == "f.parquet" for p in problems)
    assert check_table(pa.Table.from_pylist([good], schema=schema), "f.parquet") == []


# -- composition and identity ---------------------------------------------------------------------------


def test_world_describes_its_composition(world, rows, distractor_release, re2math_release, records):
    info = world.info
    c = info.composition
    assert info.id == world.artifact_id == "re2math-scholar-offline-2.0.0"
    assert info.release_manifest_sha256 == sha256_file(re2math_release / "MANIFEST.json")
    assert info.distractor_manifest_sha256 == sha256_file(distractor_release / "MANIFEST.json")
    identities = [json.loads(line) for line in (world.root / "identity.jsonl").read_text("utf-8").splitlines()]
    assert c["records"] == len(world) == len(records["id"]) == c["distractor_only_records"] + len(identities)
    assert c["instances"] == len(rows) == 860
    assert c["citing_paper_records"] == len({r["paper_key"] for r in rows}) == 631
    assert c["bibliography_strings"] == len({(r["z"]["citation_content"], r["z"]["doi"] or "",
                                             r["z"]["arxiv_id"] or "") for r in rows})
    cited = [i for i in identities if i["citations"]]
    assert c["cited_source_records"] == len(cited) == len({a.record_id for a in world.attributions()})
    assert sum(c[f"cited_sources_matched_by_{r}"] for r in ("arxiv", "doi", "title_author")) + \
        c["cited_sources_from_citations_only"] == len(cited)
    # distractors used: every row once, either alone or as the record of a cited source / citing paper
    assert c["distractor_only_records"] + sum(1 for i in identities if i["distractor"]) == c["distractor_rows"]
    # every bibliography string lives in exactly one record
    owner = Counter(s for i in identities for s in i["citations"])
    assert set(owner) == {r["z"]["citation_content"] for r in rows} and set(owner.values()) == {1}
    assert c["records_with_abstract"] == len(records["id"]) - records["abstract"].count(None)


def test_one_work_one_record(world, records, rows):
    from lemmata.benchmarks.re2math.scholar.citations import normalize_arxiv_id

    arxiv = [a for a in records["arxiv_id"] if a]
    assert len(arxiv) == len(set(arxiv)), "two records of one arXiv id"
    by_arxiv = {a: rid for rid, a in zip(records["id"], records["arxiv_id"]) if a}
    for row in rows:
        att = world.attribution(row["instance_id"])
        # the citing paper, whatever version the release names, is the record of its version-free id
        assert by_arxiv[normalize_arxiv_id(row["paper"]["paper_id"])] == att.citing_record_id
        z_id = normalize_arxiv_id(row["z"]["arxiv_id"])
        if z_id and z_id in by_arxiv:  # a cited arXiv id in the corpus: that record, nothing else
            assert att.record_id == by_arxiv[z_id] and att.rule in ("arxiv", "none")
    for rid in {a.record_id for a in world.attributions()}:
        ident = world.identity(rid)
        if ident.distractor:  # a matched source is the distractor record itself, enriched with arXiv metadata
            opened = world.open(rid, log=world.log.__class__())
            assert opened.arxiv_id == ident.distractor and opened.abstract
    matched = Counter(a.rule for a in world.attributions())
    assert matched["title_author"] > 0 and matched["arxiv"] > 0 and matched["doi"] > 0


def test_scorer_view_identity_logging_and_beir_export(world, rows, tmp_path):
    from lemmata.formats.beir import read_corpus
    from lemmata.benchmarks.re2math.scholar.artifact import MaterialisationLog

    row = rows[0]
    att = world.attribution(row["instance_id"])
    assert world.is_cited_source(row["instance_id"], att.record_id)
    assert not world.is_cited_source(row["instance_id"], att.citing_record_id)
    assert world.is_citing_paper(row["instance_id"], att.citing_record_id)
    with pytest.raises(InputError):
        world.is_cited_source(row["instance_id"], "rec-nope")
    log = tmp_path / "open.jsonl"
    world.open(att.record_id, instance_id=row["instance_id"], log=log)
    world.open(att.citing_record_id, instance_id=row["instance_id"], log=log)
    assert [e.record_id for e in MaterialisationLog.read(log)] == [att.record_id, att.citing_record_id]
    corpus = read_corpus(world.write_beir_corpus(tmp_path / "corpus.jsonl"))
    assert len(corpus) == len(world) and corpus[att.record_id].title


# -- one shape for every record ----------------------------------------------------------------------------


def test_every_record_is_shown_in_one_shape(world, records):
    from lemmata.benchmarks.re2math.scholar.world import MAX_AUTHORS, OpenedRecord, ScholarHit, display_title, snippet

    import pyarrow.parquet as pq

    assert pq.read_schema(world.root / "records.parquet").names == \
        ["id", "title", "authors", "year", "arxiv_id", "doi", "abstract"]
    assert [f.name for f in dataclasses.fields(ScholarHit)] == \
        ["id", "rank", "score", "title", "authors", "year", "snippet"]
    assert "kind" not in OpenedRecord.model_fields
    width = {len(rid) for rid in records["id"]}
    assert len(width) == 1 and records["id"] == sorted(records["id"])
    for pos in range(len(world)):
        hit = world.shown(pos)
        assert len(hit.authors) <= MAX_AUTHORS and all(a[:1].isupper() and a[1:] == a[1:].lower()
                                                       for a in hit.authors), hit
        assert hit.snippet == snippet(hit.authors, hit.year)
        assert hit.title and display_title(hit.title) == hit.title
    # the same dumped keys whatever the origin: a gold record's hit and a distractor's hit
    gold = world.attribution(world.attributions()[0].instance_id).record_id
    res = world.search(world.shown(world.position(gold)).title, None, 50)
    kinds = {tuple(h) for h in res.model_dump()["hits"]}
    assert len(kinds) == 1 and gold in {h.id for h in res.hits} and len(res.hits) > 1


def _statements_in(texts: list[str], statements: list[str]) -> list[str]:
    """The statements (whitespace-normalised) that occur in any of ``texts``, in the order given.

    A statement inside a text brings each of its inner words (every word but the first and last, which may be
    glued to neighbours) into that text as a whole word. So one pass over the texts lists, for one inner word of
    each statement (its longest), the texts holding it; a statement is then searched for, as a substring, only in
    those texts (in every text when it has no inner word). Every statement is checked against every text that
    could hold it.
    """
    key = {s: max(words, key=len) for s in statements if (words := s.split()[1:-1])}
    wanted = set(key.values())
    holding: dict[str, list[int]] = {}
    normalised = []
    for i, text in enumerate(texts):  # one split a text: its words, and the text re-joined from them
        words = text.split()
        normalised.append(" ".join(words))
        for w in wanted.intersection(words):
            holding.setdefault(w, []).append(i)
    texts = normalised
    every = range(len(texts))
    return [s for s in statements if any(s in texts[i] for i in (holding.get(key[s], ()) if s in key else every))]


def test_nothing_a_system_reads_contains_a_reference_statement(world, rows, scholar_artifacts, tmp_path):
    from lemmata.benchmarks.re2math.scholar.artifact import open_artifact
    from lemmata.benchmarks.re2math.scholar.world.view import snippet

    statements = sorted({" ".join(r["y"]["reference_tool_latex"].split()) for r in rows})
    assert len(statements) > 800 and min(len(s) for s in statements) >= 20
    # the check finds what 1.0.0 served: its openings carry the statements (the run's 1.0.0 build)
    old = open_artifact(scholar_artifacts / "re2math-scholar-offline-1.0.0")
    old_texts = [old.materialise(r.id, log=tmp_path / "log.jsonl").text for r in old.records]
    assert len(_statements_in(old_texts, statements)) == len(statements)
    # every record, opened, and what its hit shows (title and byline; the hit itself compared on a sample and on
    # every gold record)
    sample = set(range(0, len(world), 997)) | {world.position(a.record_id) for a in world.attributions()}
    texts = []
    for pos, rec in enumerate(world.iter_opened()):
        texts.append(rec.text)
        texts.append(f"{rec.title} {snippet(rec.authors, rec.year)}")
        if pos in sample:
            hit = world.shown(pos)
            assert (hit.title, hit.snippet) == (rec.title, snippet(rec.authors, rec.year))
    assert len(texts) == 2 * len(world)
    assert [s[:80] for s in _statements_in(texts, statements)] == []
    # nothing of y is stored in the artifact folder at all
    stored = b"".join(p.read_bytes() for p in world.root.glob("*.jsonl"))
    assert not [s for s in statements if s.encode() in stored]


# -- search ---------------------------------------------------------------------------------------------------


def test_year_cutoff_scores_exactly_the_records_of_its_years(world, rows):
    from lemmata.benchmarks.re2math.render import render_instance

    for row in rows[:40:4]:
        q, cutoff = render_instance(row, "raw", 5), row["publication_year"]
        full = world.search(q, None, 5000)
        cut = world.search(q, cutoff, 20)
        expected = [h for h in full.hits if h.year is None or h.year <= cutoff][:20]
        assert [(h.id, h.score) for h in cut.hits] == [(h.id, h.score) for h in expected]
        assert all(h.year is None or h.year <= cutoff for h in cut.hits)
    unknown = [p for p in range(len(world)) if world.shown(p).year is None]
    assert unknown, "the release has sources of unknown year"
    title = world.shown(unknown[0]).title
    assert world.shown(unknown[0]).id in {h.id for h in world.search(title, 1950, 20).hits}
    scores = [h.score for h in world.search("spectral gap of random graphs", 2015, 50).hits]
    assert scores == sorted(scores, reverse=True)


def test_batch_search_gives_the_single_search_hits(world, rows):
    queries = [(r["x"]["anchor_hint"], r["publication_year"], 10) for r in rows[:50]]
    assert [r.hits for r in world.search_batch(queries)] == [world.search(*q).hits for q in queries]
    with pytest.raises(InputError) as err:
        world.search_batch([("a", None, 5), ("b", None, 0)])
    assert err.value.problems[0].line == 2 and err.value.problems[0].field == "n"


def rewritten_consistently(built: Path, tmp_path: Path, pin: str) -> Path:
    """A copy of a built world with one record edited and MANIFEST.json regenerated with the same fields, after
    checking that the build has exactly the pinned MANIFEST.json (so every per-file check passes on the copy)."""
    from lemmata.release.manifest import read_manifest, write_manifest

    assert sha256_file(built / "MANIFEST.json") == pin
    copy = tmp_path / built.name
    shutil.copytree(built, copy)
    fields = read_manifest(copy).model_dump(exclude={"files", "schema_version"})
    path = copy / "attributions.jsonl"
    path.write_bytes(path.read_bytes().replace(b'"citing_record_id"', b'"citing_record_id" ', 1))
    write_manifest(copy, **fields)
    return copy


def test_build_is_the_pinned_bytes_and_a_consistent_rewrite_is_refused(world_dir, tmp_path):
    """The build is byte-reproducible: this run's build (another process, another hash seed, another day than the
    build the pin was taken from) has exactly the pinned MANIFEST.json, which lists every file's sha256. A folder
    rewritten consistently — a record edited and MANIFEST.json regenerated with the same fields — passes every
    per-file check and is refused by the pin, naming MANIFEST.json and the field."""
    from lemmata.benchmarks.re2math.scholar.world.v2_0 import open_world
    from lemmata.benchmarks.re2math.scholar.world.v2_0.info import MANIFEST_SHA256

    copy = rewritten_consistently(world_dir, tmp_path, MANIFEST_SHA256)
    with pytest.raises(InputError) as err:
        open_world(copy)
    [problem] = [p for p in err.value.problems if p.field == "manifest_sha256"]
    assert problem.file.endswith("MANIFEST.json") and "not the pinned" in problem.reason
    assert open_world(copy, verify=False).info.id == world_dir.name  # unverified opens are the caller's choice


# -- tampering and 1.0.0 -------------------------------------------------------------------------------------


@pytest.mark.parametrize("victim", ["attributions.jsonl", "records.parquet", "ARTIFACT.json", "extra.txt"])
def test_tampering_is_detected_on_open(world_dir, tmp_path, victim):
    from lemmata.benchmarks.re2math.scholar.world.v2_0 import open_world

    copy = tmp_path / world_dir.name
    shutil.copytree(world_dir, copy)
    path = copy / victim
    if victim == "extra.txt":
        path.write_text("unlisted\n")
    else:
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 1
        path.write_bytes(bytes(data))
    with pytest.raises(InputError) as err:
        open_world(copy)
    assert victim in str(err.value)


def test_every_world_manifest_field_is_bound(world_dir, tmp_path):
    """Editing the world MANIFEST.json's name, version, builder, builder version or an input release's sha256,
    url or name is refused on open, naming MANIFEST.json and the field."""
    from lemmata.benchmarks.re2math.scholar.world.v2_0 import open_world

    copy = tmp_path / world_dir.name
    shutil.copytree(world_dir, copy)
    path = copy / "MANIFEST.json"
    original = path.read_text("utf-8")
    edits = [("name", None), ("version", None), ("builder", None), ("builder_version", None)]
    edits += [(f"sources.{i}.{f}", None) for i in range(2) for f in ("name", "url", "sha256")]
    for dotted, _ in edits:
        doc = json.loads(original)
        *parents, last = dotted.split(".")
        node = doc
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        value = node[last]
        node[last] = value[:10] + ("0" if value[10] != "0" else "1") + value[11:] if last == "sha256" else value + "x"
        path.write_text(json.dumps(doc), "utf-8")
        with pytest.raises(InputError) as err:
            open_world(copy)
        field = f"sources[{parents[1]}].{last}" if parents else last
        assert any(p.field == field and p.file.endswith("MANIFEST.json") for p in err.value.problems), (dotted, err.value)
    path.write_text(original, "utf-8")
    assert open_world(copy).info.id == copy.name


def test_version_1_still_opens_and_names_its_successor(scholar_artifacts):
    from lemmata.benchmarks.re2math.scholar.artifact import artifact_id, open_artifact
    from lemmata.benchmarks.re2math.scholar.backends import open_backend
    from lemmata.benchmarks.re2math.scholar.world import WorldBackend

    old = open_artifact(scholar_artifacts / artifact_id())
    assert old.info.version == "1.0.0" and old.info.superseded_by == "re2math-scholar-offline-2.0.0"
    assert open_backend(old.root).artifact_id == "re2math-scholar-offline-1.0.0"
    info = json.loads((old.root / "ARTIFACT.json").read_text())
    info.pop("superseded_by")  # an artifact built before 2.0.0 existed still validates
    from lemmata.benchmarks.re2math.scholar.artifact import ArtifactInfo

    assert ArtifactInfo.model_validate(info).superseded_by is None
    assert not isinstance(open_backend(old.root), WorldBackend)


def test_world_records_into_a_query_cache(world_dir, tmp_path):
    from lemmata.benchmarks.re2math.scholar.backends import open_backend
    from lemmata.benchmarks.re2math.scholar.querycache import ReplayBackend, RecordingBackend

    backend = open_backend(world_dir)
    rec = RecordingBackend(backend, tmp_path / "cache.jsonl")
    first = rec.search("Brascamp-Lieb constant", 2018, 5, instance_id="x_gap_0")
    assert {c.kind for c in first.candidates} == {"scholar_result"}
    assert all(c.arxiv_id is None and c.doi is None and not c.variants for c in first.candidates)
    replay = ReplayBackend.open(tmp_path / "cache.jsonl")
    assert replay.search("Brascamp-Lieb constant", 2018, 5).ids() == first.ids()


# -- CLI --------------------------------------------------------------------------------------------------------


def test_cli_info_batch_search_and_open(world_dir, world, tmp_path, capsys):
    from lemmata.cli import main

    assert main(["artifact", "info", "--artifact", str(world_dir), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["id"] == "re2math-scholar-offline-2.0.0" and info["records"] == len(world)
    assert info["composition"]["citing_paper_records"] == 631 and info["backend"]["k1"] == 1.5
    assert main(["artifact", "info", "--artifact", str(world_dir)]) == 0
    assert "cited_source_records" in capsys.readouterr().out

    batch = tmp_path / "q.jsonl"
    batch.write_text('{"query": "Brascamp-Lieb constant", "cutoff": 2018, "n": 3}\n\n'
                     '{"query": "tropical Hodge theory", "cutoff": null}\n', encoding="utf-8")
    assert main(["artifact", "search", "--batch", str(batch), "--json", "--artifact", str(world_dir)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    first = json.loads(lines[0])
    assert first == world.search("Brascamp-Lieb constant", 2018, 3).model_dump(mode="json")
    assert json.loads(lines[1])["n"] == 20 and json.loads(lines[1])["cutoff"] is None

    batch.write_text('{"query": "ok", "cutoff": 2000}\n{"query": 3, "cutoff": 2000}\n{"cutoff": "2000", "x": 1}\n'
                     '[1]\n{"query": "unclosed\n')
    assert main(["artifact", "search", "--batch", str(batch), "--json", "--artifact", str(world_dir)]) == 2
    err = capsys.readouterr().err
    for where in ("line 2, field 'query'", "line 3, field 'query'", "line 3, field 'cutoff'", "line 3, field 'x'",
                  "line 4: expected a JSON object", "line 5: malformed JSON"):
        assert where in err, where
    assert "line 1" not in err
    assert main(["artifact", "search", "--batch", str(batch), "--artifact", str(world_dir)]) == 2  # needs --json
    assert "--json" in capsys.readouterr().err

    ids = [h.id for h in world.search("Brascamp-Lieb constant", 2018, 2).hits]
    log = tmp_path / "open.jsonl"
    assert main(["artifact", "open", *ids, "--artifact", str(world_dir), "--json", "--log", str(log)]) == 0
    opened = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [o["id"] for o in opened] == ids and all("kind" not in o for o in opened)
    assert [json.loads(line)["record_id"] for line in log.read_text().splitlines()] == ids
    assert main(["artifact", "open", ids[0], "rec-missing", "--artifact", str(world_dir), "--log", str(log)]) == 2
    assert log.read_text().count("\n") == 2  # nothing opened when one id is unknown


def test_cli_batch_search_with_a_killed_worker_is_one_error(world_dir, tmp_path, capsys, monkeypatch):
    """A forked batch-search worker killed mid-batch (SIGKILL, as the out-of-memory killer does) ends the command
    with one sentence and exit status 1, no traceback and no partial output."""
    import os
    import signal

    from lemmata.benchmarks.re2math.scholar.world import ScholarWorld, parallel
    from lemmata.cli import main
    from lemmata.retrievers.bm25 import Postings

    parent, top = os.getpid(), ScholarWorld._top

    def dying(self, query, cutoff, n):
        if os.getpid() != parent:  # in a forked worker only
            os.kill(os.getpid(), signal.SIGKILL)
        return top(self, query, cutoff, n)

    monkeypatch.setattr(ScholarWorld, "_top", dying)
    monkeypatch.setattr(Postings, "compiled", False)  # the forked path (a compiled index ranks on threads)
    for name, value in (("PROBE", 1), ("MIN_PER_WORKER", 1), ("MIN_FORKED_SECONDS", 0.0)):
        monkeypatch.setattr(parallel, name, value)
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    batch = tmp_path / "q.jsonl"
    batch.write_text("".join(json.dumps({"query": f"spectral gap {i}", "cutoff": 2018, "n": 3}) + "\n"
                             for i in range(8)), encoding="utf-8")
    assert main(["artifact", "search", "--batch", str(batch), "--json", "--artifact", str(world_dir)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    *warnings, last = err.splitlines()  # (the 2.0.0 world's superseded notice first)
    assert all(w.startswith("warning: ") for w in warnings)
    assert last.startswith("error: batch search: a worker process ranking ")
    assert "died (killed, or out of memory)" in last


def test_cli_help_covers_every_argument():
    import argparse

    from lemmata.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices["artifact"]
    actions = next(a for a in sub._actions if isinstance(a, argparse._SubParsersAction))
    for name, p in actions.choices.items():
        assert any(c.dest == name for c in actions._choices_actions) and \
            next(c for c in actions._choices_actions if c.dest == name).help, name
        for a in p._actions:
            if not isinstance(a, argparse._HelpAction):
                assert a.help, f"artifact {name} {a.dest} has no help"
