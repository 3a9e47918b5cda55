"""Time and peak memory of hostile inputs: 32 MiB uploads, and final answers built to hang the answer check.

Uploads are rejected through ``validate_upload`` (target: ≤ 5 s, ≤ 500 MB); hostile final answers (answer
bombs) go through MathNet-Solve's bounded answer check (target: ≤ 2 s per answer, ≤ 60 s for 5,500 hostile
answers, ≤ 500 MB).

Each kind is built in memory just under the upload limit and validated in a
fresh subprocess, so the peak resident memory (``ru_maxrss``) is that of one
validation alone. The kind ``answer_bombs`` runs in a fresh subprocess too,
from a non-main thread as the space's scoring worker does: each bomb family
alone (seconds per answer), then one file's worth of hostile answers cycling
through the families (total seconds), then honest answers in-process without a
bound and through the bounded checker (the price of the bound); it reports the
scorer's peak RSS and the largest checking process's. Run from the repository
root::

    python perf/hostile_input_speed.py            # every kind
    python perf/hostile_input_speed.py deep_nesting huge_ints
    python perf/hostile_input_speed.py answer_bombs --hostile-answers 5500 --honest-answers 1100
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
         "deep_nesting", "unclosed_nesting", "huge_ints", "nan_scores", "surrogates", "answer_bombs")

def honest_answers(n: int) -> list[tuple[str, str]]:
    """``n`` distinct honest (reference, candidate) pairs of the usual shapes, about half of them equal."""
    out = []
    for i in range(n):
        a, b = 7 + i % 991, 2 + i % 97
        out.append([(str(a), str(a + i % 2)), (rf"\frac{{{a}}}{{{b}}}", f"{a / b:.6f}"),
                    (rf"{a}\sqrt{{{b}}}", rf"\sqrt{{{a * a * b}}}"), (rf"\{{{a}, {b}\}}", rf"\{{{b}, {a}\}}"),
                    (f"({a}, {b})", f"({a},{b + i % 2})"), (rf"x^2 + {a}x + {b}", rf"{b} + {a}x + x^2"),
                    (f"n = {a}", str(a)), (rf"[{a}, {a + b})", rf"[{a}, {a + b})"), (rf"{a}\pi", rf"{a} \pi"),
                    (rf"2^{{{b}}} - {a}", rf"2^{{{b}}}-{a + i % 2}"), (rf"\binom{{{b}}}{{2}}", str(b * (b - 1) // 2))][i % 11])
    return out


ANSWERS_CHILD = r"""
import json, os, resource, sys, threading, time
sys.path.insert(0, ".")
from perf.hostile_input_speed import honest_answers
from lemmata.benchmarks.mathnet.answer_check import HOSTILE_ANSWERS
from lemmata.benchmarks.mathnet import answer_check
from lemmata.benchmarks.mathnet.solve_scoring import check_answers
hostile, honest = int(sys.argv[1]), int(sys.argv[2])
report = {}

def work():
    lim = answer_check.limits()
    report["bound"] = lim.bound
    t = time.perf_counter()
    check_answers([("1", "1")])
    report["start_s"] = time.perf_counter() - t
    report["families"] = []
    for family, bomb in HOSTILE_ANSWERS.items():
        t = time.perf_counter()
        [(ok, why)] = check_answers([("2", bomb)])
        report["families"].append({"family": family, "seconds": time.perf_counter() - t, "equal": ok, "reason": why})
    bombs = list(HOSTILE_ANSWERS.values())
    t = time.perf_counter()
    verdicts = check_answers([("2", bombs[i % len(bombs)]) for i in range(hostile)])
    report["file"] = {"answers": hostile, "seconds": time.perf_counter() - t, "budget_s": lim.budget_s(hostile),
                      "equal": sum(ok for ok, _ in verdicts),
                      "cut_off": sum(1 for _, w in verdicts if w and w.startswith("answer check exceeded")),
                      "refused": sum(1 for _, w in verdicts if w and w.startswith("answer not checked")),
                      "not_run": sum(1 for _, w in verdicts if w and w.startswith("answer check not run"))}
    if honest:
        pairs = honest_answers(honest)
        t = time.perf_counter()
        bounded = check_answers(pairs)
        report["honest_bounded_s"] = time.perf_counter() - t
        t = time.perf_counter()
        plain = [answer_check.agree(r, c) for r, c in pairs]
        report["honest_in_process_s"] = time.perf_counter() - t
        report["honest"] = {"answers": honest, "equal": sum(plain),
                            "same_verdicts": [ok for ok, _ in bounded] == plain}
    report["worker_peak_rss_mb"] = answer_check.pool(lim).peak_rss_kb / 1024

thread = threading.Thread(target=work, name="lemmata-scoring-worker")
thread.start()
thread.join()
report["scorer_peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(report))
"""


def answer_bombs(hostile: int, honest: int) -> int:
    out = subprocess.run([sys.executable, "-c", ANSWERS_CHILD, str(hostile), str(honest)], capture_output=True,
                         text=True, check=False)
    if out.returncode != 0:
        print(f"answer_bombs FAILED\n{out.stderr[-2000:]}")
        return 1
    r = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"\nanswer bombs: MathNet-Solve's answer check, bound {r['bound']} per answer, from a worker thread "
          f"(workers started in {r['start_s']:.1f} s)")
    print(f"{'family':32} {'seconds':>8}  verdict / reason")
    for f in r["families"]:
        print(f"{f['family']:32} {f['seconds']:8.2f}  {'equal' if f['equal'] else 'not equal'}: {f['reason'] or '-'}")
    worst = max(f["seconds"] for f in r["families"])
    fl = r["file"]
    print(f"slowest answer: {worst:.2f} s (target ≤ 2 s)")
    print(f"a file of {fl['answers']:,} hostile answers: {fl['seconds']:.1f} s (target ≤ 60 s; file budget "
          f"{fl['budget_s']:.0f} s): {fl['cut_off']:,} cut off, {fl['refused']:,} refused before math-verify, "
          f"{fl['not_run']:,} not run after the file lost its budget, {fl['equal']} equal")
    if "honest" in r:
        h = r["honest"]
        print(f"{h['answers']:,} honest answers ({h['equal']:,} equal): {r['honest_bounded_s']:.1f} s bounded "
              f"vs {r['honest_in_process_s']:.1f} s in-process unbounded; same verdicts: {h['same_verdicts']}")
    print(f"peak RSS: scorer {r['scorer_peak_rss_mb']:.0f} MB, largest checking process "
          f"{r['worker_peak_rss_mb']:.0f} MB (target ≤ 500 MB)")
    return 0

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
    parser.add_argument("--hostile-answers", type=int, default=5500, metavar="N",
                        help="answer_bombs: hostile final answers in the one-file run (default 5,500)")
    parser.add_argument("--honest-answers", type=int, default=1100, metavar="N",
                        help="answer_bombs: honest answers checked in-process and bounded (default 1,100; 0: skip)")
    args = parser.parse_args(argv)
    kinds = args.kinds or list(KINDS)
    files = [k for k in kinds if k != "answer_bombs"]
    if files:
        code = uploads(files)
        if code:
            return code
    return answer_bombs(args.hostile_answers, args.honest_answers) if "answer_bombs" in kinds else 0


def uploads(kinds: list[str]) -> int:
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
