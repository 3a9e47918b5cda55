"""The user-facing submission formats of MathNet-Retrieve, MathNet-Solve, MIRB, MathAtlas and MA-Align stay true.

- every example in ``submissions/`` validates and scores through ``validate_upload`` and its handler against the
  release built from the test fixture, and is exactly what its ``make_example.py`` produces;
- every committed JSON Schema equals a fresh export of the models, and those models accept every example line;
- the ranking-record model and the retrieval handlers agree on which lines are well-formed;
- deliberately broken copies of each example produce, byte for byte, the errors the READMEs show.
"""

from __future__ import annotations

import copy
import doctest
import importlib.util
import json
import re
from functools import lru_cache
from pathlib import Path

import pytest
from pydantic import ValidationError

from lemmata.core.errors import InputError
from lemmata.families import handler_for
from lemmata.scoring import validate_upload
from lemmata.tracks.ranking import RankingRecord
from lemmata.tracks.base import OracleConfig
from lemmata.formats.envelope import DEFAULT_MAX_BYTES

ROOT = Path(__file__).resolve().parents[2]
SUB = ROOT / "submissions"
RECEIVED = "2026-11-22T08:30:00+00:00"

#: example file -> (benchmark, README that documents it)
EXAMPLES = {
    "mathnet/example-mathnet-retrieve-hard.jsonl": ("mathnet-retrieve", "mathnet/README.md"),
    "mathnet/example-mathnet-solve.jsonl": ("mathnet-solve", "mathnet/README.md"),
    "mirb/example-mirb.jsonl": ("mirb", "mirb/README.md"),
    "mathatlas/example-mathatlas-statements.jsonl": ("mathatlas", "mathatlas/README.md"),
    "mathatlas/example-mathatlas-definitions.jsonl": ("mathatlas", "mathatlas/README.md"),
    "mathatlas/example-ma-align.jsonl": ("ma-align", "mathatlas/README.md"),
}


@pytest.fixture(scope="module", autouse=True)
def served_releases():
    """The fixture releases where the handlers look for them ($LEMMATA_HOME/releases)."""
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


#: example script (under ``submissions/``) -> the examples it writes
SCRIPTS = {
    "mathnet/make_example.py": ["mathnet/example-mathnet-retrieve-hard.jsonl"],
    "mathnet/make_example_solve.py": ["mathnet/example-mathnet-solve.jsonl"],
    "mirb/make_example.py": ["mirb/example-mirb.jsonl"],
    "mathatlas/make_example.py": ["mathatlas/example-ma-align.jsonl", "mathatlas/example-mathatlas-definitions.jsonl",
                                  "mathatlas/example-mathatlas-statements.jsonl"],
}


def _script(folder: str, name: str = "make_example.py"):
    spec = importlib.util.spec_from_file_location(f"{Path(name).stem}_{folder}", SUB / folder / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _lines(example: str) -> list[dict]:
    return [json.loads(line) for line in (SUB / example).read_text(encoding="utf-8").splitlines() if line.strip()]


def _dump(objs: list[dict]) -> bytes:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs).encode("utf-8")


# -- examples ------------------------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def scored(example: str):
    """The validated example and its result (scored once per run: MathNet-Solve's answer check takes seconds)."""
    validated = validate_upload((SUB / example).read_bytes(), Path(example).name)
    return validated, handler_for(validated.benchmark).score(validated, received_at=RECEIVED, oracles=OracleConfig())


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_example_validates_and_scores_against_the_fixture_release(example):
    benchmark, _ = EXAMPLES[example]
    validated, result = scored(example)
    assert validated.benchmark == benchmark
    assert result.kind == "scored" and result.benchmark == benchmark
    assert result.frozen.dataset_release == _lines(example)[0]["release"]
    assert result.frozen.date == "2026-11-22"
    assert result.main.value is not None and 0.0 <= result.main.value <= 1.0
    assert result.result_id == result.content_id()


def result_summary(example: str) -> str:
    """The validation summary and the scored result of an example, as its README shows them."""
    validated, r = scored(example)
    interval = f" [{r.main.interval[0]:.4f}, {r.main.interval[1]:.4f}] {r.main.interval_kind}" if r.main.interval else ""
    counted = f" ({r.main.count}/{r.main.total})" if r.main.count is not None else ""
    if r.benchmark == "mathnet-retrieve":
        detail = ", ".join(f"{k} {r.metrics[k]['mean']:.4f}" for k in ("recall@1", "recall@5", "recall@10"))
    elif r.benchmark == "mirb":
        detail = ", ".join(f"{d} {v:.4f}" for d, v in r.metrics["per_dataset"].items())
    elif r.benchmark == "mathnet-solve":
        grade, check = r.metrics["proof_grade"], r.metrics["answer_check"]
        detail = (f"proof grade {grade['count']}/{grade['total']} ({grade['pending']} pending, bounds "
                  f"[{grade['bounds'][0]:.4f}, {grade['bounds'][1]:.4f}]), answer check {check['count']}/"
                  f"{check['total']}")
    elif r.benchmark == "mathatlas":
        rate = r.metrics["compile_rate"]
        detail = (f"compile rate {rate['count']}/{rate['total']} ({rate['pending']} pending), "
                  f"{r.metrics['submitted']} of {r.metrics['entities']} entities submitted")
    else:
        m = r.metrics
        detail = (", ".join(f"{k} {m[k]['value']:.4f}" if m[k]["value"] is not None else f"{k} undefined"
                            for k in ("precision", "recall", "f1")) + f", confusion {m['confusion']}")
    scorer = re.sub(r"(pytrec_eval|math-verify)-[0-9.]+", r"\1-<version>", r.frozen.scoring_artifact)
    return "\n".join([
        f"valid: {validated.summary}",
        f"main score: {r.main.metric} {r.main.value:.4f}{interval}{counted}",
        f"status: {r.status}, pending items: {r.pending}",
        f"frozen: {r.frozen.dataset_release} | {r.frozen.split} | {scorer} | {r.frozen.date}",
        f"measures: {detail}",
    ])


_RESULT = re.compile(r"<!-- result: (\S+) -->\n```text\n(.*?)\n```", re.DOTALL)


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_readme_shows_the_examples_real_score(example):
    readme = (SUB / EXAMPLES[example][1]).read_text(encoding="utf-8")
    shown = dict(_RESULT.findall(readme))
    assert Path(example).name in shown, f"{EXAMPLES[example][1]} has no block <!-- result: {Path(example).name} -->"
    assert shown[Path(example).name] == result_summary(example)


def test_mathnet_bm25_puts_the_easy_rewording_first():
    records = _lines("mathnet/example-mathnet-retrieve-hard.jsonl")[1:]
    assert all(r["ranking"][0]["doc_id"] == f"{r['query_id']}::eq::easy" for r in records)


def test_mirb_example_covers_every_task_and_never_ranks_an_excluded_document():
    from lemmata.benchmarks.mirb.meta import TASK_NAMES
    from lemmata.benchmarks.mirb.track import task_collection

    records = _lines("mirb/example-mirb.jsonl")[1:]
    assert {r["task"] for r in records} == set(TASK_NAMES)
    for r in records:
        excluded = task_collection("mirb-1.0.0", r["task"]).excluded.get(r["query_id"], frozenset())
        assert not excluded & {d["doc_id"] for d in r["ranking"]}


def test_mathatlas_examples_state_no_verdict_and_ma_align_gives_labels():
    statements = _lines("mathatlas/example-mathatlas-statements.jsonl")
    definitions = _lines("mathatlas/example-mathatlas-definitions.jsonl")
    align = _lines("mathatlas/example-ma-align.jsonl")
    # verdicts come from the leaderboard's oracles: an example states none (a stated one would be informational)
    assert "lean_version" not in statements[0] and "judge" not in statements[0]
    assert all(set(rec) == {"entity_id", "formal_statement"} for rec in statements[1:] + definitions[1:])
    assert any(r["formal_statement"] for r in definitions[1:]) and any(r["formal_statement"] is None
                                                                      for r in statements[1:])
    assert {type(r["faithful"]) for r in align[1:]} <= {bool, type(None)}


def test_every_example_has_its_script():
    assert sorted(e for written in SCRIPTS.values() for e in written) == sorted(EXAMPLES)


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_examples_are_exactly_what_their_scripts_write(script, tmp_path):
    from lemmata.core.paths import releases_dir

    folder, name = script.split("/")
    module = _script(folder, name)
    if folder == "mathatlas":
        module.main(["--out-dir", str(tmp_path)])
        written = {p.name: p.read_bytes() for p in tmp_path.glob("*.jsonl")}
    else:
        (out,) = [Path(e).name for e in SCRIPTS[script]]
        # MathNet-Solve's script reads the fixture releases this module built (its own build is the same bytes)
        module.main(["--out", str(tmp_path / out)]
                    + (["--releases", str(releases_dir())] if name == "make_example_solve.py" else []))
        written = {out: (tmp_path / out).read_bytes()}
    assert written == {Path(e).name: (SUB / e).read_bytes() for e in SCRIPTS[script]}


def test_example_script_doctests_pass():
    module = _script("mathatlas")
    outcome = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert outcome.attempted >= 4 and outcome.failed == 0


# -- schemas ---------------------------------------------------------------------------------------------------

#: the Hub-pinned benchmarks (header ``benchmark`` values) and where each one's user documentation lives
HUB_BENCHMARKS = ("mathnet-retrieve", "mathnet-solve", "mirb", "mathatlas", "ma-align")
READMES = {"mathnet-retrieve": "submissions/mathnet/README.md", "mathnet-solve": "submissions/mathnet/README.md",
           "mirb": "submissions/mirb/README.md",
           "mathatlas": "submissions/mathatlas/README.md", "ma-align": "submissions/mathatlas/README.md"}


def _schema_file(benchmark):
    from lemmata.families import handlers

    (one,) = handlers()[benchmark].schema_files()
    return one


def _models(benchmark):
    from lemmata.families import handlers

    cls = handlers()[benchmark]
    if benchmark == "mathnet-solve":  # not a ranking track: its handler validates with these two models
        from lemmata.benchmarks.mathnet.solve_track import Header, SolveRecord

        return Header, SolveRecord
    return cls.header_model, cls.record_model or RankingRecord


@pytest.mark.parametrize("benchmark", HUB_BENCHMARKS)
def test_committed_schema_equals_a_fresh_export(benchmark):
    exported = _schema_file(benchmark)
    path = SUB / "schema" / exported.filename
    assert path.read_text(encoding="utf-8") == exported.text, f"{path} is stale: run `lemmata schemas`"


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_schema_models_accept_every_example_line(example):
    header_model, record_model = _models(EXAMPLES[example][0])
    lines = _lines(example)
    header_model.model_validate(lines[0])
    for rec in lines[1:]:
        record_model.model_validate(rec)


def test_every_readme_links_its_schema_and_example():
    for benchmark in HUB_BENCHMARKS:
        readme = (ROOT / READMES[benchmark]).read_text(encoding="utf-8")
        assert f"schema/{_schema_file(benchmark).filename}" in readme
        for example, (b, _) in EXAMPLES.items():
            if b == benchmark:
                assert Path(example).name in readme


_GOOD = {"query_id": "rus_2019_d99efd", "ranking": [{"doc_id": "rus_2019_d99efd::eq::hard", "score": 1.5}]}
_FORMAT_VARIANTS = [
    _GOOD,
    {"query_id": "rus_2019_d99efd", "ranking": []},
    {"query_id": "rus_2019_d99efd", "ranking": [{"doc_id": "rus_2019_d99efd::eq::hard", "score": 2}]},
    {"query_id": "rus_2019_d99efd", "ranking": [{"doc_id": "rus_2019_d99efd::eq::hard", "score": "2"}]},
    {"query_id": "rus_2019_d99efd", "ranking": [{"doc_id": "rus_2019_d99efd::eq::hard", "score": True}]},
    {"query_id": "rus_2019_d99efd", "ranking": [{"doc_id": "rus_2019_d99efd::eq::hard", "score": float("nan")}]},
    {"query_id": "rus_2019_d99efd", "ranking": [{"doc_id": "rus_2019_d99efd::eq::hard", "score": 1, "rank": 1}]},
    {"query_id": "rus_2019_d99efd", "ranking": [{"doc_id": "", "score": 1}]},
    {"query_id": "rus_2019_d99efd", "ranking": [{"score": 1}]},
    {"query_id": "rus_2019_d99efd", "ranking": ["rus_2019_d99efd::eq::hard"]},
    {"query_id": "rus_2019_d99efd", "ranking": {"rus_2019_d99efd::eq::hard": 1.0}},
    {"query_id": "", "ranking": []},
    {"query_id": None, "ranking": []},
    {"ranking": []},
    {"query_id": "rus_2019_d99efd"},
    {"query_id": "rus_2019_d99efd", "ranking": [], "model": "x"},
    {"query_id": "rus_2019_d99efd", "ranking": [{"doc_id": "rus_2019_d99efd::eq::hard", "score": 1.0}] * 1001},
]


@pytest.mark.parametrize("record", _FORMAT_VARIANTS, ids=range(len(_FORMAT_VARIANTS)))
def test_ranking_model_and_retrieval_handler_agree_on_well_formed_lines(record):
    """The schema's RankingRecord accepts a line exactly when the handler finds no problem in it.

    Every id used is known to the fixture release, so only the line's form decides (the over-long ranking
    repeats one id, but its length is checked first).
    """
    header = {"format": "lemmata-submission/1", "benchmark": "mathnet-retrieve",
              "release": "mathnet-retrieve-1.0.0", "track": "hard", "model": {"name": "m"}}
    try:
        RankingRecord.model_validate(record)
        model_ok = True
    except ValidationError:
        model_ok = False
    try:
        validate_upload(_dump([header, record]), "r.jsonl")
        handler_ok = True
    except InputError as err:
        assert all(p.line == 2 for p in err.problems)
        handler_ok = False
    assert model_ok == handler_ok


# -- broken copies and the documented errors -----------------------------------------------------------------

def mathnet_records(lines: list[dict]) -> bytes:
    """Record mistakes, one or two per line."""
    h, r = lines[0], copy.deepcopy(lines[1:])
    r[0]["ranking"][0]["rank"] = 1                                       # line 2: a field the format has not
    r[1]["query_id"] = "usa_2008_0b41c3"                                 # line 3: mistyped query id
    r[2]["ranking"][1]["doc_id"] = "chn_2015_77aa10::eq::expert"         # line 4: a document not in the corpus
    r[2]["ranking"][2]["score"] = str(r[2]["ranking"][2]["score"])       # line 4: score as a string
    r[3]["query_id"] = r[0]["query_id"]                                  # line 5: a second ranking for a query
    r[4]["ranking"][1]["doc_id"] = r[4]["ranking"][0]["doc_id"]          # line 6: one document listed twice
    return _dump([h, *r])


def envelope_nan(lines: list[dict]) -> bytes:
    r = copy.deepcopy(lines)
    r[5]["ranking"][2]["score"] = float("nan")                           # line 6: NaN (json writes a bare NaN)
    return _dump(r)


def mathnet_header(lines: list[dict]) -> bytes:
    h = {**lines[0], "track": "Hard", "release": "mathnet-retrieve-1.0", "model": "bm25"}
    return _dump([h, *lines[1:]])


def envelope_json(lines: list[dict]) -> bytes:
    text = _dump(lines).decode("utf-8").splitlines(keepends=True)
    text[2] = text[2].rstrip("\n") + ",\n"                               # line 3: trailing comma
    return "".join(text).encode("utf-8")


def envelope_format(lines: list[dict]) -> bytes:
    h = {k: v for k, v in lines[0].items() if k != "format"}
    return _dump([h, *lines[1:]])


def mirb_records(lines: list[dict]) -> bytes:
    h, r = lines[0], copy.deepcopy(lines[1:])
    r[0]["task"] = "mathlib"                                             # line 2: not a task name
    r[3]["ranking"].append({"doc_id": "msedup-d5", "score": 0.01})       # line 5: excluded for msedup-q0
    r[6]["query_id"] = "msedup-q0"                                       # line 8: a query of another task
    del r[9]["task"]                                                     # line 11: no task
    r = [x for x in r if x.get("task") != "holps"]                       # no ranking at all for one task
    return _dump([h, *r])


def mirb_header(lines: list[dict]) -> bytes:
    h = {k: v for k, v in lines[0].items() if k != "model"} | {"track": "zero_shot"}
    return _dump([h, *lines[1:]])


def atlas_records(lines: list[dict]) -> bytes:
    """Mistakes in a definitions-track file (lines 2-5 are the example's four definitions)."""
    h, r = lines[0], copy.deepcopy(lines[1:])
    statement = next(x["formal_statement"] for x in r if x["formal_statement"])
    theorem, unknown = "a1f0c3d2-0003-4e6a-9b1c-000000000003", "a1f0c3d2-0099-4e6a-9b1c-000000000099"
    r[0].update(formal_statement="   ")                                  # line 2: blank statement
    r[1].update(compiles="true")                                         # line 3: a stated verdict, not one
    r[2].update(compiles="no")                                           # line 4: a stated verdict (informational)
    r.append({"entity_id": theorem, "formal_statement": statement})      # line 6: a theorem, not a definition
    r.append({**lines[1]})                                               # line 7: line 2's entity again
    r.append({**lines[2], "entity_id": unknown})                         # line 8: no such entity
    r.append({"entity_id": lines[1]["entity_id"], "statement": statement})  # line 9: 'statement' for 'formal_statement'
    return _dump([h, *r])


def atlas_header(lines: list[dict]) -> bytes:
    h = lines[0] | {"judge": "", "track": "theorems", "context": "few-shot"}
    return _dump([h, *lines[1:]])


def align_records(lines: list[dict]) -> bytes:
    h, r = lines[0], copy.deepcopy(lines[1:])
    r[0]["faithful"] = "yes"                                             # line 2: a string, not true/false
    r[1]["pair_id"] = 2                                                  # line 3: a number, not the id string
    r[2]["confidence"] = 0.8                                             # line 4: a field the format has not
    r[3]["pair_id"] = r[3]["pair_id"][:-1]                              # line 5: mistyped id
    r[4]["pair_id"] = r[5]["pair_id"]                                    # lines 6 and 7: the same pair twice
    return _dump([h, *r])


def align_header(lines: list[dict]) -> bytes:
    h = {**lines[0], "release": "ma-align-3.0.0"}
    return _dump([h, *lines[1:]])


#: README marker -> (README, example, how to break it)
BROKEN = {
    "mathnet-records": ("mathnet/README.md", "mathnet/example-mathnet-retrieve-hard.jsonl", mathnet_records),
    "mathnet-header": ("mathnet/README.md", "mathnet/example-mathnet-retrieve-hard.jsonl", mathnet_header),
    "mathnet-json": ("mathnet/README.md", "mathnet/example-mathnet-retrieve-hard.jsonl", envelope_json),
    "mathnet-nan": ("mathnet/README.md", "mathnet/example-mathnet-retrieve-hard.jsonl", envelope_nan),
    "mathnet-format": ("mathnet/README.md", "mathnet/example-mathnet-retrieve-hard.jsonl", envelope_format),
    "mirb-records": ("mirb/README.md", "mirb/example-mirb.jsonl", mirb_records),
    "mirb-header": ("mirb/README.md", "mirb/example-mirb.jsonl", mirb_header),
    "mirb-json": ("mirb/README.md", "mirb/example-mirb.jsonl", envelope_json),
    "mathatlas-records": ("mathatlas/README.md", "mathatlas/example-mathatlas-definitions.jsonl", atlas_records),
    "mathatlas-header": ("mathatlas/README.md", "mathatlas/example-mathatlas-definitions.jsonl", atlas_header),
    "mathatlas-json": ("mathatlas/README.md", "mathatlas/example-mathatlas-definitions.jsonl", envelope_json),
    "ma-align-records": ("mathatlas/README.md", "mathatlas/example-ma-align.jsonl", align_records),
    "ma-align-header": ("mathatlas/README.md", "mathatlas/example-ma-align.jsonl", align_header),
}
_BLOCK = re.compile(r"<!-- errors: (\S+) -->\n```text\n(.*?)\n```", re.DOTALL)


def documented_errors(readme: str) -> dict[str, str]:
    """Marker -> the error text a README shows under ``<!-- errors: marker -->``."""
    return dict(_BLOCK.findall((SUB / readme).read_text(encoding="utf-8")))


def broken_output(marker: str) -> str:
    """What validating the broken copy prints (the space lists the same problems row by row)."""
    _, example, breaker = BROKEN[marker]
    with pytest.raises(InputError) as err:
        validate_upload(breaker(_lines(example)), "broken.jsonl")
    return str(err.value)


@pytest.mark.parametrize("marker", sorted(BROKEN))
def test_broken_copy_gives_exactly_the_documented_errors(marker):
    readme = BROKEN[marker][0]
    documented = documented_errors(readme)
    assert marker in documented, f"{readme} has no block <!-- errors: {marker} -->"
    assert broken_output(marker) == documented[marker]


def test_readmes_document_no_error_block_that_is_not_checked():
    for readme in {r for r, _, _ in BROKEN.values()}:
        assert set(documented_errors(readme)) <= set(BROKEN)


@pytest.mark.parametrize("marker", ["mathnet-records", "mirb-records", "mathatlas-records", "ma-align-records"])
def test_record_errors_name_line_and_field(marker):
    _, example, breaker = BROKEN[marker]
    with pytest.raises(InputError) as err:
        validate_upload(breaker(_lines(example)), "broken.jsonl")
    lined = [p for p in err.value.problems if p.line is not None]
    assert len(lined) >= 4 and all(p.field for p in lined) and all(p.file == "broken.jsonl" for p in lined)


@pytest.mark.parametrize("example, wrong, quoted", [
    ("mathnet/example-mathnet-retrieve-hard.jsonl", "mathnet-retreive",
     "unknown benchmark 'mathnet-retreive'; did you mean 'mathnet-retrieve'"),
    ("mirb/example-mirb.jsonl", "MIRB", "unknown benchmark 'MIRB' (known: "),
    ("mathatlas/example-ma-align.jsonl", "ma_align", "unknown benchmark 'ma_align'; did you mean 'ma-align'?"),
])
def test_misspelt_benchmark_gets_the_documented_reason(example, wrong, quoted):
    lines = _lines(example)
    with pytest.raises(InputError) as err:
        validate_upload(_dump([{**lines[0], "benchmark": wrong}, *lines[1:]]), "broken.jsonl")
    (problem,) = err.value.problems
    assert (problem.line, problem.field) == (1, "benchmark")
    assert problem.reason.startswith(quoted) and "known: " in problem.reason
    assert quoted in (SUB / EXAMPLES[example][1]).read_text(encoding="utf-8").replace("\n", " ")


def test_size_limit_is_the_documented_one(monkeypatch):
    monkeypatch.delenv("LEMMATA_MAX_SUBMISSION_BYTES", raising=False)
    data = (SUB / "mathnet/example-mathnet-retrieve-hard.jsonl").read_bytes()
    data += b"\n" * (DEFAULT_MAX_BYTES + 1 - len(data))
    with pytest.raises(InputError) as err:
        validate_upload(data, "big.jsonl")
    assert str(err.value) == "1 problem found:\n  - big.jsonl: file is 33,554,433 bytes; the limit is 33,554,432 bytes"
    for readme in ("mathnet/README.md", "mirb/README.md", "mathatlas/README.md"):
        assert "file is 33,554,433 bytes; the limit is 33,554,432 bytes" in (SUB / readme).read_text(encoding="utf-8")
