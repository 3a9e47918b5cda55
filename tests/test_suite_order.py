"""The suite's file order (``conftest.FIRST``) names files that exist: a renamed file would silently fall back to
its collection place, and the run would again end with one worker busy and the other idle."""

from __future__ import annotations

from pathlib import Path

from conftest import FIRST


def test_every_file_run_first_exists_once_and_the_readme_server_starts_first():
    tests = Path(__file__).resolve().parent
    assert [name for name in FIRST if not (tests / name).is_file()] == []
    assert len(set(FIRST)) == len(FIRST)
    assert FIRST[0] == "space/test_space_readme_literal.py"  # its first start runs beside the shared builds
