"""A resident handler for the tests (docs/spec.md#spec-15.16): the prompt says what to do.

`slow:S` answers after S seconds (on a thread, so later events overtake it), `crash`
exits at once, `garbage` answers a line that is not an answer, `huge` an answer line of 900,000
bytes (over the line cap), `env` answers the
environment, `spawn` starts `sleep 300` and answers both pids; anything else answers
`ok <pid> <version> <prompt>`.
"""

import json
import os
import subprocess
import sys
import threading
import time

VERSION = "v1"
lock = threading.Lock()


def reply(message, text):
    out = {"hookSpecificOutput": {"hookEventName": message["event"], "additionalContext": text}}
    line = json.dumps({"id": message["id"], "exit_code": 0, "stdout": out, "stderr": ""})
    with lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    prompt = message["payload"].get("prompt", "")
    if prompt.startswith("slow:"):
        seconds = float(prompt[5:])
        threading.Thread(
            target=lambda m=message, s=seconds: (time.sleep(s), reply(m, f"slow {os.getpid()}")),
            daemon=True,
        ).start()
    elif prompt == "crash":
        os._exit(3)
    elif prompt == "garbage":
        with lock:
            sys.stdout.write("this is not an answer\n")
            sys.stdout.flush()
    elif prompt == "huge":
        line = json.dumps({"id": message["id"], "exit_code": 0, "stdout": "x" * 900_000})
        with lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
    elif prompt == "env":
        reply(message, "\n".join(f"{k}={v}" for k, v in sorted(os.environ.items())))
    elif prompt == "spawn":
        child = subprocess.Popen(["sleep", "300"])
        reply(message, f"{os.getpid()} {child.pid}")
    else:
        reply(message, f"ok {os.getpid()} {VERSION} {prompt}")
