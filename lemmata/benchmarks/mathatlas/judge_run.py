"""MA-Align's protocol for a chat model: judge every (statement, formalization) pair as faithful or not.

Each pair of the release is shown to the model — the natural-language text and the Lean 4 formalization as
fenced data blocks, never the gold label — under the rubric MathAtlas's own faithfulness judge uses for that kind
of pair (:data:`~lemmata.benchmarks.mathatlas.verdicts.RUBRICS`: ``faithful-statement.v1`` after the authors'
CriticLean prompt, ``faithful-definition.v1`` after their definition prompt; the run declares
``faithful-definition.v1+faithful-statement.v1``), so a model's MA-Align score measures exactly the judge it would
be on MathAtlas. The reply is upstream's ``{"reasoning", "result": "aligned" | "misaligned"}``
(:func:`~lemmata.benchmarks.mathatlas.verdicts.parse_alignment`); ``aligned`` is the prediction ``faithful:
true``. A reply that is not that object (refused, truncated, prose) is an abstention (``null``), which the scorer
counts as wrong — never a silent "misaligned", which would be right on every misaligned pair. A formalization
that addresses the grader is settled by the rubric's rule (misaligned) without a request, as the judge does.
Requests go through :class:`~lemmata.oracles.chat_runner.ChatRunner` (concurrent, cached, resumable).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from lemmata.benchmarks.mathatlas.templates import templates, version_of
from lemmata.benchmarks.mathatlas.verdicts import RUBRICS, parse_alignment
from lemmata.formats.envelope import SUBMISSION_FORMAT
from lemmata.oracles.chat_runner import ChatJob, ChatRunner, Sampling

#: the prompt of each kind of pair: the faithfulness judge's rubrics
PROMPTS = RUBRICS


def prompt_version() -> str:
    """``faithful-definition.v1+faithful-statement.v1``: what a run declares."""
    return version_of(PROMPTS)


def parse_faithful(text: str) -> bool | None:
    """``faithful`` from a reply: True for ``aligned``, False for ``misaligned``, None unless it is a judgement.

    >>> parse_faithful('{"reasoning": "drops a hypothesis", "result": "misaligned"}')
    False
    >>> parse_faithful('<think>hm</think>{"reasoning": "r", "result": "aligned"}'), parse_faithful('{"faithful": true}')
    (True, None)
    """
    found = parse_alignment(text or "")
    return None if found is None else found.result == "aligned"


def judge_pairs(runner: ChatRunner, pairs: list[dict[str, Any]], *, sampling: Sampling = Sampling(),
                quiet: bool = False) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One record per pair (``faithful`` true, false or null) and the run's abstention and settled counts."""
    rubrics = templates(PROMPTS)
    jobs, settled = [], {}
    for p in pairs:
        rubric = rubrics[p["kind"]]
        prepared = rubric.prepare({"informal": p["informal_statement"].strip(),
                                   "formal": p["formal_statement"].strip()})
        rule = rubric.settle(prepared)
        if rule is not None:
            settled[p["pair_id"]] = rule["result"] == "aligned"
        else:
            jobs.append(ChatJob(id=p["pair_id"], sampling=sampling, messages=tuple(prepared.messages)))
    answers = runner.run(jobs, desc="MA-Align", quiet=quiet)
    records, abstained, reasons = [], Counter(), {}
    for p in pairs:
        c = answers.get(p["pair_id"])
        verdict = settled.get(p["pair_id"]) if c is None else parse_faithful(c.text or "") if c.ok else None
        if verdict is None:
            why = (c.abstention if c is not None else None) or "no {reasoning, result} judgement in the reply"
            abstained[why.split(":")[0]] += 1
            reasons[p["pair_id"]] = why
        records.append({"pair_id": p["pair_id"], "faithful": verdict})
    return records, {"pairs": len(pairs), "settled_by_rule": len(settled),
                     "abstentions": dict(sorted(abstained.items())), "abstention_reasons": reasons}


def run_ma_align(runner: ChatRunner, out_dir: str | Path, *, sampling: Sampling = Sampling(),
                 quiet: bool = False) -> tuple[Path, dict[str, Any]]:
    """Judge every pair of the current MA-Align release; write the submission. Returns its path and metadata."""
    from lemmata.benchmarks.mathatlas.meta import MA_ALIGN
    from lemmata.catalog import load_release, read_columns
    from lemmata.core.jsonl import write_jsonl
    from lemmata.harness.runs import run_model_info
    from lemmata.oracles.judge import slug

    release = load_release(MA_ALIGN)
    cols = read_columns(release, "pairs", "test", ["pair_id", "kind", "informal_statement", "formal_statement"])
    pairs = [dict(zip(cols, values)) for values in zip(*cols.values())]
    records, meta = judge_pairs(runner, pairs, sampling=sampling, quiet=quiet)
    model = run_model_info(runner, sampling, prompt_version())
    header = {"format": SUBMISSION_FORMAT, "benchmark": "ma-align", "release": MA_ALIGN.release_id, "track": "judge",
              "model": model.model_dump(mode="json"),
              "notes": f"lemmata run ma-align: prompts {prompt_version()} (the faithfulness judge's rubrics); "
                       "replies that are not a {reasoning, result} judgement abstain (null)."}
    path = write_jsonl(Path(out_dir) / f"ma-align.{MA_ALIGN.release_id}.{slug(runner.endpoint.model)}.jsonl",
                       [header, *records])
    return path, meta
