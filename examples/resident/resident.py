"""Turn a one-shot hook function into a resident handler (hooks' `"resident": true`).

A one-shot hook reads one JSON payload on stdin, prints its output and exits with a code.
A resident handler stays running: hooks sends it one line per event,
`{"id": N, "event": "PreToolUse", "payload": {...}}`, and it answers one line per event,
`{"id": N, "exit_code": 0, "stdout": {...} or "text", "stderr": "text"}`.

    from resident import serve

    def hook(event, payload):
        if "rm -rf" in payload.get("tool_input", {}).get("command", ""):
            return 2, "", "rm -rf is not allowed"
        return 0

    if __name__ == "__main__":
        serve(hook)

The function gets the event name and the payload (a dict) and returns one of:
an exit code; `(exit_code, stdout)`; `(exit_code, stdout, stderr)`; a dict (stdout, exit 0);
or None (exit 0, no output). stdout may be a dict (the JSON output object) or text.
An exception answers exit 1 with the traceback's last line on stderr (a non-blocking
failure). Events are answered one at a time, in order; with `workers=N` up to N run at
once on threads and are answered as they finish.

Without hooks' resident mode (for example under Claude Code, which ignores the field and
runs the command once per event), `serve` sees a payload that is not a framed event and
behaves as a one-shot hook: it answers that one payload the one-shot way and exits.
"""

import json
import sys
import threading
import traceback

__all__ = ["serve"]


def _normalize(result):
    if result is None:
        return 0, "", ""
    if isinstance(result, bool):
        raise TypeError("a hook function returns an exit code, not a bool")
    if isinstance(result, int):
        return result, "", ""
    if isinstance(result, dict):
        return 0, result, ""
    if isinstance(result, tuple):
        code = result[0]
        out = result[1] if len(result) > 1 else ""
        err = result[2] if len(result) > 2 else ""
        return int(code), out if out is not None else "", err or ""
    raise TypeError(f"unexpected hook result {result!r}")


def _call(function, event, payload):
    try:
        return _normalize(function(event, payload))
    except Exception as exc:  # the hook's own failure: a non-blocking error
        text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return 1, "", text


def _one_shot(function, text):
    payload = json.loads(text) if text.strip() else {}
    event = payload.get("hook_event_name", "") if isinstance(payload, dict) else ""
    code, out, err = _call(function, event, payload)
    if out:
        sys.stdout.write(json.dumps(out) if isinstance(out, dict) else str(out))
    if err:
        sys.stderr.write(err)
    sys.stdout.flush()
    sys.exit(code)


def serve(function, workers=1):
    """Answer events with `function(event, payload)` until stdin closes."""
    stdin = sys.stdin
    first = stdin.readline()
    try:
        framed = json.loads(first)
        framed = isinstance(framed, dict) and "id" in framed and "payload" in framed
    except ValueError:
        framed = False
    if not framed:
        _one_shot(function, first + stdin.read())
        return
    lock = threading.Lock()
    slots = threading.BoundedSemaphore(max(1, workers))

    def answer(line):
        try:
            message = json.loads(line)
            code, out, err = _call(function, message.get("event", ""), message.get("payload"))
            reply = {"id": message["id"], "exit_code": code, "stdout": out, "stderr": err}
            text = json.dumps(reply, separators=(",", ":")) + "\n"
            with lock:
                sys.stdout.write(text)
                sys.stdout.flush()
        finally:
            if workers > 1:
                slots.release()

    line = first
    while line:
        if line.strip():
            if workers > 1:
                slots.acquire()
                threading.Thread(target=answer, args=(line,), daemon=True).start()
            else:
                answer(line)
        line = stdin.readline()
