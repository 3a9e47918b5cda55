"""``lemmata taobench``: check an attempt offline, build the example submission (scoring: ``lemmata score``).
TaoBench's own CLI verb, declared in its family record (``Family.commands``)."""

from __future__ import annotations



def register(sub) -> None:
    p = sub.add_parser(
        "taobench",
        help="TaoBench proofs: offline integrity check of one attempt, the example submission",
        description="Tools for the TaoBench formal-correctness track. Releases are read from --releases "
        "(default $LEMMATA_RELEASES or $LEMMATA_HOME/releases) and built there when missing. Score a proof "
        "submission with `lemmata score FILE`: Lean verdicts come from a frozen verifier artifact (--lean-artifact "
        "or LEMMATA_LEAN_ARTIFACT) and a Kimina Lean server for missing ones when LEMMATA_LEAN_URL and "
        "LEMMATA_MATHLIB_VERSION are set; otherwise attempts that pass the integrity checks stay pending.",
    )
    tsub = p.add_subparsers(dest="taobench_command", metavar="ACTION")
    tsub.required = True

    c = tsub.add_parser("check", help="run the offline integrity checks on one attempt (a Lean file)",
                        description="Check one proof attempt offline against its official file: the context and the "
                        "statement must be unchanged, only allowed helper declarations and proof text may be added, "
                        "and the proof may not use refused forms (sorry, native_decide, ...). "
                        "Prints 'ok' (exit 0) or one line per violation (exit 2). No Lean is run: a passing "
                        "attempt still needs a Lean verdict from `lemmata score`.")
    c.add_argument("attempt", help="the attempt's Lean file")
    c.add_argument("--release", default="taobench-150-1.1.0", help="release id (default: taobench-150-1.1.0)")
    c.add_argument("--fqn", required=True, help="the exercise's FQN")
    c.add_argument("--formulation", choices=("tao", "mathlib"), required=True,
                   help="which statement the attempt proves: Tao's framework or its Mathlib twin")
    c.add_argument("--releases", metavar="DIR", help="folder of built releases")
    c.set_defaults(handler=run_check)

    e = tsub.add_parser("example", help="write the example submission (official files + hand-written proofs)",
                        description="Write the example TaoBench proof submission: the official exercise files "
                        "with the hand-written proofs filled in, as a lemmata-submission/1 JSONL file.")
    e.add_argument("--out", required=True, metavar="FILE", help="where to write the JSONL submission")
    e.add_argument("--proofs", metavar="FILE", help="proof texts (default: submissions/taobench/example_proofs.json)")
    e.add_argument("--releases", metavar="DIR", help="folder of built releases")
    e.set_defaults(handler=run_example)



def run_check(args) -> int:
    from pathlib import Path

    from lemmata.benchmarks.taobench.lean.integrity import check_attempt
    from lemmata.benchmarks.taobench.release import open_taobench

    release = open_taobench(args.release, args.releases)
    if args.fqn not in release.by_fqn:
        from lemmata.core.errors import InputError
        from lemmata.benchmarks.taobench.submission import unknown_fqn

        raise InputError.one(args.attempt, unknown_fqn(args.fqn, set(release.fqns()), args.release), field="fqn")
    report = check_attempt(release.exercise(args.fqn, args.formulation), Path(args.attempt).read_text("utf-8"))
    if report.ok:
        print("ok: no integrity violation")
        return 0
    for v in report.violations:
        print(f"{args.attempt}:{v.line or '-'}: {v.kind}: {v.message}")
    return 2


def run_example(args) -> int:
    from lemmata.benchmarks.taobench.example import write_example

    path, n = write_example(args.out, proofs_path=args.proofs, releases_root=args.releases)
    print(f"{path}: {n} record(s)")
    return 0


def register_baselines(rs, actions) -> None:
    """``lemmata baselines run equivalence`` and ``lemmata baselines export equivalence``."""
    from lemmata.harness.baselines import ALL, common_args

    e = rs.add_parser("equivalence", help="TaoBench statement -> its twin in the other framework",
                      description="For each TaoBench statement, rank the statements of the other framework "
                      "(Tao's definitions or Mathlib) to find its twin.")
    e.add_argument("--release", choices=("taobench-150", "taobench-v1", ALL), default=ALL,
                   help="TaoBench release (default all)")
    e.add_argument("--direction", choices=("tao2mathlib", "mathlib2tao", ALL), default=ALL,
                   help="query framework -> corpus framework (default all)")
    e.add_argument("--retriever", choices=("bm25", "static", "hybrid", ALL), default=ALL,
                   help="bm25, static embeddings, their hybrid, or all (default all)")
    common_args(e)
    e.set_defaults(handler=run_equivalence)

    x = actions.add_parser("export", help="write a derived retrieval track as BEIR files (corpus, queries, qrels)",
                      description="Write a retrieval track derived from a release as BEIR files (corpus.jsonl, "
                      "queries.jsonl, qrels/test.tsv), so any BEIR-compatible system can run on it; the release "
                      "is built first when missing.")
    x.add_argument("what", choices=("equivalence",), help="the derived track (equivalence: TaoBench twins)")
    x.add_argument("--release", choices=("taobench-150", "taobench-v1"), required=True, help="TaoBench release")
    x.add_argument("--direction", choices=("tao2mathlib", "mathlib2tao"), required=True,
                   help="query framework -> corpus framework")
    x.add_argument("--out", metavar="DIR", required=True, help="folder the BEIR files are written to")
    x.set_defaults(handler=run_export)


def run_equivalence(args) -> int:
    from lemmata.benchmarks.taobench.baselines import equivalence_run
    from lemmata.harness.baselines import finish, out_folder, pick, store_of

    store = store_of(args)
    for release in pick(args.release, ("taobench-150", "taobench-v1")):
        for direction in pick(args.direction, ("tao2mathlib", "mathlib2tao")):
            for retriever in pick(args.retriever, ("bm25", "static", "hybrid")):
                finish(equivalence_run(retriever, release, direction, out_folder(args), depth=args.depth), store)
    return 0


def run_export(args) -> int:
    from lemmata.benchmarks.taobench.equivalence import load_track, write_beir
    from lemmata.catalog import release_path
    from lemmata.families import get_benchmark

    track = load_track(release_path(get_benchmark(args.release)), args.direction)
    for name in write_beir(track, args.out):
        print(f"{args.out}/{name}")
    return 0
