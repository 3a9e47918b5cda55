"""The Re²Math live protocol: score a submission against a *live frozen tuple*.

A live frozen tuple is what a live run (Google Scholar through SerpAPI, arXiv,
a judge) leaves behind, frozen so that anyone can rescore it without a network:

* ``retrieval_artifact`` — the SerpAPI recording frozen as a query cache
  (:func:`~lemmata.benchmarks.re2math.scholar.querycache.freeze_query_cache`);
  every recorded query replays exactly, an unrecorded one is a problem of the
  submission;
* ``materialisation_artifact`` (header field) — the materialisation store
  (:class:`~lemmata.materialisers.MaterialisationStore`) holding the fixed text
  of every opened source, verified against its MANIFEST when opened and every
  text re-hashed when read;
* the judge artifact — verdicts of the live rubrics (``ground.v2`` and
  ``suff_noanchor.v2``, fenced: see :mod:`lemmata.oracles.fence`), keyed by the
  sha256 of the exact prompt.

Ground is judged on the fixed text of the one source the system opened, but
the judge is shown *excerpts* matched to the predicted statement within
:data:`EXCERPT_BUDGET` characters: theorem-like statements and prose windows
ranked by lexical overlap with the statement (:func:`excerpts`), never simply
the first characters. Suff is asked without the anchor hint. The headline is
the paper's ToolAcc = Ground ∧ Suff; OracleCoverage is the share of instances
whose *cited* source is materialised in the store (:func:`lemmata.materialisers.coverage`
over the log). An opened source that is not materialised leaves its item
pending with the reason: never a success.

Both artifacts are read offline; with ``LEMMATA_ARXIV_BASE_URL`` /
``LEMMATA_ARXIV_API_URL`` set or ``LEMMATA_MATERIALISE=1`` missing sources are
materialised into the store first, and with a judge configured missing
verdicts are asked. Nothing here is shown to the system: the agent
(:mod:`~lemmata.benchmarks.re2math.agent.live_agent`) only sees search results and
the text of the source it opens.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lemmata.core.settings import read as setting
from lemmata.core.errors import InputError, Problem
from lemmata.core.hashing import sha256_json
from lemmata.formats.envelope import Envelope
from lemmata.formats.results import FrozenTuple, Result, Score, make_result
from lemmata.oracles.judge import Judge, JudgeArtifact, default_artifact_dir, load_rubric
from lemmata.tracks.base import Validated

PROTOCOL = "re2math-live/1"
#: characters of excerpts of the opened source's fixed text shown to the Ground judge
EXCERPT_BUDGET = 12_000
#: characters of one prose window (consecutive paragraphs) ranked as one excerpt unit
PROSE_WINDOW = 1_500
#: candidates per query, as in the paper (top 20)
CANDIDATES_N = 20
MATERIALISE_ENV = "LEMMATA_MATERIALISE"
#: the live rubric set: the paper's Ground rubric, and Suff without the anchor hint
LIVE_RUBRIC_VERSIONS = {"ground": ("ground", 2), "suff": ("suff_noanchor", 2)}
_STATEMENT = re.compile(r"^\[(?!/)([^\]\n]+)\]\n(.*?)\n\[/[^\]\n]*\]$", re.M | re.S)
_TOKEN = re.compile(r"\\[A-Za-z]+|[A-Za-z]{2,}|\d+")
_STOP = frozenset("the and for that with this from are any let then there be is of in on to by as an or if we it "
                  "its such which where all has have".split())


def is_live(header: Any) -> bool:
    """Whether a submission header names a live frozen tuple (a materialisation artifact)."""
    value = header.get("materialisation_artifact") if isinstance(header, Mapping) else \
        getattr(header, "materialisation_artifact", None)
    return value is not None


def live_rubrics() -> dict[str, Any]:
    return {key: load_rubric(name, version) for key, (name, version) in LIVE_RUBRIC_VERSIONS.items()}


# --------------------------------------------------------------------------- excerpts


def tokens(text: str) -> set[str]:
    """Lower-cased words, numbers and LaTeX command names, without stop words.

    >>> sorted(tokens(r"Let $T$ be a tile with \\dens(P) \\le 1"))
    ['1', '\\\\dens', '\\\\le', 'tile']
    """
    return {t.lower() for t in _TOKEN.findall(text)} - _STOP


@dataclass(frozen=True)
class Unit:
    start: int
    text: str
    kind: str  # "statement" or "prose"


def units(text: str, window: int = PROSE_WINDOW) -> list[Unit]:
    """The fixed text cut into theorem-like statements (whole) and prose windows of paragraphs, in order.

    >>> [u.kind for u in units("% h\\n\\nA para.\\n\\n[Theorem 1]\\nX holds.\\n[/Theorem 1]\\n\\nB para.")]
    ['prose', 'statement', 'prose']
    """
    out: list[Unit] = []

    def prose(start: int, chunk: str) -> None:
        buf, buf_start, pos = "", start, start
        for para in re.split(r"(\n\s*\n)", chunk):
            if not para.strip() or para.lstrip().startswith("% "):
                pos += len(para)
                continue
            if buf and len(buf) + len(para) > window:
                out.append(Unit(buf_start, buf.strip(), "prose"))
                buf = ""
            if not buf:
                buf_start = pos
            buf += ("\n\n" if buf else "") + para.strip()
            pos += len(para)
        if buf.strip():
            out.append(Unit(buf_start, buf.strip()[: max(window, 1) * 2], "prose"))

    last = 0
    for m in _STATEMENT.finditer(text):
        prose(last, text[last:m.start()])
        out.append(Unit(m.start(), m.group(0), "statement"))
        last = m.end()
    prose(last, text[last:])
    return sorted(out, key=lambda u: u.start)


def excerpts(text: str, statement: str, budget: int = EXCERPT_BUDGET) -> tuple[str, list[int]]:
    """Excerpts of ``text`` matched to ``statement`` within ``budget`` characters, in document order.

    Units are ranked by the share of the statement's tokens they contain
    (statements before prose on a tie, then the shorter, then the earlier);
    taken greedily while they fit. Returns the excerpt text and the chosen
    units' offsets in ``text`` (recorded with the verdict's prompt).

    >>> doc = "Intro about tiles.\\n\\n[Lemma 1]\\nEvery group is abelian.\\n[/Lemma 1]\\n\\n" \\
    ...       "[Theorem 2]\\nEvery periodic packing has density at most one half.\\n[/Theorem 2]"
    >>> text, starts = excerpts(doc, "periodic packings have density at most 1/2", budget=90)
    >>> "[Theorem 2]" in text and "abelian" not in text, starts
    (True, [66])
    """
    want = tokens(statement)
    if not want:
        return "", []
    scored = []
    for u in units(text):
        share = len(want & tokens(u.text)) / len(want)
        if share > 0:
            scored.append((-share, u.kind != "statement", len(u.text), u.start, u))
    scored.sort(key=lambda t: t[:4])
    chosen: list[Unit] = []
    used = 0
    sep = "\n\n[…]\n\n"
    for *_, u in scored:
        cost = len(u.text) + (len(sep) if chosen else 0)
        if used + cost > budget:
            if not chosen and budget > 0:  # the best unit alone is too long: keep its head
                chosen.append(Unit(u.start, u.text[:budget], u.kind))
                used = budget
            continue
        chosen.append(u)
        used += cost
    chosen.sort(key=lambda u: u.start)
    return sep.join(u.text for u in chosen), [u.start for u in chosen]


# --------------------------------------------------------------------------- the frozen tuple


def open_store(folder: str | Path):
    """A materialisation store opened under the text settings it records (all of it verified first)."""
    from pydantic import ValidationError

    from lemmata.materialisers.store import STORE_FILE, MaterialisationStore, StoreHeader

    folder = Path(folder)
    path = folder / STORE_FILE
    if not path.is_file():
        raise InputError.one(str(folder), f"not a materialisation store (no {STORE_FILE})",
                             field="materialisation_artifact")
    try:
        header = StoreHeader.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        raise InputError.one(str(path), f"not a materialisation store header ({exc.errors()[0]['msg']})")
    if sha256_json(header.text_settings) != header.text_settings_sha256:
        raise InputError.one(str(path), "text_settings_sha256 is not the hash of text_settings",
                             field="text_settings_sha256")
    return MaterialisationStore(folder, text_settings=header.text_settings,
                                text_settings_sha256=header.text_settings_sha256)


def materialise_configured(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the environment configures live materialisation (arXiv URLs, or ``LEMMATA_MATERIALISE=1``)."""
    from lemmata.materialisers.settings import API_URL_ENV, BASE_URL_ENV

    return bool(setting(BASE_URL_ENV, environ) or setting(API_URL_ENV, environ)
                or (setting(MATERIALISE_ENV, environ) or "").lower() in ("1", "true", "yes"))


def source_request(candidate: Any):
    """The materialisation request of a search candidate (its arXiv id, else its DOI), or None."""
    from lemmata.materialisers import SourceRequest

    if getattr(candidate, "arxiv_id", None):
        return SourceRequest(arxiv_id=candidate.arxiv_id)
    if getattr(candidate, "doi", None):
        try:
            return SourceRequest(doi=candidate.doi)
        except ValueError:
            return None
    return None


def cited_request(row: Mapping[str, Any]):
    """The materialisation request of an instance's cited source (release ``z``), or None."""
    from lemmata.materialisers import SourceRequest

    z = row["z"]
    try:
        if (z.get("arxiv_id") or "").strip():
            return SourceRequest(arxiv_id=z["arxiv_id"])
        if (z.get("doi") or "").strip():
            return SourceRequest(doi=z["doi"])
    except ValueError:
        return None
    return None


@dataclass
class LiveTuple:
    """The opened artifacts of a live frozen tuple (the judge artifact comes with the scoring call)."""

    backend: Any  # ReplayBackend of the frozen SerpAPI recording
    store: Any  # MaterialisationStore
    store_folder: Path
    materialiser: Any = None  # a live Materialiser over the same store, when configured

    def opened(self, request) -> tuple[str | None, str]:
        """(fixed text, reason) of a request: the text when materialised, else None and why not."""
        rec = self.store.lookup(request.key)
        if rec is None and self.materialiser is not None:
            rec = self.materialiser.materialise(request).record
        if rec is None:
            return None, (f"{request.key} is not in the materialisation store and live materialisation is not "
                          "configured")
        if rec.status != "materialised":
            return None, f"{request.key} is {rec.status}: {rec.reason}"
        return self.store.read_text(rec), ""


def open_tuple(header: Any, artifacts_root: Path, *, environ: Mapping[str, str] | None = None) -> LiveTuple:
    from lemmata.benchmarks.re2math.scholar.querycache import QUERIES_FILE, ReplayBackend

    cache = artifacts_root / header.retrieval_artifact
    if not (cache / QUERIES_FILE).is_file():
        raise InputError.one(str(cache), f"live protocol: retrieval artifact {header.retrieval_artifact} is not a "
                                         f"frozen query cache under {artifacts_root}", field="header.retrieval_artifact")
    backend = ReplayBackend.open(cache)
    folder = artifacts_root / header.materialisation_artifact
    store = open_store(folder)
    materialiser = None
    if materialise_configured(environ):
        from lemmata.materialisers import Materialiser

        materialiser = Materialiser.from_env(folder, environ=environ)
        store = materialiser.store
    return LiveTuple(backend=backend, store=store, store_folder=folder, materialiser=materialiser)


# --------------------------------------------------------------------------- validation


def validate_live(envelope: Envelope, sha256: str, resources: Any, artifacts_root: Path) -> Validated:
    """Validate a live submission: release, split, ids, and every query replayed from the frozen recording."""
    from lemmata.benchmarks.re2math.scholar.querycache import NotRecordedError
    from lemmata.benchmarks.re2math.submission import BENCHMARK, parse_submission
    from lemmata.benchmarks.re2math.validation import result_track, unknown_release

    header, records = parse_submission(envelope)
    name, hl = envelope.filename, envelope.header_line
    msg = unknown_release(header.release)
    if msg:
        raise InputError([Problem(name, msg, hl, "header.release")])
    if header.oracle_run:
        raise InputError([Problem(name, "the live protocol has no oracle-source run (OracleCoverage comes from the "
                                        "materialisation log)", hl, "header.oracle_run")])
    rows = resources.rows(header.release, header.split)
    live = open_tuple(header, Path(artifacts_root), environ={})
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for line, rec in records:
        iid = rec.instance_id
        if iid in seen:
            problems.append(Problem(name, f"duplicate instance_id (first on line {seen[iid]})", line, "instance_id"))
            continue
        seen[iid] = line
        row = rows.get(iid)
        if row is None:
            problems.append(Problem(name, f"unknown instance_id {iid!r}: not an instance of {header.release} "
                                          f"{header.split}", line, "instance_id"))
            continue
        for qi, q in enumerate(rec.queries):
            try:
                got = live.backend.search(q.text, row["publication_year"], CANDIDATES_N).ids()
            except NotRecordedError:
                problems.append(Problem(name, f"query {qi} was never recorded in {header.retrieval_artifact} "
                                              f"(year cutoff {row['publication_year']}, n={CANDIDATES_N})", line,
                                        f"queries.{qi}.text"))
                continue
            if got != q.candidates:
                problems.append(Problem(name, f"replayed query {qi} differs from the recording of "
                                              f"{header.retrieval_artifact}", line, f"queries.{qi}.candidates"))
        if rec.selected_source is not None and rec.selected_source not in rec.candidate_ids():
            problems.append(Problem(name, f"selected source {rec.selected_source!r} was not returned by any query "
                                          "of this record", line, "selected_source"))
    missing = [iid for iid in rows if iid not in seen]
    if missing:
        problems.append(Problem(name, f"{len(missing)} instance(s) of {header.split} have no record: "
                                      + ", ".join(missing[:25]), field="instance_id"))
    if problems:
        raise InputError(problems)
    return Validated(benchmark=BENCHMARK, track=result_track(header.track, header.window), model=header.model,
                     header=header, records=records, sha256=sha256, filename=name, needs_oracle=True,
                     summary=(f"{len(records)} instances of {header.release} {header.split} (live protocol), "
                              f"{sum(len(r.queries) for _, r in records)} queries replayed from "
                              f"{header.retrieval_artifact}; opened sources read from {header.materialisation_artifact}"))


# --------------------------------------------------------------------------- scoring


def live_judge_artifact(judge: Judge | None, folder: str | Path | None = None) -> JudgeArtifact | None:
    """The judge artifact of the live rubric set (``folder`` / ``$LEMMATA_JUDGE_ARTIFACT``, else the default one)."""
    from lemmata.benchmarks.re2math.judging import ENV_JUDGE_ARTIFACT
    from lemmata.benchmarks.re2math.submission import BENCHMARK
    from lemmata.oracles.judge import ARTIFACT_FILE, ArtifactManifest

    rubric_set = live_rubrics()
    folder = folder or setting(ENV_JUDGE_ARTIFACT)
    judge_id = judge.judge_id if judge is not None else None
    if folder is not None:
        if judge_id is None:
            path = Path(folder) / ARTIFACT_FILE
            if not path.is_file():
                return None
            judge_id = ArtifactManifest.model_validate_json(path.read_text("utf-8")).judge["id"]
        return JudgeArtifact(folder, benchmark=BENCHMARK, judge_id=judge_id, rubrics=rubric_set,
                             describe=judge.describe() if judge else None)
    judge_id = judge_id or setting("LEMMATA_JUDGE_ID")
    if judge_id is None:
        return None
    return JudgeArtifact(default_artifact_dir(BENCHMARK, judge_id, rubric_set), benchmark=BENCHMARK,
                         judge_id=judge_id, rubrics=rubric_set, describe=judge.describe() if judge else None)


@dataclass
class LiveItem:
    row: dict[str, Any]
    rec: Any
    candidate: Any = None
    source_match: str = "none"
    cite_rank: int | None = None
    ground_rule: tuple[str, str] | None = None
    ground_q: Any = None
    suff_q: Any = None
    excerpt_starts: list[int] = field(default_factory=list)


def ground_question(row, source_id: str, title: str, text: str, statement: str):
    from lemmata.benchmarks.re2math.judging import Question

    shown, starts = excerpts(text, statement)
    if not shown:
        shown = "(no passage of the source shares a word with the statement)"
    values = {"source_id": source_id, "source_title": title, "source_text": shown, "statement": statement}
    rubric = live_rubrics()["ground"]
    rendered = rubric.prepare(values)
    return Question(rubric="ground", values=values, settled=rubric.settle(rendered),
                    fields={"instance_id": row["instance_id"], "source_id": source_id, "statement": statement,
                            "prompt_sha256": sha256_json(rendered.messages)}), starts


def suff_question(row, source_id: str, statement: str):
    from lemmata.benchmarks.re2math.judging import Question, proof_blocks

    x = row["x"]
    values = {"setup": x["global_context"]["setup"].strip(), "target_theorem": x["global_context"]["target_theorem"].strip(),
              "local_context": proof_blocks(row), "reference_statement": row["y"]["reference_tool_latex"].strip(),
              "statement": statement}
    rubric = live_rubrics()["suff"]
    rendered = rubric.prepare(values)
    return Question(rubric="suff", values=values, settled=rubric.settle(rendered),
                    fields={"instance_id": row["instance_id"], "source_id": source_id, "statement": statement,
                            "prompt_sha256": sha256_json(rendered.messages)})


def assess_live(row: dict[str, Any], rec: Any, live: LiveTuple) -> LiveItem:
    """Judge-free part of one record: the opened candidate, CiteRecall rank, citing-paper rule, the Ground question."""
    from lemmata.benchmarks.re2math.scholar.matcher import is_citing_paper, match_candidate

    item = LiveItem(row=row, rec=rec)
    results = [live.backend.search(q.text, row["publication_year"], CANDIDATES_N) for q in rec.queries]
    by_id = {c.id: c for r in results for c in r.candidates}
    ranks = [c.rank for r in results for c in r.candidates if match_candidate(c, row["z"]).matched]
    item.cite_rank = min(ranks) if ranks else None
    source, statement = rec.selected_source, rec.statement
    if source is None or statement is None:
        item.ground_rule = ("abstain", "no source selected" if source is None else "no statement extracted")
        return item
    cand = item.candidate = by_id[source]
    item.source_match = "cited" if match_candidate(cand, row["z"]).matched else "alternative"
    citing = is_citing_paper(cand, row)
    if citing.matched:
        item.ground_rule = ("no", f"the selected source is the instance's citing paper ({citing.reason}); "
                                  "a gap cannot be closed by the paper it comes from")
        return item
    request = source_request(cand)
    if request is None:
        item.ground_rule = ("pending", "the opened source has no arXiv id or DOI: no fixed text can be materialised")
        return item
    text, why = live.opened(request)
    if text is None:
        item.ground_rule = ("pending", f"the opened source is not materialised: {why}")
        return item
    item.ground_q, item.excerpt_starts = ground_question(row, source, cand.title, text, statement)
    return item


def oracle_coverage(rows: Sequence[Mapping[str, Any]], live: LiveTuple) -> tuple[dict[str, Any], list[bool]]:
    """OracleCoverage from the materialisation log: the share of instances whose cited source is materialised."""
    from lemmata.materialisers import coverage

    covered: list[bool] = []
    records = []
    for row in rows:
        req = cited_request(row)
        rec = None
        if req is not None:
            rec = live.store.lookup(req.key)
            if rec is None and live.materialiser is not None:
                rec = live.materialiser.materialise(req).record
        if rec is not None:
            records.append(rec)
        covered.append(rec is not None and rec.status == "materialised")
    return coverage(records), covered


def score_live(validated: Validated, *, received_at: str, artifacts_root: Path, resources: Any,
               judge: Judge | None, judge_artifact: JudgeArtifact | None, quiet: bool = True,
               environ: Mapping[str, str] | None = None) -> Result:
    """Score a validated live submission into an immutable result (headline: the paper's ToolAcc)."""
    from lemmata import __version__
    from lemmata.benchmarks.re2math.aggregate import as_verdict, by_stratum, received_date
    from lemmata.benchmarks.re2math.judging import addressing_flags, conj, needs_suff, resolve, verdict
    from lemmata.oracles.canaries import marks as canary_marks
    from lemmata.oracles.fence import marks
    from lemmata.benchmarks.re2math.submission import BENCHMARK
    from lemmata.metrics.rates import summarize_rate
    from lemmata.metrics.tool_acc import tool_acc_report
    from lemmata.oracles.judge import artifact_id

    header = validated.header
    live = open_tuple(header, artifacts_root, environ=environ)
    rows = resources.rows(header.release, header.split)
    records = {rec.instance_id: rec for _, rec in validated.records}
    items = [assess_live(row, records[iid], live) for iid, row in rows.items()]
    resolve([i.ground_q for i in items if i.ground_q], judge_artifact, judge, quiet=quiet, desc="Ground (live)")
    for i in items:
        g = verdict(i.ground_q, i.ground_rule)[0]
        if i.ground_rule is None and needs_suff(g):
            i.suff_q = suff_question(i.row, i.rec.selected_source, i.rec.statement)
    resolve([i.suff_q for i in items if i.suff_q], judge_artifact, judge, quiet=quiet, desc="Suff (live)")

    cov, covered = oracle_coverage(list(rows.values()), live)
    out_items, verdicts = [], []
    for i in items:
        row = i.row
        ground = verdict(i.ground_q, i.ground_rule)
        if i.ground_rule is not None and i.ground_rule[0] == "pending":
            ground = ("pending", i.ground_rule[1], "pending")
        if i.rec.statement is None or i.rec.selected_source is None:
            suff = ("abstain", "no statement", "rule")
        elif not needs_suff(ground[0]):
            suff = ("not_evaluable", "not asked: Ground is negative, so ToolAcc is settled", "rule")
        elif i.suff_q is None:
            suff = ("pending", "asked once the source is materialised and Ground is judged", "pending")
        else:
            suff = verdict(i.suff_q, None)
        tool = conj(ground[0], suff[0])
        flags = addressing_flags(i.ground_q, i.suff_q)
        out_items.append({
            "instance_id": row["instance_id"], "paper_key": row["paper_key"], "domain": row["domain"],
            "tool_family": row["strata"]["tool_family"], "queries": len(i.rec.queries),
            "candidates": len(i.rec.candidate_ids()), "cite_rank": i.cite_rank,
            "selected_source": i.rec.selected_source, "source_match": i.source_match,
            "opened": source_request(i.candidate).key if i.candidate is not None and source_request(i.candidate)
            else None, "excerpt_offsets": i.excerpt_starts,
            "ground": as_verdict(ground), "suff": as_verdict(suff), "anchor_match": None, "tool_acc": tool,
            "oracle": None, "pending": "pending" in (ground[0], suff[0]), **({"flags": flags} if flags else {}),
        })
        verdicts.append({"instance_id": row["instance_id"], "paper_key": row["paper_key"], "domain": row["domain"],
                         "ground": ground[0], "suff": suff[0], "anchor_match": None, "cite_rank": i.cite_rank,
                         "selected_source": i.source_match, "oracle_evaluable": False})
    report = tool_acc_report(verdicts, cite_recall_n=CANDIDATES_N)
    metrics: dict[str, Any] = {}
    for name, m in report.metrics().items():
        if name in ("OracleCoverage", "Oracle ToolAcc"):
            continue
        metrics[name] = {**m.model_dump(mode="json"), "final": m.pending == 0}
    oc = summarize_rate("OracleCoverage", covered)
    metrics["OracleCoverage"] = {**oc.model_dump(mode="json"), "final": True}
    tool = report.tool_acc
    n_pending = sum(1 for i in out_items if i["pending"])
    complete = tool.pending == 0
    notes = [header.notes.strip()] if header.notes.strip() else []
    not_mat = sum(1 for i in items if i.ground_rule and i.ground_rule[0] == "pending")
    if not_mat:
        notes.append(f"{not_mat} item(s) opened a source that is not materialised: pending, never a success.")
    if n_pending:
        notes.append(f"{n_pending} of {len(out_items)} items are pending"
                     + (" (no judge configured)." if judge is None else "."))
    if not complete:
        notes.append(f"ToolAcc is not final: {tool.pending} item(s) pending; {tool.count} confirmed so far.")
    addressed = marks(out_items, "items", 'their statement was settled "no" by the rubric\'s rule')
    notes += addressed.notes
    metrics.update(addressed.metrics)
    canary = canary_marks(judge_artifact)
    notes += canary.notes
    notes.append(f"Live protocol ({PROTOCOL}): Ground judged on excerpts (at most {EXCERPT_BUDGET:,} characters) "
                 "of the opened source's fixed text; Suff without the anchor hint.")
    scoring_id = (judge_artifact.artifact_id if judge_artifact is not None
                  else artifact_id(BENCHMARK, "none", live_rubrics()))
    return make_result(
        kind="scored", benchmark=BENCHMARK, track=validated.track,
        frozen=FrozenTuple(dataset_release=header.release, split=header.split,
                           retrieval_artifact=header.retrieval_artifact, scoring_artifact=scoring_id,
                           date=received_date(received_at)),
        submission_sha256=validated.sha256, model=header.model,
        flags={**header.flags.model_dump(), "window": header.window, "input_track": header.track,
               "oracle_run": False, "protocol": PROTOCOL, "materialisation_artifact": header.materialisation_artifact,
               **addressed.flags, **canary.flags},
        main=Score(metric="ToolAcc", value=tool.rate if complete else None,
                   interval=tool.wilson95 if complete else None, interval_kind="wilson95" if complete else None,
                   count=tool.count, total=tool.total),
        metrics=metrics,
        breakdowns={"failure_decomposition": report.failure_decomposition.model_dump(mode="json"),
                    "by_tool_family": by_stratum(out_items, "tool_family"), "materialisation": cov},
        items=out_items, pending=n_pending, status="complete" if n_pending == 0 else "pending_oracle", notes=notes,
        provenance={
            "scorer": PROTOCOL, "lemmata": __version__,
            "retrieval_artifact": {"id": header.retrieval_artifact, "queries": len(live.backend),
                                   "manifest_sha256": _manifest_sha(artifacts_root / header.retrieval_artifact)},
            "materialisation_artifact": {"id": header.materialisation_artifact,
                                         "manifest_sha256": _manifest_sha(live.store_folder),
                                         "text_settings_sha256": live.store.header.text_settings_sha256},
            "scoring_artifact": (judge_artifact.describe() if judge_artifact is not None else
                                 {"artifact_id": scoring_id, "judge": {"id": "none"},
                                  "rubrics": {n: {"id": r.id, "sha256": r.sha256} for n, r in live_rubrics().items()}}),
            "excerpt_budget": EXCERPT_BUDGET, "prose_window": PROSE_WINDOW, "candidates_per_query": CANDIDATES_N,
            "bootstrap": {"resamples": report.n_resamples, "seed": report.seed, "cluster": "paper_key"},
            **({"judge_canaries": canary.record} if canary.record else {}),
        },
    )


def _manifest_sha(folder: Path) -> str | None:
    from lemmata.core.hashing import sha256_file
    from lemmata.release.manifest import MANIFEST

    path = Path(folder) / MANIFEST
    return sha256_file(path) if path.is_file() else None
