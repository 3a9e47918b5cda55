"""The paper-table map: every row names a command the real CLI parser accepts, every transcribed table is mapped,
and the README's section is the generated map word for word."""

from __future__ import annotations

import json
import shlex
from importlib import resources
from pathlib import Path

import pytest

from lemmata.cli import build_parser
from lemmata.cli.paper_map import BEGIN, END, markdown
from lemmata.core.errors import Error
from lemmata.core.family import PaperTable
from lemmata.families import families, paper_tables

ROOT = Path(__file__).resolve().parents[2]


def parse_problem(command: str) -> str | None:
    """Why the real ``lemmata`` parser refuses ``command`` (an unknown verb, flag or choice), or None."""
    words = shlex.split(command)
    if words[0] != "lemmata":
        return f"{command!r} does not start with 'lemmata'"
    try:
        build_parser().parse_args(words[1:])
    except SystemExit as exc:
        return f"{command!r} is refused by the CLI parser (exit {exc.code})"
    return None


def test_every_family_with_a_paper_declares_its_map():
    maps = paper_tables()
    assert set(maps) == {"re2math", "mathnet", "mirb", "mathatlas", "taobench"}
    for name, m in maps.items():
        family = families()[name]
        urls = {meta.paper_url for meta in family.load(family.releases)}
        assert m.url in urls, f"{name}: the map's paper {m.url} is none of its releases' papers {urls}"


def test_every_command_of_the_map_parses_with_the_real_cli(capsys):
    problems = [p for m in paper_tables().values() for t in m.table if t.command
                for p in [parse_problem(t.command)] if p]
    assert not problems, problems


def test_the_command_check_fails_on_an_unknown_verb_flag_or_choice(capsys):
    assert parse_problem("lemmata run taobench --model M --out runs/") is None
    assert parse_problem("lemmata run taobench --model M --out runs/ --no-such-flag")
    assert parse_problem("lemmata no-such-verb")
    assert parse_problem("lemmata run re2math --model M --out runs/ --condition nonsense")


def _transcribed_tables() -> set[str]:
    """``'<path>: <table>'`` of every table the families' pinned transcriptions declare (their reported modules)."""
    from lemmata.benchmarks.mathatlas.reported import PAPER as MATHATLAS
    from lemmata.benchmarks.mathnet.reported import PAPER as MATHNET
    from lemmata.benchmarks.mathnet.solve_reported import PAPER as MATHNET_SOLVE
    from lemmata.benchmarks.mirb.reported import PAPER as MIRB
    from lemmata.benchmarks.re2math.reported import PaperRow
    from lemmata.benchmarks.taobench.reported import PAPER as TAOBENCH

    out = set()
    for t in (MATHATLAS, MATHNET, MATHNET_SOLVE, MIRB, TAOBENCH):
        folder = t.package.replace(".", "/") + "/transcriptions/" + t.file
        out |= {f"{folder}: {table.name}" for table in t.tables}
    # Re²Math's tables are the authors' released results file, one key of each model's row a table
    out |= {f"paper_all_tables.json: {name}" for name, field in PaperRow.model_fields.items()
            if str(field.annotation).startswith("dict")}
    return out


def test_every_transcribed_table_is_mapped_and_every_mapped_one_exists():
    mapped = {t.reported for m in paper_tables().values() for t in m.table if t.reported}
    transcribed = _transcribed_tables()
    assert transcribed - mapped == set(), "transcribed tables missing from the map"
    assert mapped - transcribed == set(), "the map names tables no transcription declares"
    for entry in mapped:
        path, table = entry.split(": ")
        if path.startswith("lemmata/"):
            package, file = path.rsplit("/transcriptions/", 1)
            doc = json.loads(resources.files(package.replace("/", ".")).joinpath("transcriptions", file).read_text())
            names = {t["name"] for t in doc.get("tables", [])} | set(doc)
            assert table in names, entry


def test_readme_section_is_the_generated_map():
    text = (ROOT / "README.md").read_text("utf-8")
    assert text.count(BEGIN) == 1 and text.count(END) == 1
    section = text[text.index(BEGIN):text.index(END) + len(END)]
    assert section == markdown(paper_tables()), "README's paper tables differ: paste `lemmata list --paper-tables`"


def test_cli_prints_the_map(capsys):
    from lemmata.cli import main

    assert main(["list", "--paper-tables"]) == 0
    assert capsys.readouterr().out == markdown(paper_tables()) + "\n"


def test_a_row_without_a_command_must_say_why():
    with pytest.raises(ValueError, match="needs a note"):
        PaperTable(label="Table 1", shows="x")
    with pytest.raises(ValueError):
        PaperTable(label="Table 1", shows="x", command="python -m something")


def test_a_wrong_field_names_the_file_and_the_field(monkeypatch):
    import lemmata.core.family as family_module

    monkeypatch.setattr(family_module, "read_toml", lambda package, name: {
        "paper": "P", "url": "https://x", "coverage": "all", "table": [{"label": "T", "shows": "s", "comand": "x"}]})
    with pytest.raises(Error, match=r"lemmata/benchmarks/mirb/paper_tables\.toml: table\.0\.comand"):
        families()["mirb"].load_paper_tables()
