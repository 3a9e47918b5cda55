"""TaoBench's protocol for a chat model: sample N whole proofs per exercise and formulation, submit every one.

For every scoreable exercise of a release, in both formulations (Tao's
framework and the Mathlib twin), the model sees the official Lean file and is
asked (prompt ``prompts/prove.v1.md``) for the declaration with a proof. Sample
``i`` of ``N`` is drawn with seed ``seed + i`` (when a seed is set), so the N
draws are distinct requests and each is cached on its own.

**Extraction** (:func:`extract_proof`) takes the last fenced code block of the
reply: a block holding the whole file (it has ``import`` lines) is the attempt
as it is; a block declaring the exercise has its body (``:= …``) spliced into
the official file under the *official* statement; a bare ``by …`` / ``:= …``
block is spliced the same way. Helper declarations a model writes before the
theorem are not carried over in this version of the protocol.

**Every sample is submitted**: a reply with no usable proof (a refusal, a
truncated completion, no code block, an endpoint that never answered) is
submitted as the official file unchanged — still ``sorry`` — so it fails the
integrity check and counts as a failed attempt. Nothing is filtered, so pass@k
is unbiased for every k ≤ N. ``lemmata run taobench`` then scores the
submission as the leaderboard does: the offline integrity check on every
attempt, then the Kimina-protocol verifier when one is configured, else the
attempts that pass the check stay *pending*.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from lemmata.benchmarks.taobench.release import TaoRelease
from lemmata.benchmarks.taobench.submission import BENCHMARK, TRACK
from lemmata.formats.envelope import SUBMISSION_FORMAT
from lemmata.formats.results import ModelInfo
from lemmata.oracles.chat_runner import ChatJob, ChatRunner, Completion, Sampling
from lemmata.oracles.judge import Rubric, parse_rubric

PROMPT_NAME, PROMPT_VERSION = "prove", 1
PROMPT_ID = f"taobench-{PROMPT_NAME}.v{PROMPT_VERSION}"
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)```", re.S)
_IMPORT = re.compile(r"^\s*import\s", re.M)


def prompt() -> Rubric:
    data = (resources.files("lemmata.benchmarks.taobench") / "prompts" / f"{PROMPT_NAME}.v{PROMPT_VERSION}.md").read_bytes()
    return parse_rubric(PROMPT_ID, PROMPT_VERSION, data)


def last_code_block(text: str) -> str | None:
    """The last fenced block (```lean, ```lean4 or plain ```), or None.

    >>> last_code_block("x\\n```lean\\ntheorem a : True := by\\n  trivial\\n```\\n")
    'theorem a : True := by\\n  trivial\\n'
    >>> last_code_block("no code") is None
    True
    """
    blocks = [body for lang, body in _FENCE.findall(text) if lang.lower() in ("", "lean", "lean4")]
    return blocks[-1] if blocks else None


def extract_proof(text: str, exercise: Any) -> tuple[str | None, str | None]:
    """``(attempt, None)`` — a complete Lean file — or ``(None, reason)`` when the reply holds no proof."""
    from lemmata.benchmarks.taobench.lean.statements import LocateError, locate

    block = last_code_block(text)
    if block is None:
        return None, "no Lean code block in the reply"
    if not block.strip():
        return None, "empty Lean code block"
    if _IMPORT.search(block):
        return block, None
    stripped = block.strip()
    if stripped.startswith((":=", "where", "|")):
        return exercise.complete(stripped), None
    if stripped.startswith("by"):
        return exercise.complete(":= " + stripped), None
    try:
        theirs = locate(block, exercise.decl_name)
    except (LocateError, ValueError):
        return None, f"no proof of `{exercise.decl_name}` in the reply's code block"
    start, end = theirs.body_span()
    body = block[start:end].strip()
    if not body:
        return None, f"`{exercise.decl_name}` has no body in the reply"
    return exercise.complete(body), None


def no_attempt(exercise: Any, reason: str) -> str:
    """The attempt submitted for an unusable sample: the official file, still ``sorry``, with the reason noted."""
    source = exercise.file.source
    return source + ("" if source.endswith("\n") else "\n") + f"-- lemmata: no proof extracted ({reason[:200]})\n"


@dataclass(frozen=True)
class TaskSpec:
    fqn: str
    formulation: str


def tasks(release: TaoRelease, formulations: Sequence[str], limit: int | None = None) -> list[TaskSpec]:
    """The scoreable (FQN, formulation) pairs in release order; ``limit`` keeps the first exercises only."""
    fqns = release.fqns()[:limit] if limit else release.fqns()
    return [TaskSpec(f, form) for f in fqns for form in formulations if release.item(f, form).scoreable]


def jobs_for(release: TaoRelease, specs: Sequence[TaskSpec], n: int, sampling: Sampling) -> list[ChatJob]:
    template = prompt()
    out = []
    for spec in specs:
        ex = release.exercise(spec.fqn, spec.formulation)
        messages = tuple(template.render({"decl_name": ex.decl_name, "lean_file": ex.file.source.rstrip("\n"),
                                          "statement": ex.statement}))
        out += [ChatJob(id=f"{spec.fqn}@{spec.formulation}#{i}", messages=messages, sampling=sampling, sample=i)
                for i in range(n)]
    return out


def sample_submission(release: TaoRelease, runner: ChatRunner, *, n: int, sampling: Sampling,
                      formulations: Sequence[str] = ("tao", "mathlib"), limit: int | None = None,
                      quiet: bool = False, model: ModelInfo | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The submission lines (header first) and the run's metadata (abstentions, integrity, tokens)."""
    specs = tasks(release, formulations, limit)
    jobs = jobs_for(release, specs, n, sampling)
    done: dict[str, tuple[str, str | None]] = {}

    def handle(job: ChatJob, c: Completion) -> None:
        # runs as each answer arrives (cached ones included), so extraction overlaps the requests in flight
        fqn, _, rest = job.id.rpartition("@")
        formulation = rest.split("#")[0]
        ex = release.exercise(fqn, formulation)
        attempt, reason = (extract_proof(c.text or "", ex) if c.ok else (None, c.abstention))
        if attempt is None:
            done[job.id] = (no_attempt(ex, reason or ""), reason)
        else:
            done[job.id] = (attempt, None)

    runner.run(jobs, desc=f"TaoBench {release.release_id}", quiet=quiet, on_answer=handle)
    records, unusable, extracted, reasons = [], Counter(), 0, {}
    for spec in specs:
        attempts = []
        for i in range(n):
            jid = f"{spec.fqn}@{spec.formulation}#{i}"
            attempt, reason = done[jid]
            if reason is not None:
                unusable[reason.split(":")[0]] += 1
                reasons[jid] = reason
            else:
                extracted += 1
            attempts.append(attempt)
        records.append({"fqn": spec.fqn, "formulation": spec.formulation, "attempts": attempts})
    identity = model or model_info(runner, sampling, n)
    header = {
        "format": SUBMISSION_FORMAT, "benchmark": BENCHMARK, "track": TRACK, "release": release.release_id,
        "formulations": list(formulations), "model": identity.model_dump(mode="json"), "n": n,
        "sampling": {"temperature": sampling.temperature, "top_p": sampling.top_p, "max_tokens": sampling.max_tokens,
                     "seed": sampling.seed, "prompt": f"{PROMPT_ID}: official file with sorry, whole-proof "
                     "generation; sample i drawn with seed + i", "other": {}},
        "flags": {"used_lean_feedback": False, "trained_on_taobench": False, "used_external_tools": False,
                  "filtered_attempts": False},
        "notes": f"lemmata run taobench: {len(specs)} exercise-formulation pair(s) × {n} sample(s), every sample "
                 "submitted" + (f"; first {limit} exercise(s) only, the rest count as failed" if limit else ""),
    }
    meta = {"unusable_samples": dict(sorted(unusable.items())), "unusable_reasons": reasons,
            "proofs_extracted": extracted,
            "pairs": len(specs), "samples": len(jobs)}
    return [header, *records], meta


def model_info(runner: ChatRunner, sampling: Sampling, n: int) -> ModelInfo:
    """The declared identity: the requested name, the id the endpoint reported most, sampling, prompt version."""
    reported = runner.stats.endpoint_models.most_common(1)
    return ModelInfo(name=runner.endpoint.model, kind="llm", endpoint_model=reported[0][0] if reported else None,
                     sampling={**sampling.model_dump(mode="json"), "n": n}, prompt_version=PROMPT_ID)



def write_lines(path: str | Path, lines: Sequence[dict[str, Any]]) -> Path:
    """Write the submission JSONL atomically (a rerun never leaves a half-written submission)."""
    from lemmata.core.jsonl import write_jsonl

    return write_jsonl(path, list(lines))
