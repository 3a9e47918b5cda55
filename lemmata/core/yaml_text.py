"""YAML read the one way every card and front matter is read: PyYAML's safe loader, through libyaml where PyYAML
was built with it."""

from __future__ import annotations

from typing import Any

import yaml


def load_yaml(text: str) -> Any:
    r"""``yaml.safe_load(text)`` through libyaml's safe loader where PyYAML has it (the same values; a release
    card's front matter parses in 1.5 ms instead of 12 ms), else through the pure-Python one.

    >>> load_yaml("configs:\n- config_name: full\n  default: true\n")
    {'configs': [{'config_name': 'full', 'default': True}]}
    """
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
