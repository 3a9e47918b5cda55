"""The Benchmarks overview, the page's landing view: what each benchmark is, before any table of numbers.

For every benchmark a submission can name: the task in one sentence, what a
system is given and must return, the main score and what it means, the size
and licence of its release, the paper, whether this server can score it now,
and links to its board, its submission guide and its dataset card. Titles,
licences, papers and main scores come from the releases' typed metadata
(:class:`~lemmata.core.meta.BenchmarkMeta`); sizes are read from the built
release's Parquet files (row counts, nothing guessed); the one-sentence task and
the input/output pair are each family's :class:`~lemmata.core.family.Brief`,
per submission benchmark (a release, Re²Math's, serves several tasks), read
through the registry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from lemmata.core.family import Brief
from lemmata.space.availability import Availability
from lemmata.space.safety import esc


class Overview(BaseModel):
    """One benchmark's card on the overview page (plain data; :func:`render_overview` makes the HTML)."""

    model_config = ConfigDict(frozen=True)

    benchmark: str
    title: str
    brief: Brief | None
    metric: str
    metric_description: str
    releases: tuple[str, ...]
    size: str
    licence: str
    paper_url: str
    state: str
    reason: str = ""
    rows_here: int = 0
    guide_url: str | None = None
    card_url: str | None = None


def release_size(folder: Path, configs: Sequence[str] = ()) -> str:
    """Row counts of a built release, per config (from the Parquet footers; nothing is read but metadata).

    Configs named in ``configs`` come first; at most four are listed. Empty when the release is not built.
    """
    data = folder / "data"
    manifest = folder / "MANIFEST.json"
    if not data.is_dir() or not manifest.is_file():
        return ""
    key = (str(folder), manifest.stat().st_mtime_ns, tuple(configs))
    if key not in _SIZES:  # a release is immutable once its manifest is written: read its footers once
        _SIZES[key] = _count_rows(data, configs)
    return _SIZES[key]


_SIZES: dict[tuple, str] = {}


def _count_rows(data: Path, configs: Sequence[str]) -> str:
    import pyarrow.parquet as pq

    counts: dict[str, int] = {}
    for path in sorted(data.glob("*/*.parquet")):
        try:
            counts[path.parent.name] = counts.get(path.parent.name, 0) + pq.read_metadata(path).num_rows
        except (OSError, ValueError):
            continue
    order = [c for c in configs if c in counts] + [c for c in counts if c not in configs]
    shown = [f"{c}: {counts[c]:,} rows" for c in order[:4]]
    if len(order) > 4:
        shown.append(f"{len(order) - 4} more configs")
    return "; ".join(shown)


def benchmark_overviews(availability: Sequence[Availability], releases_root: Path, rows_per_benchmark: Mapping[str, int],
                        guide_url: Callable[[str], str | None] | None = None,
                        card_url: Callable[[Path], str | None] | None = None) -> list[Overview]:
    """Every submission benchmark's overview, in the order the Submit tab lists them."""
    from lemmata.families import briefs, families, handlers

    written = briefs()
    metas = {m.release_id: m for f in families().values() for m in f.load(f.releases)}  # type: ignore[union-attr]
    out = []
    for a in availability:
        meta = next((metas[r] for r in a.releases if r in metas), None)
        if meta is None:
            continue
        sizes = [s for r in a.releases
                 if (s := release_size(releases_root / r, [c.name for c in metas[r].configs if c.default]))]
        folder = next((releases_root / r for r in a.releases if (releases_root / r / "README.md").is_file()), None)
        handler = handlers().get(a.benchmark)
        metric = getattr(handler, "main_metric", None) or meta.main_score.metric  # a track may rank by its own
        out.append(Overview(
            benchmark=a.benchmark, title=meta.title, brief=written.get(a.benchmark), metric=metric,
            metric_description=meta.main_score.description, releases=a.releases,
            size=" | ".join(sizes) or "not built on this server", licence=meta.license, paper_url=meta.paper_url,
            state=a.state, reason=a.reason or "", rows_here=rows_per_benchmark.get(a.benchmark, 0),
            guide_url=guide_url(a.benchmark) if guide_url else None,
            card_url=card_url(folder / "README.md") if (card_url and folder is not None) else None))
    return out


_STATE = {"ready": ("lm-ok", "scored on this server now"), "preparing": ("lm-wait", "being prepared"),
          "unavailable": ("lm-no", "not scorable on this server")}


def render_overview(items: Sequence[Overview]) -> str:
    """The overview as escaped HTML cards; ``data-open`` links open the benchmark's board, ``data-submit`` its
    submission form (the page's script turns clicks on them into events)."""
    cards = []
    for o in items:
        b = o.brief
        cls, state = _STATE.get(o.state, ("lm-no", o.state))
        state_text = state + (f" — {o.reason}" if o.reason and o.state != "ready" else "")
        links = [f'<a href="#board" data-open="{esc(o.benchmark)}">board ({o.rows_here} entr'
                 f'{"y" if o.rows_here == 1 else "ies"})</a>',
                 f'<a href="#submit" data-submit="{esc(o.benchmark)}">submit</a>']
        if o.guide_url:
            links.append(f'<a href="{esc(o.guide_url)}" target="_blank" rel="noopener">submission guide</a>')
        if o.card_url:
            links.append(f'<a href="{esc(o.card_url)}" target="_blank" rel="noopener">dataset card</a>')
        links.append(f'<a href="{esc(o.paper_url)}" target="_blank" rel="noopener">paper</a>')
        rows = []
        if b is not None:
            rows += [("Given", b.given), ("Returns", b.returns)]
        rows += [("Main score", f"{o.metric}: {b.score_meaning if b else o.metric_description}"),
                 ("Release", ", ".join(o.releases) + f" ({o.size})"), ("Licence", o.licence)]
        facts = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in rows)
        cards.append(
            f'<section class="lm-card" aria-label="{esc(o.benchmark)}"><h3><code>{esc(o.benchmark)}</code> '
            f'<span class="lm-badge {cls}">{esc(state_text)}</span></h3>'
            f'<p class="lm-card-title">{esc(o.title)}</p>'
            + (f'<p class="lm-task">{esc(b.task)}</p>' if b else "")
            + f'<dl>{facts}</dl><p class="lm-links">{" · ".join(links)}</p></section>')
    return ('<div class="lm-overview"><p class="lm-summary">Every benchmark a submission can name, with what a '
            "system is given and must return. Scores are ranked only within a frozen tuple (release, split, "
            "retrieval artifact, scoring artifact); open a board to see them.</p>"
            f'<div class="lm-cards">{"".join(cards)}</div></div>')


#: delegated clicks on the overview's and the matrix's links (gr.HTML ``js_on_load``)
OPEN_JS = """
element.addEventListener('click', (ev) => {
  const a = ev.target.closest('[data-open],[data-submit]');
  if (!a || !element.contains(a)) return;
  ev.preventDefault();
  if (a.hasAttribute('data-submit')) { trigger('click', {submit: a.getAttribute('data-submit')}); return; }
  trigger('click', {open: a.getAttribute('data-open'), track: a.getAttribute('data-track') || '',
                    group: a.getAttribute('data-group') || ''});
});
"""

OVERVIEW_CSS = """
.lm-cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 0.8rem; }
.lm-card { border: 1px solid var(--border-color-primary); border-radius: 8px; padding: 0.6rem 0.9rem; }
.lm-card h3 { margin: 0 0 0.2rem; font-size: 1.05rem; }
.lm-card-title { margin: 0; color: var(--body-text-color-subdued); font-size: 0.9rem; }
.lm-task { margin: 0.35rem 0; font-weight: 600; }
.lm-card dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.15rem 0.6rem; margin: 0.3rem 0;
  font-size: 0.88rem; }
.lm-card dt { color: var(--body-text-color-subdued); }
.lm-card dd { margin: 0; }
.lm-links { margin: 0.3rem 0 0; font-size: 0.9rem; }
.lm-ok { background: #dcfce7; color: #166534; border-color: #86efac; }
.lm-wait { background: #fef9c3; color: #854d0e; border-color: #fde047; }
.lm-no { background: #f3f4f6; color: #374151; border-color: #d1d5db; }
"""
