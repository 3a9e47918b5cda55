"""How long checking a TaoBench runner request log takes, honest and hostile (time and peak memory per case).

Cases, each in a fresh process so peak memory is its own:

- ``honest``: a full run of taobench-150-1.1.0, both formulations, n = 8 (2,400 answers of ~2 KB), validated with
  its submission through :func:`lemmata.scoring.validate_upload` (read, recompute prompts and keys), then every
  attempt re-extracted as scoring does (reported apart: scoring runs in the worker);
- ``tiny-entries``: a log at the 64 MiB cap made of the smallest valid-looking entries (the line cap stops it);
- ``many-answers``: 99,000 well-formed answers (under the line cap), none for a submitted exercise;
- ``one-line``: one 16 MiB line;
- ``duplicate-keys``: the honest log with a repeated key on every line.

Usage: ``python perf/runner_log_speed.py [--releases DIR]`` (builds the release there when missing).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_S, TARGET_MB = 5.0, 500


def honest(releases: str) -> tuple[bytes, bytes]:
    from lemmata.benchmarks.taobench.release import open_taobench
    from lemmata.benchmarks.taobench.sampler import attempt_from, jobs_for, log_header, split_item, tasks
    from lemmata.formats.runner_log import log_bytes
    from lemmata.oracles.chat_runner import Completion, Sampling

    release = open_taobench("taobench-150-1.1.0", releases)
    sampling, n, model = Sampling(temperature=1.0, seed=0), 8, "perf-prover"
    specs = tasks(release, ("tao", "mathlib"))
    jobs = jobs_for(release, specs, n, sampling)
    entries, attempts = [], {}
    for job in jobs:
        item = job.id.rpartition("#")[0]
        ex = release.exercise(*split_item(item))
        text = ("Reasoning. " * 150 + f"\n```lean\ntheorem x : True := by\n  simp\n```\n" if job.sample % 2 == 0
                else "I think this follows by induction. " * 50)
        c = Completion(text=text, endpoint_model=model, finish_reason="stop")
        entries.append(job.logged(model, c, item))
        attempts.setdefault(item, []).append(attempt_from(c, ex)[0])
    log = log_bytes(log_header(release.release_id, model, sampling, n), entries)
    from lemmata import __version__

    identity = {"name": model, "kind": "llm", "endpoint_model": model, "prompt_version": "taobench-prove.v1"}
    header = {"format": "lemmata-submission/1", "benchmark": "taobench", "track": "proofs",
              "release": release.release_id, "formulations": ["tao", "mathlib"], "model": identity, "n": n,
              "sampling": {"temperature": 1.0, "top_p": None, "max_tokens": None, "seed": 0, "prompt": "p", "other": {}},
              "flags": {"used_lean_feedback": False, "trained_on_taobench": False, "used_external_tools": False,
                        "filtered_attempts": False},
              "runner": {"name": "lemmata", "version": __version__, "prompt_version": "taobench-prove.v1",
                         "log_sha256": hashlib.sha256(log).hexdigest()}, "notes": ""}
    lines = [header] + [{"fqn": split_item(i)[0], "formulation": split_item(i)[1], "attempts": a}
                        for i, a in attempts.items()]
    return "".join(json.dumps(x) + "\n" for x in lines).encode(), log


def case(name: str, releases: str) -> None:
    from lemmata.core.errors import InputError
    from lemmata.scoring import validate_upload

    sub, log = honest(releases)
    if name == "tiny-entries":
        line = b'{"key":"0","item":"a","sample":0}\n'
        log = log.split(b"\n", 1)[0] + b"\n" + line * ((64 * 1024 * 1024 - 2000) // len(line))
    elif name == "many-answers":  # the most well-formed entries the caps allow, each for an item not submitted
        first = json.loads(log.split(b"\n")[1])
        buf = bytearray(log.split(b"\n", 1)[0] + b"\n")
        i = 0
        while True:
            line = json.dumps(dict(first, item=f"X.y{i}@tao")).encode() + b"\n"
            if len(buf) + len(line) > 64 * 1024 * 1024 or i >= 99_000:
                break
            buf += line
            i += 1
        log = bytes(buf)
        del buf
    elif name == "one-line":
        log = log.split(b"\n", 1)[0] + b"\n" + b'{"key": "' + b"a" * (16 * 1024 * 1024 - 20) + b'"}\n'
    elif name == "duplicate-keys":
        log = b"\n".join(x[:-1] + b', "sample": 0}' if x.startswith(b'{"answer"') else x
                         for x in log.split(b"\n"))
    if name != "honest":
        header = json.loads(sub.split(b"\n", 1)[0])
        header["runner"]["log_sha256"] = hashlib.sha256(log).hexdigest()
        sub = json.dumps(header).encode() + b"\n" + sub.split(b"\n", 1)[1]
    import gc

    gc.collect()
    before = int(Path("/proc/self/statm").read_text().split()[1]) * resource.getpagesize() / 1_048_576
    start = time.perf_counter()
    try:
        v = validate_upload(sub, "sub.jsonl", runner_log=log, runner_log_name="run.runner-log.jsonl")
        outcome = f"consistent ({v.runner_log.entries} answers)"
    except InputError as exc:
        outcome = f"refused: {exc.problems[0]}"[:140]
    took = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    ok = took <= TARGET_S and peak <= TARGET_MB
    print(f"{name:15s} {len(log) / 1_048_576:6.1f} MiB  {took:5.2f} s  peak {peak:5.0f} MB (inputs held: "
          f"{before:4.0f} MB)  "
          f"{'ok' if ok else 'OVER'}  {outcome}", flush=True)
    if name == "honest":  # what scoring adds: every attempt re-extracted from its answer (lexes Lean, as integrity does)
        from lemmata.benchmarks.taobench.release import open_taobench
        from lemmata.benchmarks.taobench.runner_log import check_attempts

        start = time.perf_counter()
        check_attempts(open_taobench("taobench-150-1.1.0", releases), v.records, v.lines, v.runner_log, "sub.jsonl")
        print(f"{'  at scoring':15s} {len(v.records) * 8:,} attempts re-extracted and compared in "
              f"{time.perf_counter() - start:.2f} s (scoring time, no target)", flush=True)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--releases", default=None)
    p.add_argument("--case", default=None)
    args = p.parse_args()
    releases = args.releases or tempfile.mkdtemp(prefix="lm-perf-releases-")
    if args.case:
        case(args.case, releases)
        return 0
    from lemmata.benchmarks.taobench.release import open_taobench

    open_taobench("taobench-150-1.1.0", releases)
    for name in ("honest", "tiny-entries", "many-answers", "one-line", "duplicate-keys"):
        subprocess.run([sys.executable, __file__, "--case", name, "--releases", releases], check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
