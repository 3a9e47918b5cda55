"""``lemmata artifact``: build, verify, search and open the frozen offline retrieval artifact."""

from __future__ import annotations

import argparse


def _cutoff(value: str) -> int | None:
    if value.lower() == "none":
        return None
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a year or 'none', got {value!r}") from None


def register(sub) -> None:
    p = sub.add_parser(
        "artifact",
        help="the frozen offline retrieval artifact of Re2Math (build, verify, search, open)",
        description="The frozen offline scholarly artifact that Re2Math systems search instead of Google Scholar: "
        "a bm25s index over the release's cited sources and citing papers. Without --artifact, commands use the "
        "default artifact under $LEMMATA_HOME/artifacts, building the release and the artifact first when missing.",
    )
    sp = p.add_subparsers(dest="artifact_command", metavar="ACTION")
    sp.required = True

    b = sp.add_parser("build", help="build the artifact from a Re2Math release folder")
    b.add_argument("--release", metavar="DIR", help="built Re2Math release folder (default: build/use the "
                                                    "release under $LEMMATA_HOME/releases)")
    b.add_argument("--out", metavar="DIR", help="parent folder of the artifact (default: $LEMMATA_HOME/artifacts)")
    b.add_argument("--quiet", action="store_true", help="no progress output")
    b.set_defaults(handler=run_build)

    v = sp.add_parser("verify", help="check every file of an artifact against its MANIFEST.json")
    v.add_argument("artifact", nargs="?", metavar="DIR", help="artifact folder (default: the default artifact)")
    v.set_defaults(handler=run_verify)

    s = sp.add_parser("search", help="search the artifact with a year cutoff")
    s.add_argument("query")
    s.add_argument("--cutoff", type=_cutoff, required=True, metavar="YEAR",
                   help="no record dated after this year is returned ('none': no cutoff)")
    s.add_argument("-n", "--n", type=int, default=20, help="candidates to return (default 20)")
    s.add_argument("--artifact", metavar="DIR|ID", help="artifact folder, frozen query cache, cache file or "
                                                        "artifact id (default: the default artifact)")
    s.add_argument("--record", metavar="FILE", help="also append the result to this query-cache JSONL file")
    s.add_argument("--instance", metavar="ID", help="instance id to store with the recorded query")
    s.add_argument("--json", action="store_true", help="print the search result as JSON")
    s.set_defaults(handler=run_search)

    o = sp.add_parser("open", help="materialise a record: its frozen text and statements (the opening is logged)")
    o.add_argument("record_id", metavar="RECORD_ID")
    o.add_argument("--artifact", metavar="DIR", help="artifact folder (default: the default artifact)")
    o.add_argument("--instance", metavar="ID", help="instance id the source is opened for (logged)")
    o.add_argument("--log", metavar="FILE", help="append the opening to this JSONL log")
    o.add_argument("--json", action="store_true", help="print the materialisation as JSON")
    o.set_defaults(handler=run_open)


def _open(path: str | None):
    from lemmata.benchmarks.re2math.scholar.artifact import default_artifact, open_artifact

    return open_artifact(path) if path else default_artifact(build=True, quiet=False)


def run_build(args) -> int:
    from lemmata.benchmarks.re2math.scholar.artifact import build_artifact, default_release_path

    release = args.release or default_release_path(build=True, quiet=args.quiet)
    print(build_artifact(release, args.out, quiet=args.quiet))
    return 0


def run_verify(args) -> int:
    from lemmata.benchmarks.re2math.scholar.artifact import default_artifact_path, open_artifact

    art = open_artifact(args.artifact or default_artifact_path())
    info = art.info
    print(f"{info.id}: {len(art)} records, built from {info.release_id} "
          f"(MANIFEST sha256 {info.release_manifest_sha256[:12]}…); every file matches MANIFEST.json")
    return 0


def run_search(args) -> int:
    import json

    from lemmata.benchmarks.re2math.scholar.querycache import RecordingBackend

    from lemmata.benchmarks.re2math.scholar.artifact import open_backend

    art = open_backend(args.artifact) if args.artifact else _open(None)
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

    art = _open(args.artifact)
    mat = art.materialise(args.record_id, instance_id=args.instance, log=args.log)
    if args.json:
        print(json.dumps(mat.model_dump(mode="json"), indent=2, ensure_ascii=False))
    else:
        print(mat.text, end="")
    return 0
