"""``lemmata serve``: run the leaderboard space locally on embedded defaults."""

from __future__ import annotations

from lemmata.core.verbs import Verbs

VERBS = Verbs("lemmata.cli")


def register(sub) -> None:
    p = VERBS.add(sub, "serve")
    p.add_argument("--port", type=int, default=None, help="port to listen on (default: 7860, or the next free one)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1: this machine only; 0.0.0.0 exposes it)")
    p.add_argument("--store", metavar="DIR", help="store folder (default: $LEMMATA_STORE or $LEMMATA_HOME/store)")
    p.add_argument("--no-bootstrap", action="store_true", help="skip building missing releases on start")
    p.set_defaults(handler=run)


def run(args) -> int:
    from pathlib import Path

    from lemmata.space.app import serve
    from lemmata.space.config import SpaceConfig

    overrides = {"host": args.host}
    if args.store:
        overrides["store_root"] = Path(args.store).expanduser()
    config = SpaceConfig.from_env(**overrides)
    if args.no_bootstrap:
        config = config.model_copy(update={"bootstrap": False})
    serve(config, host=args.host, port=args.port)
    return 0
