"""``lemmata taobench``: check attempts, build the example submission, score proofs, import the paper's rows."""

from __future__ import annotations

import sys


def register(sub) -> None:
    p = sub.add_parser(
        "taobench",
        help="TaoBench proofs: integrity checks, example submission, scoring, reported rows",
        description="Tools for the TaoBench formal-correctness track. Releases are read from --releases "
        "(default $LEMMATA_HOME/releases) and built there when missing. Scoring reads Lean verdicts from a frozen "
        "verifier artifact (--artifact or LEMMATA_LEAN_ARTIFACT) and asks a Kimina Lean server for missing ones when "
        "LEMMATA_LEAN_URL and LEMMATA_MATHLIB_VERSION are set; otherwise attempts that pass the integrity checks "
        "stay pending.",
    )
    tsub = p.add_subparsers(dest="taobench_command", metavar="ACTION")
    tsub.required = True

    c = tsub.add_parser("check", help="run the offline integrity checks on one attempt (a Lean file)")
    c.add_argument("attempt", help="the attempt's Lean file")
    c.add_argument("--release", default="taobench-150-1.0.0", help="release id (default: taobench-150-1.0.0)")
    c.add_argument("--fqn", required=True, help="the exercise's FQN")
    c.add_argument("--formulation", choices=("tao", "mathlib"), required=True)
    c.add_argument("--releases", metavar="DIR", help="folder of built releases")
    c.set_defaults(handler=run_check)

    e = tsub.add_parser("example", help="write the example submission (official files + hand-written proofs)")
    e.add_argument("--out", required=True, metavar="FILE", help="where to write the JSONL submission")
    e.add_argument("--proofs", metavar="FILE", help="proof texts (default: submissions/taobench/example_proofs.json)")
    e.add_argument("--releases", metavar="DIR", help="folder of built releases")
    e.set_defaults(handler=run_example)

    s = tsub.add_parser("score", help="validate and score a proof submission; print or write the result")
    s.add_argument("submission", help="the JSONL submission")
    s.add_argument("--releases", metavar="DIR", help="folder of built releases")
    s.add_argument("--artifact", metavar="DIR", help="Lean verifier artifact folder (verdict cache)")
    s.add_argument("--out", metavar="FILE", help="write the result JSON here (default: stdout)")
    s.add_argument("--store", metavar="DIR", help="also add the result to this leaderboard store")
    s.add_argument("--received-at", metavar="ISO", help="submission received time (default: now)")
    s.set_defaults(handler=run_score)

    r = tsub.add_parser("reported", help="import the paper's published rows as reported results")
    r.add_argument("--file", metavar="PATH", help="the transcribed tables (default: <mirror>/reported/taobench_paper.json)")
    r.add_argument("--store", metavar="DIR", help="leaderboard store (default: $LEMMATA_STORE or $LEMMATA_HOME/store)")
    r.set_defaults(handler=run_reported)


def run_check(args) -> int:
    from pathlib import Path

    from lemmata.taobench.integrity import check_attempt
    from lemmata.taobench.release import open_taobench

    release = open_taobench(args.release, args.releases)
    if args.fqn not in release.by_fqn:
        from lemmata.errors import InputError
        from lemmata.taobench.submission import _unknown_fqn

        raise InputError.one(args.attempt, _unknown_fqn(args.fqn, set(release.fqns()), args.release), field="fqn")
    report = check_attempt(release.exercise(args.fqn, args.formulation), Path(args.attempt).read_text("utf-8"))
    if report.ok:
        print("ok: no integrity violation")
        return 0
    for v in report.violations:
        print(f"{args.attempt}:{v.line or '-'}: {v.kind}: {v.message}")
    return 2


def run_example(args) -> int:
    from lemmata.taobench.example import write_example

    path, n = write_example(args.out, proofs_path=args.proofs, releases_root=args.releases)
    print(f"{path}: {n} record(s)")
    return 0


def run_score(args) -> int:
    from pathlib import Path

    from lemmata.hashing import sha256_bytes
    from lemmata.oracles.lean import verifier_from_env
    from lemmata.results import now_iso
    from lemmata.scoring.base import OracleConfig
    from lemmata.submissions.envelope import parse_envelope
    from lemmata.taobench.track import TaoBenchProofsHandler

    data = Path(args.submission).read_bytes()
    handler = TaoBenchProofsHandler(args.releases)
    validated = handler.validate(parse_envelope(data, Path(args.submission).name), sha256_bytes(data))
    extra = {"lean_artifact": args.artifact} if args.artifact else {}
    result = handler.score(validated, received_at=args.received_at or now_iso(),
                           oracles=OracleConfig(lean=verifier_from_env(), extra=extra))
    if args.out:
        Path(args.out).write_text(result.to_json(), encoding="utf-8")
    else:
        sys.stdout.write(result.to_json())
    if args.store:
        from lemmata.store import Store

        Store(args.store).add_result(result)
    main = result.main
    value = "pending" if main.value is None else f"{main.value:.4f}"
    print(f"{result.model.name}: {main.metric} {value} ({main.count}/{main.total} exercises solved so far; "
          f"{result.pending} with pending attempts; status {result.status})", file=sys.stderr)
    return 0


def run_reported(args) -> int:
    from lemmata.store import Store, default_store
    from lemmata.taobench.reported import import_reported

    store = Store(args.store) if args.store else default_store()
    added = import_reported(store, args.file)
    print(f"{sum(created for _, created in added)} new of {len(added)} reported TaoBench rows in {store.root}")
    return 0
