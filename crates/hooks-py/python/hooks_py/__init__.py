"""The hooks engine in-process: file hooks of every layer, plugins and Agent SDK-style
callbacks in one deterministic reduction, handlers run as real processes (each in its
own process group, with its timeout) while Python keeps running.

    session = Session(".", hooks={"PreToolUse": [HookMatcher("Bash", [check])]})
    result = await session.fire("PreToolUse", {"tool_name": "Bash", ...})
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import atexit

from . import _bridge  # noqa: F401 - imported by the native module
from ._native import NativeSession, _interpreter_exiting
from ._types import (
    Decision,
    Diagnostic,
    Effect,
    FireResult,
    HandlerRun,
    HookCallback,
    HookContext,
    HookMatcher,
    ListedHandler,
    Listing,
    Permission,
)

__all__ = [
    "Decision",
    "Diagnostic",
    "Effect",
    "FireResult",
    "HandlerRun",
    "HookCallback",
    "HookContext",
    "HookMatcher",
    "ListedHandler",
    "Listing",
    "Permission",
    "Session",
]

# The engine's threads stop calling into Python once the interpreter exits.
atexit.register(_interpreter_exiting)

PathLike = Union[str, "os.PathLike[str]"]


def _host_handler(fn: Callable[[Dict[str, Any]], Any]) -> Callable[..., Any]:
    """A host-handler function in the shape the engine calls callbacks with."""

    def call(request: Dict[str, Any], _tool_use_id: Any, _context: Any) -> Any:
        return fn(request)

    return call


class Session:
    """A hook session: the snapshot of every layer taken at start (project file when
    trusted, user file, installed and ``plugin_dirs`` plugins, then ``hooks``), and the
    turn state kept between events.

    ``project`` is the folder the session starts in (the project root is its nearest
    ancestor with ``.git``). ``home`` defaults to ``$DEEPAGENTS_HOME``, else
    ``~/.deepagents``. ``trust_project_hooks`` loads the project file present at start
    without a trust-store entry (headless trust). ``env`` is the environment handlers
    inherit (default: this process's), scrubbed of credentials except the names in
    ``allow_env``. ``profile`` is the hook contract, as ``hooks --profile`` names it:
    ``"deepagents"`` (default: Deep Agents Code's files and rules) or ``"claude-code"``
    (Claude Code's settings layers, ``.claude/settings.json`` and the others, and its
    plugins; ``home`` then defaults to ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``).
    ``capabilities`` names the optional outputs the host applies beyond the profile's, as
    ``hooks run --capability`` does: ``"updated-input"`` (what the Claude Agent SDK
    applies), ``"pre-tool-use-updated-input"``, ``"permission-request-updated-input"``,
    ``"defer"``; a string is one name. ``plugin_dirs`` are plugin folders loaded as
    installed (a path, or ``(path, id)``). ``hooks`` maps event names to
    :class:`HookMatcher` lists, as ``ClaudeAgentOptions(hooks=...)`` does.
    ``host_handlers`` maps ``"prompt"``, ``"agent"`` or ``"mcp_tool"`` to a function (or
    coroutine function) that answers such handlers of the configuration: it gets the
    request (``kind``, ``handler_id``, ``event``, ``timeout_ms``, ``input``, and the final
    ``prompt`` and ``model``, or the MCP ``server``, ``tool`` and ``arguments``) and returns
    the reply (``{"ok": True}`` or ``{"ok": False, "reason": ...}``; for ``mcp_tool`` the
    tool's ``{"content": [...], "isError": ...}``). The engine enforces the handler's
    timeout and cancels the call's task when it passes; a kind without a function is
    skipped with ``handler_needs_host``.
    ``receipts`` (default ``True``) appends one hash-chained record per handler of each
    fire to the session's journal under the home (README "Receipts"); each
    :class:`FireResult` then carries its ``receipt`` position. Managed
    ``requireReceipts`` keeps them on.
    ``strict_containment`` (default: ``HOOKS_STRICT_CONTAINMENT`` of this process is ``1``,
    ``true`` or ``on``) kills every descendant of a handler with it, also after a normal
    exit; otherwise what a handler detached keeps running once it exits on its own, and
    its tree dies only at its timeout or cancellation (docs/spec.md#spec-15.15). Managed
    ``strictHookContainment`` turns it on whatever this says.
    ``cloud=True`` (``profile="cursor"`` only) is a Cursor cloud agent: only the command
    hooks of the enterprise file, the team document and the project file run; the user
    file and plugins are listed disabled (docs/cursor.md, "Cloud agents").
    ``third_party=True`` (``profile="cursor"`` only) is Cursor's third-party setting: Claude
    Code's settings files load too, and ``fire`` takes Claude Code's event names for them
    (docs/cursor.md, "Claude Code files").
    """

    def __init__(
        self,
        project: PathLike = ".",
        *,
        home: Optional[PathLike] = None,
        trust_project_hooks: bool = False,
        env: Optional[Mapping[str, str]] = None,
        allow_env: Iterable[str] = (),
        profile: str = "deepagents",
        capabilities: Iterable[str] = (),
        plugin_dirs: Iterable[Union[PathLike, Tuple[PathLike, Optional[str]]]] = (),
        require_verified: bool = False,
        hooks: Optional[Mapping[str, Sequence[HookMatcher]]] = None,
        host_handlers: Optional[Mapping[str, Callable[[Dict[str, Any]], Any]]] = None,
        receipts: bool = True,
        strict_containment: Optional[bool] = None,
        cloud: bool = False,
        third_party: bool = False,
    ) -> None:
        if strict_containment is None:
            flag = os.environ.get("HOOKS_STRICT_CONTAINMENT", "").strip().lower()
            strict_containment = flag in ("1", "true", "on")
        answers = []
        for kind, fn in (host_handlers or {}).items():
            if not callable(fn):
                raise TypeError(f"host_handlers[{kind!r}]: {fn!r} is not callable")
            answers.append((kind, _host_handler(fn)))
        groups = []
        for event, matchers in (hooks or {}).items():
            for m in matchers:
                if not isinstance(m, HookMatcher):
                    raise TypeError(f"hooks[{event!r}]: expected HookMatcher, got {type(m).__name__}")
                for cb in m.hooks:
                    if not callable(cb):
                        raise TypeError(f"hooks[{event!r}]: {cb!r} is not callable")
                groups.append((event, m.matcher, list(m.hooks), m.timeout))
        dirs = []
        for d in plugin_dirs:
            if isinstance(d, tuple):
                dirs.append((os.path.abspath(os.fspath(d[0])), d[1]))
            else:
                dirs.append((os.path.abspath(os.fspath(d)), None))
        for path, _ in dirs:
            if not os.path.isdir(path):
                raise ValueError(f"plugin_dirs: {path}: not a folder")
        self._native = NativeSession(
            os.path.abspath(os.fspath(project)),
            None,
            None if home is None else os.path.abspath(os.fspath(home)),
            trust_project_hooks,
            None if env is None else list(env.items()),
            list(allow_env),
            profile,
            [capabilities] if isinstance(capabilities, str) else list(capabilities),
            dirs,
            require_verified,
            groups,
            answers,
            receipts,
            bool(strict_containment),
            bool(cloud),
            bool(third_party),
        )

    async def fire(
        self,
        event: str,
        payload: Mapping[str, Any],
        *,
        stop_continuations: Optional[int] = None,
        match_target: Optional[str] = None,
    ) -> FireResult:
        """Fires ``event`` with ``payload`` (the host's fields; ``session_id``,
        ``transcript_path``, ``cwd`` and ``permission_mode`` are filled when absent).

        ``match_target`` is what PreModelSwitch and PostModelSwitch groups match: the target
        model's canonical name, which the host resolves (it is not written to stdin); without
        it every group runs, with a ``matcher_unresolved`` info.

        Every matching handler runs at once; their results are reduced in configuration
        order. A hook that fails (non-zero exit, timeout, a callback that raises or
        returns something else than a dict) is a diagnostic of the decision, never an
        exception. Cancelling the awaiting task sends SIGKILL to the handlers' process
        groups (and cancels the callbacks) before ``CancelledError`` propagates. A bad event name or payload raises ``ValueError``.
        """
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        handle = self._native.start_fire(
            event, json.dumps(payload), loop, future, stop_continuations, match_target
        )
        try:
            text = await future
        except asyncio.CancelledError:
            handle.cancel()
            raise
        handle.join()
        return FireResult._from(json.loads(text))

    def fire_sync(
        self,
        event: str,
        payload: Mapping[str, Any],
        *,
        stop_continuations: Optional[int] = None,
        match_target: Optional[str] = None,
    ) -> FireResult:
        """:meth:`fire` for scripts: blocks until the decision is made. Sessions with
        callbacks run them on a new event loop (so not from inside a running one)."""
        if self._native.has_callbacks():
            return asyncio.run(
                self.fire(
                    event,
                    payload,
                    stop_continuations=stop_continuations,
                    match_target=match_target,
                )
            )
        text = self._native.fire_blocking(
            event, json.dumps(payload), stop_continuations, match_target
        )
        return FireResult._from(json.loads(text))

    def list(
        self,
        event: Optional[str] = None,
        payload: Optional[Dict[str, Any]] = None,
        *,
        match_target: Optional[str] = None,
    ) -> Listing:
        """The audit: every handler of the snapshot (active or why not) and the load
        diagnostics, as ``hooks list --json --all`` shows them. With ``event`` (and its
        ``payload`` and ``match_target``), the plan: the handlers of that event, each with its
        ``fate`` and ``why``, exactly what :meth:`fire` with the same arguments runs."""
        text = payload if payload is None else json.dumps(payload)
        return Listing._from(json.loads(self._native.list(event, text, match_target)))

    def reload(self) -> None:
        """Takes a new snapshot from the files as they are now (headless trust still
        covers only the project bytes present at start)."""
        self._native.reload()

    @property
    def stop_continuations(self) -> int:
        """The main loop's count of consecutive Stop continuations so far."""
        return self._native.stop_continuations()
