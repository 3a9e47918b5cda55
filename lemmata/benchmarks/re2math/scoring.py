"""Re²Math scoring: validate a submission, replay it against the frozen artifact, judge, aggregate.

Pipeline (one :class:`~lemmata.formats.results.Result` per submission):

1. **Validate** — format v1, the declared release and split, the declared
   retrieval artifact, every instance id (unknown, duplicate, missing), and
   the *trajectory*: every query is replayed against the artifact and must
   return exactly the recorded candidates; the selected source must be one of
   them. Every problem is reported at once, with line and field.
2. **Judge-free checks** — CiteRecall@20 (the cited source among the
   candidates, by the source-identity matcher), whether the selected source
   is the cited one, the citing-paper exclusion (selecting the citing paper,
   any version, settles Ground = no), abstentions.
3. **Verdicts** — Ground, Suff and (raw track) AnchorMatch from the judge's
   scoring artifact (verdict cache), asking a configured live judge for what
   is missing. Without an answer an item is *pending*: shown, never a success.
   Suff is not asked where Ground is already negative (ToolAcc is settled).
4. **Aggregate** — :func:`lemmata.metrics.tool_acc.tool_acc_report` (Wilson
   and paper-cluster bootstrap intervals, macros, per-domain, pending counts).

Nothing in the result depends on when or how often it was computed except
``scored_at``: the same file scored twice gives the same ``result_id``.
"""

from __future__ import annotations

import datetime as dt
import difflib
import os
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lemmata import __version__
from lemmata.core.errors import InputError, LemmataError, Problem
from lemmata.core.hashing import sha256_json
from lemmata.oracles.judge import Judge, JudgeArtifact, default_artifact_dir, load_rubric
from lemmata.benchmarks.re2math.submission import BENCHMARK, Header, Record, parse_submission
from lemmata.core.registry import suggest
from lemmata.formats.results import FrozenTuple, Result, Score, make_result
from lemmata.tracks.base import AuditView, OracleConfig, TrackHandler, Validated
from lemmata.formats.envelope import Envelope

SCORER_VERSION = "re2math-scorer/1"
#: candidates per query: the artifact's list length, as in the paper (top 20)
CANDIDATES_N = 20
CITE_RECALL_N = 20
#: the canonical window; other windows are ranked as their own tracks (``raw-m1``, ``assisted-m3``, …)
CANONICAL_WINDOW = 5
#: characters of a source's frozen text shown to the Ground judge
SOURCE_TEXT_LIMIT = 60_000
RUBRIC_VERSIONS = {"ground": 1, "suff": 1, "anchor": 1}
NO_JUDGE = "none"
ENV_JUDGE_ARTIFACT = "LEMMATA_JUDGE_ARTIFACT"
ENV_CONCURRENCY = "LEMMATA_JUDGE_CONCURRENCY"
MAX_LISTED_MISSING = 25


def rubrics() -> dict[str, Any]:
    return {name: load_rubric(name, version) for name, version in RUBRIC_VERSIONS.items()}


def result_track(track: str, window: int) -> str:
    """The leaderboard track of a submission: windows other than the canonical one never rank with it.

    >>> result_track("raw", 5), result_track("assisted", 1)
    ('raw', 'assisted-m1')
    """
    return track if window == CANONICAL_WINDOW else f"{track}-m{window}"


def received_date(received_at: str) -> str:
    """The evaluation date (YYYY-MM-DD) of an ISO date or timestamp.

    >>> received_date("2026-11-21T19:40:17+00:00"), received_date("2026-11-21")
    ('2026-11-21', '2026-11-21')
    """
    text = received_at.strip()
    try:
        return dt.date.fromisoformat(text[:10]).isoformat()
    except ValueError:
        raise InputError.one("received_at", f"not an ISO date or timestamp: {received_at!r}") from None


# --------------------------------------------------------------------------- context: release and artifact


@dataclass
class Context:
    """What one submission is scored against: release rows of its split and the retrieval artifact."""

    release_id: str
    release_manifest_sha256: str
    split: str
    rows: dict[str, dict[str, Any]]  # instance_id -> row, in release order
    artifact: Any  # lemmata.benchmarks.re2math.scholar.artifact.ScholarArtifact


class Resources:
    """Opens (and keeps) releases and retrieval artifacts by id; built on demand when they are the defaults."""

    def __init__(self, *, releases_root: str | Path | None = None, artifacts_root: str | Path | None = None,
                 build_missing: bool = True) -> None:
        self.releases_root = Path(releases_root) if releases_root else None
        self.artifacts_root = Path(artifacts_root) if artifacts_root else None
        self.build_missing = build_missing
        self._releases: dict[str, Any] = {}
        self._artifacts: dict[str, Any] = {}
        self._rows: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        self._identities: dict[str, SourceIdentity] = {}
        self._lock = threading.RLock()

    def _releases_dir(self) -> Path:
        from lemmata.core.paths import releases_dir

        return self.releases_root or releases_dir()

    def _artifacts_dir(self) -> Path:
        from lemmata.core.paths import artifacts_dir

        return self.artifacts_root or artifacts_dir()

    def release(self, release_id: str):
        from lemmata.benchmarks.re2math.meta import RE2MATH
        from lemmata.catalog import release_path
        from lemmata.release.load import open_release

        with self._lock:
            if release_id not in self._releases:
                path = release_path(RE2MATH, release_id, root=self._releases_dir(), build=self.build_missing)
                self._releases[release_id] = open_release(path)
            return self._releases[release_id]

    def rows(self, release_id: str, split: str) -> dict[str, dict[str, Any]]:
        with self._lock:
            key = (release_id, split)
            if key not in self._rows:
                config, _, name = split.partition("/")
                self._rows[key] = {r["instance_id"]: r for r in self.release(release_id).rows(config, name)}
            return self._rows[key]

    def available_artifacts(self) -> list[str]:
        """Scholarly artifacts on disk, plus the default one (built on first use)."""
        import json

        from lemmata.benchmarks.re2math.scholar.artifact import INFO_FILE, SCHEMA, artifact_id

        found = set()
        root = self._artifacts_dir()
        for folder in sorted(root.iterdir()) if root.is_dir() else ():
            try:
                info = json.loads((folder / INFO_FILE).read_text("utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(info, dict) and info.get("schema_version") == SCHEMA and (folder / "MANIFEST.json").is_file():
                found.add(folder.name)
        return sorted(found | {artifact_id()})

    def artifact(self, artifact_id: str):
        from lemmata.benchmarks.re2math.scholar import artifact as art

        with self._lock:
            if artifact_id not in self._artifacts:
                path = self._artifacts_dir() / artifact_id
                if not path.is_dir():
                    if not (self.build_missing and artifact_id == art.artifact_id()):
                        raise LemmataError(f"retrieval artifact {artifact_id} is not under {self._artifacts_dir()}")
                    from lemmata.benchmarks.re2math.meta import RE2MATH

                    release = self.release(RE2MATH.release_id)
                    art.build_artifact(release.root, self._artifacts_dir(), quiet=True)
                self._artifacts[artifact_id] = art.open_artifact(path)
            return self._artifacts[artifact_id]

    def identity(self, artifact_id: str) -> "SourceIdentity":
        with self._lock:
            if artifact_id not in self._identities:
                self._identities[artifact_id] = SourceIdentity(self.artifact(artifact_id))
            return self._identities[artifact_id]

    def context(self, header: Header) -> Context:
        from lemmata.release.manifest import MANIFEST
        from lemmata.core.hashing import sha256_file

        release = self.release(header.release)
        return Context(release_id=header.release, split=header.split,
                       release_manifest_sha256=sha256_file(release.root / MANIFEST),
                       rows=self.rows(header.release, header.split), artifact=self.artifact(header.retrieval_artifact))


# --------------------------------------------------------------------------- validation


def _known_release(release_id: str) -> str | None:
    from lemmata.benchmarks.re2math.meta import RELEASES

    known = sorted(m.release_id for m in RELEASES if m.name == BENCHMARK)
    return None if release_id in known else suggest("release", release_id, known)


def _record_id(artifact, record_id: str) -> bool:
    try:
        artifact.record(record_id)
        return True
    except InputError:
        return False


def year_cutoff(artifact, row: Mapping[str, Any]) -> int | None:
    """The instance's search cutoff: the artifact's attribution, else the citing paper's publication year."""
    try:
        return artifact.attribution(row["instance_id"]).year_cutoff
    except InputError:
        return row.get("publication_year")


def replay_problems(filename: str, line: int, rec: Record, row: Mapping[str, Any], artifact,
                    searched: dict[tuple[str, int | None], list[str]] | None = None) -> list[Problem]:
    """Every way this record's trajectory differs from what the artifact returns."""
    problems: list[Problem] = []
    cutoff = year_cutoff(artifact, row)
    for qi, query in enumerate(rec.queries):
        unknown = [j for j, cid in enumerate(query.candidates) if not _record_id(artifact, cid)]
        for j in unknown:
            problems.append(Problem(filename, f"candidate {query.candidates[j]!r} is not a record of retrieval "
                                              f"artifact {artifact.artifact_id}", line, f"queries.{qi}.candidates.{j}"))
        key = (query.text, cutoff)
        if searched is not None and key in searched:
            got = searched[key]
        else:
            got = artifact.search(query.text, cutoff, CANDIDATES_N, instance_id=rec.instance_id).ids()
            if searched is not None:
                searched[key] = got
        if got == query.candidates:
            continue
        for j in range(max(len(got), len(query.candidates))):
            mine = query.candidates[j] if j < len(query.candidates) else None
            theirs = got[j] if j < len(got) else None
            if mine != theirs and j not in unknown:
                if mine is None:
                    why = f"the artifact returns {len(got)} candidates, the record lists {len(query.candidates)}"
                elif theirs is None:
                    why = (f"the artifact returns only {len(got)} candidates (year cutoff {cutoff}); "
                           f"the record lists {len(query.candidates)}")
                else:
                    why = f"the artifact returns {theirs!r} at rank {j + 1} (year cutoff {cutoff}), not {mine!r}"
                problems.append(Problem(filename, f"replayed query {qi} differs: {why}", line,
                                        f"queries.{qi}.candidates.{j}"))
                break
    if rec.selected_source is not None and rec.selected_source not in rec.candidate_ids():
        problems.append(Problem(filename, f"selected source {rec.selected_source!r} was not returned by any query "
                                          "of this record", line, "selected_source"))
    return problems


def validate_envelope(envelope: Envelope, sha256: str, resources: Resources) -> Validated:
    """Complete validation of a Re²Math submission; raises one InputError listing every problem."""
    header, records = parse_submission(envelope)
    name = envelope.filename
    hl = envelope.header_line
    problems: list[Problem] = []
    msg = _known_release(header.release)
    if msg:
        raise InputError([Problem(name, msg, hl, "header.release")])
    rows = resources.rows(header.release, header.split)
    available = resources.available_artifacts()
    if header.retrieval_artifact not in available:
        raise InputError([Problem(name, suggest("retrieval artifact", header.retrieval_artifact, available), hl,
                                  "header.retrieval_artifact")])
    artifact = resources.artifact(header.retrieval_artifact)
    if artifact.info.release_id != header.release:
        problems.append(Problem(name, f"retrieval artifact {artifact.artifact_id} was built from "
                                      f"{artifact.info.release_id}, not {header.release}", hl,
                                "header.retrieval_artifact"))
    first_line: dict[str, int] = {}
    searched: dict[tuple[str, int | None], list[str]] = {}
    for line, rec in records:
        iid = rec.instance_id
        if iid in first_line:
            problems.append(Problem(name, f"duplicate instance_id (first on line {first_line[iid]})", line,
                                    "instance_id"))
            continue
        first_line[iid] = line
        row = rows.get(iid)
        if row is None:
            close = difflib.get_close_matches(iid, list(rows), n=1, cutoff=0.8)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            problems.append(Problem(name, f"unknown instance_id {iid!r}: not an instance of {header.release} "
                                          f"{header.split}{hint}", line, "instance_id"))
            continue
        problems += replay_problems(name, line, rec, row, artifact, searched)
    missing = [iid for iid in rows if iid not in first_line]
    if missing:
        shown = ", ".join(missing[:MAX_LISTED_MISSING]) + (f", … ({len(missing) - MAX_LISTED_MISSING} more)"
                                                           if len(missing) > MAX_LISTED_MISSING else "")
        problems.append(Problem(name, f"{len(missing)} instance(s) of {header.split} have no record: {shown}",
                                field="instance_id"))
    if problems:
        raise InputError(problems)
    n_queries = sum(len(r.queries) for _, r in records)
    abstained = sum(r.selected_source is None or r.statement is None for _, r in records)
    return Validated(
        benchmark=BENCHMARK, track=result_track(header.track, header.window), model=header.model, header=header,
        records=records, sha256=sha256, filename=name,
        summary=(f"{len(records)} instances of {header.release} {header.split}, {header.track} track, "
                 f"m={header.window}; {n_queries} queries replayed against {artifact.artifact_id}; "
                 f"{abstained} abstentions"),
        needs_oracle=True,
    )


# --------------------------------------------------------------------------- the judge side


def judge_artifact_for(judge: Judge | None, folder: str | Path | None = None) -> JudgeArtifact | None:
    """The judge artifact to read (and, with a live judge, write) verdicts in.

    ``folder`` (or ``$LEMMATA_JUDGE_ARTIFACT``) names an existing artifact;
    otherwise the default folder of the live judge, or of ``$LEMMATA_JUDGE_ID``.
    None when no judge is known at all: every judged item is then pending.
    """
    from lemmata.oracles.judge import ARTIFACT_FILE, ArtifactManifest

    rubric_set = rubrics()
    folder = folder or os.environ.get(ENV_JUDGE_ARTIFACT) or None
    judge_id = judge.judge_id if judge is not None else None
    describe = judge.describe() if judge is not None else None
    if folder is not None:
        manifest_path = Path(folder) / ARTIFACT_FILE
        if judge_id is None:
            if not manifest_path.is_file():
                raise LemmataError(f"{folder} is not a judge artifact (no {ARTIFACT_FILE}); configure a judge to "
                                   "create one")
            judge_id = ArtifactManifest.model_validate_json(manifest_path.read_text("utf-8")).judge["id"]
        return JudgeArtifact(folder, benchmark=BENCHMARK, judge_id=judge_id, rubrics=rubric_set, describe=describe)
    judge_id = judge_id or os.environ.get("LEMMATA_JUDGE_ID", "").strip() or None
    if judge_id is None:
        return None
    return JudgeArtifact(default_artifact_dir(BENCHMARK, judge_id, rubric_set), benchmark=BENCHMARK,
                         judge_id=judge_id, rubrics=rubric_set, describe=describe)


def scoring_artifact_id(artifact: JudgeArtifact | None) -> str:
    from lemmata.oracles.judge import artifact_id

    return artifact.artifact_id if artifact is not None else artifact_id(BENCHMARK, NO_JUDGE, rubrics())


@dataclass
class Question:
    """One rubric question about one instance (its cache key fields and the template values)."""

    rubric: str
    fields: dict[str, Any]
    values: dict[str, str]
    verdict: dict[str, Any] | None = None


def _blocks(row: Mapping[str, Any]) -> str:
    blocks = list(row["x"].get("local_context") or [])
    if not blocks:
        return "(no local proof blocks)"
    return "\n\n".join(f"[block {i}]\n{b.strip()}" for i, b in enumerate(blocks, start=1))


def _question(rubric: str, iid: str, values: dict[str, str], **fields: Any) -> Question:
    """Key fields name what is asked; ``prompt_sha256`` pins everything the judge is shown."""
    rendered = rubrics()[rubric].render(values)
    return Question(rubric=rubric, values=values,
                    fields={"instance_id": iid, **fields, "prompt_sha256": sha256_json(rendered)})


def ground_question(row, source_id: str, materialised, statement: str) -> Question:
    text = materialised.text
    if len(text) > SOURCE_TEXT_LIMIT:
        text = text[:SOURCE_TEXT_LIMIT] + f"\n[… frozen text truncated at {SOURCE_TEXT_LIMIT:,} characters]"
    values = {"source_id": source_id, "source_title": materialised.record.title, "source_text": text,
              "statement": statement}
    return _question("ground", row["instance_id"], values, source_id=source_id, statement=statement)


def suff_question(row, source_id: str, statement: str) -> Question:
    x = row["x"]
    values = {"setup": x["global_context"]["setup"].strip(), "target_theorem": x["global_context"]["target_theorem"].strip(),
              "local_context": _blocks(row), "anchor_hint": (x.get("anchor_hint") or "").strip() or "(none)",
              "reference_statement": row["y"]["reference_tool_latex"].strip(), "statement": statement}
    return _question("suff", row["instance_id"], values, source_id=source_id, statement=statement)


def anchor_question(row, anchor: str) -> Question:
    x = row["x"]
    values = {"target_theorem": x["global_context"]["target_theorem"].strip(), "local_context": _blocks(row),
              "reference_anchor": (x.get("anchor_hint") or "").strip(), "anchor": anchor}
    return _question("anchor", row["instance_id"], values, anchor=anchor)


def resolve(questions: Sequence[Question], artifact: JudgeArtifact | None, judge: Judge | None, *,
            quiet: bool = True, desc: str = "judging") -> None:
    """Fill ``verdict`` of each question from the cache or the live judge (None stays pending)."""
    if artifact is None or not questions:
        return
    from lemmata.core.progress import track

    for q in questions:
        q.verdict = artifact.lookup(q.rubric, q.fields)
        if q.verdict is not None:
            artifact.stats.add("cached")
    missing = [q for q in questions if q.verdict is None]
    if judge is None:
        for _ in missing:
            artifact.stats.add("pending")
        return
    if not missing:
        return
    workers = max(1, int(os.environ.get(ENV_CONCURRENCY, "4") or 4))

    def ask(q: Question) -> None:
        q.verdict = artifact.obtain(q.rubric, q.fields, q.values, judge)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for _ in track(pool.map(ask, missing), total=len(missing), desc=desc, quiet=quiet):
            pass


# --------------------------------------------------------------------------- per-instance assessment


@dataclass
class Assessment:
    """Everything the scorer settles about one record before and after judging."""

    row: dict[str, Any]
    rec: Record
    cite_rank: int | None = None
    source_match: str = "none"
    source_match_rule: str | None = None
    citing_paper: str | None = None
    ground_rule: tuple[str, str] | None = None  # (verdict, reason) settled without a judge
    ground_q: Question | None = None
    suff_q: Question | None = None
    anchor_q: Question | None = None
    anchor_rule: tuple[str, str] | None = None
    oracle_evaluable: bool = False
    oracle_ground_q: Question | None = None
    oracle_suff_q: Question | None = None
    oracle_rule: tuple[str, str] | None = None


def _candidate(artifact, record_id: str):
    return artifact.record(record_id).candidate(1, None)


class SourceIdentity:
    """The source-identity matcher over one artifact's records, each record's references built once.

    A record is tried through its metadata and every bibliography string it
    carries (as :func:`lemmata.benchmarks.re2math.scholar.matcher.match_candidate` does); the
    artifact's own attribution of an instance's cited source counts first.
    """

    def __init__(self, artifact) -> None:
        self.artifact = artifact
        self._refs: dict[str, list[Any]] = {}
        self._cited: dict[str, Any] = {}
        self._lock = threading.Lock()

    def refs(self, record_id: str) -> list[Any]:
        from lemmata.benchmarks.re2math.scholar.matcher import SourceRef

        with self._lock:
            if record_id not in self._refs:
                rec = self.artifact.record(record_id)
                self._refs[record_id] = [
                    SourceRef.from_fields(title=rec.title, authors=rec.authors, year=rec.year, doi=rec.doi,
                                          arxiv_id=rec.arxiv_id, text=rec.text),
                    *(SourceRef.from_citation(c) for c in rec.citations)]
            return self._refs[record_id]

    def cited_ref(self, row: Mapping[str, Any]):
        from lemmata.benchmarks.re2math.scholar.matcher import SourceRef

        with self._lock:
            if row["instance_id"] not in self._cited:
                self._cited[row["instance_id"]] = SourceRef.from_z(row["z"])
            return self._cited[row["instance_id"]]

    def cited_record(self, instance_id: str) -> str | None:
        try:
            return self.artifact.attribution(instance_id).record_id
        except InputError:
            return None

    def is_cited(self, record_id: str, row: Mapping[str, Any]) -> tuple[str, str | None] | None:
        """How ``record_id`` is the instance's cited source: ('record', None), ('matcher', rule), or None."""
        from lemmata.benchmarks.re2math.scholar.matcher import match_sources

        if record_id == self.cited_record(row["instance_id"]):
            return ("record", None)
        cited = self.cited_ref(row)
        for ref in self.refs(record_id):
            m = match_sources(ref, cited)
            if m.matched:
                return ("matcher", m.rule)
        return None


def assess(row: dict[str, Any], rec: Record, header: Header, artifact, log,
           identity: SourceIdentity | None = None) -> Assessment:
    """Judge-free part: cite rank, source match, citing-paper exclusion, abstentions, questions to ask."""
    from lemmata.benchmarks.re2math.scholar.matcher import is_citing_paper

    identity = identity or SourceIdentity(artifact)
    a = Assessment(row=row, rec=rec)
    iid = row["instance_id"]
    cited_id = identity.cited_record(iid)
    matches: dict[str, tuple[str, str | None] | None] = {}

    def cited(cid: str) -> tuple[str, str | None] | None:
        if cid not in matches:
            matches[cid] = identity.is_cited(cid, row)
        return matches[cid]

    ranks = [rank for q in rec.queries for rank, cid in enumerate(q.candidates, start=1) if cited(cid)]
    a.cite_rank = min(ranks) if ranks else None

    source, statement = rec.selected_source, rec.statement
    if source is not None:
        hit = cited(source)
        a.source_match = "cited" if hit else "alternative"
        a.source_match_rule = (hit[1] or hit[0]) if hit else None
        citing = is_citing_paper(_candidate(artifact, source), row)
        if citing:
            a.citing_paper = citing.reason
    if source is None or statement is None:
        a.ground_rule = ("abstain", "no source selected" if source is None else "no statement extracted")
    elif a.citing_paper:
        a.ground_rule = ("no", f"the selected source is the instance's citing paper ({a.citing_paper}); "
                               "a gap cannot be closed by the paper it comes from")
    else:
        a.ground_q = ground_question(row, source, artifact.materialise(source, instance_id=iid, log=log), statement)

    if header.track == "raw" and (row["x"].get("anchor_hint") or "").strip():
        if rec.anchor is None:
            a.anchor_rule = ("abstain", "no planning anchor given")
        else:
            a.anchor_q = anchor_question(row, rec.anchor)

    if header.oracle_run and cited_id is not None:
        a.oracle_evaluable = True
        if rec.oracle_statement is None:
            a.oracle_rule = ("abstain", "no statement extracted from the cited source")
        else:
            m = artifact.materialise(cited_id, instance_id=iid, log=log)
            a.oracle_ground_q = ground_question(row, cited_id, m, rec.oracle_statement)
    return a


def _verdict(q: Question | None, rule: tuple[str, str] | None) -> tuple[str, str, str]:
    """(verdict, reason, by) where by is 'rule', 'judge' or 'pending'."""
    if rule is not None:
        return rule[0], rule[1], "rule"
    if q is None or q.verdict is None:
        return "pending", "awaiting the judge", "pending"
    return q.verdict["verdict"], q.verdict.get("reason", ""), "judge"


def _needs_suff(ground: str) -> bool:
    return ground in ("yes", "pending")


def plan_suff(assessments: Sequence[Assessment]) -> list[Question]:
    """Suff questions where Ground is yes or pending (elsewhere ToolAcc is already settled)."""
    out = []
    for a in assessments:
        g = _verdict(a.ground_q, a.ground_rule)[0]
        if a.rec.statement is not None and a.rec.selected_source is not None and _needs_suff(g):
            a.suff_q = suff_question(a.row, a.rec.selected_source, a.rec.statement)
            out.append(a.suff_q)
        if a.oracle_ground_q is not None and _needs_suff(_verdict(a.oracle_ground_q, None)[0]):
            a.oracle_suff_q = suff_question(a.row, a.oracle_ground_q.fields["source_id"], a.rec.oracle_statement)
            out.append(a.oracle_suff_q)
    return out


def _suff(a: Assessment, ground: str) -> tuple[str, str, str]:
    if a.rec.statement is None or a.rec.selected_source is None:
        return "abstain", "no statement", "rule"
    if not _needs_suff(ground):
        return "not_evaluable", "not asked: Ground is negative, so ToolAcc is settled", "rule"
    return _verdict(a.suff_q, None)


def _conj(a: str, b: str) -> str:
    """Ground ∧ Suff in the metrics' three-valued reading: a final negative settles it, else pending waits.

    >>> _conj("yes", "yes"), _conj("no", "pending"), _conj("pending", "yes"), _conj("uncertain", "yes")
    ('yes', 'no', 'pending', 'no')
    """
    from lemmata.metrics.tool_acc import FINAL_NEGATIVES

    if a == "yes" and b == "yes":
        return "yes"
    if a in FINAL_NEGATIVES or b in FINAL_NEGATIVES:
        return "no"
    return "pending"


def finish(a: Assessment) -> tuple[dict[str, Any], dict[str, Any]]:
    """(item for the result, InstanceVerdicts fields for the metrics)."""
    ground = _verdict(a.ground_q, a.ground_rule)
    suff = _suff(a, ground[0])
    anchor = _verdict(a.anchor_q, a.anchor_rule) if (a.anchor_q or a.anchor_rule) else None
    oracle = None
    if a.oracle_evaluable:
        og = _verdict(a.oracle_ground_q, a.oracle_rule)
        if a.oracle_rule is not None:
            osf = ("abstain", "no statement", "rule")
        elif not _needs_suff(og[0]):
            osf = ("not_evaluable", "not asked: oracle Ground is negative", "rule")
        else:
            osf = _verdict(a.oracle_suff_q, None)
        oracle = {"ground": _v(og), "suff": _v(osf), "tool_acc": _conj(og[0], osf[0])}
    row, rec = a.row, a.rec
    tool = _conj(ground[0], suff[0])
    pending = "pending" in (ground[0], suff[0]) or (anchor is not None and anchor[0] == "pending") or (
        oracle is not None and "pending" in (oracle["ground"]["verdict"], oracle["suff"]["verdict"]))
    item = {
        "instance_id": row["instance_id"], "paper_key": row["paper_key"], "domain": row["domain"],
        "tool_family": row["strata"]["tool_family"],
        "queries": len(rec.queries), "candidates": len(rec.candidate_ids()), "cite_rank": a.cite_rank,
        "selected_source": rec.selected_source, "source_match": a.source_match,
        "source_match_rule": a.source_match_rule, "citing_paper": a.citing_paper is not None,
        "ground": _v(ground), "suff": _v(suff), "anchor_match": _v(anchor) if anchor else None,
        "tool_acc": tool, "oracle": oracle, "pending": pending,
    }
    verdicts = {
        "instance_id": row["instance_id"], "paper_key": row["paper_key"], "domain": row["domain"],
        "ground": ground[0], "suff": suff[0], "anchor_match": anchor[0] if anchor else None,
        "cite_rank": a.cite_rank, "selected_source": a.source_match, "oracle_evaluable": a.oracle_evaluable,
        "oracle_ground": oracle["ground"]["verdict"] if oracle else None,
        "oracle_suff": oracle["suff"]["verdict"] if oracle else None,
    }
    return item, verdicts


def _v(triple: tuple[str, str, str]) -> dict[str, str]:
    return {"verdict": triple[0], "reason": triple[1], "by": triple[2]}


# --------------------------------------------------------------------------- scoring


@dataclass
class ScoreRun:
    """A scored result and what it cost (the cost is not part of the result)."""

    result: Result
    judge_stats: dict[str, int]


def score_validated(validated: Validated, *, received_at: str, resources: Resources, judge: Judge | None = None,
                    judge_artifact: JudgeArtifact | None = None, quiet: bool = True) -> ScoreRun:
    """Score a validated submission into an immutable result."""
    from lemmata.metrics.tool_acc import tool_acc_report
    from lemmata.core.progress import Steps
    from lemmata.benchmarks.re2math.scholar.artifact import MaterialisationLog

    header: Header = validated.header
    steps = Steps(4, quiet=quiet)
    ctx = resources.context(header)
    records = {rec.instance_id: rec for _, rec in validated.records}
    log = MaterialisationLog()
    steps.step(f"checking {len(records)} trajectories against {ctx.artifact.artifact_id}")
    identity = resources.identity(header.retrieval_artifact)
    assessments = [assess(row, records[iid], header, ctx.artifact, log, identity) for iid, row in ctx.rows.items()]

    steps.step("Ground and AnchorMatch verdicts" + ("" if judge else " (cache only: no live judge)"))
    first = [q for a in assessments for q in (a.ground_q, a.anchor_q, a.oracle_ground_q) if q is not None]
    resolve(first, judge_artifact, judge, quiet=quiet, desc="Ground/AnchorMatch")
    steps.step("Suff verdicts")
    resolve(plan_suff(assessments), judge_artifact, judge, quiet=quiet, desc="Suff")

    steps.step("aggregating")
    finished = [finish(a) for a in assessments]
    items = [i for i, _ in finished]
    report = tool_acc_report([v for _, v in finished], cite_recall_n=CITE_RECALL_N)
    metrics: dict[str, Any] = {}
    for name, m in report.metrics().items():
        if not header.oracle_run and name in ("OracleCoverage", "Oracle ToolAcc"):
            continue
        metrics[name] = {**m.model_dump(mode="json"), "final": m.pending == 0}
    if header.oracle_run and report.delta_to_oracle is not None:
        metrics["DeltaToOracle"] = report.delta_to_oracle
    tool = report.tool_acc
    n_pending = sum(1 for i in items if i["pending"])
    complete = tool.pending == 0
    notes = [header.notes.strip()] if header.notes.strip() else []
    if n_pending:
        notes.append(f"{n_pending} of {len(items)} items await the judge "
                     + ("(no judge configured)." if judge is None else "(the judge did not answer)."))
    if not complete:
        notes.append(f"ToolAcc is not final: {tool.pending} item(s) pending; {tool.count} confirmed so far.")
    if header.track == "assisted":
        notes.append("AnchorAcc is not scored on the assisted track (the anchor hint is part of the input).")
    if not header.oracle_run:
        notes.append("No oracle-source run in this submission: OracleCoverage and Oracle ToolAcc are not reported.")
    art = ctx.artifact
    result = make_result(
        kind="scored", benchmark=BENCHMARK, track=validated.track,
        frozen=FrozenTuple(dataset_release=header.release, split=header.split, retrieval_artifact=art.artifact_id,
                           scoring_artifact=scoring_artifact_id(judge_artifact), date=received_date(received_at)),
        submission_sha256=validated.sha256, model=header.model,
        flags={**header.flags.model_dump(), "window": header.window, "input_track": header.track,
               "oracle_run": header.oracle_run},
        main=Score(metric="ToolAcc", value=tool.rate if complete else None,
                   interval=tool.wilson95 if complete else None, interval_kind="wilson95" if complete else None,
                   count=tool.count, total=tool.total),
        metrics=metrics,
        breakdowns={"failure_decomposition": report.failure_decomposition.model_dump(mode="json"),
                    "by_tool_family": _by(items, "tool_family")},
        items=items, pending=n_pending, status="complete" if n_pending == 0 else "pending_oracle", notes=notes,
        provenance={
            "scorer": SCORER_VERSION, "lemmata": __version__,
            "release_manifest_sha256": ctx.release_manifest_sha256,
            "retrieval_artifact": {"id": art.artifact_id, "version": art.info.version,
                                   "manifest_sha256": _manifest_sha(art.root)},
            "scoring_artifact": (judge_artifact.describe() if judge_artifact is not None else
                                 {"artifact_id": scoring_artifact_id(None), "judge": {"id": NO_JUDGE},
                                  "rubrics": {n: {"id": r.id, "sha256": r.sha256} for n, r in rubrics().items()}}),
            "candidates_per_query": CANDIDATES_N, "source_text_limit": SOURCE_TEXT_LIMIT,
            "bootstrap": {"resamples": report.n_resamples, "seed": report.seed, "cluster": "paper_key"},
        },
    )
    stats = {} if judge_artifact is None else {k: getattr(judge_artifact.stats, k)
                                                 for k in ("cached", "asked", "pending", "unparsable")}
    return ScoreRun(result=result, judge_stats=stats)


def _manifest_sha(root: Path) -> str:
    from lemmata.core.hashing import sha256_file
    from lemmata.release.manifest import MANIFEST

    return sha256_file(Path(root) / MANIFEST)


def _by(items: Sequence[Mapping[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    """ToolAcc and Ground counts per stratum (pending shown, never counted as success)."""
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        g = out.setdefault(item[key], {"gaps": 0, "tool_acc": 0, "ground": 0, "pending": 0})
        g["gaps"] += 1
        g["tool_acc"] += item["tool_acc"] == "yes"
        g["ground"] += item["ground"]["verdict"] == "yes"
        g["pending"] += item["tool_acc"] == "pending"
    return dict(sorted(out.items()))


# --------------------------------------------------------------------------- audit


def _fence(text: str, lang: str = "text") -> str:
    ticks = "````" if "```" in text else "```"
    return f"{ticks}{lang}\n{text}\n{ticks}"


def audit_view(result: Result, item_id: str, submission: Validated | None, resources: Resources) -> AuditView:
    """Rendered context, the trajectory, the answer and every verdict with its reason, for one instance."""
    from lemmata.benchmarks.re2math.render import render_instance

    item = next((i for i in result.items if i.get("instance_id") == item_id), None)
    if item is None:
        raise InputError.one(result.result_id, f"no item {item_id!r} in this result", field="item_id")
    track, window = result.flags.get("input_track", result.track), result.flags.get("window", CANONICAL_WINDOW)
    rows = resources.rows(result.frozen.dataset_release, result.frozen.split)
    row = rows[item_id]
    artifact = resources.artifact(result.frozen.retrieval_artifact) if result.frozen.retrieval_artifact else None
    sections: list[tuple[str, str]] = [
        (f"Input ({track} track, m = {window})", _fence(render_instance(row, track, window), "markdown")),
    ]
    rec = None
    if submission is not None:
        rec = next((r for _, r in submission.records if r.instance_id == item_id), None)
    if rec is not None:
        lines = []
        for qi, q in enumerate(rec.queries):
            lines.append(f"**Query {qi}:** {q.text}\n")
            for rank, cid in enumerate(q.candidates, start=1):
                title = ""
                if artifact is not None:
                    try:
                        title = f" — {artifact.record(cid).title}"
                    except InputError:
                        title = " — (unknown to the artifact)"
                mark = " ← selected" if cid == rec.selected_source else ""
                lines.append(f"{rank}. `{cid}`{title}{mark}")
            lines.append("")
        sections.append(("Queries and candidates", "\n".join(lines) or "(no queries)"))
        if rec.anchor is not None:
            sections.append(("Planning anchor", _fence(rec.anchor)))
        sections.append(("Selected source", f"`{rec.selected_source}`" if rec.selected_source else "(abstained)"))
        sections.append(("Statement", _fence(rec.statement) if rec.statement else "(none)"))
        if rec.oracle_statement is not None:
            sections.append(("Oracle-run statement", _fence(rec.oracle_statement)))
    else:
        sections.append(("Submission", "The submission file is not available; showing the stored verdicts only."))
    verdicts = [f"- **Ground**: {item['ground']['verdict']} ({item['ground']['by']}) — {item['ground']['reason']}",
                f"- **Suff**: {item['suff']['verdict']} ({item['suff']['by']}) — {item['suff']['reason']}",
                f"- **ToolAcc**: {item['tool_acc']}"]
    if item.get("anchor_match"):
        am = item["anchor_match"]
        verdicts.append(f"- **AnchorMatch**: {am['verdict']} ({am['by']}) — {am['reason']}")
    if item.get("oracle"):
        o = item["oracle"]
        verdicts.append(f"- **Oracle Ground**: {o['ground']['verdict']} ({o['ground']['by']}) — {o['ground']['reason']}")
        verdicts.append(f"- **Oracle Suff**: {o['suff']['verdict']} ({o['suff']['by']}) — {o['suff']['reason']}")
    verdicts.append(f"- **Cited source rank**: {item['cite_rank'] if item['cite_rank'] else 'not among the candidates'}"
                    f"; selected source is {item['source_match']}"
                    + (" (the citing paper)" if item.get("citing_paper") else ""))
    sections.append(("Verdicts", "\n".join(verdicts)))
    sections.append(("Reference (one admissible witness)", _fence(row["y"]["reference_tool_latex"])
                     + f"\n\nCited source: {row['z']['citation_content']}"))
    return AuditView(item_id=item_id, sections=sections)


# --------------------------------------------------------------------------- the track handler


class Re2MathHandler(TrackHandler):
    """Re²Math submissions (format v1) for the leaderboard and the CLI."""

    benchmark = BENCHMARK
    tracks = ("raw", "assisted")

    @classmethod
    def schema_files(cls):
        from lemmata.formats.schema import SchemaFile
        from lemmata.benchmarks.re2math.submission import schema_text

        return [SchemaFile(cls.benchmark, "re2math-submission.schema.json", schema_text())]

    def __init__(self, *, releases_root: str | Path | None = None, artifacts_root: str | Path | None = None,
                 judge_artifact_dir: str | Path | None = None, build_missing: bool = True,
                 quiet: bool = True) -> None:
        self.resources = Resources(releases_root=releases_root, artifacts_root=artifacts_root,
                                   build_missing=build_missing)
        self.judge_artifact_dir = judge_artifact_dir
        self.quiet = quiet
        self.last_judge_stats: dict[str, int] = {}

    def validate(self, envelope: Envelope, sha256: str) -> Validated:
        return validate_envelope(envelope, sha256, self.resources)

    def score(self, submission: Validated, *, received_at: str, oracles: OracleConfig) -> Result:
        judge = oracles.judge
        folder = oracles.extra.get("judge_artifact") or self.judge_artifact_dir
        artifact = judge_artifact_for(judge, folder)
        run = score_validated(submission, received_at=received_at, resources=self.resources, judge=judge,
                              judge_artifact=artifact, quiet=self.quiet)
        self.last_judge_stats = run.judge_stats
        return run.result

    def audit(self, result: Result, item_id: str, submission: Validated | None) -> AuditView:
        return audit_view(result, item_id, submission, self.resources)
