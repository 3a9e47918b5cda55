"""The Re²Math live reference agent: one query, at most one opened source, the paper's prompts E3 and E4.

For every instance of a split it does what the paper's agent does, against
live services, and records everything so the run can be rescored offline:

The messages are built by :mod:`lemmata.benchmarks.re2math.agent.llm_agent`, which the
offline run (``lemmata run re2math``) uses too, so both send the same prompts.

1. **E3** (``prompts/e3.v1.md``) — an OpenAI-compatible chat model reads the
   setup, the target theorem and the local proof blocks (plus the anchor hint
   on the assisted track) and writes ONE Google Scholar query and its own
   planning anchor;
2. **search** — the query goes to Google Scholar through SerpAPI with the
   citing paper's year as ``as_yhi`` and the top 20 kept, recorded into a
   query cache (:class:`~lemmata.benchmarks.re2math.scholar.querycache.RecordingBackend`)
   that is frozen at the end into the run's retrieval artifact;
3. **E4, choose** — the model sees the 20 results (title, authors, year,
   snippet) and names at most one to open;
4. **open** — the chosen result is materialised through arXiv (its arXiv id,
   else its DOI) into the run's materialisation store;
5. **E4, extract** — the model reads excerpts of the fixed text matched to its
   own query and anchor (:func:`lemmata.benchmarks.re2math.agent.live.excerpts`) and
   copies one statement, or abstains.

Nothing the agent sees holds the answer: not the reference statement, not the
cited source, not the judge. Cost per instance: 1 E3 call, 1 SerpAPI request,
at most 2 E4 calls and at most one source materialised (1–3 arXiv requests).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from lemmata.core.jsonl import write_jsonl
from lemmata.benchmarks.re2math.agent.llm_agent import MAX_QUERY_CHARS, PROMPTS, reply_object  # noqa: F401  (one set)

AGENT_NAME = "Re²Math live reference agent (E3 query → SerpAPI Scholar → E4 choose/extract)"


def _text(chat: Any, messages: list[dict[str, str]]) -> str:
    completion = chat.complete(messages)
    return completion.choices[0].message.content or ""


def solve(row: Mapping[str, Any], *, chat: Any, search: Any, materialiser: Any, track: str,
          window: int) -> dict[str, Any]:
    """One instance: the submission record (its one query with candidates, the source, the statement)."""
    from lemmata.benchmarks.re2math.agent.live import CANDIDATES_N, excerpts, source_request
    from lemmata.benchmarks.re2math.agent.llm_agent import (
        NO_STEP,
        choose_messages,
        e3_messages,
        extract_messages,
        parse_choice,
        parse_e3,
        parse_statement,
    )

    iid = row["instance_id"]
    query, anchor = parse_e3(_text(chat, e3_messages(row, track, window)))
    record: dict[str, Any] = {"instance_id": iid, "queries": [], "selected_source": None, "statement": None}
    if track == "raw":
        record["anchor"] = anchor
    if not query:
        return record
    result = search.search(query, row["publication_year"], CANDIDATES_N, instance_id=iid)
    record["queries"] = [{"text": query, "candidates": result.ids()}]
    if not result.candidates:
        return record
    step = anchor or NO_STEP
    chosen = parse_choice(_text(chat, choose_messages(row, window, step, result.candidates)), result.candidates)
    if chosen is None:
        return record
    record["selected_source"] = chosen.id
    request = source_request(chosen)
    got = materialiser.materialise(request) if request is not None else None
    if got is None or not got.ok or not got.text:
        return record
    shown, _ = excerpts(got.text, f"{query} {step}")
    statement = parse_statement(_text(chat, extract_messages(row, window, step, chosen, shown)))
    if statement is not None:
        record["statement"] = statement
    return record


def run_live_agent(out_dir: str | Path, artifacts_root: str | Path, *, run_id: str, chat: Any, scholar: Any,
                   materialiser_env: Mapping[str, str] | None = None, track: str = "raw",
                   split: str = "eval200/test", window: int = 5, rows: list[dict[str, Any]] | None = None,
                   model_name: str = "chat model") -> dict[str, Path]:
    """Run the agent on ``split``; write the submission and freeze the artifacts it used. Returns their paths."""
    from lemmata import __version__
    from lemmata.benchmarks.re2math.meta import RE2MATH
    from lemmata.benchmarks.re2math.scholar.querycache import RecordingBackend, freeze_query_cache
    from lemmata.formats.envelope import SUBMISSION_FORMAT
    from lemmata.materialisers import Materialiser

    out_dir, artifacts_root = Path(out_dir), Path(artifacts_root)
    if rows is None:
        from lemmata.catalog import release_path
        from lemmata.catalog import open_release_folder as open_release

        config, _, name = split.partition("/")
        rows = list(open_release(release_path(RE2MATH)).rows(config, name))
    recording = out_dir / f"{scholar.artifact_id}.recording.jsonl"
    search = RecordingBackend(scholar, recording, description=f"Re²Math live run {run_id}",
                              settings=scholar.settings())
    store_id = f"re2math-materialisations-{run_id}"
    materialiser = Materialiser.from_env(artifacts_root / store_id, environ=materialiser_env)
    records = [solve(row, chat=chat, search=search, materialiser=materialiser, track=track, window=window)
               for row in rows]
    frozen = freeze_query_cache(recording, artifacts_root)
    header = {
        "format": SUBMISSION_FORMAT, "benchmark": "re2math", "release": RE2MATH.release_id, "split": split,
        "track": track, "window": window, "model": {"name": AGENT_NAME, "revision": f"{model_name}; lemmata {__version__}"},
        "retrieval_artifact": frozen.name, "materialisation_artifact": store_id,
        "flags": {"tuned_on_pool": False, "used_external_tools": False},
        "notes": f"Live reference agent, prompts e3.v{PROMPTS['e3']}/e4.v{PROMPTS['e4']}; one query, at most one "
                 "opened source per instance.",
    }
    path = write_jsonl(out_dir / f"re2math.{split.replace('/', '-')}.{track}.live-agent.{run_id}.jsonl",
                       [header, *records])
    return {"submission": path, "retrieval_artifact": frozen, "materialisation_artifact": artifacts_root / store_id}
