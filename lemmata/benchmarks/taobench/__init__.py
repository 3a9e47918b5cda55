"""TaoBench: Lean exercises from Tao's *Analysis I*, each with a Mathlib twin.

``meta``/``builder``/``schema`` (the two releases), ``lean/`` (lexer, command structure, statement
location, integrity checks), ``submission``/``scoring``/``track`` (the proofs track: pass@k and the paired
Tao − Mathlib gap), ``equivalence``/``equivalence_track`` (cross-framework retrieval), ``reported``,
``example`` and ``baselines``; ``kimina_double`` is the in-process Lean-server double for tests.
"""

from lemmata.core.family import Condition, Family

FAMILY = Family(
    package=__name__, releases="meta:RELEASES", builders=("builder:TaoBench150Builder", "builder:TaoBenchV1Builder"),
    handlers={"taobench": "track:TaoBenchProofsHandler",  # what it scores
              "taobench-equivalence": "equivalence_track:EquivalenceRetrievalHandler"},
    recognisers=("example:recognise_proofs_spec",), conditions=(":TRAINED_ON_TAOBENCH", ":WITHOUT_CONTEXT"),
    reported="reported:import_reported", baselines="baselines:jobs",
    evaluation={"taobench-equivalence": "evaluation_tasks:tasks"}, runs={"taobench": "runs:PROTOCOL"},
    commands=("commands:register",), baseline_commands=("commands:register_baselines",), briefs="briefs.toml",
    paper_tables="paper_tables.toml", headlines={"taobench": "scoring:headlines"},
)

#: a disclosure badge on TaoBench rows (not a split: the task and the estimate are the same)
TRAINED_ON_TAOBENCH = Condition(flag="trained_on_taobench", badge="trained on TaoBench", splits=False,
                                description="weights or prompts were tuned on TaoBench or its source formalization")

#: the paper's without-context ablation (``lemmata run taobench --condition without-context``): the model saw the
#: exercise's statement alone, so a group of its own
WITHOUT_CONTEXT = Condition(flag="condition", badge="no local context", splits=True, value="without-context",
                            description="the model saw the exercise's statement alone, none of the local definitions "
                                        "its file declares before it (the paper's without-context ablation)")
