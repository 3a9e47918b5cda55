"""Time what the store's fault handling adds: the index check on every open, and a rebuild after damage.

    python perf/store_recovery_speed.py [--results 1000] [--runs 3]

Fills a temporary store with ``--results`` result files, then times (best of
--runs; the machine is shared) the index check alone, a full open of the sound
store, and an open after the index was overwritten with garbage (moved aside
and rebuilt from the result files). Target on a 2-core machine: the check adds
under 50 ms to an open of a 1000-result store.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

TARGET_CHECK_MS = 50.0


def _fill(store, n: int) -> None:
    from lemmata.formats.results import FrozenTuple, ModelInfo, Score, make_result

    frozen = FrozenTuple(dataset_release="b-1.0.0", split="c/test", retrieval_artifact=None,
                         scoring_artifact="scorer-1", date="2026-11-21")
    for i in range(n):
        store.add_result(make_result(
            kind="scored", benchmark="b", track="t", frozen=frozen, submission_sha256=f"{i:064x}",
            model=ModelInfo(name=f"m{i}"), main=Score(metric="acc", value=i / n, count=i, total=n),
            metrics={"acc": i / n}, items=[{"item_id": f"i{j}", "verdict": "yes"} for j in range(20)]))


def _best(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    from lemmata.store import Store
    from lemmata.store.faults import check_index

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="lemmata-store-recovery-"))
    try:
        store = Store(root)
        _fill(store, args.results)
        size_kib = store.db_path.stat().st_size // 1024
        check = _best(lambda: check_index(store.db_path), args.runs)
        sound = _best(lambda: Store(root), args.runs)

        def damaged() -> None:
            store.db_path.write_bytes(b"not a database" * 512)
            reopened = Store(root)
            assert reopened.recovery_notice and len(reopened.result_rows()) == args.results

        rebuild = _best(damaged, args.runs)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{args.results} results, index {size_kib} KiB (best of {args.runs})")
    print(f"  index check        {check * 1000:8.1f} ms  (target < {TARGET_CHECK_MS:g} ms)")
    print(f"  open, sound index  {sound * 1000:8.1f} ms")
    print(f"  open, garbage index: moved aside and rebuilt {rebuild:8.2f} s")
    if check * 1000 > TARGET_CHECK_MS:
        raise SystemExit("index check slower than the target")


if __name__ == "__main__":
    main()
