"""The benchmark registry: typed metadata, lookup, close-match suggestions."""

from __future__ import annotations

import pytest

from lemmata.core.meta import BenchmarkMeta
from lemmata.families import UnknownNameError, get_benchmark, list_benchmarks


def test_every_release_is_complete_and_unique():
    metas = list_benchmarks()
    assert metas, "no benchmarks registered"
    ids = [m.release_id for m in metas]
    assert len(ids) == len(set(ids))
    for m in metas:
        assert isinstance(m, BenchmarkMeta)
        assert m.citation.lstrip().startswith("@")
        assert m.sources or m.hub, f"{m.name} pins no upstream source"
        assert any(c.default for c in m.configs) or len(m.configs) == 1
        assert m.main_score.metric


def test_lookup_by_name_and_release_id():
    meta = get_benchmark("re2math")
    assert get_benchmark(meta.release_id) is meta
    assert meta.release_id == "re2math-1.0.0"
    assert meta.config("eval200").splits == ("test",)


def test_unknown_name_suggests_close_matches():
    with pytest.raises(UnknownNameError) as err:
        get_benchmark("re2mth")
    assert "did you mean 're2math'" in str(err.value)


def test_unknown_config_suggests_close_matches():
    with pytest.raises(KeyError) as err:
        get_benchmark("re2math").config("eval20")
    assert "eval200" in str(err.value)


def test_metadata_is_frozen_and_strict():
    meta = get_benchmark("re2math")
    with pytest.raises(Exception):
        meta.version = "9.9.9"  # type: ignore[misc]
    with pytest.raises(ValueError):
        BenchmarkMeta(**{**meta.model_dump(), "citation": "not bibtex"})
    with pytest.raises(ValueError):
        BenchmarkMeta(**{**meta.model_dump(), "unexpected": 1})
