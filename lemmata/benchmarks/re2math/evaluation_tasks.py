"""Re²Math's ranking tracks as model-run tasks: theorem retrieval and source retrieval over the offline world.

Source retrieval ranks every record of the current offline world (the default
world; a superseded one is never used). With ``year_cutoff`` (the default of
``lemmata evaluate``) each query's cutoff — the world's attribution of the
instance, the one its recorded searches use — is applied exactly, as a filter:
a record dated after it is never ranked for that query (undated records always
may be). The published baselines were run without it and keep that protocol
(``year_cutoff=False``); the header's ``system`` says which applied.
"""

from __future__ import annotations

from lemmata.tracks.model_runs import Part, RankingTask

YEAR_CUTOFF_RULE = "world attribution year_cutoff; records dated after it are never ranked (undated always may be)"


def theorem_task(split: str = "test", variant: str = "raw") -> RankingTask:
    """One theorem-retrieval submission: the release's statements ranked for each rendered proof state."""
    from lemmata.benchmarks.re2math.meta import RE2MATH
    from lemmata.benchmarks.re2math.theorem.retrieval import QUERIES_CONFIG, THEOREM_BENCHMARK, load_track
    from lemmata.catalog import release_path

    doc_ids, texts, queries, _ = load_track(release_path(RE2MATH), split, variant)
    return RankingTask(name=f"{THEOREM_BENCHMARK}:{variant}",
                       header={"benchmark": THEOREM_BENCHMARK, "release": RE2MATH.release_id,
                               "split": f"{QUERIES_CONFIG}/{split}", "track": variant},
                       parts=[Part(doc_ids=doc_ids, doc_texts=texts, queries=queries)],
                       filename=f"{THEOREM_BENCHMARK}.{split}.{variant}")


def record_years(world) -> "object":
    """Each record's year as an int64 array in world order (-1: unknown)."""
    import numpy as np

    from lemmata.benchmarks.re2math.scholar.world import RECORDS_FILE
    from lemmata.release.parquet import read_table

    years = read_table(world.root / RECORDS_FILE, columns=["year"])["year"].to_numpy(zero_copy_only=False)
    years = years.astype(np.float64)
    return np.where(np.isnan(years), -1, years).astype(np.int64)


def track_world(track):
    """The opened world the source track ranks (whichever version ``source/`` serves), never a hard-coded one."""
    from lemmata.benchmarks.re2math.scholar.worlds import open_any_world
    from lemmata.core.paths import artifacts_dir

    return open_any_world(artifacts_dir() / track.world_id)


def source_task(split: str = "test", variant: str = "raw", *, year_cutoff: bool = True, track=None) -> RankingTask:
    """One source-retrieval submission over the track's offline world (cutoff applied as a filter when asked).

    ``track`` defaults to the source track's own default (its world included); tests pass a built one.
    """
    from lemmata.benchmarks.re2math.source.retrieval import SOURCE_BENCHMARK, SPLITS, default_source_track

    track = track if track is not None else default_source_track()
    queries = track.query_texts(split, variant)
    part = Part(doc_ids=track.doc_ids, doc_texts=track.doc_texts, queries=queries)
    protocol, flags = {}, {}
    if year_cutoff:
        world = track_world(track)
        part.doc_keys = record_years(world)
        part.query_limits = {q: world.attribution(q).year_cutoff for q in queries}
        protocol, flags = {"year_cutoff": YEAR_CUTOFF_RULE}, {"year_cutoff": True}
    return RankingTask(name=f"{SOURCE_BENCHMARK}:{variant}",
                       header={"benchmark": SOURCE_BENCHMARK, "release": track.release_id,
                               "split": "/".join(SPLITS[split]), "track": variant},
                       header_tail={"corpus": track.world_id}, parts=[part],
                       filename=f"{SOURCE_BENCHMARK}.{split}.{variant}", protocol=protocol,
                       flags=flags)


def tasks(name: str, *, split: str = "test", year_cutoff: bool = True) -> list[RankingTask]:
    """Every variant of a Re²Math ranking track: theorem retrieval's ``raw``, ``assisted``; source retrieval's
    ``raw-masked``, ``assisted-masked`` (the instance's own cite key masked: what a plain ``--track`` runs) and
    ``raw``, ``assisted`` (the key as stored, run only when named: ``re2math-source-retrieval:raw``)."""
    from lemmata.benchmarks.re2math.source.retrieval import MASKED_VARIANTS, SOURCE_VARIANTS
    from lemmata.benchmarks.re2math.theorem.retrieval import VARIANTS

    if name == "re2math-theorem-retrieval":
        return [theorem_task(split, v) for v in VARIANTS]
    out = [source_task(split, v, year_cutoff=year_cutoff) for v in SOURCE_VARIANTS]
    for task, variant in zip(out, SOURCE_VARIANTS):
        task.on_request = variant not in MASKED_VARIANTS
    return out
