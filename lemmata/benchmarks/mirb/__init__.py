"""MIRB: twelve mathematical IR datasets (fifteen Hub datasets pinned by revision; nDCG@10)."""

from lemmata.core.family import Brief, Family

FAMILY = Family(
    package=__name__, releases="meta:RELEASES", builders=("builder:MirbBuilder",),
    handlers={"mirb": "track:MirbHandler"}, reported="reported:import_reported",
    evaluation={"mirb": "evaluation_tasks:tasks"}, briefs=":BRIEFS",
)

#: what a visitor reads on the overview before any number, per submission benchmark
BRIEFS: dict[str, Brief] = {
    "mirb": Brief(
        task="Retrieve mathematical statements, answers, premises and formulas across twelve datasets.",
        given="the queries and corpus of each MIRB dataset",
        returns="a ranking per query and dataset",
        score_meaning="nDCG@10 per dataset, and their average"),
}
