"""The typed values of the Python API: what hosts register and what `fire` returns."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from dataclasses import field as _field
from typing import Any, Awaitable, Callable, Dict, List, Optional, Union

#: A hook callback, as in the Claude Agent SDK: ``async def cb(input_data, tool_use_id,
#: context) -> dict`` (a plain function returning a dict works too).
HookCallback = Callable[
    [Dict[str, Any], Optional[str], "HookContext"],
    Union[Awaitable[Dict[str, Any]], Dict[str, Any]],
]


@dataclass
class HookMatcher:
    """Callbacks for the tools (or sources, triggers, ...) that ``matcher`` matches.

    ``matcher`` follows the engine's matcher rules (exact names, ``|`` lists, regular
    expressions; ``None`` or ``"*"`` match everything); ``timeout`` is per callback, in
    seconds (default 60).
    """

    matcher: Optional[str] = None
    hooks: List[HookCallback] = _field(default_factory=list)
    timeout: Optional[float] = None


@dataclass(frozen=True)
class HookContext:
    """The third argument of a callback. ``signal`` is reserved (``None``), as in the
    Python Agent SDK: a callback past its timeout, or of a cancelled ``fire``, is
    cancelled the asyncio way (``CancelledError`` inside it)."""

    signal: None = None
    #: The callback's timeout, in seconds.
    timeout: float = 60.0


class _Value:
    """Keeps the engine's JSON so that ``to_dict`` returns it exactly."""

    _raw: Dict[str, Any]

    def to_dict(self) -> Dict[str, Any]:
        """The engine's JSON object for this value (a deep copy)."""
        return copy.deepcopy(self._raw)


@dataclass(frozen=True)
class Diagnostic(_Value):
    """A located problem: a handler's failure (``timeout``, ``nonzero_exit``,
    ``callback_failed``, ...) or a configuration problem."""

    code: str
    severity: str
    message: str
    handler_id: Optional[str] = None
    field: Optional[str] = None
    source: Optional[str] = None
    line: Optional[int] = None
    column: Optional[int] = None
    subject: Optional[str] = None
    _raw: Dict[str, Any] = _field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "Diagnostic":
        return cls(
            code=d.get("code", ""),
            severity=d.get("severity", "warning"),
            message=d.get("message", ""),
            handler_id=d.get("handler_id"),
            field=d.get("field"),
            source=d.get("source"),
            line=d.get("line"),
            column=d.get("column"),
            subject=d.get("subject"),
            _raw=d,
        )


@dataclass(frozen=True)
class Permission(_Value):
    """The permission outcome: ``behavior`` is ``none``, ``allow``, ``ask`` or ``deny``."""

    behavior: str
    reason: Optional[str]
    interrupt: bool
    _raw: Dict[str, Any] = _field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Decision(_Value):
    """The reduction of every handler's output, in configuration order."""

    continue_: bool
    stop_reason: Optional[str]
    notices: List[str]
    terminal_sequences: List[str]
    #: For PreToolUse, PermissionRequest and PreModelSwitch only.
    permission: Optional[Permission]
    context: List[str]
    feedback: List[str]
    #: Stop and SubagentStop: keep the turn going with the feedback.
    continue_loop: Optional[bool]
    #: UserPromptSubmit: drop the prompt text.
    suppress_original_prompt: Optional[bool]
    updated_input: Optional[Dict[str, Any]]
    diagnostics: List[Diagnostic]
    _raw: Dict[str, Any] = _field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "Decision":
        p = d.get("permission")
        return cls(
            continue_=d.get("continue", True),
            stop_reason=d.get("stop_reason"),
            notices=list(d.get("notices", [])),
            terminal_sequences=list(d.get("terminal_sequences", [])),
            permission=None
            if p is None
            else Permission(p.get("behavior", "none"), p.get("reason"), p.get("interrupt", False), p),
            context=list(d.get("context", [])),
            feedback=list(d.get("feedback", [])),
            continue_loop=d.get("continue_loop"),
            suppress_original_prompt=d.get("suppress_original_prompt"),
            updated_input=d.get("updated_input"),
            diagnostics=[Diagnostic._from(x) for x in d.get("diagnostics", [])],
            _raw=d,
        )


@dataclass(frozen=True)
class Effect(_Value):
    """What the reference host does with the decision: ``outcome`` (tool events:
    ``deny``, ``ask``, ``allow``, ``normal_approval``), the lines shown to the user
    (``notices``) and the event's other fields (``fields``, e.g. ``tool_result``,
    ``appended_context``)."""

    outcome: Optional[str]
    notices: List[str]
    fields: Dict[str, Any]
    _raw: Dict[str, Any] = _field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "Effect":
        rest = {k: v for k, v in d.items() if k not in ("outcome", "notices")}
        return cls(d.get("outcome"), list(d.get("notices", [])), rest, d)


@dataclass(frozen=True)
class HandlerRun(_Value):
    """One matched handler's run."""

    id: str
    exit_code: Optional[int]
    timed_out: bool
    elapsed_ms: int
    stdout_truncated: bool
    stderr_truncated: bool
    _raw: Dict[str, Any] = _field(default_factory=dict, repr=False, compare=False)
    #: The signal that ended it, if one did (not a timeout's kill).
    signal: Optional[int] = None
    #: Why it could not start (the program was not found, the command is empty).
    start_error: Optional[str] = None
    #: What a process that failed without blocking printed (not after an exit 0 or 2): the
    #: first non-blank line of its stderr,
    #: credentials in URLs redacted, control characters escaped, at most 200 characters
    #: (``…`` marks a cut); ``None`` otherwise.
    stderr_line: Optional[str] = None


@dataclass(frozen=True)
class FireResult(_Value):
    """The result of one event: the decision, its effect and whether it blocks (what
    ``hooks run`` answers with exit 2)."""

    event: str
    snapshot_id: str
    #: The matched handler ids, in configuration order.
    matched: List[str]
    decision: Decision
    effect: Effect
    blocking: bool
    handlers: List[HandlerRun]
    #: What the payload lacked and was defaulted (``payload_defaulted``, CLAUDE-CODE.md
    #: 5.2), and unknown keys dropped (``unknown_field``).
    payload_diagnostics: List[Diagnostic] = _field(default_factory=list)
    #: Where the fire's receipts end in the session's journal (``journal``, ``seq``,
    #: ``hash``; README "Receipts"), or ``None`` when receipts are off.
    receipt: Optional[Dict[str, Any]] = None
    #: The host's own event name when the profile's host names its events (cursor:
    #: ``beforeShellExecution``, whose ``event`` is ``PreToolUse``); ``None`` otherwise.
    host_event: Optional[str] = None
    _raw: Dict[str, Any] = _field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "FireResult":
        return cls(
            event=d["event"],
            snapshot_id=d["snapshot_id"],
            matched=list(d["matched"]),
            decision=Decision._from(d["decision"]),
            effect=Effect._from(d["effect"]),
            blocking=bool(d["blocking"]),
            handlers=[
                HandlerRun(
                    h["id"], h.get("exit_code"), h["timed_out"], h["elapsed_ms"],
                    h["stdout_truncated"], h["stderr_truncated"], h,
                    signal=h.get("signal"),
                    start_error=h.get("start_error"),
                    stderr_line=h.get("stderr_line"),
                )
                for h in d["handlers"]
            ],
            payload_diagnostics=[Diagnostic._from(x) for x in d.get("payload_diagnostics", [])],
            receipt=d.get("receipt"),
            host_event=d.get("host_event"),
            _raw=d,
        )


@dataclass(frozen=True)
class ListedHandler(_Value):
    """One handler of the audit (``hooks list --json``'s row)."""

    id: Optional[str]
    fingerprint: str
    event: str
    matcher: Optional[str]
    command: Optional[str]
    argv: Optional[List[str]]
    timeout: Optional[float]
    effective_timeout: float
    status_message: Optional[str]
    #: ``project``, ``user``, ``plugin`` or ``callback``.
    layer: str
    file: str
    line: Optional[int]
    column: Optional[int]
    field: str
    plugin: Optional[Dict[str, Any]]
    #: ``active``, or why it does not run: ``untrusted``, ``invalid``, ``duplicate``,
    #: ``disabled``, ``tampered``, ``unverified``, ``inactive``, ``blocked``.
    status: str
    reason: Optional[str]
    #: The ``if`` rule as written.
    if_rule: Optional[str] = None
    #: ``command``, ``http``, ``prompt``, ``agent``, ``mcp_tool`` or ``callback``.
    handler_type: str = "command"
    #: ``async`` or ``asyncRewake``: it runs in the background.
    is_async: bool = False
    async_rewake: bool = False
    shell: Optional[str] = None
    once: Optional[bool] = None
    #: ``onFailure`` as it applies: ``continue``, ``block``, or ``None`` (absent, or ignored
    #: where it has no effect).
    on_failure: Optional[str] = None
    #: ``"resident": true``: one process per session answers each event as a line
    #: (docs/spec.md#spec-15.16).
    resident: bool = False
    #: An http handler's URL, credentials redacted.
    url: Optional[str] = None
    #: With ``list(event, payload)``: its fate in the plan of that invocation (``runs``,
    #: ``no_match``, ``if_false``, ``inactive``, ``url_not_allowed``, ``needs_host``).
    fate: Optional[str] = None
    #: With ``list(event, payload)``: why it runs or not.
    why: Optional[str] = None
    _raw: Dict[str, Any] = _field(default_factory=dict, repr=False, compare=False)

    # The JSON keys of the fields whose names are Python keywords or taken.
    _KEYS = {"if_rule": "if", "handler_type": "type", "is_async": "async"}


@dataclass(frozen=True)
class Listing(_Value):
    """The audit of the session's snapshot: every handler, active or not, and the load
    diagnostics."""

    snapshot_id: str
    project_root: str
    home: str
    handlers: List[ListedHandler]
    diagnostics: List[Diagnostic]
    _raw: Dict[str, Any] = _field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "Listing":
        names = [
            ListedHandler._KEYS.get(f, f) for f in ListedHandler.__dataclass_fields__ if f != "_raw"
        ]
        return cls(
            snapshot_id=d["snapshot_id"],
            project_root=d["project_root"],
            home=d["home"],
            handlers=[
                ListedHandler(*(h.get(n) for n in names), _raw=h)  # type: ignore[arg-type]
                for h in d["handlers"]
            ],
            diagnostics=[Diagnostic._from(x) for x in d["diagnostics"]],
            _raw=d,
        )
