"""Generated hostile mutations of every shipped example submission: only the problem list, never a traceback.

Each mutation is invalid by construction (a NaN or infinity where a value was,
a boolean where an integer was, a lone surrogate in a string, an integer past
the digit limit, nesting past the depth limit, a byte that is not UTF-8, a
truncated line, a key repeated in an object), applied to a file that validates (or, for benchmarks whose
data is not available offline, reaches the data). Every mutation goes through
the CLI's :func:`lemmata.scoring.validate_upload` and the space's
:func:`lemmata.space.submit.submit_upload`; the only acceptable outcomes are an
``InputError`` naming the mutated line (``invalid`` in the space) or a
``LemmataError`` (data unavailable), never a traceback and never acceptance.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from lemmata.core.errors import InputError, LemmataError
from lemmata.scoring import validate_upload
from lemmata.space.config import SpaceConfig
from lemmata.space.submit import SubmissionForm, render_outcome, submit_upload
from lemmata.store import Store

ROOT = Path(__file__).resolve().parents[2]
SEED = 20261122
#: a seeded sample in the suite (every class on every base); ``perf/fuzz_speed.py`` runs the long count
PER_BASE = 60
PER_LARGE_BASE = 20  # the Re²Math example replays every query: fewer mutations, same classes
#: records kept of a large base in the suite (mutations are line-local; the long run keeps every line)
LARGE_BASE_RECORDS = 12
MARK = "__lemmata_mutation__"
CLASSES = ("nan", "infinity", "huge_float", "bool_for_int", "surrogate", "huge_int", "deep", "bad_utf8", "truncated",
           "duplicate_key")
#: values a boolean may legitimately replace (declared free-form settings)
FREE_FORM = ("sampling.other",)


def _taobench_example() -> bytes:
    from lemmata.benchmarks.taobench.example import ExampleProofs, build_example

    proofs = ExampleProofs.model_validate_json((ROOT / "submissions/taobench/example_proofs.json").read_text("utf-8"))
    return ("\n".join(json.dumps(row, ensure_ascii=False) for row in build_example(proofs)) + "\n").encode("utf-8")


def _bases() -> dict[str, bytes]:
    out = {str(p.relative_to(ROOT)): p.read_bytes() for p in sorted(ROOT.glob("submissions/*/*.jsonl"))}
    out["submissions/taobench/example_proofs.json (spliced)"] = _taobench_example()
    return out


def _leaves(obj, path=""):
    """``(path, value)`` of every scalar leaf (strings, numbers, booleans, null)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, f"{path}.{k}" if path else k)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _leaves(v, f"{path}.{i}")
    else:
        yield path, obj


def _int_leaves(obj) -> list:
    return [(p, v) for p, v in _leaves(obj) if type(v) is int and not p.startswith(FREE_FORM)]


def _str_leaves(obj) -> list:
    return [(p, v) for p, v in _leaves(obj) if isinstance(v, str)]


def _set(obj, path: str, value):
    parts = path.split(".")
    for part in parts[:-1]:
        obj = obj[int(part)] if isinstance(obj, list) else obj[part]
    last = parts[-1]
    if isinstance(obj, list):
        obj[int(last)] = value
    else:
        obj[last] = value


def _with_raw(obj, path: str, raw: str) -> str:
    """The line with the value at ``path`` replaced by raw JSON text (which json.dumps cannot write)."""
    copy = json.loads(json.dumps(obj))
    _set(copy, path, MARK)
    return json.dumps(copy, ensure_ascii=False).replace(json.dumps(MARK), raw, 1)


def _mutate(lines: list[bytes], kind: str, rng: random.Random) -> tuple[bytes, int] | None:
    """One mutated file and the 1-based number of the mutated line, or None when the kind does not apply."""
    idx = rng.randrange(len(lines))
    raw = lines[idx]
    if kind == "truncated":
        body = raw.rstrip()
        return b"\n".join(lines[:idx] + [body[:rng.randrange(1, len(body))]] + lines[idx + 1:]), idx + 1
    if kind == "bad_utf8":
        at = rng.randrange(len(raw) + 1)
        return b"\n".join(lines[:idx] + [raw[:at] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80"]) + raw[at:]]
                          + lines[idx + 1:]), idx + 1
    if kind in ("bool_for_int", "surrogate"):  # a line that has a leaf of the kind's type (ints: often the header)
        wanted = _int_leaves if kind == "bool_for_int" else _str_leaves
        fitting = [i for i, line in enumerate(lines) if wanted(json.loads(line))]
        if not fitting:
            return None
        idx = rng.choice(fitting)
        raw = lines[idx]
    obj = json.loads(raw)
    if kind == "duplicate_key":  # the first key again with another value: the last would win in json.loads
        key = next(iter(obj))
        twin = json.dumps(obj, ensure_ascii=False)[:-1] + f", {json.dumps(key)}: {json.dumps([obj[key]])}}}"
        return b"\n".join(lines[:idx] + [twin.encode("utf-8")] + lines[idx + 1:]), idx + 1
    leaves = _int_leaves(obj) if kind == "bool_for_int" else _str_leaves(obj) if kind == "surrogate" \
        else list(_leaves(obj))
    if not leaves:
        return None
    path, value = rng.choice(leaves)
    token = {
        "nan": lambda: "NaN",
        "infinity": lambda: rng.choice(["Infinity", "-Infinity"]),
        "huge_float": lambda: rng.choice(["1e999", "-2.5e400"]),
        "bool_for_int": lambda: rng.choice(["true", "false"]),
        "surrogate": lambda: json.dumps(value)[:-1] + rng.choice(["\\ud800", "\\udfff", "\\udc80x"]) + '"',
        "huge_int": lambda: "9" * rng.choice([100, 4301, 5000]),
        "deep": lambda: "[" * 40 + "1" + "]" * 40,
    }[kind]()
    mutated = _with_raw(obj, path, token).encode("utf-8")
    return b"\n".join(lines[:idx] + [mutated] + lines[idx + 1:]), idx + 1


def _outcome(data: bytes, name: str) -> tuple[str, list]:
    try:
        validate_upload(data, name)
    except InputError as exc:
        return "invalid", list(exc.problems)
    except LemmataError:
        return "unavailable", []
    return "accepted", []


@pytest.fixture(scope="module")
def space(tmp_path_factory):
    root = tmp_path_factory.mktemp("space")
    cfg = SpaceConfig.from_env({"LEMMATA_HOME": str(root)})
    return Store(cfg.store_root), cfg


def test_generated_mutations_give_problem_lists_never_tracebacks_or_acceptance(space, re2math_uploads):
    run_mutations(space, PER_BASE, PER_LARGE_BASE, large_records=LARGE_BASE_RECORDS)


def run_mutations(space, per_base: int, per_large_base: int, seed: int = SEED,
                  large_records: int | None = None) -> Counter[str]:
    """Mutate every base ``per_base`` times (``per_large_base`` for large ones, cut to ``large_records``
    records when given) and check every outcome."""
    store, cfg = space
    rng = random.Random(seed)
    seen: Counter[str] = Counter()
    bases = _bases()
    for name, data in bases.items():
        large = len(data) > 100_000
        if large and large_records is not None:  # its header and first records
            data = b"".join(data.splitlines(keepends=True)[:1 + large_records])  # (the line checks below
            # still need a problem naming the mutated line; the cut's own problem names none)
        base_kind, base_problems = _outcome(data, name)
        if large and large_records is not None:  # cut: a trajectory track's only problem is the instances left
            # out; a ranking track scores a query without a record as 0 and accepts the cut file
            assert base_kind == "accepted" or (base_kind == "invalid" and all(
                p.line is None and "have no record" in p.reason for p in base_problems)), (name, base_problems)
        else:
            assert base_kind in ("accepted", "unavailable"), f"{name} does not validate unmutated"
        lines = data.rstrip(b"\n").split(b"\n")
        count = per_large_base if large else per_base
        for i in range(count):
            kind = CLASSES[i % len(CLASSES)]
            made = _mutate(lines, kind, rng)
            if made is None:
                continue
            mutated, line = made
            got, problems = _outcome(mutated, "fuzz.jsonl")
            where = f"{name}: {kind} on line {line}"
            assert got != "accepted", f"invalid file accepted ({where})"
            if got == "invalid":
                assert problems and all(p.file in ("fuzz.jsonl", "header") for p in problems), where
                assert any(p.line == line for p in problems), f"no problem names line {line} ({where}): {problems}"
            seen[f"{kind}:{got}"] += 1
            if i % 2 == 0:  # the space's upload handler, same file
                try:
                    outcome = submit_upload(store, cfg, mutated, "fuzz.jsonl", SubmissionForm(submitter="fuzz"))
                except LemmataError:
                    assert got == "unavailable", where
                    continue
                assert outcome.kind == "invalid" and outcome.problems, where
                assert "<script" not in render_outcome(outcome)
    assert store.list_submissions() == []
    total = sum(seen.values())
    assert total >= len(bases) * per_large_base * 0.8, seen
    for kind in CLASSES:  # every class really ran and was refused as input, not merely as missing data
        assert seen[f"{kind}:invalid"] > 0, (kind, seen)
    return seen
