"""The glue the native module calls: callbacks scheduled on an event loop, results set on
asyncio futures. Everything here runs on the event loop's thread."""

from __future__ import annotations

import asyncio
import inspect
import json
from typing import Any, Callable, Optional

from ._types import HookContext

# Python keywords the SDK spells with a trailing underscore.
_KEYWORDS = {"continue_": "continue", "async_": "async"}


def resolve(future: "asyncio.Future[str]", text: str) -> None:
    """Sets a fire's result (JSON text), unless the awaiting task gave up on it."""
    if not future.done():
        future.set_result(text)


def _describe(exc: BaseException) -> str:
    text = str(exc)
    name = type(exc).__name__
    return f"callback raised {name}: {text}" if text else f"callback raised {name}"


def to_wire(value: Any) -> str:
    """A callback's answer as the output object's JSON; raises TypeError/ValueError."""
    if not isinstance(value, dict):
        raise TypeError(f"callback returned {type(value).__name__}, expected a dict")
    wire = {_KEYWORDS.get(k, k): v for k, v in value.items()}
    return json.dumps(wire)


class _Call:
    """One callback call: started on the loop, cancelled when the engine gives up."""

    __slots__ = ("_loop", "_callback", "_input", "_tool_use_id", "_context", "_done", "_task", "_cancelled")

    def __init__(self, loop, callback, input_json, tool_use_id, timeout, done) -> None:
        self._loop = loop
        self._callback = callback
        self._input = input_json
        self._tool_use_id = tool_use_id
        self._context = HookContext(signal=None, timeout=timeout)
        self._done = done
        self._task: Optional[asyncio.Future] = None
        self._cancelled = False

    def start(self) -> None:
        if self._cancelled:
            return
        try:
            result = self._callback(json.loads(self._input), self._tool_use_id, self._context)
        except Exception as exc:  # noqa: BLE001 - a failing callback is an outcome
            self._done.fail(_describe(exc))
            return
        if inspect.isawaitable(result):
            self._task = asyncio.ensure_future(result, loop=self._loop)
            self._task.add_done_callback(self._finished)
        else:
            self._answer(result)

    def _finished(self, task: asyncio.Future) -> None:
        if task.cancelled():
            self._done.fail("callback was cancelled")
            return
        exc = task.exception()
        if exc is not None:
            self._done.fail(_describe(exc))
        else:
            self._answer(task.result())

    def _answer(self, value: Any) -> None:
        try:
            text = to_wire(value)
        except (TypeError, ValueError) as exc:
            self._done.fail(str(exc) if isinstance(exc, TypeError) and "expected a dict" in str(exc)
                            else f"callback output is not JSON: {exc}")
            return
        self._done.ok(text)

    def cancel(self) -> None:
        self._cancelled = True
        if self._task is not None and not self._task.done():
            self._task.cancel()


def schedule(loop, callback: Callable, input_json: str, tool_use_id, timeout: float, done) -> _Call:
    """Schedules one call of `callback` on `loop` (from any thread); returns its handle."""
    call = _Call(loop, callback, input_json, tool_use_id, timeout, done)
    if asyncio._get_running_loop() is loop:
        # A fire polled on the loop's own thread: no wake-up through the self-pipe.
        loop.call_soon(call.start)
    else:
        loop.call_soon_threadsafe(call.start)
    return call
