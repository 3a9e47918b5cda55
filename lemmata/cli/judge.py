"""``lemmata judge``: fill the pending verdicts of stored results with the configured judge and Lean verifier."""

from __future__ import annotations

import sys

from lemmata.core.verbs import Verbs

VERBS = Verbs("lemmata.cli")


def register(sub) -> None:
    p = VERBS.add(sub, "judge")
    p.add_argument("--store", metavar="DIR", help="leaderboard store (default $LEMMATA_STORE or $LEMMATA_HOME/store)")
    p.add_argument("--submission", metavar="SHA256", action="append",
                   help="only this submission (repeatable; default: every pending one)")
    p.add_argument("--judge-artifact", metavar="DIR", help="judge artifact folder (default as for `lemmata score`)")
    p.add_argument("--lean-artifact", metavar="DIR", help="Lean verifier artifact folder (default as for `lemmata score`)")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(handler=run)


def run(args) -> int:
    from lemmata.core.errors import LemmataError
    from lemmata.scoring import oracles_from_env
    from lemmata.store import Store, default_store

    extra = {k: v for k, v in (("judge_artifact", args.judge_artifact), ("lean_artifact", args.lean_artifact)) if v}
    oracles = oracles_from_env(extra=extra)
    if oracles.judge is None and oracles.lean is None:
        raise LemmataError("no oracle configured: set LEMMATA_JUDGE_BASE_URL and LEMMATA_JUDGE_MODEL (judge and "
                           "grader verdicts) or LEMMATA_LEAN_URL and LEMMATA_MATHLIB_VERSION (Lean verdicts)")
    if not args.quiet:  # say which verdicts this run can fill: the others stay pending
        for name, oracle, setting in (("judge", oracles.judge, "LEMMATA_JUDGE_BASE_URL and LEMMATA_JUDGE_MODEL"),
                                      ("Lean verifier", oracles.lean, "LEMMATA_LEAN_URL and LEMMATA_MATHLIB_VERSION")):
            if oracle is None:
                print(f"no {name} configured ({setting} unset): verdicts that need it stay pending", file=sys.stderr)
    store = Store(args.store) if args.store else default_store()
    outcomes = fill_pending(store, oracles, only=args.submission)
    for line in outcomes:
        print(line)
    if not outcomes and not args.quiet:
        print("nothing pending", file=sys.stderr)
    return 0


def fill_pending(store, oracles, *, only: list[str] | None = None) -> list[str]:
    """Rescore the pending submissions of ``store``; one line per submission saying what changed."""
    from lemmata.scoring import failure_reason, score_stored, settled_status

    wanted = set(only or [])
    out = []
    for record in store.list_submissions(status="pending_oracle"):
        if wanted and record.sha256 not in wanted:
            continue
        before = store.result_ids_for_submission(record.sha256)
        try:
            result = score_stored(store, record, oracles)
        except Exception as exc:  # one broken entry does not stop the others; its reason is reported
            out.append(f"{record.sha256[:12]} {record.filename}: failed: {failure_reason(exc)}")
            continue
        status, reason = settled_status(result)
        store.set_status(record.sha256, status, reason)  # type: ignore[arg-type]
        change = "unchanged" if result.result_id in before else f"version {result.version} (supersedes " \
            f"{(result.supersedes or '-')[:12]})"
        out.append(f"{record.sha256[:12]} {record.filename}: {change}; {result.pending} item(s) pending; "
                   f"status {status}; result {result.result_id}")
    return out
