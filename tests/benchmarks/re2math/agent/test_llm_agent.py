"""`lemmata run re2math` against an in-process chat endpoint on the offline world; `lemmata judge` completes it."""

from __future__ import annotations

import json
import re

import pytest

from lemmata.cli import main
from lemmata.oracles.chat_double import ChatDouble, Reply


def agent(body: dict) -> str | Reply:
    """E3: a query from the target theorem for a quarter of the instances, else a refusal, a malformed body or prose;
    E4: the first listed result (or prose), then the opened text's first sentence (or a truncated reply)."""
    text = body["messages"][-1]["content"]
    target = re.search(r"### TARGET THEOREM\n(.*?)\n\n###", text, re.S).group(1)
    n = len(target)
    if "## E3" in text:
        if n % 4 == 1:
            return Reply(content=None, refusal="I won't.")
        if n % 4 == 2:
            return Reply(raw=b'{"choices": [{"message": {"content": "x"}')
        if n % 4 == 3:
            return "Let me think about which result is needed here."
        return json.dumps({"query": " ".join(target.split()[:12]), "anchor": "apply the cited result"})
    if "### SEARCH RESULTS" in text:
        first = re.search(r"^\[([^\]]+)\]", text.split("### SEARCH RESULTS", 1)[1], re.M)
        return '{"source": "%s"}' % first.group(1) if n % 3 else "the second one, I think"
    excerpt = text.split("### SOURCE TEXT", 1)[1].split("\n", 2)[2]
    sentence = re.split(r"(?<=[.!?])\s", " ".join(excerpt.split()))[0]
    return json.dumps({"statement": sentence}) if n % 5 else Reply(content='{"statement": "Every', finish_reason="length")


@pytest.fixture
def world_home(tmp_path, monkeypatch, re2math_release, scholar_artifacts, scholar_world_22):
    """A home whose artifacts folder links the session's worlds (the current 2.2 one included): no second build."""
    from lemmata.benchmarks.re2math.scholar.worlds import world_id

    home = tmp_path / "home"
    (home / "artifacts").mkdir(parents=True)
    for built in scholar_artifacts.iterdir():
        (home / "artifacts" / built.name).symlink_to(built, target_is_directory=built.is_dir())
    (home / "artifacts" / world_id()).symlink_to(scholar_world_22, target_is_directory=True)
    monkeypatch.setenv("LEMMATA_HOME", str(home))
    monkeypatch.setenv("LEMMATA_RELEASES", str(re2math_release.parent))
    for var in ("LEMMATA_JUDGE_BASE_URL", "LEMMATA_JUDGE_MODEL", "LEMMATA_LEAN_URL", "LEMMATA_JUDGE_ARTIFACT"):
        monkeypatch.delenv(var, raising=False)
    return home


def test_run_re2math_scores_pending_then_judge_completes_a_new_version(world_home, tmp_path, monkeypatch):
    from lemmata.cli.judge import fill_pending
    from lemmata.oracles.chat import ChatConfig, ChatJudge
    from lemmata.scoring import score_file
    from lemmata.store import Store
    from lemmata.tracks.base import OracleConfig

    with ChatDouble(agent, model_id="agent-x-0125") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("LEMMATA_LLM_MAX_RETRIES", "1")
        monkeypatch.setenv("LEMMATA_LLM_BACKOFF_S", "0")  # the 50 malformed replies are retried without a wait
        monkeypatch.setenv("LEMMATA_LLM_CONCURRENCY", "8")
        code = main(["run", "re2math", "--model", "agent-x", "--out", str(tmp_path / "out"), "--cache",
                     str(tmp_path / "cache.jsonl"), "--window", "3", "--track", "raw", "--quiet", "--no-score"])
        assert code == 0
        sub = next(p for p in (tmp_path / "out").glob("*.jsonl") if not p.name.endswith(".runner-log.jsonl"))
        first_bytes = sub.read_bytes()
        sent = len(server.requests)
        assert main(["run", "re2math", "--model", "agent-x", "--out", str(tmp_path / "out"), "--cache",
                     str(tmp_path / "cache.jsonl"), "--window", "3", "--quiet", "--no-score"]) == 0
        resent = len(server.requests) - sent
    lines = [json.loads(x) for x in first_bytes.decode("utf-8").splitlines()]
    header, records = lines[0], lines[1:]
    assert header["retrieval_artifact"] == "re2math-scholar-offline-2.2.0" and header["window"] == 3
    assert header["cite_keys"] == "masked"  # the offline default, declared
    assert (header["max_queries"], header["max_opens"]) == (1, 1)
    assert header["model"]["endpoint_model"] == "agent-x-0125"
    assert header["model"]["prompt_version"] == "re2math-e3.v1+e4.v1"
    assert len(records) == 200 and all(len(r["queries"]) <= 1 and len(r["opened"]) <= 1 for r in records)
    assert any(r["statement"] for r in records) and any(not r["queries"] for r in records)
    assert all(r["selected_source"] in (r["opened"] or [None]) for r in records)
    meta = json.loads(sub.with_suffix(".run.json").read_text("utf-8"))
    reasons = meta["abstentions"]
    assert {"e3: refused", "e3: unavailable", "e3: no query in the reply", "e4-choose: no listed source chosen"} \
        <= set(reasons) and reasons.get("e4-extract: truncated", 0) + reasons.get("e4-extract: no statement", 0) >= 1
    assert meta["abstention_reasons"] and all(v.startswith("e") for v in meta["abstention_reasons"].values())
    # malformed bodies are retried, never cached: the rerun asks again for them only
    assert resent == reasons["e3: unavailable"] * 2
    assert sub.read_bytes() == first_bytes

    store = Store(tmp_path / "store")
    v1 = score_file(sub, store)  # with the request log written beside it (the rerun wrote the same bytes)
    assert v1.status == "pending_oracle" and v1.pending > 0
    assert v1.flags["runner_log"] == "consistent" and v1.provenance["runner_log"]["log_sha256"] == \
        header["runner"]["log_sha256"]
    assert_edits_are_named(sub, lines)
    v1_bytes = store.result_path(v1).read_bytes()
    # what the board's "≥ a and ≤ b / n pending" needs: each item's headline status (a final "no" is never
    # pending, even while the item waits for another verdict) next to its own pending flag
    statuses = [item["tool_acc"] for item in v1.items]
    assert set(statuses) <= {"yes", "no", "pending"} and statuses.count("pending") <= v1.pending
    assert statuses.count("yes") == (v1.main.count or 0) and sum(item["pending"] for item in v1.items) == v1.pending
    from test_judge import ChatServer, rule_answer  # the judge protocol double

    with ChatServer(rule_answer) as judge_server:
        judge = ChatJudge(ChatConfig(base_url=judge_server.base_url, model="judge-m", api_key="sk-test-0123",
                                     backoff_s=0))
        (line,) = fill_pending(store, OracleConfig(judge=judge, extra={"judge_artifact": str(tmp_path / "judge")}))
    assert "version 2" in line and "status scored" in line
    latest = store.results(benchmark="re2math")[0]
    assert latest.version == 2 and latest.supersedes == v1.result_id and latest.pending == 0
    assert store.result_path(v1).read_bytes() == v1_bytes


def assert_edits_are_named(sub, lines: list[dict]) -> None:
    """A statement or an anchor edited after the run, or a statement whose extraction the log lacks, is refused
    with the submission's line and field; the log line of the answer is named."""
    from lemmata.core.errors import InputError
    from lemmata.formats.runner_log import log_beside
    from lemmata.scoring import validate_upload

    log = log_beside(sub).read_bytes()
    entries = [json.loads(x) for x in log.decode("utf-8").splitlines()]

    def refused(pos: int, **change) -> list:
        edited = [lines[0], *[dict(r, **change) if i == pos else r for i, r in enumerate(lines[1:])]]
        data = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in edited).encode("utf-8")
        with pytest.raises(InputError) as exc:
            validate_upload(data, sub.name, runner_log=log, runner_log_name=log_beside(sub).name)
        return exc.value.problems

    stated = next(i for i, r in enumerate(lines[1:]) if r["statement"])
    (problem,) = refused(stated, statement="A stronger theorem than the source states.")
    iid = lines[1 + stated]["instance_id"]
    log_line = next(n for n, e in enumerate(entries, 1) if e.get("item") == f"{iid}/e4-extract")
    assert (problem.line, problem.field) == (stated + 2, "statement") and f"line {log_line} of" in problem.reason
    planned = next(i for i, r in enumerate(lines[1:]) if r["anchor"])
    assert [(p.line, p.field) for p in refused(planned, anchor="a better plan")] == [(planned + 2, "anchor")]


class _World:
    """A stand-in world: counts every search and opening, so the budget is checked by what the run did."""

    def __init__(self) -> None:
        from collections import Counter

        self.searches, self.openings = Counter(), Counter()
        self.opened: list[str] = []

    def attribution(self, instance_id):
        """Instances p0 and p1 cite ``cited-<id>``; the others have no attributed source."""
        from types import SimpleNamespace

        from lemmata.core.errors import InputError

        if instance_id in ("p0_gap_0", "p1_gap_0"):
            return SimpleNamespace(record_id=f"cited-{instance_id}", year_cutoff=None)
        raise InputError.one("world", "no attribution")

    def search(self, query, cutoff, n, *, instance_id=None):
        from types import SimpleNamespace

        from lemmata.benchmarks.re2math.scholar.querycache import Candidate

        self.searches[instance_id] += 1
        cands = [Candidate(id=f"rec-{i}", rank=i, kind="scholar_result", title=f"Work {i}", text="A. Author 2001",
                           authors=["A. Author"], year=2001) for i in range(1, 4)]
        return SimpleNamespace(candidates=cands, ids=lambda: [c.id for c in cands])

    def materialise(self, record_id, *, instance_id=None):
        from types import SimpleNamespace

        self.openings[instance_id] += 1
        self.opened.append(record_id)
        return SimpleNamespace(record=SimpleNamespace(id=record_id, title=f"Work {record_id}"),
                               text=f"# {record_id}\n\n## Abstract\nEvery bounded sequence has a convergent subsequence.")


class _ReadingWorld(_World):
    """A stand-in world whose openings first wait for a read (``opening_ready``'s future, done by a timer): the
    run must open each record only once its read is in, and answer meanwhile."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: dict[str, object] = {}
        self.early: list[str] = []

    def opening_ready(self, record_id):
        import threading
        from concurrent.futures import Future

        read = self.reads.get(record_id)
        if read is None:
            read = self.reads[record_id] = Future()
            threading.Timer(0.1, read.set_result, (None,)).start()
        return None if read.done() else read

    def materialise(self, record_id, *, instance_id=None):
        if not self.reads[record_id].done():
            self.early.append(record_id)
        return super().materialise(record_id, instance_id=instance_id)


def _row(i: int) -> dict:
    return {"instance_id": f"p{i}_gap_0", "publication_year": 2020,
            "x": {"global_context": {"setup": "Let X be a space.", "target_theorem": f"Theorem {i}. X is compact."},
                  "local_context": ["Block one.", "Block two.", "Block three."], "anchor_hint": "HINT: use B-W."}}


def test_assisted_track_window_and_budget_by_construction():
    from lemmata.benchmarks.re2math.agent.llm_agent import solve_all
    from lemmata.oracles.chat_runner import ChatRunner, Endpoint

    seen: list[str] = []

    def greedy(body: dict) -> str:
        text = body["messages"][-1]["content"]
        seen.append(text)
        if "## E3" in text:  # asks for more than the budget: two queries
            return '{"query": "bolzano weierstrass", "queries": ["a", "b"], "anchor": "extract a subsequence"}'
        if "### SEARCH RESULTS" in text:
            return '{"source": "[rec-2]", "also_open": ["rec-1", "rec-3"]}'
        return '{"statement": "Every bounded sequence has a convergent subsequence."}'

    world = _World()
    with ChatDouble(greedy) as server:
        with ChatRunner(Endpoint(base_url=server.base_url, model="m", backoff_s=0)) as runner:
            records, abstained, _ = solve_all([_row(i) for i in range(4)], world, runner, track="assisted",
                                              window=1, quiet=True)
    assert not abstained and all(n == 1 for n in world.searches.values()) and len(world.searches) == 4
    assert all(n == 1 for n in world.openings.values()) and len(world.openings) == 4
    assert all(r["queries"] == [{"text": "bolzano weierstrass", "candidates": ["rec-1", "rec-2", "rec-3"]}]
               and r["opened"] == ["rec-2"] == [r["selected_source"]] and "anchor" not in r for r in records)
    e3 = [t for t in seen if "## E3" in t]
    assert all("HINT: use B-W." in t and "Block three." in t and "Block two." not in t for t in e3)
    assert len(seen) == 12  # one E3, one choice and one extraction per instance


def test_oracle_source_condition_opens_the_cited_source_and_local_scope_hides_the_global_context():
    from lemmata.benchmarks.re2math.agent.llm_agent import HIDDEN, solve_all
    from lemmata.oracles.chat_runner import ChatRunner, Endpoint

    seen: list[str] = []

    def extractor(body: dict) -> str:
        text = body["messages"][-1]["content"]
        seen.append(text)
        if "## E3" in text:
            return '{"query": "bolzano weierstrass", "anchor": "extract a subsequence"}'
        assert "### SEARCH RESULTS" not in text  # the oracle condition has no choice to make
        return '{"statement": "Every bounded sequence has a convergent subsequence."}'

    world = _World()
    with ChatDouble(extractor) as server:
        with ChatRunner(Endpoint(base_url=server.base_url, model="m", backoff_s=0)) as runner:
            records, abstained, reasons = solve_all([_row(i) for i in range(3)], world, runner, track="raw",
                                                    window=3, condition="oracle-source", scope="local_only",
                                                    quiet=True)
    assert not world.searches and sorted(world.opened) == ["cited-p0_gap_0", "cited-p1_gap_0"]
    assert [r["oracle_statement"] for r in records] == ["Every bounded sequence has a convergent subsequence."] * 2 + [None]
    assert all(r["queries"] == [] and r["opened"] == [] and r["selected_source"] is None and r["statement"] is None
               and r["anchor"] == "extract a subsequence" for r in records)
    assert dict(abstained) == {"oracle: no cited source attributed": 1} and reasons == {
        "p2_gap_0": "oracle: no cited source attributed"}
    assert len(seen) == 5 and all(f"### TARGET THEOREM\n{HIDDEN}" in t and "Theorem" not in t for t in seen)
    assert any("[cited-p0_gap_0] Work cited-p0_gap_0" in t for t in seen)


def test_prompts_mask_the_instance_cite_key_by_default_and_unmasked_is_declared(tmp_path):
    """Every prompt reads ``\\cite{?}`` where the input cites the instance's own source; ``cite_keys="unmasked"``
    shows the key (the CLI run above declares ``cite_keys`` in its header)."""
    from lemmata.benchmarks.re2math.agent.llm_agent import solve_all
    from lemmata.oracles.chat_runner import ChatRunner, Endpoint

    def cited(i: int) -> dict:
        row = _row(i)
        row["z"] = {"citation_key": "BW1817"}
        row["x"]["global_context"]["target_theorem"] += r" By \cite[Thm.~1]{BW1817}."
        row["x"]["local_context"][-1] += r" As in \citet{Other,BW1817}."
        return row

    for cite_keys, shown in (("masked", r"\cite[Thm.~1]{?}"), ("unmasked", r"\cite[Thm.~1]{BW1817}")):
        seen: list[str] = []

        def reader(body: dict) -> str:
            seen.append(body["messages"][-1]["content"])
            return '{"query": "bolzano weierstrass", "anchor": "x"}' if "## E3" in seen[-1] else '{"source": null}'

        with ChatDouble(reader) as server:
            with ChatRunner(Endpoint(base_url=server.base_url, model="m", backoff_s=0)) as runner:
                solve_all([cited(0)], _World(), runner, track="raw", window=1, cite_keys=cite_keys, quiet=True)
        assert len(seen) == 2 and all(shown in t for t in seen)
        assert all(("BW1817" in t) == (cite_keys == "unmasked") for t in seen)
        assert all(("{Other,?}" in t) == (cite_keys == "masked") for t in seen)



def test_e3_requests_go_out_while_the_artifact_opens_and_a_failed_opening_stops_the_run():
    """``solve_all`` given a Future of the artifact (``lemmata run re2math`` opens the world on a background thread)
    sends the E3 requests before the artifact is open, answers as with the open artifact, and stops at the first
    answer that needs an artifact which failed to open, with that artifact's own error and no later request; an
    artifact whose openings wait for a read (``opening_ready``) is opened only once the read is in, with the same
    records."""
    import threading
    from concurrent.futures import Future

    from lemmata.benchmarks.re2math.agent.llm_agent import solve_all
    from lemmata.core.errors import InputError
    from lemmata.oracles.chat_runner import ChatRunner, Endpoint

    def answer(body: dict) -> str:
        text = body["messages"][-1]["content"]
        with lock:
            seen.append(text)
            if "## E3" in text and sum("## E3" in t for t in seen) == 4:
                every_e3.set()
        if "## E3" in text:
            return '{"query": "bolzano weierstrass", "anchor": "extract a subsequence"}'
        if "### SEARCH RESULTS" in text:
            return '{"source": "[rec-2]"}'
        return '{"statement": "Every bounded sequence has a convergent subsequence."}'

    lock = threading.Lock()
    runs, before = {}, []
    for how in ("open", "opening", "failing", "reading"):
        seen: list[str] = []
        every_e3 = threading.Event()
        world: object = _ReadingWorld() if how == "reading" else _World()
        if how not in ("open", "reading"):
            opening: Future = Future()

            def resolve(future=opening, fail=how == "failing", open_world=world) -> None:
                before.append(every_e3.wait(5))  # every E3 request is in before the artifact is
                if fail:
                    future.set_exception(InputError.one("records.parquet", "sha256 mismatch"))
                else:
                    future.set_result(open_world)

            threading.Thread(target=resolve, daemon=True).start()
        with ChatDouble(answer) as server:
            with ChatRunner(Endpoint(base_url=server.base_url, model="m", backoff_s=0, concurrency=4)) as runner:
                args = dict(track="raw", window=1, quiet=True)
                if how == "failing":
                    with pytest.raises(InputError, match="sha256 mismatch"):
                        solve_all([_row(i) for i in range(4)], opening, runner, **args)
                else:
                    runs[how] = solve_all([_row(i) for i in range(4)], opening if how == "opening" else world,
                                          runner, **args)
        if how == "reading":  # every opening came after its read, once for each instance
            assert world.early == [] and list(world.reads) == ["rec-2"] and world.openings.total() == 4
        if how == "failing":
            assert len(seen) == 4 and all("## E3" in t for t in seen)  # nothing asked after the failure
        else:
            assert len(seen) == 12 and sorted(world.opened) == ["rec-2"] * 4
    assert runs["opening"] == runs["open"] == runs["reading"] and before == [True, True]
