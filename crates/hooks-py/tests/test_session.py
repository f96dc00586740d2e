"""The Python host API: callbacks and file hooks in one reduction, SDK-shaped outputs,
failures as outcomes, cancellation, concurrency, the audit and reload."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import World, bash, group, prints, sh
from hooks_py import FireResult, HookMatcher, Session


STOP = {"last_assistant_message": "done"}


def pre_tool_use(**fields):
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", **fields}}


def run(coro):
    return asyncio.run(coro)


def test_callbacks_and_file_hooks_reduce_in_configuration_order(world: World) -> None:
    # The file hooks finish last (one after 0.3 s), the callbacks first, the first
    # callback after the second: the order is the configuration's all the same.
    world.write_project(group("PreToolUse", [prints(pre_tool_use(additionalContext="project"), 0.3)]))
    world.write_user(group("PreToolUse", [prints(pre_tool_use(additionalContext="user"), 0.1)]))
    finished = []

    async def slow(input_data, tool_use_id, context):
        await asyncio.sleep(0.05)
        finished.append("slow")
        return pre_tool_use(additionalContext="callback 1")

    async def fast(input_data, tool_use_id, context):
        finished.append("fast")
        return pre_tool_use(additionalContext="callback 2")

    def plain(input_data, tool_use_id, context):
        return pre_tool_use(additionalContext="callback 3")

    s = world.session(
        trust_project_hooks=True,
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[slow, fast]), HookMatcher(hooks=[plain])]},
    )
    result = run(s.fire("PreToolUse", bash("ls")))
    assert finished == ["fast", "slow"]
    assert result.matched == [
        "PreToolUse:0:0",
        "PreToolUse:1:0",
        "PreToolUse:callback:0:0",
        "PreToolUse:callback:0:1",
        "PreToolUse:callback:1:0",
    ]
    assert result.decision.context == ["project", "user", "callback 1", "callback 2", "callback 3"]
    assert result.decision.diagnostics == []
    assert not result.blocking


def test_a_callback_deny_beats_a_file_hook_allow(world: World) -> None:
    world.write_user(group("PreToolUse", [prints(pre_tool_use(permissionDecision="allow", permissionDecisionReason="fine"))]))

    async def deny_rm(input_data, tool_use_id, context):
        if "rm" in input_data["tool_input"]["command"]:
            return pre_tool_use(permissionDecision="deny", permissionDecisionReason="no rm")
        return {}

    s = world.session(hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[deny_rm])]})
    denied = run(s.fire("PreToolUse", bash("rm -rf /")))
    assert denied.blocking
    assert denied.decision.permission.behavior == "deny"
    assert denied.decision.permission.reason == "no rm"
    assert denied.effect.outcome == "deny"
    allowed = s.fire_sync("PreToolUse", bash("ls"))
    assert not allowed.blocking
    assert allowed.decision.permission.behavior == "allow"
    assert allowed.effect.outcome == "allow"


def test_callbacks_get_the_wire_input_the_tool_use_id_and_a_context(world: World) -> None:
    world.write_user(group("PreToolUse", [sh("cat > \"$CLAUDE_PROJECT_DIR/stdin.json\"")]))
    seen = []

    async def record(input_data, tool_use_id, context):
        seen.append((input_data, tool_use_id, context))
        return {}

    s = world.session(hooks={"PreToolUse": [HookMatcher(hooks=[record], timeout=7)]})
    run(s.fire("PreToolUse", bash("ls", tool_use_id="toolu_42")))
    [(input_data, tool_use_id, context)] = seen
    assert input_data == json.loads((world.project / "stdin.json").read_text())
    assert input_data["hook_event_name"] == "PreToolUse"
    assert input_data["tool_input"] == {"command": "ls"}
    assert tool_use_id == "toolu_42"
    assert context.signal is None and context.timeout == 7


def test_sdk_shaped_outputs(world: World) -> None:
    async def ask(input_data, tool_use_id, context):
        return {
            "systemMessage": "careful",
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "ask",
                "permissionDecisionReason": "check this",
                "additionalContext": "the repo is frozen",
            },
        }

    async def stop(input_data, tool_use_id, context):
        return {"continue_": False, "stopReason": "enough", "async_": False}

    s = world.session(hooks={"PreToolUse": [HookMatcher(hooks=[ask])], "UserPromptSubmit": [HookMatcher(hooks=[stop])]})
    r = run(s.fire("PreToolUse", bash("git push")))
    assert r.decision.permission.behavior == "ask"
    assert r.decision.permission.reason == "check this"
    assert r.decision.context == ["the repo is frozen"]
    assert r.decision.notices == ["careful"]
    assert r.effect.outcome == "ask"
    assert r.decision.diagnostics == []
    p = run(s.fire("UserPromptSubmit", {"prompt": "hi"}))
    assert p.decision.continue_ is False
    assert p.decision.stop_reason == "enough"
    assert p.blocking
    # `async_` reached the engine as `async` (which Deep Agents Code does not apply).
    [d] = p.decision.diagnostics
    assert (d.code, d.field) == ("unsupported_field", "async")
    d = p.to_dict()
    assert d["decision"]["continue"] is False and d["blocking"] is True
    assert isinstance(p, FireResult)


def test_a_raising_callback_is_an_outcome(world: World) -> None:
    async def boom(input_data, tool_use_id, context):
        raise ValueError("boom")

    def not_a_dict(input_data, tool_use_id, context):
        return "yes"

    async def ok(input_data, tool_use_id, context):
        return pre_tool_use(additionalContext="still counted")

    s = world.session(hooks={"PreToolUse": [HookMatcher(hooks=[boom, not_a_dict, ok])]})
    r = run(s.fire("PreToolUse", bash("ls")))
    assert not r.blocking
    assert r.decision.context == ["still counted"]
    failed = {d.handler_id: d.message for d in r.decision.diagnostics if d.code == "callback_failed"}
    assert failed == {
        "PreToolUse:callback:0:0": "callback raised ValueError: boom",
        "PreToolUse:callback:0:1": "callback returned str, expected a dict",
    }


def test_a_slow_callback_past_its_timeout_is_cancelled(world: World) -> None:
    state = {}

    async def slow(input_data, tool_use_id, context):
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            state["cancelled"] = True
            raise
        return {}

    async def main():
        s = world.session(hooks={"Stop": [HookMatcher(hooks=[slow], timeout=0.2)]})
        r = await s.fire("Stop", STOP)
        for _ in range(1000):
            if state:
                break
            await asyncio.sleep(0.001)
        return r

    r = run(main())
    [d] = r.decision.diagnostics
    assert (d.code, d.handler_id) == ("timeout", "Stop:callback:0:0")
    assert r.handlers[0].timed_out
    assert state == {"cancelled": True}
    assert not r.blocking


def alive(pid: int) -> bool:
    """True while `pid` runs (a zombie waiting for its parent has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return not stat.rsplit(") ", 1)[1].startswith("Z")


def test_cancelling_fire_kills_its_processes_and_cancels_its_callbacks(world: World) -> None:
    pids = world.root / "pids"
    # The handler and a grandchild in its process group both record their pid.
    world.write_user(group("PreToolUse", [sh(f"sleep 30 & echo $! >> {pids}; echo $$ >> {pids}; wait")]))
    state = {}

    async def waits(input_data, tool_use_id, context):
        state["started"] = True
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            state["cancelled"] = True
            raise
        return {}

    async def main():
        s = world.session(hooks={"PreToolUse": [HookMatcher(hooks=[waits])]})
        task = asyncio.ensure_future(s.fire("PreToolUse", bash("ls")))
        for _ in range(5000):
            if pids.exists() and len(pids.read_text().split()) == 2 and state:
                break
            await asyncio.sleep(0.002)
        recorded = [int(p) for p in pids.read_text().split()]
        assert len(recorded) == 2 and all(alive(p) for p in recorded)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # SIGKILL went to the handler's group before CancelledError arrived here; the
        # kernel takes its moment to deliver it (a 3 s deadline, as the Rust tests).
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            if "cancelled" in state and not any(alive(p) for p in recorded):
                break
            await asyncio.sleep(0.005)
        return recorded

    recorded = run(main())
    assert not any(alive(p) for p in recorded)
    assert state == {"started": True, "cancelled": True}


def test_cancelling_a_callback_only_fire_cancels_its_callback(world: World) -> None:
    # A fire that runs only callbacks is polled on the event loop's thread (no runtime
    # task): cancelling it drops the fire there, and the callback's task is cancelled.
    state = {}

    async def waits(input_data, tool_use_id, context):
        state["started"] = True
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            state["cancelled"] = True
            raise
        return {}

    async def main():
        s = world.session(hooks={"PreToolUse": [HookMatcher(hooks=[waits])]})
        task = asyncio.ensure_future(s.fire("PreToolUse", bash("ls")))
        for _ in range(5000):
            if state:
                break
            await asyncio.sleep(0.001)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        for _ in range(3000):
            if "cancelled" in state:
                break
            await asyncio.sleep(0.001)
        seen = dict(state)
        # The session fires on after the cancelled fire.
        state.clear()
        s2 = world.session(hooks={"PreToolUse": [HookMatcher(hooks=[lambda i, t, c: {}])]})
        after = await s2.fire("PreToolUse", bash("ls"))
        return seen, after

    seen, after = run(main())
    assert seen == {"started": True, "cancelled": True}
    assert not after.blocking


def test_callback_only_fires_interleave_on_one_loop(world: World) -> None:
    # Fifty callback-only fires at once, each callback awaiting: every fire gets its own
    # callback's answer (the wakes of fires polled on the loop's thread do not cross).
    async def echo(input_data, tool_use_id, context):
        await asyncio.sleep(0.001)
        return pre_tool_use(additionalContext=input_data["tool_input"]["command"])

    async def main():
        s = world.session(hooks={"PreToolUse": [HookMatcher(hooks=[echo])]})
        return await asyncio.gather(*(s.fire("PreToolUse", bash(f"c{i}")) for i in range(50)))

    results = run(main())
    assert [r.decision.context for r in results] == [[f"c{i}"] for i in range(50)]
    assert all(r.decision.diagnostics == [] for r in results)


def test_a_hundred_concurrent_fires_from_one_loop(world: World) -> None:
    world.write_user(group("PreToolUse", [{"type": "command", "command": "x", "argv": ["/bin/sh", "-c", "cat >/dev/null; echo '{}'"]}]))

    async def echo(input_data, tool_use_id, context):
        await asyncio.sleep(0.001)
        return pre_tool_use(additionalContext=input_data["tool_input"]["command"] + " " + tool_use_id)

    async def main():
        s = world.session(hooks={"PreToolUse": [HookMatcher(hooks=[echo])]})
        return await asyncio.gather(*(s.fire("PreToolUse", bash(f"echo {i}", f"t{i}")) for i in range(100)))

    results = run(main())
    assert [r.decision.context for r in results] == [[f"echo {i} t{i}"] for i in range(100)]
    assert all(r.decision.diagnostics == [] for r in results)
    assert all(r.handlers[0].exit_code == 0 for r in results)


def test_list_is_the_audit_and_reload_takes_a_new_snapshot(world: World) -> None:
    world.write_user(group("PreToolUse", [sh("exit 0")], matcher="Bash"))
    world.write_project(group("Stop", [sh("exit 0")]))

    async def cb(input_data, tool_use_id, context):
        return {}

    s = world.session(hooks={"Stop": [HookMatcher(hooks=[cb])]})
    listing = s.list()
    rows = [(h.id, h.layer, h.status) for h in listing.handlers]
    assert ("PreToolUse:0:0", "user", "active") in rows
    assert ("Stop:callback:0:0", "callback", "active") in rows
    assert [h.status for h in listing.handlers if h.layer == "project"] == ["untrusted"]
    assert any(d.code == "project_untrusted" for d in listing.diagnostics)
    assert listing.project_root == str(world.project)
    user = next(h for h in listing.handlers if h.layer == "user")
    assert user.file == str(world.home / "hooks.json") and user.line is not None
    world.write_user(group("PreToolUse", [sh("exit 0"), sh("exit 1")], matcher="Bash"))
    assert run(s.fire("PreToolUse", bash("ls"))).matched == ["PreToolUse:0:0"]
    s.reload()
    assert s.list().snapshot_id != listing.snapshot_id
    assert run(s.fire("PreToolUse", bash("ls"))).matched == ["PreToolUse:0:0", "PreToolUse:0:1"]


def test_list_with_a_payload_is_the_plan_fire_runs(world: World) -> None:
    world.write_user(
        group(
            "PreToolUse",
            [sh("exit 0", **{"if": "Bash(git commit:*)"}), sh("exit 0 # b")],
            matcher="Bash",
        )
    )
    s = world.session()
    listing = s.list("PreToolUse", bash("git push origin main"))
    fates = [(h.id, h.fate) for h in listing.handlers]
    assert fates == [("PreToolUse:0:0", "if_false"), ("PreToolUse:0:1", "runs")]
    assert listing.handlers[0].if_rule == "Bash(git commit:*)"
    assert listing.handlers[0].handler_type == "command" and not listing.handlers[0].is_async
    assert "does not admit the call" in (listing.handlers[0].why or "")
    ran = s.fire_sync("PreToolUse", bash("git push origin main")).matched
    assert ran == [h.id for h in listing.handlers if h.fate == "runs"]
    assert all(h.fate is None for h in s.list().handlers)


def test_model_switch_groups_match_the_hosts_match_target(world: World) -> None:
    # docs/claude-code-contract.md#cc-17.3: the host resolves the target model's name and
    # passes it beside the payload; it never reaches stdin.
    world.write_user(
        group(
            "PreModelSwitch",
            [sh("cat > \"$CLAUDE_PROJECT_DIR/stdin.json\"; echo retired >&2; exit 2")],
            matcher="claude-opus-4-6",
        )
    )
    s = world.session()
    payload = {"from_model": "a", "to_model": "opus", "source": "sdk"}
    denied = s.fire_sync("PreModelSwitch", payload, match_target="claude-opus-4-6")
    assert denied.blocking
    assert denied.decision.permission is not None
    assert denied.decision.permission.behavior == "deny"
    assert denied.decision.permission.reason == "retired"
    assert "match_target" not in json.loads((world.project / "stdin.json").read_text())
    other = run(s.fire("PreModelSwitch", payload, match_target="claude-opus-5"))
    assert other.matched == [] and not other.blocking
    listing = s.list("PreModelSwitch", payload, match_target="claude-opus-5")
    assert [h.fate for h in listing.handlers] == ["no_match"]
    unresolved = s.fire_sync("PreModelSwitch", payload)
    assert unresolved.blocking
    assert [d.code for d in unresolved.decision.diagnostics] == ["matcher_unresolved"]


def test_every_capability_name_is_accepted(world: World) -> None:
    for name in ["updated-input", "pre-tool-use-updated-input", "permission-request-updated-input", "defer"]:
        world.session(capabilities=[name])
    with pytest.raises(ValueError, match="defer"):
        world.session(capabilities=["nope"])


def test_plugin_dirs_join_the_snapshot(world: World) -> None:
    plugin = world.root / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "demo", "version": "1.0.0"}))
    (plugin / "hooks").mkdir()
    (plugin / "hooks" / "hooks.json").write_text(json.dumps(group("Stop", [prints({"systemMessage": "from the plugin"})])))
    s = world.session(plugin_dirs=[plugin])
    r = s.fire_sync("Stop", STOP)
    assert r.decision.notices == ["from the plugin"], s.list().to_dict()
    assert [h.layer for h in s.list().handlers] == ["plugin"]


def test_bad_input_raises_clear_errors(world: World) -> None:
    s = world.session()
    with pytest.raises(ValueError, match="did you mean 'PreToolUse'"):
        s.fire_sync("PreToolUs", bash("ls"))
    # docs/claude-code-contract.md#cc-F86: a PreToolUse or PermissionRequest payload that
    # cannot be matched is denied, not raised; other events' payloads still raise.
    denied = s.fire_sync("PreToolUse", {"tool_input": {}})
    assert denied.blocking and denied.matched == []
    assert denied.decision.permission.behavior == "deny"
    assert denied.decision.permission.reason.startswith("Hook matching failed: ")
    assert "tool_name" in denied.decision.permission.reason
    assert [d.code for d in denied.decision.diagnostics] == ["invalid_payload"]
    with pytest.raises(ValueError, match="prompt"):
        s.fire_sync("UserPromptSubmit", {})
    with pytest.raises(ValueError, match="Invalid hook matcher"):
        world.session(hooks={"PreToolUse": [HookMatcher(matcher="(", hooks=[lambda *a: {}])]})
    with pytest.raises(ValueError, match="unknown profile"):
        world.session(profile="nope")


def test_secrets_stay_out_unless_allowed(world: World) -> None:
    world.write_user(group("Stop", [sh("env > \"$CLAUDE_PROJECT_DIR/env.txt\"")]))
    env = dict(world.env, API_TOKEN="s3cret", OTHER_TOKEN="x")
    world.session(env=env).fire_sync("Stop", STOP)
    assert "s3cret" not in (world.project / "env.txt").read_text()
    world.session(env=env, allow_env=["API_TOKEN"]).fire_sync("Stop", STOP)
    text = (world.project / "env.txt").read_text()
    assert "API_TOKEN=s3cret" in text and "OTHER_TOKEN" not in text


def test_the_readme_example_runs(tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    example = readme.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(example.splitlines()) < 25
    (tmp_path / "home").mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DEEPAGENTS_HOME": str(tmp_path / "home")}
    out = subprocess.run([sys.executable, "-c", example], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "True Cannot modify .env files\n"


def test_fires_append_receipts_unless_turned_off(world: World) -> None:
    # README "Receipts": one record per handler of the event, callbacks included; the result
    # carries the journal position; receipts=False writes none.
    world.write_user(group("PreToolUse", [prints(pre_tool_use(additionalContext="u"))]))

    def plain(input_data, tool_use_id, context):
        return pre_tool_use(additionalContext="cb")

    s = world.session(hooks={"PreToolUse": [HookMatcher(hooks=[plain])]})
    payload = dict(bash("ls"), session_id="py-s1")
    result = run(s.fire("PreToolUse", payload))
    assert result.receipt is not None
    assert result.receipt["seq"] == 2
    journal = Path(result.receipt["journal"])
    assert journal == world.home / ".state" / "receipts" / "py-s1.jsonl"
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [r["fate"] for r in records] == ["ran", "ran"]
    assert [r["origin"]["layer"] for r in records] == ["user", "callback"]
    assert records[1]["hash"] == result.receipt["hash"]
    assert "additionalContext" not in journal.read_text()

    off = world.session(receipts=False)
    result = run(off.fire("PreToolUse", dict(bash("ls"), session_id="py-s2")))
    assert result.receipt is None
    assert not (world.home / ".state" / "receipts" / "py-s2.jsonl").exists()


def test_profile_claude_code_reads_the_claude_code_settings_layers(world: World) -> None:
    claude = world.project / ".claude"
    claude.mkdir()
    (claude / "settings.json").write_text(json.dumps(group("Stop", [prints({"systemMessage": "from .claude"})])))
    # The deepagents profile does not read Claude Code's files.
    assert world.session(trust_project_hooks=True).fire_sync("Stop", STOP).matched == []
    s = world.session(profile="claude-code", trust_project_hooks=True, home=world.root / "claude-home")
    assert s.list().to_dict()["profile"] == "claude-code"
    r = s.fire_sync("Stop", STOP)
    assert r.matched == ["Stop:0:0"], s.list().to_dict()
    assert r.decision.notices == ["from .claude"]
    assert [h.layer for h in s.list().handlers] == ["project"]


def test_profile_claude_code_finds_claude_code_plugins_under_claude_config_dir(world: World) -> None:
    # Claude Code's own install of a plugin, enabled by the user's settings.
    config = world.root / "claude-config"
    plugin = config / "plugins" / "cache" / "m" / "demo" / "1.0.0"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "demo", "version": "1.0.0"}))
    (plugin / "hooks").mkdir()
    (plugin / "hooks" / "hooks.json").write_text(json.dumps(group("Stop", [prints({"systemMessage": "from the plugin"})])))
    installed = {"version": 2, "plugins": {"demo@m": [{"installPath": str(plugin), "version": "1.0.0"}]}}
    (config / "plugins" / "installed_plugins.json").write_text(json.dumps(installed))
    (config / "settings.json").write_text(json.dumps({"enabledPlugins": {"demo@m": True}}))
    env = dict(world.env, CLAUDE_CONFIG_DIR=str(config))
    s = world.session(profile="claude-code", env=env, home=None)
    r = s.fire_sync("Stop", STOP)
    assert r.decision.notices == ["from the plugin"], s.list().to_dict()
    assert [h.layer for h in s.list().handlers] == ["plugin"]


def test_capabilities_are_separate_from_the_profile(world: World) -> None:
    rewrite = prints({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "ls -a"}}})
    world.write_user(group("PreToolUse", [rewrite]))
    plain = world.session().fire_sync("PreToolUse", bash("ls"))
    assert plain.decision.to_dict().get("updated_input") is None
    for caps in (["updated-input"], "updated-input", ["pre-tool-use-updated-input"]):
        r = world.session(capabilities=caps).fire_sync("PreToolUse", bash("ls"))
        assert r.decision.to_dict()["updated_input"] == {"command": "ls -a"}, caps


def test_the_old_profile_spellings_name_the_new_parameters(world: World) -> None:
    with pytest.raises(ValueError, match=r"capabilities=\['updated-input'\]"):
        world.session(profile="agent-sdk")
    with pytest.raises(ValueError, match="profile='deepagents'"):
        world.session(profile="deep-agents")


def test_a_failed_handler_says_why_in_its_run(world: World) -> None:
    world.write_user(group("Stop", [sh("cat >/dev/null; echo 'foreman was not found on PATH' >&2; exit 127")]))
    r = world.session().fire_sync("Stop", STOP)
    run = r.handlers[0]
    assert (run.exit_code, run.stderr_line) == (127, "foreman was not found on PATH")
    assert run.to_dict()["stderr_line"] == "foreman was not found on PATH"
    # The diagnostic stays the reference's.
    assert [d.message for d in r.decision.diagnostics] == ["Hook exited with status 127"]


def test_detached_work_outlives_a_normal_exit_unless_containment_is_strict(world: World) -> None:
    # docs/spec.md#spec-15.15: a handler that exits on its own leaves what it detached
    # running; strict_containment=True kills every descendant with it.
    for strict in (False, True):
        pid_file = world.root / f"worker-{strict}"
        world.write_user(group("PreToolUse", [sh(f"sleep 30 </dev/null >/dev/null 2>&1 & echo $! > {pid_file}")]))
        result = world.session(strict_containment=strict).fire_sync("PreToolUse", bash("ls"))
        assert result.handlers[0].exit_code == 0
        worker = int(pid_file.read_text())
        deadline = time.monotonic() + 3
        while strict and alive(worker) and time.monotonic() < deadline:
            time.sleep(0.01)
        survived = alive(worker)
        if survived:
            os.kill(worker, 9)
        assert survived is not strict, f"strict={strict}: worker alive={survived}"


def test_profile_codex_runs_a_hook_once_its_definition_is_trusted(world: World) -> None:
    # Codex's user file in its home; each hook runs only once trusted by its hash.
    home = world.root / "codex-home"
    home.mkdir()
    deny = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "not here"}}
    (home / "hooks.json").write_text(json.dumps(group("PreToolUse", [prints(deny)], matcher="^Bash$")))
    s = world.session(profile="codex", home=home)
    listing = s.list().to_dict()
    assert listing["profile"] == "codex"
    [row] = listing["handlers"]
    assert row["status"] == "untrusted", row
    assert row["trust_key"] == f"{home / 'hooks.json'}:pre_tool_use:0:0"
    assert row["trust_hash"].startswith("sha256:")
    assert s.fire_sync("PreToolUse", bash("ls")).matched == []
    # The record `hooks --profile codex trust` writes.
    state = home / ".state"
    state.mkdir(exist_ok=True)
    (state / "codex_hook_trust.json").write_text(json.dumps({"version": 1, "hooks": {row["trust_key"]: row["trust_hash"]}}))
    r = world.session(profile="codex", home=home).fire_sync("PreToolUse", bash("ls"))
    assert r.matched == ["PreToolUse:0:0"]
    assert r.decision.to_dict()["permission"]["behavior"] == "deny"
    assert r.decision.to_dict()["permission"]["reason"] == "not here"


def test_profile_cursor_fires_cursors_own_event_names(world: World) -> None:
    # Cursor's flat user file; the host fires Cursor's event, which runs as PreToolUse
    # and answers only that event's entries (docs/cursor.md, "Events").
    home = world.root / "cursor-home"
    home.mkdir()
    deny = "cat >/dev/null; echo 'no network' >&2; exit 2"
    (home / "hooks.json").write_text(json.dumps({"version": 1, "hooks": {
        "beforeShellExecution": [{"command": deny, "matcher": "curl|wget"}],
        "preToolUse": [{"command": deny}],
    }}))
    s = world.session(profile="cursor", home=home)
    payload = {"conversation_id": "c1", "hook_event_name": "beforeShellExecution",
               "command": "curl https://x", "cwd": str(world.project), "sandbox": False}
    r = s.fire_sync("beforeShellExecution", payload)
    assert (r.event, r.host_event) == ("PreToolUse", "beforeShellExecution")
    assert r.matched == ["beforeShellExecution:0:0"]
    assert r.decision.to_dict()["permission"] == {"behavior": "deny", "reason": "no network",
                                                   "interrupt": False}
    assert s.fire_sync("beforeShellExecution", dict(payload, command="ls")).matched == []
    with pytest.raises(ValueError, match="did you mean 'beforeShellExecution'"):
        s.fire_sync("beforeShellExecutio", payload)


def test_profile_cursor_callbacks_name_cursor_events_and_answer_cursor_outputs(world: World) -> None:
    # A callback group under profile="cursor" names a Cursor event, answers only it, gets
    # Cursor's payload and answers with Cursor's flat output (docs/cursor.md, "Callbacks").
    home = world.root / "cursor-home"
    home.mkdir()
    seen = []

    async def no_rm(input_data, tool_use_id, context):
        seen.append(input_data)
        return {"permission": "deny", "agent_message": "no rm -rf"}

    s = world.session(profile="cursor", home=home,
                      hooks={"beforeShellExecution": [HookMatcher(matcher="rm -rf", hooks=[no_rm])]})
    payload = {"conversation_id": "c1", "hook_event_name": "beforeShellExecution",
               "command": "rm -rf /tmp/x", "cwd": str(world.project), "sandbox": False}
    r = run(s.fire("beforeShellExecution", payload))
    assert r.matched == ["beforeShellExecution:callback:0:0"]
    assert r.decision.to_dict()["permission"] == {"behavior": "deny", "reason": "no rm -rf",
                                                   "interrupt": False}
    assert seen == [payload]
    assert s.fire_sync("beforeShellExecution", dict(payload, command="ls")).matched == []
    tool = {"conversation_id": "c1", "tool_name": "Shell", "tool_input": {"command": "rm -rf /"},
            "tool_use_id": "t", "cwd": str(world.project)}
    assert s.fire_sync("preToolUse", tool).matched == []
    with pytest.raises(ValueError, match="did you mean 'preToolUse'"):
        world.session(profile="cursor", home=home, hooks={"PreToolUse": [HookMatcher(hooks=[no_rm])]})


def test_profile_cursor_cloud_runs_the_project_hooks_and_not_the_users(world: World) -> None:
    # A Cursor cloud agent runs the command hooks of the enterprise, team and project files
    # only (docs/cursor.md, "Cloud agents").
    home = world.root / "cursor-home"
    home.mkdir()
    deny = "cat >/dev/null; echo '{}' >&2; exit 2"
    (home / "hooks.json").write_text(json.dumps({"version": 1, "hooks": {
        "beforeShellExecution": [{"command": deny.format("user")}]}}))
    (world.project / ".cursor").mkdir()
    (world.project / ".cursor" / "hooks.json").write_text(json.dumps({"version": 1, "hooks": {
        "beforeShellExecution": [{"command": "cat >/dev/null; exit 0"}]}}))
    payload = {"conversation_id": "c1", "command": "ls", "cwd": str(world.project), "sandbox": False}
    local = world.session(profile="cursor", home=home, trust_project_hooks=True)
    assert local.fire_sync("beforeShellExecution", payload).decision.to_dict()["permission"]["reason"] == "user"
    cloud = world.session(profile="cursor", home=home, trust_project_hooks=True, cloud=True)
    r = cloud.fire_sync("beforeShellExecution", payload)
    assert r.decision.to_dict()["permission"]["behavior"] == "none"
    assert r.matched == ["beforeShellExecution:0:0"]
    with pytest.raises(ValueError, match="cloud=True needs profile 'cursor'"):
        world.session(cloud=True)


def test_profile_cursor_third_party_runs_claude_code_files(world: World) -> None:
    # Cursor's third-party setting: Claude Code's settings files load, and the host fires
    # their Claude Code events (docs/cursor.md, "Claude Code files").
    home = world.root / "cursor-home"
    home.mkdir()
    (world.project / ".claude").mkdir()
    (world.project / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "cat >/dev/null; echo claude >&2; exit 2"}]}]}}))
    s = world.session(profile="cursor", home=home, trust_project_hooks=True, third_party=True)
    r = s.fire_sync("PreToolUse", bash("ls"))
    assert r.decision.to_dict()["permission"]["reason"] == "claude"
    with pytest.raises(ValueError, match="did you mean 'preToolUse'"):
        world.session(profile="cursor", home=home).fire_sync("PreToolUse", bash("ls"))
    with pytest.raises(ValueError, match="third_party=True needs profile 'cursor'"):
        world.session(third_party=True)
