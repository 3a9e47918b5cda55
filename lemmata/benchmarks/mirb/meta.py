"""MIRB: the Mathematical Information Retrieval Benchmark (12 datasets, nDCG@10).

Upstream publishes one Hugging Face dataset per task under ``hcju/`` (15
repositories: NaturalProofs is four). The task table below — repository,
revision, dynamic corpus — is transcribed from the paper authors' evaluation
code (GitHub ``j991222/mirb``, ``mteb/tasks/Retrieval/math/*.py`` at commit
``a2b2d600``); the mapping to the dataset names of the paper's Table 9 follows
the task descriptions there. Each repository follows the MTEB retrieval layout:
configs ``corpus`` (``_id``, ``title``?, ``text``), ``queries`` (``_id``,
``text``), ``default`` (qrels: ``query-id``, ``corpus-id``, ``score``; split
``test``) and, for dynamic-corpus tasks, ``excluded_ids`` (``query-id``,
``excluded-ids``): documents that are no candidate for that query.

Licences are per task: each ``hcju/`` card states its own (or none), and the
task files of the authors' code declare none (``license=None``). What each card
states is recorded per task (:class:`CardLicence`); where the card at the pinned
revision could not be read offline the record says so, and the build records
what the card it reads states instead of checking it against a guess.
"""

from __future__ import annotations

from pydantic import Field

from lemmata.core.meta import BenchmarkMeta, ConfigSpec, HubPin, MainScore, RankingSpec
from lemmata.core.models import Frozen

UPSTREAM_CODE = "j991222/mirb"
UPSTREAM_CODE_COMMIT = "a2b2d600d3e786b395f60ec58ce2fa9150a3a5c2"
MAIN_METRIC = "ndcg@10"


class CardLicence(Frozen):
    """A task's licence as its Hub card states it at the pinned revision, and how far that was checked."""

    stated: str | None = Field(description="the card's `license:` value, as read on the card at the pinned "
                                            "revision; None: not verified (the card could not be read offline)")
    evidence: str = Field(description="where the record comes from, and what could not be seen")

    @property
    def verified(self) -> bool:
        return self.stated is not None


#: what stands behind a licence record where the card itself could not be read
_NOT_READ = (f"not verified: the Hub card at the pinned revision could not be read offline; the task file of the "
             f"authors' code ({UPSTREAM_CODE} @ {UPSTREAM_CODE_COMMIT[:8]}) declares license=None")
CARD_LICENCES: dict[str, CardLicence] = {
    "leanps": CardLicence(stated=None, evidence=(
        "not verified: a note compiled from stored Hub pages reports `license: mit` on the card at the pinned "
        "revision, but the card itself could not be read offline; the authors' task file declares license=None")),
    "mathlibretrieval": CardLicence(stated=None, evidence=(
        "not verified: a stored copy of the Hub file listing at the pinned revision (c510980, 'Update README.md') "
        "shows a License field whose value the copy does not keep; the authors' task file declares license=None")),
}


class MirbTask(Frozen):
    """One upstream Hub dataset and where its score goes in the paper's table."""

    name: str  # split name in the release, = the repository name under hcju/
    dataset: str  # the paper's dataset key (mirb_paper.json); NaturalProofs has four tasks
    title: str
    category: str
    revision: str
    dynamic_corpus: bool
    query_prompt: str
    licence: CardLicence = CardLicence(stated=None, evidence=_NOT_READ)

    @property
    def repo_id(self) -> str:
        return f"hcju/{self.name}"


_PS = ("Given a math theorem, retrieve useful references, such as theorems, lemmas, and definitions, that are "
       "useful for proving the given theorem.")
_DUPLICATES = "Given a math question, retrieve questions that are duplicates of the given one"
_PROOF = "Given a math theorem, retrieve its proof."


def _premises(query: str) -> str:
    """The prompt of a formal premise-retrieval task whose queries are ``query`` (a proof state, a conjecture)."""
    return f"Given {query}, retrieve the declarations that are useful for proving it."


#: category -> (name, dataset, title, revision, dynamic corpus, query prompt) of each of its tasks
_TASKS_BY_CATEGORY: dict[str, tuple[tuple[str, str, str, str, bool, str], ...]] = {
    "semantic statement retrieval": (
        ("mathlibretrieval", "informalized_mathlib4", "Informalized Mathlib4 retrieval",
         "c5109809d6b9e9704edde7e89faffeda3a066be1", False, "Given a mathematical query, retrieve relevant theorems."),
        ("msedup", "mse_dup_question", "Math StackExchange duplicate questions",
         "fda2c63e29fbd6e09426d8ad87bfe41f9e5dedf3", True, _DUPLICATES),
        ("modup", "mo_dup_question", "MathOverflow duplicate questions",
         "b123b60d6ccaad16eb0305f3f35e14dd557c0962", True, _DUPLICATES),
    ),
    "question-answer retrieval": (
        ("mseqa", "arqmath_task1", "ARQMath Task 1 (answer retrieval)",
         "056c9ccf55e4850967e53e0c5267ca40c6c321c0", True, "Given a math problem, retrieve its solution."),
        ("proofwikiqa", "proofwiki_qa", "ProofWiki theorem-proof retrieval",
         "595dfde06810d59921566d3b2091aaccfb0793d5", False, _PROOF),
        ("stacksqa", "stacks_qa", "Stacks Project theorem-proof retrieval",
         "77b3ec1d53eb3ef97e825640a5cf09b6ea4b173d", False, _PROOF),
    ),
    "premise retrieval": (
        ("proofwikips", "naturalproofs", "NaturalProofs: ProofWiki premises",
         "a54bdf7d580390e1d35ae99c728f56cd842f72ec", False, _PS),
        ("stacksps", "naturalproofs", "NaturalProofs: Stacks premises",
         "dc05e6bda28f6fe7fa659f03bc4f86b7f7d60ea1", False, _PS),
        ("realanalysisps", "naturalproofs", "NaturalProofs: real analysis premises",
         "87a45bc950b2be637b294263db799043a5d0d5e4", True, _PS),
        ("numbertheoryps", "naturalproofs", "NaturalProofs: number theory premises",
         "4607d837e0bfd917a4ace426a3156d16109063c8", True, _PS),
        ("leanps", "leandojo", "LeanDojo premise retrieval (Lean 4)",
         "7d07605ffd06738555b3a4ed5edea3beccc7363d", False, _premises("a Lean 4 proof state")),
        ("isabelleps", "mapl", "MAPL premise retrieval (Isabelle)",
         "9370d325d494b7c42a927242c857f8465c23deb6", False, _premises("an Isabelle proof state")),
        ("holps", "holstep", "HolStep premise retrieval (HOL Light)",
         "a2272075a0e0789e3ee1ac0694104d234fd701c4", False, _premises("a HOL conjecture")),
    ),
    "formula retrieval": (
        ("wikiformula", "ntcir_wfb", "NTCIR-12 Wikipedia formula browsing",
         "81ffeb15150f5c4619c088df9a458859af873613", True, "Given a math formula, retrieve relevant formulas."),
        ("mseformula", "arqmath_task2", "ARQMath Task 2 (formula retrieval)",
         "6f9ff65757f6657f4f6083d1caecee261396c6f3", True,
         "Given a math formula and its context, retrieve relevant formulas."),
    ),
}

TASKS: tuple[MirbTask, ...] = tuple(
    MirbTask(name=name, dataset=dataset, title=title, category=category, revision=revision, dynamic_corpus=dynamic,
             query_prompt=prompt, **({"licence": CARD_LICENCES[name]} if name in CARD_LICENCES else {}))
    for category, rows in _TASKS_BY_CATEGORY.items() for name, dataset, title, revision, dynamic, prompt in rows
)

#: the paper's twelve datasets, in Table 9 order; each is the mean of its tasks' scores
DATASETS: tuple[str, ...] = tuple(dict.fromkeys(t.dataset for t in TASKS))
TASK_NAMES: tuple[str, ...] = tuple(t.name for t in TASKS)


def task(name: str) -> MirbTask:
    from lemmata.core.registry import suggest

    for t in TASKS:
        if t.name == name:
            return t
    raise KeyError(suggest("MIRB task", name, TASK_NAMES))


CITATION = """@article{ju2025mirb,
  title   = {{MIRB}: Mathematical Information Retrieval Benchmark},
  author  = {Ju, Haocheng and Dong, Bin},
  journal = {arXiv preprint arXiv:2505.15585},
  year    = {2025},
  url     = {https://arxiv.org/abs/2505.15585}
}"""

MIRB = BenchmarkMeta(
    name="mirb", family="mirb",
    title="MIRB: Mathematical Information Retrieval Benchmark",
    description=(
        "Twelve mathematical retrieval datasets in four tasks — semantic statement retrieval, question-answer "
        "retrieval, premise retrieval and formula retrieval — over natural language, LaTeX and formal languages "
        "(Lean 4, Isabelle, HOL Light). Scored by nDCG@10 per dataset; the benchmark score is the mean over the "
        "twelve datasets, NaturalProofs being the mean of its four subsets."
    ),
    version="1.0.0", released="2026-11-21",
    task_type="information-retrieval",
    upstream_repo=UPSTREAM_CODE,
    upstream_commit=UPSTREAM_CODE_COMMIT,
    paper_url="https://arxiv.org/abs/2505.15585",
    hub=tuple(HubPin(repo_id=t.repo_id, revision=t.revision, configs=("corpus", "queries", "default")
                     + (("excluded_ids",) if t.dynamic_corpus else ()), description=f"{t.title} ({t.dataset})")
              for t in TASKS),
    license="per task, as stated on each hcju/ Hub card (listed in the release card)",
    license_id="other",
    license_note=(
        "Licences differ per task: each hcju/ card states its own (or none), and the authors' evaluation code "
        "states none. The release card lists, per task, the licence stated on the card of the snapshot the build "
        "read; no card could be read offline at the pinned revision when this release was described, so none of "
        "them is checked against a recorded value. Each subset is derived from a public source with its own "
        "terms (for example, Mathematics Stack Exchange and MathOverflow posts are licensed CC BY-SA); check the "
        "source of a subset before redistributing it."
    ),
    citation=CITATION,
    authors=("Haocheng Ju", "Bin Dong"),
    configs=(
        ConfigSpec(name="qrels", description="relevance judgements of the test split, one split per task",
                   splits=TASK_NAMES, default=True),
        ConfigSpec(name="queries", description="queries, one split per task", splits=TASK_NAMES),
        ConfigSpec(name="corpus", description="documents, one split per task", splits=TASK_NAMES),
        ConfigSpec(name="excluded_ids",
                   description="per-query documents that are no candidate for that query (dynamic-corpus tasks)",
                   splits=tuple(t.name for t in TASKS if t.dynamic_corpus)),
    ),
    main_score=MainScore(metric="nDCG@10",
                         description="mean nDCG@10 over the twelve datasets (NaturalProofs = mean of its four "
                                     "subsets)"),
    tracks=("zero-shot",),
    tags=("mathematics", "retrieval", "beir", "mteb", "premise-selection", "formula-retrieval"),
    ranking=RankingSpec(
        measures=("ndcg@10", "recall@10", "mrr@10"), main_metric=MAIN_METRIC,
        schema_file="mirb-submission.schema.json",
        schema_title="MIRB submission, format lemmata-submission/1 (one JSONL line)",
        schema_description="MIRB submission files are UTF-8 JSONL: line 1 is the header (Header), every further line "
                           "a record (MirbRankingRecord). See submissions/mirb/README.md.",
    ),
)

RELEASES = (MIRB,)
