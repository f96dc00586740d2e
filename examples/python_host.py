#!/usr/bin/env python3
"""A minimal agent host that talks to `hooks serve` (standard library only).

Usage:
    HOOKS_BIN=target/release/hooks python3 examples/python_host.py \
        --project examples/demo --trust-project-hooks

Arguments are passed to `hooks` before `serve`. The host starts the session (printing
the load diagnostics on stderr: an untrusted project's hooks do not run, and the host
says so), fires a PreToolUse for a `rm -rf` command and a Stop, acts on each decision,
and shuts the session down.

The host also answers `prompt` handlers (Claude Code's prompt hooks, profile
`claude-code`): the engine sends a `host_handler` request, the host asks its model and
writes the reply line. Here the "model" is `stand_in_model`, a rule instead of a model
call, so the example runs offline:

    HOOKS_BIN=target/release/hooks python3 examples/python_host.py \
        --profile claude-code --project examples/claude-code --trust-project-hooks
"""

import json
import os
import subprocess
import sys
import threading


class HooksSession:
    """One `hooks serve` process; requests carry ids, answers may come in any order."""

    def __init__(self, args, host_handlers=None):
        """`host_handlers` maps a handler kind (`prompt`, `agent`, `mcp_tool`) to a function
        of the request params that returns the reply (`{"ok": ...}` for prompt and agent)."""
        self.host_handlers = host_handlers or {}
        self.cancelled = set()
        binary = os.environ.get("HOOKS_BIN", "hooks")
        self.proc = subprocess.Popen(
            [binary, *args, "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.next_id = 0
        self.pending = {}
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _write(self, message):
        with self.lock:
            self.proc.stdin.write(json.dumps(message) + "\n")
            self.proc.stdin.flush()

    def _answer(self, call):
        """Answers one `host_handler` request (on a thread of its own: a model call is slow)."""
        params = call["params"]
        try:
            reply = {"id": call["id"], "result": self.host_handlers[params["kind"]](params)}
        except Exception as error:  # the engine reports it as host_handler_failed
            reply = {"id": call["id"], "error": {"message": str(error)}}
        if call["id"] not in self.cancelled:  # the engine stopped waiting: no reply
            self._write(reply)

    def _read(self):
        for line in self.proc.stdout:
            message = json.loads(line)
            if message.get("method") == "host_handler":
                threading.Thread(target=self._answer, args=(message,), daemon=True).start()
                continue
            if "id" not in message:  # a notification
                if message.get("method") == "status" and message["params"]["text"]:
                    print(f"  [status] {message['params']['text']}")
                if message.get("method") == "host_handler_cancelled":
                    self.cancelled.add(message["params"]["id"])
                continue
            with self.lock:
                slot = self.pending.pop(message["id"], None)
            if slot is not None:
                slot["answer"] = message
                slot["done"].set()

    def request(self, method, params=None):
        with self.lock:
            self.next_id += 1
            request_id = self.next_id
            slot = {"done": threading.Event()}
            self.pending[request_id] = slot
        request = {"id": request_id, "method": method}
        if params is not None:
            request["params"] = params
        self._write(request)
        if not slot["done"].wait(timeout=60):
            raise TimeoutError(f"no answer to {method}")
        answer = slot["answer"]
        if "error" in answer:
            raise RuntimeError(answer["error"]["message"])
        return answer["result"]

    def start(self, allow_env=None, capabilities=None):
        """Sets the session options (before the first event) and shows the load diagnostics."""
        params = {}
        if allow_env is not None:
            params["allow_env"] = allow_env
        if capabilities is not None:
            params["capabilities"] = capabilities
        if self.host_handlers:
            params["host_handlers"] = sorted(self.host_handlers)
        result = self.request("session", params)
        show_diagnostics(result["load_diagnostics"])
        return result

    def reload(self):
        """Takes a new snapshot of the configuration and shows its load diagnostics."""
        result = self.request("reload")
        show_diagnostics(result["load_diagnostics"])
        return result

    def fire(self, event, payload):
        return self.request("event", {"event": event, "payload": payload})

    def close(self):
        self.request("shutdown")
        self.proc.stdin.close()
        return self.proc.wait(timeout=30)


def show_diagnostics(diagnostics):
    """Prints load diagnostics on stderr, as `hooks` prints them (hint appended)."""
    for d in diagnostics:
        text = d["message"]
        if d.get("source") and d.get("line"):  # a problem inside a file
            text = f"{d['source']}:{d['line']}:{d.get('column') or 1}: {text}"
        if d.get("hint"):
            text += f" ({d['hint']})"
        print(f"hooks: {d['severity']}: {text}", file=sys.stderr)


def stand_in_model(request):
    """Answers a prompt handler as a fast model would: `{"ok": true}`, or `{"ok": false,
    "reason"}` to refuse. The stand-in refuses to stop before the last message says the
    tests pass."""
    message = request["input"].get("last_assistant_message")
    if message is not None and "tests pass" not in message:
        return {"ok": False, "reason": "Run the tests and say whether they pass."}
    return {"ok": True}


def main():
    session = HooksSession(sys.argv[1:], host_handlers={"prompt": stand_in_model})
    session.start()

    # The model wants to run a shell command: ask the hooks first.
    command = "rm -rf build/"
    result = session.fire(
        "PreToolUse",
        {"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "toolu_1"},
    )
    decision = result["decision"]
    if not decision["continue"] or decision["permission"]["behavior"] == "deny":
        # What the model sees instead of the tool's output.
        print(f"PreToolUse: refused `{command}`: {result['effect']['tool_result']}")
    else:
        print(f"PreToolUse: running `{command}`")

    # The model wants to stop: a Stop hook may keep it working.
    result = session.fire("Stop", {"last_assistant_message": "Done."})
    effect = result["effect"]
    if effect.get("continue_turn"):
        print(f"Stop: continuing with: {effect['injected_user_message']}")
    else:
        print("Stop: the agent stops")

    status = session.close()
    print(f"session closed (exit {status})")
    return 0 if status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
