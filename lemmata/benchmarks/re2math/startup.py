"""What the space does for Re²Math when it starts: build the current offline world when it is missing.

Declared in the family record (``Family.startup``); the space runs it after the releases are built and tells an
upload to the tracks that read the world (the agentic track, source retrieval) to wait while it runs. The
superseded worlds are built on demand, for their results only.
"""

from __future__ import annotations

from collections.abc import Callable

from lemmata.core.family import Skip, StartupStep


def build_current_world(report: Callable[[str], None]) -> str:
    from lemmata.benchmarks.re2math.scholar.worlds import current_world, world_path

    path = world_path()
    if path.is_dir():
        raise Skip(f"{path.name} already built")
    report(f"building {path.name} (the distractor corpora and every cited source; about a minute)")
    world = current_world(build=True, quiet=True)
    return f"built {world.root.name}"


def _label() -> str:
    from lemmata.benchmarks.re2math.scholar.worlds import world_id

    return f"building the offline retrieval world ({world_id()})"


WORLD = StartupStep(key="artifact", label=_label(), run=build_current_world,
                    needed_by=("re2math", "re2math-source-retrieval"))
