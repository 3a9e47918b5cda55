"""Which benchmarks this server can score now, and why not the others, in words a visitor can act on.

A benchmark is scorable here when a release it needs is built on this
server. Releases pinned only to the Hub cannot be built while the Hub is
unreachable (an offline machine, ``HF_HUB_OFFLINE=1``); an upload for one of
them gets the normal validation panel with that reason, never an exception,
and never the server's error text (which names folders and command-line
options that mean nothing to a visitor): the sentence shown is chosen from a
fixed list here, and the full error goes to the server log.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from lemmata.space.safety import esc

log = logging.getLogger("lemmata")

HUB_UNREACHABLE = "the Hub is unreachable from this server, so its release cannot be built here"
UNPINNED = "its upstream dataset has no pinned revision yet, so its release cannot be built here"
NOT_BUILT = "its release could not be built on this server"
PREPARING = "its release is still being built on this server; try again in a minute"
MAX_HEADER_BYTES = 65_536


class Availability(BaseModel):
    """Whether one submission benchmark can be scored on this server now."""

    model_config = ConfigDict(frozen=True)

    benchmark: str
    releases: tuple[str, ...]
    state: Literal["ready", "preparing", "unavailable"]
    reason: str = ""


def hub_offline(environ=None) -> bool:
    """Whether the Hub is switched off for this process (``HF_HUB_OFFLINE``).

    >>> hub_offline({"HF_HUB_OFFLINE": "1"}), hub_offline({"HF_HUB_OFFLINE": "0"}), hub_offline({})
    (True, False, False)
    """
    from lemmata.core.settings import environment

    env = environment(environ)
    return (env.get("HF_HUB_OFFLINE") or "").strip().lower() in ("1", "true", "yes", "on")


def needed_releases(benchmark: str, release_names: list[tuple[str, str]]) -> tuple[str, ...]:
    """The release ids (of the benchmark's family) a submission benchmark is scored against.

    ``release_names`` is ``[(registry name, release id)]`` of the family. A
    release whose name is the benchmark or a dash-prefix of it (either way)
    belongs to it; a benchmark matching none (``taobench-equivalence``) may use any.

    >>> fam = [("taobench-150", "taobench-150-1.1.0"), ("taobench-v1", "taobench-v1-1.0.0")]
    >>> needed_releases("taobench", fam)
    ('taobench-150-1.1.0', 'taobench-v1-1.0.0')
    >>> needed_releases("re2math-theorem-retrieval", [("re2math", "re2math-1.0.0")])
    ('re2math-1.0.0',)
    >>> needed_releases("ma-align", [("mathatlas", "mathatlas-1.0.0"), ("ma-align", "ma-align-1.0.0")])
    ('ma-align-1.0.0',)
    """
    own = tuple(rid for name, rid in release_names
                if benchmark == name or benchmark.startswith(name + "-") or name.startswith(benchmark + "-"))
    return own or tuple(rid for _, rid in release_names)


def reason_for(error_text: str, offline: bool) -> str:
    """The visitor-facing reason for a release that failed to build (one of the fixed sentences above).

    >>> reason_for("could not download x: the Hub is unreachable and no cached copy exists", False) == HUB_UNREACHABLE
    True
    >>> reason_for("/home/u/x: disk full", False) == NOT_BUILT
    True
    """
    if offline or "Hub is unreachable" in error_text:
        return HUB_UNREACHABLE
    if "no pinned revision" in error_text:
        return UNPINNED
    return NOT_BUILT


def step_needs() -> dict[str, tuple[str, ...]]:
    """Benchmark -> the start-up steps (``Bootstrap`` keys) its scoring needs beyond its release, as the families'
    steps declare them (``StartupStep.needed_by``; e.g. the tracks that read an offline retrieval world)."""
    from lemmata.families import startup_steps

    out: dict[str, tuple[str, ...]] = {}
    for step in startup_steps():
        for benchmark in step.needed_by:
            out[benchmark] = (*out.get(benchmark, ()), step.key)
    return out


def waiting_reason(label: str) -> str:
    """What an upload is told while a start-up step it needs is still running.

    >>> waiting_reason("building the offline retrieval world")
    'it waits for the start-up step “building the offline retrieval world”; upload again when it is listed as scored here'
    """
    return f"it waits for the start-up step “{label}”; upload again when it is listed as scored here"


def benchmark_availability(releases_root: Path, *, releases_settled: bool, offline: bool | None = None,
                           running: dict[str, str] | None = None) -> list[Availability]:
    """Every submission benchmark with its state, in registry order.

    ``releases_settled`` is whether the start-up step that builds releases has
    finished: before that, a release not on disk yet is *preparing*. ``running``
    names the start-up steps not finished yet (key → label): a benchmark that
    needs one of them (:func:`step_needs`) is *preparing*, with that step named.
    """
    running = running or {}
    from lemmata.families import families

    offline = hub_offline() if offline is None else offline
    out = []
    needs = step_needs()
    for family in families().values():
        names = [(m.name, m.release_id) for m in family.load(family.releases)]  # type: ignore[union-attr]
        for benchmark in sorted(family.handlers, key=lambda b: (b != family.name, b)):
            needed = needed_releases(benchmark, names)
            waits = next((running[k] for k in needs.get(benchmark, ()) if k in running), None)
            if waits and any((releases_root / rid / "MANIFEST.json").is_file() for rid in needed):
                out.append(Availability(benchmark=benchmark, releases=needed, state="preparing",
                                        reason=waiting_reason(waits)))
            elif any((releases_root / rid / "MANIFEST.json").is_file() for rid in needed):
                out.append(Availability(benchmark=benchmark, releases=needed, state="ready"))
            elif not releases_settled:
                out.append(Availability(benchmark=benchmark, releases=needed, state="preparing", reason=PREPARING))
            else:
                out.append(Availability(benchmark=benchmark, releases=needed, state="unavailable",
                                        reason=HUB_UNREACHABLE if offline else NOT_BUILT))
    return out


def render_availability(items: list[Availability]) -> str:
    """The Submit tab's list: what can be scored here now, and why not the rest (escaped HTML)."""
    ready = [a for a in items if a.state == "ready"]
    rest = [a for a in items if a.state != "ready"]
    html = ('<div class="lm-summary" id="lm-availability"><b>Scored on this server now:</b> '
            + (", ".join(f"<code>{esc(a.benchmark)}</code>" for a in ready) or "none yet") + ".")
    if rest:
        html += "<ul>" + "".join(f"<li><code>{esc(a.benchmark)}</code> — {esc(a.reason)}</li>" for a in rest) + "</ul>"
    return html + "</div>"


def header_benchmark(data: bytes) -> str | None:
    """The ``benchmark`` named by an upload's first line, if it is readable JSON (bounded; never raises).

    >>> header_benchmark(b'{"benchmark": "mirb", "track": "x"}\\n{}')
    'mirb'
    >>> header_benchmark(b"not json") is None
    True
    """
    first = data[:MAX_HEADER_BYTES].split(b"\n", 1)[0]
    try:
        header = json.loads(first.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError):
        return None
    value = header.get("benchmark") if isinstance(header, dict) else None
    return value[:100] if isinstance(value, str) else None


def unavailable_outcome(filename: str, benchmark: str | None, error_text: str) -> tuple[str, dict]:
    """The validation panel (HTML) and API outcome for an upload this server cannot score now.

    The error text is logged for the maintainers and only classified for the
    visitor, so no server path or option ever reaches the page.
    """
    log.warning("upload for %s not scorable here: %s", benchmark or "an unknown benchmark", error_text)
    reason = reason_for(error_text, hub_offline())
    name = benchmark or "this benchmark"
    message = f"Nothing was stored: {name} cannot be scored on this server now ({reason})."
    html = (f'<div class="lm-errors" role="alert"><b>1 problem found.</b> {esc(message)}<table><thead><tr>'
            "<th>File</th><th>Line</th><th>Field</th><th>Reason</th></tr></thead><tbody>"
            f"<tr><td>{esc(filename)}</td><td>1</td><td><code>benchmark</code></td><td>{esc(reason)}</td></tr>"
            "</tbody></table></div>")
    problem = {"file": filename, "line": 1, "field": "benchmark", "reason": reason}
    return html, {"outcome": "unavailable", "message": message, "problems": [problem]}
