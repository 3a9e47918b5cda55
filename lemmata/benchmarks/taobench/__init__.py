"""TaoBench: Lean exercises from Tao's *Analysis I*, each with a Mathlib twin.

``meta``/``builder``/``schema`` (the two releases), ``lean/`` (lexer, command structure, statement
location, integrity checks), ``submission``/``scoring``/``track`` (the proofs track: pass@k and the paired
Tao − Mathlib gap), ``equivalence``/``equivalence_track`` (cross-framework retrieval), ``reported``,
``example`` and ``baselines``; ``kimina_double`` is the in-process Lean-server double for tests.
"""

from lemmata.core.family import Family

FAMILY = Family(
    package=__name__,
    releases="meta:RELEASES",
    builders=("builder:TaoBench150Builder", "builder:TaoBenchV1Builder"),
    handlers={"taobench": "track:TaoBenchProofsHandler",
              "taobench-equivalence": "equivalence_track:EquivalenceRetrievalHandler"},
    reported="reported:import_reported",
    baselines="baselines:jobs",
    recognisers=("example:recognise_proofs_spec",),
)
