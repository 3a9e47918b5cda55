"""Release builders, looked up by benchmark family (``lemmata build <family>``)."""

from __future__ import annotations

import importlib

from lemmata.registry import suggest

#: family -> builder classes ("module:Class"), imported only when used
BUILDERS: dict[str, tuple[str, ...]] = {
    "re2math": ("lemmata.builders.re2math:Re2MathBuilder",),
    "taobench": ("lemmata.builders.taobench:TaoBench150Builder", "lemmata.builders.taobench:TaoBenchV1Builder"),
    "mathnet": ("lemmata.builders.mathnet:MathNetRetrieveBuilder",),
    "mirb": ("lemmata.builders.mirb:MirbBuilder",),
    "mathatlas": ("lemmata.builders.mathatlas:MathAtlasBuilder", "lemmata.builders.mathatlas:MaAlignBuilder"),
    "math-arxiv-meta": ("lemmata.builders.math_arxiv_meta:MathArxivMetaBuilder",),
}


def builder_classes(family: str) -> list[type]:
    if family not in BUILDERS:
        raise KeyError(suggest("benchmark", family, BUILDERS))
    out = []
    for ref in BUILDERS[family]:
        module, _, cls = ref.partition(":")
        out.append(getattr(importlib.import_module(module), cls))
    return out
