"""Re²Math verdicts: Ground, Suff, AnchorMatch and QueryMatch through the judge's scoring artifact.

Each verdict is a rubric question keyed by what is asked (instance, source,
statement) and the sha256 of the exact prompt, so a cached verdict is only
reused for the same question. Without a judge (or without its answer) a
question stays *pending*: shown, never counted as a success.

Every rubric asked is fenced (:mod:`lemmata.oracles.fence`): the statement or
anchor under review, the context and the source text are data blocks, and a
statement or anchor that addresses the judge is settled "no" by the rubric's
rule without asking (``by: "rule"``; the item is flagged ``addresses_grader``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lemmata.core.settings import read as setting
from lemmata.core.errors import LemmataError
from lemmata.core.hashing import sha256_json
from lemmata.oracles.fence import FLAG, addressed
from lemmata.oracles.judge import Judge, JudgeArtifact, default_artifact_dir, load_rubric
from lemmata.benchmarks.re2math.scholar.protocol import OpenedSource
from lemmata.benchmarks.re2math.submission import BENCHMARK

#: characters of a source's frozen text shown to the Ground judge
SOURCE_TEXT_LIMIT = 60_000
#: the fenced successors of ground.v1, suff.v1 (with the anchor hint) and anchor.v1
RUBRIC_VERSIONS = {"ground": 2, "suff": 4, "anchor": 2}
NO_JUDGE = "none"
#: what the query rubric shows where the system recorded no planning anchor (the assisted track, an E3 without one)
NO_ANCHOR = "(no planning anchor recorded)"
ENV_JUDGE_ARTIFACT = "LEMMATA_JUDGE_ARTIFACT"
ENV_CONCURRENCY = "LEMMATA_JUDGE_CONCURRENCY"


def rubrics(versions: Mapping[str, int] | None = None) -> dict[str, Any]:
    """The rubric set asked of the judge: ``versions`` (name -> version), by default :data:`RUBRIC_VERSIONS`.

    An offline frozen tuple asks ``suff.v3`` and ``anchor.v2`` (see
    :mod:`lemmata.benchmarks.re2math.semantics`). The unfenced templates they
    succeed (``suff.v1``, ``suff.v2``, ``ground.v1``, ``anchor.v1``) stay
    loadable so judge artifacts and results made with them still verify.
    """
    return {name: load_rubric(name, version) for name, version in (versions or RUBRIC_VERSIONS).items()}


def judge_artifact_for(judge: Judge | None, folder: str | Path | None = None,
                       versions: Mapping[str, int] | None = None) -> JudgeArtifact | None:
    """The judge artifact to read (and, with a live judge, write) verdicts in.

    ``folder`` (or ``$LEMMATA_JUDGE_ARTIFACT``) names an existing artifact;
    otherwise the default folder of the live judge, or of ``$LEMMATA_JUDGE_ID``.
    None when no judge is known at all: every judged item is then pending.
    """
    from lemmata.oracles.judge import ARTIFACT_FILE, ArtifactManifest

    rubric_set = rubrics(versions)
    folder = folder or setting(ENV_JUDGE_ARTIFACT)
    judge_id = judge.judge_id if judge is not None else None
    describe = judge.describe() if judge is not None else None
    if folder is not None:
        manifest_path = Path(folder) / ARTIFACT_FILE
        if judge_id is None:
            if not manifest_path.is_file():
                raise LemmataError(f"{folder} is not a judge artifact (no {ARTIFACT_FILE}); configure a judge to "
                                   "create one")
            judge_id = ArtifactManifest.model_validate_json(manifest_path.read_text("utf-8")).judge["id"]
        return JudgeArtifact(folder, benchmark=BENCHMARK, judge_id=judge_id, rubrics=rubric_set, describe=describe)
    judge_id = judge_id or setting("LEMMATA_JUDGE_ID")
    if judge_id is None:
        return None
    return JudgeArtifact(default_artifact_dir(BENCHMARK, judge_id, rubric_set), benchmark=BENCHMARK,
                         judge_id=judge_id, rubrics=rubric_set, describe=describe)


def scoring_artifact_id(artifact: JudgeArtifact | None, versions: Mapping[str, int] | None = None) -> str:
    from lemmata.oracles.judge import artifact_id

    return artifact.artifact_id if artifact is not None else artifact_id(BENCHMARK, NO_JUDGE, rubrics(versions))


@dataclass
class Question:
    """One rubric question about one instance (its cache key fields and the template values)."""

    rubric: str
    fields: dict[str, Any]
    values: dict[str, str]
    verdict: dict[str, Any] | None = None
    #: the verdict the rubric's rule gives when the text under review addresses the judge (never asked)
    settled: dict[str, Any] | None = None


def proof_blocks(row: Mapping[str, Any]) -> str:
    blocks = list(row["x"].get("local_context") or [])
    if not blocks:
        return "(no local proof blocks)"
    return "\n\n".join(f"[block {i}]\n{b.strip()}" for i, b in enumerate(blocks, start=1))


def question(rubric: str, iid: str, values: dict[str, str], *, version: int | None = None, **fields: Any) -> Question:
    """Key fields name what is asked; ``prompt_sha256`` pins everything the judge is shown."""
    tmpl = load_rubric(rubric, version or RUBRIC_VERSIONS[rubric])
    prepared = tmpl.prepare(values)
    return Question(rubric=rubric, values=values, settled=tmpl.settle(prepared),
                    fields={"instance_id": iid, **fields, "prompt_sha256": sha256_json(prepared.messages)})


def clipped(text: str, what: str) -> str:
    """A source text as a judge is shown it: at most :data:`SOURCE_TEXT_LIMIT` characters, a cut said so.

    >>> clipped("abc", "frozen"), clipped("x" * (SOURCE_TEXT_LIMIT + 1), "opened")[-46:]
    ('abc', '[… opened text truncated at 60,000 characters]')
    """
    if len(text) > SOURCE_TEXT_LIMIT:
        return text[:SOURCE_TEXT_LIMIT] + f"\n[… {what} text truncated at {SOURCE_TEXT_LIMIT:,} characters]"
    return text


def ground_question(row, source_id: str, materialised: OpenedSource, statement: str) -> Question:
    values = {"source_id": source_id, "source_title": materialised.record.title,
              "source_text": clipped(materialised.text, "frozen"),
              "statement": statement}
    return question("ground", row["instance_id"], values, source_id=source_id, statement=statement)


#: the section an opened world record shows its abstract under (``scholar.world.view.render_opened``)
ABSTRACT_HEADING = "## Abstract"
#: what the known-content rubric shows where the release holds no reference witness
NO_WITNESS = "(no reference witness)"
#: the Ground verdict of a grounding the known content cannot decide: final, never grounded, counted apart
UNGRADABLE = "ungradable"


def known_content_gap(row: Mapping[str, Any], materialised: OpenedSource) -> str | None:
    """Why nothing is known of the cited work to judge a statement against (None: something is): no reference
    witness in the release and an opened record with no abstract — bibliographic data alone states no result.

    >>> class Opened: text = "# T\\n\\nRecord: r1\\nAuthors: A\\n"
    >>> known_content_gap({"y": {"reference_tool_latex": " "}}, Opened())[:40]
    'not enough known content: the release ho'
    >>> known_content_gap({"y": {"reference_tool_latex": "Every x is y."}}, Opened()) is None
    True
    """
    witness = (row["y"].get("reference_tool_latex") or "").strip()
    if witness or ABSTRACT_HEADING in materialised.text.splitlines():
        return None
    return ("not enough known content: the release holds no reference witness and the opened record has no "
            "abstract, so nothing states a result of the cited work")


def known_question(row, source_id: str, materialised: OpenedSource, statement: str, version: int) -> Question:
    """Ground against known content (rubric ``ground_known.v<version>``): is the statement supported by the
    cited work's reference witness and its opened record? Asked only where the selected source is the cited one."""
    values = {"source_id": source_id, "source_title": materialised.record.title,
              "opened_text": clipped(materialised.text, "opened"),
              "reference_witness": (row["y"].get("reference_tool_latex") or "").strip() or NO_WITNESS,
              "statement": statement}
    return question("ground_known", row["instance_id"], values, version=version, source_id=source_id,
                    statement=statement)


def known_reading(triple: tuple[str, str, str]) -> tuple[str, str, str]:
    """A known-content Ground verdict as the metrics read it: the judge's "uncertain" (the known content is not
    enough to decide) is *ungradable* — final, never grounded, counted apart with the bounds it leaves.

    >>> known_reading(("uncertain", "the abstract omits the hypotheses", "judge"))[0]
    'ungradable'
    >>> known_reading(("yes", "Theorem 1", "judge")), known_reading(("pending", "awaiting the judge", "pending"))[0]
    (('yes', 'Theorem 1', 'judge'), 'pending')
    """
    v, reason, by = triple
    if v == "uncertain" and by == "judge":
        return UNGRADABLE, f"not enough known content to decide: {reason}", by
    return triple


def suff_question(row, source_id: str, statement: str, version: int | None = None) -> Question:
    """Suff of ``statement`` for the gap; ``suff.v2``/``suff.v3`` are shown neither source text nor the anchor hint
    (``suff.v1``/``suff.v4`` show the hint)."""
    x = row["x"]
    version = version or RUBRIC_VERSIONS["suff"]
    values = {"setup": x["global_context"]["setup"].strip(), "target_theorem": x["global_context"]["target_theorem"].strip(),
              "local_context": proof_blocks(row), "reference_statement": row["y"]["reference_tool_latex"].strip(),
              "statement": statement}
    if "anchor_hint" in load_rubric("suff", version).fields:
        values["anchor_hint"] = (x.get("anchor_hint") or "").strip() or "(none)"
    return question("suff", row["instance_id"], values, version=version, source_id=source_id, statement=statement)


def anchor_question(row, anchor: str) -> Question:
    x = row["x"]
    values = {"target_theorem": x["global_context"]["target_theorem"].strip(), "local_context": proof_blocks(row),
              "reference_anchor": (x.get("anchor_hint") or "").strip(), "anchor": anchor}
    return question("anchor", row["instance_id"], values, anchor=anchor)


def query_question(row, query: str, anchor: str | None, version: int) -> Question:
    """QueryMatch (rubric ``query.v<version>``): does the recorded planning (the first query and the planning
    anchor) target the gap's proof obligation, the reference anchor?"""
    x = row["x"]
    values = {"target_theorem": x["global_context"]["target_theorem"].strip(), "local_context": proof_blocks(row),
              "reference_anchor": (x.get("anchor_hint") or "").strip(), "query": query, "anchor": anchor or NO_ANCHOR}
    return question("query", row["instance_id"], values, version=version, query=query, anchor=anchor)


def resolve(questions: Sequence[Question], artifact: JudgeArtifact | None, judge: Judge | None, *,
            quiet: bool = True, desc: str = "judging") -> None:
    """Fill ``verdict`` of each question from the cache or the live judge (None stays pending); a question whose
    text under review addresses the judge takes the rubric's rule, with or without a judge."""
    for q in questions:
        if q.settled is not None:
            q.verdict = q.settled
    questions = [q for q in questions if q.settled is None]
    if artifact is None or not questions:
        return
    asked = artifact.obtain_all([(q.rubric, q.fields, q.values) for q in questions], judge, quiet=quiet, desc=desc)
    for q, found in zip(questions, asked):
        q.verdict = found


def verdict(q: Question | None, rule: tuple[str, str] | None) -> tuple[str, str, str]:
    """(verdict, reason, by) where by is 'rule', 'judge' or 'pending'.

    >>> verdict(None, ("abstain", "no statement")), verdict(None, None)[0]
    (('abstain', 'no statement', 'rule'), 'pending')
    """
    if rule is not None:
        return rule[0], rule[1], "rule"
    if q is None or q.verdict is None:
        return "pending", "awaiting the judge", "pending"
    return q.verdict["verdict"], q.verdict.get("reason", ""), "rule" if addressed(q.verdict) else "judge"


def addressing_flags(*questions: Question | None) -> dict[str, bool]:
    """The item flag ``addresses_grader`` when a statement or anchor of the item addressed the judge, else nothing.

    >>> addressing_flags(None, Question("suff", {}, {}, verdict={"verdict": "no", "addresses_grader": ["x"]}))
    {'addresses_grader': True}
    >>> addressing_flags(Question("suff", {}, {}, verdict={"verdict": "yes"}))
    {}
    """
    return {FLAG: True} if any(q is not None and addressed(q.verdict) for q in questions) else {}


def needs_suff(ground: str) -> bool:
    """Suff is asked only where Ground is yes or pending: elsewhere ToolAcc is already settled."""
    return ground in ("yes", "pending")


def conj(a: str, b: str) -> str:
    """Ground ∧ Suff in the metrics' three-valued reading: a final negative settles it, else pending waits.

    >>> conj("yes", "yes"), conj("no", "pending"), conj("pending", "yes"), conj("uncertain", "yes")
    ('yes', 'no', 'pending', 'no')
    """
    from lemmata.metrics.tool_acc import FINAL_NEGATIVES

    if a == "yes" and b == "yes":
        return "yes"
    if a in FINAL_NEGATIVES or b in FINAL_NEGATIVES:
        return "no"
    return "pending"
