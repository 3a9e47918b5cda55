"""MathAtlas: autoformalization (correct = compiles ∧ faithful) and MA-Align judge accuracy."""

from lemmata.core.family import Condition, Family, JudgedColumns

FAMILY = Family(
    package=__name__, releases="meta:RELEASES", builders=("builder:MathAtlasBuilder", "builder:MaAlignBuilder"),
    handlers={"mathatlas": "track:MathAtlasHandler", "ma-align": "track:MaAlignHandler"},
    reported="reported:import_reported", runs={"ma-align": "runs:PROTOCOL", "mathatlas": "runs:ATLAS_PROTOCOL"},
    briefs="briefs.toml", paper_tables="paper_tables.toml", conditions=(":DEPENDENCY_CONTEXT",),
    commands=("calibrate:register",),
    judged=(":JUDGED",),
)

#: the formalizer was shown the statements its entity's links point to: a different task, so a group of its own
DEPENDENCY_CONTEXT = Condition(flag="context", badge="dependency context", splits=True, value="dependencies",
                               description="the formalizer was shown the statements the entity's dependencies point "
                                           "to (upstream's informal dependency context), not zero-shot")

#: correct = compiles ∧ faithful: the judge decides the faithful half (``verdicts.obtain``; provenance ``judge``)
JUDGED = JudgedColumns(benchmark="mathatlas", columns=("correct", "faithful_given_compiles"),
                       judge="provenance.judge.id", decides="whether each compiling formalization is faithful",
                       rubrics=("faithful-definition.v1", "faithful-statement.v1"))  # verdicts.RUBRICS (a test pins)
