"""MA-Align's protocol for a chat model: judge every (statement, formalization) pair as faithful or not.

Each pair of the release is shown to the model — the natural-language
statement and the Lean 4 formalization, never the gold label — with the prompt
``prompts/ma-align-judge.v1.md``; the reply's ``{"faithful": true|false}`` is
the prediction. A reply without one (refused, truncated, not JSON, the field
missing or not a boolean) is an abstention (``null``), which the scorer counts
as wrong. Requests go through :class:`~lemmata.oracles.chat_runner.ChatRunner`
(concurrent, cached, resumable).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Any

from lemmata.formats.envelope import SUBMISSION_FORMAT
from lemmata.oracles.chat_runner import ChatJob, ChatRunner, Sampling
from lemmata.oracles.judge import Rubric, parse_rubric

PROMPT_NAME, PROMPT_VERSION = "ma-align-judge", 1
PROMPT_ID = f"{PROMPT_NAME}.v{PROMPT_VERSION}"
_OBJECT = re.compile(r"\{.*\}", re.S)


def prompt() -> Rubric:
    data = (resources.files("lemmata.benchmarks.mathatlas") / "prompts" / f"{PROMPT_ID}.md").read_bytes()
    return parse_rubric(PROMPT_NAME, PROMPT_VERSION, data)


def parse_faithful(text: str) -> bool | None:
    """The boolean ``faithful`` of the JSON object in a reply, else None.

    >>> parse_faithful('{"faithful": false, "reason": "drops a hypothesis"}'), parse_faithful('{"faithful": "yes"}')
    (False, None)
    >>> parse_faithful("```json\\n{\\"faithful\\": true}\\n```"), parse_faithful("no idea")
    (True, None)
    """
    m = _OBJECT.search(text or "")
    if not m:
        return None
    try:
        obj = json.loads(m.group(0))
    except ValueError:
        return None
    value = obj.get("faithful") if isinstance(obj, dict) else None
    return value if isinstance(value, bool) else None


def judge_pairs(runner: ChatRunner, pairs: list[dict[str, Any]], *, sampling: Sampling = Sampling(),
                quiet: bool = False) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One record per pair (``faithful`` true, false or null) and the run's abstention counts."""
    template = prompt()
    jobs = [ChatJob(id=p["pair_id"], sampling=sampling, messages=tuple(template.render({
        "informal_statement": p["informal_statement"].strip(), "formal_statement": p["formal_statement"].strip()})))
        for p in pairs]
    answers = runner.run(jobs, desc="MA-Align", quiet=quiet)
    records, abstained, reasons = [], Counter(), {}
    for p in pairs:
        c = answers[p["pair_id"]]
        verdict = parse_faithful(c.text or "") if c.ok else None
        if verdict is None:
            why = c.abstention or "no boolean 'faithful' in the reply"
            abstained[why.split(":")[0]] += 1
            reasons[p["pair_id"]] = why
        records.append({"pair_id": p["pair_id"], "faithful": verdict})
    return records, {"pairs": len(pairs), "abstentions": dict(sorted(abstained.items())), "abstention_reasons": reasons}


def run_ma_align(runner: ChatRunner, out_dir: str | Path, *, sampling: Sampling = Sampling(),
                 quiet: bool = False) -> tuple[Path, dict[str, Any]]:
    """Judge every pair of the current MA-Align release; write the submission. Returns its path and metadata."""
    from lemmata.benchmarks.mathatlas.meta import MA_ALIGN
    from lemmata.catalog import load_release, read_columns
    from lemmata.core.jsonl import write_jsonl
    from lemmata.harness.runs import run_model_info
    from lemmata.oracles.judge import slug

    release = load_release(MA_ALIGN)
    cols = read_columns(release, "pairs", "test", ["pair_id", "informal_statement", "formal_statement"])
    pairs = [dict(zip(cols, values)) for values in zip(*cols.values())]
    records, meta = judge_pairs(runner, pairs, sampling=sampling, quiet=quiet)
    model = run_model_info(runner, sampling, PROMPT_ID)
    header = {"format": SUBMISSION_FORMAT, "benchmark": "ma-align", "release": MA_ALIGN.release_id, "track": "judge",
              "model": model.model_dump(mode="json"),
              "notes": f"lemmata run ma-align: prompt {PROMPT_ID}; unusable replies abstain (null)."}
    path = write_jsonl(Path(out_dir) / f"ma-align.{MA_ALIGN.release_id}.{slug(runner.endpoint.model)}.jsonl",
                       [header, *records])
    return path, meta
