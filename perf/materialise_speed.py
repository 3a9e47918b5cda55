"""Time source materialisation without the network: e-print bytes → fixed text, and rescoring from a store.

    python perf/materialise_speed.py [--runs 3] [--n 200]

The e-prints are the test fixtures (``tests/fixtures/arxiv``): the multi-file
tarball (gzip → tar → main file → inputs → macros → statements) and the single
gzipped TeX file, built in memory as arXiv serves them. "Parse" is unpack +
fixed text per e-print; "record" adds writing the text and a log line into a
fresh store (hashing, MANIFEST update, fsync); "rescore" opens that store
(verifying every file) and reads every text back. Network time is not measured:
live, arXiv's requested pacing (one request per 3 s) dominates. Times are the
best of --runs (the machine is shared).
"""

from __future__ import annotations

import argparse
import gzip
import io
import tarfile
import tempfile
import time
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "arxiv"


def _tarball(folder: Path) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tf:
        for p in sorted(q for q in folder.rglob("*") if q.is_file()):
            info = tarfile.TarInfo(p.relative_to(folder).as_posix())
            info.size, info.mtime = p.stat().st_size, 0
            tf.addfile(info, io.BytesIO(p.read_bytes()))
    return gzip.compress(buf.getvalue(), mtime=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--n", type=int, default=200, help="e-prints per run")
    args = parser.parse_args()

    from lemmata.materialisers import MaterialiserSettings
    from lemmata.materialisers.eprint import unpack
    from lemmata.materialisers.fixedtext import source_text
    from lemmata.materialisers.materialiser import Materialiser
    from lemmata.materialisers.records import MaterialisationRecord, Resolution, SourceRequest, now_iso
    from lemmata.materialisers.store import MaterialisationStore
    from lemmata.core.hashing import sha256_bytes

    eprints = [_tarball(FIXTURES / "2101.00001v2"), gzip.compress((FIXTURES / "math_0601001v1" / "source.tex")
                                                                   .read_bytes(), mtime=0)]
    settings = MaterialiserSettings()
    limits, tlimits = settings.archive_limits(), settings.text_limits()

    def parse(i: int) -> str:
        unpacked = unpack(eprints[i % 2], limits, name="lone.tex")
        return source_text(unpacked.files, tlimits, header=["% speed"]).text

    best_parse = best_record = best_rescore = float("inf")
    for _ in range(args.runs):
        t = time.perf_counter()
        texts = [parse(i) for i in range(args.n)]
        best_parse = min(best_parse, time.perf_counter() - t)
        with tempfile.TemporaryDirectory(prefix="lemmata-materialise-speed-") as tmp:
            store = MaterialisationStore(Path(tmp) / "store", text_settings=settings.text_settings(),
                                         text_settings_sha256=settings.text_settings_sha256())
            t = time.perf_counter()
            for i in range(args.n):
                text = parse(i) + f"% copy {i}\n"  # distinct texts: one file each, as for distinct sources
                sha = sha256_bytes(text.encode())
                req = SourceRequest(arxiv_id=f"2101.{i:05d}v1")
                store.append(MaterialisationRecord(
                    key=req.key, request=req, status="materialised", access_status="downloaded",
                    parse_status="parsed", path="source", resolved=Resolution(arxiv_id=req.arxiv_id, version=1,
                                                                              via="arxiv_id"),
                    fetched_sha256=sha256_bytes(eprints[i % 2]), text_file=f"texts/{sha}.txt", text_sha256=sha,
                    text_chars=len(text), text_settings_sha256=settings.text_settings_sha256(),
                    recorded_at=now_iso()), text)
            best_record = min(best_record, time.perf_counter() - t)
            t = time.perf_counter()
            offline = Materialiser(Path(tmp) / "store", settings=settings, client=None)
            for i in range(args.n):
                assert offline.materialise({"arxiv_id": f"2101.{i:05d}v1"}).cached
            best_rescore = min(best_rescore, time.perf_counter() - t)
    chars = sum(len(x) for x in texts)
    print(f"e-prints per run: {args.n} (fixture tarball and single-file TeX alternating), "
          f"{chars // args.n} characters of fixed text each on average")
    print(f"parse (unpack + fixed text): {args.n / best_parse:8.1f} e-prints/s  ({best_parse:.3f} s)")
    print(f"parse + record into a store: {args.n / best_record:8.1f} e-prints/s  ({best_record:.3f} s)")
    print(f"rescore (open, verify, read): {args.n / best_rescore:8.1f} sources/s   ({best_rescore:.3f} s)")


if __name__ == "__main__":
    main()
