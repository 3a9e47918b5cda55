"""Data files shipped inside the package (prose tables such as briefs and the glossary), read through
:mod:`importlib.resources` so that an installed wheel reads them as a checkout does."""

from __future__ import annotations

from typing import Any

from lemmata.core.errors import Error


def read_toml(package: str, name: str) -> dict[str, Any]:
    """The TOML file ``name`` inside ``package``; a syntax error names the file and line.

    >>> sorted(read_toml("lemmata.metrics", "glossary.toml"))
    ['term']
    """
    import tomllib
    from importlib.resources import files

    text = files(package).joinpath(name).read_text(encoding="utf-8")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise Error(f"{package.replace('.', '/')}/{name}: {e}") from None
