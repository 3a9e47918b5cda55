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

from lemmata.core.family import Condition, Family, JudgedColumns

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
    baseline_commands=("commands:register_baselines",), briefs="briefs.toml", paper_tables="paper_tables.toml",
    startup=("startup:WORLD",),
    conditions=(":ORACLE_SOURCE", ":LOCAL_ONLY_SCOPE", ":CITE_KEYS_MASKED"), judged=(":JUDGED",),
)

#: the paper's oracle condition (``lemmata run re2math --condition oracle-source``): extraction alone, its own group
ORACLE_SOURCE = Condition(flag="condition", badge="oracle source", splits=True, value="oracle-source",
                          description="the system was handed the cited source's opened text and only extracted the "
                                      "statement (no search, no choice): the paper's oracle condition, headlined by "
                                      "Oracle ToolAcc")
#: the paper's planning-scope ablation (``--scope local_only``): less input than the default, so a group of its own
LOCAL_ONLY_SCOPE = Condition(flag="scope", badge="local-only scope", splits=True, value="local_only",
                             description="the system planned from the local proof blocks alone: the setup and the "
                                         "target theorem were not shown")
#: the offline default for new runs (``--cite-keys``, ``render.system_input``): the instance's own cite key masked in
#: the input. Results stored before carry no flag and read unmasked, so their groups are unchanged; masked runs rank
#: apart
CITE_KEYS_MASKED = Condition(flag="cite_keys", badge="cite key masked", splits=True, value="masked",
                             description="the instance's own citation key was masked in the input (\\cite{?}): "
                                         "the key often names the cited work, so unmasked runs rank apart")
#: the rates a Suff, Ground, AnchorMatch or QueryMatch verdict enters (``aggregate``; provenance ``scoring_artifact``):
#: SourceAcc, CiteRecall and OracleCoverage come from the source-identity matcher, not the judge; the known-content
#: columns also come from rubric ``ground_known``, which a result records among its rubrics (``rubrics_at``)
JUDGED = JudgedColumns(benchmark="re2math", judge="provenance.scoring_artifact.judge.id",
                       rubrics_at="provenance.scoring_artifact.rubrics",
                       columns=("ToolAcc", "OfflineToolAcc", "Oracle ToolAcc", "Oracle OfflineToolAcc", "SuffRate",
                                "GroundRate", "AnchorAcc", "QueryAcc", "AltSourceToolAcc", "AltSourceSuccessRate",
                                "GroundedOfflineToolAcc", "Oracle GroundedOfflineToolAcc", "KnownContentGroundRate",
                                "KnownContentUngradable", "GroundedOfflineToolAccUpper"),
                       decides="Suff (and, live or against known content, Ground), AnchorMatch and QueryMatch of each "
                               "instance")
