"""The Re²Math source-retrieval track: world records as the corpus, proof states as queries, cited sources as qrels.

Built from the real release and the real worlds: 2.0.0 and 2.1.0 (the session's ``scholar_artifacts`` and
``scholar_world_21``, linked into the test home), whose runs keep validating and scoring in their own group, and the
current 2.2.0 (the session's ``scholar_world_22``, linked into the test home), which new runs rank.
"""

from __future__ import annotations

import json
import types

import jsonschema
import numpy as np
import pytest

from lemmata.benchmarks.re2math.render import render_instance
from lemmata.benchmarks.re2math.source.retrieval import (
    SOURCE_BENCHMARK, SPLITS, default_source_track, make_source_track, query_split, write_beir,
)
from lemmata.core.errors import InputError, LemmataError
from lemmata.core.hashing import sha256_file
from lemmata.scoring import validate_upload
from lemmata.release.load import open_release
from lemmata.scoring import score_file
from lemmata.store import Store

WORLD = "re2math-scholar-offline-2.0.0"
WORLD_21 = "re2math-scholar-offline-2.1.0"
WORLD_22 = "re2math-scholar-offline-2.2.0"


def _linked(world: str, built) -> None:
    """The session's built world linked into this worker's test home, unless a world is there already."""
    from lemmata.core.paths import artifacts_dir

    home = artifacts_dir() / world
    if not home.exists():
        home.parent.mkdir(parents=True, exist_ok=True)
        home.symlink_to(built, target_is_directory=True)


@pytest.fixture(scope="module")
def track(scholar_artifacts):
    """The track over 2.0.0: the session's world (``conftest.scholar_artifacts``), linked into the test home."""
    _linked(WORLD, scholar_artifacts / WORLD)
    return default_source_track(world_id=WORLD)


@pytest.fixture(scope="module")
def track_21(scholar_world_21):
    """The track over 2.1.0 (superseded): the session's 2.1 world, linked into the test home."""
    _linked(WORLD_21, scholar_world_21)
    return default_source_track(world_id=WORLD_21)


@pytest.fixture(scope="module")
def track_22(scholar_world_22):
    """The track over the current world: the session's 2.2 world, linked into the test home when not built there."""
    _linked(WORLD_22, scholar_world_22)
    return default_source_track()


@pytest.fixture(scope="module")
def world(track):
    from lemmata.benchmarks.re2math.scholar.worlds import current_world

    return current_world(build=False, version="2.0.0")


@pytest.fixture(scope="module")
def release(re2math_release):
    from lemmata.benchmarks.re2math.meta import RE2MATH
    from lemmata.catalog import release_path

    return open_release(release_path(RE2MATH))


def _header(**over):
    header = {"format": "lemmata-submission/1", "benchmark": SOURCE_BENCHMARK, "release": "re2math-1.0.0",
              "corpus": WORLD, "split": "eval200/test", "track": "raw", "model": {"name": "hand-made"},
              "flags": {"tuned_on_track_data": False, "used_external_data": False}}
    header.update(over)
    return header


def _bytes(header, records) -> bytes:
    return ("\n".join(json.dumps(x) for x in [header, *records]) + "\n").encode("utf-8")


# -- the collection ---------------------------------------------------------------------------------------------

def test_corpus_is_every_world_record_in_the_shape_a_hit_shows(track, world):
    assert track.world_id == WORLD and len(track.doc_ids) == len(world) == 346_409
    assert len(set(track.doc_ids)) == len(track.doc_ids)
    for pos in (0, 1_000, 200_000, len(world) - 1):
        opened = world._opened(pos)  # the record as it opens: title and authors are what the corpus holds
        assert track.doc_ids[pos] == opened.id and track.titles[pos] == opened.title
        assert track.authors[pos] == " ".join(opened.authors)
    assert track.doc_texts()[5] == f"{track.titles[5]}\n{track.authors[5]}"


def test_queries_mirror_the_release_splits_and_render_with_window_5(track, release):
    assert {s: len(track.queries[s]) for s in SPLITS} == {"test": 200, "train": 466, "dev": 135}
    for split, (config, rsplit) in SPLITS.items():
        rows = release.rows(config, rsplit)
        assert [q["_id"] for q in track.queries[split]] == [r["instance_id"] for r in rows]
        for q, r in zip(track.queries[split][:20], rows[:20]):
            assert q["text_raw"] == render_instance(r, "raw", 5)
            assert q["text_assisted"] == render_instance(r, "assisted", 5)
    assert query_split("eval200/test") == "test" and query_split("pool/dev") == "dev"
    with pytest.raises(ValueError, match="unknown split"):
        query_split("retrieval_queries/test")


def test_qrels_are_exactly_the_cited_sources_record(track, world):
    citing_hits = 0
    for split in SPLITS:
        qrels = track.qrels_of(split)
        assert list(qrels) == [q["_id"] for q in track.queries[split]]
        for qid, rel in qrels.items():
            ((rid, grade),) = rel.items()  # one work, one record: exactly one relevant record
            assert grade == 1 and world.is_cited_source(qid, rid)
            citing_hits += world.is_citing_paper(qid, rid)
    assert citing_hits == 0  # a gap never cites its own paper
    # gold is spread over the corpus, not bunched where the haystack is absent
    gold = {q["corpus-id"] for q in track.qrels["test"]}
    positions = sorted(track.doc_ids.index(g) for g in list(gold)[:20])
    assert positions[-1] - positions[0] > 100_000


def test_a_world_built_from_other_release_bytes_is_refused(world, release, tmp_path):
    (tmp_path / "MANIFEST.json").write_text("{}", encoding="utf-8")
    other = types.SimpleNamespace(release_id=release.release_id, root=tmp_path, rows=release.rows)
    with pytest.raises(LemmataError, match="other bytes"):
        make_source_track(world, other)
    with pytest.raises(LemmataError, match="not from re2math-9.9.9"):
        make_source_track(world, types.SimpleNamespace(release_id="re2math-9.9.9", root=tmp_path, rows=None))


def test_the_current_world_is_the_default_and_its_qrels_count_same_work_twins(track_22, release):
    from lemmata.benchmarks.re2math.scholar.worlds import current_world

    world = current_world(build=False)
    assert track_22.world_id == WORLD_22 and len(track_22.doc_ids) == len(world) == 347_532
    assert {s: len(track_22.queries[s]) for s in SPLITS} == {"test": 200, "train": 466, "dev": 135}
    twins = 0
    for split in SPLITS:
        for qid, rel in track_22.qrels_of(split).items():
            ((rid, grade),) = rel.items()  # one work, one record: a same-work twin is that record
            assert grade == 1 and world.is_cited_source(qid, rid)
            if world.attribution(qid).rule in ("title_year", "same_work"):  # the cited work's arXiv twin
                assert world.identity(rid).distractor is not None
                twins += 1
    assert twins >= 3  # among them the three Eval-200 instances whose cited works stood apart in 2.0.0
    assert track_22.queries["test"] == default_source_track(world_id=WORLD).queries["test"]


# -- runs: validation, scoring, schema ----------------------------------------------------------------------------

def test_a_tiny_run_validates_and_scores(track, tmp_path):
    gold = {q["query-id"]: q["corpus-id"] for q in track.qrels["test"]}
    qids = list(gold)
    wrong = track.doc_ids[0] if track.doc_ids[0] not in gold.values() else track.doc_ids[1]
    records = [{"query_id": q, "ranking": [{"doc_id": gold[q] if i % 2 == 0 else wrong, "score": 1.0}]}
               for i, q in enumerate(qids[:100])]  # 50 right at rank 1, 50 wrong, 100 queries left out
    path = tmp_path / "run.jsonl"
    path.write_bytes(_bytes(_header(), records))
    result = score_file(path, Store(tmp_path / "store"))
    assert result.benchmark == SOURCE_BENCHMARK and result.status == "complete"
    assert result.metrics["recall@1"]["mean"] == pytest.approx(50 / 200)
    assert result.metrics["judged_queries"] == 200 and result.metrics["missing_queries"] == 100
    assert result.frozen.dataset_release == "re2math-1.0.0" and result.frozen.split == "eval200/test"
    assert result.frozen.retrieval_artifact == WORLD
    assert result.frozen.scoring_artifact.startswith(f"qrels:{WORLD}/attributions/eval200/test; ")
    assert any("no year cutoff" in n for n in result.notes)

    schema = json.loads((_root() / "submissions/schema/re2math-source-retrieval-run.schema.json").read_text("utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    for line in path.read_text("utf-8").splitlines():
        assert not list(validator.iter_errors(json.loads(line)))
    assert list(validator.iter_errors(_header(corpus="re2math-scholar-offline-1.0.0")))
    assert list(validator.iter_errors(_header(split="pool/train")))


def test_runs_on_each_world_score_in_their_own_group(track, track_21, track_22, tmp_path):
    """A run names its world; 2.0.0, 2.1.0 and 2.2.0 runs score against their own qrels under their own frozen
    tuple. Only a 2.0.0 result stores its successor (as it always did); a 2.1.0 result is what it was while 2.1.0
    was current, and the board reads its badge from the registry."""
    from lemmata.space.tables import superseded_badge

    results = {}
    for world, tr in ((WORLD, track), (WORLD_21, track_21), (WORLD_22, track_22)):
        gold = {q["query-id"]: q["corpus-id"] for q in tr.qrels["test"]}
        records = [{"query_id": q, "ranking": [{"doc_id": g, "score": 1.0}]} for q, g in gold.items()]
        path = tmp_path / f"{world}.jsonl"
        path.write_bytes(_bytes(_header(corpus=world), records))
        results[world] = score_file(path, Store(tmp_path / "store"))
        assert results[world].metrics["recall@1"]["mean"] == 1.0
        assert results[world].frozen.retrieval_artifact == world
        assert results[world].frozen.scoring_artifact.startswith(f"qrels:{world}/attributions/eval200/test; ")
    assert len({results[w].frozen.group_key() for w in results}) == 3
    # 2.0.0 is superseded by 2.1.0 (scholar.worlds.WORLDS): its runs carry the flag the board shows as a badge
    assert results[WORLD].flags["superseded_by"] == WORLD_21 and "superseded_by" not in results[WORLD_21].flags
    assert [w for w, r in results.items() if superseded_badge(r.flags, r.frozen.retrieval_artifact)] == [
        WORLD, WORLD_21]
    # record ids belong to one world: 2.1.0 ids are unknown documents of 2.0.0 and the reverse
    crossed = [{"query_id": track.queries["test"][0]["_id"], "ranking": [{"doc_id": track_21.doc_ids[0], "score": 1.0}]}]
    with pytest.raises(InputError, match="unknown document"):
        validate_upload(_bytes(_header(), crossed), "run.jsonl")


def test_a_broken_run_is_refused_with_line_and_field(track):
    qid = track.queries["test"][0]["_id"]
    good = {"query_id": qid, "ranking": [{"doc_id": track.doc_ids[3], "score": 2.0}]}
    bad = {"query_id": qid, "ranking": [{"doc_id": "thm-0000000000000000", "score": 1.0}]}
    with pytest.raises(InputError) as exc:
        validate_upload(_bytes(_header(), [{**good, "query_id": track.queries["test"][1]["_id"]}, bad]), "run.jsonl")
    (problem,) = exc.value.problems
    assert (problem.line, problem.field) == (3, "ranking[0].doc_id") and "unknown document" in problem.reason
    for field, value in (("corpus", "re2math-scholar-offline-1.0.0"), ("split", "pool/train"), ("track", "oracle")):
        with pytest.raises(InputError) as exc:
            validate_upload(_bytes(_header(**{field: value}), [good]), "run.jsonl")
        assert any(p.line == 1 and p.field == f"header.{field}" for p in exc.value.problems), field
    with pytest.raises(InputError, match="not served"):
        validate_upload(_bytes(_header(release="re2math-9.0.0"), [good]), "run.jsonl")


def test_schema_is_current_and_names_the_track():
    from lemmata.formats.schema import stale_schemas
    from lemmata.families import schema_files

    files = [f for f in schema_files() if f.filename == "re2math-source-retrieval-run.schema.json"]
    assert len(files) == 1
    assert stale_schemas(files, _root() / "submissions" / "schema") == []


def test_hybrid_on_score_arrays_equals_list_fusion():
    from lemmata.retrievers.baseline import HybridIndex
    from lemmata.retrievers.fusion import reciprocal_rank_fusion

    rng = np.random.default_rng(3)
    words = ["graph", "spectral", "gap", "manifold", "ricci", "flow", "prime", "sieve", "operator", "norm"]
    texts = [" ".join(rng.choice(words, size=rng.integers(1, 6))) for _ in range(300)]
    ids = [f"d{i:04d}" for i in rng.permutation(300)]  # ids not in corpus order: ties must break by id
    index = HybridIndex(ids, texts)
    queries = ["spectral gap of a graph", "ricci flow", "zzz unknown", "prime sieve norm operator"]
    fused = index.search_many(queries, 50)
    bm25, static = index.parts
    for q, got in zip(queries, fused):
        expected = reciprocal_rank_fusion([bm25.search(q, None), static.search(q, None)], 50)
        assert got == expected  # bit-identical scores, same order


# -- baselines and the CLI ----------------------------------------------------------------------------------------

def test_shipped_example_is_what_evaluate_writes(worlds_in_home, track_22, tmp_path):
    """The Submit tab's example run is ``lemmata evaluate --model bm25 --depth 10`` on raw-masked, byte for byte.

    It sits beside the CLI baseline below: both index the world's records, which BM25 indexes once per process.
    """
    from lemmata.harness.evaluate import evaluate
    from test_ranking_examples import SOURCE_EXAMPLE, assert_shipped

    ((example, (selector, name)),) = SOURCE_EXAMPLE.items()
    (run,) = evaluate("bm25", [selector], out=tmp_path, depth=10, quiet=True)
    assert run.path.name == name
    assert_shipped(example, run)
    assert json.loads(run.path.read_text("utf-8").splitlines()[0])["corpus"] == WORLD_22  # the current world


def test_bm25_baseline_through_the_cli_scores_well_above_chance(track_22, tmp_path, capsys):
    from lemmata.cli import main

    store = tmp_path / "store"
    assert main(["baselines", "run", "source-retrieval", "--retriever", "bm25", "--variant", "assisted",
                 "--split", "dev", "--depth", "20", "--out", str(tmp_path / "runs"), "--store", str(store)]) == 0
    assert "re2math-source-retrieval" in capsys.readouterr().out
    (row,) = Store(store).result_rows()
    result = Store(store).get_result(row["result_id"])
    assert result.frozen.split == "pool/dev" and result.metrics["judged_queries"] == 135
    assert result.metrics["recall@10"]["mean"] > 100 * 10 / len(track_22.doc_ids)  # chance is 10 / 347,532
    assert result.frozen.retrieval_artifact == WORLD_22  # new runs rank the current world
    header = json.loads((tmp_path / "runs" / f"{SOURCE_BENCHMARK}.dev.assisted.bm25.jsonl").read_text("utf-8")
                        .splitlines()[0])
    assert header["corpus"] == WORLD_22 and header["system"]["retriever"] == "bm25"


def test_cli_export_beir_loads_with_datasets_and_hashes_match(track, tmp_path, capsys):
    from datasets import load_dataset

    from lemmata.cli import main

    out = tmp_path / "beir"
    assert main(["artifact", "export-beir", "--out", str(out), "--version", "2.0.0"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert f"{out}/corpus.jsonl" in printed and f"{out}/qrels/test.tsv" in printed
    card = (out / "README.md").read_text("utf-8")
    assert WORLD in card and "No year cutoff applies" in card
    for name in ("corpus.jsonl", "queries/test.jsonl", "qrels/dev.tsv"):
        assert f"| `{name}` | `{sha256_file(out / name)}` |" in card
    first = json.loads((out / "corpus.jsonl").open(encoding="utf-8").readline())
    assert set(first) == {"_id", "title", "text"}  # no year, no abstract
    qrels = load_dataset(str(out), "qrels", split="test")
    assert qrels.num_rows == 200 and set(qrels.column_names) == {"query-id", "corpus-id", "score"}
    assert {(r["query-id"], r["corpus-id"]) for r in qrels} == {(q["query-id"], q["corpus-id"])
                                                                for q in track.qrels["test"]}
    queries = load_dataset(str(out), "queries", split="dev")
    assert queries.num_rows == 135 and queries[0]["text_assisted"] == track.queries["dev"][0]["text_assisted"]
    assert write_beir(track, tmp_path / "again") and \
        sha256_file(tmp_path / "again" / "README.md") == sha256_file(out / "README.md")  # deterministic


def test_masked_variants_are_the_default_and_rank_apart(track, track_22, release, tmp_path):
    """New runs rank for queries whose own cite key reads \\cite{?}; the unmasked variants stay, named only."""
    from lemmata.harness.evaluate import resolve_tasks

    rows = release.rows("eval200", "test")
    for q, r in zip(track_22.queries["test"], rows):
        assert q["text_raw_masked"] == render_instance(r, "raw", 5, mask_target_cite=True)
        assert q["text_assisted_masked"] == render_instance(r, "assisted", 5, mask_target_cite=True)
    differ = {v: sum(q[f"text_{v}"] != q[f"text_{v}_masked"] for q in track_22.queries["test"])
              for v in ("raw", "assisted")}
    assert differ == {"raw": 28, "assisted": 28}  # the Eval-200 inputs that carry their own key
    name = SOURCE_BENCHMARK
    assert [t.name for t in resolve_tasks([name], year_cutoff=False)] == [f"{name}:raw-masked",
                                                                           f"{name}:assisted-masked"]
    assert [t.name for t in resolve_tasks([f"{name}:raw"], year_cutoff=False)] == [f"{name}:raw"]
    gold = {q["query-id"]: q["corpus-id"] for q in track.qrels["test"]}
    records = [{"query_id": q, "ranking": [{"doc_id": g, "score": 1.0}]} for q, g in gold.items()]
    results = {}
    for variant in ("raw", "raw-masked"):
        path = tmp_path / f"{variant}.jsonl"
        path.write_bytes(_bytes(_header(track=variant), records))
        results[variant] = score_file(path, Store(tmp_path / "store"))
    assert results["raw-masked"].track == "raw-masked" and results["raw"].track == "raw"  # two board tables
    assert results["raw-masked"].flags["cite_keys"] == "masked" and "cite_keys" not in results["raw"].flags


def _root():
    from pathlib import Path

    return Path(__file__).resolve().parents[4]
