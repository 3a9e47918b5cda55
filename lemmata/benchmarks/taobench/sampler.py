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
theorem in such a block (:func:`helper_declarations`: every declaration before it
that is not a copy of an official command) are carried over, placed just before
the exercise — where the integrity rules allow an attempt's own declarations — and
checked by those rules like the rest of the file. (Runs made before helpers were
carried over extracted without them; their request logs still check:
:func:`~lemmata.benchmarks.taobench.runner_log.check_attempts` accepts either
extraction of a logged answer, both being functions of that answer alone.)

**Every sample is submitted**: a reply with no usable proof (a refusal, a
truncated completion, no code block, an endpoint that never answered) is
submitted as the official file unchanged — still ``sorry`` — so it fails the
integrity check and counts as a failed attempt. Nothing is filtered, so pass@k
is unbiased for every k ≤ N. ``lemmata run taobench`` then scores the
submission as the leaderboard does: the offline integrity check on every
attempt, then the Kimina-protocol verifier when one is configured, else the
attempts that pass the check stay *pending*.

**Request log**: every answer the run used is written, in job order, to a
request log (:mod:`lemmata.formats.runner_log`) whose sha256 the header records
(``runner``); the scorer checks the submission against it and the release
(:mod:`lemmata.benchmarks.taobench.runner_log`) through :func:`attempt_from`,
the same function that turned each answer into an attempt here. The log stays within the scorer's limit
(:data:`~lemmata.formats.runner_log.MAX_LOG_BYTES`, one constant both read): when the answers would pass it, the
longest completions become ``log-limit`` abstentions (:func:`~lemmata.formats.runner_log.fit_log`), submitted as
the official file like any abstention, and a run that asks for more answers than one log may hold is refused
before a request is sent.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from lemmata.benchmarks.taobench.release import TaoRelease
from lemmata.benchmarks.taobench.submission import BENCHMARK, MAX_ATTEMPT_BYTES, TRACK
from lemmata.formats.envelope import SUBMISSION_FORMAT
from lemmata.formats.runner_log import LOG_LIMIT, LogHeader, check_log_lines, fit_log, make_header, runner_field
from lemmata.formats.results import ModelInfo
from lemmata.oracles.chat_runner import ChatJob, ChatRunner, Completion, Sampling
from lemmata.oracles.judge import Rubric, parse_rubric

PROMPT_NAME, PROMPT_VERSION = "prove", 1
PROMPT_ID = f"taobench-{PROMPT_NAME}.v{PROMPT_VERSION}"
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)```", re.S)
_IMPORT = re.compile(r"^\s*import\s", re.M)


#: the paper's without-context ablation (``--condition without-context``): the exercise's statement alone, none of
#: the local definitions its file declares before it; the attempt is still the official file, context and all
WITHOUT_CONTEXT = "without-context"
NO_CONTEXT_PROMPT_ID = "taobench-prove-without-context.v1"

#: every prompt version a request log may name: (template name, version) by prompt id
PROMPTS = {PROMPT_ID: (PROMPT_NAME, PROMPT_VERSION), NO_CONTEXT_PROMPT_ID: ("prove-without-context", 1)}
#: the prompt of each run condition (None: the paper's main protocol, the official file with its local context)
CONDITION_PROMPTS: dict[str | None, str] = {None: PROMPT_ID, WITHOUT_CONTEXT: NO_CONTEXT_PROMPT_ID}
#: what the header's ``sampling.prompt`` says the model was given, by prompt id
PROMPT_GIVEN = {PROMPT_ID: "official file with sorry", NO_CONTEXT_PROMPT_ID: "the statement alone, no local context"}


def prompt(prompt_id: str = PROMPT_ID) -> Rubric:
    """A versioned prompt template by id (``taobench-prove.v1``); KeyError for an unknown one."""
    name, version = PROMPTS[prompt_id]
    data = (resources.files("lemmata.benchmarks.taobench") / "prompts" / f"{name}.v{version}.md").read_bytes()
    return parse_rubric(prompt_id, version, data)


def last_code_block(text: str) -> str | None:
    """The last fenced block (```lean, ```lean4 or plain ```), or None.

    >>> last_code_block("x\\n```lean\\ntheorem a : True := by\\n  trivial\\n```\\n")
    'theorem a : True := by\\n  trivial\\n'
    >>> last_code_block("no code") is None
    True
    """
    blocks = [body for lang, body in _FENCE.findall(text) if lang.lower() in ("", "lean", "lean4")]
    return blocks[-1] if blocks else None


def helper_declarations(theirs: Any, exercise: Any) -> str:
    """The declarations a reply's code block makes before its exercise that are not copies of an official command
    (compared as the integrity check compares, whitespace and comments aside), each as written (doc comment,
    attributes and modifiers with it), each followed by a blank line; ``""`` when there are none."""
    from lemmata.benchmarks.taobench.lean.integrity import command_key
    from lemmata.benchmarks.taobench.lean.statements import with_doc_start

    official = {command_key(c) for c in exercise.file.commands}
    own = [c for c in theirs.prefix if c.decl is not None and command_key(c) not in official]
    return "".join(theirs.file.source[with_doc_start(theirs.file, c):c.end].strip() + "\n\n" for c in own)


def extract_proof(text: str, exercise: Any, *, helpers: bool = True) -> tuple[str | None, str | None]:
    """``(attempt, None)`` — a complete Lean file — or ``(None, reason)`` when the reply holds no proof.

    ``helpers=False`` is the extraction of runs made before helper declarations were carried over."""
    from lemmata.benchmarks.taobench.lean.statements import LocateError, locate

    block = last_code_block(text)
    if block is None:
        return None, "no Lean code block in the reply"
    if not block.strip():
        return None, "empty Lean code block"
    if len(block) > MAX_ATTEMPT_BYTES:  # characters ≤ bytes: no attempt this long could be submitted anyway
        return None, f"the code block is longer than the {MAX_ATTEMPT_BYTES:,}-byte attempt limit"
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
    return exercise.complete(body, helper_declarations(theirs, exercise) if helpers else ""), None


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


def jobs_for(release: TaoRelease, specs: Sequence[TaskSpec], n: int, sampling: Sampling,
             prompt_id: str = PROMPT_ID) -> list[ChatJob]:
    """The requests of a run, in order: sample ``i`` of item ``FQN@formulation`` has id ``FQN@formulation#i``.

    The prompt reads the release's columns (official file, declaration name, statement), which the builder wrote
    from the parsed file: the same text the parsed exercise gives, without parsing Lean again (a scorer
    recomputes every request of a run when it checks its log)."""
    template = prompt(prompt_id)
    out = []
    for spec in specs:
        item = release.item(spec.fqn, spec.formulation)
        values = {"decl_name": item.decl, "lean_file": item.lean.rstrip("\n"), "statement": item.statement}
        messages = tuple(template.render({k: v for k, v in values.items() if k in template.fields}))
        out += [ChatJob(id=f"{spec.fqn}@{spec.formulation}#{i}", messages=messages, sampling=sampling, sample=i)
                for i in range(n)]
    return out


def sample_submission(release: TaoRelease, runner: ChatRunner, *, n: int, sampling: Sampling,
                      formulations: Sequence[str] = ("tao", "mathlib"), limit: int | None = None,
                      quiet: bool = False, model: ModelInfo | None = None, condition: str | None = None,
                      ) -> tuple[list[dict[str, Any]], dict[str, Any], bytes]:
    """The submission lines (header first), the run's metadata (abstentions, integrity, tokens) and its request
    log (the answers used, in job order; the header's ``runner.log_sha256`` is its hash).

    ``condition`` ``"without-context"`` is the paper's ablation (:data:`WITHOUT_CONTEXT`; Tao's formulation only);
    None, the paper's protocol."""
    prompt_id = CONDITION_PROMPTS[condition]
    specs = tasks(release, formulations, limit)
    jobs = jobs_for(release, specs, n, sampling, prompt_id)
    check_log_lines(len(jobs), "lemmata run taobench")  # before a request is sent: the log must hold every answer
    done: dict[str, tuple[str, str | None]] = {}

    used: dict[str, Completion] = {}

    def handle(job: ChatJob, c: Completion) -> None:
        # runs as each answer arrives (cached ones included), so extraction overlaps the requests in flight
        fqn, formulation = split_item(item_of(job.id))
        done[job.id] = attempt_from(c, release.exercise(fqn, formulation))
        used[job.id] = c

    runner.run(jobs, desc=f"TaoBench {release.release_id}", quiet=quiet, on_answer=handle)
    log, logged = fit_log(log_header(release.release_id, runner.endpoint.model, sampling, n, prompt_id),
                          [job.logged(runner.endpoint.model, used[job.id], item_of(job.id)) for job in jobs])
    dropped = 0
    for job, entry in zip(jobs, logged):
        if entry.answer.abstention is not None and entry.answer.abstention.startswith(LOG_LIMIT):
            # dropped to keep the log within the scorer's limit: the attempt is the one the log's answer gives
            done[job.id] = attempt_from(entry.answer, release.exercise(*split_item(item_of(job.id))))
            dropped += 1
    if dropped:
        print(f"{dropped} completion(s) dropped as {LOG_LIMIT} abstentions: the request log stays within the "
              "scorer's size limit", file=sys.stderr)
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
    identity = model or model_info(runner, sampling, n, prompt_id)
    header = {
        "format": SUBMISSION_FORMAT, "benchmark": BENCHMARK, "track": TRACK, "release": release.release_id,
        "formulations": list(formulations), **({"condition": condition} if condition else {}),
        "model": identity.model_dump(mode="json"), "n": n,
        "sampling": {"temperature": sampling.temperature, "top_p": sampling.top_p, "max_tokens": sampling.max_tokens,
                     "seed": sampling.seed, "prompt": f"{prompt_id}: {PROMPT_GIVEN[prompt_id]}, whole-proof "
                     "generation; sample i drawn with seed + i", "other": {}},
        "flags": {"used_lean_feedback": False, "trained_on_taobench": False, "used_external_tools": False,
                  "filtered_attempts": False},
        "runner": runner_field(prompt_id, log),
        "notes": f"lemmata run taobench: {len(specs)} exercise-formulation pair(s) × {n} sample(s), every sample "
                 "submitted" + (f"; first {limit} exercise(s) only, the rest count as failed" if limit else ""),
    }
    meta = {"unusable_samples": dict(sorted(unusable.items())), "unusable_reasons": reasons,
            "proofs_extracted": extracted,
            "pairs": len(specs), "samples": len(jobs)}
    return [header, *records], meta, log


def item_of(job_id: str) -> str:
    """The item (``FQN@formulation``) a job id (``FQN@formulation#i``) answers.

    >>> item_of("Chapter2.Nat.succ_ne@tao#3")
    'Chapter2.Nat.succ_ne@tao'
    """
    return job_id.rpartition("#")[0]


def split_item(item: str) -> tuple[str, str]:
    """``(fqn, formulation)`` of an item id.

    >>> split_item("Chapter2.Nat.succ_ne@mathlib")
    ('Chapter2.Nat.succ_ne', 'mathlib')
    """
    fqn, _, formulation = item.rpartition("@")
    return fqn, formulation


def attempt_from(answer: Any, exercise: Any, *, helpers: bool = True) -> tuple[str, str | None]:
    """``(attempt, None)`` for a usable answer, else ``(the official file still with sorry, reason)``.

    ``answer`` is a runner :class:`Completion` or a request log's answer (``text``, ``abstention``): the
    sampler and the scorer's request-log check turn an answer into the submitted attempt through this one
    function.
    """
    attempt, reason = (extract_proof(answer.text or "", exercise, helpers=helpers) if answer.abstention is None
                       else (None, answer.abstention))
    if attempt is None:
        return no_attempt(exercise, reason or ""), reason
    return attempt, None


def log_header(release_id: str, model: str, sampling: Sampling, n: int, prompt_version: str = PROMPT_ID) -> LogHeader:
    """The request log's header line for a run of this protocol."""
    return make_header(BENCHMARK, release_id, prompt_version, model, sampling.model_dump(mode="json"), n)


def model_info(runner: ChatRunner, sampling: Sampling, n: int, prompt_id: str = PROMPT_ID) -> ModelInfo:
    """The declared identity: the requested name, the id the endpoint reported most, sampling, prompt version."""
    reported = runner.stats.endpoint_models.most_common(1)
    return ModelInfo(name=runner.endpoint.model, kind="llm", endpoint_model=reported[0][0] if reported else None,
                     sampling={**sampling.model_dump(mode="json"), "n": n}, prompt_version=prompt_id)



def write_lines(path: str | Path, lines: Sequence[dict[str, Any]]) -> Path:
    """Write the submission JSONL atomically (a rerun never leaves a half-written submission)."""
    from lemmata.core.jsonl import write_jsonl

    return write_jsonl(path, list(lines))
