"""Build the two TaoBench releases (``taobench-150``, ``taobench-v1``) from the pinned upstream files.

Every row carries both Lean files of an exercise and, extracted from each by
:mod:`lemmata.benchmarks.taobench.lean.statements`, the declaration that is the exercise, its
statement and the line it starts on. Bad input stops the build with every
problem named by file, line and field: a malformed JSONL line, a field that
fails its schema, an FQN that is duplicated or has no partner, a Lean file
whose exercise cannot be located, or an upstream defect that is not pinned in
:data:`lemmata.benchmarks.taobench.meta.KNOWN_DEFECTS` (and a pinned one that has
disappeared, so the list never goes stale).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel

from lemmata.benchmarks.taobench.meta import (
    CROISSANT_V1,
    KNOWN_DEFECTS,
    LEAN_150,
    LICENSE,
    MATHLIB_150,
    MATHLIB_V1,
    MATHLIB_V1_VERSION,
    PAIRS_150,
    TAOBENCH_150,
    TAOBENCH_V1,
    TEXTBOOK_V1,
)
from lemmata.core.errors import InputError, Problem
from lemmata.formats.datafiles import read_unique
from lemmata.release.builder import ReleaseBuilder, SplitTable
from lemmata.lean.lexer import LexError
from lemmata.benchmarks.taobench.schema import MathlibRow, PairRow, TextbookRow
from lemmata.benchmarks.taobench.lean.statements import LocateError, locate

CONFIG, SPLIT = "pairs", "test"


def _formulation_features(prefix: str) -> dict:
    from datasets import Value

    s = Value("string")
    return {
        f"{prefix}_lean": s,
        f"{prefix}_decl": s,
        f"{prefix}_kind": s,
        f"{prefix}_statement": s,
        f"{prefix}_statement_line": Value("int32"),
        f"{prefix}_defect": s,
    }


def pair_features(*, v1: bool):
    from datasets import Features, Value

    s = Value("string")
    cols: dict[str, Any] = {
        "index": Value("int32"),
        "fqn": s,
        "chapter_name": s,
        "chapter": Value("int32"),
        "section": s,
        **_formulation_features("tao"),
        **_formulation_features("mathlib"),
        "lean_version": s,
        "mathlib_version": s,
    }
    if v1:
        cols.update({
            "tao_origin": s,
            "mathlib_origin": s,
            "textbook_commit": s,
            "exercise_enumeration": s,
            "in_taobench_150": Value("bool"),
        })
    return Features(cols)


def load_rows(path: Path, label: str, model: type[BaseModel]) -> list[tuple[int, Any]]:
    """Validate every line against ``model``; FQNs must be unique. Reports every problem at once."""
    return read_unique(path, label, model, "FQN")


class Declared(NamedTuple):
    """The exercise's declaration as located in its file: its name, keyword (theorem, lemma, …), statement text
    and first line."""

    name: str
    kind: str
    statement: str
    line: int


class Analysis(BaseModel):
    """What the builder extracts from one Lean file of one exercise."""

    declared: Declared | None = None
    #: why the file could not be read as an exercise (the release records it instead of the exercise)
    defect: str | None = None
    #: how the declaration was located, and whether the file already proves it (no ``sorry`` in the body)
    how: str | None = None
    body_given: bool = False


def analyse(source: str, fqn: str, *, release: str, formulation: str, label: str, line: int, field: str,
            problems: list[Problem]) -> Analysis:
    """Locate the exercise in one official file; upstream defects must be pinned."""
    pinned = KNOWN_DEFECTS.get((release, formulation, fqn))
    try:
        ex = locate(source, fqn)
    except LexError as exc:
        if pinned is None:
            problems.append(Problem(label, f"{formulation} file of {fqn} is not well-formed Lean: {exc} "
                                    "(pin it in KNOWN_DEFECTS if upstream ships it so)", line, field))
            return Analysis()
        return Analysis(defect=f"{pinned} (opened on line {exc.line} of the file)")
    except LocateError as exc:
        problems.append(Problem(label, f"cannot locate the exercise in the {formulation} file: {exc}", line, field))
        return Analysis()
    if pinned is not None:
        problems.append(Problem(label, f"pinned defect of {fqn} ({pinned}) no longer occurs; update KNOWN_DEFECTS",
                                line, field))
    decl = ex.command.decl
    assert decl is not None
    return Analysis(declared=Declared(ex.decl_name, decl.keyword, ex.statement, ex.statement_line), how=ex.how,
                    body_given=not any(t.text == "sorry" for t in decl.body))


def _formulation_columns(prefix: str, source: str, a: Analysis) -> dict[str, Any]:
    name, kind, statement, line = a.declared or (None, None, None, None)
    return {
        f"{prefix}_lean": source,
        f"{prefix}_decl": name,
        f"{prefix}_kind": kind,
        f"{prefix}_statement": statement,
        f"{prefix}_statement_line": line,
        f"{prefix}_defect": a.defect,
    }


def _exercise_columns(release: str, row: Any, read: dict[str, tuple[str, str, int, str]], stats: "_Stats",
                      problems: list[Problem]) -> dict[str, Any]:
    """The columns every release has for one exercise: where it sits in the book, and each formulation analysed.

    ``read`` maps each formulation to its Lean file and where that was read: ``(source, label, line, field)``.
    """
    out = {"index": row.index, "fqn": row.FQN, "chapter_name": row.chapter_name, "chapter": row.chapter,
           "section": row.section}
    for formulation, (source, label, line, field) in read.items():
        analysis = analyse(source, row.FQN, release=release, formulation=formulation, label=label, line=line,
                           field=field, problems=problems)
        stats.add(formulation, row.FQN, analysis)
        out.update(_formulation_columns(formulation, source, analysis))
    stats.chapters[row.chapter] += 1
    return out


class _Stats:
    def __init__(self) -> None:
        self.how: Counter[tuple[str, str]] = Counter()
        self.kinds: Counter[tuple[str, str]] = Counter()
        self.defects: list[tuple[str, str, str]] = []
        self.body_given: list[tuple[str, str]] = []
        self.chapters: Counter[int] = Counter()

    def add(self, formulation: str, fqn: str, a: Analysis) -> None:
        if a.defect:
            self.defects.append((formulation, fqn, a.defect))
            return
        self.how[(formulation, a.how or "")] += 1
        self.kinds[(formulation, a.declared.kind if a.declared else "")] += 1
        if a.body_given:
            self.body_given.append((formulation, fqn))


class TaoBench150Builder(ReleaseBuilder):
    builder_id = "lemmata.builders.taobench.TaoBench150Builder"
    meta = TAOBENCH_150
    builder_version = "1.0"
    source_names = (PAIRS_150, LICENSE)

    def features(self):
        return {CONFIG: pair_features(v1=False)}

    def make_tables(self, sources: dict[str, Path]) -> list[SplitTable]:
        self.licence = sources[LICENSE].read_text("utf-8")
        rows = load_rows(sources[PAIRS_150], PAIRS_150, PairRow)
        problems: list[Problem] = []
        out = []
        self.stats = _Stats()
        for lineno, r in rows:
            read = {"tao": (r.TaoBench, PAIRS_150, lineno, "TaoBench"),
                    "mathlib": (r.TaoBenchMathlib, PAIRS_150, lineno, "TaoBenchMathlib")}
            out.append({**_exercise_columns(self.meta.name, r, read, self.stats, problems),
                        "lean_version": LEAN_150, "mathlib_version": MATHLIB_150})
        indices = Counter(r["index"] for r in out)
        for lineno, r in rows:
            if indices[r.index] > 1:
                problems.append(Problem(PAIRS_150, f"index {r.index} is used by {indices[r.index]} rows", lineno, "index"))
        if problems:
            raise InputError(problems)
        out.sort(key=lambda row: row["index"])
        return [SplitTable(CONFIG, SPLIT, out)]

    def card_body(self, tables: list[SplitTable]) -> str:
        return card_body(self.meta.release_id, tables[0].rows, self.stats, v1=False, licence=self.licence)


class TaoBenchV1Builder(ReleaseBuilder):
    builder_id = "lemmata.builders.taobench.TaoBenchV1Builder"
    meta = TAOBENCH_V1
    builder_version = "1.0"
    source_names = (TEXTBOOK_V1, MATHLIB_V1, CROISSANT_V1, PAIRS_150, LICENSE)

    def features(self):
        return {CONFIG: pair_features(v1=True)}

    def make_tables(self, sources: dict[str, Path]) -> list[SplitTable]:
        self.licence = sources[LICENSE].read_text("utf-8")
        self._check_upstream_croissant(sources[CROISSANT_V1])
        textbook = load_rows(sources[TEXTBOOK_V1], TEXTBOOK_V1, TextbookRow)
        mathlib = load_rows(sources[MATHLIB_V1], MATHLIB_V1, MathlibRow)
        paper = {r.FQN for _, r in load_rows(sources[PAIRS_150], PAIRS_150, PairRow)}
        problems = pair_problems(textbook, mathlib)
        if problems:
            raise InputError(problems)
        by_fqn = {r.FQN: (line, r) for line, r in mathlib}
        out = []
        self.stats = _Stats()
        for t_line, t in textbook:
            m_line, m = by_fqn[t.FQN]
            read = {"tao": (t.code, TEXTBOOK_V1, t_line, "code"), "mathlib": (m.code, MATHLIB_V1, m_line, "code")}
            out.append({
                **_exercise_columns(self.meta.name, t, read, self.stats, problems),
                "lean_version": t.lean_version, "mathlib_version": MATHLIB_V1_VERSION,
                "tao_origin": t.origin, "mathlib_origin": m.origin, "textbook_commit": t.textbook_commit,
                "exercise_enumeration": m.exercise_enumeration or None,
                "in_taobench_150": t.FQN in paper,
            })
        if problems:
            raise InputError(problems)
        out.sort(key=lambda row: row["index"])
        self.in_paper = sum(r["in_taobench_150"] for r in out)
        return [SplitTable(CONFIG, SPLIT, out)]

    def _check_upstream_croissant(self, path: Path) -> None:
        """Upstream's own Croissant must state the sha256 we pinned for each data file."""
        doc = json.loads(path.read_text("utf-8"))
        stated = {d.get("contentUrl"): d.get("sha256") for d in doc.get("distribution", [])}
        problems = []
        for name in (TEXTBOOK_V1, MATHLIB_V1):
            want = self.meta.source(name).sha256
            got = stated.get(f"data/{name}")
            if got != want:
                problems.append(Problem(CROISSANT_V1, f"states sha256 {got} for data/{name}; pinned is {want}",
                                        field="distribution"))
        if problems:
            raise InputError(problems)

    def card_body(self, tables: list[SplitTable]) -> str:
        return card_body(self.meta.release_id, tables[0].rows, self.stats, v1=True, licence=self.licence,
                         in_paper=self.in_paper)


def pair_problems(textbook: list[tuple[int, TextbookRow]], mathlib: list[tuple[int, MathlibRow]]) -> list[Problem]:
    """One-to-one pairing by FQN, with agreeing index, section and Lean version; every defect with file and line."""
    problems: list[Problem] = []
    t_by = {r.FQN: (line, r) for line, r in textbook}
    m_by = {r.FQN: (line, r) for line, r in mathlib}
    for line, r in textbook:
        if r.FQN not in m_by:
            problems.append(Problem(TEXTBOOK_V1, f"FQN {r.FQN!r} has no partner in {MATHLIB_V1}", line, "FQN"))
    for line, r in mathlib:
        if r.FQN not in t_by:
            problems.append(Problem(MATHLIB_V1, f"FQN {r.FQN!r} has no partner in {TEXTBOOK_V1}", line, "FQN"))
            continue
        t_line, t = t_by[r.FQN]
        for field in ("index", "chapter_name", "lean_version"):
            if getattr(t, field) != getattr(r, field):
                problems.append(Problem(MATHLIB_V1, f"{field} {getattr(r, field)!r} differs from "
                                        f"{getattr(t, field)!r} on line {t_line} of {TEXTBOOK_V1}", line, field))
    return problems


def _kind_list(stats: _Stats, formulation: str) -> str:
    return ", ".join(f"{k} {n}" for (f, k), n in sorted(stats.kinds.items()) if f == formulation)


def card_body(release_id: str, rows: list[dict], stats: _Stats, *, v1: bool, licence: str, in_paper: int = 0) -> str:
    n = len(rows)
    how = {key: stats.how.get(key, 0) for key in stats.how}
    chapters = ", ".join(f"ch. {c}: {k}" for c, k in sorted(stats.chapters.items()))
    defects = "\n".join(f"  - `{fqn}` ({f}): {why}" for f, fqn, why in stats.defects)
    given = ", ".join(f"`{fqn}` ({f})" for f, fqn in stats.body_given)
    source_cols = (
        "| `tao_origin`, `mathlib_origin` | upstream `origin` of each file (`baseline`, `retry`, ...) |\n"
        "| `textbook_commit` | commit of the Analysis I formalization the textbook file was extracted from |\n"
        "| `exercise_enumeration` | upstream exercise number of the Mathlib file when stated (else null) |\n"
        f"| `in_taobench_150` | whether the FQN is one of the paper's 150 pairs ({in_paper} are) |\n"
    ) if v1 else ""
    pairing = (
        "The upstream release ships two files of 600 lines each, one per formulation. The builder pairs them by "
        "`FQN` and requires a one-to-one pairing with the same `index`, `chapter_name` and `lean_version` on both "
        "sides; any unpaired or duplicated FQN stops the build with its file and line. Upstream's own Croissant "
        "must state the pinned sha256 of both data files."
        if v1 else
        "Upstream ships each pair as one record (`TaoBench`, `TaoBenchMathlib`); the pairing is the paper's."
    )
    versions = (
        "`lean_version` is upstream's `lean_version` field (`leanprover/lean4:v4.26.0` on every row); "
        f"`mathlib_version` is `{MATHLIB_V1_VERSION}`, the Mathlib version upstream's Croissant names for the files."
        if v1 else
        f"Upstream states the pairs were checked on Lean `{LEAN_150.split(':')[-1]}` (`lean_version` = `{LEAN_150}`). "
        f"`mathlib_version` is `{MATHLIB_150}`: the paper's evaluation README deploys the Kimina Lean server with "
        f"`LEAN_SERVER_LEAN_VERSION={LEAN_150.split(':')[-1]}`, whose `setup.sh` installs mathlib4 at the tag of that "
        "Lean version unless told otherwise. Version 1.1.0 records this pin (1.0.0 left `mathlib_version` null); the "
        "exercises are otherwise unchanged."
    )
    defect_text = (f"- {len(stats.defects)} upstream file(s) are not well-formed Lean; their row keeps the file, "
                   f"leaves the statement columns null, states the defect in `*_defect`, and scoring leaves the "
                   f"exercise out:\n{defects}\n") if stats.defects else ""
    given_text = (f"- {len(stats.body_given)} exercise file(s) are definitions whose official body is already "
                  f"given (no `sorry`), so the unmodified file is itself a passing attempt: {given}.\n"
                  ) if stats.body_given else ""
    return f"""
## Pairing

Each row is one exercise of Tao's *Analysis I* in two mathematically equivalent formulations:

- **tao**: a self-contained Lean 4 file in Tao's own definitional framework (his natural numbers, integers,
  rationals, reals as Cauchy-sequence quotients, ZF-style sets, sequences, ...), with the local definitions and the
  lemmas the exercise may use (given lemmas are stated with `sorry`, as upstream ships them), then the exercise;
- **mathlib**: the same statement over standard Mathlib definitions.

{pairing} {n} pairs over chapters ({chapters}).

## Columns

| column | meaning |
|---|---|
| `index` | upstream row index |
| `fqn` | upstream fully qualified name of the exercise (chapter-qualified, e.g. `Chapter5.Real.LIM_of_ge`) |
| `chapter_name`, `chapter`, `section` | upstream section id (`Section_5_4`), its chapter (5) and section (`5.4`) |
| `tao_lean`, `mathlib_lean` | the complete Lean file of each formulation, verbatim from upstream |
| `tao_decl`, `mathlib_decl` | full name of the exercise's declaration inside each file |
| `tao_kind`, `mathlib_kind` | its declaration keyword (`theorem`, `lemma`, `def`, `abbrev`, `instance`) |
| `tao_statement`, `mathlib_statement` | the statement as written: declaration keyword up to (not including) the body `:=` / `where` |
| `tao_statement_line`, `mathlib_statement_line` | 1-based line of the file where the statement starts |
| `tao_defect`, `mathlib_defect` | null, or why upstream's file is not well-formed Lean |
| `lean_version`, `mathlib_version` | toolchain the files were checked with upstream (see below) |
{source_cols}
A file's declaration is found from the FQN by exact full name, else by the unique declaration sharing the longest
dotted suffix with it (files may declare `Real.foo` after `end Chapter5`, and Mathlib twins wrap everything in
`namespace New_Namespace` / `namespace TaoBench`), else as the file's only declaration (a few Mathlib twins rename
the theorem). Resolution counts: {", ".join(f"{f} {h}: {k}" for (f, h), k in sorted(how.items()))}.
Declaration kinds: tao {_kind_list(stats, "tao")}; mathlib {_kind_list(stats, "mathlib")}.

{versions}

## Intended use

Evaluate a prover on both formulations of the same exercises and compare: the paper's question is whether provers
trained on Mathlib generalise to Tao's definitional framework. A proof attempt is a complete Lean file: the official
file with the exercise's body replaced (helper lemmas of its own are allowed before the exercise). Lemmata scores
attempts in `submissions/taobench/` format: integrity checks without Lean (statement and local definitions
unchanged, no `sorry`/`admit`, no new axioms, no weakening `set_option`, no `native_decide`/`implemented_by`/
`extern`/`unsafe` escapes, no shadowing of official names), then a Lean verifier whose verdicts are cached in a
frozen scoring artifact; pass@k (unbiased estimator, k ∈ {{1, 8, n}}), a per-chapter breakdown and the
Tao − Mathlib gap with a paired bootstrap interval over exercises attempted in both formulations.

## Limitations

- The given lemmas of a Tao-framework file are stated with `sorry`; a verifier reports them, and scoring
  distinguishes them from the attempt's own text by line.
- The Mathlib twin is a translation: "mathematically equivalent" is the authors' judgement, not a checked
  equivalence, and some twins restate the claim in Mathlib's terms rather than transcribing it (e.g. a statement
  about Tao's `LIM` of a Cauchy sequence becomes an ε-statement about real sequences).
- Upstream checked the files on one toolchain; a verifier on another Lean or Mathlib version can disagree. Every
  verdict records the verifier's versions, and results on different versions are never ranked together.
{defect_text}{given_text}- The release is {release_id}; cite the paper and name the release.

## Upstream licence text

The exercises are redistributed under upstream's licence, reproduced verbatim:

```text
{licence.strip()}
```
"""


BUILDERS = (TaoBench150Builder, TaoBenchV1Builder)
