"""Python functions answering prompt, agent and mcp_tool handlers (CLAUDE-CODE.md 8):
the request they get, the reply's effect, failures, timeouts, and kinds not answered."""

from __future__ import annotations

import asyncio

from conftest import World, group

STOP = {"last_assistant_message": "Done."}


def run(coro):
    return asyncio.run(coro)


def test_a_prompt_refusal_keeps_a_stop_going(world: World) -> None:
    world.write_user(group("Stop", [{"type": "prompt", "prompt": "Finished? $ARGUMENTS", "model": "fast"}]))
    asked = []

    def model(request):
        asked.append(request)
        return {"ok": False, "reason": "run the tests first"}

    s = world.session(host_handlers={"prompt": model})
    r = s.fire_sync("Stop", STOP)
    assert r.decision.continue_loop is True
    assert r.decision.feedback == ["run the tests first"]
    [request] = asked
    assert (request["kind"], request["handler_id"], request["event"]) == ("prompt", "Stop:0:0", "Stop")
    assert request["model"] == "fast" and request["timeout_ms"] == 30000
    assert request["prompt"].startswith('Finished? {') and '"last_assistant_message":"Done."' in request["prompt"]
    assert request["input"]["last_assistant_message"] == "Done."


def test_coroutines_answer_mcp_tool_handlers(world: World) -> None:
    world.write_user(group("PostToolUse", [
        {"type": "mcp_tool", "server": "sec", "tool": "scan", "input": {"file": "${tool_input.file_path}"}},
    ], matcher="Write"))

    async def tool(request):
        await asyncio.sleep(0)
        assert request["arguments"] == {"file": "/p/a.ts"}
        return {"content": [{"type": "text", "text": '{"decision": "block", "reason": "secret in a.ts"}'}],
                "isError": False}

    async def main():
        s = world.session(host_handlers={"mcp_tool": tool})
        return await s.fire("PostToolUse", {"tool_name": "Write", "tool_input": {"file_path": "/p/a.ts"},
                                            "tool_response": {}, "tool_use_id": "t1"})

    r = run(main())
    assert r.decision.feedback == ["secret in a.ts"]


def test_failures_timeouts_and_kinds_not_answered(world: World) -> None:
    world.write_user({"hooks": {"Stop": [{"hooks": [
        {"type": "prompt", "prompt": "p"},
        {"type": "agent", "prompt": "a"},
        {"type": "mcp_tool", "server": "s", "tool": "t", "timeout": 0.3},
    ]}]}})
    state = {}

    def prompt(request):
        raise RuntimeError("model offline")

    async def slow(request):
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            state["cancelled"] = True
            raise
        return {}

    async def main():
        s = world.session(host_handlers={"prompt": prompt, "mcp_tool": slow})
        r = await s.fire("Stop", STOP)
        for _ in range(1000):
            if state:
                break
            await asyncio.sleep(0.001)
        return r

    r = run(main())
    codes = {d.handler_id: d.code for d in r.decision.diagnostics}
    assert codes == {"Stop:0:0": "host_handler_failed", "Stop:0:1": "handler_needs_host",
                     "Stop:0:2": "timeout"}
    failed = next(d for d in r.decision.diagnostics if d.code == "host_handler_failed")
    assert "model offline" in failed.message
    assert state == {"cancelled": True}, "the timed-out call's task was cancelled"
    assert not r.blocking and r.decision.continue_loop is False


def test_payload_diagnostics_say_what_was_defaulted(world: World) -> None:
    world.write_user(group("Stop", [{"type": "command", "command": "cat >/dev/null"}]))
    r = world.session().fire_sync("Stop", {})
    fields = sorted(d.field for d in r.payload_diagnostics if d.code == "payload_defaulted")
    assert fields == ["background_tasks", "last_assistant_message", "session_crons"]
