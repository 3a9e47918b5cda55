"""MathAtlas verdicts from oracles only: the Lean server says whether a formalization compiles, a judge whether it
is faithful; what a submitter states about either is never read.

The protocol is the authors' (``offendo/math-atlas``, ``benchmarks/common.py``: ``verify_batch``,
``judge_and_attach``, ``parse_judgement``; ``benchmarks/run_benchmark.py``):

- **compiles**: the formalization, its own ``import`` lines dropped, is checked under the forced header
  ``import Mathlib`` / ``import Aesop`` (:func:`~lemmata.benchmarks.mathatlas.extract.with_forced_header`) by a
  Kimina Lean server (:class:`~lemmata.oracles.lean.LeanVerifier`, ``LEMMATA_LEAN_URL``), one item per snippet
  with the server's per-item timeout (``LEMMATA_LEAN_TIMEOUT_S``, default 60 s as upstream). It compiles when
  Lean reports no error and the check did not time out; ``sorry`` is expected (a statement is asked for
  ``by sorry``), so a ``declaration uses 'sorry'`` warning does not fail it and is counted in the verdict.
  Verdicts go to the hash-chained cache of a :class:`~lemmata.oracles.lean.LeanArtifact` whose identity
  (verifier, Lean and Mathlib versions, timeout) is part of the result's frozen tuple.
- **faithful**: judged only for compiling items, by the configured chat judge (``LEMMATA_JUDGE_*``) under two
  fenced rubrics, ``faithful-statement.v1`` (theorems, examples, exercises; after upstream's CriticLean prompt)
  and ``faithful-definition.v1`` (definitions; after upstream's definition prompt), the formalization shown as
  data. The reply must be ``{"reasoning": str, "result": "aligned" | "misaligned"}`` (upstream's
  ``ALIGNMENT_SCHEMA``); thinking before ``</think>`` is dropped first, as upstream does; a reply that is not
  that object (prose, a refusal, another field) is recorded as misaligned with the reply kept in its reasoning.
  Verdicts go to the hash-chained cache of a :class:`~lemmata.oracles.judge.JudgeArtifact`.

Without an oracle (and no verdict on record) an item is *pending*: never correct, counted in the bounds, and
``lemmata judge`` fills it in as a new result version.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, StrictStr

from lemmata.benchmarks.mathatlas.extract import FORCED_HEADER, with_forced_header
from lemmata.benchmarks.mathatlas.templates import templates
from lemmata.core.hashing import sha256_bytes
from lemmata.oracles.chat import ChatConfig, ChatJudge
from lemmata.oracles.judge import MAX_REASON_CHARS, Judge, JudgeArtifact, Rubric, parse_reply, shown_reply

BENCHMARK = "mathatlas"
#: the judge rubric of each kind of entity (a definition, or a statement: theorem, example, exercise)
RUBRICS = {"definition": ("faithful-definition", 1), "statement": ("faithful-statement", 1)}
#: checks the Lean artifact records beside the verifier identity: the forced header and this verdict rule
LEAN_CHECKS = {"header": " + ".join(FORCED_HEADER), "verdict": "mathatlas-compile/1"}
MAX_ERRORS_KEPT = 5
MAX_MESSAGE_CHARS = 500

__all__ = ["Alignment", "AlignmentJudge", "ItemVerdict", "alignment_judge_from", "compile_verdict", "obtain",
           "parse_alignment", "rubrics"]


class Alignment(BaseModel):
    """The only reply shape a faithfulness judge may give (upstream ``ALIGNMENT_SCHEMA``)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    reasoning: StrictStr
    result: Literal["aligned", "misaligned"]


def parse_alignment(reply: str) -> Alignment | None:
    """The judgement in a reply, thinking before ``</think>`` dropped; None unless it is exactly one such object.

    >>> parse_alignment('<think>hmm</think>{"reasoning": "same hypotheses", "result": "aligned"}').result
    'aligned'
    >>> parse_alignment('```json\\n{"reasoning": "r", "result": "misaligned"}\\n```').result
    'misaligned'
    >>> [parse_alignment(t) for t in ('{"reasoning": "r", "result": "Correct"}', "I cannot help with that.",
    ...                               '{"result": "aligned"}', 'Sure: {"reasoning": "r", "result": "aligned"}')]
    [None, None, None, None]
    """
    text = reply.split("</think>", 1)[1] if "</think>" in reply else reply
    found = parse_reply(text, Alignment)
    if found is not None and len(found.reasoning) > MAX_REASON_CHARS:
        found = found.model_copy(update={"reasoning": found.reasoning[:MAX_REASON_CHARS] + " …"})
    return found


def misaligned(raw: str) -> Alignment:
    """What is recorded for a reply that is not a judgement: misaligned (as upstream), the reply kept."""
    return Alignment(reasoning=f"unparsable judge reply: {shown_reply(raw)!r}", result="misaligned")


class AlignmentJudge(ChatJudge):
    """The configured chat judge, reading MathAtlas's ``{reasoning, result}`` replies."""

    read_reply = staticmethod(parse_alignment)
    when_unreadable = staticmethod(misaligned)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "reply": "reasoning/result (aligned|misaligned)"}


def alignment_judge_from(judge: Any) -> Judge | None:
    """The faithfulness judge of a configured oracle: an alignment judge as is, a chat judge's endpoint as one."""
    if judge is None or isinstance(judge, AlignmentJudge) or getattr(judge, "reads_alignment", False):
        return judge
    config = getattr(judge, "config", None)
    return AlignmentJudge(config) if isinstance(config, ChatConfig) else None


@lru_cache(maxsize=None)
def rubrics() -> dict[str, Rubric]:
    """The two shipped judge rubrics, by entity kind."""
    return templates(RUBRICS)


def rubric_kind(entity_type: str) -> str:
    return "definition" if entity_type == "definition" else "statement"


def compile_verdict(check: Any, identity: Mapping[str, Any]) -> dict[str, Any]:
    """Lean's answer on one formalization as a cached verdict: compiles unless an error or a timeout.

    >>> from lemmata.oracles.lean import CheckResult, LeanMessage
    >>> ident = {"verifier": "kimina", "lean_version": "4.24.0", "mathlib_version": "v4.24.0", "timeout_s": 60}
    >>> ok = CheckResult(id="a", messages=(LeanMessage(severity="warning", data="declaration uses 'sorry'"),))
    >>> v = compile_verdict(ok, ident); v["compiles"], v["sorries"], v["reason"]
    (True, 1, 'compiles')
    >>> compile_verdict(CheckResult(id="a", error="Lean REPL command timed out in 60 seconds"), ident)["reason"]
    'timed out after 60 s'
    """
    errors = check.errors()
    sorries = max(len(check.sorries), sum(1 for m in check.messages if m.severity == "warning"
                                          and "declaration uses 'sorry'" in m.data))
    where = (f"line {errors[0].pos.line}: " if errors and errors[0].pos else "")
    reason = (f"timed out after {identity.get('timeout_s')} s" if check.timed_out
              else f"{len(errors)} error(s); first at {where}{errors[0].data[:200]}" if errors else "compiles")
    kept = [{"line": m.pos.line if m.pos else None, "message": m.data[:MAX_MESSAGE_CHARS]}
            for m in errors[:MAX_ERRORS_KEPT]]
    checked = {k: identity[k] for k in ("verifier", "lean_version", "mathlib_version", "timeout_s")}
    return {"compiles": reason == "compiles", "reason": reason, "error_count": len(errors), "sorries": sorries,
            "errors": kept, "timed_out": check.timed_out, "time_s": round(check.time_s, 3), **checked}


def lean_artifact(oracles: Any):
    """The Lean artifact to read (and, with a live verifier, to append to): ``extra["lean_artifact"]`` (or
    ``LEMMATA_LEAN_ARTIFACT``) unless it holds another benchmark's verdicts, else the live verifier's default
    folder; None without either (compilation pending)."""
    from lemmata.core.settings import read as setting
    from lemmata.oracles.artifact import ARTIFACT_FILE
    from lemmata.oracles.lean import LeanArtifact, LeanArtifactManifest, default_artifact_dir

    folder = oracles.extra.get("lean_artifact") or setting("LEMMATA_LEAN_ARTIFACT")
    manifest = Path(folder) / ARTIFACT_FILE if folder else None
    if manifest is not None and manifest.is_file():
        if LeanArtifactManifest.model_validate_json(manifest.read_text("utf-8")).benchmark != BENCHMARK:
            folder = None  # another benchmark's verdicts (`lemmata judge --lean-artifact` serves every benchmark)
        elif oracles.lean is None:
            found = LeanArtifact.open(folder)
            return found if found.checks == LEAN_CHECKS else None  # verdicts made under another rule: not ours
    verifier = oracles.lean
    if verifier is None:
        return None
    return LeanArtifact(folder or default_artifact_dir(BENCHMARK, verifier.identity), benchmark=BENCHMARK,
                        identity=verifier.identity, checks=LEAN_CHECKS)


def judge_artifact(judge: Judge | None, folder: Any = None):
    """The faithfulness judge's artifact: ``folder`` (or ``LEMMATA_JUDGE_ARTIFACT``) when it is this judge's or no
    judge is live, else the judge's default folder; None without a judge or a folder (faithfulness pending)."""
    from lemmata.core.settings import read as setting
    from lemmata.oracles.judge import ARTIFACT_FILE, ArtifactManifest, default_artifact_dir

    folder = folder or setting("LEMMATA_JUDGE_ARTIFACT")
    found = Path(folder) / ARTIFACT_FILE if folder else None
    recorded = ArtifactManifest.model_validate_json(found.read_text("utf-8")) if found and found.is_file() else None
    if recorded is not None and recorded.benchmark != BENCHMARK:
        folder = recorded = None
    judge_id = judge.judge_id if judge is not None else (recorded.judge["id"] if recorded else None)
    if judge_id is None:
        return None
    if recorded is not None and recorded.judge.get("id") != judge_id:
        folder = None
    return JudgeArtifact(folder or default_artifact_dir(BENCHMARK, judge_id, rubrics()), benchmark=BENCHMARK,
                         judge_id=judge_id, rubrics=rubrics(), describe=judge.describe() if judge else None)


@dataclass(frozen=True)
class ItemVerdict:
    """One entity's verdicts: ``compile`` and ``judgement`` as recorded (None: pending or not asked)."""

    compiles: str
    faithful: str
    compile: dict[str, Any] | None = None
    judgement: dict[str, Any] | None = None


@dataclass(frozen=True)
class Verdicts:
    """Every entity's verdicts and the artifacts they came from (None: that oracle is missing)."""

    items: dict[str, ItemVerdict]
    lean: Any = None
    judge: Any = None

    @property
    def scoring_artifact(self) -> str:
        lean = self.lean.artifact_id if self.lean is not None else "mathatlas-lean:none"
        judge = self.judge.artifact_id if self.judge is not None else "mathatlas-judge:none"
        return f"{lean}+{judge}"


def _faithful(verdict: Mapping[str, Any] | None) -> str:
    if verdict is None:
        return "pending"
    return "yes" if verdict.get("result") == "aligned" and verdict.get("parsed", True) is True else "no"


def obtain(release: str, entities: Mapping[str, Any], formal: Mapping[str, str | None],
           informal: Mapping[str, str], oracles: Any, *, quiet: bool = True) -> Verdicts:
    """The verdicts of every entity of ``entities`` (``id -> Entity``) on the formalizations ``formal``
    (``id -> Lean text``, None or absent: abstained), read from the artifacts and asked of the live oracles."""
    lean = lean_artifact(oracles)
    judge = alignment_judge_from(oracles.extra.get("judge") or oracles.judge)
    jart = judge_artifact(judge, oracles.extra.get("judge_artifact"))
    shas = {e: sha256_bytes(t.encode("utf-8")) for e, t in formal.items() if t is not None and e in entities}
    fields = {e: {"release": release, "entity_id": e, "formal_sha256": sha} for e, sha in shas.items()}
    compiled: dict[str, dict[str, Any] | None] = {e: lean.lookup(**f) if lean else None for e, f in fields.items()}
    todo = {e: with_forced_header(formal[e] or "") for e, v in compiled.items() if v is None}
    if todo and oracles.lean is not None and lean is not None:
        identity = oracles.lean.identity.model_dump()
        for e, check in oracles.lean.check(todo).items():
            if check is not None:
                compiled[e] = lean.record(compile_verdict(check, identity), verifier=oracles.lean, **fields[e])
    judged: dict[str, dict[str, Any] | None] = {}
    passing = [e for e, v in compiled.items() if v is not None and v.get("compiles")]
    if passing and jart is not None:
        questions = [(rubric_kind(entities[e].type), {**fields[e], "kind": rubric_kind(entities[e].type)},
                      {"informal": informal[e], "formal": formal[e] or ""}) for e in passing]
        judged = dict(zip(passing, jart.obtain_all(questions, judge, quiet=quiet, desc="MathAtlas faithfulness")))
    items = {}
    for e in entities:
        verdict = compiled.get(e)
        if e not in fields:
            items[e] = ItemVerdict("abstain", "abstain")
        elif verdict is None:
            items[e] = ItemVerdict("pending", "pending")
        elif not verdict.get("compiles"):
            items[e] = ItemVerdict("no", "not_evaluable", verdict)
        else:
            items[e] = ItemVerdict("yes", _faithful(judged.get(e)), verdict, judged.get(e))
    return Verdicts(items, lean=lean, judge=jart)
