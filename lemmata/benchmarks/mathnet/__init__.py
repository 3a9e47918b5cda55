"""MathNet: equivalent-problem retrieval (MathNet-Retrieve, Recall@1/5/10) and olympiad problem solving with
retrieval-augmented solving (MathNet-Solve, MathRAG), from releases pinned on the Hub."""

from lemmata.core.family import Brief, Family

FAMILY = Family(
    package=__name__, releases="releases:RELEASES",
    builders=("builder:MathNetRetrieveBuilder", "solve_builder:MathNetSolveBuilder"),
    handlers={"mathnet-retrieve": "track:MathNetHandler", "mathnet-solve": "solve_track:MathNetSolveHandler"},
    reported="reported:import_reported", evaluation={"mathnet-retrieve": "evaluation_tasks:tasks"},
    runs={"mathnet": "runs:PROTOCOL"}, commands=("commands:register",), panels=("panel:PANEL",), briefs=":BRIEFS",
)

#: what a visitor reads on the overview before any number, per submission benchmark
BRIEFS: dict[str, Brief] = {
    "mathnet-retrieve": Brief(
        task="Retrieve the mathematically equivalent reformulation of an olympiad problem.",
        given="an olympiad problem and a shared corpus of problems",
        returns="a ranking of corpus documents per problem",
        score_meaning="Recall@5: share of problems whose equivalent is in the top 5"),
}
