"""CITATION.cff for a release: the data is its upstream authors', the packaging is Lemmata's.

A release is a conversion of files its upstream authors published (sometimes with
derived configs, such as a retrieval corpus cut from the rows). Whoever cites it
must credit those authors, so the dataset's ``authors`` are the paper's authors and
the paper is the ``preferred-citation``; a ``references`` entry names Lemmata as the
packager and says what packaging means here, so the release never passes for the
authors' own distribution, nor Lemmata for the data's author (CFF 1.2 has no
"contributors" key: a reference with ``notes`` is the place the format offers).
"""

from __future__ import annotations

import re

import yaml

from lemmata.core.meta import BenchmarkMeta

CITATION_FILE = "CITATION.cff"

#: the project as CFF names it: the packager of every release, the software of the root CITATION.cff
LEMMATA_TITLE = "Lemmata"
LEMMATA_AUTHORS = ({"name": "Lemmata maintainers"},)
LEMMATA_URL = "https://huggingface.co/spaces/lemmata/leaderboard"
LEMMATA_LICENSE = "Apache-2.0"

_LICENSES = {"mit": "MIT", "apache-2.0": "Apache-2.0", "cc-by-4.0": "CC-BY-4.0", "cc0-1.0": "CC0-1.0"}
#: BibTeX entry type -> CFF reference type (an entry type not listed is cited as ``generic``)
_TYPES = {"article": "article", "inproceedings": "conference-paper", "misc": "article", "dataset": "dataset",
          "software": "software", "techreport": "report", "phdthesis": "thesis", "book": "book"}


def _person(full_name: str) -> dict[str, str]:
    """A CFF person from a full name ("given names" + family name, the last word).

    >>> _person("Alexander K. Taylor")
    {'given-names': 'Alexander K.', 'family-names': 'Taylor'}
    >>> _person("Zenodo")
    {'name': 'Zenodo'}
    """
    parts = full_name.split()
    if len(parts) == 1:
        return {"name": full_name}
    return {"given-names": " ".join(parts[:-1]), "family-names": parts[-1]}


def _bib_field(bibtex: str, key: str) -> str | None:
    m = re.search(rf"\b{key}\s*=\s*\{{(.*?)\}}\s*,?\s*$", bibtex, flags=re.M | re.S)
    return m.group(1).strip() if m else None


def _bib_type(bibtex: str, doi: str | None) -> str:
    """The CFF type of a BibTeX entry (a ``@misc`` with a Zenodo DOI is a deposited dataset).

    >>> _bib_type("@inproceedings{x, title={T}}", None), _bib_type("@misc{x,", "10.5281/zenodo.1")
    ('conference-paper', 'dataset')
    """
    m = re.match(r"\s*@(\w+)\s*\{", bibtex)
    kind = m.group(1).lower() if m else ""
    if kind == "misc" and doi and doi.startswith("10.5281/zenodo."):
        return "dataset"
    return _TYPES.get(kind, "generic")


def paper_reference(meta: BenchmarkMeta) -> dict:
    """The work the release comes from (its paper, or a deposited archive), as a CFF reference."""
    doi = _bib_field(meta.citation, "doi")
    ref: dict = {
        "type": _bib_type(meta.citation, doi),
        "title": re.sub(r"[{}]", "", _bib_field(meta.citation, "title") or meta.title),
        "authors": [_person(a) for a in meta.authors] or [{"name": meta.upstream_repo}],
        "url": meta.paper_url,
    }
    if doi:
        ref["doi"] = doi
    booktitle = _bib_field(meta.citation, "booktitle")
    if booktitle and ref["type"] == "conference-paper":
        ref["conference"] = {"name": re.sub(r"[{}]", "", booktitle)}
    year = _bib_field(meta.citation, "year")
    if year and year.isdigit():
        ref["year"] = int(year)
    return {k: v for k, v in ref.items() if v is not None}


def packager_reference(meta: BenchmarkMeta) -> dict:
    """Lemmata, named as the packager of this release (not as an author of its data)."""
    return {
        "type": "software",
        "title": LEMMATA_TITLE,
        "authors": list(LEMMATA_AUTHORS),
        "url": LEMMATA_URL,
        "license": LEMMATA_LICENSE,
        "notes": f"Packager of {meta.release_id}, not an author of its data: Lemmata converted the upstream "
                 f"files of {meta.upstream_repo}, each verified against its pinned sha256, to Parquet with a "
                 "dataset card, Croissant metadata and a manifest (the card lists any derived configs). The data "
                 "and its authorship are the upstream authors'.",
    }


def render_citation(meta: BenchmarkMeta) -> str:
    paper = paper_reference(meta)
    doc = {
        "cff-version": "1.2.0",
        "message": f"If you use {meta.release_id}, cite the work in preferred-citation (its authors made the data) "
                   "and name this release id. The release was packaged by Lemmata (see references), which is not "
                   "an author of the data.",
        "type": "dataset",
        "title": f"{meta.title} ({meta.release_id})",
        "version": meta.version,
        "date-released": meta.released,
        "authors": paper["authors"],
        "repository-code" if "github.com" in meta.upstream_url else "repository-artifact": meta.upstream_url,
        "url": meta.paper_url,
        "abstract": meta.description,
        "keywords": list(meta.tags),
        "license": _LICENSES.get(meta.license_id, meta.license_id)
        if meta.license_id not in ("unknown", "other") else None,
        "references": [packager_reference(meta)],
        "preferred-citation": paper,
    }
    doc = {k: v for k, v in doc.items() if v is not None}
    return yaml.dump(doc, Dumper=_NoAliases, sort_keys=False, allow_unicode=True, width=1000)


class _NoAliases(yaml.SafeDumper):
    def ignore_aliases(self, data) -> bool:  # repeated author lists are written out, not as YAML anchors
        return True


def lemmata_bibtex(version: str) -> str:
    """BibTeX for Lemmata itself (the About tab shows it; the root CITATION.cff says the same)."""
    return (f"@software{{lemmata,\n"
            f"  title   = {{{{Lemmata}}: an open benchmark hub for mathematical tool retrieval and formalization}},\n"
            f"  author  = {{{{Lemmata maintainers}}}},\n"
            f"  version = {{{version}}},\n"
            f"  license = {{{LEMMATA_LICENSE}}},\n"
            f"  url     = {{{LEMMATA_URL}}}\n"
            f"}}")
