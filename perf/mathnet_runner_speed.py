"""Time ``lemmata run mathnet``'s own overhead: 5,500 problems against a local chat server with 50 ms latency.

    python perf/mathnet_runner_speed.py [--problems 5500] [--latency 0.05] [--concurrency 16] [--condition zero-shot]

A synthetic snapshot in the exact upstream layout of ``ShadenA/MathNet`` (per-country parquet configs; every
tenth problem with a PNG figure) is written to a temporary folder and built into a release, whose
``lemmata_strat_5500`` subset then holds 5,500 problems. The run — messages (figures as image parts), the
chat runner at the given concurrency against an in-process OpenAI-compatible server that waits ``--latency``
seconds per answer in a child process, and the written submission — is timed from the first request to the file on disk.
With 50 ms latency and 16 requests in flight the floor is 5,500 × 0.05 / 16 ≈ 17.2 s; the target is ≤ 30 s.
A second run answers from the request cache (the cost of resuming a finished run). ``retriever-rag`` adds the
static-model retrieval over the pool.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

TARGET_S = 30.0
DOMAINS = ("Algebra > Inequalities", "Number Theory > Divisibility", "Geometry > Triangles",
           "Discrete Mathematics > Combinatorics")
LANGUAGES = ("English", "Spanish", "Portuguese", "French")


def snapshot(root: Path, n: int) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (64, 64), (255, 255, 255)).save(buf, format="PNG")
    png = buf.getvalue()
    sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "fixtures" / "hub" / "MathNet"))
    from make_fixture import SCHEMA  # the upstream column types, declared once for the fixture

    configs = {f"C{c:02d}": [] for c in range(10)}
    for i in range(n):
        images = [{"bytes": png, "path": "attached_image_1.png"}] if i % 10 == 0 else []
        text = f"Problem {i}: show that {i} + {i} = {2 * i} for the number {i}." + (
            "\n\n![](attached_image_1.png)" if images else "")
        configs[f"C{i % 10:02d}"].append({
            "unique_id": f"p{i:05d}", "country": "X", "competition": "Y", "year": 2000 + i % 20, "section": None,
            "problem_number": str(i), "problem_markdown": text, "solutions_markdown": [f"Add: {2 * i}."],
            "answers_markdown": [], "topics": [[DOMAINS[i % 4]]], "topics_flat": [DOMAINS[i % 4]],
            "language": LANGUAGES[i % 4], "source_booklet": None, "booklet_source": None,
            "has_images": bool(images), "num_images": len(images), "images": images,
            "natural_language_description": "A blank square." if images else None, "main_ideas": [],
            "final_answer": str(2 * i), "problem_type": "proof and answer", "metadata_confidence": 1.0,
            "original_problem_markdown": text})
    lines = []
    for name, rows in configs.items():
        path = root / "data" / name / "train-00000-of-00001.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMA), path)
        lines.append(f"  - config_name: {name}\n    data_files:\n      - split: train\n        path: data/{name}/*.parquet")
    (root / "README.md").write_text("---\nlicense: cc-by-4.0\nconfigs:\n" + "\n".join(lines) + "\n---\n")


def answer(body: dict) -> str:
    return "Add both sides. Final answer: \\boxed{0}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--problems", type=int, default=5500)
    ap.add_argument("--latency", type=float, default=0.05)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--condition", choices=("zero-shot", "retriever-rag"), default="zero-shot")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mathnet-speed-") as tmp:
        tmp_path = Path(tmp)
        os.environ["LEMMATA_HOME"] = str(tmp_path / "home")
        from lemmata.benchmarks.mathnet.solve_builder import MathNetSolveBuilder
        from lemmata.benchmarks.mathnet.solve_data import solve_release
        from lemmata.benchmarks.mathnet.solve_run import solve_submission, write_lines
        from lemmata.core.paths import releases_dir
        sys.path.insert(0, str(Path(__file__).parent))
        from llm_runner_speed import ServerProcess  # the chat double in a child process, as a real endpoint
        from lemmata.oracles.chat_runner import ChatRunner, Endpoint, RequestCache

        snapshot(tmp_path / "MathNet", args.problems)
        t0 = time.perf_counter()
        MathNetSolveBuilder(source_dir=tmp_path / "MathNet").build(releases_dir(), quiet=True)
        if args.condition == "retriever-rag":
            from lemmata.benchmarks.mathnet.builder import MathNetRetrieveBuilder

            MathNetRetrieveBuilder(source_dir=Path(__file__).parents[1] / "tests" / "fixtures" / "hub" /
                                   "MathNet-Retrieve").build(releases_dir(), quiet=True)
        print(f"release of {args.problems:,} problems built in {time.perf_counter() - t0:.1f} s")
        release = solve_release()
        subset = "lemmata_strat_5500"
        cache = RequestCache(tmp_path / "cache.jsonl")
        timings = []
        with ServerProcess(answer, args.latency) as server:
            for label in ("cold", "from cache"):
                endpoint = Endpoint(base_url=server.base_url, model="speed-m", api_key="k",
                                    concurrency=args.concurrency, backoff_s=0)
                with ChatRunner(endpoint, cache) as runner:
                    start, cpu = time.perf_counter(), time.process_time()
                    lines, meta = solve_submission(release, runner, subset=subset, modality="text+image",
                                                   condition=args.condition,
                                                   retriever_spec="static" if args.condition == "retriever-rag" else None,
                                                   quiet=True)
                    write_lines(tmp_path / "out.jsonl", lines)
                    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
                timings.append(seconds)
                print(f"{label}: {len(lines) - 1:,} problems, {runner.stats.sent:,} requests sent, "
                      f"{seconds:.1f} s wall ({(len(lines) - 1) / seconds:.0f} problems/s), {cpu:.1f} s CPU in "
                      f"the runner's process")
        floor = len(lines[1:]) * args.latency / args.concurrency
        overhead = timings[0] - floor
        ok = timings[0] <= TARGET_S
        print(f"load average while running: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(f"floor {floor:.1f} s at {args.latency * 1000:.0f} ms × {len(lines) - 1:,} / {args.concurrency}; "
              f"runner overhead {overhead:.1f} s; target ≤ {TARGET_S:.0f} s: {'met' if ok else 'MISSED'}")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
