"""The ``lemmata`` command line.

Each generic subcommand lives in :mod:`lemmata.cli` as a module with
``register(subparsers)``; a benchmark's own verbs (``render``, ``taobench``,
``re2math``, ``mathrag``, …) come from its family record through the registry
(``Family.commands``), as its ``lemmata run`` protocols do, so the CLI names no
benchmark. Heavy libraries are imported inside the handlers so ``lemmata
--help`` stays fast. Errors on user input print one report and exit 2;
environment failures (no network, missing oracle) print one sentence and exit 1.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from lemmata import __version__

#: generic command modules, in --help order (the families' own verbs follow them)
COMMANDS = ("list", "build", "publish", "cards", "schemas", "submission-kit", "serve", "evaluate", "baselines",
            "score", "results", "run", "judge", "env")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lemmata",
        description="Lemmata: versioned benchmark releases, exact metrics and a leaderboard for "
        "mathematical tool retrieval and formalization.",
    )
    parser.add_argument("--version", action="version", version=f"lemmata {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"lemmata.cli.{name.replace('-', '_')}").register(sub)
    from lemmata.families import commands

    for register in commands():
        register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from lemmata.core.errors import Error, InputError
    from lemmata.core.registry import UnknownNameError

    from lemmata.core.settings import unknown

    parser = build_parser()
    args = parser.parse_args(argv)
    for line in unknown():
        print(f"warning: {line}", file=sys.stderr)
    try:
        return int(args.handler(args) or 0)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        for note in exc.skipped:  # checks the problems kept from running
            print(f"  skipped: {note.reason}", file=sys.stderr)
        return 2
    except UnknownNameError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Error as exc:  # LemmataError and every other refusal under the one root: one sentence, no traceback
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
