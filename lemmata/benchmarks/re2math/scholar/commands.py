"""``lemmata artifact``: build, verify, search and open the frozen offline retrieval artifact.

Re²Math's own CLI verb, declared in its family record (``Family.commands``); every version it offers, and which is
current, comes from the declared history of the worlds (:data:`lemmata.benchmarks.re2math.scholar.worlds.WORLDS`).
"""

from __future__ import annotations

import argparse

from lemmata.core.verbs import Verbs

VERBS = Verbs("lemmata.benchmarks.re2math")


#: ``--cutoff`` not given (``--cutoff none`` is given, and means no cutoff)
_NOT_GIVEN = object()


def _cutoff(value: str) -> int | None:
    if value.lower() == "none":
        return None
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a year or 'none', got {value!r}") from None


def register(sub) -> None:
    from lemmata.benchmarks.re2math.scholar.worlds import WORLDS

    versions = [v.version for v in WORLDS.versions]
    worlds = [v.version for v in WORLDS.of_kind("world")]
    *later, oldest = reversed([v.version for v in WORLDS.versions if v.superseded_by])
    older = f"{', '.join(later)} and {oldest}" if later else oldest
    #: declared versions newer than the current one (built and opened when named; not yet what new work uses)
    newer = [v.version for v in WORLDS.versions if v.version != WORLDS.current and not v.superseded_by]
    candidates = f"; {' and '.join(newer)} not yet current (built and opened when named)" if newer else ""
    p = VERBS.add(sub, "artifact", current_id=WORLDS.current_id, older=older)
    sp = p.add_subparsers(dest="artifact_command", metavar="ACTION", required=True)

    b = VERBS.add(sp, "artifact.build")
    b.add_argument("--version", choices=versions, default=WORLDS.current,
                   help=f"artifact version: {WORLDS.current}, the current world (default); {older} are superseded "
                        f"and built only so that their results audit{candidates}")
    b.add_argument("--release", metavar="DIR", help="built Re2Math release folder (default: build/use the "
                                                    "release under $LEMMATA_HOME/releases)")
    b.add_argument("--distractors", metavar="DIR", help="2.x only: built math-arxiv-meta release folder "
                                                        "(default: build/use the one the version is built on, 1.0.0 "
                                                        "or for 2.2.0 1.1.0, under $LEMMATA_HOME/releases)")
    b.add_argument("--out", metavar="DIR", help="parent folder of the artifact (default: $LEMMATA_HOME/artifacts)")
    b.add_argument("--quiet", action="store_true", help="no progress output")
    b.set_defaults(handler=run_build)

    v = VERBS.add(sp, "artifact.verify")
    v.add_argument("artifact", nargs="?", metavar="DIR", help="artifact folder (default: the current world)")
    v.add_argument("--quiet", action="store_true", help="no output; the exit status says it all")
    v.set_defaults(handler=run_verify)

    i = VERBS.add(sp, "artifact.info")
    i.add_argument("--artifact", metavar="DIR|ID", help="artifact folder or id (default: the current world)")
    i.add_argument("--json", action="store_true", help="print the description as JSON")
    i.set_defaults(handler=run_info)

    s = VERBS.add(sp, "artifact.search")
    s.add_argument("query", nargs="?", help="the query text (omit with --batch)")
    s.add_argument("--cutoff", type=_cutoff, metavar="YEAR", default=_NOT_GIVEN,
                   help="no record dated after this year is returned ('none': no cutoff); required for one query")
    s.add_argument("--batch", metavar="QUERIES.jsonl",
                   help='one JSON object per line, {"query": TEXT, "cutoff": YEAR|null, "n": N}; prints one result '
                        "line per query, in order (requires --json); on a 2.x world a batch of 256 or more "
                        "queries is ranked by one forked process per usable core")
    s.add_argument("-n", "--n", type=int, default=20, help="candidates to return (default 20)")
    s.add_argument("--artifact", metavar="DIR|ID", help="artifact folder, frozen query cache, cache file or "
                                                        "artifact id (default: the current world)")
    s.add_argument("--record", metavar="FILE", help="also append the result to this query-cache JSONL file")
    s.add_argument("--instance", metavar="ID", help="instance id to store with the recorded query")
    s.add_argument("--json", action="store_true", help="print the search result as JSON")
    s.set_defaults(handler=run_search)

    o = VERBS.add(sp, "artifact.open")
    o.add_argument("record_ids", nargs="+", metavar="RECORD_ID", help="record id(s) to open, in order")
    o.add_argument("--artifact", metavar="DIR|ID", help="artifact folder or id (default: the current world)")
    o.add_argument("--instance", metavar="ID", help="instance id the source is opened for (logged)")
    o.add_argument("--log", metavar="FILE", help="append the opening to this JSONL log")
    o.add_argument("--json", action="store_true", help="print each opened record as one JSON line")
    o.set_defaults(handler=run_open)

    x = VERBS.add(sp, "artifact.export-beir", current_id=WORLDS.current_id)
    x.add_argument("--out", metavar="DIR", required=True, help="folder to write corpus.jsonl, queries/, qrels/ and "
                                                               "README.md into")
    x.add_argument("--version", choices=worlds, default=WORLDS.current,
                   help=f"the world whose records are the corpus: {WORLDS.current}, the current world (default), or "
                        "a superseded one for its results' group")
    x.set_defaults(handler=run_export_beir)


def run_export_beir(args) -> int:
    from lemmata.benchmarks.re2math.scholar.worlds import world_id
    from lemmata.benchmarks.re2math.source.retrieval import default_source_track, write_beir

    warn_if_superseded(world_id(args.version))
    track = default_source_track(world_id=world_id(args.version))
    for name in write_beir(track, args.out):
        print(f"{args.out}/{name}")
    return 0


def warn_if_superseded(artifact_id: str) -> None:
    """One line on stderr when a named artifact is a superseded world."""
    import sys

    from lemmata.benchmarks.re2math.scholar.worlds import WORLDS

    warning = WORLDS.warning(artifact_id)
    if warning:
        print(warning, file=sys.stderr)


def _open(path: str | None):
    """The artifact at ``path`` (folder or id; a 2.x world opens as its world) or the current world."""
    from lemmata.benchmarks.re2math.scholar.artifact import open_artifact
    from lemmata.benchmarks.re2math.scholar.backends import open_backend
    from lemmata.benchmarks.re2math.scholar.world import WorldBackend
    from lemmata.benchmarks.re2math.scholar.worlds import current_world

    if not path:
        return current_world(build=True, quiet=False)
    art = open_backend(path)
    warn_if_superseded(art.artifact_id)
    if isinstance(art, WorldBackend):
        return art.world
    return art if hasattr(art, "materialise") else open_artifact(path)


def run_build(args) -> int:
    from lemmata.benchmarks.re2math.scholar.artifact import build_artifact, default_release_path

    from lemmata.benchmarks.re2math.scholar.worlds import WORLDS

    release = args.release or default_release_path(build=True, quiet=args.quiet)
    if WORLDS.get(args.version).kind == "world":
        from lemmata.benchmarks.re2math.scholar.worlds import build_world_version

        print(build_world_version(args.version, release, args.distractors, args.out, quiet=args.quiet))
        return 0
    if args.distractors:
        from lemmata.core.errors import InputError

        raise InputError.one("--distractors", f"only a 2.x world has a distractor corpus; add --version "
                                              f"{WORLDS.current}", field="distractors")
    print(build_artifact(release, args.out, quiet=args.quiet))
    return 0


def run_verify(args) -> int:
    from lemmata.benchmarks.re2math.scholar.artifact import open_artifact
    from lemmata.benchmarks.re2math.scholar.worlds import is_any_world, open_any_world, world_path

    path = args.artifact or world_path()
    art = open_any_world(path) if is_any_world(path) else open_artifact(path)
    info = art.info
    if not getattr(args, "quiet", False):
        print(f"{info.id}: {len(art)} records, built from {info.release_id} "
              f"(MANIFEST sha256 {info.release_manifest_sha256[:12]}…); every file matches MANIFEST.json")
    return 0


def run_info(args) -> int:
    import json

    from lemmata.benchmarks.re2math.scholar.world import ScholarWorld

    art = _open(args.artifact)
    if isinstance(art, ScholarWorld):
        desc = art.describe()
    else:
        info = art.info
        desc = {"id": info.id, "schema_version": info.schema_version, "records": len(art), "composition": info.counts,
                "built_from": {"release": info.release_id}, "backend": info.backend,
                "tokenizer": {"name": info.tokenizer["name"], "version": info.tokenizer["version"]},
                "year_policy": info.year_policy, "superseded_by": info.superseded_by}
    if args.json:
        print(json.dumps(desc, indent=2, ensure_ascii=False))
        return 0
    print(f"{desc['id']}: {desc['records']:,} records, built from "
          + ", ".join(f"{v}" for v in desc["built_from"].values()))
    if desc.get("superseded_by"):
        print(f"superseded by {desc['superseded_by']} (still opens, so results made with it audit)")
    for key, value in desc["composition"].items():
        print(f"  {key:<40} {value:>10,}")
    b = desc["backend"]
    print(f"ranking: {b['library']} {b['library_version']} {b['method']} k1={b['k1']} b={b['b']}, "
          f"{b['vocabulary']:,} terms; tokenizer {desc['tokenizer']['name']} v{desc['tokenizer']['version']}")
    print(f"years: {desc['year_policy']}")
    return 0


def _search_batch(args) -> int:
    import json

    from lemmata.core.errors import InputError
    from lemmata.benchmarks.re2math.scholar.batch import read_batch
    from lemmata.benchmarks.re2math.scholar.world import ScholarWorld

    if args.query is not None or args.cutoff is not _NOT_GIVEN or args.record or args.instance:
        raise InputError.one("--batch", "a batch file carries its own queries and cutoffs: drop the query, --cutoff, "
                                        "--record and --instance", field="batch")
    if not args.json:
        raise InputError.one("--batch", "batch search prints JSON lines: add --json", field="json")
    queries = read_batch(args.batch)
    art = _open(args.artifact)
    if isinstance(art, ScholarWorld):
        results = art.search_batch([(q.query, q.cutoff, q.n) for q in queries])
    else:
        results = [art.search(q.query, q.cutoff, q.n) for q in queries]
    for r in results:
        print(json.dumps(r.model_dump(mode="json"), ensure_ascii=False))
    return 0


def run_search(args) -> int:
    import json

    from lemmata.core.errors import InputError
    from lemmata.benchmarks.re2math.scholar.querycache import RecordingBackend

    from lemmata.benchmarks.re2math.scholar.backends import open_backend
    from lemmata.benchmarks.re2math.scholar.world import WorldBackend

    if args.batch:
        return _search_batch(args)
    if args.query is None:
        raise InputError.one("query", "give a query, or --batch QUERIES.jsonl", field="query")
    if args.cutoff is _NOT_GIVEN:
        raise InputError.one("--cutoff", "a single query needs --cutoff YEAR (or 'none')", field="cutoff")
    if args.artifact:
        art = open_backend(args.artifact)
        warn_if_superseded(art.artifact_id)
    else:
        art = WorldBackend(_open(None))
    if isinstance(art, WorldBackend) and not args.record:
        res = art.world.search(args.query, args.cutoff, args.n)
        if args.json:
            print(json.dumps(res.model_dump(mode="json"), indent=2, ensure_ascii=False))
            return 0
        cutoff = "none" if args.cutoff is None else args.cutoff
        print(f"{res.artifact_id} | year cutoff {cutoff} | {len(res.hits)} hit(s)")
        for h in res.hits:
            shown = getattr(h, "year", "")  # 2.1 hits show no year (and have no such slot)
            year = (shown if shown is not None else "----") if shown != "" else ""
            print(f"{h.rank:>3}. {h.id:<12} {year:<4}  {h.score:>8.3f}  {h.title[:80]} — {', '.join(h.authors)}")
        return 0
    backend = RecordingBackend(art, args.record) if args.record else art
    result = backend.search(args.query, args.cutoff, args.n, instance_id=args.instance)
    if args.json:
        print(json.dumps(result.model_dump(mode="json"), indent=2, ensure_ascii=False))
        return 0
    cutoff = "none" if args.cutoff is None else args.cutoff
    print(f"{result.artifact_id} | year cutoff {cutoff} | {len(result.candidates)} candidate(s)")
    for c in result.candidates:
        year = c.year if c.year is not None else "----"
        score = f"{c.score:>8.3f}" if c.score is not None else " " * 8
        print(f"{c.rank:>3}. {c.id:<22} {year}  {score}  [{c.kind}] {c.title[:90]}")
    return 0


def run_open(args) -> int:
    import json

    from lemmata.benchmarks.re2math.scholar.world import ScholarWorld

    art = _open(args.artifact)
    opener = art.open if isinstance(art, ScholarWorld) else art.materialise
    for rid in args.record_ids:  # an unknown id is an error before anything is opened or logged
        art.position(rid) if isinstance(art, ScholarWorld) else art.record(rid)
    for i, rid in enumerate(args.record_ids):
        opened = opener(rid, instance_id=args.instance, log=args.log)
        if args.json:
            print(json.dumps(opened.model_dump(mode="json"), ensure_ascii=False))
        else:
            print(("\n" if i else "") + opened.text, end="")
    return 0
