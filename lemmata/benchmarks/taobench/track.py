"""The TaoBench ``proofs`` track behind the shared track-handler interface (uploads to the leaderboard space).

Oracles: ``OracleConfig.lean`` is a live :class:`~lemmata.oracles.lean.LeanVerifier` (or None);
``OracleConfig.extra["lean_artifact"]`` names a frozen verifier artifact folder to read verdicts from
(default: ``LEMMATA_LEAN_ARTIFACT``, else the live verifier's default folder). With neither, every
attempt that passes the integrity checks is pending.
"""

from __future__ import annotations

import json
from pathlib import Path
from lemmata.core.settings import read as setting
from lemmata.core.errors import InputError, LemmataError
from lemmata.oracles.lean import LeanArtifact, default_artifact_dir
from lemmata.formats.results import Result
from lemmata.tracks.base import AuditView, OracleConfig, TrackHandler, Validated
from lemmata.formats.envelope import Envelope
from lemmata.oracles.kimina_double import DOUBLE_LEAN_VERSION
from lemmata.benchmarks.taobench.release import TaoRelease, open_taobench
from lemmata.benchmarks.taobench.runner_log import RunnerLogCheck
from lemmata.benchmarks.taobench.scoring import INTEGRITY_VERSION, PROBE_VERSION, Verification, score_submission
from lemmata.benchmarks.taobench.submission import BENCHMARK, TRACK, parse_submission

ENV_ARTIFACT = "LEMMATA_LEAN_ARTIFACT"
MAX_SHOWN_CHARS = 20_000


def verification_for(oracles: OracleConfig, *, allow_double: bool = False) -> Verification:
    """The artifact to read (and, with a live verifier, to append to) for this scoring run."""
    verifier = oracles.lean
    folder = oracles.extra.get("lean_artifact") or setting(ENV_ARTIFACT)
    checks = {"integrity": INTEGRITY_VERSION, "probe": PROBE_VERSION}
    artifact = None
    if verifier is not None:
        folder = folder or default_artifact_dir(BENCHMARK, verifier.identity)
        artifact = LeanArtifact(folder, benchmark=BENCHMARK, identity=verifier.identity, checks=checks)
    elif folder is not None and (Path(folder) / "ARTIFACT.json").is_file():
        artifact = LeanArtifact.open(folder)
        if artifact.checks != checks:
            raise LemmataError(f"{folder} holds verdicts made after checks {artifact.checks}, not {checks}")
    if artifact is not None and artifact.identity.lean_version == DOUBLE_LEAN_VERSION and not allow_double:
        raise LemmataError("the configured Lean server is the protocol double (lexical checks only); its verdicts "
                           "cannot score a leaderboard entry")
    return Verification(artifact=artifact, verifier=verifier)


class TaoBenchProofsHandler(TrackHandler):
    benchmark = BENCHMARK
    tracks = (TRACK,)
    guide_note = ("build the example with `lemmata taobench example --out submission.jsonl` (attempts are complete "
                  "Lean files, built from the release)")

    @classmethod
    def schema_files(cls):
        from lemmata.formats.schema import SchemaFile
        from lemmata.benchmarks.taobench.submission import schema_text

        return [SchemaFile(cls.benchmark, "taobench-proofs.schema.json", schema_text())]

    def __init__(self, releases_root: str | Path | None = None) -> None:
        self.releases_root = releases_root
        self._releases: dict[str, TaoRelease] = {}

    def release(self, release_id: str) -> TaoRelease:
        if release_id not in self._releases:
            self._releases[release_id] = open_taobench(release_id, self.releases_root)
        return self._releases[release_id]

    def validate(self, envelope: Envelope, sha256: str) -> Validated:
        header, records = parse_submission(envelope, known_fqns=lambda rid: self.release(rid).fqns())
        n_attempts = sum(len(r.attempts) for _, r in records)
        summary = (f"{header.model.name}: {len(records)} record(s), {n_attempts} attempt(s) on {header.release} "
                   f"({', '.join(header.formulations)}; n = {header.n})")
        return Validated(benchmark=BENCHMARK, track=TRACK, model=header.model, header=header,
                         records=[r for _, r in records], sha256=sha256, filename=envelope.filename, summary=summary,
                         needs_oracle=True, lines=tuple(line for line, _ in records))

    def check_runner_log(self, submission: Validated, log: bytes, filename: str) -> RunnerLogCheck:
        from lemmata.benchmarks.taobench.runner_log import check_runner_log

        header = submission.header
        return check_runner_log(self.release(header.release), header, submission.records, submission.lines, log,
                                filename, submission.filename)

    def score(self, submission: Validated, *, received_at: str, oracles: OracleConfig) -> Result:
        header = submission.header
        if submission.runner_log is not None:  # the log's structure was checked on upload; now every attempt
            from lemmata.benchmarks.taobench.runner_log import check_attempts

            check_attempts(self.release(header.release), submission.records, submission.lines, submission.runner_log,
                           submission.filename)
        verification = verification_for(oracles, allow_double=bool(oracles.extra.get("allow_double")))
        return score_submission(self.release(header.release), header, submission.records,
                                submission_sha256=submission.sha256, received_at=received_at,
                                verification=verification, runner_log=submission.runner_log)

    def audit(self, result: Result, item_id: str, submission: Validated | None) -> AuditView:
        item = next((it for it in result.items if it.get("item_id") == item_id), None)
        if item is None:
            raise InputError.one(result.result_id, f"no item {item_id!r} in this result", field="item_id")
        release = self.release(result.frozen.dataset_release)
        official = release.item(item["fqn"], item["formulation"])
        context = ""
        if "local_definitions" in item:
            from lemmata.benchmarks.taobench.context import bucket

            count = item["local_definitions"]
            defs = f"{count} local definition{'s' if count != 1 else ''}"
            context = (f", {defs} (bucket {bucket(count)})" if item["formulation"] == "tao"
                       else f", bucket {bucket(count)} (its Tao twin's {defs})")
        sections: list[tuple[str, str]] = [
            ("Exercise", f"`{item['fqn']}` ({item['formulation']}), chapter {item['chapter']}{context}: "
                         f"{item['c']} of {item['n']} attempts passed, {item['pending']} pending.\n\n"
                         f"```lean\n{official.statement}\n```"),
        ]
        texts: list[str] = []
        if submission is not None:
            rec = next((r for r in submission.records
                        if r.fqn == item["fqn"] and r.formulation == item["formulation"]), None)
            texts = list(rec.attempts) if rec is not None else []
        for a in item["attempts"]:
            lines = [f"**{a['outcome']}**"]
            for v in a.get("violations", []):
                lines.append(f"- {v['kind']} (line {v['line']}): {v['message']}")
            if "lean" in a:
                lines.append(f"- Lean {a['lean'].get('lean_version')} / Mathlib {a['lean'].get('mathlib_version')}: "
                             f"{a['lean'].get('reason')}")
            if a["attempt"] < len(texts):
                text = texts[a["attempt"]]
                shown = text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS] + "\n-- … (truncated)"
                lines.append(f"\n```lean\n{shown}\n```")
            sections.append((f"Attempt {a['attempt'] + 1} · sha256 {a['sha256'][:12]}", "\n".join(lines)))
        if not item["attempts"]:
            sections.append(("Attempts", "No record for this exercise: its n attempts count as failed."))
        sections.append(("Item record", "```json\n" + json.dumps(item, indent=2, ensure_ascii=False) + "\n```"))
        sections.append(("This entry: pass@k for every k ≤ n", curve_table(result)))
        if result.breakdowns.get("local_definitions"):
            sections.append(("This entry: pass@k by local definitions", bucket_table(result.breakdowns)))
        return AuditView(item_id=item_id, sections=sections)


def curve_table(result: Result) -> str:
    """The entry's pass@k curves (every k ≤ n, each formulation) as a markdown table; with pending attempts, the
    value counting them as failed and, after "≤", as passed."""
    from lemmata.benchmarks.taobench.scoring import pass_at_k_curves

    curves = pass_at_k_curves(result.items)
    forms = list(curves)
    rows = ["| k | " + " | ".join(forms) + " |", "|---|" + "---|" * len(forms)]
    for i in range(max((len(c["value"]) for c in curves.values()), default=0)):
        cells = []
        for f in forms:
            low, high = curves[f]["value"][i], curves[f]["upper_if_pending_pass"][i]
            cells.append(f"{low:.4f}" if high == low else f"{low:.4f} ≤ {high:.4f}")
        rows.append(f"| {i + 1} | " + " | ".join(cells) + " |")
    return ("Mean unbiased pass@k over the entry's exercises (attempts not submitted count as failed"
            + ("; pending attempts as failed, after ≤ as passed" if result.pending else "") + ").\n\n"
            + "\n".join(rows))


def bucket_table(breakdowns: dict) -> str:
    """The entry's pass@k in each local-definition bucket (how many definitions the exercise's Tao file declares
    before it; the Mathlib twin counted in its Tao twin's bucket), one column per formulation and k.

    >>> print(bucket_table({"local_definitions": {"tao": {"pass@1": {"0": {"n_items": 2, "value": 0.5}}},
    ...                                          "mathlib": {"pass@1": {"0": {"n_items": 2, "value": 1.0}}}}}))
    ... # doctest: +NORMALIZE_WHITESPACE
    Mean pass@k over the exercises of each bucket (pending attempts as failed); buckets by the number of definitions
    the exercise's Tao file declares before it.
    <BLANKLINE>
    | local definitions | exercises | tao pass@1 | mathlib pass@1 |
    |---|---|---|---|
    | 0 | 2 | 0.5000 | 1.0000 |
    """
    from lemmata.benchmarks.taobench.context import BUCKETS

    table = breakdowns["local_definitions"]
    columns = [(f, k) for f, by_k in table.items() for k in by_k]
    rows = ["| local definitions | exercises | " + " | ".join(f"{f} {k}" for f, k in columns) + " |",
            "|---|---|" + "---|" * len(columns)]
    for label, _ in BUCKETS:
        cells = [table[f][k].get(label) for f, k in columns]
        if not any(cells):
            continue
        n_items = next(c["n_items"] for c in cells if c)
        rows.append(f"| {label} | {n_items} | "
                    + " | ".join(f"{c['value']:.4f}" if c else "—" for c in cells) + " |")
    return ("Mean pass@k over the exercises of each bucket (pending attempts as failed); buckets by the number of "
            "definitions the exercise's Tao file declares before it.\n\n" + "\n".join(rows))
