"""``lemmata score``: validate and score a submission file into an immutable result."""

from __future__ import annotations

from lemmata.core.verbs import Verbs

VERBS = Verbs("lemmata.cli")


def register(sub) -> None:
    p = VERBS.add(sub, "score")
    p.add_argument("file", nargs="?", help="submission file (lemmata-submission/1 JSONL)")
    p.add_argument("--out", metavar="RESULT.json", help="write the result here (default: print it)")
    p.add_argument("--received-at", metavar="DATE", default=None,
                   help="the submission's received date (YYYY-MM-DD or ISO timestamp); default: today (UTC)")
    p.add_argument("--judge-artifact", metavar="DIR",
                   help="judge artifact folder holding ARTIFACT.json and the verdict cache "
                        "(default: $LEMMATA_JUDGE_ARTIFACT, else the configured judge's folder under the artifacts dir)")
    p.add_argument("--lean-artifact", metavar="DIR",
                   help="Lean verifier artifact folder (default: $LEMMATA_LEAN_ARTIFACT, else the live verifier's)")
    p.add_argument("--no-live-judge", action="store_true",
                   help="use cached verdicts only, even when a live judge or Lean server is configured")
    p.add_argument("--runner-log", metavar="FILE", help="the runner request log a `lemmata run` submission's header "
                   "declares, checked against the submission and the release (default: the file's stem + "
                   ".runner-log.jsonl beside it, where `lemmata run` writes it, when the header declares one)")
    p.add_argument("--store", metavar="DIR", help="also add the result to this leaderboard store")
    p.add_argument("--max-bytes", type=int, default=None, help="upload size limit (default: the space's limit)")
    p.add_argument("--reported", action="store_true",
                   help="import every paper's reported rows (into --store, default $LEMMATA_STORE or "
                        "$LEMMATA_HOME/store): the transcribed tables ship with the package; Re²Math's released "
                        "tables are read from a local mirror, else downloaded once from their pinned commit")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(handler=run)


def _print_summary(result, stats: dict, stream) -> None:
    from lemmata.tracks.baseline_report import headline

    print(f"{result.model.name}: {headline(result)}", file=stream)
    if stats:
        print("judge: " + ", ".join(f"{k} {v}" for k, v in stats.items()), file=stream)
    print(f"result {result.result_id}", file=stream)


def run(args) -> int:
    import sys
    from pathlib import Path

    from lemmata.core.errors import InputError
    from lemmata.scoring import oracles_from_env, runner_log_beside, score_validated, validate_upload

    if args.reported:
        from lemmata.families import reported_importers
        from lemmata.store import Store, default_store

        store = Store(args.store) if args.store else default_store()
        for family, importer in reported_importers():
            rows = importer(store)
            new = sum(created for _, created in rows)
            print(f"{family}: {new} new of {len(rows)} reported rows", file=sys.stderr)
        print(store.root)
        return 0
    if not args.file:
        raise InputError.one("lemmata score", "give a submission file (or --reported)", field="file")
    path = Path(args.file)
    if not path.is_file():
        raise InputError.one(str(path), "no such file")
    data = path.read_bytes()
    log = runner_log_beside(path, data, args.runner_log)
    validated = validate_upload(data, path.name, max_bytes=args.max_bytes,
                                runner_log=log.read_bytes() if log is not None else None,
                                runner_log_name=log.name if log is not None else "runner-log.jsonl")
    if not args.quiet:
        print(f"valid: {validated.summary}", file=sys.stderr)
    extra = {k: v for k, v in (("judge_artifact", args.judge_artifact), ("lean_artifact", args.lean_artifact)) if v}
    handler, result = score_validated(validated, received_at=args.received_at, quiet=args.quiet,
                                      oracles=oracles_from_env(live=not args.no_live_judge, extra=extra))
    if args.out:
        Path(args.out).write_text(result.to_json(), encoding="utf-8")
    else:
        sys.stdout.write(result.to_json())
    if args.store:
        from lemmata.store import Store

        Store(args.store).add_result(result)
    if not args.quiet:
        if validated.runner_log is not None:
            print(f"runner request log {log}: the attempts match it (prompts recomputed from the release); the "
                  "completions are as submitted", file=sys.stderr)
        _print_summary(result, getattr(handler, "last_judge_stats", {}), sys.stderr)
    return 0
