"""Per-event dispatch from Python, interleaved in one run (see BENCHMARKS.md).

Rows, each a PreToolUse event fired sequentially from one asyncio loop:

- ``direct spawn``: ``subprocess.run(["/bin/true"])``, the floor for one handler process;
- ``hooks_py argv /bin/true``: ``await session.fire(...)`` with one user-layer handler
  ``argv: ["/bin/true"]`` (and ``fire_sync``, the script form);
- ``hooks_py callback``: one Python callback (``async def cb(...): return {}``), no
  process;
- ``reference argv /bin/true``: Deep Agents Code's own engine in this process
  (``HookEngine(snapshot).run(invocation)``, set up the way
  ``/work/shared/oracle/dac_dispatch.py`` does), when ``deepagents_code`` imports.

Rounds alternate the rows (so load drifts hit all of them alike); each figure is the
median over rounds of the mean per-event time within a round.

    python crates/hooks-py/bench/bench.py [--rounds 15] [--events 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hooks_py import HookMatcher, Session

PAYLOAD = {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"}
CONFIG = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "/bin/true", "argv": ["/bin/true"]}]}]}}


def reference(root: Path):
    """The reference engine's in-process dispatch, or None when it is not installed."""
    sys.path.insert(0, os.environ.get("DAC_ORACLE", "/work/shared/oracle"))
    try:
        import dac_dispatch as dac  # type: ignore[import-not-found]
    except ImportError:
        return None
    user = root / "dac-user"
    user.mkdir()
    (user / "hooks.json").write_text(json.dumps(CONFIG))
    loaded = dac.load_hooks_config(project_root=root / "project", workspace_trusted=False,
                                   config_dir=user, paths=None, documents=(), document_diagnostics=())
    snapshot = dac.HooksSnapshot.from_config(loaded.config, groups=loaded.groups,
                                             diagnostics=loaded.diagnostics, snapshot_id=loaded.snapshot_id)
    engine = dac.HookEngine(snapshot)
    invocation = dac._invocation(dac.HookEvent.PRE_TOOL_USE, PAYLOAD, root / "project")
    transcript = root / "transcript.jsonl"
    transcript.touch()
    assert [h.id for h in snapshot.match(invocation).handlers] == ["PreToolUse:0:0"]

    async def fire():
        return await engine.run(invocation, transcript_path=transcript)

    return fire


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--events", type=int, default=200)
    args = ap.parse_args()

    root = Path(tempfile.mkdtemp(prefix="hooks-py-bench-"))
    (root / "project" / ".git").mkdir(parents=True)
    (root / "home").mkdir()
    (root / "home" / "hooks.json").write_text(json.dumps(CONFIG))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(root)}
    files = Session(root / "project", home=root / "home", env=env)

    async def cb(input_data, tool_use_id, context):
        return {}

    callbacks = Session(root / "project", home=root / "empty-home", env=env,
                        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[cb])]})
    ref = reference(root)

    async def check():
        r = await files.fire("PreToolUse", PAYLOAD)
        assert r.matched == ["PreToolUse:0:0"] and r.handlers[0].exit_code == 0, r
        c = await callbacks.fire("PreToolUse", PAYLOAD)
        assert c.matched == ["PreToolUse:callback:0:0"] and not c.decision.diagnostics, c

    async def direct():
        subprocess.run(["/bin/true"], check=True)

    async def ours():
        await files.fire("PreToolUse", PAYLOAD)

    async def ours_sync():
        files.fire_sync("PreToolUse", PAYLOAD)

    async def ours_callback():
        await callbacks.fire("PreToolUse", PAYLOAD)

    rows = [("direct spawn /bin/true (subprocess.run)", direct),
            ("hooks_py fire, argv /bin/true", ours),
            ("hooks_py fire_sync, argv /bin/true", ours_sync),
            ("hooks_py fire, one Python callback", ours_callback)]
    if ref is not None:
        rows.append(("reference HookEngine.run, argv /bin/true", ref))

    async def run():
        await check()
        for _, f in rows:  # warm-up
            for _ in range(20):
                await f()
        times = {name: [] for name, _ in rows}
        for _ in range(args.rounds):
            for name, f in rows:
                started = time.perf_counter()
                for _ in range(args.events):
                    await f()
                times[name].append((time.perf_counter() - started) / args.events)
        return times

    times = asyncio.run(run())
    print(f"python {platform.python_version()}, {os.cpu_count()} cpus, "
          f"{args.rounds} rounds x {args.events} events, median of round means")
    base = statistics.median(times[rows[0][0]])
    for name, _ in rows:
        m = statistics.median(times[name])
        print(f"{name:44} {m * 1e6:9.1f} us/event  {m / base:5.2f}x direct")
    if ref is None:
        print("reference: deepagents_code not importable here (run with $DAC_PY)")


if __name__ == "__main__":
    main()
