"""The judge: rubric templates, strict verdict parsing, the chat-completions client and the judge artifact.

The client is tested against :class:`ChatServer`, an in-process HTTP server on
127.0.0.1 that speaks the chat-completions protocol (POST
/v1/chat/completions, bearer auth, ``choices[0].message.content``) and can be
scripted to misbehave: malformed bodies, rate limits, slow answers.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable

import pytest

from lemmata.core.errors import LemmataError
from lemmata.oracles.chat import ChatClient, ChatConfig, ChatJudge, OracleAuthError, OracleRequestError, judge_from_env
from lemmata.oracles.judge import (
    JudgeArtifact,
    OracleUnavailable,
    is_positive,
    load_rubric,
    parse_rubric,
    parse_verdict,
)
from lemmata.oracles.local_server import JsonHandler, LocalServer

API_KEY = "sk-test-0123"


def _section(text: str, title: str) -> str:
    """A section's text; a fenced rubric's data blocks are unwrapped (their markers are not the value)."""
    m = re.search(rf"^### {re.escape(title)}[^\n]*\n(.*?)(?=^### |\Z)", text, re.S | re.M)
    if not m:
        return ""
    body = re.sub(r"^<<<DATA [0-9a-f]+ [a-z_]+>>>\n|\n?<<<END DATA [0-9a-f]+>>>$", "", m.group(1).strip(), flags=re.M)
    return body.strip()


def plans_alike(reference_anchor: str, query: str) -> bool:
    """The protocol judge's QueryMatch rule: the query shares a word of 8 letters or more with the reference anchor."""
    def words(text: str) -> set[str]:
        return {w for w in re.findall(r"[a-z]{8,}", text.lower())}

    return bool(words(reference_anchor) & words(query))


def known_content_verdict(statement: str, witness: str, opened: str) -> dict[str, str]:
    """The protocol judge's known-content Ground rule: supported when the statement is found verbatim in the
    reference witness or the opened record; "uncertain" (not enough known content) when it is not and the witness
    is cut off ("..."); else not supported."""
    if statement and (statement in witness or statement in opened):
        return {"verdict": "yes", "reason": "the known content states it verbatim"}
    if witness.endswith("..."):
        return {"verdict": "uncertain", "reason": "the witness is cut off"}
    return {"verdict": "no", "reason": "neither the witness nor the opened record states it"}


def rule_answer(request: dict) -> str:
    """A deterministic answer policy for protocol tests (verdicts only ever land in temporary caches)."""
    user = request["messages"][-1]["content"]
    if "Rubric ground_known." in user:
        return json.dumps(known_content_verdict(_section(user, "STATEMENT"), _section(user, "REFERENCE WITNESS"),
                                                _section(user, "OPENED RECORD")))
    if "Rubric ground." in user:
        source, statement = _section(user, "SOURCE"), _section(user, "STATEMENT")
        ok = bool(statement) and statement in source
        return json.dumps({"verdict": "yes" if ok else "no", "reason": "statement found verbatim in the source"
                           if ok else "statement not found in the source"})
    if "Rubric suff." in user:
        ok = _section(user, "CANDIDATE STATEMENT") == _section(user, "REFERENCE STATEMENT (one admissible witness)")
        return json.dumps({"verdict": "yes" if ok else "no", "reason": "same as the reference" if ok else "differs"})
    if "Rubric anchor." in user:
        ok = _section(user, "PLANNING ANCHOR") == _section(user, "REFERENCE ANCHOR")
        return json.dumps({"verdict": "yes" if ok else "uncertain", "reason": "same step" if ok else "unclear"})
    if "Rubric query." in user:
        ok = plans_alike(_section(user, "REFERENCE ANCHOR"), _section(user, "SEARCH QUERY"))
        return json.dumps({"verdict": "yes" if ok else "no", "reason": "targets it" if ok else "another step"})
    return "I cannot tell."


class ChatServer(LocalServer):
    """A chat-completions server on an ephemeral 127.0.0.1 port.

    ``script`` is consumed one entry per request before falling back to
    ``answer``: ``("status", code)``, ``("status", code, {"Retry-After": "0"})``,
    ``("body", b"...")`` (raw HTTP 200 body), ``("content", "...")`` (message
    content), ``("sleep", seconds)`` (then answer normally).
    """

    def __init__(self, answer: Callable[[dict], str] = rule_answer, *, api_key: str = API_KEY,
                 script: list[tuple] | None = None, reject_response_format: bool = False) -> None:
        self.answer = answer
        self.api_key = api_key
        self.script = list(script or [])
        self.reject_response_format = reject_response_format
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        server = self

        class Handler(JsonHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                if self.path != "/v1/chat/completions":
                    return self.send_json(404, b'{"error": {"message": "not found"}}')
                if self.headers.get("Authorization") != f"Bearer {server.api_key}":
                    return self.send_json(401, b'{"error": {"message": "invalid api key"}}')
                try:
                    body = json.loads(raw)
                    assert isinstance(body["model"], str) and isinstance(body["messages"], list)
                except (ValueError, KeyError, AssertionError, TypeError):
                    return self.send_json(400, b'{"error": {"message": "bad request body"}}')
                with server.lock:
                    server.requests.append(body)
                    step = server.script.pop(0) if server.script else None
                if server.reject_response_format and "response_format" in body:
                    return self.send_json(400, b'{"error": {"message": "response_format is not supported"}}')
                content = None
                if step is not None:
                    kind = step[0]
                    if kind == "status":
                        return self.send_json(step[1], b'{"error": {"message": "scripted"}}',
                                              step[2] if len(step) > 2 else None)
                    if kind == "body":
                        return self.send_json(200, step[1])
                    if kind == "content":
                        content = step[1]
                    if kind == "sleep":
                        time.sleep(step[1])
                if content is None:
                    content = server.answer(body)
                reply = {"id": f"chatcmpl-{len(server.requests)}", "object": "chat.completion", "created": 0,
                         "model": body["model"],
                         "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                      "finish_reason": "stop"}],
                         "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
                self.send_json(200, json.dumps(reply).encode("utf-8"))

        self.serve(Handler)

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def config(self, **overrides) -> ChatConfig:
        fields = dict(base_url=self.base_url, model="judge-model", api_key=self.api_key, timeout_s=5.0,
                      max_retries=3, backoff_s=0.0, max_backoff_s=0.0)
        fields.update(overrides)
        return ChatConfig(**fields)


MESSAGES = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]


# -- rubrics and parsing -----------------------------------------------------------------------------------

def test_rubrics_are_versioned_templates_with_their_fields():
    ground, suff, anchor = (load_rubric(n, 1) for n in ("ground", "suff", "anchor"))
    assert ground.id == "ground.v1" and len(ground.sha256) == 64
    assert ground.fields == {"source_id", "source_title", "source_text", "statement"}
    assert suff.fields == {"setup", "target_theorem", "local_context", "anchor_hint", "reference_statement",
                           "statement"}
    assert anchor.fields == {"target_theorem", "local_context", "reference_anchor", "anchor"}
    for rubric in (ground, suff, anchor):
        assert '"verdict": "yes" | "no" | "uncertain"' in rubric.user
    with pytest.raises(ValueError, match="missing fields"):
        ground.render({"statement": "x"})
    with pytest.raises(LemmataError, match="no rubric template"):
        load_rubric("ground", 99)
    with pytest.raises(LemmataError, match="system section then a user section"):
        parse_rubric("x", 1, b"no sections here")


def test_suff_rubric_names_the_checks_the_benchmark_defines():
    text = load_rubric("suff", 1).user.lower()
    for word in ("objects", "domains", "hypotheses", "parameter ranges", "quantifiers", "strength of the conclusion",
                 "stronger", "equivalent", "one admissible"):
        assert word in text


@pytest.mark.parametrize("reply, verdict", [
    ('{"verdict": "no", "reason": "r"}', "no"),
    ('  {"verdict": "uncertain", "reason": ""}\n', "uncertain"),
    ('```json\n{"verdict": "yes", "reason": "r"}\n```', "yes"),
    ('{"verdict": "yes"}', None),
    ('{"verdict": "yes", "reason": "r", "score": 3}', None),
    ('{"verdict": true, "reason": "r"}', None),
    ('Verdict: yes', None),
    ('{"verdict": "yes", "reason": "r"} trailing', None),
    ('', None),
])
def test_verdicts_parse_strictly(reply, verdict):
    parsed = parse_verdict(reply)
    assert (parsed.verdict if parsed else None) == verdict


# -- the client against the protocol server -----------------------------------------------------------------

def test_client_speaks_the_protocol():
    with ChatServer(answer=lambda body: '{"verdict": "yes", "reason": "ok"}') as server:
        client = ChatClient(server.config())
        completion = client.complete(MESSAGES)
        assert completion.choices[0].message.content == '{"verdict": "yes", "reason": "ok"}'
        sent = server.requests[0]
        assert sent["model"] == "judge-model" and sent["temperature"] == 0
        assert sent["response_format"] == {"type": "json_object"}
        assert sent["messages"] == MESSAGES


def test_wrong_key_stops_with_a_clear_error():
    with ChatServer() as server:
        with pytest.raises(OracleAuthError, match="refused the credentials"):
            ChatClient(server.config(api_key="wrong")).complete(MESSAGES)


def test_rate_limit_then_success_retries_with_backoff():
    sleeps: list[float] = []
    with ChatServer(script=[("status", 429, {"Retry-After": "0"}), ("status", 503)]) as server:
        client = ChatClient(server.config(backoff_s=0.01, max_backoff_s=1.0), sleep=sleeps.append)
        assert client.complete(MESSAGES).choices[0].message.content
        assert len(server.requests) == 3
    assert len(sleeps) == 2 and sleeps[1] > sleeps[0] > 0  # exponential


def test_retries_run_out_into_unavailable():
    with ChatServer(script=[("status", 500)] * 10) as server:
        with pytest.raises(OracleUnavailable, match="after 3 attempt"):
            ChatClient(server.config(max_retries=2)).complete(MESSAGES)
        assert len(server.requests) == 3


def test_timeout_is_retried():
    with ChatServer(script=[("sleep", 1.0)]) as server:
        client = ChatClient(server.config(timeout_s=0.3, max_retries=2))
        started = time.perf_counter()
        assert client.complete(MESSAGES).choices
        assert time.perf_counter() - started >= 0.3
        assert len(server.requests) == 2


def test_malformed_protocol_body_is_retried_then_pending():
    with ChatServer(script=[("body", b"<html>502 bad gateway</html>"), ("body", b'{"choices": []}')]) as server:
        assert ChatClient(server.config()).complete(MESSAGES).choices
        assert len(server.requests) == 3
    with ChatServer(script=[("body", b"not json")] * 5) as server:
        with pytest.raises(OracleUnavailable, match="malformed"):
            ChatClient(server.config(max_retries=1)).complete(MESSAGES)


def test_server_without_response_format_support_is_asked_again_without_it():
    with ChatServer(reject_response_format=True) as server:
        client = ChatClient(server.config())
        assert client.complete(MESSAGES).choices
        assert "response_format" in server.requests[0] and "response_format" not in server.requests[1]
        client.complete(MESSAGES)
        assert "response_format" not in server.requests[2]


def test_other_client_errors_are_configuration_errors():
    with ChatServer(script=[("status", 404)]) as server:
        with pytest.raises(OracleRequestError, match="HTTP 404"):
            ChatClient(server.config()).complete(MESSAGES)


def test_config_from_environment_never_shows_the_key():
    assert ChatConfig.from_env({}) is None
    cfg = ChatConfig.from_env({"LEMMATA_JUDGE_BASE_URL": "http://127.0.0.1:9/v1", "LEMMATA_JUDGE_MODEL": "m",
                               "LEMMATA_JUDGE_API_KEY": "sk-secret", "LEMMATA_JUDGE_TIMEOUT_S": "7"})
    assert cfg.timeout_s == 7 and cfg.resolved_judge_id == "chat:m" and "sk-secret" not in repr(cfg)
    assert cfg.endpoint == "http://127.0.0.1:9/v1/chat/completions"
    assert judge_from_env({"LEMMATA_JUDGE_BASE_URL": "http://x/v1", "LEMMATA_JUDGE_MODEL": "m",
                           "LEMMATA_JUDGE_ID": "my-judge"}).judge_id == "my-judge"
    assert "sk-secret" not in json.dumps(ChatJudge(cfg).describe())
    with pytest.raises(LemmataError, match="must be a number"):
        ChatConfig.from_env({"LEMMATA_JUDGE_BASE_URL": "http://x/v1", "LEMMATA_JUDGE_MODEL": "m",
                             "LEMMATA_JUDGE_MAX_RETRIES": "many"})


# -- the judge and its artifact ----------------------------------------------------------------------------

def _values(statement: str = "S") -> dict[str, str]:
    return {"source_id": "src-1", "source_title": "T", "source_text": "Theorem. S holds.", "statement": statement}


def _artifact(tmp_path, judge_id="chat:judge-model"):
    return JudgeArtifact(tmp_path / "judge", benchmark="re2math", judge_id=judge_id,
                         rubrics={n: load_rubric(n, 1) for n in ("ground", "suff", "anchor")})


def test_verdicts_are_cached_and_a_second_ask_makes_no_call(tmp_path):
    with ChatServer() as server:
        judge = ChatJudge(server.config())
        art = _artifact(tmp_path)
        fields = {"instance_id": "i1", "source_id": "src-1", "statement": "S"}
        first = art.obtain("ground", fields, _values(), judge)
        assert first["verdict"] == "yes" and first["parsed"] and len(server.requests) == 1
        again = _artifact(tmp_path).obtain("ground", fields, _values(), judge)
        assert again == first and len(server.requests) == 1
        assert art.lookup("ground", {**fields, "statement": "other"}) is None
    manifest = json.loads((tmp_path / "judge" / "ARTIFACT.json").read_text())
    assert manifest["judge"]["id"] == "chat:judge-model" and manifest["judge"]["model"] == "judge-model"
    assert manifest["rubrics"]["ground"] == {"id": "ground.v1", "sha256": load_rubric("ground", 1).sha256}
    entry = json.loads((tmp_path / "judge" / "verdicts.jsonl").read_text().splitlines()[0])
    assert entry["fields"]["rubric"] == "ground.v1" and entry["oracle"]["rubric_sha256"]
    assert API_KEY not in (tmp_path / "judge" / "verdicts.jsonl").read_text()


def test_malformed_judge_reply_is_asked_once_more_then_negative_with_reason(tmp_path):
    with ChatServer(script=[("content", "Yes, clearly."), ("content", "{'verdict': 'yes'}")]) as server:
        verdict = _artifact(tmp_path).obtain("ground", {"k": 1}, _values(), ChatJudge(server.config()))
        assert len(server.requests) == 2
    assert verdict["verdict"] == "uncertain" and not verdict["parsed"]
    assert "unparsable judge reply" in verdict["reason"] and "{'verdict': 'yes'}" in verdict["reason"]
    assert is_positive(verdict) is False


def test_unreachable_judge_leaves_the_question_pending(tmp_path):
    with ChatServer(script=[("status", 503)] * 10) as server:
        art = _artifact(tmp_path)
        assert art.obtain("ground", {"k": 1}, _values(), ChatJudge(server.config(max_retries=1))) is None
    assert art.obtain("ground", {"k": 1}, _values(), None) is None
    assert art.stats.pending == 2 and len(art.cache) == 0
    assert not (tmp_path / "judge").exists()


def test_artifact_refuses_another_judge_or_an_edited_rubric(tmp_path):
    with ChatServer() as server:
        _artifact(tmp_path).obtain("ground", {"k": 1}, _values(), ChatJudge(server.config()))
    with pytest.raises(LemmataError, match="not of the configured judge"):
        _artifact(tmp_path, judge_id="chat:other")
    path = tmp_path / "judge" / "ARTIFACT.json"
    manifest = json.loads(path.read_text())
    manifest["rubrics"]["ground"]["sha256"] = "0" * 64
    path.write_text(json.dumps(manifest))
    with pytest.raises(LemmataError, match="changed since"):
        _artifact(tmp_path)


def test_verdict_cache_reads_appends_incrementally_and_reports_bad_lines(tmp_path):
    from lemmata.core.errors import InputError
    from lemmata.oracles.cache import VerdictCache

    writer, reader = VerdictCache(tmp_path), VerdictCache(tmp_path)
    writer.put({"k": 1}, {"verdict": "yes", "reason": "r"}, oracle={"id": "j"})
    assert reader.get({"k": 1})["verdict"] == "yes" and len(reader) == 1
    writer.put({"k": 2}, {"verdict": "no", "reason": "r"}, oracle={"id": "j"})
    assert reader.get({"k": 2})["verdict"] == "no" and len(reader) == 2
    assert writer.put({"k": 2}, {"verdict": "yes", "reason": "later"}, oracle={"id": "j"})["verdict"] == "no"
    with open(writer.path, "a", encoding="utf-8") as fh:
        fh.write('{"key": "half a li')  # a line still being written is not read yet
    assert len(reader) == 2
    with open(writer.path, "a", encoding="utf-8") as fh:
        fh.write('ne"}\n')
    with pytest.raises(InputError) as err:
        reader.get({"k": 1})
    assert err.value.problems[0].line == 3


def test_parallel_first_verdicts_create_the_artifact_once(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    with ChatServer() as server:
        judge = ChatJudge(server.config())
        art = _artifact(tmp_path)
        with ThreadPoolExecutor(max_workers=8) as pool:
            verdicts = list(pool.map(lambda i: art.obtain("ground", {"k": i}, _values(), judge), range(32)))
    assert all(v["verdict"] == "yes" for v in verdicts) and len(art.cache) == 32
    assert sorted(p.name for p in (tmp_path / "judge").iterdir()) == ["ARTIFACT.json", "verdicts.head.json", "verdicts.jsonl"]


@pytest.mark.parametrize("field, edit", [
    ("artifact_id", lambda v: v[:-1] + ("x" if v[-1] != "x" else "y")),  # one byte inside the id
    ("artifact_id", lambda v: "re2math-judge:chat:another-model"),
    ("benchmark", lambda v: "taobench"),
    ("cache_file", lambda v: "other.jsonl"),
])
def test_every_bound_field_of_the_judge_description_is_checked_on_open(tmp_path, field, edit):
    """A judge cache cannot be presented as another judge's by editing its ARTIFACT.json."""
    with ChatServer() as server:
        _artifact(tmp_path).obtain("ground", {"k": 1}, _values(), ChatJudge(server.config()))
    path = tmp_path / "judge" / "ARTIFACT.json"
    manifest = json.loads(path.read_text())
    manifest[field] = edit(manifest[field])
    path.write_text(json.dumps(manifest))
    with pytest.raises(LemmataError, match=f"field '{field}'|is a judge artifact of"):
        _artifact(tmp_path)


def test_judge_waits_at_least_what_the_server_asks():
    sleeps: list[float] = []
    with ChatServer(script=[("status", 429, {"Retry-After": "5"})]) as server:
        client = ChatClient(server.config(backoff_s=0.01, max_backoff_s=60.0), sleep=sleeps.append)
        assert client.complete(MESSAGES).choices
    assert len(sleeps) == 1 and sleeps[0] >= 5


def test_obtain_all_reads_recorded_verdicts_and_asks_the_rest_in_order(tmp_path, monkeypatch):
    monkeypatch.setenv("LEMMATA_JUDGE_CONCURRENCY", "3")
    questions = [("ground", {"k": i}, _values("S" if i % 2 == 0 else "X")) for i in range(6)]
    with ChatServer() as server:
        judge = ChatJudge(server.config())
        first = _artifact(tmp_path).obtain(*questions[1], judge)
        art = _artifact(tmp_path)
        verdicts = art.obtain_all(questions, judge)
        assert [v["verdict"] for v in verdicts] == ["yes", "no"] * 3 and verdicts[1] == first
        assert (art.stats.cached, art.stats.asked, len(server.requests)) == (1, 5, 6)
    offline = _artifact(tmp_path)
    assert offline.obtain_all(questions + [("ground", {"k": 9}, _values())], None)[-1] is None
    assert (offline.stats.cached, offline.stats.pending) == (6, 1)


def test_a_grader_is_the_judge_reading_grades():
    from lemmata.oracles.grader import ChatGrader, grader_from

    with ChatServer(script=[("content", '{"score": 7, "reason": "complete"}'), ("content", "Seven.")]) as server:
        grader = grader_from(ChatJudge(server.config()))
        assert isinstance(grader, ChatGrader) and grader.describe()["scale"] == "0-7"
        rubric = load_rubric("mathnet_grade", 1)
        good, bad = grader.ask(rubric, MESSAGES), grader.ask(rubric, MESSAGES)
    assert (good.verdict.score, good.parsed) == (7, True)
    assert (bad.verdict.score, bad.parsed, bad.verdict.reason) == (0, False, "unparsable grader reply: 'Seven.'")
