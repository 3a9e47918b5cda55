"""The paper's Re²Math protocol for any OpenAI-compatible chat model, on the current offline world.

The same three prompts as the live agent (:mod:`lemmata.benchmarks.re2math.agent.live_agent`,
templates ``lemmata/benchmarks/re2math/agent/prompts/e3.v1.md`` and ``e4.v1.md``: the messages
are built by the functions below, which both agents call), with the offline
world (the current one, :data:`~lemmata.benchmarks.re2math.scholar.worlds.CURRENT`;
never a superseded one) in place of Google Scholar and arXiv:

1. **E3** — the model reads the setup, the target theorem and the last ``window``
   proof blocks (plus the anchor hint on the assisted track) and writes one
   query and its planning anchor;
2. **search** — the query goes to the world with the instance's year cutoff;
   the top 20 are kept;
3. **E4, choose** — the model sees the 20 results and names at most one to open;
4. **open** — the world opens it (bibliographic data and abstract, never a
   statement);
5. **E4, extract** — the model reads excerpts of the opened text matched to its
   query and anchor and copies one statement, or abstains.

Two declared variants of the paper's (each recorded in the header, each ranked in its own board group):

* ``condition="oracle-source"`` — the paper's oracle condition: after E3 (whose anchor is still the planning
  the scorer judges) no search and no choice; the world opens the instance's *cited* source (its attribution) and
  the model extracts from that text (``oracle_statement``; the headline is Oracle ToolAcc);
* ``scope="local_only"`` — the planning scope: the prompts show the local proof blocks alone, the setup and the
  target theorem replaced by :data:`HIDDEN`.

Every prompt reads the instance with its own cite key masked (``cite_keys="masked"``, the default: the key often
names the answer, see :func:`lemmata.benchmarks.re2math.render.system_input`); ``cite_keys="unmasked"`` shows the
input as stored, recorded in the header and ranked apart.

**Budget by construction**: each stage sends at most one request per instance
and the code has one search call and one open call per instance, so no
trajectory can exceed the paper's budget (one query, one opened source); the
header declares it. All requests go through one
:class:`~lemmata.oracles.chat_runner.ChatRunner` batch (cached, retried,
resumable): an instance's next step is asked as soon as its previous answer is
in, so one instance's search and opening overlap the others' requests. An
unusable reply (refused, truncated, not a JSON object, a field missing) ends
the instance there as a recorded abstention.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from functools import lru_cache
from pathlib import Path
from typing import Any

from lemmata.benchmarks.re2math.render import DEFAULT_CITE_KEYS, system_input
from lemmata.formats.results import ModelInfo
from lemmata.oracles.chat_runner import ChatJob, ChatRunner, Completion, Sampling
from lemmata.oracles.judge import Rubric, parse_rubric

PROMPTS = {"e3": 1, "e4": 1}
PROMPT_VERSION = f"re2math-e3.v{PROMPTS['e3']}+e4.v{PROMPTS['e4']}"
MAX_QUERY_CHARS = 1_000
MAX_ANCHOR_CHARS = 4_000
MAX_STATEMENT_CHARS = 20_000
CANDIDATES_N = 20
CHOOSE_REPLY = 'One JSON object and nothing else: {"source": "<the [id] of the one result to open, or null>"}'
EXTRACT_REPLY = ('One JSON object and nothing else: {"statement": "<the statement copied from the source text, '
                 'or null>"}')
NO_STEP = "(the step that follows the last block)"
#: what the setup and target theorem sections read under the local-only scope
HIDDEN = "(not shown: local-only scope)"
_OBJECT = re.compile(r"\{.*\}", re.S)


def reply_object(text: str) -> dict[str, Any]:
    """The JSON object in a model reply (the first ``{`` to the last ``}``), or {} when there is none.

    >>> reply_object('Sure: {"query": "ricci flow"} done'), reply_object("no json")
    ({'query': 'ricci flow'}, {})
    """
    m = _OBJECT.search(text or "")
    if not m:
        return {}
    try:
        obj = json.loads(m.group(0))
    except ValueError:
        return {}
    return obj if isinstance(obj, dict) else {}


@lru_cache(maxsize=None)
def load_prompt(name: str, version: int) -> Rubric:
    """The shipped agent prompt ``agent/prompts/<name>.v<version>.md`` (E3, E4), in the judge's template format."""
    from importlib import resources

    from lemmata.core.errors import LemmataError

    ref = resources.files(__package__) / "prompts" / f"{name}.v{version}.md"
    try:
        data = ref.read_bytes()
    except FileNotFoundError:
        raise LemmataError(f"no agent prompt {name}.v{version} in {__package__}/prompts") from None
    return parse_rubric(name, version, data)


# --- the messages both agents send ---------------------------------------------------------------------------------


def context(row: Mapping[str, Any], window: int, scope: str = "global_local") -> dict[str, str]:
    """The proof state the prompts show: setup, target theorem and the last ``window`` local blocks (the local
    blocks alone under the ``local_only`` scope).

    >>> row = {"x": {"global_context": {"setup": "S ", "target_theorem": "T"}, "local_context": ["b1", "b2"]}}
    >>> c = context(row, 1, "local_only")
    >>> c["setup"] == c["target_theorem"] == HIDDEN, "b2" in c["local_context"], "b1" in c["local_context"]
    (True, True, False)
    """
    from lemmata.benchmarks.re2math.judging import proof_blocks

    x = row["x"]
    blocks = list(x.get("local_context") or [])[-window:]
    local_only = scope == "local_only"
    return {"setup": HIDDEN if local_only else x["global_context"]["setup"].strip(),
            "target_theorem": HIDDEN if local_only else x["global_context"]["target_theorem"].strip(),
            "local_context": proof_blocks({"x": {"local_context": blocks}})}


def e3_messages(row: Mapping[str, Any], track: str, window: int, scope: str = "global_local") -> list[dict[str, str]]:
    hint = (row["x"].get("anchor_hint") or "").strip() if track == "assisted" else ""
    return load_prompt("e3", PROMPTS["e3"]).render({
        **context(row, window, scope), "anchor_section": f"### INTENDED NEXT STEP\n{hint}\n" if hint else ""})


def parse_e3(text: str) -> tuple[str, str | None]:
    """(query, anchor) of an E3 reply; an empty query when there is none.

    >>> parse_e3('{"query": "  ricci   flow ", "anchor": "use it"}')
    ('ricci flow', 'use it')
    >>> parse_e3("no json")
    ('', None)
    """
    obj = reply_object(text)
    query = " ".join(str(obj.get("query") or "").split())[:MAX_QUERY_CHARS]
    anchor = " ".join(str(obj.get("anchor") or "").split())[:MAX_ANCHOR_CHARS] or None
    return query, anchor


def listing(candidates: Sequence[Any]) -> str:
    """The search results as the agent sees them: id, title, authors, year and the shown text."""
    return "\n\n".join(f"[{c.id}] {c.title} — {', '.join(c.authors[:6])} ({c.year or 'n.d.'})\n{c.text}"
                       for c in candidates)


def choose_messages(row: Mapping[str, Any], window: int, step: str, candidates: Sequence[Any],
                    scope: str = "global_local") -> list[dict[str, str]]:
    return load_prompt("e4", PROMPTS["e4"]).render({
        **context(row, window, scope), "step": step,
        "material": f"### SEARCH RESULTS (top {len(candidates)})\n{listing(candidates)}", "reply": CHOOSE_REPLY})


def extract_messages(row: Mapping[str, Any], window: int, step: str, source: Any, shown: str,
                     scope: str = "global_local") -> list[dict[str, str]]:
    return load_prompt("e4", PROMPTS["e4"]).render({
        **context(row, window, scope), "step": step,
        "material": f"### SOURCE TEXT (excerpts of [{source.id}] {source.title})\n{shown}", "reply": EXTRACT_REPLY})


def parse_choice(text: str, candidates: Sequence[Any]) -> Any | None:
    wanted = reply_object(text).get("source")
    if isinstance(wanted, str):
        wanted = wanted.strip().strip("[]")
    return next((c for c in candidates if c.id == wanted), None)


def parse_statement(text: str) -> str | None:
    statement = reply_object(text).get("statement")
    return statement.strip()[:MAX_STATEMENT_CHARS] if isinstance(statement, str) and statement.strip() else None


def shown_text(text: str, query: str, step: str) -> str:
    """Excerpts of an opened text matched to the agent's own query and step (the whole text when it is short)."""
    from lemmata.benchmarks.re2math.agent.live import EXCERPT_BUDGET, excerpts

    if len(text) <= EXCERPT_BUDGET:
        return text
    shown, _ = excerpts(text, f"{query} {step}")
    return shown or text[:EXCERPT_BUDGET]


# --- the requests and what the runner writes from their answers (the run and the request-log check share them) ----

#: the steps of one instance, in the order its requests are asked and logged
STAGES = ("e3", "e4-choose", "e4-extract")


def stage_job(iid: str, stage: str, messages: Sequence[Mapping[str, Any]], sampling: Sampling) -> ChatJob:
    """The request of one step of one instance (id ``<instance>/<stage>``)."""
    return ChatJob(id=f"{iid}/{stage}", messages=tuple(messages), sampling=sampling)


def e3_job(iid: str, row: Mapping[str, Any], *, track: str, window: int, scope: str, cite_keys: str,
           sampling: Sampling) -> ChatJob:
    """An instance's first request (E3), a function of the release row alone: a scorer recomputes it."""
    return stage_job(iid, "e3", e3_messages(system_input(row, cite_keys), track, window, scope), sampling)


def _text(hit: tuple[int, Any] | None) -> str | None:
    return hit[1].text if hit is not None and hit[1].abstention is None else None


def record_from_log(answer: Callable[[str], tuple[int, Any] | None], candidates: Sequence[str], *, track: str,
                    oracle: bool) -> dict[str, tuple[Any, int | None]]:
    """What the run writes into an instance's record from its logged answers: field → (value, log line of the
    answer it comes from). ``answer(stage)`` is the logged ``(line, answer)`` of a step, or None; ``candidates``
    are the ids the record's query returned (replayed against the world when the upload is validated). A step the
    run must have asked but the log lacks gives :data:`~lemmata.tracks.runner_log.NOT_LOGGED`. The E4 requests'
    messages show search results and opened text, so only their answers are compared, not recomputed."""
    from types import SimpleNamespace

    from lemmata.tracks.runner_log import NOT_LOGGED

    e3 = answer("e3")
    line = e3[0] if e3 is not None else None
    query, anchor = parse_e3(_text(e3) or "")
    out: dict[str, tuple[Any, int | None]] = {"anchor": (anchor if track == "raw" else None, line),
                                              "queries": ([query] if query and not oracle else [], line),
                                              "selected_source": (None, line), "opened": ([], line)}
    chosen = None
    if query and not oracle and candidates:
        choose = answer("e4-choose")
        if choose is None:
            out["selected_source"] = (NOT_LOGGED, None)
        else:
            text = _text(choose)
            picked = parse_choice(text, [SimpleNamespace(id=c) for c in candidates]) if text is not None else None
            chosen = picked.id if picked is not None else None
            out["selected_source"] = (chosen, choose[0])
            out["opened"] = ([chosen] if chosen else [], choose[0])
    extract = answer("e4-extract")
    field = "oracle_statement" if oracle else "statement"
    if extract is not None:
        text = _text(extract)
        out[field] = (parse_statement(text) if text is not None else None, extract[0])
    else:  # asked after a chosen source (the oracle condition: after a query, when the cited source is attributed)
        out[field] = (NOT_LOGGED if chosen is not None else None, line)
    return out


# --- the offline run -----------------------------------------------------------------------------------------------


def solve_all(rows: Sequence[Mapping[str, Any]], artifact: Any, runner: ChatRunner, *, track: str, window: int,
              sampling: Sampling = Sampling(), condition: str = "retrieval", scope: str = "global_local",
              cite_keys: str = DEFAULT_CITE_KEYS, quiet: bool = False,
              asked: dict[str, tuple[ChatJob, Completion]] | None = None,
              ) -> tuple[list[dict[str, Any]], Counter, dict[str, str]]:
    """Every instance's record, abstentions counted by stage and reason, and each abstaining instance's reason;
    ``asked``, when given, is filled with every request of the run and its answer, by job id (for the request log).

    Under ``condition="oracle-source"`` E3 is followed by the cited source's opening (the artifact's attribution)
    and E4 extract, whose statement is the record's ``oracle_statement``: no search, no choice.

    ``artifact`` may be a :class:`~concurrent.futures.Future` of the artifact, still opening when the E3 requests
    go out (E3 reads the release row alone): the answers that come before it is open wait for it in the runner
    (:meth:`ChatRunner.run <lemmata.oracles.chat_runner.ChatRunner.run>`), the requests going on meanwhile, and an
    artifact that fails to open stops the run at the first of them (the answers already in are cached).
    """
    from lemmata.benchmarks.re2math.scholar.identity import AttributedIdentity, year_cutoff

    oracle = condition == "oracle-source"

    def art() -> Any:
        """The artifact (waited for where it is still opening)."""
        return artifact.result() if isinstance(artifact, Future) else artifact

    abstained: Counter = Counter()
    reasons: dict[str, str] = {}
    records: dict[str, dict[str, Any]] = {}
    state: dict[str, dict[str, Any]] = {}

    def usable(iid: str, stage: str, c: Completion) -> str | None:
        if not c.ok:
            abstain(iid, stage, c.abstention or "")
            return None
        return c.text

    def abstain(iid: str, stage: str, reason: str) -> None:
        abstained[f"{stage}: {reason.split(':')[0]}"] += 1
        reasons[iid] = f"{stage}: {reason}"

    by_id = {row["instance_id"]: system_input(row, cite_keys) for row in rows}
    for iid in by_id:
        records[iid] = {"instance_id": iid, "queries": [], "opened": [], "selected_source": None, "statement": None}
        if oracle:
            records[iid]["oracle_statement"] = None
        if track == "raw":
            records[iid]["anchor"] = None

    def job(iid: str, stage: str, messages: list[dict[str, str]]) -> ChatJob:
        return stage_job(iid, stage, messages, sampling)

    def e3(iid: str, c: Completion) -> list[ChatJob] | Future:
        # 1. E3 answered: 2. one search, then ask 3. E4 choose
        row, text = by_id[iid], usable(iid, "e3", c)
        query, anchor = parse_e3(text or "")
        if track == "raw":
            records[iid]["anchor"] = anchor
        if text is not None and not query:
            abstain(iid, "e3", "no query in the reply")
        if not query:
            return []
        if oracle:
            return oracle_extract(iid, query, anchor or NO_STEP)
        result = art().search(query, year_cutoff(art(), row), CANDIDATES_N, instance_id=iid)
        records[iid]["queries"] = [{"text": query, "candidates": result.ids()}]
        state[iid] = {"query": query, "step": anchor or NO_STEP, "candidates": list(result.candidates)}
        if not result.candidates:
            return []
        return [job(iid, "e4-choose", choose_messages(row, window, state[iid]["step"], state[iid]["candidates"],
                                                      scope))]

    def not_openable_yet(record_id: str) -> Future | None:
        # an opening that would wait for a read (the artifact reading ahead, or not yet) comes back once it
        # would not, the run's other requests going on meanwhile (the answer is handed back: see on_answer)
        ready = getattr(art(), "opening_ready", None)
        return ready(record_id) if ready is not None else None

    def oracle_extract(iid: str, query: str, step: str) -> list[ChatJob] | Future:
        # the oracle condition: the cited source is opened for the agent, which only extracts
        source = AttributedIdentity(art()).cited_record(iid)
        if source is None:
            abstain(iid, "oracle", "no cited source attributed")
            return []
        wait = not_openable_yet(source)
        if wait is not None:
            return wait
        opened = art().materialise(source, instance_id=iid)
        state[iid] = {"query": query, "step": step}
        shown = shown_text(opened.text or "", query, step)
        return [job(iid, "e4-extract", extract_messages(by_id[iid], window, step, opened.record, shown, scope))]

    def choose(iid: str, c: Completion) -> list[ChatJob] | Future:
        # 3. E4 choose answered: 4. open the one source, then ask 5. E4 extract
        s, text = state[iid], usable(iid, "e4-choose", c)
        chosen = parse_choice(text, s["candidates"]) if text is not None else None
        if text is not None and chosen is None:
            abstain(iid, "e4-choose", "no listed source chosen")
        if chosen is None:
            return []
        wait = not_openable_yet(chosen.id)
        if wait is not None:
            return wait
        opened = art().materialise(chosen.id, instance_id=iid)
        records[iid]["opened"] = [chosen.id]
        records[iid]["selected_source"] = chosen.id
        shown = shown_text(opened.text or "", s["query"], s["step"])
        return [job(iid, "e4-extract", extract_messages(by_id[iid], window, s["step"], chosen, shown, scope))]

    def extract(iid: str, c: Completion) -> None:
        text = usable(iid, "e4-extract", c)
        statement = parse_statement(text) if text is not None else None
        if text is not None and statement is None:
            abstain(iid, "e4-extract", "no statement")
        records[iid]["oracle_statement" if oracle else "statement"] = statement

    steps = {"e3": e3, "e4-choose": choose, "e4-extract": extract}

    def on_answer(done: ChatJob, c: Completion) -> list[ChatJob] | Future | None:
        # every instance moves to its next step as soon as its previous answer is in, so the searches, openings
        # and prompt rendering of one instance overlap the requests of the others; at most one request per step.
        # An answer whose step needs the artifact while it is still opening, or an opening that would wait for a
        # read, is handed back to the runner with that future, to come again once it is done: the other requests
        # go on meanwhile. A step is taken whole or not at all, so an answer handed back comes again unchanged
        if isinstance(artifact, Future) and not artifact.done():
            return artifact
        if asked is not None:
            asked[done.id] = (done, c)
        iid, _, stage = done.id.rpartition("/")
        return steps[stage](iid, c)

    given = {row["instance_id"]: row for row in rows}
    if not isinstance(artifact, Future):  # an artifact still opening prefetches where it opens
        prefetch(artifact)
    runner.run([e3_job(iid, row, track=track, window=window, scope=scope, cite_keys=cite_keys, sampling=sampling)
                for iid, row in given.items()],
               desc="Re²Math E3 → cited source → E4" if oracle else "Re²Math E3 → search → E4", quiet=quiet,
               on_answer=on_answer)
    return [records[row["instance_id"]] for row in rows], abstained, reasons


def prefetch(artifact: Any) -> Any:
    """``artifact``, made ready for a run where it can: what its openings read is read on a background thread
    (every instance opens a source, so the columns are read while the first requests run), and what its searches
    read is loaded on the calling thread (the thread that opened it, for a world opened in the background)."""
    for name in ("prefetch_openings", "prefetch_search"):
        step = getattr(artifact, name, None)
        if step is not None:
            step()
    return artifact


def open_world_artifact(folder: Path) -> Any:
    """The offline world in ``folder`` opened (every file checked) as the agent's artifact, made ready for the
    run (:func:`prefetch`)."""
    from lemmata.benchmarks.re2math.scholar.world_artifact import WorldArtifact
    from lemmata.benchmarks.re2math.scholar.worlds import open_any_world

    return prefetch(WorldArtifact(open_any_world(folder)))


def model_info(runner: ChatRunner, sampling: Sampling) -> ModelInfo:
    reported = runner.stats.endpoint_models.most_common(1)
    return ModelInfo(name=runner.endpoint.model, kind="agent", endpoint_model=reported[0][0] if reported else None,
                     sampling=sampling.model_dump(mode="json"), prompt_version=PROMPT_VERSION)


def request_log_of(runner: ChatRunner, release_id: str, sampling: Sampling, rows: Sequence[Mapping[str, Any]],
                   asked: Mapping[str, tuple[ChatJob, Completion]]) -> bytes:
    """The run's request log: every request asked, instance by instance in split order, each instance's steps in
    order (:data:`STAGES`), so the same answers give the same bytes whatever order they arrived in. Every record
    was made from the answers as received, so a log that would have to drop a completion to stay within the
    scorer's limit is refused rather than written unlike its records."""
    from lemmata.core.errors import LemmataError
    from lemmata.formats.runner_log import LOG_LIMIT
    from lemmata.harness.runs import request_log

    order = {row["instance_id"]: i for i, row in enumerate(rows)}

    def position(job: ChatJob) -> tuple[int, int]:
        iid, _, stage = job.id.rpartition("/")
        return order[iid], STAGES.index(stage)

    jobs = sorted((job for job, _ in asked.values()), key=position)
    log, logged = request_log(runner, "re2math", release_id, PROMPT_VERSION, sampling, jobs,
                              {jid: c for jid, (_, c) in asked.items()})
    if any((e.answer.abstention or "").startswith(LOG_LIMIT) for e in logged):
        raise LemmataError("the run's answers make a request log larger than the scorer reads; ask for shorter "
                           "replies (--max-tokens)")
    return log


def run_offline_agent(runner: ChatRunner, out_dir: str | Path, *, track: str = "raw", split: str = "eval200/test",
                      window: int = 5, sampling: Sampling = Sampling(), artifacts_root: str | Path | None = None,
                      rows: Sequence[Mapping[str, Any]] | None = None, condition: str = "retrieval",
                      scope: str = "global_local", cite_keys: str = DEFAULT_CITE_KEYS,
                      quiet: bool = False) -> tuple[Path, dict[str, Any]]:
    """Run the protocol on ``split`` of the current world; write the submission. Returns its path and run metadata.

    ``artifacts_root`` holds the built world (default: the artifacts folder, built there when missing, before any
    request goes out). The world opens on a background thread while the release is read and the E3 requests go
    out: E3 needs the release row alone, and the opening (every file's sha256 checked, the index mapped, the hit
    columns read: 0.3 s) otherwise came before the first request; the answers that come before it is open wait
    for it in the runner while the other requests go on.
    """
    from concurrent.futures import ThreadPoolExecutor

    from lemmata.benchmarks.re2math.meta import RE2MATH
    from lemmata.benchmarks.re2math.scholar.worlds import current_world, world_id, world_path
    from lemmata.formats.envelope import SUBMISSION_FORMAT
    from lemmata.formats.runner_log import runner_field
    from lemmata.harness.runs import write_logged
    from lemmata.oracles.judge import slug

    folder = Path(artifacts_root) / world_id() if artifacts_root else world_path()
    if not artifacts_root and not folder.is_dir():
        current_world(build=True)
    asked: dict[str, tuple[ChatJob, Completion]] = {}
    with ThreadPoolExecutor(1, thread_name_prefix="lemmata-world-open") as opener:
        opening = opener.submit(open_world_artifact, folder)
        if rows is None:
            from lemmata.catalog import load_release

            config, _, name = split.partition("/")
            rows = list(load_release(RE2MATH).rows(config, name))
        records, abstained, reasons = solve_all(rows, opening, runner, track=track, window=window,
                                                sampling=sampling, condition=condition, scope=scope,
                                                cite_keys=cite_keys, quiet=quiet, asked=asked)
        artifact = opening.result()
    log = request_log_of(runner, RE2MATH.release_id, sampling, rows, asked)
    oracle = condition == "oracle-source"
    header = {
        "format": SUBMISSION_FORMAT, "benchmark": "re2math", "release": RE2MATH.release_id, "split": split,
        "track": track, "window": window, "model": model_info(runner, sampling).model_dump(mode="json"),
        "retrieval_artifact": artifact.artifact_id,
        "flags": {"tuned_on_pool": False, "used_external_tools": False}, "max_queries": 1, "max_opens": 1,
        **({"oracle_run": True, "condition": condition} if oracle else {}),
        **({"scope": scope} if scope != "global_local" else {}), "cite_keys": cite_keys,
        "runner": runner_field(PROMPT_VERSION, log),
        "notes": (f"lemmata run re2math --condition oracle-source: the paper's oracle condition (prompts "
                  f"{PROMPT_VERSION}; the cited source's opened text given, one statement extracted) on "
                  f"{artifact.artifact_id}." if oracle else
                  f"lemmata run re2math: the paper's protocol (prompts {PROMPT_VERSION}; one query, at most one "
                  f"opened source) on {artifact.artifact_id}.")
                 + (" Local-only scope: setup and target theorem not shown." if scope == "local_only" else "")
                 + (" Cite keys unmasked: the input as stored." if cite_keys == "unmasked" else ""),
    }
    variant = (("" if not oracle else ".oracle-source") + ("" if scope == "global_local" else f".{scope}")
               + ("" if cite_keys == DEFAULT_CITE_KEYS else f".{cite_keys}"))
    path = Path(out_dir) / (f"re2math.{split.replace('/', '-')}.{track}.m{window}{variant}."
                            f"{slug(runner.endpoint.model)}.jsonl")
    write_logged(path, [header, *records], log)
    meta = {"instances": len(records), "abstentions": dict(sorted(abstained.items())),
            "abstention_reasons": dict(sorted(reasons.items())),
            "retrieval_artifact": artifact.artifact_id}
    return path, meta

