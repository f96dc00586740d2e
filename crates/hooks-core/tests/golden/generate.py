#!/usr/bin/env python3
"""Regenerate the golden fixtures in `cases/` from the reference oracle.

Each case in `specs.py` describes hook configuration files, one host payload and
the raw output of every handler. This script makes the reference implementation
(driven headless by `/work/shared/oracle/dac_dispatch.py`) load exactly those
files, run real processes that print exactly those outputs, and records the
reference's answer as `cases/NNN-<name>.json`.

Handler commands in the specs are portable program names (`[A-Za-z0-9_.-]+`,
or `argv[0]`). For the oracle run, each name becomes a small shell script in a
per-case `bin/` folder placed first on `PATH`; the script saves its stdin, prints
the recorded stdout and stderr, and then exits with the recorded status, sleeps
past its timeout or kills itself with a signal. The configuration text the
oracle reads is therefore byte-for-byte the text recorded in the fixture.

Standard library only. Run with the oracle's interpreter (see README.md):

    $DAC_PY crates/hooks-core/tests/golden/generate.py [--only SUBSTRING] [--repeat N]

CI never runs this script; the Rust harness only replays the fixtures.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CASES_DIR = HERE / "cases"
DEFAULT_ORACLE = Path("/work/shared/oracle/dac_dispatch.py")

# Stable locations recorded in fixtures instead of the per-case temp folder.
STABLE_ROOT = "/golden"
LAYER_PATHS = {
    "user": "user/hooks.json",
    "project": "project/.deepagents/hooks.json",
}
PROGRAM_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
SCRATCH = re.compile(r"/tmp/dac-dispatch-[A-Za-z0-9_]+")

# How long a "timeout" handler sleeps beyond its configured timeout (seconds).
OVERSLEEP = 3.0


class GeneratorError(Exception):
    """A case spec that cannot be turned into a fixture."""


def load_specs() -> list[dict[str, Any]]:
    """Import `specs.py` beside this file and return its CASES list."""
    sys.dont_write_bytecode = True
    sys.path.insert(0, str(HERE))
    try:
        import specs  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    return list(specs.CASES)


def file_bytes(entry: dict[str, Any]) -> bytes:
    """Return the exact bytes of one configuration file entry."""
    if "base64" in entry:
        return base64.b64decode(entry["base64"])
    return entry["text"].encode("utf-8")


def normalize(value: Any, tmp: str) -> Any:
    """Replace volatile paths by stable ones, recursively."""
    if isinstance(value, str):
        value = value.replace(tmp, STABLE_ROOT)
        return SCRATCH.sub("/scratch", value)
    if isinstance(value, list):
        return [normalize(item, tmp) for item in value]
    if isinstance(value, dict):
        return {key: normalize(item, tmp) for key, item in value.items()}
    return value


def run_oracle(
    oracle: Path, python: str, args: list[str], env: dict[str, str]
) -> dict[str, Any]:
    """Run the oracle once and return its parsed report."""
    proc = subprocess.run(
        [python, str(oracle), *args],
        capture_output=True,
        env=env,
        check=False,
        timeout=120,
    )
    if proc.returncode != 0:
        raise GeneratorError(
            f"oracle failed ({proc.returncode}): {proc.stdout!r} {proc.stderr!r}"
        )
    return json.loads(proc.stdout)


LEGACY_MODULE = "deepagents_code.hooks.migration"


def legacy_of(row: dict[str, Any]) -> dict[str, Any] | None:
    """Decode a reference legacy adapter handler into its legacy event and argv.

    The reference migrates a legacy entry into a handler running
    `{python} -m deepagents_code.hooks.migration <legacy event> <base64 argv>`;
    that adapter runs the legacy argv with the legacy stdin and ignores its
    output and exit status.
    """
    argv = row.get("argv") or []
    if len(argv) == 5 and argv[1:3] == ["-m", LEGACY_MODULE]:
        decoded = json.loads(base64.urlsafe_b64decode(argv[4]))
        return {"event": argv[3], "argv": decoded}
    return None


def handler_program(row: dict[str, Any]) -> str:
    """Return the program a handler runs (argv[0], else the command)."""
    legacy = legacy_of(row)
    if legacy is not None:
        return legacy["argv"][0]
    argv = row.get("argv")
    return argv[0] if argv else row["command"]


def write_script(bin_dir: Path, out_dir: Path, program: str, output: dict) -> None:
    """Write `bin/<program>`, which reproduces one recorded handler output."""
    stdout_file = out_dir / f"{program}.stdout"
    stderr_file = out_dir / f"{program}.stderr"
    stdin_prefix = out_dir / f"{program}."
    stdout_file.write_bytes(output.get("stdout", "").encode("utf-8"))
    stderr_file.write_bytes(output.get("stderr", "").encode("utf-8"))
    lines = [
        "#!/bin/sh",
        f"cat > {shlex.quote(str(stdin_prefix))}$$.stdin",
        f"cat {shlex.quote(str(stdout_file))}",
        f"cat {shlex.quote(str(stderr_file))} >&2",
    ]
    if "timeout" in output:
        lines.append(f"sleep {float(output['timeout']) + OVERSLEEP}")
        lines.append("exit 0")
    elif "signal" in output:
        # The script is the handler process itself (argv handler, no shell).
        lines.append(f"kill -{int(output['signal'])} $$")
        lines.append("sleep 5")
    else:
        lines.append(f"exit {int(output.get('exit', 0))}")
    script = bin_dir / program
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    script.chmod(0o755)


def full_output(output: dict[str, Any] | None) -> dict[str, Any]:
    """Spell out a handler output with every key the fixture format defines."""
    output = dict(output or {})
    if "timeout" in output:
        return {
            "timeout": output["timeout"],
            "stdout": output.get("stdout", ""),
            "stderr": output.get("stderr", ""),
        }
    if "signal" in output:
        return {
            "signal": output["signal"],
            "stdout": output.get("stdout", ""),
            "stderr": output.get("stderr", ""),
        }
    return {
        "exit": int(output.get("exit", 0)),
        "stdout": output.get("stdout", ""),
        "stderr": output.get("stderr", ""),
    }


def normalize_python(value: Any, python: str) -> Any:
    """Replace the reference interpreter path by `{python}`, recursively."""
    if isinstance(value, str):
        for path in {python, os.path.realpath(python)}:
            value = value.replace(path, "{python}")
        return value
    if isinstance(value, list):
        return [normalize_python(item, python) for item in value]
    if isinstance(value, dict):
        return {key: normalize_python(item, python) for key, item in value.items()}
    return value


def pointer_get(doc: Any, pointer: str) -> Any:
    """Resolve an RFC 6901 JSON pointer; a missing member yields None."""
    if pointer == "":
        return doc
    current = doc
    for raw in pointer.lstrip("/").split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(current, list):
            index = int(token)
            if index >= len(current):
                return None
            current = current[index]
        elif isinstance(current, dict):
            if token not in current:
                return None
            current = current[token]
        else:
            return None
    return current


def build_case(
    number: int, spec: dict[str, Any], oracle: Path, python: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run one case through the oracle; return (fixture, raw report)."""
    tmp = tempfile.mkdtemp(prefix="golden-")
    try:
        return _build_case(number, spec, oracle, python, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _build_case(
    number: int, spec: dict[str, Any], oracle: Path, python: str, tmp: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    root = Path(tmp)
    bin_dir = root / "bin"
    out_dir = root / "out"
    user_dir = root / "user"
    project_root = root / "project"
    for folder in (bin_dir, out_dir, user_dir, project_root / ".deepagents"):
        folder.mkdir(parents=True, exist_ok=True)

    layers_seen: set[str] = set()
    recorded_files = []
    for entry in spec.get("files", []):
        layer = entry["layer"]
        if layer not in LAYER_PATHS or layer in layers_seen:
            raise GeneratorError(f"bad or repeated layer {layer!r}")
        layers_seen.add(layer)
        (root / LAYER_PATHS[layer]).write_bytes(file_bytes(entry))
        recorded = {"layer": layer, "path": f"{STABLE_ROOT}/{LAYER_PATHS[layer]}"}
        if "base64" in entry:
            recorded["base64"] = entry["base64"]
        else:
            recorded["text"] = entry["text"]
        recorded_files.append(recorded)

    payload = dict(spec.get("payload", {}))
    for key in ("session_id", "transcript_path", "cwd"):
        if key not in payload:
            raise GeneratorError(f"payload lacks {key}")
    if spec.get("continuation_count") is not None:
        payload["continuation_count"] = spec["continuation_count"]
    payload_file = root / "payload.json"
    payload_file.write_text(json.dumps(payload), encoding="utf-8")

    args = [
        "--event",
        spec["event"],
        "--payload-file",
        str(payload_file),
        "--user-dir",
        str(user_dir),
        "--project-root",
        str(project_root),
        "--trust-project",
        "--cwd",
        payload["cwd"],
        "--indent",
        "0",
    ]
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}:{env.get('PATH', '/usr/bin:/bin')}"
    env.pop("DAC_DISPATCH_KEEP", None)

    # Pass 1: load and match only, to learn which program each handler runs.
    dry = run_oracle(oracle, python, [*args, "--no-run"], env)
    rows = {
        row["id"]: row
        for rows in dry["config"]["handlers"].values()
        for row in rows
    }
    outputs_spec = spec.get("outputs", {})
    unknown = set(outputs_spec) - set(rows)
    if unknown:
        raise GeneratorError(f"outputs for unknown handlers {sorted(unknown)}")
    outputs: dict[str, dict[str, Any]] = {}
    by_program: dict[str, dict[str, Any]] = {}
    for handler_id in dry["matched"]:
        row = rows[handler_id]
        output = full_output(outputs_spec.get(handler_id))
        outputs[handler_id] = output
        program = handler_program(row)
        if not program.strip():
            continue  # blank command: the reference refuses it before launch
        if not PROGRAM_NAME.match(program):
            raise GeneratorError(f"{handler_id}: program {program!r} is not portable")
        if "signal" in output and (legacy_of(row) or not row.get("argv")):
            raise GeneratorError(f"{handler_id}: a signal output needs an argv handler")
        if program in by_program and by_program[program] != output:
            raise GeneratorError(f"{program!r} is shared by handlers with other outputs")
        by_program[program] = output
        write_script(bin_dir, out_dir, program, output)

    # Pass 2: the real run.
    report = run_oracle(oracle, python, args, env)

    captured: dict[str, list[str]] = {}
    for path in sorted(out_dir.glob("*.stdin")):
        program = path.name.rsplit(".", 2)[0]
        captured.setdefault(program, []).append(path.read_text(encoding="utf-8"))
    stdin_texts: set[str] = set()
    legacy_stdin: dict[str, str] = {}
    for handler_id in report["matched"]:
        row = rows[handler_id]
        program = handler_program(row)
        legacy = legacy_of(row)
        if legacy is None:
            stdin_texts.update(captured.get(program, []))
            continue
        for text in captured.get(program, []):
            if json.loads(text).get("event") == legacy["event"]:
                legacy_stdin[handler_id] = text
    if len(stdin_texts) > 1:
        raise GeneratorError(f"handlers received different stdin: {stdin_texts}")
    stdin_text = stdin_texts.pop() if stdin_texts else None
    if stdin_text is not None and json.loads(stdin_text) != report["stdin"]:
        raise GeneratorError("stdin bytes differ from the reported stdin object")

    report = normalize(report, tmp)
    config = report["config"]
    handlers: dict[str, list[dict[str, Any]]] = {}
    for event, rows_ in config["handlers"].items():
        handlers[event] = []
        for row in rows_:
            item = {key: row[key] for key in sorted(row) if key != "plugin_env"}
            legacy = legacy_of(row)
            if legacy is not None:
                item["legacy"] = legacy
                item = normalize_python(item, python)
            handlers[event].append(item)
    texts = {
        (row.get("statusMessage") or "").strip() or "default"
        for rows_ in handlers.values()
        for row in rows_
        if row["id"] in report["matched"]
    }
    expected: dict[str, Any] = {
        "load_diagnostics": config["diagnostics"],
        "sources_loaded": config["sources_loaded"],
        "handlers": handlers,
        "matched": report["matched"],
        "stdin": report["stdin"],
        "stdin_text": stdin_text,
        "handler_results": [
            {
                "handler_id": item["handler_id"],
                "effective_timeout": item["effective_timeout"],
                "output": item["output"],
                "plain_output": item["plain_output"],
                "diagnostics": item["diagnostics"],
            }
            for item in report["handler_results"]
        ],
        "decision": report["decision"],
        "effect": report["effect"],
        "load_notices": report["load_notices"],
        "notices": report["notices"],
        "status_updates": report["status_updates"],
        "status_updates_deterministic": len(report["matched"]) <= 1 or len(texts) == 1,
        "legacy_stdin": legacy_stdin,
        "terminal_output": report["terminal_output"],
    }

    deviations = []
    for item in spec.get("deviations", []):
        if not isinstance(item.get("spec15"), int):
            raise GeneratorError("deviation needs an integer spec15")
        path = item["path"]
        parent = path.rpartition("/")[0]
        if not path.startswith("/") or pointer_get(expected, parent) is None:
            raise GeneratorError(f"deviation path {path!r} not in expected")
        deviations.append(
            {
                "spec15": item["spec15"],
                "path": path,
                "compare": item.get("compare", "exact"),
                "reference": pointer_get(expected, path),
                "ours": item["ours"],
                "reason": item["reason"],
            }
        )

    fixture: dict[str, Any] = {
        "name": spec["name"],
        "number": number,
        "description": spec["description"],
        "spec": spec["spec"],
        "event": spec["event"],
        "files": recorded_files,
        "payload": spec.get("payload", {}),
        "continuation_count": spec.get("continuation_count"),
        "outputs": outputs,
        "expected": expected,
        "deviations": deviations,
        "reference": report["reference"],
    }
    return fixture, report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle", type=Path, default=DEFAULT_ORACLE)
    parser.add_argument("--only", help="regenerate cases whose name contains this")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="run each case N times and fail when the fixtures differ",
    )
    args = parser.parse_args()
    python = sys.executable
    specs_list = load_specs()
    names = [spec["name"] for spec in specs_list]
    if len(set(names)) != len(names):
        raise SystemExit("duplicate case names in specs.py")
    CASES_DIR.mkdir(exist_ok=True)
    if not args.only:
        for stale in CASES_DIR.glob("*.json"):
            stale.unlink()
    failures = 0
    for number, spec in enumerate(specs_list, start=1):
        if args.only and args.only not in spec["name"]:
            continue
        target = CASES_DIR / f"{number:03d}-{spec['name']}.json"
        try:
            fixture, _ = build_case(number, spec, args.oracle, python)
            for _ in range(args.repeat - 1):
                again, _ = build_case(number, spec, args.oracle, python)
                if again != fixture:
                    raise GeneratorError("fixture differs between runs")
        except GeneratorError as exc:
            print(f"FAIL {target.name}: {exc}", file=sys.stderr)
            failures += 1
            continue
        text = json.dumps(fixture, indent=2, sort_keys=True, ensure_ascii=False)
        target.write_text(text + "\n", encoding="utf-8")
        print(f"ok   {target.name}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
