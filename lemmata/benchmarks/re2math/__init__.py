"""Re²Math: find a source-grounded theorem that closes a gap in a research proof.

``meta`` (release metadata), ``builder`` (the release), ``schema``/``papers``/``splits``/``render``
(instances, citing papers, splits, agent input), ``scholar/`` (the frozen scholarly artifact, query
caches, SerpAPI, source identity), ``submission``/``scoring`` (the ToolAcc track), ``theorem/`` (the BEIR
theorem-retrieval track: ``retrieval`` derives it from the release, ``track`` scores runs), ``source/`` (the BEIR
source-retrieval track over the offline world, the same two modules), ``agent/`` (the agents and the live protocol:
``lexical`` the non-LLM offline agent, ``live_agent`` the live reference agent with the paper's prompts E3 and E4 in
``agent/prompts/``, ``live`` scoring against a live frozen tuple), ``reported`` (the paper's rows) and
``baselines`` (offline baselines).
"""

from lemmata.core.family import Brief, Family

FAMILY = Family(
    package=__name__, releases="meta:RELEASES", builders=("builder:Re2MathBuilder",),  # what it publishes
    artifacts="scholar.worlds:WORLDS",
    handlers={"re2math": "scoring:Re2MathHandler", "re2math-theorem-retrieval": "theorem.track:TheoremRetrievalHandler",
              "re2math-source-retrieval": "source.track:SourceRetrievalHandler"},  # what it scores
    reported="reported:import_reported", baselines="baselines:jobs",
    evaluation={"re2math-theorem-retrieval": "evaluation_tasks:tasks",  # how a model runs on it
                "re2math-source-retrieval": "evaluation_tasks:tasks"},
    evaluation_on_request=("re2math-source-retrieval",), runs={"re2math": "runs:PROTOCOL"},  # 354k records: by name
    commands=("commands:register_render", "commands:register", "scholar.commands:register"),  # its own verbs
    baseline_commands=("commands:register_baselines",), briefs=":BRIEFS", startup=("startup:WORLD",),
)

#: what a visitor reads on the overview before any number, per submission benchmark
BRIEFS: dict[str, Brief] = {
    "re2math": Brief(
        task="Find the theorem, in the literature, that closes a gap in a research-level proof.",
        given="the paper's setup, the target theorem and the proof blocks before the gap, and a search tool over a "
              "frozen offline scholarly world",
        returns="the source it cites and the statement it takes from it",
        score_meaning="share of gaps where the statement comes from the right source (Ground) and closes the gap "
                      "(Suff); offline, grounding is judged against the frozen world (OfflineToolAcc)"),
    "re2math-theorem-retrieval": Brief(
        task="Rank reference statements so that the one closing a proof gap comes first.",
        given="a rendered proof state (raw, or with the paper's anchor hint)",
        returns="a ranking of the release's reference statements",
        score_meaning="nDCG@10 of the relevant statement over the queries"),
    "re2math-source-retrieval": Brief(
        task="Rank the records of the offline scholarly world so that the cited source comes first.",
        given="a rendered proof state",
        returns="a ranking of the world's records",
        score_meaning="nDCG@10 of the cited source over the queries (Recall@k and MRR alongside)"),
}
