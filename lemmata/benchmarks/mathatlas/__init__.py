"""MathAtlas: autoformalization (correct = compiles ∧ faithful) and MA-Align judge accuracy."""

from lemmata.core.family import Brief, Family

FAMILY = Family(
    package=__name__, releases="meta:RELEASES", builders=("builder:MathAtlasBuilder", "builder:MaAlignBuilder"),
    handlers={"mathatlas": "track:MathAtlasHandler", "ma-align": "track:MaAlignHandler"},
    reported="reported:import_reported", runs={"ma-align": "runs:PROTOCOL"}, briefs=":BRIEFS",
)

#: what a visitor reads on the overview before any number, per submission benchmark
BRIEFS: dict[str, Brief] = {
    "mathatlas": Brief(
        task="Formalize graduate-level statements and definitions in Lean 4.",
        given="a natural-language statement or definition from a textbook",
        returns="a Lean 4 formal statement",
        score_meaning="share of items whose formalization compiles and is judged faithful (correct = compiles ∧ "
                      "faithful)"),
    "ma-align": Brief(
        task="Judge whether a Lean formalization is faithful to its natural-language statement.",
        given="a statement and a Lean 4 formalization of it",
        returns="faithful or not, per pair",
        score_meaning="accuracy against people's labels"),
}
