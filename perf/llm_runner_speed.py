"""Time the LLM runner's own overhead against a local chat-completions server that answers in 50 ms.

    python perf/llm_runner_speed.py [--latency 0.05] [--only re2math|taobench] [--releases DIR]

**TaoBench** — ``lemmata run taobench`` in process: 150 exercises × 2 formulations
× N = 8 samples (2,400 requests) at concurrency 16: prompts rendered, requests
sent, answers cached, proofs extracted and spliced into the official files, the
submission written (the integrity check runs when the submission is scored:
``perf/taobench_scoring_speed.py``). Target: ≤ 30 s (the latency alone is
2,400 × 50 ms / 16 = 7.5 s).

**Re²Math** — ``lemmata run re2math`` in process: 200 instances of eval200/test on
the current offline world at concurrency 16: the world opened, E3, one search each, E4 choose, one
source opened, E4 extract, the submission written. Target: ≤ 10 s (the latency
alone is 200 × 3 × 50 ms / 16 ≈ 1.9 s).

Each cold run is also printed against its floor, the requests it sent × the latency ÷ the concurrency: what
the run would take if nothing but the endpoint's answers cost time. For Re²Math the runner alone follows: as
many requests as the cold run sent, independent of each other and with no world to search or open, so what the
protocol's own steps add (opening the world, searches, openings, prompts: the warm run's work) reads as the
difference.

Each workload runs twice: cold (empty request cache) and warm (everything cached:
the cost of a rerun); the runner's process CPU time is printed beside the wall
time, since on a shared machine the wall time also measures the neighbours. The releases (and the Re²Math world) are built into a
temporary folder first unless --releases / --artifacts name built ones; that
build is not timed. The server is the chat-completions double (:mod:`lemmata.oracles.chat_double`)
with a fixed sleep per request, in a child process as a real endpoint would be.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TARGETS = {"taobench": 30.0, "re2math": 10.0}


def prover(body: dict) -> str:
    prompt = body["messages"][-1]["content"]
    name = re.search(r"Complete the proof of `([^`]+)`", prompt).group(1).split(".")[-1]
    if body.get("seed", 0) % 4 == 3:
        return "I could not find a proof."
    return f"```lean\ntheorem {name} : True := by\n  simp [seed_{body.get('seed', 0)}]\n```\n"


def agent(body: dict) -> str:
    text = body["messages"][-1]["content"]
    if "## E3" in text:
        target = text.split("### TARGET THEOREM\n", 1)[1].split("\n\n###", 1)[0]
        return json.dumps({"query": " ".join(target.split()[:12]), "anchor": "apply the cited result"})
    if "### SEARCH RESULTS" in text:
        m = re.search(r"^\[([^\]]+)\]", text.split("### SEARCH RESULTS", 1)[1], re.M)
        return json.dumps({"source": m.group(1) if m else None})
    excerpt = text.split("### SOURCE TEXT", 1)[1].split("\n", 2)[-1]
    return json.dumps({"statement": " ".join(excerpt.split())[:300]})


class ServerProcess:
    """The chat double in a child process, as a real endpoint is: its work does not share the runner's GIL."""

    def __init__(self, answer, latency: float) -> None:
        import multiprocessing as mp

        ctx = mp.get_context("fork")
        self._queue = ctx.Queue()
        self._stop = ctx.Event()
        self._proc = ctx.Process(target=_serve, args=(answer, latency, self._queue, self._stop), daemon=True)

    def __enter__(self) -> "ServerProcess":
        self._proc.start()
        self.base_url = self._queue.get(timeout=30)
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._proc.join(timeout=10)


def _serve(answer, latency, queue, stop) -> None:
    from lemmata.oracles.chat_double import ChatDouble


    with ChatDouble(answer, latency_s=latency) as server:
        queue.put(server.base_url)
        stop.wait()


def time_taobench(releases: Path, cache_dir: Path, latency: float) -> dict[str, float]:
    from lemmata.benchmarks.taobench.release import open_taobench
    from lemmata.benchmarks.taobench.sampler import sample_submission, write_lines
    from lemmata.oracles.chat_runner import ChatRunner, Endpoint, RequestCache, Sampling

    release = open_taobench("taobench-150-1.1.0", releases)
    out = {}
    with ServerProcess(prover, latency) as server:
        for label in ("cold", "warm"):
            endpoint = Endpoint(base_url=server.base_url, model="perf-prover", concurrency=16)
            t, cpu = time.perf_counter(), time.process_time()
            with ChatRunner(endpoint, RequestCache(cache_dir / "taobench.jsonl")) as runner:
                lines, meta, _ = sample_submission(release, runner, n=8, sampling=Sampling(temperature=1.0, seed=0),
                                                   quiet=True)
                write_lines(cache_dir / "taobench.jsonl.sub", lines)
            out[label] = time.perf_counter() - t
            print(f"taobench {label}: {meta['samples']} samples of {meta['pairs']} pairs, "
                  f"{runner.stats.sent} sent, {out[label]:.2f} s wall, {time.process_time() - cpu:.2f} s CPU"
                  f"{floor(runner.stats.sent, latency, 16, out[label])}", flush=True)
    return out


def floor(sent: int, latency: float, concurrency: int, wall: float) -> str:
    """The run's latency floor (``sent`` × ``latency`` ÷ ``concurrency``) and its wall time as a multiple of it."""
    if not sent:
        return ""
    least = sent * latency / concurrency
    return f"; floor {least:.2f} s, {wall / least:.2f}× floor"


def time_re2math(artifacts: Path, cache_dir: Path, latency: float) -> dict[str, float]:
    from lemmata.benchmarks.re2math.agent.llm_agent import run_offline_agent
    from lemmata.oracles.chat_runner import ChatJob, ChatRunner, Endpoint, RequestCache

    out, sent = {}, 0
    with ServerProcess(agent, latency) as server:
        for label in ("cold", "warm"):
            endpoint = Endpoint(base_url=server.base_url, model="perf-agent", concurrency=16)
            t, cpu = time.perf_counter(), time.process_time()
            with ChatRunner(endpoint, RequestCache(cache_dir / "re2math.jsonl")) as runner:
                path, meta = run_offline_agent(runner, cache_dir / "re2math-out", artifacts_root=artifacts,
                                               quiet=True)
            out[label] = time.perf_counter() - t
            print(f"re2math {label}: {meta['instances']} instances, {runner.stats.sent} sent, {out[label]:.2f} s wall, "
                  f"{time.process_time() - cpu:.2f} s CPU{floor(runner.stats.sent, latency, 16, out[label])}",
                  flush=True)
            if label == "cold":
                sent = runner.stats.sent
        # the runner alone: as many requests, independent of each other, with no world to search or open
        jobs = [ChatJob(id=f"alone/{i}", messages=({"role": "user", "content": f"## E3\n### TARGET THEOREM\n"
                                                   f"request {i} of the runner alone\n\n### END"},))
                for i in range(sent)]
        endpoint = Endpoint(base_url=server.base_url, model="perf-agent", concurrency=16)
        t, cpu = time.perf_counter(), time.process_time()
        with ChatRunner(endpoint, RequestCache(cache_dir / "re2math-alone.jsonl")) as runner:
            runner.run(jobs, quiet=True)
        wall = time.perf_counter() - t
        print(f"re2math runner alone: {runner.stats.sent} sent, {wall:.2f} s wall, {time.process_time() - cpu:.2f} s "
              f"CPU{floor(runner.stats.sent, latency, 16, wall)}", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.05, help="seconds the server waits per request")
    parser.add_argument("--only", choices=("re2math", "taobench"))
    parser.add_argument("--releases", metavar="DIR", help="folder of built releases")
    parser.add_argument("--artifacts", metavar="DIR", help="folder holding the built Re²Math offline world")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lemmata-llm-speed-") as tmp:
        tmp_path = Path(tmp)
        os.environ.setdefault("LEMMATA_HOME", str(tmp_path / "home"))
        releases = Path(args.releases) if args.releases else tmp_path / "releases"
        os.environ.setdefault("LEMMATA_RELEASES", str(releases))
        failed = []
        if args.only in (None, "taobench"):
            got = time_taobench(releases, tmp_path, args.latency)
            ok = got["cold"] <= TARGETS["taobench"]
            failed += [] if ok else ["taobench"]
            print(f"taobench: {got['cold']:.2f} s cold (target ≤ {TARGETS['taobench']:.0f} s), "
                  f"{got['warm']:.2f} s warm — {'ok' if ok else 'MISSED'}")
        if args.only in (None, "re2math"):
            artifacts = Path(args.artifacts) if args.artifacts else _world(releases, tmp_path / "artifacts")
            got = time_re2math(artifacts, tmp_path, args.latency)
            ok = got["cold"] <= TARGETS["re2math"]
            failed += [] if ok else ["re2math"]
            print(f"re2math: {got['cold']:.2f} s cold (target ≤ {TARGETS['re2math']:.0f} s), "
                  f"{got['warm']:.2f} s warm — {'ok' if ok else 'MISSED'}")
        sys.exit(1 if failed else 0)


def _world(releases: Path, artifacts: Path) -> Path:
    from lemmata.benchmarks.re2math.builder import Re2MathBuilder
    from lemmata.benchmarks.re2math.scholar.worlds import CURRENT, build_world_version

    os.environ["LEMMATA_RELEASES"] = str(releases)
    rel = Re2MathBuilder().build(releases, quiet=True)
    # the world `lemmata run re2math` searches, on the distractor release its version is built on (built here)
    build_world_version(CURRENT, rel, None, artifacts)
    return artifacts


if __name__ == "__main__":
    main()
