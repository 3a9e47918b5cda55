"""The rendered cards in cards/rendered are exactly what a fresh build writes."""

from __future__ import annotations

from pathlib import Path

from lemmata.families import builder_classes
from lemmata.release.cards import check_cards, file_sourced

CARDS = Path(__file__).resolve().parents[2] / "cards" / "rendered"


def test_rendered_cards_are_current():
    stale = check_cards(CARDS, file_sourced(builder_classes()))
    assert stale == [], "\n".join(stale)


def test_every_file_sourced_release_has_rendered_cards():
    rendered = {p.name for p in CARDS.iterdir() if p.is_dir()}
    expected = {cls.meta.release_id for cls in file_sourced(builder_classes())}
    assert "re2math-1.0.0" in expected
    assert expected <= rendered, f"missing rendered cards: {sorted(expected - rendered)}"
