"""math-arxiv-meta: 345,376 mathematics arXiv records (1991–2019) — the distractor corpus of Re²Math's offline world.

A release of its own (``meta``, ``builder``), with no track: the Re²Math offline worlds index it beside the gold
records (2.0.0 and 2.1.0 version 1.0.0; 2.2.0 version 1.1.0, its ids repaired by ``repair``), and anyone can
``load_dataset`` it.
"""

from lemmata.core.family import Family

FAMILY = Family(
    package=__name__,
    family="math-arxiv-meta",
    releases="meta:RELEASES",
    builders=("builder:MathArxivMetaBuilder", "builder:MathArxivMetaBuilder11"),
)
