"""MIRB: twelve mathematical IR datasets (fifteen Hub datasets pinned by revision; nDCG@10)."""

from lemmata.core.family import Family

FAMILY = Family(
    package=__name__, releases="meta:RELEASES", builders=("builder:MirbBuilder",),
    handlers={"mirb": "track:MirbHandler"}, reported="reported:import_reported",
    evaluation={"mirb": "evaluation_tasks:tasks"}, briefs="briefs.toml", paper_tables="paper_tables.toml",
)
