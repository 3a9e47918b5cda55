"""Every speed and audit script under ``perf/`` still starts: its ``--help`` runs (imports resolve, arguments parse).

The README quotes their output, so a script that no longer imports (a moved function) must fail the suite, not a
reader's first try.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "perf").glob("*.py"))


def test_there_are_scripts():
    assert len(SCRIPTS) >= 10


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_help_runs(script):
    out = subprocess.run([sys.executable, str(script), "--help"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, check=False)
    assert out.returncode == 0, f"{script.name} --help failed:\n{out.stderr[-3000:]}"
    assert "usage:" in out.stdout


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_lemmata_import_resolves(script):
    """Imports inside functions too: a name that moved fails here, not after a script's first minute of work."""
    import ast
    import importlib
    import importlib.util

    missing = []
    for node in ast.walk(ast.parse(script.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in ("lemmata", "perf"):
            module = importlib.import_module(node.module)
            missing += [f"{script.name}:{node.lineno}: {node.module}.{a.name}" for a in node.names
                        if not hasattr(module, a.name) and importlib.util.find_spec(f"{node.module}.{a.name}") is None]
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "lemmata":
                    importlib.import_module(a.name)
    assert missing == []
