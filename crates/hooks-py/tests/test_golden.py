"""The golden cases decide the same through Python as through `hooks run`.

Each golden case that runs a handler becomes a real project: its configuration files on
disk, its programs scripts on `PATH` replaying the recorded outputs (as
`crates/hooks-cli/tests/it/core_host.rs` does). The case is fired once by the `hooks`
binary and once through a `hooks_py.Session`; matched ids, decision, effect and the
blocking verdict (the binary's exit 2) must be identical.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from conftest import REPO
from hooks_py import Session

CASES = REPO / "crates/hooks-core/tests/golden/cases"
BIN = Path(os.environ.get("HOOKS_BIN", REPO / "target/debug/hooks"))


def portable(p: str) -> bool:
    return bool(p) and p not in (".", "..") and all(c.isascii() and (c.isalnum() or c in "_.-") for c in p)


def write_programs(case: dict, bin_dir: Path) -> None:
    bin_dir.mkdir(parents=True, exist_ok=True)
    programs: dict = {}
    for handlers in case["expected"]["handlers"].values():
        for h in handlers:
            if isinstance(h.get("legacy"), dict):
                program = h["legacy"]["argv"][0]
            elif isinstance(h.get("argv"), list):
                program = h["argv"][0] if h["argv"] else None
            elif isinstance(h.get("command"), str):
                program = h["command"].strip()
            else:
                program = None
            if h.get("id") and program is not None:
                output = case["outputs"].get(h["id"])
                if output is not None or program not in programs:
                    programs[program] = output
    for program, output in programs.items():
        if not portable(program):
            continue
        output = output or {}
        out, err = bin_dir / f"{program}.stdout", bin_dir / f"{program}.stderr"
        out.write_text(output.get("stdout") or "")
        err.write_text(output.get("stderr") or "")
        if output.get("timeout") is not None:
            ending = f"sleep {output['timeout'] + 3}\nexit 0"
        elif output.get("signal") is not None:
            ending = f"kill -{output['signal']} $$\nsleep 5"
        else:
            ending = f"exit {output.get('exit') or 0}"
        path = bin_dir / program
        path.write_text(f"#!/bin/sh\ncat > /dev/null\ncat '{out}'\ncat '{err}' >&2\n{ending}\n")
        path.chmod(0o755)


def compare(case: dict, root: Path):
    project, home = root / "project", root / "home"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    for f in case["files"]:
        if not isinstance(f.get("text"), str):
            return None
        path = project / ".deepagents/hooks.json" if f["layer"] == "project" else home / "hooks.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f["text"])
    write_programs(case, root / "bin")
    env = {"PATH": f"{root / 'bin'}:/usr/bin:/bin", "HOME": str(root)}
    payload = dict(case["payload"])
    count = case.get("continuation_count")
    if count is not None:
        payload.pop("stop_hook_active", None)

    args = [str(BIN), "--home", str(home), "--project", str(project), "--trust-project-hooks",
            "run", case["event"], "--payload", json.dumps(payload)]
    if count is not None:
        args += ["--stop-continuations", str(count)]
    out = subprocess.run(args, env=env, cwd=project, capture_output=True)
    ran = json.loads(out.stdout)
    theirs = {"matched": ran["matched"], "decision": ran["decision"], "effect": ran["effect"],
              "blocking": out.returncode == 2}

    session = Session(project, home=home, trust_project_hooks=True, env=env)
    r = session.fire_sync(case["event"], payload, stop_continuations=count)
    d = r.to_dict()
    ours = {"matched": d["matched"], "decision": d["decision"], "effect": d["effect"], "blocking": r.blocking}
    return ours, theirs


def test_python_and_hooks_run_decide_the_same(tmp_path: Path) -> None:
    assert BIN.exists(), f"{BIN} is not built: run `cargo build -p hooks-cli` (or set HOOKS_BIN)"
    compared, failures = 0, []
    for path in sorted(CASES.glob("*.json")):
        case = json.loads(path.read_text())
        if not case["expected"].get("matched"):
            continue
        result = compare(case, tmp_path / path.stem)
        if result is None:
            continue
        compared += 1
        ours, theirs = result
        if ours != theirs:
            failures.append(f"{path.name}:\n  python:    {ours}\n  hooks run: {theirs}")
    print(f"Python and hooks run compared on {compared} golden cases")
    assert compared >= 20
    assert not failures, "\n".join(failures)
