"""MathNet-Retrieve: equivalent-problem retrieval (a BEIR release pinned on the Hub; Recall@1/5/10)."""

from lemmata.core.family import Family

FAMILY = Family(
    package=__name__,
    releases="meta:RELEASES",
    builders=("builder:MathNetRetrieveBuilder",),
    handlers={"mathnet-retrieve": "track:MathNetHandler"},
    reported="reported:import_reported",
)
