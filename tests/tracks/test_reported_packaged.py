"""Every paper's reported rows come with the package: a machine with no mirror of upstream files (no ``../shared``
beside the checkout, ``LEMMATA_MIRROR`` an empty folder) still imports the rows of all five papers at the space's
start-up. The four transcriptions ship in the family packages; Re²Math's tables are the authors' own released
files, fetched from their pinned GitHub address (answered here by a loopback server with the same bytes)."""

from __future__ import annotations

import fnmatch
import importlib
import shutil
import tomllib
import urllib.request
from collections import Counter
from pathlib import Path

import pytest
from test_cli_release import file_server  # noqa: F401 - the loopback file server fixture

from lemmata.core.hashing import sha256_file
from lemmata.tracks.reported import Transcription

ROOT = Path(__file__).resolve().parents[2]
#: every transcription a family's reported rows are read from: (module, attribute)
DECLARED = (
    ("lemmata.benchmarks.taobench.reported", "PAPER"),
    ("lemmata.benchmarks.mathnet.reported", "PAPER"),
    ("lemmata.benchmarks.mathnet.solve_reported", "PAPER"),
    ("lemmata.benchmarks.mirb.reported", "PAPER"),
    ("lemmata.benchmarks.mathatlas.reported", "PAPER"),
)


def _declared() -> list[Transcription]:
    return [getattr(importlib.import_module(module), name) for module, name in DECLARED]


def test_every_transcription_ships_in_its_package_pinned_and_with_provenance():
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["package-data"]
    shipped = sorted(p.relative_to(ROOT / "lemmata").as_posix()
                     for p in (ROOT / "lemmata").glob("benchmarks/*/transcriptions/*"))
    declared = _declared()
    assert shipped == sorted(f"{t.package.removeprefix('lemmata.').replace('.', '/')}/transcriptions/{t.file}"
                             for t in declared), "a shipped file no module reads, or a declared one not shipped"
    for t, rel in ((t, t.packaged().relative_to(ROOT / "lemmata").as_posix()) for t in declared):
        assert sha256_file(t.packaged()) == t.sha256, rel
        assert any(fnmatch.fnmatch(rel, p) for p in patterns["lemmata"]), f"{rel} is not package data"
        assert t.paper.startswith("https://arxiv.org/abs/") and t.tables


class _Sink:
    """Where the start-up step puts the rows (the leaderboard store's writes are tested with the store; here only
    which rows the importers find matters, and a store's per-row sealing would cost seconds)."""

    def __init__(self) -> None:
        self.results: list = []

    def add_result(self, result):
        self.results.append(result)
        return result, True


def test_serve_startup_finds_every_papers_rows_without_a_mirror(tmp_path, monkeypatch, file_server):  # noqa: F811
    from lemmata.benchmarks.re2math.meta import RE2MATH
    from lemmata.benchmarks.re2math.reported import ORACLE_SUMMARY, PAPER_MAIN_TABLES, PAPER_TABLES
    from lemmata.core.paths import mirror_root
    from lemmata.families import reported_importers
    from lemmata.space.bootstrap import reported_step

    www, base = file_server
    pinned = {RE2MATH.source(n).url: n for n in (PAPER_TABLES, PAPER_MAIN_TABLES, ORACLE_SUMMARY)}
    for name in pinned.values():  # the bytes GitHub serves at the pinned commit (the test mirror holds them)
        shutil.copyfile(mirror_root() / "re2math" / name, www / name)
    real_urlopen, fetched = urllib.request.urlopen, []

    def github(url, *args, **kwargs):
        assert url in pinned, f"unexpected download {url}"
        fetched.append(url)
        return real_urlopen(base + pinned[url], *args, **kwargs)

    clone = tmp_path / "clone"
    (tmp_path / "empty-mirror").mkdir()
    clone.mkdir()
    monkeypatch.chdir(clone)  # no ../shared beside the working directory
    monkeypatch.setenv("LEMMATA_MIRROR", str(tmp_path / "empty-mirror"))
    monkeypatch.setenv("LEMMATA_HOME", str(tmp_path / "home"))  # an empty download cache
    monkeypatch.setattr(urllib.request, "urlopen", github)

    store = _Sink()
    lines: list[str] = []
    detail = reported_step(store)(lines.append)
    rows = store.results
    assert detail == f"{len(rows)} reported row(s) added"
    assert len(lines) == len(reported_importers()) and sorted(fetched) == sorted(pinned)
    by_benchmark = Counter(r.benchmark for r in rows)
    # Re²Math 7 models; TaoBench 15 rows over its 4 tables; MathNet Table 5 (8) and Tables 3, 4, 8; MIRB Table 9 (13);
    # MathAtlas 30 (two statement tables)
    assert {b: n for b, n in by_benchmark.items() if b != "mathnet-solve"} == {
        "re2math": 7, "taobench": 15, "mathnet-retrieve": 8, "mirb": 13, "mathatlas": 30}
    assert by_benchmark["mathnet-solve"] == 138
    assert {r.kind for r in rows} == {"reported"} and all(r.result_id == r.content_id() for r in rows)


def test_a_missing_packaged_transcription_is_named(tmp_path):
    from lemmata.core.errors import InputError
    from lemmata.tracks.reported import PrintedTable, pinned_transcription

    ghost = Transcription(package="lemmata.benchmarks.mirb", file="ghost_paper.json", sha256="0" * 64,
                          paper="https://arxiv.org/abs/2505.15585", tables=(PrintedTable(name="rows", paper_table=None),))
    with pytest.raises(InputError, match="ghost_paper.json"):
        pinned_transcription(ghost)
