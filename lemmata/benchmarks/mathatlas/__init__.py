"""MathAtlas: autoformalization (correct = compiles ∧ faithful) and MA-Align judge accuracy."""

from lemmata.core.family import Family

FAMILY = Family(
    package=__name__, releases="meta:RELEASES", builders=("builder:MathAtlasBuilder", "builder:MaAlignBuilder"),
    handlers={"mathatlas": "track:MathAtlasHandler", "ma-align": "track:MaAlignHandler"},
    reported="reported:import_reported", runs={"ma-align": "runs:PROTOCOL"}, briefs="briefs.toml",
)
