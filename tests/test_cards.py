"""The rendered cards in cards/rendered are exactly what a fresh build writes."""

from __future__ import annotations

from pathlib import Path

from lemmata.release.cards import check_cards

CARDS = Path(__file__).resolve().parent.parent / "cards" / "rendered"


def test_rendered_cards_are_current():
    stale = check_cards(CARDS)
    assert stale == [], "\n".join(stale)


def test_every_buildable_release_has_rendered_cards():
    from lemmata.builders import BUILDERS
    from lemmata.release.cards import FILE_SOURCED

    rendered = {p.name for p in CARDS.iterdir() if p.is_dir()}
    assert "re2math-1.0.0" in rendered
    assert all(f in BUILDERS for f in FILE_SOURCED if f in BUILDERS)
