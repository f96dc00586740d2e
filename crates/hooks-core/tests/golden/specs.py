"""Golden case specifications, read by `generate.py` (see README.md).

Every case names the hook files (exact text), the event, the host payload and
the raw output of each matched handler, keyed by handler id. Handler commands
are portable program names; the generator makes them print the given output.
"""

from __future__ import annotations

import base64
import json

BASE = {
    "session_id": "golden-session",
    "transcript_path": "/tmp/transcript.jsonl",
    "cwd": "/tmp",
}

DEFAULT_OWN = {
    "SessionStart": {"source": "startup", "model": "claude-golden"},
    "UserPromptSubmit": {"prompt": "please refactor the parser"},
    "SessionEnd": {"reason": "other"},
    "PermissionRequest": {
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf build"},
        "tool_use_id": "toolu_01",
    },
    "Notification": {
        "notification_type": "agent_completed",
        "message": "Task finished",
        "title": "Deep Agents",
    },
    "PreToolUse": {
        "tool_name": "Bash",
        "tool_input": {"command": "ls -la"},
        "tool_use_id": "toolu_01",
    },
    "PostToolUse": {
        "tool_name": "Bash",
        "tool_input": {"command": "ls -la"},
        "tool_use_id": "toolu_01",
        "tool_response": {"stdout": "a.txt\nb.txt", "exit_code": 0},
        "duration_ms": 12,
    },
    "PostToolUseFailure": {
        "tool_name": "Bash",
        "tool_input": {"command": "make"},
        "tool_use_id": "toolu_01",
        "error": "make: *** No rule to make target",
        "is_interrupt": False,
        "duration_ms": 7,
    },
    "PreCompact": {"trigger": "manual", "custom_instructions": "keep the todo list"},
    "Stop": {"last_assistant_message": "All done."},
    "SubagentStart": {
        "agent_id": "agent_01",
        "agent_type": "general-purpose",
        "agent_transcript_path": "/tmp/agent-transcript.jsonl",
    },
    "SubagentStop": {
        "agent_id": "agent_01",
        "agent_type": "general-purpose",
        "agent_transcript_path": "/tmp/agent-transcript.jsonl",
        "last_assistant_message": "Subtask done.",
    },
}

EVENTS = list(DEFAULT_OWN)


def payload(event: str, **own: object) -> dict:
    """Host payload: the fixed common keys, the event's defaults, overrides."""
    value = dict(BASE)
    value.update(DEFAULT_OWN[event])
    value.update(own)
    return value


def h(command: str, **fields: object) -> dict:
    """A command handler."""
    return {"type": "command", "command": command, **fields}


def g(matcher: str | None, *handlers: dict, **extra: object) -> dict:
    """A matcher group (matcher None = key absent)."""
    group: dict = {} if matcher is None else {"matcher": matcher}
    group["hooks"] = list(handlers)
    group.update(extra)
    return group


def doc(hooks: object) -> str:
    """Pretty configuration text for a `hooks` value."""
    return json.dumps({"hooks": hooks}, indent=2) + "\n"


def user(text: str) -> list[dict]:
    """A single user-layer file."""
    return [{"layer": "user", "text": text}]


def out(exit: int = 0, stdout: str = "", stderr: str = "") -> dict:
    """A handler output."""
    return {"exit": exit, "stdout": stdout, "stderr": stderr}


def js(value: object) -> str:
    """Compact JSON stdout followed by a newline."""
    return json.dumps(value) + "\n"


def simple(
    name: str,
    description: str,
    spec: list[str],
    event: str,
    outputs: list[dict],
    matcher: str | None = None,
    pay: dict | None = None,
    **extra: object,
) -> dict:
    """One group of handlers `a`, `b`, ... on `event`, one output each."""
    names = [chr(ord("a") + index) for index in range(len(outputs))]
    handlers = [h(f"hook-{letter}") for letter in names]
    case = {
        "name": name,
        "description": description,
        "spec": spec,
        "event": event,
        "files": user(doc({event: [g(matcher, *handlers)]})),
        "payload": pay if pay is not None else payload(event),
        "outputs": {f"{event}:0:{i}": output for i, output in enumerate(outputs)},
    }
    case.update(extra)
    return case


VALID_PRE = g("Bash", h("hook-ok"))

CASES: list[dict] = []
add = CASES.append

# --------------------------------------------------------------- SPEC 2: config

add(
    {
        "name": "config-json-syntax-error",
        "description": "A file with a JSON syntax error contributes nothing; "
        "the other layer still loads.",
        "spec": ["2/config_read_failed"],
        "event": "PreToolUse",
        "files": [
            {"layer": "project", "text": '{"hooks": {"PreToolUse": [\n  {"matcher": "Bash",\n'},
            {"layer": "user", "text": doc({"PreToolUse": [VALID_PRE]})},
        ],
        "payload": payload("PreToolUse"),
        "outputs": {},
    }
)
add(
    {
        "name": "config-invalid-utf8",
        "description": "A file that is not valid UTF-8 is rejected with config_read_failed.",
        "spec": ["2/config_read_failed"],
        "event": "PreToolUse",
        "files": [
            {
                "layer": "user",
                "base64": base64.b64encode(
                    b'{"hooks": {"PreToolUse": [{"matcher": "B\xffash", "hooks": []}]}}\n'
                ).decode("ascii"),
            }
        ],
        "payload": payload("PreToolUse"),
        "outputs": {},
    }
)
add(
    {
        "name": "config-root-not-object",
        "description": "A JSON array at the root drops the file with invalid_config.",
        "spec": ["2/invalid_config"],
        "event": "PreToolUse",
        "files": [
            {"layer": "project", "text": "[1, 2]\n"},
            {"layer": "user", "text": doc({"PreToolUse": [VALID_PRE]})},
        ],
        "payload": payload("PreToolUse"),
        "outputs": {},
    }
)
add(
    {
        "name": "config-hooks-missing",
        "description": "An object without `hooks` drops the file.",
        "spec": ["2/invalid_config"],
        "event": "PreToolUse",
        "files": user('{"PreToolUse": []}\n'),
        "payload": payload("PreToolUse"),
        "outputs": {},
    }
)
add(
    {
        "name": "config-hooks-not-object",
        "description": "`hooks` that is a string (neither object nor legacy list) drops the file.",
        "spec": ["2/invalid_config"],
        "event": "PreToolUse",
        "files": user('{"hooks": "PreToolUse"}\n'),
        "payload": payload("PreToolUse"),
        "outputs": {},
    }
)
add(
    {
        "name": "config-unknown-event",
        "description": "Event names are case-sensitive; unknown ones are skipped, "
        "valid siblings load.",
        "spec": ["2/invalid_config"],
        "event": "PreToolUse",
        "files": user(
            doc(
                {
                    "preToolUse": [g("Bash", h("hook-lower"))],
                    "PreToolUse": [VALID_PRE],
                    "BeforeTool": [],
                }
            )
        ),
        "payload": payload("PreToolUse"),
        "outputs": {"PreToolUse:0:0": out(stdout="")},
    }
)
add(
    {
        "name": "config-event-not-list",
        "description": "An event whose value is an object is skipped.",
        "spec": ["2/invalid_config"],
        "event": "PreToolUse",
        "files": user(doc({"PreToolUse": {"matcher": "Bash", "hooks": []}, "Stop": [g(None, h("hook-stop"))]})),
        "payload": payload("PreToolUse"),
        "outputs": {},
    }
)
add(
    {
        "name": "config-group-not-object-takes-no-index",
        "description": "Groups that are not objects, lack a `hooks` list or have a "
        "non-list `hooks` are skipped and take no index.",
        "spec": ["2/invalid_config", "1/handler-id"],
        "event": "PreToolUse",
        "files": user(
            doc(
                {
                    "PreToolUse": [
                        "Bash",
                        {"matcher": "Bash"},
                        {"matcher": "Bash", "hooks": {"type": "command", "command": "x"}},
                        g("Bash", h("hook-kept")),
                    ]
                }
            )
        ),
        "payload": payload("PreToolUse"),
        "outputs": {"PreToolUse:0:0": out(stdout="")},
    }
)
add(
    {
        "name": "config-handler-bad-type",
        "description": "Handlers with a wrong or missing `type` are skipped and take no "
        "index; the valid handler becomes :0.",
        "spec": ["2/invalid_config", "1/handler-id"],
        "event": "PreToolUse",
        "files": user(
            doc(
                {
                    "PreToolUse": [
                        g(
                            "Bash",
                            {"type": "prompt", "prompt": "is this safe?"},
                            {"command": "hook-untyped"},
                            h("hook-ok"),
                        )
                    ]
                }
            )
        ),
        "payload": payload("PreToolUse"),
        "outputs": {"PreToolUse:0:0": out()},
    }
)
add(
    {
        "name": "config-timeout-zero-and-negative",
        "description": "`timeout` 0 and -1 are rejected (must be > 0).",
        "spec": ["2/invalid_config"],
        "event": "PreToolUse",
        "files": user(
            doc(
                {
                    "PreToolUse": [
                        g(
                            "Bash",
                            h("hook-zero", timeout=0),
                            h("hook-neg", timeout=-1),
                            h("hook-ok", timeout=0.5),
                        )
                    ]
                }
            )
        ),
        "payload": payload("PreToolUse"),
        "outputs": {"PreToolUse:0:0": out()},
    }
)
add(
    {
        "name": "config-timeout-string-coerced",
        "description": 'The reference coerces `"timeout": "5"` to 5 seconds; ours rejects '
        "the handler (SPEC 15.2).",
        "spec": ["2/invalid_config", "15/2"],
        "event": "PreToolUse",
        "files": user(doc({"PreToolUse": [g("Bash", h("hook-str", timeout="5"), h("hook-ok"))]})),
        "payload": payload("PreToolUse"),
        "outputs": {"PreToolUse:0:0": out(stdout="", stderr=""), "PreToolUse:0:1": out()},
        "deviations": [
            {
                "spec15": 2,
                "path": "/load_diagnostics",
                "compare": "subset",
                "ours": [
                    {
                        "code": "invalid_config",
                        "source": "/golden/user/hooks.json",
                        "field": "hooks.PreToolUse[0].hooks[0].timeout",
                    }
                ],
                "reason": "ours rejects a wrongly typed timeout instead of coercing it; "
                "the message wording is ours to choose",
            },
            {
                "spec15": 2,
                "path": "/handlers/PreToolUse",
                "compare": "subset",
                "ours": [{"id": "PreToolUse:0:0", "command": "hook-ok", "timeout": None}],
                "reason": "the rejected handler takes no index, so hook-ok becomes :0",
            },
            {
                "spec15": 2,
                "path": "/matched",
                "ours": ["PreToolUse:0:0"],
                "reason": "only hook-ok remains",
            },
            {"spec15": 2, "path": "/handler_results", "compare": "subset",
             "ours": [{"handler_id": "PreToolUse:0:0", "effective_timeout": 600.0, "output": None}],
             "reason": "only hook-ok runs"},
            {"spec15": 2, "path": "/load_notices", "compare": "subset",
             "ours": [{"severity": "error"}], "reason": "the rejection is shown at load, as an error (the entry was dropped)"},
            {"spec15": 2, "path": "/status_updates", "ours": ["Running PreToolUse hook\u2026", ""], "reason": "one handler runs"},
        ],
    }
)
add(
    {
        "name": "config-timeout-bool-coerced",
        "description": "The reference coerces `\"timeout\": true` to 1 second; ours rejects "
        "the handler (SPEC 15.2).",
        "spec": ["2/invalid_config", "15/2"],
        "event": "PreToolUse",
        "files": user(doc({"PreToolUse": [g("Bash", h("hook-bool", timeout=True))]})),
        "payload": payload("PreToolUse"),
        "outputs": {"PreToolUse:0:0": out()},
        "deviations": [
            {
                "spec15": 2,
                "path": "/load_diagnostics",
                "compare": "subset",
                "ours": [
                    {
                        "code": "invalid_config",
                        "source": "/golden/user/hooks.json",
                        "field": "hooks.PreToolUse[0].hooks[0].timeout",
                    }
                ],
                "reason": "ours rejects a boolean timeout instead of reading it as 1 second",
            },
            {"spec15": 2, "path": "/handlers/PreToolUse", "ours": None,
             "reason": "no handler is left for PreToolUse"},
            {"spec15": 2, "path": "/matched", "ours": [], "reason": "nothing runs"},
            {"spec15": 2, "path": "/handler_results", "ours": [], "reason": "nothing runs"},
            {"spec15": 2, "path": "/status_updates", "ours": [], "reason": "nothing runs"},
            {"spec15": 2, "path": "/load_notices", "compare": "subset",
             "ours": [{"severity": "error"}], "reason": "the rejection is shown at load, as an error (the entry was dropped)"},
        ],
    }
)
add(
    {
        "name": "config-async-true",
        "description": "`async: true` is rejected; `async: false` is accepted.",
        "spec": ["2/invalid_config"],
        "event": "PreToolUse",
        "files": user(
            doc({"PreToolUse": [g("Bash", h("hook-async", **{"async": True}), h("hook-sync", **{"async": False}))]})
        ),
        "payload": payload("PreToolUse"),
        "outputs": {"PreToolUse:0:0": out()},
    }
)
add(
    {
        "name": "config-argv-invalid",
        "description": "Empty argv, a non-string argv item and a non-list argv are rejected.",
        "spec": ["2/invalid_config"],
        "event": "PreToolUse",
        "files": user(
            doc(
                {
                    "PreToolUse": [
                        g(
                            "Bash",
                            h("hook-empty", argv=[]),
                            h("hook-nonstr", argv=["hook-nonstr", 5]),
                            h("hook-notlist", argv="hook-notlist"),
                            h("hook-ok", argv=["hook-ok", "--flag"]),
                        )
                    ]
                }
            )
        ),
        "payload": payload("PreToolUse"),
        "outputs": {"PreToolUse:0:0": out(stdout="argv ran\n")},
    }
)
add(
    {
        "name": "config-command-not-string",
        "description": "A numeric `command` and a missing `command` are rejected.",
        "spec": ["2/invalid_config"],
        "event": "PreToolUse",
        "files": user(
            doc({"PreToolUse": [g("Bash", h("x") | {"command": 5}, {"type": "command", "timeout": 5}, h("hook-ok"))]})
        ),
        "payload": payload("PreToolUse"),
        "outputs": {"PreToolUse:0:0": out()},
    }
)
add(
    {
        "name": "config-argv-without-command",
        "description": "The reference requires `command` even with `argv`; ours accepts "
        "argv alone (SPEC 15.3).",
        "spec": ["2/invalid_config", "15/3"],
        "event": "PreToolUse",
        "files": user(doc({"PreToolUse": [g("Bash", {"type": "command", "argv": ["hook-argv", "x"]})]})),
        "payload": payload("PreToolUse"),
        "outputs": {},
        "deviations": [
            {"spec15": 3, "path": "/load_diagnostics", "ours": [],
             "reason": "argv alone is a valid handler in ours"},
            {"spec15": 3, "path": "/handlers/PreToolUse", "compare": "subset",
             "ours": [{"id": "PreToolUse:0:0", "argv": ["hook-argv", "x"], "matcher": "Bash"}],
             "reason": "the argv handler loads"},
            {"spec15": 3, "path": "/matched", "ours": ["PreToolUse:0:0"],
             "reason": "and matches Bash"},
            {"spec15": 3, "path": "/handler_results", "compare": "subset",
             "ours": [{"handler_id": "PreToolUse:0:0", "output": None, "plain_output": None, "diagnostics": []}],
             "reason": "it runs and prints nothing"},
            {"spec15": 3, "path": "/load_notices", "ours": [], "reason": "nothing to report at load"},
            {"spec15": 3, "path": "/status_updates", "ours": ["Running PreToolUse hook\u2026", ""], "reason": "one handler runs"},
        ],
    }
)
add(
    {
        "name": "config-blank-command",
        "description": "The reference loads a blank command and fails it at run time with "
        "invalid_command; ours rejects it at load (SPEC 15.3).",
        "spec": ["2/invalid_config", "6/invalid_command", "15/3"],
        "event": "PreToolUse",
        "files": user(doc({"PreToolUse": [g("Bash", h("   "), h("hook-ok"))]})),
        "payload": payload("PreToolUse"),
        "outputs": {"PreToolUse:0:1": out()},
        "deviations": [
            {"spec15": 3, "path": "/load_diagnostics", "compare": "subset",
             "ours": [{"code": "invalid_config", "source": "/golden/user/hooks.json",
                       "field": "hooks.PreToolUse[0].hooks[0].command"}],
             "reason": "blank command rejected at load"},
            {"spec15": 3, "path": "/matched", "ours": ["PreToolUse:0:0"],
             "reason": "hook-ok takes index 0 once the blank handler is dropped"},
            {"spec15": 3, "path": "/handlers/PreToolUse", "compare": "subset",
             "ours": [{"id": "PreToolUse:0:0", "command": "hook-ok"}],
             "reason": "only hook-ok is compiled"},
            {"spec15": 3, "path": "/handler_results", "compare": "subset",
             "ours": [{"handler_id": "PreToolUse:0:0", "diagnostics": []}],
             "reason": "no run-time invalid_command"},
            {"spec15": 3, "path": "/decision/diagnostics", "ours": [],
             "reason": "no run-time invalid_command"},
            {"spec15": 3, "path": "/notices", "ours": [], "reason": "no run-time warning"},
            {"spec15": 3, "path": "/load_notices", "compare": "subset",
             "ours": [{"severity": "error"}], "reason": "the rejection is shown at load, as an error (the entry was dropped)"},
            {"spec15": 3, "path": "/status_updates", "ours": ["Running PreToolUse hook\u2026", ""], "reason": "one handler runs"},
        ],
    }
)
add(
    {
        "name": "config-matcher-not-string",
        "description": "A numeric matcher skips the group with invalid_config.",
        "spec": ["2/invalid_config"],
        "event": "PreToolUse",
        "files": user(doc({"PreToolUse": [{"matcher": 5, "hooks": [h("hook-num")]}, VALID_PRE]})),
        "payload": payload("PreToolUse"),
        "outputs": {"PreToolUse:0:0": out()},
    }
)
add(
    {
        "name": "config-matcher-bad-regex",
        "description": "A bad regex rejects the group with invalid_matcher; the group keeps "
        "its index, so the next group is :1.",
        "spec": ["2/invalid_matcher", "1/handler-id", "12/regex"],
        "event": "PreToolUse",
        "files": user(doc({"PreToolUse": [g("Bash(", h("hook-bad")), VALID_PRE]})),
        "payload": payload("PreToolUse"),
        "outputs": {"PreToolUse:1:0": out()},
    }
)
add(
    {
        "name": "config-matcher-on-stop",
        "description": "Stop accepts only missing, empty or `*` matchers; others are "
        "unsupported_matcher and keep their index.",
        "spec": ["2/unsupported_matcher", "1/handler-id"],
        "event": "Stop",
        "files": user(
            doc(
                {
                    "Stop": [
                        g("main", h("hook-named")),
                        g("*", h("hook-star")),
                        g("", h("hook-empty")),
                        g(None, h("hook-none")),
                    ]
                }
            )
        ),
        "payload": payload("Stop"),
        "outputs": {},
    }
)
add(
    {
        "name": "config-matcher-on-user-prompt-submit",
        "description": "UserPromptSubmit rejects a matcher with unsupported_matcher.",
        "spec": ["2/unsupported_matcher"],
        "event": "UserPromptSubmit",
        "files": user(doc({"UserPromptSubmit": [g("please.*", h("hook-re")), g(None, h("hook-all"))]})),
        "payload": payload("UserPromptSubmit"),
        "outputs": {"UserPromptSubmit:1:0": out()},
    }
)
add(
    {
        "name": "config-empty-structures",
        "description": "`{\"hooks\":{}}`, an empty event list and a group with no handlers "
        "are valid and silent.",
        "spec": ["2/empty"],
        "event": "PreToolUse",
        "files": [
            {"layer": "project", "text": '{"hooks": {}}\n'},
            {"layer": "user", "text": doc({"Stop": [], "PreToolUse": [g("Bash")]})},
        ],
        "payload": payload("PreToolUse"),
        "outputs": {},
    }
)
add(
    {
        "name": "config-unknown-fields",
        "description": "The reference ignores unknown keys silently (a `matchr` typo makes "
        "a match-all group); ours warns with unknown_field and still loads (SPEC 15.2).",
        "spec": ["2/unknown_field", "15/2"],
        "event": "PreToolUse",
        "files": user(
            json.dumps({"version": 2, "hooks": {"PreToolUse": [{"matchr": "Write", "hooks": [h("hook-typo", timout=3)]}]}}, indent=2) + "\n"
        ),
        "payload": payload("PreToolUse"),
        "outputs": {"PreToolUse:0:0": out()},
        "deviations": [
            {"spec15": 2, "path": "/load_diagnostics", "compare": "subset",
             "ours": [
                 {"code": "unknown_field", "severity": "warning", "source": "/golden/user/hooks.json",
                  "field": "version"},
                 {"code": "unknown_field", "severity": "warning", "source": "/golden/user/hooks.json",
                  "field": "hooks.PreToolUse[0].matchr"},
                 {"code": "unknown_field", "severity": "warning", "source": "/golden/user/hooks.json",
                  "field": "hooks.PreToolUse[0].hooks[0].timout"},
             ],
             "reason": "each unknown key is reported (order: document order); the entry loads"},
            {"spec15": 2, "path": "/load_notices", "compare": "subset",
             "ours": [{"severity": "warning"}, {"severity": "warning"}, {"severity": "warning"}],
             "reason": "each unknown_field warning is shown at load"},
        ],
    }
)
add(
    {
        "name": "config-layers-order-and-ids",
        "description": "Project groups come before user groups; indexes run over the merged "
        "list; a dropped group takes no index, an invalid_matcher group keeps one.",
        "spec": ["1/order", "1/handler-id", "2/invalid_config", "2/invalid_matcher"],
        "event": "PreToolUse",
        "files": [
            {"layer": "project", "text": doc({"PreToolUse": [g("Bash", h("hook-p0")), "junk", g("[", h("hook-p-bad"))]})},
            {"layer": "user", "text": doc({"PreToolUse": [g("Bash|Read", h("hook-u0"), h("hook-u1", statusMessage="  user check  "))]})},
        ],
        "payload": payload("PreToolUse"),
        "outputs": {
            "PreToolUse:0:0": out(stdout=js({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "from project"}})),
            "PreToolUse:2:0": out(stdout=js({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "from user 0"}})),
            "PreToolUse:2:1": out(stdout=js({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "from user 1"}})),
        },
    }
)
add(
    {
        "name": "config-duplicate-across-layers",
        "description": "An identical handler in the project and user files runs twice in the "
        "reference; ours runs it once (SPEC 15.1).",
        "spec": ["1/dedup", "15/1"],
        "event": "PreToolUse",
        "files": [
            {"layer": "project", "text": doc({"PreToolUse": [g("Bash", h("hook-same", timeout=5))]})},
            {"layer": "user", "text": doc({"PreToolUse": [g("Bash", h("hook-same", timeout=5))]})},
        ],
        "payload": payload("PreToolUse"),
        "outputs": {
            "PreToolUse:0:0": out(stdout=js({"systemMessage": "checked"})),
            "PreToolUse:1:0": out(stdout=js({"systemMessage": "checked"})),
        },
        "deviations": [
            {"spec15": 1, "path": "/matched", "ours": ["PreToolUse:0:0"],
             "reason": "the user copy is a duplicate of PreToolUse:0:0 and does not run"},
            {"spec15": 1, "path": "/decision/user_notices", "ours": ["checked"],
             "reason": "only one run, so one notice"},
            {"spec15": 1, "path": "/notices", "ours": [{"severity": "information", "message": "checked"}],
             "reason": "only one run, so one notice"},
            {"spec15": 1, "path": "/handler_results", "compare": "subset",
             "ours": [{"handler_id": "PreToolUse:0:0"}], "reason": "only one run"},
            {"spec15": 1, "path": "/status_updates", "ours": ["Running PreToolUse hook\u2026", ""], "reason": "one handler runs"},
        ],
    }
)
add(
    {
        "name": "config-timeout-and-status-fields",
        "description": "Fractional timeout and statusMessage are carried to the handler "
        "list; effective timeout defaults to 600 s for PreToolUse.",
        "spec": ["2/fields", "4/default-timeout", "6/status"],
        "event": "PreToolUse",
        "files": user(
            doc({"PreToolUse": [g("*", h("hook-a", timeout=0.25, statusMessage="  scanning  "), h("hook-b", statusMessage="second"))]})
        ),
        "payload": payload("PreToolUse"),
        "outputs": {},
    }
)
add(
    {
        "name": "config-user-prompt-default-timeout",
        "description": "UserPromptSubmit handlers default to a 30 s timeout.",
        "spec": ["4/default-timeout"],
        "event": "UserPromptSubmit",
        "files": user(doc({"UserPromptSubmit": [g(None, h("hook-a"))]})),
        "payload": payload("UserPromptSubmit"),
        "outputs": {},
    }
)

# ------------------------------------------------------------- SPEC 3: legacy

LEGACY = json.dumps(
    {
        "hooks": [
            {"command": ["legacy-start", "--flag"], "events": ["session.start", "tool.use"]},
            {"command": ["legacy-done"], "events": ["task.complete", "input.required"]},
            {"command": ["legacy-all"]},
            {"command": ["legacy-compact"], "events": ["context.compact", "permission.request"]},
        ]
    },
    indent=2,
) + "\n"

add(
    {
        "name": "legacy-migrated-user-prompt",
        "description": "A legacy user file is migrated: session.start maps to "
        "UserPromptSubmit; its output and exit status are ignored.",
        "spec": ["3/legacy"],
        "event": "UserPromptSubmit",
        "files": user(LEGACY),
        "payload": payload("UserPromptSubmit"),
        "outputs": {
            "UserPromptSubmit:0:0": out(exit=2, stdout="ignored\n", stderr="blocked?\n"),
            "UserPromptSubmit:1:0": out(stdout=js({"continue": False, "stopReason": "no"})),
            "UserPromptSubmit:2:0": out(stdout=js({"continue": False, "stopReason": "no"})),
        },
    }
)
add(
    {
        "name": "legacy-notification-matchers",
        "description": "task.complete maps to Notification agent_completed, input.required to "
        "agent_needs_input; a legacy handler with no events maps to all.",
        "spec": ["3/legacy", "12/exact"],
        "event": "Notification",
        "files": [{"layer": "project", "text": LEGACY}],
        "payload": payload("Notification", notification_type="agent_needs_input"),
        "outputs": {},
    }
)
add(
    {
        "name": "legacy-session-end-and-compact",
        "description": "session.end (via the all-events entry) runs with thread_id in stdin.",
        "spec": ["3/legacy"],
        "event": "SessionEnd",
        "files": user(LEGACY),
        "payload": payload("SessionEnd", reason="prompt_input_exit"),
        "outputs": {},
    }
)
add(
    {
        "name": "legacy-pre-compact-manual",
        "description": "context.compact maps to PreCompact with matcher `manual`.",
        "spec": ["3/legacy"],
        "event": "PreCompact",
        "files": user(LEGACY),
        "payload": payload("PreCompact", trigger="manual"),
        "outputs": {},
    }
)
add(
    {
        "name": "legacy-unmapped-only",
        "description": "A legacy file with only unmapped events yields legacy_deprecated and "
        "legacy_unmapped; ours adds one legacy_unmapped_event per dropped event (SPEC 15.10).",
        "spec": ["3/legacy", "15/10"],
        "event": "PreToolUse",
        "files": user(json.dumps({"hooks": [{"command": ["legacy-x"], "events": ["tool.use", "user.name.set"]}]}) + "\n"),
        "payload": payload("PreToolUse"),
        "outputs": {},
        "deviations": [
            {"spec15": 10, "path": "/load_diagnostics", "compare": "subset",
             "ours": [
                 {"code": "legacy_deprecated", "severity": "warning"},
                 {"code": "legacy_unmapped"},
                 {"code": "legacy_unmapped_event", "severity": "warning", "field": "hooks[0].events[0]"},
                 {"code": "legacy_unmapped_event", "severity": "warning", "field": "hooks[0].events[1]"},
             ],
             "reason": "one legacy_unmapped_event per dropped legacy event (tool.use, "
             "user.name.set), after the reference's file-level pair, in file order"},
            {"spec15": 10, "path": "/load_notices", "compare": "subset",
             "ours": [{"severity": "warning"}] * 4, "reason": "one notice per load diagnostic"},
        ],
    }
)

# ----------------------------------------------------------- SPEC 12: matchers

add(
    {
        "name": "matcher-match-all-forms",
        "description": "Missing, empty and `*` matchers match every tool.",
        "spec": ["12/match-all"],
        "event": "PreToolUse",
        "files": user(doc({"PreToolUse": [g(None, h("hook-none")), g("", h("hook-empty")), g("*", h("hook-star"))]})),
        "payload": payload("PreToolUse", tool_name="WebFetch", tool_input={"url": "https://example.com"}),
        "outputs": {},
    }
)
add(
    {
        "name": "matcher-exact-sets",
        "description": "`Edit|Write` and `Edit, Write` are exact sets matching Write; "
        "`Writ` and `write` do not.",
        "spec": ["12/exact"],
        "event": "PreToolUse",
        "files": user(
            doc({"PreToolUse": [g("Edit|Write", h("hook-pipe")), g("Edit, Write", h("hook-comma")), g("Writ", h("hook-prefix")), g("write", h("hook-lower")), g(" | Write |", h("hook-spaces"))]})
        ),
        "payload": payload("PreToolUse", tool_name="Write", tool_input={"file_path": "/tmp/x", "content": "y"}),
        "outputs": {},
    }
)
add(
    {
        "name": "matcher-bash-not-bashoutput",
        "description": "`Bash` does not match BashOutput; `Bash.*` (regex) does.",
        "spec": ["12/exact", "12/regex"],
        "event": "PreToolUse",
        "files": user(doc({"PreToolUse": [g("Bash", h("hook-exact")), g("Bash.*", h("hook-regex"))]})),
        "payload": payload("PreToolUse", tool_name="BashOutput", tool_input={"bash_id": "1"}),
        "outputs": {},
    }
)
add(
    {
        "name": "matcher-regex-mcp",
        "description": "`mcp__.*` (regex), `mcp__github__search` (exact) and `git.ub` "
        "(unanchored regex) match mcp__github__search; `mcp__github` (exact set) and "
        "`^github` (anchored regex) do not.",
        "spec": ["12/regex", "12/exact"],
        "event": "PreToolUse",
        "files": user(
            doc({"PreToolUse": [g("mcp__.*", h("hook-mcp")), g("mcp__github__search", h("hook-exact")), g("mcp__github", h("hook-server")), g("git.ub", h("hook-unanchored")), g("^github", h("hook-anchored"))]})
        ),
        "payload": payload("PreToolUse", tool_name="mcp__github__search", tool_input={"q": "hooks"}),
        "outputs": {},
    }
)
add(
    {
        "name": "matcher-anchored-notebook",
        "description": "`^Notebook` matches NotebookEdit; `Edit$` matches too; `^Edit` does not.",
        "spec": ["12/regex"],
        "event": "PostToolUse",
        "files": user(doc({"PostToolUse": [g("^Notebook", h("hook-start")), g("Edit$", h("hook-end")), g("^Edit", h("hook-no"))]})),
        "payload": payload("PostToolUse", tool_name="NotebookEdit", tool_input={"notebook_path": "/tmp/a.ipynb"}, tool_response={"ok": True}),
        "outputs": {},
    }
)
add(
    {
        "name": "matcher-session-start-source",
        "description": "SessionStart matches on `source`.",
        "spec": ["12/exact", "4/SessionStart"],
        "event": "SessionStart",
        "files": user(doc({"SessionStart": [g("startup|resume", h("hook-a")), g("clear", h("hook-b")), g("compact", h("hook-c"))]})),
        "payload": payload("SessionStart", source="resume"),
        "outputs": {},
    }
)
add(
    {
        "name": "matcher-other-targets",
        "description": "Notification matches on notification_type: the regex `^perm` "
        "matches permission_prompt, the exact `agent_completed` does not.",
        "spec": ["12/regex", "4/Notification"],
        "event": "Notification",
        "files": user(doc({"Notification": [g("^perm", h("hook-a")), g("agent_completed", h("hook-b"))]})),
        "payload": payload("Notification", notification_type="permission_prompt", message="Claude needs permission"),
        "outputs": {},
    }
)

# ----------------------------------------------------- SPEC 4: events (exit 2)

EXIT2 = out(exit=2, stdout=js({"systemMessage": "stdout is ignored on exit 2"}), stderr="  policy says no  \n")

for event in EVENTS:
    add(
        simple(
            f"event-{event}-exit2",
            f"{event}: exit 2 with stderr; stdout is ignored; the event's block effect applies.",
            [f"4/{event}", "7/exit-2"],
            event,
            [EXIT2],
            continuation_count=0 if event in ("Stop", "SubagentStop") else None,
        )
    )
for event in EVENTS:
    add(
        simple(
            f"event-{event}-plain-stdout",
            f"{event}: exit 0 with plain (non-JSON) stdout.",
            [f"4/{event}", "7/plain"],
            event,
            [out(stdout="plain line one\nplain line two\n")],
        )
    )

HSO_FIELDS = {
    "SessionStart": {"additionalContext": "session context"},
    "UserPromptSubmit": {"additionalContext": "prompt context", "suppressOriginalPrompt": True},
    "SessionEnd": {"additionalContext": "not honoured"},
    "PermissionRequest": {"decision": {"behavior": "deny", "message": "not on main", "interrupt": True}},
    "Notification": {"additionalContext": "not honoured"},
    "PreToolUse": {"permissionDecision": "ask", "permissionDecisionReason": "confirm ls", "additionalContext": "tool context"},
    "PostToolUse": {"additionalContext": "post context"},
    "PostToolUseFailure": {"additionalContext": "failure context"},
    "PreCompact": {"additionalContext": "not honoured"},
    "Stop": {"additionalContext": "keep going: tests fail"},
    "SubagentStart": {"additionalContext": "subagent context"},
    "SubagentStop": {"additionalContext": "subagent summary"},
}
for event in EVENTS:
    add(
        simple(
            f"event-{event}-hook-specific-output",
            f"{event}: hookSpecificOutput fields {sorted(HSO_FIELDS[event])}.",
            [f"4/{event}", "7/hookSpecificOutput"],
            event,
            [out(stdout=js({"hookSpecificOutput": {"hookEventName": event, **HSO_FIELDS[event]}}))],
            continuation_count=0 if event in ("Stop", "SubagentStop") else None,
        )
    )
for event in EVENTS:
    add(
        simple(
            f"event-{event}-decision-block",
            f"{event}: JSON `decision: block` with a reason.",
            [f"4/{event}", "8/block"],
            event,
            [out(stdout=js({"decision": "block", "reason": f"{event} blocked by policy"}))],
            continuation_count=0 if event in ("Stop", "SubagentStop") else None,
        )
    )

# ------------------------------------------------------- SPEC 7: one handler

add(simple("output-exit2-blank-stderr", "exit 2 with blank stderr: default block reason.",
           ["7/exit-2"], "PreToolUse", [out(exit=2, stderr="  \n")]))
add(simple("output-nonzero-exit", "exit 1: nonzero_exit, stdout (even a deny) ignored, non-blocking.",
           ["7/nonzero"], "PreToolUse",
           [out(exit=1, stdout=js({"decision": "block", "reason": "x"}), stderr="crashed\n")]))
add(simple("output-exit-127", "exit 127 (what the shell reports for a missing program).",
           ["7/nonzero", "6/launch"], "PostToolUse", [out(exit=127, stderr="sh: 1: nope: not found\n")]))
add(simple("output-exit-137", "exit 137 (a shell reporting a child killed by SIGKILL).",
           ["7/nonzero"], "PreToolUse", [out(exit=137)]))
add(
    {
        "name": "output-signal-killed",
        "description": "An argv handler that dies from SIGKILL is a non-zero exit, never a block.",
        "spec": ["7/nonzero", "6/argv"],
        "event": "PreToolUse",
        "files": user(doc({"PreToolUse": [g("Bash", h("hook-sig", argv=["hook-sig"]))]})),
        "payload": payload("PreToolUse"),
        "outputs": {"PreToolUse:0:0": {"signal": 9, "stdout": js({"decision": "block"})}},
    }
)
add(simple("output-blank-stdout", "exit 0 with whitespace-only stdout does nothing.",
           ["7/blank"], "PostToolUse", [out(stdout=" \n\t\n")]))
add(simple("output-json-bom-whitespace", "A UTF-8 BOM and surrounding whitespace around JSON are allowed.",
           ["7/json"], "PreToolUse",
           [out(stdout="\ufeff \n" + js({"systemMessage": "bom ok", "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}) + "\n\n")]))
add(simple("output-json-trailing-text", "JSON followed by text is plain text (malformed_json on PreToolUse, context on SessionStart).",
           ["7/json", "7/plain"], "SessionStart",
           [out(stdout='{"systemMessage": "hi"} trailing\n')]))
add(simple("output-two-documents", "Two JSON documents are plain text.",
           ["7/json", "7/plain"], "PreToolUse",
           [out(stdout='{"continue": false}\n{"systemMessage": "second"}\n')]))
add(simple("output-json-not-object", "A JSON array / string / number is invalid_output.",
           ["7/invalid_output"], "PostToolUse",
           [out(stdout="[1, 2]\n"), out(stdout='"just a string"\n'), out(stdout="42\n")]))
add(
    simple(
        "output-invalid-schema-discards-all",
        "A wrongly typed `suppressOutput` makes the reference discard the whole output "
        "(continue:false, stopReason and systemMessage included); ours keeps the valid "
        "universal fields (SPEC 15.5).",
        ["7/invalid_output", "15/5"],
        "PreToolUse",
        [out(stdout=js({"suppressOutput": "maybe", "continue": False, "stopReason": "halt", "systemMessage": "kept in ours"}))],
        deviations=[
            {"spec15": 5, "path": "/decision/continue_processing", "ours": False,
             "reason": "continue:false is valid and kept"},
            {"spec15": 5, "path": "/decision/stop_reason", "ours": "halt",
             "reason": "stopReason is valid and kept"},
            {"spec15": 5, "path": "/decision/user_notices", "ours": ["kept in ours"],
             "reason": "systemMessage is valid and kept (suppressOutput was dropped, so false)"},
            {"spec15": 5, "path": "/decision/diagnostics", "compare": "subset",
             "ours": [{"code": "invalid_output", "handler_id": "PreToolUse:0:0"}],
             "reason": "same code; ours names the bad field (suppressOutput) in the message"},
            {"spec15": 5, "path": "/effect",
             "ours": {"outcome": "deny", "reason": "halt", "tool_result": "Bash blocked by hook: halt",
                      "appended_context": None},
             "reason": "continue:false stops the tool call"},
            {"spec15": 5, "path": "/notices", "compare": "subset",
             "ours": [{"severity": "warning"}, {"severity": "information", "message": "kept in ours"}],
             "reason": "the invalid_output warning, then the kept systemMessage"},
        ],
    )
)
add(
    simple(
        "output-continue-string-coerced",
        "`\"continue\": \"false\"` is read as false, as the reference's lax booleans do: "
        "config typing is stricter in ours (SPEC 15.2), output typing is the reference's, so "
        "a handler asking to stop is never ignored for quoting its boolean.",
        ["7/invalid_output", "8/continue"],
        "UserPromptSubmit",
        [out(stdout=js({"continue": "false", "systemMessage": "typed loosely"}))],
    )
)
add(
    simple(
        "output-invalid-decision-value",
        "`decision: \"approve\"` is invalid_output; the reference drops the whole output "
        "(its systemMessage too); ours keeps systemMessage (SPEC 15.5).",
        ["7/invalid_output", "15/5"],
        "PostToolUse",
        [out(stdout=js({"decision": "approve", "reason": "fine", "systemMessage": "kept in ours"}))],
        deviations=[
            {"spec15": 5, "path": "/decision/user_notices", "ours": ["kept in ours"],
             "reason": "systemMessage is a valid universal field"},
            {"spec15": 5, "path": "/decision/diagnostics", "compare": "subset",
             "ours": [{"code": "invalid_output", "handler_id": "PostToolUse:0:0"}],
             "reason": "same code; ours names the bad field"},
            {"spec15": 5, "path": "/notices", "compare": "subset",
             "ours": [{"severity": "warning"}, {"severity": "information", "message": "kept in ours"}],
             "reason": "the invalid_output warning, then the kept systemMessage"},
        ],
    )
)
add(simple("output-hso-on-event-without-one", "hookSpecificOutput for SessionEnd (which has none).",
           ["7/invalid_output", "4/SessionEnd"], "SessionEnd",
           [out(stdout=js({"hookSpecificOutput": {"hookEventName": "SessionEnd"}}))]))
add(simple("output-unsupported-fields-sorted", "Unknown top-level keys, null ones included, give one unsupported_field each, sorted.",
           ["7/unsupported_field"], "PreToolUse",
           [out(stdout=js({"zeta": 1, "alpha": None, "Mid": "x", "systemMessage": "ok"}))]))
add(simple("output-mismatched-event-name", "hookEventName of another event: mismatched_output, the specific part is skipped.",
           ["7/mismatched_output"], "PreToolUse",
           [out(stdout=js({"systemMessage": "universal kept", "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "skipped"}}))]))
add(simple("output-missing-event-name", "hookSpecificOutput without hookEventName.",
           ["7/invalid_output"], "PreToolUse",
           [out(stdout=js({"hookSpecificOutput": {"permissionDecision": "deny"}}))]))
add(
    {
        "name": "output-timeout",
        "description": "A handler sleeping past its 0.5 s timeout is killed: timeout "
        "diagnostic, never a block; the fast handler's context still counts.",
        "spec": ["6/timeout", "7/timeout"],
        "event": "UserPromptSubmit",
        "files": user(doc({"UserPromptSubmit": [g(None, h("hook-slow", timeout=0.5), h("hook-fast", timeout=10))]})),
        "payload": payload("UserPromptSubmit"),
        "outputs": {
            "UserPromptSubmit:0:0": {"timeout": 0.5, "stdout": js({"decision": "block", "reason": "too late"})},
            "UserPromptSubmit:0:1": out(stdout="fast context\n"),
        },
    }
)

# -------------------------------------------------------- SPEC 8: reduction

add(simple("reduce-continue-and-stop-reasons",
           "continue is ANDed; the first stopReason with continue:false wins; later ones "
           "warn additional_stop_reason; a stopReason with continue:true warns ignored_stop_reason.",
           ["8/continue", "8/stop-reason"], "PostToolUse",
           [out(stdout=js({"stopReason": "ignored because continuing"})),
            out(stdout=js({"continue": False, "stopReason": "first reason"})),
            out(stdout=js({"continue": False, "stopReason": "second reason"})),
            out(stdout=js({"continue": True}))]))
add(simple("reduce-continue-false-no-reason", "continue:false without stopReason on UserPromptSubmit.",
           ["8/continue", "4/UserPromptSubmit"], "UserPromptSubmit",
           [out(stdout=js({"continue": False}))]))
add(simple("reduce-continue-false-with-allow",
           "continue:false does not erase permission allow; the host checks continue first.",
           ["8/continue", "8/permission"], "PreToolUse",
           [out(stdout=js({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "safe"}})),
            out(stdout=js({"continue": False, "stopReason": "halt the agent"}))]))
add(simple("reduce-system-messages-suppress-output",
           "systemMessages become notices in order; suppressOutput on one output hides its own.",
           ["8/systemMessage", "7/suppressOutput"], "SessionStart",
           [out(stdout=js({"systemMessage": "first notice"})),
            out(stdout=js({"systemMessage": "hidden notice", "suppressOutput": True})),
            out(stdout=js({"systemMessage": "third notice", "suppressOutput": False}))]))
add(simple("reduce-terminal-sequences",
           "Valid OSC sequences (BEL and ST terminated, several in one string, bare BEL) are "
           "accepted; OSC 5, a control character in the text and plain text are rejected.",
           ["8/terminalSequence"], "Notification",
           [out(stdout=js({"terminalSequence": "\u001b]0;build done\u0007"})),
            out(stdout=js({"terminalSequence": "\u001b]9;notify\u001b\\\u001b]777;notify;a;b\u0007"})),
            out(stdout=js({"terminalSequence": "\u0007"})),
            out(stdout=js({"terminalSequence": "\u001b]5;nope\u0007"})),
            out(stdout=js({"terminalSequence": "\u001b]2;bad\u0001text\u0007"})),
            out(stdout=js({"terminalSequence": "hello"}))]))
add(simple("reduce-permission-deny-wins-first-reason",
           "allow < ask < deny; the first handler reaching deny gives the reason.",
           ["8/permission"], "PreToolUse",
           [out(stdout=js({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "allow reason"}})),
            out(stdout=js({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "ask reason"}})),
            out(stdout=js({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "first deny"}})),
            out(exit=2, stderr="second deny\n"),
            out(stdout=js({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}))]))
add(simple("reduce-permission-ask-over-allow",
           "ask beats allow; the first ask's reason is kept.",
           ["8/permission"], "PreToolUse",
           [out(stdout=js({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "allowed"}})),
            out(stdout=js({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}})),
            out(stdout=js({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "later ask"}}))]))
add(simple("reduce-permission-allow-only", "A lone allow skips the normal approval.",
           ["8/permission"], "PreToolUse",
           [out(stdout=js({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "trusted command"}}))]))
add(simple("reduce-permission-defer", "permissionDecision defer is ignored (normal flow, never allow).",
           ["8/permission", "9/defer"], "PreToolUse",
           [out(stdout=js({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer", "permissionDecisionReason": "later"}}))]))
add(simple("reduce-permission-request-allow",
           "PermissionRequest allow, then a deny with interrupt: deny wins.",
           ["8/permission", "4/PermissionRequest"], "PermissionRequest",
           [out(stdout=js({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}})),
            out(stdout=js({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "no rm", "interrupt": False}}}))]))
add(simple("reduce-permission-request-allow-only", "A lone PermissionRequest allow resolves the prompt.",
           ["8/permission", "4/PermissionRequest"], "PermissionRequest",
           [out(stdout=js({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}))]))
add(simple("reduce-stop-continue", "Stop block below the cap continues the turn with the feedback joined.",
           ["8/stop"], "Stop",
           [out(stdout=js({"decision": "block", "reason": "tests still failing"})),
            out(exit=2, stderr="lint errors\n")],
           continuation_count=3,
           pay=payload("Stop", stop_hook_active=True)))
add(simple("reduce-stop-cap", "At 8 consecutive continuations each blocking result is ignored with continuation_cap.",
           ["8/stop", "8/continuation_cap"], "Stop",
           [out(stdout=js({"decision": "block", "reason": "again"})),
            out(stdout=js({"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "more"}})),
            out(stdout=js({"systemMessage": "not blocking"}))],
           continuation_count=8))
add(simple("reduce-stop-below-cap", "At 7 continuations a block still continues.",
           ["8/stop"], "Stop",
           [out(stdout=js({"decision": "block", "reason": "one more"}))],
           continuation_count=7))
add(simple("reduce-subagent-stop-guard", "SubagentStop with stop_hook_active: the block is ignored with continuation_guard.",
           ["8/subagent-stop"], "SubagentStop",
           [out(stdout=js({"decision": "block", "reason": "recursing"})),
            out(stdout=js({"hookSpecificOutput": {"hookEventName": "SubagentStop", "additionalContext": "ctx kept"}}))],
           continuation_count=1,
           pay=payload("SubagentStop", stop_hook_active=True)))
add(simple("reduce-context-ordering",
           "additionalContext and plain stdout are kept in configuration order, not finish order.",
           ["8/context"], "UserPromptSubmit",
           [{"exit": 0, "stdout": "plain first\n", "stderr": ""},
            out(stdout=js({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "json second"}})),
            out(stdout="plain third\n")]))
add(simple("reduce-user-prompt-first-block-wins", "Two blocks on UserPromptSubmit: the first reason is the stop reason.",
           ["8/block", "4/UserPromptSubmit"], "UserPromptSubmit",
           [out(stdout=js({"decision": "block", "reason": "first block"})),
            out(exit=2, stderr="second block\n")]))
add(simple("reduce-pre-compact-block-and-continue", "PreCompact: block then continue:false with its own reason.",
           ["8/block", "8/continue", "4/PreCompact"], "PreCompact",
           [out(stdout=js({"decision": "block", "reason": "not now"})),
            out(stdout=js({"continue": False, "stopReason": "stop compaction"}))]))
add(simple("reduce-post-tool-feedback-and-context", "PostToolUse: block feedback and additionalContext both appended.",
           ["8/block", "8/context", "4/PostToolUse"], "PostToolUse",
           [out(stdout=js({"decision": "block", "reason": "output has secrets"})),
            out(stdout=js({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "ran in 12ms"}}))]))
add(simple("reduce-block-default-reason", "decision block without reason on PreToolUse.",
           ["8/block"], "PreToolUse", [out(stdout=js({"decision": "block"}))]))
add(
    simple(
        "reduce-long-system-message",
        "A 12,000-character systemMessage: the reference keeps it whole; ours caps decision "
        "strings at 10,000 characters with output_truncated (SPEC 15.6).",
        ["8/caps", "15/6"],
        "PostToolUse",
        [out(stdout=js({"systemMessage": "x" * 12000}))],
        deviations=[
            {"spec15": 6, "path": "/decision/diagnostics", "compare": "subset",
             "ours": [{"code": "output_truncated", "handler_id": "PostToolUse:0:0"}],
             "reason": "the notice is cut to 10,000 characters plus a visible marker"},
        ],
    )
)

# ------------------------------------------- SPEC 9: unsupported host fields

add(simple("unsupported-pre-tool-updated-input-allow",
           "PreToolUse updatedInput with allow: the input is ignored and the allow dropped.",
           ["9/updatedInput"], "PreToolUse",
           [out(stdout=js({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "ls"}}}))]))
add(simple("unsupported-pre-tool-updated-input-deny",
           "PreToolUse updatedInput with deny: the deny stays.",
           ["9/updatedInput"], "PreToolUse",
           [out(stdout=js({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "nope", "updatedInput": {"command": "ls"}}}))]))
add(simple("unsupported-post-tool-updated-output",
           "PostToolUse updatedToolOutput and updatedMCPToolOutput are ignored.",
           ["9/updatedToolOutput"], "PostToolUse",
           [out(stdout=js({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": "redacted", "additionalContext": "ctx"}})),
            out(stdout=js({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": {"x": 1}}}))]))
add(simple("unsupported-permission-request-updated-input",
           "PermissionRequest allow with updatedInput: ignored, and no allow.",
           ["9/updatedInput"], "PermissionRequest",
           [out(stdout=js({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedInput": {"command": "ls"}}}}))]))
add(simple("unsupported-permission-request-updated-permissions",
           "PermissionRequest allow with updatedPermissions: ignored, the allow applies.",
           ["9/updatedPermissions"], "PermissionRequest",
           [out(stdout=js({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedPermissions": [{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "rm -rf build"}], "behavior": "allow", "destination": "session"}]}}}))]))
add(simple("output-invalid-updated-permissions",
           "A malformed updatedPermissions entry fails the output schema: invalid_output, nothing applied.",
           ["7/invalid_output", "9/updatedPermissions"], "PermissionRequest",
           [out(stdout=js({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedPermissions": [{"type": "setMode", "mode": "acceptEdits"}]}}}))]))
add(simple("unsupported-session-start-fields",
           "SessionStart initialUserMessage, sessionTitle, watchPaths, reloadSkills are ignored.",
           ["9/session-start"], "SessionStart",
           [out(stdout=js({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "ctx", "initialUserMessage": "hi", "sessionTitle": "T", "watchPaths": ["/tmp"], "reloadSkills": True}}))]))
add(simple("unsupported-user-prompt-session-title",
           "UserPromptSubmit sessionTitle is ignored.",
           ["9/session-title"], "UserPromptSubmit",
           [out(stdout=js({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "sessionTitle": "Refactor"}}))]))

# --------------------------------------------------------- SPEC 5: payloads

add(
    {
        "name": "payload-nulls-and-nesting",
        "description": "Top-level null/absent values are omitted, nested nulls and empty "
        "values kept; permission_mode and prompt_id appear in the common block.",
        "spec": ["5/stdin"],
        "event": "PostToolUse",
        "files": user(doc({"PostToolUse": [g(None, h("hook-a"))]})),
        "payload": payload(
            "PostToolUse",
            tool_name="mcp__db__query",
            tool_input={"sql": "select 1", "params": None, "tags": []},
            tool_response={"rows": [], "note": None, "text": ""},
            duration_ms=None,
            permission_mode="auto",
            prompt_id="12345678-1234-5678-1234-567812345678",
        ),
        "outputs": {},
    }
)
add(
    {
        "name": "payload-unicode",
        "description": "Non-ASCII prompt text in the stdin bytes.",
        "spec": ["5/stdin"],
        "event": "UserPromptSubmit",
        "files": user(doc({"UserPromptSubmit": [g(None, h("hook-a"))]})),
        "payload": payload("UserPromptSubmit", prompt="résumé ✓ \"quoted\"\nnext line"),
        "outputs": {},
    }
)
add(simple("reduce-permission-request-continue-false",
           "PermissionRequest continue:false: the host rejects and interrupts with the stop reason.",
           ["8/continue", "4/PermissionRequest"], "PermissionRequest",
           [out(stdout=js({"continue": False, "stopReason": "session frozen"}))]))
add(simple("reduce-subagent-start-continue-false",
           "SubagentStart continue:false: the host refuses to start the subagent.",
           ["8/continue", "4/SubagentStart"], "SubagentStart",
           [out(stdout=js({"continue": False, "stopReason": "no subagents today"}))]))
add(simple("reduce-notification-continue-false",
           "Notification continue:false without a reason.",
           ["8/continue", "4/Notification"], "Notification",
           [out(stdout=js({"continue": False}))]))


# ---------------------------------------------------------- deviations settled by replay
# Found by replaying every fixture through hooks-core (tests/golden.rs): where ours differs
# on purpose. Kept apart from the cases above so each stays readable.
MORE_DEVIATIONS: dict[str, list[dict]] = {'config-hooks-missing': [{'spec15': 2,
                           'path': '/load_diagnostics',
                           'ours': [{'code': 'unknown_field',
                                     'severity': 'warning',
                                     'source': '/golden/user/hooks.json',
                                     'field': 'PreToolUse'},
                                    {'code': 'invalid_config',
                                     'severity': 'error',
                                     'source': '/golden/user/hooks.json',
                                     'field': 'hooks'}],
                           'reason': 'ours also reports the misplaced top-level key as '
                                     'unknown_field; the missing hooks object drops the file '
                                     '(an error)',
                           'compare': 'subset'},
                          {'spec15': 2,
                           'path': '/load_notices',
                           'ours': [{'severity': 'warning'}, {'severity': 'error'}],
                           'reason': 'one notice per load diagnostic',
                           'compare': 'subset'}],
 'config-handler-bad-type': [{'spec15': 13,
                               'path': '/load_diagnostics',
                               'ours': [{'code': 'invalid_config',
                                         'severity': 'error',
                                         'source': '/golden/user/hooks.json',
                                         'field': 'hooks.PreToolUse[0].hooks[1].type'}],
                               'reason': 'SPEC 15.13: the default profile takes the Claude Code superset '
                                         '(CLAUDE-CODE.md 1.2): the prompt handler loads (a host answers it); only '
                                         'the untyped handler is invalid, reported at its own path (SPEC 15.4)',
                               'compare': 'subset'},
                              {'spec15': 13,
                               'path': '/load_notices',
                               'ours': [{'severity': 'error'}],
                               'reason': 'one notice per load diagnostic',
                               'compare': 'subset'},
                              {'spec15': 13,
                               'path': '/handlers/PreToolUse',
                               'ours': [{'id': 'PreToolUse:0:0',
                                         'command': None,
                                         'matcher': 'Bash',
                                         'timeout': None,
                                         'statusMessage': None,
                                         'source': '/golden/user/hooks.json'},
                                        {'id': 'PreToolUse:0:1',
                                         'command': 'hook-ok',
                                         'matcher': 'Bash',
                                         'timeout': None,
                                         'statusMessage': None,
                                         'source': '/golden/user/hooks.json'}],
                               'reason': 'SPEC 15.13: the default profile takes the Claude Code superset '
                                         '(CLAUDE-CODE.md 1.2): the prompt handler is PreToolUse:0:0, so hook-ok is '
                                         'PreToolUse:0:1'},
                              {'spec15': 13,
                               'path': '/matched',
                               'ours': ['PreToolUse:0:0', 'PreToolUse:0:1'],
                               'reason': 'SPEC 15.13: the default profile takes the Claude Code superset '
                                         '(CLAUDE-CODE.md 1.2): both handlers match'},
                              {'spec15': 13,
                               'path': '/handler_results',
                               'ours': [{'handler_id': 'PreToolUse:0:0',
                                         'effective_timeout': 30.0,
                                         'output': None,
                                         'plain_output': None,
                                         'diagnostics': []},
                                        {'handler_id': 'PreToolUse:0:1',
                                         'effective_timeout': 600.0,
                                         'output': None,
                                         'plain_output': None,
                                         'diagnostics': []}],
                               'reason': 'SPEC 15.13: the default profile takes the Claude Code superset '
                                         '(CLAUDE-CODE.md 1.2): the prompt handler (default timeout 30 s) is answered '
                                         'by no host; hook-ok runs'},
                              {'spec15': 13,
                               'path': '/decision/diagnostics',
                               'ours': [{'code': 'handler_needs_host',
                                         'severity': 'info',
                                         'message': 'Handler PreToolUse:0:0 needs a host that answers prompt '
                                                    'handlers; skipped',
                                         'field': None,
                                         'handler_id': 'PreToolUse:0:0'}],
                               'reason': 'SPEC 15.13: the default profile takes the Claude Code superset '
                                         '(CLAUDE-CODE.md 1.2): no host answers prompt handlers here '
                                         '(handler_needs_host)'},
                              {'spec15': 13,
                               'path': '/status_updates',
                               'ours': ['Running PreToolUse hook…',
                                        'Running PreToolUse hook…',
                                        'Running PreToolUse hook…',
                                        ''],
                               'reason': 'SPEC 15.13: the default profile takes the Claude Code superset '
                                         '(CLAUDE-CODE.md 1.2): two handlers start and end'}],
 'config-async-true': [{'spec15': 13,
                         'path': '/load_diagnostics',
                         'ours': [],
                         'reason': 'SPEC 15.13: the default profile takes the Claude Code superset '
                                   '(CLAUDE-CODE.md 1.2): async true is accepted'},
                        {'spec15': 13,
                         'path': '/load_notices',
                         'ours': [],
                         'reason': 'SPEC 15.13: the default profile takes the Claude Code superset '
                                   '(CLAUDE-CODE.md 1.2): nothing to report at load'},
                        {'spec15': 13,
                         'path': '/handlers/PreToolUse',
                         'ours': [{'id': 'PreToolUse:0:0',
                                   'command': 'hook-async',
                                   'matcher': 'Bash',
                                   'timeout': None,
                                   'statusMessage': None,
                                   'source': '/golden/user/hooks.json'},
                                  {'id': 'PreToolUse:0:1',
                                   'command': 'hook-sync',
                                   'matcher': 'Bash',
                                   'timeout': None,
                                   'statusMessage': None,
                                   'source': '/golden/user/hooks.json'}],
                         'reason': 'SPEC 15.13: the default profile takes the Claude Code superset '
                                   '(CLAUDE-CODE.md 1.2): the async handler loads first, so hook-sync is '
                                   'PreToolUse:0:1'},
                        {'spec15': 13,
                         'path': '/matched',
                         'ours': ['PreToolUse:0:0', 'PreToolUse:0:1'],
                         'reason': 'SPEC 15.13: the default profile takes the Claude Code superset '
                                   '(CLAUDE-CODE.md 1.2): both handlers match'},
                        {'spec15': 13,
                         'path': '/handler_results/0/handler_id',
                         'ours': 'PreToolUse:0:1',
                         'reason': 'SPEC 15.13: the default profile takes the Claude Code superset '
                                   '(CLAUDE-CODE.md 1.2): hook-sync is PreToolUse:0:1; the background handler '
                                   'takes no part in the decision (CLAUDE-CODE.md 9.1)'}],
 'config-timeout-bool-coerced': [{'spec15': 2,
                                  'path': '/stdin_text',
                                  'ours': None,
                                  'reason': 'no handler runs, so no handler reads stdin'}],
 'config-argv-without-command': [{'spec15': 3,
                                  'path': '/sources_loaded',
                                  'ours': ['/golden/user/hooks.json'],
                                  'reason': 'the argv handler loads, so the file contributes a '
                                            'group'}],
 'legacy-migrated-user-prompt': [{'spec15': 10,
                                  'path': '/load_diagnostics',
                                  'ours': [{'code': 'legacy_deprecated',
                                            'severity': 'warning',
                                            'source': '/golden/user/hooks.json',
                                            'field': 'hooks'},
                                           {'code': 'legacy_migrated',
                                            'severity': 'warning',
                                            'source': '/golden/user/hooks.json',
                                            'field': 'hooks'},
                                           {'code': 'legacy_unmapped_event',
                                            'severity': 'warning',
                                            'source': '/golden/user/hooks.json',
                                            'field': 'hooks[0].events[1]'},
                                           {'code': 'legacy_unmapped_event',
                                            'severity': 'warning',
                                            'source': '/golden/user/hooks.json',
                                            'field': 'hooks[3].events[1]'}],
                                  'reason': "the reference's pair, then one "
                                            'legacy_unmapped_event per dropped legacy event '
                                            '(tool.use, permission.request) at its place in '
                                            'the file',
                                  'compare': 'subset'},
                                 {'spec15': 10,
                                  'path': '/load_notices',
                                  'ours': [{'severity': 'warning'},
                                           {'severity': 'warning'},
                                           {'severity': 'warning'},
                                           {'severity': 'warning'}],
                                  'reason': 'one notice per load diagnostic',
                                  'compare': 'subset'},
                                 {'spec15': 10,
                                  'path': '/handlers/Notification',
                                  'ours': [{'id': 'Notification:0:0',
                                            'command': None,
                                            'argv': ['legacy-done'],
                                            'timeout': 5.0,
                                            'matcher': 'agent_completed',
                                            'legacy': {'argv': ['legacy-done'],
                                                       'event': 'task.complete'}},
                                           {'id': 'Notification:1:0',
                                            'command': None,
                                            'argv': ['legacy-done'],
                                            'timeout': 5.0,
                                            'matcher': 'agent_needs_input',
                                            'legacy': {'argv': ['legacy-done'],
                                                       'event': 'input.required'}},
                                           {'id': 'Notification:2:0',
                                            'command': None,
                                            'argv': ['legacy-all'],
                                            'timeout': 5.0,
                                            'matcher': 'agent_completed',
                                            'legacy': {'argv': ['legacy-all'],
                                                       'event': 'task.complete'}},
                                           {'id': 'Notification:3:0',
                                            'command': None,
                                            'argv': ['legacy-all'],
                                            'timeout': 5.0,
                                            'matcher': 'agent_needs_input',
                                            'legacy': {'argv': ['legacy-all'],
                                                       'event': 'input.required'}}],
                                  'reason': 'SPEC 3: ours runs the legacy argv directly as a '
                                            'side-effect-only handler with a 5 s timeout (the '
                                            'reference runs it through a Python shim with 6 s)',
                                  'compare': 'subset'},
                                 {'spec15': 10,
                                  'path': '/handlers/PreCompact',
                                  'ours': [{'id': 'PreCompact:0:0',
                                            'command': None,
                                            'argv': ['legacy-all'],
                                            'timeout': 5.0,
                                            'matcher': 'manual',
                                            'legacy': {'argv': ['legacy-all'],
                                                       'event': 'context.offload'}},
                                           {'id': 'PreCompact:1:0',
                                            'command': None,
                                            'argv': ['legacy-all'],
                                            'timeout': 5.0,
                                            'matcher': 'manual',
                                            'legacy': {'argv': ['legacy-all'],
                                                       'event': 'context.compact'}},
                                           {'id': 'PreCompact:2:0',
                                            'command': None,
                                            'argv': ['legacy-compact'],
                                            'timeout': 5.0,
                                            'matcher': 'manual',
                                            'legacy': {'argv': ['legacy-compact'],
                                                       'event': 'context.compact'}}],
                                  'reason': 'SPEC 3: ours runs the legacy argv directly as a '
                                            'side-effect-only handler with a 5 s timeout (the '
                                            'reference runs it through a Python shim with 6 s)',
                                  'compare': 'subset'},
                                 {'spec15': 10,
                                  'path': '/handlers/SessionEnd',
                                  'ours': [{'id': 'SessionEnd:0:0',
                                            'command': None,
                                            'argv': ['legacy-all'],
                                            'timeout': 5.0,
                                            'matcher': None,
                                            'legacy': {'argv': ['legacy-all'],
                                                       'event': 'session.end'}}],
                                  'reason': 'SPEC 3: ours runs the legacy argv directly as a '
                                            'side-effect-only handler with a 5 s timeout (the '
                                            'reference runs it through a Python shim with 6 s)',
                                  'compare': 'subset'},
                                 {'spec15': 10,
                                  'path': '/handlers/UserPromptSubmit',
                                  'ours': [{'id': 'UserPromptSubmit:0:0',
                                            'command': None,
                                            'argv': ['legacy-start', '--flag'],
                                            'timeout': 5.0,
                                            'matcher': None,
                                            'legacy': {'argv': ['legacy-start', '--flag'],
                                                       'event': 'session.start'}},
                                           {'id': 'UserPromptSubmit:1:0',
                                            'command': None,
                                            'argv': ['legacy-all'],
                                            'timeout': 5.0,
                                            'matcher': None,
                                            'legacy': {'argv': ['legacy-all'],
                                                       'event': 'session.start'}},
                                           {'id': 'UserPromptSubmit:2:0',
                                            'command': None,
                                            'argv': ['legacy-all'],
                                            'timeout': 5.0,
                                            'matcher': None,
                                            'legacy': {'argv': ['legacy-all'],
                                                       'event': 'user.prompt'}}],
                                  'reason': 'SPEC 3: ours runs the legacy argv directly as a '
                                            'side-effect-only handler with a 5 s timeout (the '
                                            'reference runs it through a Python shim with 6 s)',
                                  'compare': 'subset'},
                                 {'spec15': 10,
                                  'path': '/handler_results',
                                  'ours': [{'handler_id': 'UserPromptSubmit:0:0',
                                            'effective_timeout': 5.0,
                                            'output': None,
                                            'diagnostics': []},
                                           {'handler_id': 'UserPromptSubmit:1:0',
                                            'effective_timeout': 5.0,
                                            'output': None,
                                            'diagnostics': []},
                                           {'handler_id': 'UserPromptSubmit:2:0',
                                            'effective_timeout': 5.0,
                                            'output': None,
                                            'diagnostics': []}],
                                  'reason': 'SPEC 3: legacy handlers time out after 5 s; their '
                                            'output is ignored',
                                  'compare': 'subset'}],
 'legacy-notification-matchers': [{'spec15': 10,
                                   'path': '/load_diagnostics',
                                   'ours': [{'code': 'legacy_deprecated',
                                             'severity': 'warning',
                                             'source': '/golden/project/.deepagents/hooks.json',
                                             'field': 'hooks'},
                                            {'code': 'legacy_migrated',
                                             'severity': 'warning',
                                             'source': '/golden/project/.deepagents/hooks.json',
                                             'field': 'hooks'},
                                            {'code': 'legacy_unmapped_event',
                                             'severity': 'warning',
                                             'source': '/golden/project/.deepagents/hooks.json',
                                             'field': 'hooks[0].events[1]'},
                                            {'code': 'legacy_unmapped_event',
                                             'severity': 'warning',
                                             'source': '/golden/project/.deepagents/hooks.json',
                                             'field': 'hooks[3].events[1]'}],
                                   'reason': "the reference's pair, then one "
                                             'legacy_unmapped_event per dropped legacy event '
                                             '(tool.use, permission.request) at its place in '
                                             'the file',
                                   'compare': 'subset'},
                                  {'spec15': 10,
                                   'path': '/load_notices',
                                   'ours': [{'severity': 'warning'},
                                            {'severity': 'warning'},
                                            {'severity': 'warning'},
                                            {'severity': 'warning'}],
                                   'reason': 'one notice per load diagnostic',
                                   'compare': 'subset'},
                                  {'spec15': 10,
                                   'path': '/handlers/Notification',
                                   'ours': [{'id': 'Notification:0:0',
                                             'command': None,
                                             'argv': ['legacy-done'],
                                             'timeout': 5.0,
                                             'matcher': 'agent_completed',
                                             'legacy': {'argv': ['legacy-done'],
                                                        'event': 'task.complete'}},
                                            {'id': 'Notification:1:0',
                                             'command': None,
                                             'argv': ['legacy-done'],
                                             'timeout': 5.0,
                                             'matcher': 'agent_needs_input',
                                             'legacy': {'argv': ['legacy-done'],
                                                        'event': 'input.required'}},
                                            {'id': 'Notification:2:0',
                                             'command': None,
                                             'argv': ['legacy-all'],
                                             'timeout': 5.0,
                                             'matcher': 'agent_completed',
                                             'legacy': {'argv': ['legacy-all'],
                                                        'event': 'task.complete'}},
                                            {'id': 'Notification:3:0',
                                             'command': None,
                                             'argv': ['legacy-all'],
                                             'timeout': 5.0,
                                             'matcher': 'agent_needs_input',
                                             'legacy': {'argv': ['legacy-all'],
                                                        'event': 'input.required'}}],
                                   'reason': 'SPEC 3: ours runs the legacy argv directly as a '
                                             'side-effect-only handler with a 5 s timeout (the '
                                             'reference runs it through a Python shim with 6 '
                                             's)',
                                   'compare': 'subset'},
                                  {'spec15': 10,
                                   'path': '/handlers/PreCompact',
                                   'ours': [{'id': 'PreCompact:0:0',
                                             'command': None,
                                             'argv': ['legacy-all'],
                                             'timeout': 5.0,
                                             'matcher': 'manual',
                                             'legacy': {'argv': ['legacy-all'],
                                                        'event': 'context.offload'}},
                                            {'id': 'PreCompact:1:0',
                                             'command': None,
                                             'argv': ['legacy-all'],
                                             'timeout': 5.0,
                                             'matcher': 'manual',
                                             'legacy': {'argv': ['legacy-all'],
                                                        'event': 'context.compact'}},
                                            {'id': 'PreCompact:2:0',
                                             'command': None,
                                             'argv': ['legacy-compact'],
                                             'timeout': 5.0,
                                             'matcher': 'manual',
                                             'legacy': {'argv': ['legacy-compact'],
                                                        'event': 'context.compact'}}],
                                   'reason': 'SPEC 3: ours runs the legacy argv directly as a '
                                             'side-effect-only handler with a 5 s timeout (the '
                                             'reference runs it through a Python shim with 6 '
                                             's)',
                                   'compare': 'subset'},
                                  {'spec15': 10,
                                   'path': '/handlers/SessionEnd',
                                   'ours': [{'id': 'SessionEnd:0:0',
                                             'command': None,
                                             'argv': ['legacy-all'],
                                             'timeout': 5.0,
                                             'matcher': None,
                                             'legacy': {'argv': ['legacy-all'],
                                                        'event': 'session.end'}}],
                                   'reason': 'SPEC 3: ours runs the legacy argv directly as a '
                                             'side-effect-only handler with a 5 s timeout (the '
                                             'reference runs it through a Python shim with 6 '
                                             's)',
                                   'compare': 'subset'},
                                  {'spec15': 10,
                                   'path': '/handlers/UserPromptSubmit',
                                   'ours': [{'id': 'UserPromptSubmit:0:0',
                                             'command': None,
                                             'argv': ['legacy-start', '--flag'],
                                             'timeout': 5.0,
                                             'matcher': None,
                                             'legacy': {'argv': ['legacy-start', '--flag'],
                                                        'event': 'session.start'}},
                                            {'id': 'UserPromptSubmit:1:0',
                                             'command': None,
                                             'argv': ['legacy-all'],
                                             'timeout': 5.0,
                                             'matcher': None,
                                             'legacy': {'argv': ['legacy-all'],
                                                        'event': 'session.start'}},
                                            {'id': 'UserPromptSubmit:2:0',
                                             'command': None,
                                             'argv': ['legacy-all'],
                                             'timeout': 5.0,
                                             'matcher': None,
                                             'legacy': {'argv': ['legacy-all'],
                                                        'event': 'user.prompt'}}],
                                   'reason': 'SPEC 3: ours runs the legacy argv directly as a '
                                             'side-effect-only handler with a 5 s timeout (the '
                                             'reference runs it through a Python shim with 6 '
                                             's)',
                                   'compare': 'subset'},
                                  {'spec15': 10,
                                   'path': '/handler_results',
                                   'ours': [{'handler_id': 'Notification:1:0',
                                             'effective_timeout': 5.0,
                                             'output': None,
                                             'diagnostics': []},
                                            {'handler_id': 'Notification:3:0',
                                             'effective_timeout': 5.0,
                                             'output': None,
                                             'diagnostics': []}],
                                   'reason': 'SPEC 3: legacy handlers time out after 5 s; '
                                             'their output is ignored',
                                   'compare': 'subset'}],
 'legacy-session-end-and-compact': [{'spec15': 10,
                                     'path': '/load_diagnostics',
                                     'ours': [{'code': 'legacy_deprecated',
                                               'severity': 'warning',
                                               'source': '/golden/user/hooks.json',
                                               'field': 'hooks'},
                                              {'code': 'legacy_migrated',
                                               'severity': 'warning',
                                               'source': '/golden/user/hooks.json',
                                               'field': 'hooks'},
                                              {'code': 'legacy_unmapped_event',
                                               'severity': 'warning',
                                               'source': '/golden/user/hooks.json',
                                               'field': 'hooks[0].events[1]'},
                                              {'code': 'legacy_unmapped_event',
                                               'severity': 'warning',
                                               'source': '/golden/user/hooks.json',
                                               'field': 'hooks[3].events[1]'}],
                                     'reason': "the reference's pair, then one "
                                               'legacy_unmapped_event per dropped legacy event '
                                               '(tool.use, permission.request) at its place in '
                                               'the file',
                                     'compare': 'subset'},
                                    {'spec15': 10,
                                     'path': '/load_notices',
                                     'ours': [{'severity': 'warning'},
                                              {'severity': 'warning'},
                                              {'severity': 'warning'},
                                              {'severity': 'warning'}],
                                     'reason': 'one notice per load diagnostic',
                                     'compare': 'subset'},
                                    {'spec15': 10,
                                     'path': '/handlers/Notification',
                                     'ours': [{'id': 'Notification:0:0',
                                               'command': None,
                                               'argv': ['legacy-done'],
                                               'timeout': 5.0,
                                               'matcher': 'agent_completed',
                                               'legacy': {'argv': ['legacy-done'],
                                                          'event': 'task.complete'}},
                                              {'id': 'Notification:1:0',
                                               'command': None,
                                               'argv': ['legacy-done'],
                                               'timeout': 5.0,
                                               'matcher': 'agent_needs_input',
                                               'legacy': {'argv': ['legacy-done'],
                                                          'event': 'input.required'}},
                                              {'id': 'Notification:2:0',
                                               'command': None,
                                               'argv': ['legacy-all'],
                                               'timeout': 5.0,
                                               'matcher': 'agent_completed',
                                               'legacy': {'argv': ['legacy-all'],
                                                          'event': 'task.complete'}},
                                              {'id': 'Notification:3:0',
                                               'command': None,
                                               'argv': ['legacy-all'],
                                               'timeout': 5.0,
                                               'matcher': 'agent_needs_input',
                                               'legacy': {'argv': ['legacy-all'],
                                                          'event': 'input.required'}}],
                                     'reason': 'SPEC 3: ours runs the legacy argv directly as '
                                               'a side-effect-only handler with a 5 s timeout '
                                               '(the reference runs it through a Python shim '
                                               'with 6 s)',
                                     'compare': 'subset'},
                                    {'spec15': 10,
                                     'path': '/handlers/PreCompact',
                                     'ours': [{'id': 'PreCompact:0:0',
                                               'command': None,
                                               'argv': ['legacy-all'],
                                               'timeout': 5.0,
                                               'matcher': 'manual',
                                               'legacy': {'argv': ['legacy-all'],
                                                          'event': 'context.offload'}},
                                              {'id': 'PreCompact:1:0',
                                               'command': None,
                                               'argv': ['legacy-all'],
                                               'timeout': 5.0,
                                               'matcher': 'manual',
                                               'legacy': {'argv': ['legacy-all'],
                                                          'event': 'context.compact'}},
                                              {'id': 'PreCompact:2:0',
                                               'command': None,
                                               'argv': ['legacy-compact'],
                                               'timeout': 5.0,
                                               'matcher': 'manual',
                                               'legacy': {'argv': ['legacy-compact'],
                                                          'event': 'context.compact'}}],
                                     'reason': 'SPEC 3: ours runs the legacy argv directly as '
                                               'a side-effect-only handler with a 5 s timeout '
                                               '(the reference runs it through a Python shim '
                                               'with 6 s)',
                                     'compare': 'subset'},
                                    {'spec15': 10,
                                     'path': '/handlers/SessionEnd',
                                     'ours': [{'id': 'SessionEnd:0:0',
                                               'command': None,
                                               'argv': ['legacy-all'],
                                               'timeout': 5.0,
                                               'matcher': None,
                                               'legacy': {'argv': ['legacy-all'],
                                                          'event': 'session.end'}}],
                                     'reason': 'SPEC 3: ours runs the legacy argv directly as '
                                               'a side-effect-only handler with a 5 s timeout '
                                               '(the reference runs it through a Python shim '
                                               'with 6 s)',
                                     'compare': 'subset'},
                                    {'spec15': 10,
                                     'path': '/handlers/UserPromptSubmit',
                                     'ours': [{'id': 'UserPromptSubmit:0:0',
                                               'command': None,
                                               'argv': ['legacy-start', '--flag'],
                                               'timeout': 5.0,
                                               'matcher': None,
                                               'legacy': {'argv': ['legacy-start', '--flag'],
                                                          'event': 'session.start'}},
                                              {'id': 'UserPromptSubmit:1:0',
                                               'command': None,
                                               'argv': ['legacy-all'],
                                               'timeout': 5.0,
                                               'matcher': None,
                                               'legacy': {'argv': ['legacy-all'],
                                                          'event': 'session.start'}},
                                              {'id': 'UserPromptSubmit:2:0',
                                               'command': None,
                                               'argv': ['legacy-all'],
                                               'timeout': 5.0,
                                               'matcher': None,
                                               'legacy': {'argv': ['legacy-all'],
                                                          'event': 'user.prompt'}}],
                                     'reason': 'SPEC 3: ours runs the legacy argv directly as '
                                               'a side-effect-only handler with a 5 s timeout '
                                               '(the reference runs it through a Python shim '
                                               'with 6 s)',
                                     'compare': 'subset'},
                                    {'spec15': 10,
                                     'path': '/handler_results',
                                     'ours': [{'handler_id': 'SessionEnd:0:0',
                                               'effective_timeout': 5.0,
                                               'output': None,
                                               'diagnostics': []}],
                                     'reason': 'SPEC 3: legacy handlers time out after 5 s; '
                                               'their output is ignored',
                                     'compare': 'subset'}],
 'legacy-pre-compact-manual': [{'spec15': 10,
                                'path': '/load_diagnostics',
                                'ours': [{'code': 'legacy_deprecated',
                                          'severity': 'warning',
                                          'source': '/golden/user/hooks.json',
                                          'field': 'hooks'},
                                         {'code': 'legacy_migrated',
                                          'severity': 'warning',
                                          'source': '/golden/user/hooks.json',
                                          'field': 'hooks'},
                                         {'code': 'legacy_unmapped_event',
                                          'severity': 'warning',
                                          'source': '/golden/user/hooks.json',
                                          'field': 'hooks[0].events[1]'},
                                         {'code': 'legacy_unmapped_event',
                                          'severity': 'warning',
                                          'source': '/golden/user/hooks.json',
                                          'field': 'hooks[3].events[1]'}],
                                'reason': "the reference's pair, then one "
                                          'legacy_unmapped_event per dropped legacy event '
                                          '(tool.use, permission.request) at its place in the '
                                          'file',
                                'compare': 'subset'},
                               {'spec15': 10,
                                'path': '/load_notices',
                                'ours': [{'severity': 'warning'},
                                         {'severity': 'warning'},
                                         {'severity': 'warning'},
                                         {'severity': 'warning'}],
                                'reason': 'one notice per load diagnostic',
                                'compare': 'subset'},
                               {'spec15': 10,
                                'path': '/handlers/Notification',
                                'ours': [{'id': 'Notification:0:0',
                                          'command': None,
                                          'argv': ['legacy-done'],
                                          'timeout': 5.0,
                                          'matcher': 'agent_completed',
                                          'legacy': {'argv': ['legacy-done'],
                                                     'event': 'task.complete'}},
                                         {'id': 'Notification:1:0',
                                          'command': None,
                                          'argv': ['legacy-done'],
                                          'timeout': 5.0,
                                          'matcher': 'agent_needs_input',
                                          'legacy': {'argv': ['legacy-done'],
                                                     'event': 'input.required'}},
                                         {'id': 'Notification:2:0',
                                          'command': None,
                                          'argv': ['legacy-all'],
                                          'timeout': 5.0,
                                          'matcher': 'agent_completed',
                                          'legacy': {'argv': ['legacy-all'],
                                                     'event': 'task.complete'}},
                                         {'id': 'Notification:3:0',
                                          'command': None,
                                          'argv': ['legacy-all'],
                                          'timeout': 5.0,
                                          'matcher': 'agent_needs_input',
                                          'legacy': {'argv': ['legacy-all'],
                                                     'event': 'input.required'}}],
                                'reason': 'SPEC 3: ours runs the legacy argv directly as a '
                                          'side-effect-only handler with a 5 s timeout (the '
                                          'reference runs it through a Python shim with 6 s)',
                                'compare': 'subset'},
                               {'spec15': 10,
                                'path': '/handlers/PreCompact',
                                'ours': [{'id': 'PreCompact:0:0',
                                          'command': None,
                                          'argv': ['legacy-all'],
                                          'timeout': 5.0,
                                          'matcher': 'manual',
                                          'legacy': {'argv': ['legacy-all'],
                                                     'event': 'context.offload'}},
                                         {'id': 'PreCompact:1:0',
                                          'command': None,
                                          'argv': ['legacy-all'],
                                          'timeout': 5.0,
                                          'matcher': 'manual',
                                          'legacy': {'argv': ['legacy-all'],
                                                     'event': 'context.compact'}},
                                         {'id': 'PreCompact:2:0',
                                          'command': None,
                                          'argv': ['legacy-compact'],
                                          'timeout': 5.0,
                                          'matcher': 'manual',
                                          'legacy': {'argv': ['legacy-compact'],
                                                     'event': 'context.compact'}}],
                                'reason': 'SPEC 3: ours runs the legacy argv directly as a '
                                          'side-effect-only handler with a 5 s timeout (the '
                                          'reference runs it through a Python shim with 6 s)',
                                'compare': 'subset'},
                               {'spec15': 10,
                                'path': '/handlers/SessionEnd',
                                'ours': [{'id': 'SessionEnd:0:0',
                                          'command': None,
                                          'argv': ['legacy-all'],
                                          'timeout': 5.0,
                                          'matcher': None,
                                          'legacy': {'argv': ['legacy-all'],
                                                     'event': 'session.end'}}],
                                'reason': 'SPEC 3: ours runs the legacy argv directly as a '
                                          'side-effect-only handler with a 5 s timeout (the '
                                          'reference runs it through a Python shim with 6 s)',
                                'compare': 'subset'},
                               {'spec15': 10,
                                'path': '/handlers/UserPromptSubmit',
                                'ours': [{'id': 'UserPromptSubmit:0:0',
                                          'command': None,
                                          'argv': ['legacy-start', '--flag'],
                                          'timeout': 5.0,
                                          'matcher': None,
                                          'legacy': {'argv': ['legacy-start', '--flag'],
                                                     'event': 'session.start'}},
                                         {'id': 'UserPromptSubmit:1:0',
                                          'command': None,
                                          'argv': ['legacy-all'],
                                          'timeout': 5.0,
                                          'matcher': None,
                                          'legacy': {'argv': ['legacy-all'],
                                                     'event': 'session.start'}},
                                         {'id': 'UserPromptSubmit:2:0',
                                          'command': None,
                                          'argv': ['legacy-all'],
                                          'timeout': 5.0,
                                          'matcher': None,
                                          'legacy': {'argv': ['legacy-all'],
                                                     'event': 'user.prompt'}}],
                                'reason': 'SPEC 3: ours runs the legacy argv directly as a '
                                          'side-effect-only handler with a 5 s timeout (the '
                                          'reference runs it through a Python shim with 6 s)',
                                'compare': 'subset'},
                               {'spec15': 10,
                                'path': '/handler_results',
                                'ours': [{'handler_id': 'PreCompact:0:0',
                                          'effective_timeout': 5.0,
                                          'output': None,
                                          'diagnostics': []},
                                         {'handler_id': 'PreCompact:1:0',
                                          'effective_timeout': 5.0,
                                          'output': None,
                                          'diagnostics': []},
                                         {'handler_id': 'PreCompact:2:0',
                                          'effective_timeout': 5.0,
                                          'output': None,
                                          'diagnostics': []}],
                                'reason': 'SPEC 3: legacy handlers time out after 5 s; their '
                                          'output is ignored',
                                'compare': 'subset'}],
 'event-SessionEnd-hook-specific-output': [{'spec15': 5,
                                            'path': '/handler_results',
                                            'ours': [{'handler_id': 'SessionEnd:0:0',
                                                      'output': {'continue': True,
                                                                 'suppressOutput': False}}],
                                            'reason': 'the invalid hookSpecificOutput is '
                                                      'dropped; the valid universal fields are '
                                                      'kept',
                                            'compare': 'subset'},
                                           {'spec15': 5,
                                            'path': '/decision/diagnostics',
                                            'ours': [{'code': 'invalid_output',
                                                      'severity': 'warning',
                                                      'handler_id': 'SessionEnd:0:0',
                                                      'field': 'hookSpecificOutput.hookEventName'}],
                                            'reason': 'same code; ours names the offending '
                                                      'field in the message and in field',
                                            'compare': 'subset'},
                                           {'spec15': 5,
                                            'path': '/notices',
                                            'ours': [{'severity': 'warning'}],
                                            'reason': 'the invalid_output warning',
                                            'compare': 'subset'}],
 'event-Notification-hook-specific-output': [{'spec15': 5,
                                              'path': '/handler_results',
                                              'ours': [{'handler_id': 'Notification:0:0',
                                                        'output': {'continue': True,
                                                                   'suppressOutput': False}}],
                                              'reason': 'the invalid hookSpecificOutput is '
                                                        'dropped; the valid universal fields '
                                                        'are kept',
                                              'compare': 'subset'},
                                             {'spec15': 5,
                                              'path': '/decision/diagnostics',
                                              'ours': [{'code': 'invalid_output',
                                                        'severity': 'warning',
                                                        'handler_id': 'Notification:0:0',
                                                        'field': 'hookSpecificOutput.hookEventName'}],
                                              'reason': 'same code; ours names the offending '
                                                        'field in the message and in field',
                                              'compare': 'subset'},
                                             {'spec15': 5,
                                              'path': '/notices',
                                              'ours': [{'severity': 'warning'}],
                                              'reason': 'the invalid_output warning',
                                              'compare': 'subset'}],
 'event-PreCompact-hook-specific-output': [{'spec15': 5,
                                            'path': '/handler_results',
                                            'ours': [{'handler_id': 'PreCompact:0:0',
                                                      'output': {'continue': True,
                                                                 'suppressOutput': False}}],
                                            'reason': 'the invalid hookSpecificOutput is '
                                                      'dropped; the valid universal fields are '
                                                      'kept',
                                            'compare': 'subset'},
                                           {'spec15': 5,
                                            'path': '/decision/diagnostics',
                                            'ours': [{'code': 'invalid_output',
                                                      'severity': 'warning',
                                                      'handler_id': 'PreCompact:0:0',
                                                      'field': 'hookSpecificOutput.hookEventName'}],
                                            'reason': 'same code; ours names the offending '
                                                      'field in the message and in field',
                                            'compare': 'subset'},
                                           {'spec15': 5,
                                            'path': '/notices',
                                            'ours': [{'severity': 'warning'}],
                                            'reason': 'the invalid_output warning',
                                            'compare': 'subset'}],
 'output-hso-on-event-without-one': [{'spec15': 5,
                                      'path': '/handler_results',
                                      'ours': [{'handler_id': 'SessionEnd:0:0',
                                                'output': {'continue': True,
                                                           'suppressOutput': False}}],
                                      'reason': 'the invalid hookSpecificOutput is dropped; '
                                                'the valid universal fields are kept',
                                      'compare': 'subset'},
                                     {'spec15': 5,
                                      'path': '/decision/diagnostics',
                                      'ours': [{'code': 'invalid_output',
                                                'severity': 'warning',
                                                'handler_id': 'SessionEnd:0:0',
                                                'field': 'hookSpecificOutput.hookEventName'}],
                                      'reason': 'same code; ours names the offending field in '
                                                'the message and in field',
                                      'compare': 'subset'},
                                     {'spec15': 5,
                                      'path': '/notices',
                                      'ours': [{'severity': 'warning'}],
                                      'reason': 'the invalid_output warning',
                                      'compare': 'subset'}],
 'output-missing-event-name': [{'spec15': 5,
                                'path': '/handler_results',
                                'ours': [{'handler_id': 'PreToolUse:0:0',
                                          'output': {'continue': True,
                                                     'suppressOutput': False}}],
                                'reason': 'the invalid hookSpecificOutput is dropped; the '
                                          'valid universal fields are kept',
                                'compare': 'subset'},
                               {'spec15': 5,
                                'path': '/decision/diagnostics',
                                'ours': [{'code': 'invalid_output',
                                          'severity': 'warning',
                                          'handler_id': 'PreToolUse:0:0',
                                          'field': 'hookSpecificOutput.hookEventName'}],
                                'reason': 'same code; ours names the offending field in the '
                                          'message and in field',
                                'compare': 'subset'},
                               {'spec15': 5,
                                'path': '/notices',
                                'ours': [{'severity': 'warning'}],
                                'reason': 'the invalid_output warning',
                                'compare': 'subset'}],
 'output-json-not-object': [{'spec15': 5,
                             'path': '/decision/diagnostics',
                             'ours': [{'code': 'invalid_output',
                                       'severity': 'warning',
                                       'handler_id': 'PostToolUse:0:0',
                                       'field': None},
                                      {'code': 'invalid_output',
                                       'severity': 'warning',
                                       'handler_id': 'PostToolUse:0:1',
                                       'field': None},
                                      {'code': 'invalid_output',
                                       'severity': 'warning',
                                       'handler_id': 'PostToolUse:0:2',
                                       'field': None}],
                             'reason': 'same code; ours says what the value was (a list, a '
                                       'string, a number)',
                             'compare': 'subset'},
                            {'spec15': 5,
                             'path': '/handler_results',
                             'ours': [{'handler_id': 'PostToolUse:0:0', 'output': None},
                                      {'handler_id': 'PostToolUse:0:1', 'output': None},
                                      {'handler_id': 'PostToolUse:0:2', 'output': None}],
                             'reason': 'nothing to keep from a value that is not an object; '
                                       'the message is ours',
                             'compare': 'subset'},
                            {'spec15': 5,
                             'path': '/notices',
                             'ours': [{'severity': 'warning'},
                                      {'severity': 'warning'},
                                      {'severity': 'warning'}],
                             'reason': 'one warning per handler',
                             'compare': 'subset'}],
 'output-invalid-schema-discards-all': [{'spec15': 5,
                                         'path': '/handler_results',
                                         'ours': [{'handler_id': 'PreToolUse:0:0',
                                                   'output': {'continue': False,
                                                              'stopReason': 'halt',
                                                              'systemMessage': 'kept in '
                                                                               'ours'}}],
                                         'reason': 'the valid universal fields are kept, the '
                                                   'invalid suppressOutput dropped',
                                         'compare': 'subset'}],
 'output-invalid-decision-value': [{'spec15': 5,
                                    'path': '/handler_results',
                                    'ours': [{'handler_id': 'PostToolUse:0:0',
                                              'output': {'continue': True,
                                                         'systemMessage': 'kept in ours'}}],
                                    'reason': 'the valid universal fields are kept, the '
                                              'invalid decision dropped',
                                    'compare': 'subset'}],
 'reduce-long-system-message': [{'spec15': 6,
                                 'path': '/decision/user_notices',
                                 'ours': ['xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n'
                                          '…[truncated]'],
                                 'reason': 'the notice is cut to 10,000 characters, ending '
                                           'with the visible marker'},
                                {'spec15': 6,
                                 'path': '/notices',
                                 'ours': [{'severity': 'warning',
                                           'message': 'Hook warning: Hook systemMessage '
                                                      'exceeded 10000 characters and was '
                                                      'truncated'},
                                          {'severity': 'information',
                                           'message': 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n'
                                                      '…[truncated]'}],
                                 'reason': 'the output_truncated warning, then the cut '
                                           'notice'}],
 'output-invalid-updated-permissions': [{'spec15': 5,
                                         'path': '/handler_results',
                                         'ours': [{'handler_id': 'PermissionRequest:0:0',
                                                   'output': {'continue': True,
                                                              'hookSpecificOutput': {'hookEventName': 'PermissionRequest',
                                                                                     'decision': {'behavior': 'allow'}}}}],
                                         'reason': 'only the invalid updatedPermissions list '
                                                   'is dropped; the allow is kept',
                                         'compare': 'subset'},
                                        {'spec15': 5,
                                         'path': '/decision/diagnostics',
                                         'ours': [{'code': 'invalid_output',
                                                   'severity': 'warning',
                                                   'handler_id': 'PermissionRequest:0:0',
                                                   'field': 'hookSpecificOutput.decision.updatedPermissions[0]'}],
                                         'reason': 'same code; ours names the offending entry',
                                         'compare': 'subset'},
                                        {'spec15': 5,
                                         'path': '/decision/permission',
                                         'ours': {'behavior': 'allow',
                                                  'reason': None,
                                                  'interrupt': False},
                                         'reason': 'ours keeps the allow: updatedPermissions '
                                                   'is not applied by this host even when '
                                                   'valid (SPEC 9, allow still applies), so '
                                                   'dropping the malformed list leaves the '
                                                   'same allow'},
                                        {'spec15': 5,
                                         'path': '/effect',
                                         'ours': {'review_decision': {'type': 'approve'},
                                                  'interrupt': False,
                                                  'resolved_by_hook': True},
                                         'reason': 'the hook approves the request'},
                                        {'spec15': 5,
                                         'path': '/notices',
                                         'ours': [{'severity': 'warning'},
                                                  {'severity': 'information',
                                                   'message': 'PermissionRequest hook allowed '
                                                              'Bash.'}],
                                         'reason': 'the invalid_output warning, then the allow '
                                                   'attribution',
                                         'compare': 'subset'}]}

for _case in CASES:
    _case.setdefault("deviations", []).extend(MORE_DEVIATIONS.get(_case["name"], []))
