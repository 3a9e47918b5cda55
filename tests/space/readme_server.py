"""The README-literal server: ``lemmata serve`` exactly as the README says, in a fresh home, on the README's port.

Its first start builds the releases from the mirror beside the checkout, the
current offline world, the reported rows and the baselines — minutes of one
core. Under pytest-xdist the controller process, which runs no test itself,
starts it when the run includes ``test_space_readme_literal.py`` (see
``conftest.pytest_sessionstart``), so that first start runs beside the other
tests rather than after them; the module's fixture then only waits for
``[lemmata] ready`` and the controller stops the server when the run ends. In
one process (``-n 0``) the fixture starts and stops it itself. Either way it is
the same command, home layout and port.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test-output"
MODULE = Path(__file__).resolve().with_name("test_space_readme_literal.py")
README_PORT = 7860  # "serves on http://127.0.0.1:7860"
#: where the controller tells the workers about the server it started (a JSON file's path)
STATE_ENV = "README_LITERAL_SERVER_STATE"  # not LEMMATA_*: lemmata warns on unknown settings
_STARTED: dict[int, subprocess.Popen] = {}  # servers this process started, by pid (to reap them)


def port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def command() -> list[str]:
    """``lemmata serve`` from the environment running the tests (the console script when installed)."""
    script = Path(sys.executable).with_name("lemmata")
    return [str(script), "serve"] if script.is_file() else [sys.executable, "-m", "lemmata", "serve"]


def home_outside_temp() -> Path:
    """A fresh home folder outside the temp folder Gradio serves: beside the checkout when the checkout is not itself
    under the temp folder (a CI clone may be), else under the user's cache or /var/tmp."""
    temp = str(Path(tempfile.gettempdir()).resolve())
    for base in (OUT, Path.home() / ".cache" / "lemmata-readme-literal", Path("/var/tmp") / "lemmata-readme-literal"):
        if not str(base.resolve()).startswith(temp):
            home = base / ("readme-home" if base == OUT else f"home-{uuid.uuid4().hex[:12]}")
            shutil.rmtree(home, ignore_errors=True)
            try:
                home.mkdir(parents=True)
            except OSError:
                continue
            return home
    raise RuntimeError("no writable folder outside the temp folder for the README-literal home")


def start() -> dict:
    """Start the server as a README reader would (returns its state: pid, url, log, home, start time)."""
    home = home_outside_temp()
    assert not str(home.resolve()).startswith(str(Path(tempfile.gettempdir()).resolve()))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LEMMATA_", "GRADIO_")) and k != "XDG_DATA_HOME"}
    env.update(HOME=str(home), PYTHONPATH=str(ROOT), GRADIO_ANALYTICS_ENABLED="False",
               HF_HUB_OFFLINE=os.environ.get("HF_HUB_OFFLINE", "1"))
    assert f"http://127.0.0.1:{README_PORT}" in (ROOT / "README.md").read_text(encoding="utf-8")
    note = None
    if port_free(README_PORT):  # the README's own port, chosen by the command itself
        port = README_PORT
    else:  # another server holds 7860 on this machine: the one variable the README's command would need
        port = free_port()
        env["GRADIO_SERVER_PORT"] = str(port)
        note = f"port {README_PORT} is taken on this machine; the README-literal server runs on {port}"
    OUT.mkdir(parents=True, exist_ok=True)
    log_path = OUT / "readme-literal-server.log"
    # The working folder is Gradio's other default served folder, so it must not hold the home either (a
    # README reader's ~ is not inside their checkout); the mirror is still found beside the checkout.
    cwd = OUT / "readme-cwd"
    cwd.mkdir(parents=True, exist_ok=True)
    with log_path.open("w", encoding="utf-8") as log:
        proc = subprocess.Popen(command(), cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    _STARTED[proc.pid] = proc
    return {"pid": proc.pid, "url": f"http://127.0.0.1:{port}", "log": str(log_path), "home": str(home),
            "started": time.time(), "note": note}


def alive(pid: int) -> bool:
    """Is the process running (a zombie, exited but not yet reaped by its parent, is not)?"""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:  # pragma: no cover - no procfs: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_ready(state: dict, timeout_s: float) -> None:
    """Wait for ``[lemmata] ready`` in the server's log, failing with the log's tail if it exits or takes too long."""
    log_path = Path(state["log"])
    deadline = state["started"] + timeout_s
    while "[lemmata] ready" not in log_path.read_text(encoding="utf-8", errors="replace"):
        tail = log_path.read_text(encoding="utf-8", errors="replace")[-4000:]
        assert alive(state["pid"]), "lemmata serve exited:\n" + tail
        assert time.time() < deadline, "first start did not finish:\n" + tail
        time.sleep(1)


def stop(state: dict) -> None:
    """Stop the server's process group (started by this process) and remove a home made outside the checkout."""
    proc = _STARTED.pop(state["pid"], None)
    try:
        os.killpg(state["pid"], signal.SIGTERM)
    except ProcessLookupError:
        pass
    deadline = time.time() + 20
    while alive(state["pid"]) and time.time() < deadline:
        if proc is not None:
            proc.poll()
        time.sleep(0.2)
    if alive(state["pid"]):
        try:
            os.killpg(state["pid"], signal.SIGKILL)
        except ProcessLookupError:
            pass
    if proc is not None:
        proc.wait()
    home = Path(state["home"])
    if not home.is_relative_to(OUT):  # a home made under the user's cache or /var/tmp goes again
        shutil.rmtree(home, ignore_errors=True)


def write_state(state: dict, folder: Path) -> Path:
    path = folder / f"readme-server-{os.getpid()}.json"
    path.write_text(json.dumps(state), encoding="utf-8")
    return path


def read_state() -> dict | None:
    """The server the controller started for this run (None: none was, start one here)."""
    path = os.environ.get(STATE_ENV)
    return json.loads(Path(path).read_text(encoding="utf-8")) if path and Path(path).is_file() else None


def selected(config) -> bool:
    """Does this run include the README-literal module (by path, with no -k or -m narrowing it)?"""
    if getattr(config.option, "keyword", "") or getattr(config.option, "markexpr", ""):
        return False
    base = Path(config.invocation_params.dir)
    for arg in config.args:
        path = (base / arg.split("::", 1)[0]).resolve()
        if path == MODULE or path in MODULE.parents:
            return True
    return False
