"""A batch query file of many bad lines is answered with a bounded report, like an upload's."""

from __future__ import annotations

import re

import pytest

from lemmata.benchmarks.re2math.scholar.batch import read_batch
from lemmata.core.errors import InputError
from lemmata.formats.envelope import MAX_PROBLEMS, STOP_AFTER


def test_a_hundred_thousand_bad_lines_give_a_short_report(tmp_path):
    path = tmp_path / "hostile.jsonl"
    path.write_text('{"query": 3, "cutoff": "x", "extra": [1, 2, 3]}\n' * 100_000)
    with pytest.raises(InputError) as err:
        read_batch(path)
    text = str(err.value)
    assert len(text) < 64 * 1024  # not megabytes
    assert len(err.value.problems) == MAX_PROBLEMS + 1
    total = int(re.search(r"more problems \(([\d,]+) in all\)", err.value.problems[-1].reason)[1].replace(",", ""))
    assert STOP_AFTER <= total < STOP_AFTER + 3  # reading stopped after STOP_AFTER (a line's problems kept whole)
    assert err.value.skipped and "were not checked" in err.value.skipped[0].reason  # and where reading stopped
    assert err.value.problems[0].line == 1 and err.value.problems[0].field in ("query", "cutoff", "extra")


def test_a_few_bad_lines_are_all_listed(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"query": "ok", "cutoff": 2000}\n{"query": "", "cutoff": null}\nnot json\n')
    with pytest.raises(InputError) as err:
        read_batch(path)
    assert [p.line for p in err.value.problems] == [2, 3] and not err.value.skipped
