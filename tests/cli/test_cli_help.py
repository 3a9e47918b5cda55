"""The command line explains itself: every command has a description and every argument a help text.

The walk goes through the whole argparse tree that ``lemmata`` builds, so a
subcommand or option added later without words fails here, naming it.
"""

from __future__ import annotations

import argparse

from lemmata.cli import build_parser


def _undocumented(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> list[str]:
    where = " ".join(path)
    missing = [] if (parser.description or "").strip() else [f"{where}: no description"]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, child in action.choices.items():
                if not (helps.get(name) or "").strip():
                    missing.append(f"{where} {name}: no help line in the command list")
                missing += _undocumented(child, (*path, name))
        elif action.help is not argparse.SUPPRESS and not (action.help or "").strip():
            missing.append(f"{where}: argument {'/'.join(action.option_strings) or action.dest} has no help")
    return missing


def test_every_parser_has_a_description_and_every_argument_help():
    assert _undocumented(build_parser(), ("lemmata",)) == []


def test_the_walk_finds_what_is_missing():
    parser = argparse.ArgumentParser(prog="x", description="d")
    sub = parser.add_subparsers()
    child = sub.add_parser("bare")
    child.add_argument("thing")
    child.add_argument("--flag", help="")
    assert _undocumented(parser, ("x",)) == [
        "x bare: no help line in the command list",
        "x bare: no description",
        "x bare: argument thing has no help",
        "x bare: argument --flag has no help",
    ]


def test_every_command_prints_its_help(capsys):
    """``--help`` renders for every (sub)command: a help string with a stray ``%`` would crash it."""
    def walk(parser, argv):
        yield argv
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    yield from walk(child, [*argv, name])

    for argv in walk(build_parser(), []):
        try:
            build_parser().parse_args([*argv, "--help"])
        except SystemExit as exc:
            assert exc.code == 0, argv
        out = capsys.readouterr().out
        assert out.startswith("usage: lemmata"), argv
