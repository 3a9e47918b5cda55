"""``lemmata baselines``: run the offline baselines, write their submission files and score them into the store.

The tracks under ``lemmata baselines run`` (and any other action) come from the families' records
(``Family.baseline_commands``); ``all`` runs every family's baseline jobs (``Family.baselines``). The plumbing is
:mod:`lemmata.harness.baselines`.
"""

from __future__ import annotations

from lemmata.core.verbs import Verbs

VERBS = Verbs("lemmata.cli")


def register(sub) -> None:
    from lemmata.families import baseline_commands
    from lemmata.harness.baselines import common_args, run_all

    p = VERBS.add(sub, "baselines")
    sp = p.add_subparsers(dest="baselines_command", metavar="ACTION", required=True)

    r = VERBS.add(sp, "baselines.run")
    rs = r.add_subparsers(dest="track", metavar="TRACK", required=True)
    for register_family in baseline_commands():
        register_family(rs, sp)

    al = VERBS.add(rs, "baselines.run.all")
    common_args(al, depth=False)
    al.set_defaults(handler=run_all)
