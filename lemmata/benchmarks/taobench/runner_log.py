"""Is a TaoBench submission consistent with the request log of a Lemmata run, recomputed from the release?

``lemmata run taobench`` writes the run's request log beside the submission
and its sha256 in the header (``runner.log_sha256``). The log is uploaded by
the submitter, so this check recomputes everything it can instead of trusting
it:

- the log hashes to the header's ``runner.log_sha256`` (checked before this
  module, for every benchmark, in :func:`lemmata.scoring.attach_runner_log`);
- its header names this benchmark, the submission's release, ``n``, the
  requested model and the sampling settings of the submission header, and a
  prompt version this scorer knows;
- for every submitted exercise × formulation it holds exactly ``n`` answers,
  sample indices ``0 … n-1``, each once; and no answer to anything else (a
  log of ``n + k`` samples of which the ``n`` passing ones were kept fails);
- every answer's messages hash equals the hash of the messages the versioned
  prompt renders from the *frozen release* for that exercise (a log made for
  other problems or under another prompt fails), and its request key and
  seed are those the runner computes for that request;
- every submitted attempt is, in order, the Lean file the sampler extracts
  from the corresponding answer (:func:`~lemmata.benchmarks.taobench.sampler.attempt_from`,
  the one function both use): a dropped attempt replaced by a passing one, or
  attempts reordered, fail.

The first four are hashes and keys, checked when the upload arrives by the
checks every benchmark shares (:func:`lemmata.tracks.runner_log.check_log`,
bounded by the bytes read), TaoBench's requests (``FQN@formulation#i``) given
as its hook (:func:`check_runner_log`); re-extracting the
attempts lexes Lean as the integrity checks do, so it runs when the entry is
scored (:func:`check_attempts`), and a mismatch fails the scoring with the
submission's line and field.

What it cannot recompute is the completions: a submitter could write a log
whose answers no model gave. A consistent log therefore earns the condition
``runner_log: consistent`` ("attempts match a Lemmata runner request log,
prompts recomputed from the release"), never "verified".
"""

from __future__ import annotations

from lemmata.benchmarks.taobench.release import TaoRelease
from lemmata.benchmarks.taobench.sampler import (CONDITION_PROMPTS, PROMPTS, TaskSpec, attempt_from, jobs_for,
                                                 split_item)
from lemmata.benchmarks.taobench.submission import BENCHMARK, Header, Record
from lemmata.core.errors import InputError, Problem
from lemmata.formats.envelope import cap_problems
from lemmata.formats.runner_log import STOP_AFTER
from lemmata.tracks.runner_log import SAMPLING_KEYS, Declared, RunnerLogCheck, check_log

__all__ = ["RunnerLogCheck", "check_attempts", "check_runner_log"]


def check_runner_log(release: TaoRelease, header: Header, records: list[Record], lines: tuple[int, ...],
                     data: bytes, filename: str, submission_name: str) -> RunnerLogCheck:
    """The structural check's outcome (:func:`lemmata.tracks.runner_log.check_log`, with TaoBench's requests as
    the hook), or one InputError naming file, line and field of every mismatch.

    Everything but the attempts themselves: cheap (hashes and keys), so the space runs it when the upload
    arrives. Re-extracting every attempt lexes Lean, as the integrity checks do, so it runs when the entry is
    scored (:func:`check_attempts`)."""
    problems: list[Problem] = []
    if header.flags.filtered_attempts:  # a consistent log holds exactly the n answers drawn: nothing was filtered
        problems.append(Problem(submission_name, "flags.filtered_attempts is true, but a runner log holds exactly the "
                                                 "n answers drawn per exercise: either the attempts were filtered "
                                                 "(then they cannot match the log) or the flag is wrong", None,
                                "header.flags.filtered_attempts"))
    specs = []
    for pos, rec in enumerate(records):
        if release.item(rec.fqn, rec.formulation).scoreable:
            specs.append(TaskSpec(rec.fqn, rec.formulation))
        else:
            problems.append(Problem(submission_name, f"{rec.fqn} ({rec.formulation}) is not scoreable (its official "
                                                     "file is not well-formed Lean), so the runner never samples it: "
                                                     "leave the record out", lines[pos] if pos < len(lines) else None,
                                    "fqn"))
    declared = Declared(benchmark=BENCHMARK, release=header.release, model=header.model, runner=header.runner,
                        sampling={key: getattr(header.sampling, key) for key in SAMPLING_KEYS}, n=header.n,
                        prompt=CONDITION_PROMPTS[header.condition],
                        prompt_from=f"the submission header's condition ({header.condition or 'the paper protocol'}) "
                                    "is run with")

    def jobs(log_header, sampling):
        return {job.id: job.messages_sha256()
                for job in jobs_for(release, specs, header.n, sampling, log_header.prompt_version)}

    return check_log(data, filename, submission_name, declared, prompts=PROMPTS, jobs=jobs, problems=problems)


def check_attempts(release: TaoRelease, records: list[Record], lines: tuple[int, ...], check: RunnerLogCheck,
                   submission_name: str) -> None:
    """Every submitted attempt is, in order, the Lean file the sampler extracts from its logged answer
    (:func:`~lemmata.benchmarks.taobench.sampler.attempt_from`; for a run made before helper declarations were
    carried over, the same extraction without them); else one InputError naming the submission's line and
    ``attempts.i`` of every mismatch, and the log's line of the answer."""
    problems: list[Problem] = []
    for pos, rec in enumerate(records):
        item = f"{rec.fqn}@{rec.formulation}"
        if not release.item(rec.fqn, rec.formulation).scoreable:
            continue
        exercise = release.exercise(*split_item(item))
        line = lines[pos] if pos < len(lines) else None
        for i, text in enumerate(rec.attempts):
            hit = check.answers.get(f"{item}#{i}")
            if hit is None:
                continue
            expected, _ = attempt_from(hit[1], exercise)
            # a run made before helper declarations were carried over extracted the same answer without them
            if text != expected and text != attempt_from(hit[1], exercise, helpers=False)[0]:
                problems.append(Problem(submission_name, f"attempt {i} of {item} is not the Lean file the runner "
                                                         f"extracts from the answer on line {hit[0]} of "
                                                         f"{check.filename}: attempts must be submitted as "
                                                         "extracted, in order", line, f"attempts.{i}"))
                if len(problems) >= STOP_AFTER:
                    raise InputError(cap_problems(problems, submission_name))
    if problems:
        raise InputError(cap_problems(problems, submission_name))
