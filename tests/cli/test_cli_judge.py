"""``lemmata judge`` says which oracles it has: none is an error naming the settings; one alone says that the
verdicts needing the other stay pending."""

from __future__ import annotations

from lemmata.cli import main


def _clear(monkeypatch):
    for name in ("LEMMATA_JUDGE_BASE_URL", "LEMMATA_JUDGE_MODEL", "LEMMATA_LEAN_URL", "LEMMATA_MATHLIB_VERSION"):
        monkeypatch.delenv(name, raising=False)


def test_no_oracle_is_an_error_naming_the_settings(tmp_path, monkeypatch, capsys):
    _clear(monkeypatch)
    assert main(["judge", "--store", str(tmp_path / "store")]) == 1
    err = capsys.readouterr().err
    assert "no oracle configured" in err and "LEMMATA_JUDGE_BASE_URL" in err and "LEMMATA_LEAN_URL" in err


def test_a_judge_alone_says_lean_verdicts_stay_pending(tmp_path, monkeypatch, capsys):
    _clear(monkeypatch)
    monkeypatch.setenv("LEMMATA_JUDGE_BASE_URL", "http://127.0.0.1:9/v1")  # never called: nothing is pending
    monkeypatch.setenv("LEMMATA_JUDGE_MODEL", "judge-model")
    assert main(["judge", "--store", str(tmp_path / "store")]) == 0
    err = capsys.readouterr().err
    assert "no Lean verifier configured (LEMMATA_LEAN_URL and LEMMATA_MATHLIB_VERSION unset)" in err
    assert "no judge configured" not in err and "nothing pending" in err
