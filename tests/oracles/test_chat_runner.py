"""The generic chat runner against an in-process OpenAI-compatible server: faults become abstentions or retries."""

from __future__ import annotations

import json

import pytest

from lemmata.core.errors import LemmataError
from lemmata.oracles.chat_double import ChatDouble, Reply
from lemmata.oracles.chat_runner import (
    ChatJob,
    ChatRunner,
    Endpoint,
    RequestCache,
    RunInterrupted,
    Sampling,
)
from lemmata.oracles.http import OracleAuthError


def _endpoint(server: ChatDouble, **kw) -> Endpoint:
    kw.setdefault("backoff_s", 0)
    kw.setdefault("max_retries", 2)
    return Endpoint(base_url=server.base_url, model="m", api_key="k", **kw)


def _jobs(n: int, sampling: Sampling = Sampling()) -> list[ChatJob]:
    return [ChatJob(id=f"j{i}", messages=({"role": "user", "content": f"q{i}"},), sampling=sampling) for i in range(n)]


def echo(body: dict) -> str:
    return "answer to " + body["messages"][-1]["content"]


def test_answers_usage_identity_and_sampling_sent():
    with ChatDouble(echo, model_id="m-2026-01", api_key="k") as server:
        with ChatRunner(_endpoint(server)) as runner:
            out = runner.run(_jobs(3, Sampling(temperature=0.7, top_p=0.9, max_tokens=64, seed=5)), quiet=True)
    assert [c.text for c in out.values()] == ["answer to q0", "answer to q1", "answer to q2"]
    assert all(c.ok and c.endpoint_model == "m-2026-01" for c in out.values())
    body = server.requests[0]
    assert (body["model"], body["temperature"], body["top_p"], body["max_tokens"], body["seed"]) == ("m", 0.7, 0.9, 64, 5)
    stats = runner.stats.as_dict()
    assert stats["requests_sent"] == 3 and stats["completion_tokens"] == 9 and stats["endpoint_models"] == {"m-2026-01": 3}


def test_unusable_answers_are_recorded_abstentions():
    script = [Reply(content=None, refusal="I can't help with that."), Reply(content="cut", finish_reason="length"),
              Reply(no_choices=True), Reply(content="   "), Reply(content="x", finish_reason="content_filter")]
    with ChatDouble(echo, script=script) as server:
        with ChatRunner(_endpoint(server, concurrency=1)) as runner:
            out = runner.run(_jobs(5), quiet=True)
    reasons = [c.abstention for c in out.values()]
    assert reasons[0] == "refused: I can't help with that."
    assert reasons[1].startswith("truncated") and out["j1"].text == "cut"
    assert reasons[2] == "no choices in the reply" and reasons[3] == "empty completion"
    assert reasons[4].startswith("refused: the endpoint's content filter")
    assert runner.stats.abstentions == {"refused": 2, "truncated": 1, "no choices in the reply": 1, "empty completion": 1}


def test_rate_limits_server_errors_and_malformed_bodies_are_retried_honouring_retry_after():
    sleeps: list[float] = []
    script = [Reply(status=429, headers={"Retry-After": "7"}), Reply(status=503), Reply(raw=b'{"choices": "oops'),
              Reply(raw=b"<html>gateway</html>")]
    with ChatDouble(echo, script=script) as server:
        with ChatRunner(_endpoint(server, concurrency=1, max_retries=5, backoff_s=0.01, max_backoff_s=30),
                        sleep=sleeps.append) as runner:
            out = runner.run(_jobs(1), quiet=True)
    assert out["j0"].text == "answer to q0" and len(server.requests) == 5
    assert sleeps[0] >= 7 and len(sleeps) == 4 and runner.stats.retries == 4


def test_retries_run_out_into_an_uncached_abstention_and_timeouts(tmp_path):
    cache = RequestCache(tmp_path / "c.jsonl")
    with ChatDouble(echo, script=[Reply(delay_s=0.5), Reply(delay_s=0.5)]) as server:
        with ChatRunner(_endpoint(server, timeout_s=0.1, max_retries=1, concurrency=1), cache) as runner:
            out = runner.run(_jobs(1), quiet=True)
        assert out["j0"].abstention.startswith("unavailable: no answer after 2 attempt(s): no answer within 0.1s")
        assert len(RequestCache(tmp_path / "c.jsonl")) == 0  # asked again next time
        with ChatRunner(_endpoint(server), RequestCache(tmp_path / "c.jsonl")) as runner:
            assert runner.run(_jobs(1), quiet=True)["j0"].text == "answer to q0"


def test_rejected_request_is_an_abstention_and_bad_credentials_stop_the_run():
    with ChatDouble(echo, api_key="k", script=[Reply(status=400, raw=b'{"error": {"message": "context too long"}}')]) as s:
        with ChatRunner(_endpoint(s, concurrency=1)) as runner:
            out = runner.run(_jobs(2), quiet=True)
        assert out["j0"].abstention.startswith("rejected: HTTP 400") and out["j1"].ok
        with ChatRunner(Endpoint(base_url=s.base_url, model="m", api_key="wrong")) as runner:
            with pytest.raises(OracleAuthError):
                runner.run(_jobs(1), quiet=True)


def test_cache_key_covers_model_prompt_sampling_seed_and_sample():
    base = ChatJob(id="a", messages=({"role": "user", "content": "p"},), sampling=Sampling(temperature=1, seed=0))
    keys = {base.cache_key("m"), base.cache_key("m2"),
            ChatJob(id="a", messages=({"role": "user", "content": "p2"},), sampling=base.sampling).cache_key("m"),
            ChatJob(id="a", messages=base.messages, sampling=Sampling(temperature=1, seed=1)).cache_key("m"),
            ChatJob(id="a", messages=base.messages, sampling=Sampling(temperature=0.5, seed=0)).cache_key("m"),
            ChatJob(id="a", messages=base.messages, sampling=base.sampling, sample=1).cache_key("m")}
    assert len(keys) == 6 and ChatJob(id="other", messages=base.messages, sampling=base.sampling).cache_key("m") \
        == base.cache_key("m")


def _wait_for_requests_in_flight(limit_s: float = 30.0) -> None:
    import threading
    import time

    deadline = time.monotonic() + limit_s
    while any(t.name.startswith("lemmata-chat") for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.05)


def test_rerun_costs_nothing_and_interrupted_run_resumes(tmp_path):
    path = tmp_path / "cache.jsonl"
    with ChatDouble(echo) as server:
        seen = []

        def stop_after_three(job, completion):
            seen.append(job.id)
            if len(seen) == 3:
                raise KeyboardInterrupt

        with ChatRunner(_endpoint(server, concurrency=2), RequestCache(path)) as runner:
            with pytest.raises(RunInterrupted, match="run the same command again to resume"):
                runner.run(_jobs(10), quiet=True, on_answer=stop_after_three)
        _wait_for_requests_in_flight()  # an answer in flight when the run stopped is still cached when it lands
        with open(path, "a", encoding="utf-8") as fh:
            fh.write('{"key": "torn')  # a line cut short when the process died
        done_before = len(RequestCache(path))
        assert done_before >= 3
        with ChatRunner(_endpoint(server), RequestCache(path)) as runner:
            out = runner.run(_jobs(10), quiet=True)
        assert [c.text for c in out.values()] == [f"answer to q{i}" for i in range(10)]
        assert runner.stats.from_cache == done_before and runner.stats.sent == 10 - done_before
        with ChatRunner(_endpoint(server), RequestCache(path)) as runner:
            runner.run(_jobs(10), quiet=True)
        assert runner.stats.sent == 0 and runner.stats.from_cache == 10


def test_endpoint_from_env_prefers_lemmata_settings_then_openai_variables():
    env = {"OPENAI_BASE_URL": "http://o.example/v1", "OPENAI_API_KEY": "ok"}
    assert Endpoint.from_env("m", env).base_url == "http://o.example/v1"
    env |= {"LEMMATA_LLM_BASE_URL": "http://l.example/v1", "LEMMATA_LLM_API_KEY": "lk", "LEMMATA_LLM_CONCURRENCY": "3"}
    ep = Endpoint.from_env("m", env)
    assert (ep.base_url, ep.api_key, ep.concurrency) == ("http://l.example/v1", "lk", 3)
    assert (ep.backoff_s, Endpoint.from_env("m", env | {"LEMMATA_LLM_BACKOFF_S": "0.25"}).backoff_s) == (1.0, 0.25)
    for bad in ("-1", "nan", "soon"):
        with pytest.raises(LemmataError, match="backoff_s|LEMMATA_LLM_BACKOFF_S"):
            Endpoint.from_env("m", env | {"LEMMATA_LLM_BACKOFF_S": bad})
    assert Endpoint.from_env("m", {}).base_url == "https://api.openai.com/v1"
    assert json.loads(ep.model_dump_json()).get("api_key") == "lk"


def test_follow_up_jobs_run_in_the_same_batch_and_resume_from_the_cache(tmp_path):
    path = tmp_path / "cache.jsonl"

    def chain(job, completion):
        step = int(job.id.split("/")[1])
        if step < 2:
            return [ChatJob(id=f"{job.id.split('/')[0]}/{step + 1}",
                            messages=({"role": "user", "content": completion.text},))]
        return None

    first = [ChatJob(id=f"i{i}/0", messages=({"role": "user", "content": f"q{i}"},)) for i in range(3)]
    with ChatDouble(echo) as server:
        with ChatRunner(_endpoint(server), RequestCache(path)) as runner:
            out = runner.run(first, quiet=True, on_answer=chain)
        assert out["i1/2"].text == "answer to answer to answer to q1" and len(out) == 9
        with ChatRunner(_endpoint(server), RequestCache(path)) as runner:
            again = runner.run(first, quiet=True, on_answer=chain)
        assert again == out and runner.stats.sent == 0 and runner.stats.from_cache == 9
        with pytest.raises(ValueError, match="used twice"):
            with ChatRunner(_endpoint(server)) as runner:
                runner.run(first + first[:1], quiet=True)


def test_an_answer_handed_back_with_a_future_comes_again_once_it_is_done_while_the_run_goes_on(tmp_path):
    """``on_answer`` returning a Future (its next step needs something still on its way) is called again with the
    same answer once that future is done; meanwhile the other requests are sent and answered, and a run whose
    answers all come from the cache waits for the future rather than ending with the step undone. A future that
    fails raises its error from the run."""
    import threading
    from concurrent.futures import Future

    path = tmp_path / "cache.jsonl"
    jobs = [ChatJob(id=f"i{i}/0", messages=({"role": "user", "content": f"q{i}"},)) for i in range(8)]

    def run(gate: Future, opens_after: int | None) -> tuple[dict, list[str], int]:
        calls: list[str] = []

        def chain(job, completion):
            calls.append(job.id)
            if not gate.done():
                if opens_after is not None and sum(c.endswith("/0") for c in calls) == opens_after:
                    threading.Timer(0.05, gate.set_result, (None,)).start()
                return gate
            gate.result()
            step = int(job.id.split("/")[1])
            return [ChatJob(id=job.id.replace("/0", "/1"), messages=({"role": "user", "content": completion.text},))
                    ] if step == 0 else None

        with ChatDouble(echo) as server:
            with ChatRunner(_endpoint(server), RequestCache(path)) as runner:
                out = runner.run(jobs, quiet=True, on_answer=chain)
        return out, calls, runner.stats.sent

    out, calls, sent = run(Future(), opens_after=1)
    assert sent == 16 and len(out) == 16 and out["i3/1"].text == "answer to answer to q3"
    first = calls[0]  # the answer that started the wait, handed back once the future is done
    again_at = calls.index(first, 1)
    assert calls.count(first) == 2 and len(set(calls[:again_at])) > 1  # others came in before it was done
    # every answer from the cache: the run waits for the future instead of ending with the steps undone
    late = Future()
    threading.Timer(0.1, late.set_result, (None,)).start()
    again, calls, sent = run(late, opens_after=None)
    assert again == out and sent == 0 and sorted(set(calls)) == sorted(out)
    failing = Future()
    threading.Timer(0.05, failing.set_exception, (LemmataError("the world failed to open"),)).start()
    with pytest.raises(LemmataError, match="failed to open"):
        run(failing, opens_after=None)


def test_pool_keeps_at_most_its_workers_busy_and_takes_calls_added_while_reading():
    import threading
    import time

    from lemmata.oracles.pool import Pool

    busy, peak, lock = [0], [0], threading.Lock()

    def call(x: int) -> int:
        with lock:
            busy[0] += 1
            peak[0] = max(peak[0], busy[0])
        time.sleep(0.01)
        with lock:
            busy[0] -= 1
        return x

    seen = []
    with Pool(call, workers=3) as pool:
        for x in range(10):
            pool.add(x)
        for batch in pool.batches():
            for x, result in batch:
                seen.append(result)
                if x < 5:
                    pool.add(x + 100)
    assert sorted(seen) == [*range(10), *range(100, 105)] and peak[0] <= 3


def test_oversize_replies_are_recorded_abstentions_that_fit_a_submission_line(tmp_path):
    """A reply body past MAX_REPLY_BYTES is read no further; completion text past MAX_REPLY_TEXT_BYTES is dropped.
    Both are recorded (and cached) as ``oversize`` abstentions, asked once, never retried."""
    from lemmata.formats.envelope import MAX_LINE_BYTES
    from lemmata.oracles.chat_runner import MAX_REPLY_BYTES, MAX_REPLY_TEXT_BYTES

    # the bound holds for the worst text a run keeps: every byte escaped by JSON (\u0001) still fits one line
    assert len(json.dumps({"text": "\x01" * MAX_REPLY_TEXT_BYTES})) < MAX_LINE_BYTES - 64 * 1024
    huge_body = b'{"choices": [{"message": {"content": "' + b"x" * (MAX_REPLY_BYTES + 1) + b'"}}]}'
    script = [Reply(content="y" * (MAX_REPLY_TEXT_BYTES + 1)), Reply(raw=huge_body), Reply(content="fine")]
    cache = RequestCache(tmp_path / "c.jsonl")
    with ChatDouble(echo, script=script) as server:
        with ChatRunner(_endpoint(server, concurrency=1), cache) as runner:
            out = runner.run(_jobs(3), quiet=True)
    assert len(server.requests) == 3 and runner.stats.retries == 0
    assert out["j0"].text is None and out["j0"].abstention.startswith(
        f"oversize: the completion is {MAX_REPLY_TEXT_BYTES + 1:,} bytes of text")
    assert out["j1"].text is None and out["j1"].abstention == \
        f"oversize: the reply is larger than {MAX_REPLY_BYTES:,} bytes (read no further)"
    assert out["j2"].text == "fine" and runner.stats.abstentions == {"oversize": 2}
    assert (tmp_path / "c.jsonl").stat().st_size < 10_000  # recorded without the text
    assert RequestCache(tmp_path / "c.jsonl").get(_jobs(2)[1].cache_key("m")).abstention.startswith("oversize")


def _always(reply: Reply):
    return lambda body: reply


def test_the_breaker_stops_a_run_against_an_endpoint_that_always_fails_and_the_run_resumes(tmp_path):
    """Three answers, then nothing but HTTP 500: after ``breaker`` failed attempts in a row the run stops with
    EndpointDown (not each job's whole retry schedule); the answers received are cached and a rerun resumes.

    The endpoint itself goes down after its third answer: a switch thrown from ``on_answer`` would race the pool,
    which (on a loaded machine) may already have sent the next request before the run's thread reads the answer."""
    from lemmata.oracles.chat_runner import EndpointDown

    answers_left = {"n": 3}

    def flaky(body: dict):
        if answers_left["n"] <= 0:
            return Reply(status=500)
        answers_left["n"] -= 1
        return echo(body)

    path = tmp_path / "cache.jsonl"
    sleeps: list[float] = []
    with ChatDouble(flaky) as server:
        with ChatRunner(_endpoint(server, concurrency=1, max_retries=6, breaker=4), RequestCache(path),
                        sleep=sleeps.append) as runner:
            with pytest.raises(EndpointDown) as err:
                runner.run(_jobs(20), quiet=True)
        message = str(err.value)
        assert "failed 4 attempts in a row" in message and "HTTP 500" in message
        assert "after 3 of 20 answers" in message and "run the same command again" in message
        assert len(server.requests) == 3 + 4 and len(sleeps) == 3  # not 17 jobs × 7 attempts
        answers_left["n"] = 10**6  # up again
        with ChatRunner(_endpoint(server, concurrency=1), RequestCache(path)) as runner:
            out = runner.run(_jobs(20), quiet=True)
        assert runner.stats.from_cache == 3 and runner.stats.sent == 17 and all(c.ok for c in out.values())


def test_the_breaker_ends_a_silent_endpoint_s_run_within_one_timeout_round():
    """Every request times out: without the breaker each job would spend its retry schedule (0.2 + 0.4 + … + 3.2 s
    of backoff); with it, the first round of timeouts stops the run and the waiting threads wake at once."""
    import time

    from lemmata.oracles.chat_runner import EndpointDown

    with ChatDouble(_always(Reply(content="late", delay_s=0.5))) as server:
        started = time.monotonic()
        with ChatRunner(_endpoint(server, concurrency=4, timeout_s=0.05, max_retries=5, backoff_s=0.2,
                                  breaker=4)) as runner:
            with pytest.raises(EndpointDown, match="no answer within 0.05s"):
                runner.run(_jobs(8), quiet=True)
        assert time.monotonic() - started < 3.0


def test_rate_limits_neither_trip_nor_reset_the_breaker():
    sleeps: list[float] = []
    script = [Reply(status=429)] * 6 + [Reply(status=502)] * 2
    with ChatDouble(echo, script=script) as server:
        with ChatRunner(_endpoint(server, concurrency=1, max_retries=10, breaker=3), sleep=sleeps.append) as runner:
            out = runner.run(_jobs(1), quiet=True)
    assert out["j0"].text == "answer to q0" and len(server.requests) == 9


def test_malformed_answers_are_answers_to_the_breaker():
    """A model whose replies to some prompts never parse is not a dead endpoint: those jobs run out of retries
    into ``unavailable`` abstentions, and the run goes on."""
    def some_never_parse(body: dict):
        return Reply(raw=b'{"choices": [') if body["messages"][-1]["content"] in ("q0", "q1", "q2") else echo(body)

    with ChatDouble(some_never_parse) as server:
        with ChatRunner(_endpoint(server, concurrency=1, max_retries=3, breaker=2), sleep=lambda s: None) as runner:
            out = runner.run(_jobs(5), quiet=True)
    assert [c.abstention.split(":")[0] if c.abstention else c.text for c in out.values()] == \
        ["unavailable", "unavailable", "unavailable", "answer to q3", "answer to q4"]
