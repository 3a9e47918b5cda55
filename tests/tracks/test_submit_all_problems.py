"""Every problem of an upload comes in one pass: line, header, record and cross-record problems together.

The issue's example, per benchmark: a file whose line 3 is broken JSON, whose header misses a required
field (``model``) and one of whose records names an unknown id reports all three, with line and field.
Where a check truly cannot run (the header's release is invalid), the error says which checks were
skipped and why instead of pretending the records are fine.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lemmata.core.errors import InputError, Problem
from lemmata.core.hashing import sha256_bytes
from lemmata.formats.envelope import parse_envelope
from lemmata.scoring import validate_upload

ROOT = Path(__file__).resolve().parents[2]
SUB = ROOT / "submissions"
BROKEN_JSON = b'{"query_id": "q", "ranking": [ \n'


@pytest.fixture(scope="module", autouse=True)
def served_releases():
    from lemmata.benchmarks.mathatlas.builder import MaAlignBuilder, MathAtlasBuilder
    from lemmata.benchmarks.mathnet.builder import MathNetRetrieveBuilder
    from lemmata.benchmarks.mathnet.solve_builder import MathNetSolveBuilder
    from lemmata.benchmarks.mirb.builder import MirbBuilder
    from lemmata.core.paths import releases_dir

    hub = ROOT / "tests" / "fixtures" / "hub"
    for cls, src, rid in ((MathNetRetrieveBuilder, hub / "MathNet-Retrieve", "mathnet-retrieve-1.0.0"),
                          (MathNetSolveBuilder, hub / "MathNet", "mathnet-solve-1.1.0"),
                          (MirbBuilder, hub / "mirb", "mirb-1.0.0"),
                          (MathAtlasBuilder, hub / "MathAtlas", "mathatlas-2.0.0"),
                          (MaAlignBuilder, hub / "MathAtlas", "ma-align-2.0.0")):
        if not (releases_dir() / rid).is_dir():
            cls(source_dir=src).build(releases_dir(), quiet=True)


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def issue_example(objs: list[dict], id_field: str, unknown: str) -> tuple[bytes, int]:
    """The issue's file: header without ``model``, line 3 broken JSON, an unknown id on the last line."""
    header = {k: v for k, v in objs[0].items() if k != "model"}
    records = [dict(r) for r in objs[1:]]
    records[-1][id_field] = unknown
    lines = [json.dumps(o, ensure_ascii=False).encode("utf-8") + b"\n" for o in [header, *records]]
    lines[2] = BROKEN_JSON  # line 3
    return b"".join(lines), len(lines)


def where(err: InputError) -> dict[tuple[int | None, str | None], str]:
    return {(p.line, p.field): p.reason for p in err.problems}


def assert_issue_problems(err: InputError, last: int, id_field: str, unknown: str) -> None:
    found = where(err)
    assert "malformed JSON" in found[3, None]
    assert found[1, "header.model"] == "required field is missing"
    assert unknown in found[last, id_field]
    assert not err.skipped  # release, split and track are valid: every record check ran


@pytest.mark.parametrize("example, id_field", [
    ("mathnet/example-mathnet-retrieve-hard.jsonl", "query_id"),
    ("mirb/example-mirb.jsonl", "query_id"),
    ("mathatlas/example-mathatlas-definitions.jsonl", "entity_id"),
    ("mathatlas/example-ma-align.jsonl", "pair_id"),
])
def test_issue_example_reports_json_header_and_unknown_id_together(example, id_field):
    data, last = issue_example(_lines(SUB / example), id_field, "no-such-id-xyz")
    with pytest.raises(InputError) as err:
        validate_upload(data, "sub.jsonl")
    assert_issue_problems(err.value, last, id_field, "no-such-id-xyz")


def test_invalid_release_says_which_checks_were_skipped_and_still_checks_record_shape():
    objs = _lines(SUB / "mathnet/example-mathnet-retrieve-hard.jsonl")
    objs[0] = {**objs[0], "release": "mathnet-retrieve-9.9.9"}
    objs[1] = {**objs[1], "extra": 1}
    objs[2] = {**objs[2], "query_id": "no-such-query"}
    data = "".join(json.dumps(o) + "\n" for o in objs).encode()
    with pytest.raises(InputError) as err:
        validate_upload(data, "sub.jsonl")
    found = where(err.value)
    assert "is not served" in found[1, "header.release"]
    assert found[2, "extra"] == "unknown field"  # the record's shape is still checked
    assert not any("no-such-query" in r for r in found.values())  # ids cannot be checked against no release
    (note,) = err.value.skipped
    assert note.field == "checks" and "header.release" in note.reason and "were not checked" in note.reason


def test_unreadable_header_line_reports_every_line_and_says_nothing_else_was_checked():
    data = b'{"format": "lemmata-submission/1",\n{"query_id": "q", "ranking": []}\n[1]\n'
    with pytest.raises(InputError) as err:
        validate_upload(data, "sub.jsonl")
    assert [p.line for p in err.value.problems] == [1, 3]
    assert "line 1 (the header)" in err.value.skipped[0].reason


def test_wrong_format_with_a_named_benchmark_is_one_problem_among_all():
    """A wrong ``format`` value does not hide the file's other problems when the header names its benchmark."""
    objs = _lines(SUB / "mathnet/example-mathnet-retrieve-hard.jsonl")
    data, last = issue_example([{**objs[0], "format": "lemmata-submission/2"}, *objs[1:]], "query_id",
                               "no-such-id-xyz")
    with pytest.raises(InputError) as err:
        validate_upload(data, "sub.jsonl")
    found = where(err.value)
    assert "lemmata-submission/1" in found[1, "format"]
    assert_issue_problems(err.value, last, "query_id", "no-such-id-xyz")


def test_wrong_format_without_a_benchmark_still_says_the_records_were_skipped():
    data = b'{"format": "jsonl"}\n{"query_id": "q"}\n'
    with pytest.raises(InputError) as err:
        validate_upload(data, "sub.jsonl")
    assert [(p.line, p.field) for p in err.value.problems] == [(1, "format")]
    assert "benchmark is unknown" in err.value.skipped[0].reason


def test_unknown_benchmark_keeps_the_line_problems_and_skips_the_records():
    data = (json.dumps({"format": "lemmata-submission/1", "benchmark": "mathnet-retreive"}) + "\n{bad\n").encode()
    with pytest.raises(InputError) as err:
        validate_upload(data, "sub.jsonl")
    assert [(p.line, p.field) for p in err.value.problems] == [(1, "benchmark"), (2, None)]
    assert "no known benchmark" in err.value.skipped[0].reason


def test_skipped_notes_are_not_counted_as_problems():
    err = InputError([Problem("f", "bad", 1, "header.release"), Problem("f", "records were not checked: x",
                                                                         field="checks")])
    assert [p.field for p in err.problems] == ["header.release"] and len(err.skipped) == 1
    assert str(err).startswith("1 problem found")


def test_parse_envelope_stays_strict_unless_asked_to_keep_going():
    data = b'{"format": "lemmata-submission/1", "benchmark": "x"}\n{"a": 1}\n{oops\n'
    with pytest.raises(InputError):
        parse_envelope(data, "f.jsonl")
    env = parse_envelope(data, "f.jsonl", keep_going=True)
    assert [line for line, _ in env.records] == [2] and [p.line for p in env.problems] == [3]


def test_a_handler_that_drops_the_envelope_problems_cannot_accept_the_file(monkeypatch):
    """The registry reports the envelope's line problems even if a handler accepted the readable lines."""
    from lemmata.benchmarks.mathnet.track import MathNetHandler

    objs = _lines(SUB / "mathnet/example-mathnet-retrieve-hard.jsonl")
    data = b"".join(json.dumps(o).encode() + b"\n" for o in objs) + b"{oops\n"
    real = MathNetHandler.validate

    def forgetful(self, envelope, sha256):
        from dataclasses import replace

        return real(self, replace(envelope, problems=()), sha256)

    monkeypatch.setattr(MathNetHandler, "validate", forgetful)
    with pytest.raises(InputError) as err:
        validate_upload(data, "sub.jsonl")
    assert [p.line for p in err.value.problems] == [len(objs) + 1]


# -- Re²Math and TaoBench (their fixtures build a release and an artifact) --------------------------------------

@pytest.fixture(scope="module")
def re2math_handler(session_re2math_handler):
    return session_re2math_handler


def test_re2math_issue_example(re2math_handler):
    objs = _lines(SUB / "re2math/example-re2math-bm25-raw-m5.jsonl")
    data, last = issue_example(objs, "instance_id", "re2math-no-such-instance")
    with pytest.raises(InputError) as err:
        re2math_handler.validate(parse_envelope(data, "sub.jsonl", keep_going=True), sha256_bytes(data))
    assert_issue_problems(err.value, last, "instance_id", "re2math-no-such-instance")


def test_re2math_unknown_artifact_still_checks_instance_ids_and_skips_the_replay(re2math_handler):
    objs = _lines(SUB / "re2math/example-re2math-bm25-raw-m5.jsonl")
    objs[0] = {**objs[0], "retrieval_artifact": "no-such-artifact"}
    objs[1] = {**objs[1], "instance_id": "re2math-no-such-instance"}
    data = "".join(json.dumps(o) + "\n" for o in objs).encode()
    with pytest.raises(InputError) as err:
        re2math_handler.validate(parse_envelope(data, "sub.jsonl", keep_going=True), sha256_bytes(data))
    found = where(err.value)
    assert (1, "header.retrieval_artifact") in found
    assert "re2math-no-such-instance" in found[2, "instance_id"]
    assert any("trajectories" in n.reason for n in err.value.skipped)


@pytest.fixture(scope="module")
def taobench(tmp_path_factory):
    from lemmata.benchmarks.taobench.release import open_taobench
    from lemmata.benchmarks.taobench.track import TaoBenchProofsHandler

    root = tmp_path_factory.mktemp("tb-releases")
    release = open_taobench("taobench-150-1.1.0", root)
    return release, TaoBenchProofsHandler(root)


def test_taobench_issue_example(taobench):
    release, handler = taobench
    fqns = sorted(release.fqns())[:3]
    header = {"format": "lemmata-submission/1", "benchmark": "taobench", "track": "proofs",
              "release": "taobench-150-1.1.0", "formulations": ["tao"], "model": {"name": "m"}, "n": 1,
              "sampling": {"temperature": 0.0},
              "flags": {"used_lean_feedback": False, "trained_on_taobench": False, "used_external_tools": False,
                        "filtered_attempts": False}}
    objs = [header, *({"fqn": f, "formulation": "tao", "attempts": ["theorem x : True := trivial"]} for f in fqns)]
    data, last = issue_example(objs, "fqn", "Chapter9.No.such_exercise")
    with pytest.raises(InputError) as err:
        handler.validate(parse_envelope(data, "sub.jsonl", keep_going=True), sha256_bytes(data))
    assert_issue_problems(err.value, last, "fqn", "Chapter9.No.such_exercise")


def test_taobench_proofs_file_upload_is_one_helpful_problem():
    data = (SUB / "taobench/example_proofs.json").read_bytes()
    with pytest.raises(InputError) as err:
        validate_upload(data, "example_proofs.json")
    (problem,) = err.value.problems
    assert "lemmata taobench example --proofs example_proofs.json" in problem.reason


def test_other_single_json_documents_get_one_problem_not_one_per_line():
    data = json.dumps({"format": "lemmata-submission/1", "benchmark": "mirb"}, indent=2).encode()
    with pytest.raises(InputError) as err:
        validate_upload(data, "sub.json")
    (problem,) = err.value.problems
    assert "one JSON document over" in problem.reason and "not JSONL" in problem.reason


# -- learning to submit in the page ------------------------------------------------------------------------------

@pytest.mark.parametrize("benchmark", __import__("lemmata.families", fromlist=["x"]).known_benchmarks())
def test_header_template_is_accepted_by_every_benchmark(benchmark, request):
    """The template, with one record line, draws no header problem from the benchmark's own handler."""
    from lemmata.space.templates import header_template

    if benchmark == "re2math":  # the handler opens the current world: the run's built one, linked (no new build)
        request.getfixturevalue("worlds_in_home")

    header = header_template(benchmark)
    data = (json.dumps(header) + "\n" + json.dumps({"x": 1}) + "\n").encode()
    try:
        validate_upload(data, "t.jsonl")
    except InputError as err:
        assert not [p for p in err.problems if p.line == 1], err
        assert not err.skipped
    else:  # pragma: no cover - a record {"x": 1} is never valid
        raise AssertionError("a nonsense record was accepted")


def test_header_templates_name_current_artifacts_only():
    """No template offers a superseded artifact: a header field that names one (Re²Math source retrieval's world)
    is filled with the current version, from the schema's own example."""
    from lemmata.families import artifact_families, artifact_versions, known_benchmarks
    from lemmata.space.templates import header_template

    superseded = {v.artifact_id for f in artifact_families() for v in artifact_versions(f).versions if v.superseded_by}
    for benchmark in known_benchmarks():
        if benchmark == "re2math":
            continue  # its template names no artifact (the release names the world it scores against)
        values = json.dumps(header_template(benchmark))
        assert not [s for s in superseded if s in values], benchmark
    assert header_template("re2math-source-retrieval")["corpus"] == artifact_versions("re2math").current_id


def test_guide_links_schema_example_and_command():
    from lemmata.space.templates import guide_markdown

    md = guide_markdown("mathnet-retrieve", "https://example.org/repo")
    assert "https://example.org/repo/blob/main/submissions/schema/mathnet-retrieve-submission.schema.json" in md
    assert "https://example.org/repo/blob/main/submissions/mathnet/example-mathnet-retrieve-hard.jsonl" in md
    assert "lemmata score FILE" in md
    assert "lemmata taobench example" in guide_markdown("taobench", "https://example.org/repo")


def test_repo_url_is_read_from_the_environment(tmp_path):
    from lemmata.space.config import DEFAULT_REPO_URL, SpaceConfig

    base = {"LEMMATA_HOME": str(tmp_path)}
    assert SpaceConfig.from_env(base).repo_url is None  # a checkout: its own files are linked
    assert SpaceConfig.from_env({**base, "SPACE_ID": "o/s"}).repo_url == DEFAULT_REPO_URL
    assert SpaceConfig.from_env({**base, "LEMMATA_REPO_URL": "https://github.com/o/r/"}).repo_url == \
        "https://github.com/o/r"
    with pytest.raises(InputError) as err:
        SpaceConfig.from_env({**base, "LEMMATA_REPO_URL": "javascript:alert(1)"})
    assert err.value.problems[0].field == "LEMMATA_REPO_URL"


def test_panel_shows_skipped_checks_apart_from_the_counted_problems():
    from lemmata.space.submit import SubmitOutcome, render_outcome

    html = render_outcome(SubmitOutcome("invalid", "Nothing was stored.", [Problem("f", "bad <x>", 1, "header.release")],
                                        skipped=[Problem("f", "the records were not checked: why", field="checks")]))
    assert "1 problem found." in html and "Not checked yet" in html and "bad &lt;x&gt;" in html
