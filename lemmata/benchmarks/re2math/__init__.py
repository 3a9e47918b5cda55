"""Re²Math: find a source-grounded theorem that closes a gap in a research proof.

``meta`` (release metadata), ``builder`` (the release), ``schema``/``papers``/``splits``/``render``
(instances, citing papers, splits, agent input), ``scholar/`` (the frozen scholarly artifact, query
caches, SerpAPI, source identity), ``submission``/``scoring`` (the ToolAcc track), ``theorem_retrieval``/
``theorem_track`` (the BEIR theorem-retrieval track), ``source_retrieval``/``source_track`` (the BEIR
source-retrieval track over the offline world), ``reported`` (the paper's rows), ``agent`` and
``baselines`` (offline baselines).
"""

from lemmata.core.family import Family

FAMILY = Family(
    package=__name__,
    releases="meta:RELEASES",
    builders=("builder:Re2MathBuilder",),
    handlers={"re2math": "scoring:Re2MathHandler", "re2math-theorem-retrieval": "theorem_track:TheoremRetrievalHandler",
              "re2math-source-retrieval": "source_track:SourceRetrievalHandler"},
    reported="reported:import_reported",
    baselines="baselines:jobs",
)
