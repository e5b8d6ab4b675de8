"""The vLLM engine thread: one asyncio loop on its own thread, which other threads hand coroutines to."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")


class EngineLoopThread:
    """Runs an asyncio event loop on a daemon thread until :meth:`stop`."""

    def __init__(self, name: str = "vllm-engine") -> None:
        self._loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()
        self._started.wait()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.call_soon(self._started.set)
        try:
            self._loop.run_forever()
        finally:
            pending = [task for task in asyncio.all_tasks(self._loop) if not task.done()]
            for task in pending:
                task.cancel()
            if pending:
                self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self._loop.close()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    @property
    def running(self) -> bool:
        return self._thread.is_alive() and not self._loop.is_closed()

    def submit(self, coroutine: Coroutine[Any, Any, T]) -> Future[T]:
        """Schedule ``coroutine`` on the loop; returns at once with a thread-safe future."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    def call(self, function: Callable[[], T], timeout_s: float | None = None) -> T:
        """Run a plain function on the loop thread and wait for its result."""

        async def run() -> T:
            return function()

        return self.submit(run()).result(timeout=timeout_s)

    def call_soon(self, function: Callable[[], object]) -> None:
        """Run ``function`` on the loop thread soon; does not wait."""
        if not self._loop.is_closed():
            self._loop.call_soon_threadsafe(function)

    def stop(self, timeout_s: float = 10.0) -> None:
        """Stop the loop (cancelling what still runs on it) and join the thread."""
        if not self._loop.is_closed():
            with contextlib.suppress(RuntimeError):  # closed meanwhile
                self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=timeout_s)
