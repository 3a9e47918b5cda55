"""The offline scholarly world 2.1: one display, opaque ids, math_bib distractors, years from bibliographic sources.

The world is built once per session (``scholar_world_21`` in ``tests/conftest.py``); the display, id and
math_bib modules are tested on their own first.
"""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from lemmata.core.errors import InputError
from lemmata.release.load import open_release


# -- the display, ids and the math_bib reader on their own ------------------------------------------------


def test_one_display_makes_two_origins_of_one_work_look_the_same():
    from lemmata.benchmarks.re2math.scholar.display import display_name_surnames, display_title

    arxiv = display_title(r"Landau-de Gennes theory of nematic liquid crystals: the Oseen--Frank limit")
    cited = display_title("“LANDAU- DE GENNES THEORY OF NEMATIC LIQUID CRYSTALS: THE OSEEN -- FRANK LIMIT.”")
    assert arxiv == cited == "Landau-de gennes theory of nematic liquid crystals: the oseen-frank limit"
    assert display_title(r"Sur les op{\'e}rateurs") == display_title("Sur les opérateurs") == "Sur les opérateurs"
    assert display_name_surnames([r"Bj{\"o}rner, A.", "Łukasz Łoś", "SMITH-JONES, N."]) == \
        ["Bjorner", "Los", "Jones"]


def test_opaque_ids_are_a_fixed_permutation_unrelated_to_input_order():
    from lemmata.benchmarks.re2math.scholar.record_ids import opaque_ids

    keys = [f"arxiv:{i:05d}" for i in range(2000)] + [f"cite:{i}" for i in range(200)]
    ids = opaque_ids(keys, seed="w")
    assert ids == opaque_ids(list(reversed(keys)), seed="w")
    assert sorted(ids.values()) == [f"r{i:07d}" for i in range(len(keys))]
    # the 200 "gold" keys are spread over the whole id range, not at its start
    ranks = sorted(int(ids[f"cite:{i}"][1:]) for i in range(200))
    assert ranks[0] < 200 and ranks[-1] > 2000 and 700 < sum(ranks) / len(ranks) < 1500
    assert opaque_ids(keys, seed="other") != ids


def test_math_bib_is_read_by_sha256_and_other_bytes_are_refused(tmp_path):
    from lemmata.benchmarks.re2math.scholar.math_bib import PARQUET, ROWS, math_bib_path, read_math_bib

    rows = read_math_bib()
    assert len(rows) == ROWS and len({r.id for r in rows}) == ROWS
    assert sum(r.year is not None and r.year < 1991 for r in rows) == 1952
    src = math_bib_path()
    bad = tmp_path / PARQUET
    data = bytearray(src.read_bytes())
    data[len(data) // 2] ^= 1
    bad.write_bytes(bytes(data))
    with pytest.raises(InputError) as err:
        math_bib_path(tmp_path)
    assert "sha256 mismatch" in str(err.value) and PARQUET in str(err.value)
    with pytest.raises(InputError):
        math_bib_path(tmp_path / "missing")


# -- the world ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def world(scholar_world_21):
    from lemmata.benchmarks.re2math.scholar.world.v2_1 import open_world

    return open_world(scholar_world_21)


@pytest.fixture(scope="module")
def rows(re2math_release):
    return open_release(re2math_release).rows("full", "full")


def test_world_21_composition_and_de_duplication(world):
    c, bib = world.info.composition, world.info.bibliography
    assert world.artifact_id == "re2math-scholar-offline-2.1.0"
    assert c["bibliography_records"] == bib["kept"] > 7000 and bib["rows"] == 9303
    assert bib["kept"] + sum(bib["dropped"].values()) == bib["rows"]
    assert bib["dropped"]["cited source (title in a citation string)"] >= 20
    assert c["records"] == c["distractor_only_records"] + c["bibliography_records"] + c["cited_source_records"] + \
        c["citing_paper_records"] - c["citing_papers_also_cited"]
    assert c["cited_source_records"] > 700 and c["instances"] == 860
    assert len(world) == c["records"]


def test_a_hit_shows_five_fields_in_one_display_and_an_opening_the_full_entry(world):
    from lemmata.benchmarks.re2math.scholar.display import MAX_AUTHORS, sentence_case
    from lemmata.benchmarks.re2math.scholar.world.v2_1 import UniformHit

    assert [f.name for f in dataclasses.fields(UniformHit)] == ["id", "rank", "score", "title", "authors"]
    gold = {a.record_id for a in world.attributions()}
    step = max(1, len(world) // 20000)
    for pos in list(range(0, len(world), step)) + [world.position(g) for g in sorted(gold)]:
        hit = world.shown(pos)
        assert hit.title and hit.title == sentence_case(hit.title), hit
        assert len(hit.authors) <= MAX_AUTHORS and all(a.isascii() for a in hit.authors), hit
    bib = next(p for p in range(len(world)) if world._opened(p).venue and world._opened(p).arxiv_id is None)
    opened = world._opened(bib)
    assert f"Venue: {opened.venue}" in opened.text and opened.abstract is None
    # a hit is a frozen value: it hashes, refuses changes and unknown fields, and dumps as JSON lists
    res = world.search(opened.title, None, 3)
    hit = res.hits[0]
    assert hash(hit) == hash(dataclasses.replace(hit)) and isinstance(hit.authors, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        hit.rank = 2
    with pytest.raises(ValueError, match="year"):
        UniformHit(**dataclasses.asdict(hit), year=2001)
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        UniformHit(**{**dataclasses.asdict(hit), "rank": 0})
    dumped = json.loads(res.model_dump_json())["hits"][0]
    assert list(dumped) == ["id", "rank", "score", "title", "authors"] and dumped["authors"] == list(hit.authors)
    assert type(res).model_validate_json(res.model_dump_json()) == res


def test_ids_say_nothing_about_year_origin_or_gold(world):
    import numpy as np

    ranks = world._tie_rank
    assert sorted(ranks.tolist()) == list(range(len(world)))
    years = world._year
    known = years >= 0
    from scipy.stats import spearmanr

    rho = spearmanr(ranks[known], years[known]).statistic  # ties in years share their average rank
    assert abs(rho) < 0.01
    gold = np.asarray([world.position(a.record_id) for a in world.attributions()])
    gold_share = np.mean(ranks[np.unique(gold)] / len(world))
    assert 0.45 < gold_share < 0.55


def test_nothing_a_system_reads_in_world_21_contains_a_reference_statement(world, rows):
    from test_scholar_v2 import _statements_in

    statements = sorted({" ".join(r["y"]["reference_tool_latex"].split()) for r in rows})
    assert len(statements) > 800
    # the block-wise reading gives exactly what open() and a hit show: checked on a sample and on every gold record
    sample = set(range(0, len(world), 997)) | {world.position(a.record_id) for a in world.attributions()}
    texts = []
    for pos, rec in enumerate(world.iter_opened()):  # every record as it opens; a hit shows its title and authors
        texts.append(rec.text)
        texts.append(f"{rec.title} {' '.join(rec.authors)}")
        if pos in sample:
            hit = world.shown(pos)
            assert rec == world._opened(pos) and (hit.title, list(hit.authors)) == (rec.title, rec.authors)
    assert len(texts) == 2 * len(world)
    assert [s[:80] for s in _statements_in(texts, statements)] == []
    stored = b"".join(p.read_bytes() for p in world.root.glob("*.jsonl"))
    assert not [s for s in statements if s.encode() in stored]


def test_world_21_enforces_each_cutoff_and_breaks_ties_by_id(world, rows):
    from lemmata.benchmarks.re2math.render import render_instance

    for row in rows[:40:4]:
        q, cutoff = render_instance(row, "raw", 5), row["publication_year"]
        full = world.search(q, None, 5000)
        cut = world.search(q, cutoff, 20)
        year = {h.id: world._year[world.position(h.id)] for h in full.hits}
        expected = [h for h in full.hits if year[h.id] < 0 or year[h.id] <= cutoff][:20]
        assert [(h.id, h.score) for h in cut.hits] == [(h.id, h.score) for h in expected]
        for a, b in zip(full.hits, full.hits[1:]):
            assert (-a.score, a.id) < (-b.score, b.id)


def test_batch_search_in_forked_workers_gives_the_single_search_hits(world, rows):
    """A batch split over worker processes answers exactly what one search at a time does, in order, whatever
    the worker count (the processes share the loaded index; only positions and scores come back)."""
    from lemmata.benchmarks.re2math.render import render_instance

    queries = [(render_instance(r, "raw", 5) if i % 2 else r["x"]["anchor_hint"], r["publication_year"], 5 + i % 7)
               for i, r in enumerate(rows[:24])] + [("", None, 3), ("zzzzqx", 1995, 4)]
    single = [world.search(*q) for q in queries]
    for workers in (1, 2, 3):
        assert world.search_batch(queries, workers=workers) == single
    with pytest.raises(InputError) as err:
        world.search_batch(queries, workers=0)
    assert err.value.problems[0].field == "workers"


def test_years_come_from_bibliographic_sources_not_identifier_digits(world, rows):
    years = {}
    for a in world.attributions():
        rec = world._opened(world.position(a.record_id))
        years[rec.title] = rec.year
    frame = [y for t, y in years.items() if t.startswith("Optimal measures for p-frame energies on spheres")]
    assert frame and all(y is None or y >= 2000 for y in frame)


def test_tampered_world_21_is_refused(scholar_world_21, tmp_path):
    from lemmata.benchmarks.re2math.scholar.world.v2_1 import open_world

    copy = tmp_path / scholar_world_21.name
    shutil.copytree(scholar_world_21, copy)
    data = bytearray((copy / "records.parquet").read_bytes())
    data[len(data) // 2] ^= 1
    (copy / "records.parquet").write_bytes(bytes(data))
    with pytest.raises(InputError) as err:
        open_world(copy)
    assert "records.parquet" in str(err.value)


def test_every_world_21_manifest_field_is_bound(scholar_world_21, tmp_path):
    """Editing the 2.1 MANIFEST.json's name, version, builder, builder version or any input's name, url or sha256
    (the two input releases and the math_bib table) is refused on open, naming MANIFEST.json and the field."""
    import json

    from lemmata.benchmarks.re2math.scholar.world.v2_1 import open_world

    copy = tmp_path / scholar_world_21.name
    shutil.copytree(scholar_world_21, copy)
    path = copy / "MANIFEST.json"
    original = path.read_text("utf-8")
    assert len(json.loads(original)["sources"]) == 3
    edits = ["name", "version", "builder", "builder_version"]
    edits += [f"sources.{i}.{f}" for i in range(3) for f in ("name", "url", "sha256")]
    for dotted in edits:
        doc = json.loads(original)
        *parents, last = dotted.split(".")
        node = doc["sources"][int(parents[1])] if parents else doc
        value = node[last]
        node[last] = value[:10] + ("0" if value[10] != "0" else "1") + value[11:] if last == "sha256" else value + "x"
        path.write_text(json.dumps(doc), "utf-8")
        with pytest.raises(InputError) as err:
            open_world(copy)
        field = f"sources[{parents[1]}].{last}" if parents else last
        assert any(p.field == field and p.file.endswith("MANIFEST.json") for p in err.value.problems), (dotted, err.value)
    doc = json.loads(original)
    doc["sources"].pop()  # a world without its math_bib input
    path.write_text(json.dumps(doc), "utf-8")
    with pytest.raises(InputError) as err:
        open_world(copy)
    assert any(p.field == "sources" for p in err.value.problems)
    path.write_text(original, "utf-8")
    assert open_world(copy).info.id == copy.name


def test_world_21_build_is_the_pinned_bytes_and_a_consistent_rewrite_is_refused(scholar_world_21, tmp_path):
    """This run's build has exactly the pinned MANIFEST.json (byte-reproducible across processes, hash seeds and
    machines); a record edited with MANIFEST.json regenerated is refused by the pin, naming the field."""
    from test_scholar_v2 import rewritten_consistently

    from lemmata.benchmarks.re2math.scholar.world.v2_1.info import MANIFEST_SHA256
    from lemmata.benchmarks.re2math.scholar.world.v2_1 import open_world

    copy = rewritten_consistently(scholar_world_21, tmp_path, MANIFEST_SHA256)
    with pytest.raises(InputError) as err:
        open_world(copy)
    assert [p.field for p in err.value.problems] == ["manifest_sha256"]


def test_cli_uses_the_current_world_by_default_and_warns_on_a_superseded_one(scholar_world_21, scholar_world_22,
                                                                             scholar_artifacts, tmp_path, monkeypatch,
                                                                             capsys):
    import json

    from lemmata.cli import main

    home = tmp_path / "home"
    (home / "artifacts").mkdir(parents=True)
    (home / "artifacts" / scholar_world_22.name).symlink_to(scholar_world_22, target_is_directory=True)
    monkeypatch.setenv("LEMMATA_HOME", str(home))
    assert main(["artifact", "info", "--json"]) == 0  # no --artifact: the current world, no warning
    out = capsys.readouterr()
    assert json.loads(out.out)["id"] == "re2math-scholar-offline-2.2.0" and out.err == ""
    assert main(["artifact", "search", "Sobolev inequality", "--cutoff", "2010", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert hits and all(list(h) == ["id", "rank", "score", "title", "authors"] for h in hits)
    assert main(["artifact", "open", hits[0]["id"], "--json"]) == 0
    assert "Record: " + hits[0]["id"] in json.loads(capsys.readouterr().out)["text"]
    assert main(["artifact", "info", "--artifact", str(scholar_artifacts / "re2math-scholar-offline-2.0.0")]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "superseded by re2math-scholar-offline-2.1.0" in err
    assert main(["artifact", "info", "--artifact", str(scholar_world_21)]) == 0  # 2.1.0: superseded by 2.2.0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "superseded by re2math-scholar-offline-2.2.0 (it holds one work as two" in err
