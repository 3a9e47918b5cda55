"""Bad input gets the problem list (line, column, field) in bounded work; display and exports stay inert."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from lemmata.core.errors import InputError
from lemmata.formats import envelope
from lemmata.formats.envelope import MAX_PROBLEMS, parse_envelope
from lemmata.scoring import validate_upload
from lemmata.space.board import to_csv
from lemmata.space.safety import csv_cell, esc, md_escape, safe_markdown

ROOT = Path(__file__).resolve().parents[2]
RE2MATH = ROOT / "submissions/re2math/example-re2math-bm25-raw-m5.jsonl"
HEADER = b'{"format": "lemmata-submission/1", "benchmark": "x"}\n'


def _problems(data: bytes, parse=parse_envelope):
    with pytest.raises(InputError) as err:
        parse(data, "f.jsonl")
    return err.value.problems


# -- the envelope ---------------------------------------------------------------------------------
@pytest.mark.parametrize("value, reason, field", [
    ("NaN", "NaN is not allowed", "a.b[1]"),
    ("-Infinity", "-Infinity is not allowed", "a.b[1]"),
    ("1e999", "out of range", "a.b[1]"),
    ("9" * 5000, "5,000 digits", "a.b[1]"),
    ("-" + "1" * 65, "65 digits", "a.b[1]"),
    ('"x\\udfff"', "lone surrogate", "a.b[1]"),
])
def test_refused_values_name_line_and_field(value, reason, field):
    data = HEADER + b'{"ok": 1}\n' + ('{"a": {"b": [0, %s]}}\n' % value).encode()
    [p] = _problems(data)
    assert (p.line, p.field) == (3, field) and reason in p.reason


def test_duplicate_keys_are_refused_with_line_and_key():
    """Python's json keeps the last of two equal keys: a reader would see one model and the scorer another."""
    header = b'{"format": "lemmata-submission/1", "benchmark": "x", "model": "honest", "model": "forged"}\n'
    [p] = _problems(header + b'{"ok": 1}\n')
    assert (p.line, p.field) == (1, "model") and "duplicate key 'model'" in p.reason
    [p] = _problems(HEADER + b'{"ok": 1}\n{"r": [{"fqn": "a.b", "fqn": "c.d"}]}\n')
    assert (p.line, p.field) == (3, "r[0].fqn") and "duplicate key 'fqn'" in p.reason


def test_malformed_json_names_the_column_once():
    [p] = _problems(HEADER + b'{"a": 1,}\n')
    assert p.line == 2 and p.reason == "malformed JSON: Expecting property name enclosed in double quotes at column 9"
    [p] = _problems(HEADER + b'{"a": "unterminated}\n')
    assert p.reason == "malformed JSON: Unterminated string starting at column 7"


def test_depth_and_unpaired_brackets_are_problems_not_recursion():
    deep, unclosed = b'{"a": ' + b"[" * 40 + b"]" * 40 + b"}", b'{"a": ' + b"[" * 100_000
    probs = _problems(HEADER + deep + b"\n" + unclosed + b"\n")
    assert [p.line for p in probs] == [2, 3] and "deeper than 32" in probs[0].reason


def test_valid_surrogate_pairs_and_bmp_text_are_kept():
    env = parse_envelope(HEADER + b'{"a": "\\ud83d\\ude00 \xe2\x88\x80"}\n', "f.jsonl")
    assert env.records[0][1]["a"] == "\U0001f600 ∀"


def test_problem_list_is_capped_with_the_total_stated():
    probs = _problems(HEADER + b"[]\n" * 1000)
    assert len(probs) == MAX_PROBLEMS + 1
    assert probs[-1].reason.startswith("… and 800 more problems (1,000 in all)")


def test_line_count_line_size_and_container_budget(monkeypatch):
    monkeypatch.setattr(envelope, "MAX_LINES", 10)
    [p] = _problems(HEADER + b"{}\n" * 20)
    assert "limit is 10" in p.reason
    monkeypatch.setattr(envelope, "MAX_LINES", 1000)
    monkeypatch.setattr(envelope, "MAX_LINE_BYTES", 100)
    [p] = _problems(HEADER + b'{"a": "' + b"x" * 200 + b'"}\n')
    assert p.line == 2 and "limit is 100" in p.reason
    monkeypatch.setattr(envelope, "MAX_LINE_BYTES", 10_000)
    monkeypatch.setattr(envelope, "MAX_CONTAINERS", 35)  # header 1, line 2 33, line 3 3
    probs = _problems(HEADER + b'{"a": [' + b"{}," * 30 + b"{}]}\n" + b'{"b": [{}]}\n')
    assert [p.line for p in probs] == [3] and "arrays and objects" in probs[0].reason


def test_repeated_short_lines_are_read_once_strictly_and_still_bounded(monkeypatch):
    """Repeats of a good short line skip the strict parse but get their own values and still spend the budget;
    a bad line is never remembered, so each repeat is refused on its own line."""
    got = parse_envelope(HEADER + b'{"a": [1]}\n' * 3, "f.jsonl")
    assert [v for _, v in got.records] == [{"a": [1]}] * 3
    assert len({id(v) for _, v in got.records}) == 3 and len({id(v["a"]) for _, v in got.records}) == 3
    probs = _problems(HEADER + b'{"a": 1, "a": 2}\n' * 3)
    assert [(p.line, p.field) for p in probs] == [(2, "a"), (3, "a"), (4, "a")]
    monkeypatch.setattr(envelope, "MAX_CONTAINERS", 4)  # header 1, then one per line: the fourth repeat is over
    probs = _problems(HEADER + b"{}\n" * 4)
    assert [p.line for p in probs] == [5] and "arrays and objects" in probs[0].reason


def test_window_true_is_not_window_one(re2math_uploads):
    lines = RE2MATH.read_bytes().split(b"\n")
    header = json.loads(lines[0])
    assert header["window"] in (1, 3, 5)
    header["window"] = True
    data = b"\n".join([json.dumps(header).encode()] + lines[1:])
    with pytest.raises(InputError) as err:
        validate_upload(data, "w.jsonl")
    assert [(p.line, p.field) for p in err.value.problems] == [(1, "header.window")]


def test_handler_problems_are_capped_too(re2math_uploads):
    lines = RE2MATH.read_bytes().rstrip(b"\n").split(b"\n")
    data = b"\n".join(lines[:1] + [b'{"instance_id": "x"}'] * 500)
    with pytest.raises(InputError) as err:
        validate_upload(data, "c.jsonl")
    assert len(err.value.problems) == MAX_PROBLEMS + 1 and "more problems" in err.value.problems[-1].reason


# -- display and export -------------------------------------------------------------------------
def test_csv_quotes_bare_cr_and_neutralises_after_leading_controls():
    records = [{"model": "\r=cmd|' /C calc'!A0", "score": 0.5}, {"model": " \x00@SUM(A1)", "score": -0.25},
               {"model": "a\nb", "score": 1}]
    text = to_csv(records)
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows == [["model", "score"], ["'\r=cmd|' /C calc'!A0", "0.5"], ["' \x00@SUM(A1)", "-0.25"],
                    ["a\nb", "1"]]
    assert csv_cell("\u200b=1") == "'\u200b=1" and csv_cell("x=1") == "x=1" and csv_cell(-3) == -3


def test_bidi_controls_are_shown_not_obeyed():
    for ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c":
        assert ch not in esc(f"m{ch}x") and ch not in md_escape(f"m{ch}x") and ch not in safe_markdown(f"m{ch}x")
    assert esc("gpt\u202e4") == "gpt[U+202E]4"


def test_audit_markdown_never_loads_or_links_submitted_urls():
    md = safe_markdown("see ![x](https://evil.example/t.png) and [y](https://evil.example) "
                       "![r][img]\n[img]: https://evil.example/r.png\n `![k](https://code.example)`")
    assert "](" not in md.replace("`![k](https://code.example)`", "") and "][" not in md
    assert "\\[img]: https://evil.example/r.png" in md and "`![k](https://code.example)`" in md


def test_export_folder_is_removed_on_close_and_at_exit(tmp_path):
    from lemmata.space.config import SpaceConfig
    from lemmata.space.context import create_context

    ctx = create_context(SpaceConfig.from_env({"LEMMATA_HOME": str(tmp_path)}), steps=lambda c: [])
    folder = ctx.export_dir
    (folder / "board.csv").write_text("x")
    ctx.close()
    assert not folder.exists()
    script = ("import sys; from lemmata.space.config import SpaceConfig; from lemmata.space.context import "
              "create_context; ctx = create_context(SpaceConfig.from_env({'LEMMATA_HOME': sys.argv[1]}), "
              "steps=lambda c: []); (ctx.export_dir / 'a.csv').write_text('x'); print(ctx.export_dir)")
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=True,
                         cwd=ROOT)
    left = Path(out.stdout.strip().splitlines()[-1])
    assert left.name.startswith("lemmata-space-exports-") and not left.exists()


def test_space_renders_a_bounded_problem_table_for_a_hostile_upload(tmp_path, re2math_uploads):
    from lemmata.space.config import SpaceConfig
    from lemmata.space.submit import SubmissionForm, render_outcome, submit_upload
    from lemmata.store import Store

    cfg = SpaceConfig.from_env({"LEMMATA_HOME": str(tmp_path)})
    header = RE2MATH.read_bytes().split(b"\n", 1)[0] + b"\n"
    outcome = submit_upload(Store(cfg.store_root), cfg, header + b"{}\n" * (256 * 1024 // 3), "h.jsonl",
                            SubmissionForm(submitter="x"))
    html = render_outcome(outcome)
    assert outcome.kind == "invalid" and len(outcome.problems) == MAX_PROBLEMS + 1
    assert "more problems" in outcome.problems[-1].reason and len(html) < 100_000
