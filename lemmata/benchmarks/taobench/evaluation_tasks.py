"""TaoBench equivalence as model-run tasks: each statement ranks the other framework's statements (both releases,
both directions)."""

from __future__ import annotations

from lemmata.tracks.model_runs import Part, RankingTask


def equivalence_task(release: str, direction: str) -> RankingTask:
    from lemmata.benchmarks.taobench.equivalence import CONFIG, EQUIVALENCE_BENCHMARK, SPLIT, load_track
    from lemmata.benchmarks.taobench.meta import RELEASES
    from lemmata.catalog import release_path

    meta = next(m for m in RELEASES if m.name == release or m.release_id == release)
    track = load_track(release_path(meta), direction)
    return RankingTask(name=f"{EQUIVALENCE_BENCHMARK}:{meta.name}/{direction}",
                       header={"benchmark": EQUIVALENCE_BENCHMARK, "release": meta.release_id,
                               "split": f"{CONFIG}/{SPLIT}", "track": direction},
                       parts=[Part(doc_ids=track.doc_ids, doc_texts=track.doc_texts,
                                   queries={q["_id"]: q["text"] for q in track.queries})],
                       filename=f"{EQUIVALENCE_BENCHMARK}.{meta.name}.{direction}")


def tasks(name: str = "taobench-equivalence", **_: object) -> list[RankingTask]:
    from lemmata.benchmarks.taobench.equivalence import DIRECTIONS
    from lemmata.benchmarks.taobench.meta import RELEASES

    return [equivalence_task(m.name, d) for m in RELEASES for d in DIRECTIONS]
