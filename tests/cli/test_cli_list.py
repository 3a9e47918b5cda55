"""``lemmata list`` says which releases are built, and where."""

from __future__ import annotations

import json

from lemmata.cli import main


def test_list_marks_built_releases_and_names_the_folder(tmp_path, monkeypatch, capsys):
    from lemmata.families import list_benchmarks

    monkeypatch.setenv("LEMMATA_RELEASES", str(tmp_path))
    ids = [m.release_id for m in list_benchmarks()]
    (tmp_path / ids[0]).mkdir()
    (tmp_path / ids[0] / "MANIFEST.json").write_text("{}")
    (tmp_path / ids[1]).mkdir()  # a folder without a manifest (an interrupted copy) is not a built release

    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: line for line in lines[:-1]}
    assert sorted(rows) == sorted(ids)
    assert rows[ids[0]].split()[1] == "built"
    assert all(rows[i].split()[1:3] == ["not", "built"] for i in ids[1:])
    assert lines[-1].startswith(f"releases folder: {tmp_path} (1 of {len(ids)} built")

    assert main(["list", "--json"]) == 0
    records = {r["release_id"]: r for r in json.loads(capsys.readouterr().out)}
    assert records[ids[0]]["built"] is True and records[ids[0]]["path"] == str(tmp_path / ids[0])
    assert [r["built"] for r in records.values()].count(True) == 1
    assert records[ids[1]]["path"] == str(tmp_path / ids[1])
