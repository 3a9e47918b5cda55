"""Choosing a file in the space's upload box from a real browser, as a visitor's click would.

The Submit tab's load events may re-render the box just as a file is set, which
drops the file; and once a file is taken, Gradio replaces the box's file input
with the file's name, after an upload that a loaded machine makes slow. So the
helper polls: it sets the file again only when the input is there and nothing
has shown for a while, and otherwise waits. A taken file is shown as its stem
and its extension in two elements (``broken-run`` ``.jsonl``), so the name is
found by the cell's label, not by its text (the whole name is on screen as
text only while it uploads).
"""

from __future__ import annotations

import time
from pathlib import Path

BOX = "#lm-upload"


def set_upload(page, path: Path, *, timeout_s: float = 90.0, settle_s: float = 10.0) -> None:
    """Choose ``path`` in the upload box (clearing a file chosen before) and wait until the box shows its name.

    The file is set again whenever the box has shown neither the name nor a new input for ``settle_s`` since the
    last try (a re-render dropped it); while the input is away and the name not yet shown, it only waits.
    """
    clear = page.locator(f"{BOX} button[aria-label='Clear']")
    if clear.count():
        clear.first.click()
        clear.first.wait_for(state="detached", timeout=10_000)
    name = page.locator(BOX).get_by_label(path.name, exact=True)
    field = page.locator(f"{BOX} input[type=file]")
    deadline = time.monotonic() + timeout_s
    field.wait_for(state="attached", timeout=timeout_s * 1000)
    field.set_input_files(str(path))
    last = time.monotonic()
    while not (name.count() and name.first.is_visible()):
        assert time.monotonic() < deadline, f"the upload box never showed {path.name}"
        if field.count() and time.monotonic() - last > settle_s:
            field.set_input_files(str(path))
            last = time.monotonic()
        page.wait_for_timeout(250)
