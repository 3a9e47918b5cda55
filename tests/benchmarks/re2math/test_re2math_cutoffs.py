"""Year-cutoff rules measured on the real rows against the 1.0.0 artifact; the frozen rule is unchanged."""

from __future__ import annotations

import pytest

from lemmata.benchmarks.re2math.cutoffs import (
    RULES, cited_years, cutoff_table, main, released_version, rule_cutoff, stated_year,
)
from lemmata.benchmarks.re2math.scholar.identity import year_cutoff
from lemmata.release.load import open_release


@pytest.fixture(scope="module")
def artifact_dir(scholar_artifacts):
    """The run's 1.0.0 artifact (built once for every worker by ``scholar_artifacts``)."""
    from lemmata.benchmarks.re2math.scholar.artifact import artifact_id

    return scholar_artifacts / artifact_id()


@pytest.fixture(scope="module")
def rows(re2math_release):
    return open_release(re2math_release).rows("eval200", "test")


def test_cutoff_table_on_eval200(rows, artifact_dir):
    years = cited_years(str(artifact_dir), [r["instance_id"] for r in rows])
    table = {line["rule"]: (line["no_cutoff"], line["unreachable"]) for line in cutoff_table(rows, years)}
    assert table == {"release": (0, 13), "first_version": (0, 22), "versioned": (0, 2),
                     "stated_or_none": (126, 0), "none": (200, 0)}
    release_late = next(line for line in cutoff_table(rows, years) if line["rule"] == "release")["unreachable_ids"]
    # every cited source the frozen rule puts out of reach belongs to an undated row released from version 2 or later
    by_id = {r["instance_id"]: r for r in rows}
    assert all(stated_year(by_id[i]) is None and (released_version(by_id[i]) or 1) >= 2 for i in release_late)


def test_frozen_rule_is_unchanged_and_named_rules_come_from_the_row(rows, artifact_dir):
    from lemmata.benchmarks.re2math.scholar.artifact import open_artifact

    art = open_artifact(artifact_dir)
    for row in rows:
        assert year_cutoff(art, row) == art.attribution(row["instance_id"]).year_cutoff == row["publication_year"]
        assert year_cutoff(art, row, "release") == row["publication_year"]
        for rule in RULES:
            assert year_cutoff(art, row, rule) == rule_cutoff(row, rule)
        # the cutoff never reads the cited source
        blind = {**row, "z": {}}
        assert [rule_cutoff(blind, r) for r in RULES] == [rule_cutoff(row, r) for r in RULES]
    with pytest.raises(ValueError, match="unknown cutoff rule"):
        rule_cutoff(rows[0], "latest")  # type: ignore[arg-type]


def test_cutoffs_command_prints_the_table(re2math_release, artifact_dir, capsys):
    assert main([str(re2math_release), str(artifact_dir)]) == 0
    out = capsys.readouterr().out
    assert "200 rows, 126 without a stated publication date" in out
    assert any(line.split() == ["release", "0", "13"] for line in out.splitlines())
