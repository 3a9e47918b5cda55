"""Command-line texts as data: a sub-command's help line and description are prose a user reads, so they live in
a ``verbs.toml`` beside the code that registers the command (one table a command, nested tables for its actions,
``[run.NAME]`` for a ``lemmata run`` protocol). Registering a verb is then one call, and what the code says of a
command is its arguments and its handler.

A family keeps its texts in its own folder like its briefs, so a benchmark's verbs still enter through its family
record alone.
"""

from __future__ import annotations

from argparse import ArgumentParser
from functools import lru_cache
from typing import Any

from lemmata.core.errors import Error
from lemmata.core.models import Frozen
from lemmata.core.package_data import read_toml

__all__ = ["Verbs", "VerbText"]


class VerbText(Frozen):
    """One command's prose: the line ``--help`` lists it by, and the paragraph its own ``--help`` opens with."""

    help: str
    description: str | None = None


@lru_cache(maxsize=None)
def _table(package: str) -> dict[str, Any]:
    return read_toml(package, "verbs.toml")


class Verbs:
    """The command texts of one package's ``verbs.toml``.

    >>> cli = Verbs("lemmata.cli")
    >>> cli.text("command.judge").help.startswith("fill pending")
    True
    >>> cli.text("command.nope")
    Traceback (most recent call last):
    ...
    lemmata.core.errors.Error: lemmata/cli/verbs.toml has no table [command.nope]
    """

    def __init__(self, package: str) -> None:
        self.package = package

    def text(self, path: str, **values: Any) -> VerbText:
        """The texts at the dotted table ``path``; ``values`` fill ``{name}`` fields (texts that name a version)."""
        node: Any = _table(self.package)
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                raise Error(f"{self.package.replace('.', '/')}/verbs.toml has no table [{path}]")
            node = node[part]
        body = {k: v for k, v in node.items() if k in ("help", "description")}
        if values:
            body = {k: v.format(**values) for k, v in body.items()}
        return VerbText.model_validate(body)

    def add(self, sub: Any, path: str, **values: Any) -> ArgumentParser:
        """Add the command ``[command.PATH]`` to the sub-parsers ``sub``; its name is the path's last part."""
        text = self.text(f"command.{path}", **values)
        return sub.add_parser(path.rsplit(".", 1)[-1], help=text.help, description=text.description)
