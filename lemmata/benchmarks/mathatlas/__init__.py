"""MathAtlas: autoformalization (correct = compiles ∧ faithful) and MA-Align judge accuracy."""

from lemmata.core.family import Condition, Family

FAMILY = Family(
    package=__name__, releases="meta:RELEASES", builders=("builder:MathAtlasBuilder", "builder:MaAlignBuilder"),
    handlers={"mathatlas": "track:MathAtlasHandler", "ma-align": "track:MaAlignHandler"},
    reported="reported:import_reported", runs={"ma-align": "runs:PROTOCOL", "mathatlas": "runs:ATLAS_PROTOCOL"},
    briefs="briefs.toml", conditions=(":DEPENDENCY_CONTEXT",), commands=("calibrate:register",),
)

#: the formalizer was shown the statements its entity's links point to: a different task, so a group of its own
DEPENDENCY_CONTEXT = Condition(flag="context", badge="dependency context", splits=True, value="dependencies",
                               description="the formalizer was shown the statements the entity's dependencies point "
                                           "to (upstream's informal dependency context), not zero-shot")
