"""Run a function in worker processes under a wall-clock bound and a memory bound that hold from any thread.

A :class:`BoundedPool` keeps a few long-lived worker processes that answer calls (JSON arguments and result)
over pipes. Nothing is forked from the caller, which may be a threaded server: a fresh interpreter
(``python -m lemmata.core.bounded``, started with :mod:`subprocess`) imports the target function once, warms
it up and then serves as a fork server, whose single-threaded children are the workers; so a replacement
worker is ready in milliseconds, with the imports and caches already in place. (Where ``fork`` or descriptor
passing is missing, each worker is such a fresh interpreter instead.) Each worker caps its own address space
(``RLIMIT_AS``). The caller waits on the workers' pipes with a deadline, which works in any thread (no
signals):

- a call that runs past its seconds has its worker killed and replaced; it comes back as an
  :class:`Outcome` with ``bound="time"``;
- a call that exhausts the memory cap (``MemoryError``) comes back with ``bound="memory"``; one that
  finishes within a tenth of the cap is marked ``near_cap`` (the worker is replaced after it either way);
- a call that kills its worker (a crash, a signal) comes back with ``bound="crashed"``.

:meth:`BoundedPool.map` also bounds a batch: ``overrun_s`` is how many seconds its calls may lose to
bounds, ``budget_s`` how long (wall clock) the whole batch may take; calls not started when either is spent
come back with ``bound="budget"`` and are never run. Each worker also lowers its own CPU-time limit before
every call (``RLIMIT_CPU``), so a call cannot outlive an orphaned worker by much either.

>>> Outcome(value=True).ok, Outcome(bound="time", reason="out of time").ok
(True, False)
"""

from __future__ import annotations

import atexit
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Any

from lemmata.core.errors import LemmataError

__all__ = ["BoundedPool", "Outcome", "shared_pool"]

#: a call that leaves the worker's peak address space within this share of the cap counts as a memory hit
NEAR_CAP = 0.9
#: how long a fresh interpreter may take to import and warm up its target
START_TIMEOUT_S = 120.0
#: whether workers are forked from a warm fork server (else each is a fresh interpreter)
FORKING = hasattr(os, "fork") and hasattr(socket, "send_fds") and hasattr(socket, "AF_UNIX")


@dataclass(frozen=True)
class Outcome:
    """One call's result: its value, or the bound it hit (``time``, ``memory``, ``crashed``, ``budget``,
    ``error``) and a few words saying so; ``seconds`` from dispatch to answer (0 for a call never run)."""

    value: Any = None
    bound: str | None = None
    reason: str | None = None
    seconds: float = 0.0
    near_cap: bool = False

    @property
    def ok(self) -> bool:
        return self.bound is None


# -- the caller's side ---------------------------------------------------------------------------------------

class _Worker:
    """One worker seen from the caller: its pid, the pipe it reads calls from and the one it answers on."""

    def __init__(self, pid: int, to_worker: int, from_worker: int, proc: subprocess.Popen | None = None):
        self.pid, self.to_worker, self.from_worker, self.proc = pid, to_worker, from_worker, proc
        self.buffer = b""
        self.ready = False
        self.started = time.monotonic()
        self.job: int | None = None
        self.dispatched = 0.0
        self.closed = False

    def fileno(self) -> int:
        return self.from_worker

    def send(self, message: dict[str, Any]) -> None:
        view = memoryview((json.dumps(message) + "\n").encode("utf-8"))
        while view:
            view = view[os.write(self.to_worker, view):]

    def lines(self) -> list[dict[str, Any]] | None:
        """Complete messages read so far (None at end of file: the worker is gone)."""
        chunk = os.read(self.from_worker, 65536)
        if not chunk:
            return None
        self.buffer += chunk
        *complete, self.buffer = self.buffer.split(b"\n")
        return [json.loads(line) for line in complete if line.strip()]

    def alive(self) -> bool:
        if self.proc is not None:
            return self.proc.poll() is None
        try:
            os.kill(self.pid, 0)
        except OSError:
            return False
        return True

    def peak_kb(self) -> int:
        """The worker's peak resident memory so far (0 where /proc is missing)."""
        try:
            with open(f"/proc/{self.pid}/status", encoding="ascii") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1])
        except (OSError, ValueError):
            pass
        return 0

    def kill(self) -> int:
        """Stop the worker; its peak resident memory (KiB, 0 when unknown)."""
        if self.closed:
            return 0
        self.closed = True
        peak = self.peak_kb()
        try:
            os.kill(self.pid, getattr(signal, "SIGKILL", signal.SIGTERM))
        except OSError:
            pass
        if self.proc is not None:
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:  # pragma: no cover - a SIGKILLed process that does not go away
                pass
        for fd in (self.to_worker, self.from_worker):
            try:
                os.close(fd)
            except OSError:
                pass
        return peak


class _ForkServer:
    """A fresh interpreter that imported and warmed the target and forks workers on request."""

    def __init__(self, argv: list[str], env: dict[str, str]):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.proc = subprocess.Popen([*argv, "--fork-server", str(theirs.fileno())], pass_fds=(theirs.fileno(),),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, env=env)
        theirs.close()
        self.sock = ours
        self.sock.settimeout(START_TIMEOUT_S)
        self.reader = ours.makefile("rb")
        self.ready = False

    def _line(self) -> str:
        try:
            line = self.reader.readline()
        except (OSError, TimeoutError) as exc:
            raise LemmataError(f"the bounded workers' fork server stopped answering ({exc})") from None
        if not line:
            raise LemmataError("the bounded workers' fork server exited")
        return line.decode("utf-8", "replace").strip()

    def fork(self) -> _Worker:
        if not self.ready:
            line = self._line()
            if line != "ready":
                raise LemmataError(f"the bounded workers could not start: {line.removeprefix('error ')}")
            self.ready = True
        r_in, w_in = os.pipe()
        r_out, w_out = os.pipe()
        try:
            socket.send_fds(self.sock, [b"f"], [r_in, w_out])
        except OSError as exc:
            for fd in (r_in, w_in, r_out, w_out):
                os.close(fd)
            raise LemmataError(f"the bounded workers' fork server stopped answering ({exc})") from None
        os.close(r_in)
        os.close(w_out)
        return _Worker(int(self._line()), w_in, r_out)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        try:
            self.reader.close()
            self.sock.close()
        except OSError:  # pragma: no cover
            pass
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass


class BoundedPool:
    """``workers`` long-lived processes that run ``target`` (``"package.module:function"``, JSON arguments and
    result) with at most ``seconds`` of wall clock per call and an address space of at most ``memory_mb``.

    ``warm`` lists argument lists the target is called with once, outside any bound, before the first real
    call, so that lazy imports and first-use caches do not count against it."""

    def __init__(self, target: str, *, workers: int = 2, seconds: float = 1.5, memory_mb: int = 400,
                 warm: Sequence[Sequence[Any]] = ()):
        if ":" not in target:
            raise ValueError(f"target {target!r} is not 'module:function'")
        self.target, self.workers, self.seconds, self.memory_mb = target, max(1, workers), seconds, memory_mb
        self._lock = threading.Lock()
        self._pool: list[_Worker] = []
        self._server: _ForkServer | None = None
        self._owner = os.getpid()  # a forked copy of the caller must not stop (or use) the caller's workers
        self.started = 0  # worker processes started in all (replacements count)
        self.peak_rss_kb = 0  # the largest peak resident memory of a worker seen when it answered or was stopped
        root = str(Path(__file__).resolve().parents[2])
        self._env = dict(os.environ)
        self._env["PYTHONPATH"] = os.pathsep.join(p for p in (root, self._env.get("PYTHONPATH", "")) if p)
        self._argv = [sys.executable, "-m", "lemmata.core.bounded", target, str(memory_mb), str(seconds),
                      json.dumps([list(a) for a in warm])]

    @property
    def bound(self) -> str:
        """The bound in words, as reasons quote it: ``'1.5 s / 400 MB'``."""
        return f"{self.seconds:g} s / {self.memory_mb} MB"

    def __repr__(self) -> str:
        return f"BoundedPool({self.target!r}, workers={self.workers}, {self.bound})"

    # -- lifecycle ---------------------------------------------------------------------------------------------
    def _spawn(self) -> _Worker:
        self.started += 1
        if FORKING:
            if self._server is None or not self._server.alive():
                if self._server is not None:
                    self._server.close()
                self._server = _ForkServer(self._argv, self._env)
            return self._server.fork()
        proc = subprocess.Popen(self._argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, env=self._env)
        assert proc.stdin is not None and proc.stdout is not None
        return _Worker(proc.pid, proc.stdin.fileno(), proc.stdout.fileno(), proc)

    def start(self) -> None:
        """Start the fork server (or the workers) now, without waiting: their imports overlap with the
        caller's other work. Calls start them too."""
        with self._lock:
            if FORKING:
                if self._server is None or not self._server.alive():
                    self._server = _ForkServer(self._argv, self._env)
            else:
                self._fill()

    def _fill(self) -> None:
        for w in [w for w in self._pool if w.closed or not w.alive()]:
            w.kill()
            self._pool.remove(w)
        while len(self._pool) < self.workers:
            self._pool.append(self._spawn())

    def close(self) -> None:
        """Stop every worker and the fork server (the next call starts fresh ones)."""
        if os.getpid() != self._owner:
            self._pool, self._server, self._owner = [], None, os.getpid()
            return
        for w in self._pool:
            self.peak_rss_kb = max(self.peak_rss_kb, w.kill())
        self._pool = []
        if self._server is not None:
            self._server.close()
            self._server = None

    # -- calls -------------------------------------------------------------------------------------------------
    def call(self, *args: Any) -> Outcome:
        """One call under the bound."""
        return self.map([args])[0]

    def map(self, calls: Sequence[Sequence[Any]], *, budget_s: float | None = None,
            overrun_s: float | None = None, label: str = "the batch") -> list[Outcome]:
        """Every call's :class:`Outcome`, in order; thread-safe (one batch at a time per pool). ``label`` names
        the batch in the reason of calls its budgets left unrun."""
        with self._lock:
            try:
                return self._map(list(calls), budget_s, overrun_s, label)
            except BaseException:
                self.close()  # an interrupted batch leaves no half-answered worker behind
                raise

    def _map(self, calls: list[Sequence[Any]], budget_s: float | None, overrun_s: float | None,
             label: str) -> list[Outcome]:
        out: list[Outcome | None] = [None] * len(calls)
        if not calls:
            return []
        if os.getpid() != self._owner:
            self.close()  # forget the workers of the process this one was forked from
        # the budget runs from the first call handed to a worker: the pool's own start-up (imports, a fork
        # per worker; seconds on a loaded machine) is not the batch's work, and counting it would leave honest
        # calls unrun. A worker replaced after a call hit a bound starts on the batch's time.
        begun: float | None = None
        todo = deque(range(len(calls)))
        lost = 0.0  # seconds lost to calls that hit a bound
        stop: str | None = None
        self._fill()
        selector = selectors.DefaultSelector()
        try:
            for w in self._pool:
                selector.register(w, selectors.EVENT_READ, w)

            def replace(w: _Worker) -> None:
                selector.unregister(w)
                self.peak_rss_kb = max(self.peak_rss_kb, w.kill())
                self._pool.remove(w)
                fresh = self._spawn()  # even when nothing is left to do: the next batch finds it ready
                self._pool.append(fresh)
                selector.register(fresh, selectors.EVENT_READ, fresh)

            def settle(w: _Worker, outcome: Outcome) -> None:
                nonlocal lost
                assert w.job is not None
                out[w.job] = outcome
                w.job = None
                if not outcome.ok:
                    lost += outcome.seconds

            while todo or any(w.job is not None for w in self._pool):
                if stop is None and budget_s is not None and begun is not None and time.monotonic() - begun >= budget_s:
                    stop = f"{label} took its whole time budget ({budget_s:g} s)"
                if stop is None and overrun_s is not None and lost >= overrun_s:
                    stop = f"{label} lost {overrun_s:g} s to calls cut off by the bound ({self.bound})"
                if stop is not None:
                    while todo:
                        out[todo.popleft()] = Outcome(bound="budget", reason=f"not run: {stop}")
                for w in self._pool:
                    if w.ready and w.job is None and todo:
                        w.job, w.dispatched = todo.popleft(), time.monotonic()
                        begun = w.dispatched if begun is None else begun
                        try:
                            w.send({"id": w.job, "args": list(calls[w.job])})
                        except OSError:
                            pass  # the worker is gone: its end of file settles the call below
                if not todo and all(w.job is None for w in self._pool):
                    break
                deadlines = [w.dispatched + self.seconds for w in self._pool if w.job is not None]
                deadlines += [w.started + START_TIMEOUT_S for w in self._pool if not w.ready]
                if budget_s is not None and stop is None and begun is not None:
                    deadlines.append(begun + budget_s)
                wait = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
                for key, _ in selector.select(wait):
                    w = key.data
                    if w.closed:
                        continue
                    try:
                        messages = w.lines()
                    except (OSError, ValueError):
                        messages = None
                    if messages is None:  # the worker died
                        if not w.ready:
                            raise LemmataError(f"a bounded worker for {self.target} exited while starting")
                        if w.job is not None:
                            settle(w, Outcome(bound="crashed", seconds=time.monotonic() - w.dispatched,
                                              reason="its worker process died"))
                        replace(w)
                        continue
                    for m in messages:
                        if "ready" in m:
                            if m.get("error"):
                                raise LemmataError(f"a bounded worker for {self.target} could not start: {m['error']}")
                            w.ready = True
                        elif w.job is not None and m.get("id") == w.job:
                            spent = time.monotonic() - w.dispatched
                            self.peak_rss_kb = max(self.peak_rss_kb, int(m.get("hwm_kb") or 0))
                            if "value" in m:
                                settle(w, Outcome(value=m["value"], seconds=spent, near_cap=bool(m.get("near_cap"))))
                            elif m.get("bound") == "memory":
                                settle(w, Outcome(bound="memory", reason="out of memory", seconds=spent))
                            else:
                                settle(w, Outcome(bound="error", seconds=spent,
                                                  reason=f"failed: {m.get('error', 'unknown error')}"[:300]))
                            if m.get("recycle"):
                                replace(w)
                                break
                now = time.monotonic()
                for w in list(self._pool):
                    if w.job is not None and now - w.dispatched >= self.seconds:
                        settle(w, Outcome(bound="time", seconds=now - w.dispatched, reason="out of time"))
                        replace(w)
                    elif not w.ready and now - w.started >= START_TIMEOUT_S:
                        raise LemmataError(f"a bounded worker for {self.target} did not start within "
                                           f"{START_TIMEOUT_S:g} s")
        finally:
            selector.close()
        return [o if o is not None else Outcome(bound="budget", reason="not run") for o in out]


_SHARED: dict[tuple[Any, ...], BoundedPool] = {}
_SHARED_LOCK = threading.Lock()


def shared_pool(target: str, *, workers: int = 2, seconds: float = 1.5, memory_mb: int = 400,
                warm: Sequence[Sequence[Any]] = ()) -> BoundedPool:
    """The process-wide pool for ``target`` with these bounds (started lazily, stopped at exit), so a scoring
    service pays for its workers' imports once."""
    key = (target, workers, seconds, memory_mb, json.dumps([list(a) for a in warm]))
    with _SHARED_LOCK:
        pool = _SHARED.get(key)
        if pool is None:
            pool = _SHARED[key] = BoundedPool(target, workers=workers, seconds=seconds, memory_mb=memory_mb,
                                              warm=warm)
        return pool


@atexit.register
def _close_shared() -> None:
    for pool in list(_SHARED.values()):
        pool.close()


# -- the worker's side ---------------------------------------------------------------------------------------

def _status_kb(field: str) -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def _load(target: str, warm: list[list[Any]]) -> Any:
    module, _, name = target.partition(":")
    fn = getattr(import_module(module), name)
    for args in warm:
        fn(*args)
    return fn


def _serve(fn: Any, calls: Any, proto: Any, memory_mb: int, seconds: float) -> int:
    """Cap memory, say ready, then answer one JSON line per call read from ``calls`` until end of file."""
    limit = memory_mb * 1024 * 1024
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    except (ImportError, ValueError, OSError):
        resource = None  # type: ignore[assignment]  # no such limits here (Windows): the wall clock still holds
        cpu_hard = None
    size = _status_kb("VmSize")
    if size is not None and size * 1024 >= NEAR_CAP * limit:
        proto.write(json.dumps({"ready": True, "error": f"the worker alone uses {size // 1024} MB, more than "
                                                        f"the {memory_mb} MB bound allows"}) + "\n")
        return 1
    proto.write(json.dumps({"ready": True}) + "\n")
    for line in calls:
        if not line.strip():
            continue
        message = json.loads(line)
        if resource is not None:
            used = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
            soft = int(used + 2 * seconds + 2)
            if cpu_hard == resource.RLIM_INFINITY or (cpu_hard is not None and soft < cpu_hard):
                resource.setrlimit(resource.RLIMIT_CPU, (soft, cpu_hard))
        before = _status_kb("VmPeak")
        reply: dict[str, Any] = {"id": message["id"]}
        try:
            reply["value"] = fn(*message["args"])
        except MemoryError:
            reply.update(bound="memory", recycle=True)
        except RecursionError as exc:
            reply.update(error=f"RecursionError: {exc}"[:300], recycle=True)
        except Exception as exc:  # noqa: BLE001 - the caller records it with the call
            reply.update(error=f"{type(exc).__name__}: {exc}"[:300])
        peak = _status_kb("VmPeak")
        reply["hwm_kb"] = _status_kb("VmHWM")
        if peak is not None and peak * 1024 >= NEAR_CAP * limit:
            reply.update(near_cap=before is None or before * 1024 < NEAR_CAP * limit, recycle=True)
        try:
            text = json.dumps(reply)
        except (TypeError, ValueError) as exc:
            text = json.dumps({"id": message["id"], "error": f"unserialisable result: {exc}"[:300]})
        proto.write(text + "\n")
        if reply.get("recycle"):
            return 0
    return 0


def _die_with_parent(parent: int) -> None:
    """Linux: be killed when the fork server exits (it exits when the caller does), even mid-call."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # it was gone before the request took hold
        os._exit(1)


def _fork_server(fn: Any, sock: socket.socket, memory_mb: int, seconds: float) -> int:
    """Fork one worker per request (two pipe ends passed over ``sock``), reply with its pid; exit at end of file."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # workers are reaped by the kernel
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(sock, 16, 2)
        except OSError:
            return 0
        if not data:
            return 0
        if len(fds) != 2:
            for fd in fds:
                os.close(fd)
            continue
        calls_fd, answers_fd = fds
        server = os.getpid()
        pid = os.fork()
        if pid == 0:  # the worker
            code = 1
            try:
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                _die_with_parent(server)
                sock.close()
                calls = os.fdopen(calls_fd, "r", encoding="utf-8")
                proto = os.fdopen(answers_fd, "w", buffering=1, encoding="utf-8")
                code = _serve(fn, calls, proto, memory_mb, seconds)
            finally:
                os._exit(code)
        os.close(calls_fd)
        os.close(answers_fd)
        sock.sendall(f"{pid}\n".encode())


def _main(argv: list[str]) -> int:
    target, memory_mb, seconds, warm = argv[0], int(argv[1]), float(argv[2]), json.loads(argv[3])
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the caller, which stops its workers
    server = argv[5] if len(argv) > 5 and argv[4] == "--fork-server" else None
    if server is not None:
        sock = socket.socket(fileno=int(server))
        try:
            fn = _load(target, warm)
        except Exception as exc:  # noqa: BLE001 - reported to the caller, which raises it
            sock.sendall(f"error {type(exc).__name__}: {exc}"[:500].replace("\n", " ").encode() + b"\n")
            return 1
        sock.sendall(b"ready\n")
        return _fork_server(fn, sock, memory_mb, seconds)
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # whatever the target prints cannot corrupt the answers
    sys.stdout = sys.stderr
    try:
        fn = _load(target, warm)
    except Exception as exc:  # noqa: BLE001 - reported to the caller, which raises it
        proto.write(json.dumps({"ready": True, "error": f"{type(exc).__name__}: {exc}"[:500]}) + "\n")
        return 1
    return _serve(fn, sys.stdin, proto, memory_mb, seconds)


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
