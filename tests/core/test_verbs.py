"""Command texts are data (``verbs.toml`` beside the code, read by :mod:`lemmata.core.verbs`): one way to declare
a command, and no table that no command reads (prose nobody sees drifts from what the command does)."""

from __future__ import annotations

import argparse
import re
import tomllib
from pathlib import Path

import lemmata
from lemmata.cli import build_parser

PACKAGE = Path(lemmata.__file__).parent


def _helps(parser: argparse.ArgumentParser, out: set[str]) -> set[str]:
    out.add(parser.description or "")
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            out.update(c.help or "" for c in action._choices_actions)
            for child in action.choices.values():
                _helps(child, out)
    return out


def _tables(node: dict, path: str = ""):
    for key, value in node.items():
        if isinstance(value, dict):
            yield from _tables(value, f"{path}.{key}".lstrip("."))
        elif key == "help":
            yield path, node


def test_commands_are_declared_one_way():
    """Only the texts reader adds a command (and the harness, for the run protocols it reads from the same files)."""
    adders = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                    if re.search(r"\.add_parser\(", p.read_text(encoding="utf-8")))
    assert adders == ["core/verbs.py", "harness/runs.py"]


def test_every_declared_text_is_shown():
    shown = _helps(build_parser(), set())
    # texts with {fields} are filled when registered: compare their fixed leading words
    unused = []
    for toml in sorted(PACKAGE.rglob("verbs.toml")):
        for path, body in _tables(tomllib.loads(toml.read_text(encoding="utf-8"))):
            for key in ("help", "description"):
                text = body.get(key)
                if text is not None and not any(s.startswith(text.split("{")[0]) for s in shown):
                    unused.append(f"{toml.relative_to(PACKAGE)} [{path}] {key}")
    assert unused == []


def test_a_missing_table_is_named():
    from lemmata.core.errors import Error
    from lemmata.core.verbs import Verbs

    try:
        Verbs("lemmata.cli").text("command.evaluate.nothing")
    except Error as e:
        assert "lemmata/cli/verbs.toml has no table [command.evaluate.nothing]" in str(e)
    else:
        raise AssertionError("an unknown table must fail")
