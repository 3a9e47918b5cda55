"""Registration of every benchmark's track handler (imported lazily by :mod:`lemmata.scoring.base`).

One line per benchmark: ``register_handler(<header benchmark value>, "<module>:<Class>")``.
"""

from lemmata.scoring.base import register_handler  # noqa: F401

register_handler("mathnet-retrieve", "lemmata.hubtracks.mathnet:MathNetHandler")
register_handler("mirb", "lemmata.hubtracks.mirb:MirbHandler")
register_handler("mathatlas", "lemmata.hubtracks.mathatlas:MathAtlasHandler")
register_handler("ma-align", "lemmata.hubtracks.mathatlas:MaAlignHandler")
register_handler("re2math-theorem-retrieval", "lemmata.retrieval_tracks:TheoremRetrievalHandler")
register_handler("taobench-equivalence", "lemmata.retrieval_tracks:EquivalenceRetrievalHandler")
register_handler("re2math", "lemmata.re2math.scoring:Re2MathHandler")
register_handler("taobench", "lemmata.taobench.track:TaoBenchProofsHandler")
