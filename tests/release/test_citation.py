"""How to cite and license Lemmata: the root CITATION.cff and LICENSE, and each release's CITATION.cff.

A release's data is its upstream authors': they are the dataset's authors and their
work is the preferred citation; Lemmata appears only as the packager.
"""

from __future__ import annotations

import re
import tomllib
from datetime import date
from pathlib import Path

import pytest
import yaml

from lemmata import __version__
from lemmata.families import list_benchmarks
from lemmata.release.citation import LEMMATA_LICENSE, LEMMATA_URL, lemmata_bibtex, paper_reference, render_citation

ROOT = Path(__file__).resolve().parents[2]
#: CFF 1.2.0: keys a valid file must have, and every key the format allows at the top level
REQUIRED = {"cff-version", "message", "title", "authors"}
ALLOWED = REQUIRED | {"abstract", "commit", "contact", "date-released", "doi", "identifiers", "keywords", "license",
                      "license-url", "preferred-citation", "references", "repository", "repository-artifact",
                      "repository-code", "type", "url", "version"}
REFERENCE_TYPES = {"article", "book", "conference-paper", "data", "dataset", "generic", "report", "software",
                   "thesis", "unpublished"}


def _check_person_list(people, where: str) -> None:
    assert isinstance(people, list) and people, where
    for p in people:
        assert set(p) <= {"name", "given-names", "family-names", "affiliation", "orcid", "email", "website"}, where
        assert p.get("name") or p.get("family-names"), where


def _check_cff(doc: dict, where: str) -> None:
    assert REQUIRED <= set(doc), (where, REQUIRED - set(doc))
    assert set(doc) <= ALLOWED, (where, set(doc) - ALLOWED)
    assert doc["cff-version"] == "1.2.0"
    assert doc.get("type", "software") in ("software", "dataset")
    assert isinstance(doc["message"], str) and doc["message"].strip()
    _check_person_list(doc["authors"], where)
    if "date-released" in doc:
        date.fromisoformat(str(doc["date-released"]))
    for ref in [*doc.get("references", []), *([doc["preferred-citation"]] if "preferred-citation" in doc else [])]:
        assert ref["type"] in REFERENCE_TYPES and ref["title"], where
        _check_person_list(ref["authors"], where)


def test_root_citation_cff_is_valid_and_matches_the_package():
    doc = yaml.safe_load((ROOT / "CITATION.cff").read_text("utf-8"))
    _check_cff(doc, "CITATION.cff")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert doc["type"] == "software"
    assert doc["version"] == __version__ == project["version"]
    assert doc["license"] == project["license"] == LEMMATA_LICENSE
    assert doc["url"] == project["urls"]["Homepage"] == LEMMATA_URL


def test_root_citation_references_every_benchmark_work_as_the_registry_cites_it():
    doc = yaml.safe_load((ROOT / "CITATION.cff").read_text("utf-8"))
    expected = {}
    for meta in list_benchmarks():
        expected.setdefault(meta.paper_url, paper_reference(meta))
    assert {r["url"]: r for r in doc["references"]} == expected


def test_license_file_is_the_full_apache_2_text():
    text = (ROOT / "LICENSE").read_text("utf-8")
    assert "Apache License\n                           Version 2.0, January 2004" in text
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text
    assert "END OF TERMS AND CONDITIONS" in text
    assert len(re.findall(r"^\s+\d\. ", text, flags=re.M)) == 9  # sections 1-9


def test_about_tab_shows_the_same_citation_as_the_root_file():
    from lemmata.space.about import POLICY_MD

    doc = yaml.safe_load((ROOT / "CITATION.cff").read_text("utf-8"))
    bib = lemmata_bibtex(__version__)
    assert bib in POLICY_MD and "How to cite Lemmata" in POLICY_MD
    title = re.search(r"title\s*=\s*\{(.*)\},", bib).group(1).replace("{", "").replace("}", "")
    assert title == doc["title"]
    assert doc["url"] in bib and doc["version"] in bib and doc["license"] in bib


@pytest.mark.parametrize("meta", list_benchmarks(), ids=lambda m: m.release_id)
def test_release_citation_credits_the_authors_and_names_lemmata_as_packager(meta):
    doc = yaml.safe_load(render_citation(meta))
    _check_cff(doc, meta.release_id)
    assert doc["type"] == "dataset" and doc["version"] == meta.version and meta.release_id in doc["title"]
    paper = doc["preferred-citation"]
    assert doc["authors"] == paper["authors"] and paper["url"] == meta.paper_url
    names = [p.get("family-names") or p.get("name") for p in doc["authors"]]
    assert "Lemmata maintainers" not in names
    assert [a.split()[-1] for a in meta.authors] == names
    (packager,) = doc["references"]
    assert packager["title"] == "Lemmata" and packager["type"] == "software"
    assert packager["notes"].startswith(f"Packager of {meta.release_id}, not an author of its data")
    assert "packaged by Lemmata" in doc["message"]
    assert "&id" not in render_citation(meta)


def test_card_and_about_snippets_name_the_configured_hub_owner(monkeypatch):
    from lemmata.release.hub import DEFAULT_HUB_OWNER, hub_owner
    from lemmata.space.about import ReleaseCitation

    meta = list_benchmarks()[0]
    monkeypatch.delenv("LEMMATA_HUB_OWNER", raising=False)
    assert hub_owner() == DEFAULT_HUB_OWNER
    monkeypatch.setenv("LEMMATA_HUB_OWNER", "my-org")
    header = ReleaseCitation(meta=meta, folder=Path("/nonexistent")).header_md()
    assert f'load_dataset("my-org/{meta.name}", ' in header
    for card in (ROOT / "cards" / "rendered").glob("*/README.md"):
        text = card.read_text("utf-8")
        assert "<owner>" not in text
        assert f'load_dataset("{DEFAULT_HUB_OWNER}/' in text, card


def test_about_links_only_release_files_that_match_their_manifest(tmp_path):
    """The About tab links a release file only as built (size and sha256 of its MANIFEST.json entry); a file
    changed since, or a release not built, is named with the reason and not linked."""
    from lemmata.release.manifest import write_manifest
    from lemmata.space.about import ReleaseCitation

    meta = list_benchmarks()[0]
    cit = ReleaseCitation(meta=meta, folder=tmp_path / meta.release_id)
    assert "not built on this server" in cit.files_html() and "<a " not in cit.files_html()
    cit.folder.mkdir()
    (cit.folder / "croissant.json").write_text('{"name": "x"}', encoding="utf-8")
    (cit.folder / "README.md").write_text("# card\n", encoding="utf-8")
    write_manifest(cit.folder, release_id=meta.release_id, name=meta.name, version=meta.version,
                   builder="b", builder_version="1", sources=[])
    html = cit.files_html()
    assert html.count('class="lm-dl"') == 2 and 'download="croissant.json"' in html
    assert f'href="gradio_api/file={(cit.folder / "croissant.json").resolve()}"' in html
    (cit.folder / "README.md").write_text("# card, edited\n", encoding="utf-8")
    html = cit.files_html()
    assert html.count('class="lm-dl"') == 1
    assert "Download dataset card (README.md): differs from this release&#x27;s MANIFEST.json" in html
