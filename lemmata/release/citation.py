"""CITATION.cff for a release: the release itself, with the paper as preferred citation."""

from __future__ import annotations

import re

import yaml

from lemmata.core.meta import BenchmarkMeta

CITATION_FILE = "CITATION.cff"


def _person(full_name: str) -> dict[str, str]:
    parts = full_name.split()
    if len(parts) == 1:
        return {"name": full_name}
    return {"given-names": " ".join(parts[:-1]), "family-names": parts[-1]}


def _bib_field(bibtex: str, key: str) -> str | None:
    m = re.search(rf"\b{key}\s*=\s*\{{(.*?)\}}\s*,?\s*$", bibtex, flags=re.M | re.S)
    return m.group(1).strip() if m else None


def render_citation(meta: BenchmarkMeta) -> str:
    authors = [_person(a) for a in meta.authors] or [{"name": meta.upstream_repo}]
    year = _bib_field(meta.citation, "year")
    preferred = {
        "type": "article",
        "title": re.sub(r"[{}]", "", _bib_field(meta.citation, "title") or meta.title),
        "authors": authors,
        "url": meta.paper_url,
    }
    if year and year.isdigit():
        preferred["year"] = int(year)
    doc = {
        "cff-version": "1.2.0",
        "message": f"If you use {meta.release_id}, cite the paper below and name this release.",
        "type": "dataset",
        "title": f"{meta.title} ({meta.release_id})",
        "version": meta.version,
        "date-released": meta.released,
        "authors": authors,
        "repository-code" if "github.com" in meta.upstream_url else "repository-artifact": meta.upstream_url,
        "url": meta.paper_url,
        "abstract": meta.description,
        "keywords": list(meta.tags),
        "preferred-citation": preferred,
    }
    if meta.license_id not in ("unknown", "other"):
        doc["license"] = {"mit": "MIT", "apache-2.0": "Apache-2.0", "cc-by-4.0": "CC-BY-4.0",
                          "cc0-1.0": "CC0-1.0"}.get(meta.license_id, meta.license_id)
    doc = {k: v for k, v in doc.items() if v is not None}
    return yaml.dump(doc, Dumper=_NoAliases, sort_keys=False, allow_unicode=True, width=1000)


class _NoAliases(yaml.SafeDumper):
    def ignore_aliases(self, data) -> bool:  # repeated author lists are written out, not as YAML anchors
        return True
