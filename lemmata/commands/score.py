"""``lemmata score``: validate and score a submission file into an immutable result."""

from __future__ import annotations

import datetime as dt


def register(sub) -> None:
    p = sub.add_parser(
        "score",
        help="validate and score a submission file (JSONL) into a result",
        description="Validate a submission completely (every problem with its line and field), replay its "
        "trajectories against the declared frozen retrieval artifact, take judge verdicts from the scoring "
        "artifact's verdict cache or a live judge configured by LEMMATA_JUDGE_BASE_URL / LEMMATA_JUDGE_MODEL / "
        "LEMMATA_JUDGE_API_KEY, and write the result. Items whose verdict no judge has given are pending, "
        "never successes. With --reported, import the Re²Math paper's own rows instead.",
    )
    p.add_argument("file", nargs="?", help="submission file (lemmata-submission/1 JSONL)")
    p.add_argument("--out", metavar="RESULT.json", help="write the result here (default: print it)")
    p.add_argument("--received-at", metavar="DATE", default=None,
                   help="the submission's received date (YYYY-MM-DD or ISO timestamp); default: today (UTC)")
    p.add_argument("--judge-artifact", metavar="DIR",
                   help="judge artifact folder holding ARTIFACT.json and the verdict cache "
                        "(default: $LEMMATA_JUDGE_ARTIFACT, else the configured judge's folder under the artifacts dir)")
    p.add_argument("--no-live-judge", action="store_true",
                   help="use cached verdicts only, even when a live judge is configured")
    p.add_argument("--store", metavar="DIR", help="also add the result to this leaderboard store")
    p.add_argument("--max-bytes", type=int, default=None, help="upload size limit (default: the space's limit)")
    p.add_argument("--reported", action="store_true",
                   help="import the Re²Math paper's seven models as reported rows (into --store, or print them)")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(handler=run)


def _print_summary(result, stats: dict, stream) -> None:
    main = result.main
    value = "pending" if main.value is None else f"{main.value:.4f}"
    print(f"{result.model.name}: {main.metric} {value} ({main.count}/{main.total} confirmed), "
          f"{result.pending} item(s) pending; status {result.status}", file=stream)
    if stats:
        print("judge: " + ", ".join(f"{k} {v}" for k, v in stats.items()), file=stream)
    print(f"result {result.result_id}", file=stream)


def run(args) -> int:
    import sys
    from pathlib import Path

    from lemmata.errors import InputError
    from lemmata.scoring.base import OracleConfig, handler_for, validate_upload

    if args.reported:
        from lemmata.re2math.reported import reported_results

        results = reported_results()
        if args.store:
            from lemmata.store import Store

            store = Store(args.store)
            for r in results:
                _, created = store.add_result(r)
                print(f"{'added' if created else 'present'} {r.result_id} {r.model.name}", file=sys.stderr)
        else:
            for r in results:
                sys.stdout.write(r.to_json())
        return 0
    if not args.file:
        raise InputError.one("lemmata score", "give a submission file (or --reported)", field="file")
    path = Path(args.file)
    if not path.is_file():
        raise InputError.one(str(path), "no such file")
    data = path.read_bytes()
    received = args.received_at or dt.datetime.now(dt.timezone.utc).date().isoformat()
    validated = validate_upload(data, path.name, max_bytes=args.max_bytes)
    if not args.quiet:
        print(f"valid: {validated.summary}", file=sys.stderr)
    judge = None
    if not args.no_live_judge:
        from lemmata.oracles.chat import judge_from_env

        judge = judge_from_env()
    handler = handler_for(validated.benchmark)
    if hasattr(handler, "quiet"):
        handler.quiet = args.quiet
    extra = {"judge_artifact": args.judge_artifact} if args.judge_artifact else {}
    result = handler.score(validated, received_at=received, oracles=OracleConfig(judge=judge, extra=extra))
    if args.out:
        Path(args.out).write_text(result.to_json(), encoding="utf-8")
    else:
        sys.stdout.write(result.to_json())
    if args.store:
        from lemmata.store import Store

        Store(args.store).add_result(result)
    if not args.quiet:
        _print_summary(result, getattr(handler, "last_judge_stats", {}), sys.stderr)
    return 0
