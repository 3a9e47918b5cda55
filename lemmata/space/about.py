"""About and cite: the ranking policy in plain words, and per release its BibTeX, CITATION.cff and Croissant."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lemmata import __version__
from lemmata.core.meta import BenchmarkMeta
from lemmata.release.citation import lemmata_bibtex
from lemmata.space.safety import md_escape, safe_url

#: "How to cite Lemmata": the same words as the README; the BibTeX says what the root CITATION.cff says
CITE_LEMMATA_MD = f"""
### How to cite Lemmata

Cite the work of every benchmark whose data or numbers you use: each release below has its BibTeX and
its `CITATION.cff`, whose authors are the benchmark's authors (they made the data; Lemmata only packaged
it). Name the release id (for example `re2math-1.0.0`) and, for leaderboard numbers, the frozen tuple of
the rows you compare. If the releases, the scorer or this leaderboard helped, cite Lemmata as well
(code under the Apache-2.0 licence; `CITATION.cff` at the root of the repository says the same):

```bibtex
{lemmata_bibtex(__version__)}
```
"""

POLICY_MD = """
### How to read this leaderboard

**Every number says what it was computed against.** Each row carries a *frozen tuple*: the dataset
release (for example `re2math-1.0.0`), the split, the retrieval artifact (the frozen corpus and index a
system searched, when the track has one), the scoring artifact (scorer version, judge model and rubric
versions) and the evaluation date.

**Rows are ranked only against rows with the same release, split, retrieval artifact and scoring
artifact.** Those rows form one *group*, shown as one table with the tuple as its caption. A new release,
a rebuilt index or a new judge starts a new group: older rows are never re-ranked against it and never
silently rescored. The date is shown but does not split groups.

**Reported vs scored here.** Rows marked <span class="lm-badge lm-reported">reported</span> are numbers
transcribed from the benchmark's paper; they were not recomputed. Rows marked
<span class="lm-badge lm-scored">scored here</span> were computed by this space from uploaded predictions
with the public scorer, and every item can be inspected in the **Audit** tab. Entries marked
<span class="lm-badge lm-hub">reported on the Hub</span> are read from the Hub's leaderboard of the release's
dataset (a model repository's `.eval_results` file): shown as the repository reports them, with the Hub's own
rank and *verified* flag, in a group of their own, and never ranked with the rows scored here.

**Pending is not success.** Items that need an oracle (an LLM judge, a Lean checker) that was not
available are *pending*: they count as not yet scored, never as correct, and the row shows how many.

**Corrections are new versions.** Stored results are never edited. A rescore that changes anything
stores a new version that supersedes the old one; both stay in the store and in the export.

**Re²Math offline vs the paper's ToolAcc.** The paper's ToolAcc judges Ground against the selected
source's full text. Submissions scored here search an offline retrieval artifact, which has no source full
text, so their headline is **OfflineToolAcc (source identity ∧ Suff)**: grounded means the selected source
is the cited source by the source-identity matcher, and Suff is judged from the gap and the statement alone
(no source text, no anchor hint). It is shown with Offline CiteRecall@20, SourceAcc, SuffRate and
AbstentionRate, and it is never labelled ToolAcc; only the paper's reported rows carry that name. **Offline
grounding is source identity**: a correct statement from an admissible *other* source scores 0 offline (the
paper's judge counts most successes that way), so only the live protocol measures the paper's
citation-invariant ToolAcc; and Offline CiteRecall@20 is measured on the offline world's haystack, never in a
column beside the paper's CiteRecall@20. Re²Math tracks also name their budget: the paper protocol (one
query, at most one source opened, lists of 20) is the plain track, and a declared larger budget is its own
track (for example `raw-q3o5`). Each version of a frozen retrieval artifact ranks in its own group, and results
on a superseded version show a <span class="lm-badge lm-superseded">superseded</span> badge, read from the
artifact's history (listed below) when they are shown: superseding a version rewrites no stored result.

**Grounded offline scoring: GroundedOfflineToolAcc.** Source identity does not check where a statement came
from, and only 70 of the 200 Eval-200 cited records open with an abstract, so OfflineToolAcc rewards a system
that picks the cited record and writes its own statement over one that extracts what it opened. A second
Re²Math scoring artifact (`LEMMATA_RE2MATH_GROUNDING=known-content`) also asks the judge (rubric
`ground_known.v1`) whether the statement is supported by what the cited work is known to contain: its
reference witness (the work's result as the citing paper quotes it) and its opened record (bibliographic data
and, where one exists, the abstract). Its headline is **GroundedOfflineToolAcc**; a grounding the known content
cannot decide is *ungradable* — never counted as grounded, shown as KnownContentUngradable with the range it
leaves (GroundedOfflineToolAccUpper). Its scoring artifact names the rubric, so its rows rank in their own
group; OfflineToolAcc rows keep their meaning and group.

**What a Re²Math system sees offline (world 2.2).** One work is one record: records of one work (the same arXiv
id, or equal folded titles with agreeing authors) are merged, so a record of the cited work is the cited work. A
search hit shows the same five fields for every record —
id, rank, score, title, authors — rendered by one display (LaTeX to text, Unicode NFC, hyphens repaired,
sentence case; author surnames in one ASCII transliteration) with opaque ids (a fixed pseudo-random
permutation). No year, abstract, DOI, arXiv id or venue is shown in a hit, because their presence and
distribution differ between the arXiv distractors, the journal and book distractors and the cited sources:
the display is uniform so that form cannot point to the answer. The world applies each query's year cutoff
itself. Opening a record shows its full bibliographic entry (authors, year, venue, arXiv id or DOI) and the
abstract where one exists — arXiv records only, so an opening still tells more about origin than a hit
(measured by `perf/world_audit.py`).

**Ties share a rank**; the interval next to each score (its kind is shown on hover) says how much the
number could move with a different sample of items.

**One row per system.** A system submitted again to the same group — the same declared model identity: name,
revision, prompts, index, sampling — is listed once, by its newest entry (not its best: keeping the best of
several attempts would rank a maximum); earlier entries keep their audit pages. A paper's reported row is never
merged with a submission.

**Declared conditions.** Submitters declare how a system was built and run; the declarations show as grey
badges next to the model. Conditions that change what the system was given (external tools or data, Lean's
feedback while proving, a different context window) also split the group: such rows are ranked only among
themselves. Disclosures that leave the task unchanged (tuned on the pool or on track data, the attempt
budget) are badges only.

**Runner log.** An entry with the *runner log* badge (TaoBench, MathAtlas, MathNet-Solve, Re²Math) was uploaded
with the request log `lemmata run` wrote: its records match a Lemmata runner request log, with every prompt
recomputed from the release (Re²Math: its first prompt; the later ones show search results) and every record
re-made from its logged answer (TaoBench: n answers per exercise, every attempt re-extracted). The answers themselves are as submitted
and could still be written by hand, so the badge is consistency, not verification; entries without it are
self-reported.

**Printed aggregates that their own cells contradict.** Where a paper prints an average that the mean of
its own printed cells does not support beyond rounding (for example some rows of MIRB's Table 9), the table
is ranked by the recomputed value; the printed number stays beside it with a red flag.
""" + CITE_LEMMATA_MD


def artifacts_md() -> str:
    """Every family's frozen artifacts by version (``Family.artifacts``): which is current, what superseded each
    and why — the one history the board's ``superseded`` badge is read from."""
    from lemmata.families import artifact_families, artifact_versions

    parts = []
    for family in artifact_families():
        history = artifact_versions(family)
        lines = [f"- `{v.artifact_id}`" + (" (current)" if v.version == history.current else
                                           " (declared, not yet current: used where named)" if not v.superseded_by
                                           else f" — superseded by `{v.superseded_by}`: {md_escape(v.why or '')}")
                 for v in history.versions]
        parts.append(f"**Frozen {md_escape(history.kind)} versions ({md_escape(family)}).**\n\n" + "\n".join(lines))
    return "\n\n".join(parts)


def glossary_md() -> str:
    """The glossary section: every column label and its definition, from :mod:`lemmata.metrics.glossary`."""
    from lemmata.metrics.glossary import glossary_markdown

    return glossary_markdown()


@dataclass(frozen=True)
class ReleaseCitation:
    meta: BenchmarkMeta
    folder: Path

    @property
    def built(self) -> bool:
        return (self.folder / "MANIFEST.json").is_file()

    def file(self, name: str) -> Path | None:
        path = self.folder / name
        return path if path.is_file() else None

    def verified_file(self, name: str) -> tuple[Path | None, str]:
        """``(path, "")`` when the release file matches its MANIFEST.json entry (size and sha256), else
        ``(None, why)``: a file is offered for download only as it was built."""
        from lemmata.core.errors import LemmataError
        from lemmata.release.manifest import file_problem, read_manifest

        if not self.built:
            return None, "not built on this server"
        try:
            entry = next((f for f in read_manifest(self.folder).files if f.path == name), None)
        except LemmataError:
            return None, "its MANIFEST.json does not read"
        if entry is None:
            return None, "not in this release's MANIFEST.json"
        if file_problem(self.folder, entry) is not None:
            return None, "differs from this release's MANIFEST.json"
        return self.folder / name, ""

    def files_html(self) -> str:
        """The release's files as plain download links (the file route serves exactly these paths, see
        :func:`download_paths`). A link carries its address in the one value that renders it, so it is never
        shown without its file; a file that is missing or differs from the manifest is named, not linked."""
        from html import escape
        from urllib.parse import quote

        items = []
        for name, label in DOWNLOADS.items():
            path, why = self.verified_file(name)
            if path is None:
                items.append(f'<span class="lm-dl-missing">{escape(label)}: {escape(why)}</span>')
            else:
                href = "gradio_api/file=" + quote(str(path.resolve()), safe="/")
                items.append(f'<a class="lm-dl" href="{escape(href)}" download="{escape(name)}">'
                             f'{escape(label)}</a>')
        return '<div class="lm-release-files">' + " ".join(items) + "</div>"

    def citation_cff(self) -> str:
        """The release's CITATION.cff (as built; rendered from the registry when not built yet)."""
        path = self.file("CITATION.cff")
        if path is not None:
            return path.read_text(encoding="utf-8")
        from lemmata.release.citation import render_citation

        return render_citation(self.meta)

    def header_md(self, unbuilt: str = "") -> str:
        """The release's facts; ``unbuilt`` says why its files are missing here (the start-up step is still
        building them, or could not), and only matters when the release is not built."""
        m = self.meta
        paper = safe_url(m.paper_url)
        lines = [f"**{md_escape(m.title)}** — release `{m.release_id}`, released {m.released}",
                 f"Licence: {md_escape(m.license)}" + (f" · [paper]({paper})" if paper else ""),
                 "Configs: " + ", ".join(f"`{c.name}` ({'/'.join(c.splits)})" for c in m.configs),
                 f"Main score: **{md_escape(m.main_score.metric)}** — {md_escape(m.main_score.description)}"]
        if not self.built:
            lines.append(f"_The release files are not on this server: {md_escape(unbuilt)}._" if unbuilt else
                         "_The release files are not built on this server yet; the start-up step builds them._")
        from lemmata.release.hub import hub_owner

        lines.append(f"Load it: `datasets.load_dataset(\"{hub_owner()}/{m.name}\", \"{m.configs[0].name}\", "
                     f"revision=\"{m.version}\")`, and cite the paper below together with the release id.")
        return "  \n".join(lines)


#: the file links styled as the page's small secondary buttons
ABOUT_CSS = """
.lm-release-files a.lm-dl { display: inline-block; padding: 4px 12px; margin: 2px 0; border-radius: 6px;
  border: 1px solid var(--border-color-primary); background: var(--button-secondary-background-fill);
  color: var(--button-secondary-text-color); text-decoration: none; font-size: var(--text-sm); }
.lm-release-files a.lm-dl:hover { background: var(--button-secondary-background-fill-hover); }
.lm-release-files .lm-dl-missing { color: var(--body-text-color-subdued); font-size: var(--text-sm); }
"""

#: the release files the About tab links to, with their link text
DOWNLOADS = {"croissant.json": "Download croissant.json", "README.md": "Download dataset card (README.md)"}


def download_paths(releases_root: Path) -> list[Path]:
    """The exact release files the About tab offers for download, built yet or not.

    Gradio serves only files under the working directory, the temp folder and
    ``allowed_paths``; the releases live under ``LEMMATA_HOME`` (by default
    ``~/.local/share/lemmata``), so these paths go to ``launch(allowed_paths=…)``.
    Naming files rather than the releases folder keeps everything else under the
    home (the store, other release files) out of reach of the file route.

    >>> [p.name for p in download_paths(Path("/r"))][:2]
    ['croissant.json', 'README.md']
    """
    return [c.folder.resolve() / name for c in release_citations(releases_root) for name in DOWNLOADS]


def release_citations(releases_root: Path) -> list[ReleaseCitation]:
    from lemmata.families import list_benchmarks

    return [ReleaseCitation(meta=m, folder=releases_root / m.release_id) for m in list_benchmarks()]
