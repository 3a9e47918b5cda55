"""Time and peak memory of rejecting 32 MiB hostile uploads through ``validate_upload`` (target: ≤ 5 s, ≤ 500 MB).

Each kind is built in memory just under the upload limit and validated in a
fresh subprocess, so the peak resident memory (``ru_maxrss``) is that of one
validation alone. Run from the repository root::

    python perf/hostile_input_speed.py            # every kind
    python perf/hostile_input_speed.py deep_nesting huge_ints
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

LIMIT = 32 * 1024 * 1024
HEADER = json.dumps({"format": "lemmata-submission/1", "benchmark": "re2math", "release": "re2math-1.0.0",
                     "split": "eval200/test", "track": "raw", "window": 5,
                     "model": {"name": "hostile"}, "retrieval_artifact": "bm25",
                     "flags": {"tuned_on_pool": False, "used_external_tools": False}}).encode() + b"\n"


def _fill(line: bytes, budget: int = LIMIT) -> bytes:
    room = budget - len(HEADER)
    return HEADER + line * (room // len(line))


def build(kind: str) -> bytes:
    """A hostile file of one kind, at most 32 MiB."""
    if kind == "empty_objects":  # 11 million `{}` lines
        return _fill(b"{}\n")
    if kind == "empty_objects_within_line_cap":  # as many `{}` lines as the line cap allows
        return HEADER + b"{}\n" * 199_990
    if kind == "one_huge_line":  # a single 32 MiB line of tiny objects
        body = b"[" + b"{}," * ((LIMIT - len(HEADER) - 10) // 3) + b"{}]"
        return HEADER + body
    if kind == "tiny_objects_under_line_cap":  # lines just under the per-line cap, each millions of dicts
        line = b'{"x": [' + b"{}," * (8 * 1024 * 1024 // 3 - 10) + b"{}]}\n"
        return _fill(line)
    if kind == "deep_nesting":  # 4 KiB-deep brackets on every line
        return _fill(b'{"a": ' + b"[" * 4096 + b"]" * 4096 + b"}\n")
    if kind == "unclosed_nesting":  # brackets that never close (the parser alone would recurse)
        return _fill(b'{"a": ' + b"[" * 60_000 + b"\n")
    if kind == "huge_ints":  # 5,000-digit integers (past Python's int-string limit)
        return _fill(b'{"instance_id": ' + b"9" * 5000 + b"}\n")
    if kind == "nan_scores":
        return _fill(b'{"instance_id": "x", "anchor": "' + b"a" * 120 + b'", "queries": [], '
                     b'"selected_source": NaN, "statement": null}\n')
    if kind == "surrogates":
        return _fill(b'{"instance_id": "x", "anchor": "' + b"a" * 120 + b'\\ud800", "queries": [], '
                     b'"selected_source": null, "statement": null}\n')
    raise SystemExit(f"unknown kind {kind!r}; known: {', '.join(KINDS)}")


KINDS = ("empty_objects", "empty_objects_within_line_cap", "one_huge_line", "tiny_objects_under_line_cap",
         "deep_nesting", "unclosed_nesting", "huge_ints", "nan_scores", "surrogates")

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, ".")
from perf.hostile_input_speed import build
from lemmata.core.errors import Error
from lemmata.scoring import validate_upload
data = build(sys.argv[1])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
try:
    validate_upload(data, "hostile.jsonl")
    outcome, problems = "ACCEPTED", []
except Error as exc:
    outcome, problems = type(exc).__name__, [str(p) for p in getattr(exc, "problems", [])]
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"bytes": len(data), "seconds": seconds, "peak_rss_mb": peak / 1024,
                  "rss_before_mb": before / 1024, "outcome": outcome, "listed": len(problems),
                  "first": problems[0][:110] if problems else "", "last": problems[-1][:110] if problems else ""}))
"""


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kinds", nargs="*", choices=[*KINDS, []], metavar="KIND",
                        help=f"hostile file kinds to try (default all: {', '.join(KINDS)})")
    kinds = parser.parse_args(argv).kinds or list(KINDS)
    print(f"{'kind':32} {'MiB':>6} {'seconds':>8} {'peak RSS MB':>11} {'listed':>6}  outcome / last problem")
    worst = 0.0
    for kind in kinds:
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", CHILD, kind], capture_output=True, text=True, check=False)
        if out.returncode != 0:
            print(f"{kind:32} FAILED\n{out.stderr[-2000:]}")
            return 1
        r = json.loads(out.stdout.strip().splitlines()[-1])
        worst = max(worst, r["seconds"])
        print(f"{kind:32} {r['bytes'] / 2**20:6.1f} {r['seconds']:8.2f} {r['peak_rss_mb']:11.0f} {r['listed']:6}  "
              f"{r['outcome']}: {r['last']}")
        del t
    print(f"slowest: {worst:.2f} s (target ≤ 5 s); peak RSS includes the interpreter, the 32 MiB file and the "
          "imported libraries (target ≤ 500 MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
