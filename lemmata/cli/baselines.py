"""``lemmata baselines``: run the offline baselines, write their submission files and score them into the store.

The tracks under ``lemmata baselines run`` (and any other action) come from the families' records
(``Family.baseline_commands``); ``all`` runs every family's baseline jobs (``Family.baselines``). The plumbing is
:mod:`lemmata.harness.baselines`.
"""

from __future__ import annotations


def register(sub) -> None:
    from lemmata.families import baseline_commands
    from lemmata.harness.baselines import common_args, run_all

    p = sub.add_parser(
        "baselines",
        help="run the offline baselines (BM25, static embeddings, hybrid; the Re2Math agent) into the leaderboard",
        description="Run an offline baseline, write its submission file and score it through the normal pipeline "
        "(validation, track handler, immutable result) into the leaderboard store. Releases and the retrieval "
        "artifact are built first when missing. Everything runs on a CPU without network access.",
    )
    sp = p.add_subparsers(dest="baselines_command", metavar="ACTION")
    sp.required = True

    r = sp.add_parser("run", help="run baselines and store their results",
                      description="Run one family of offline baselines (or all of them), write one submission file "
                      "per run under --out and score each into the leaderboard store (unless --no-store).")
    rs = r.add_subparsers(dest="track", metavar="TRACK")
    rs.required = True
    for register_family in baseline_commands():
        register_family(rs, sp)

    al = rs.add_parser("all", help="every family's default baselines, in turn",
                       description="Run every family's offline baselines with their default choices, in turn "
                       "(the runs the space stores on its first start).")
    common_args(al, depth=False)
    al.set_defaults(handler=run_all)
