"""The release-side CLI: list, build, render, publish, cards; one-sentence errors."""

from __future__ import annotations

import http.server
import shutil
import subprocess
import sys
import threading

import pytest

from lemmata.cli import main


HEAVY = {"gradio", "datasets", "pandas", "mlcroissant", "torch", "pyarrow", "bm25s", "huggingface_hub",
         "evaluate", "pytrec_eval", "static_model", "numpy"}


def test_help_is_fast_and_lists_commands():
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "lemmata", "--help"],
                         capture_output=True, text=True, check=True)
    assert "build" in out.stdout and "publish" in out.stdout
    modules = {line.split("|")[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    assert not {m for m in modules if m.split(".")[0] in HEAVY}, "heavy libraries imported at start-up"


def test_list(capsys):
    assert main(["list"]) == 0
    assert "re2math-1.0.0" in capsys.readouterr().out


def test_build_prints_the_release_path(tmp_path, capsys):
    assert main(["build", "re2math", "--out", str(tmp_path), "--quiet"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1] == str(tmp_path / "re2math-1.0.0")


def test_unknown_family_suggests(capsys):
    assert main(["build", "re2mth"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 're2math'" in err and "Traceback" not in err


def test_build_error_is_one_report_not_a_traceback(tmp_path, capsys):
    assert main(["build", "re2math", "--out", str(tmp_path / "out"), "--source-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "missing source file" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_render_command(re2math_release, capsys):
    assert main(["render", str(re2math_release), "1903.08525_gap_0", "--track", "assisted", "--window", "1"]) == 0
    out = capsys.readouterr().out
    assert "## Anchor" in out and "(last 1 of" in out


def test_publish_dry_run_lists_files_and_tag(re2math_release, capsys):
    assert main(["publish", str(re2math_release), "--repo", "lemmata/re2math", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "tagged '1.0.0'" in out and "lemmata/re2math" in out
    for name in ("README.md", "croissant.json", "CITATION.cff", "MANIFEST.json",
                 "data/eval200/test-00000-of-00001.parquet"):
        assert name in out


def test_publish_without_network_is_one_sentence(re2math_release, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["publish", str(re2math_release), "--repo", "lemmata/re2math", "--token", "hf_x"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: could not publish re2math-1.0.0 to https://huggingface.co/datasets/lemmata/re2math")
    assert "Traceback" not in err and len(err.splitlines()) == 1


def test_publish_rejects_bad_repo_id(re2math_release, capsys):
    assert main(["publish", str(re2math_release), "--repo", "no-owner", "--dry-run"]) == 1
    assert "OWNER/NAME" in capsys.readouterr().err


@pytest.fixture
def file_server(tmp_path):
    """A loopback HTTP server serving ``tmp_path/www``."""
    root = tmp_path / "www"
    root.mkdir()

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=str(root), **kw)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


def test_sources_download_from_pinned_url_and_verify(re2math_sources_copy, file_server, monkeypatch):
    """Without a mirror the builder downloads each file from its pinned URL into a content-addressed cache."""
    from lemmata.release import sources as sources_mod
    from lemmata.benchmarks.re2math.meta import RE2MATH
    from lemmata.core.errors import InputError

    root, base = file_server
    name = "benchmark_dataset_eval200.summary.json"
    shutil.copyfile(re2math_sources_copy / name, root / name)
    pinned = RE2MATH.source(name)
    meta = RE2MATH.model_copy(update={"sources": (pinned.model_copy(update={"url": base + name}),)})
    monkeypatch.setattr(sources_mod, "default_source_dir", lambda family: None)
    paths = sources_mod.resolve_sources(meta, [name])
    assert paths[name].read_bytes() == (re2math_sources_copy / name).read_bytes()
    # a corrupted upstream file is refused and not cached
    (root / "bad.json").write_bytes(b"{}")
    bad = pinned.model_copy(update={"name": "bad.json", "url": base + "bad.json", "sha256": "0" * 64})
    with pytest.raises(InputError, match="does not match the pinned sha256"):
        sources_mod.resolve_sources(RE2MATH.model_copy(update={"sources": (bad,)}), ["bad.json"])
    assert not sources_mod._cache_path(bad).exists()


def test_unreachable_url_is_one_sentence(monkeypatch):
    from lemmata.release import sources as sources_mod
    from lemmata.benchmarks.re2math.meta import RE2MATH
    from lemmata.core.errors import LemmataError

    name = "benchmark_dataset_full.summary.json"
    pinned = RE2MATH.source(name).model_copy(update={"url": "http://127.0.0.1:9/nothing"})
    monkeypatch.setattr(sources_mod, "default_source_dir", lambda family: None)
    monkeypatch.setattr(sources_mod, "_cache_path", lambda src: sources_mod.lemmata_home() / "nocache" / src.name)
    with pytest.raises(LemmataError, match="could not download"):
        sources_mod.resolve_sources(RE2MATH.model_copy(update={"sources": (pinned,)}), [name])
