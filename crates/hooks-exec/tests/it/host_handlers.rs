//! Host-delegated handlers through the library (docs/claude-code-contract.md#cc-8): a host's
//! [`HostHandlers`] answers prompt, agent and mcp_tool handlers; the session enforces the
//! timeout and cancels the call.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hooks_core::{Event, Invocation, Profile, payload::CommonDefaults};
use hooks_exec::{Fired, HostCall, HostFuture, HostHandlers, Session, SessionOptions};
use serde_json::{Value, json};

use crate::support::TempDir;

/// A host that answers with a function of the request, and records what it was asked.
struct TestHost {
    kinds: &'static [&'static str],
    reply: fn(&Value) -> Option<Result<Value, String>>,
    asked: Mutex<Vec<Value>>,
    /// Set when a call's context was cancelled while the host was still working on it.
    saw_cancel: Arc<AtomicBool>,
}

impl HostHandlers for TestHost {
    fn answers(&self, kind: &str) -> bool {
        self.kinds.contains(&kind)
    }

    fn answer(&self, call: HostCall) -> HostFuture {
        let request = call.request.to_json();
        self.asked.lock().unwrap().push(request.clone());
        let reply = (self.reply)(&request);
        let saw_cancel = Arc::clone(&self.saw_cancel);
        let mut context = call.context;
        Box::pin(async move {
            match reply {
                Some(reply) => reply,
                None => {
                    // Never answers; work started elsewhere learns of the cancellation.
                    tokio::spawn(async move {
                        context.cancelled().await;
                        saw_cancel.store(true, Ordering::SeqCst);
                    });
                    std::future::pending().await
                }
            }
        })
    }
}

struct World {
    tmp: TempDir,
}

impl World {
    fn new(settings: Value) -> Self {
        let tmp = TempDir::new();
        for dir in ["project/.git", "home"] {
            std::fs::create_dir_all(tmp.path().join(dir)).unwrap();
        }
        std::fs::write(tmp.path().join("home/settings.json"), settings.to_string()).unwrap();
        World { tmp }
    }

    fn fire(&self, host: Option<Arc<TestHost>>, event: Event, payload: Value) -> Fired {
        let mut o = SessionOptions::new(self.tmp.path().join("project"));
        o.home = Some(self.tmp.path().join("home"));
        o.profile = Profile::ClaudeCode;
        o.host_handlers = host.map(|h| h as Arc<dyn HostHandlers>);
        let session = Session::start(o).unwrap();
        let defaults = CommonDefaults::new("s-1", "", "/p");
        let invocation = Invocation::from_host_json(event, &payload, &defaults).unwrap().0;
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let fired = rt.block_on(session.fire(invocation));
        // Let the host's own task see the cancellation before the runtime goes.
        rt.block_on(async { tokio::time::sleep(Duration::from_millis(50)).await });
        fired
    }
}

fn host(
    kinds: &'static [&'static str],
    reply: fn(&Value) -> Option<Result<Value, String>>,
) -> Arc<TestHost> {
    Arc::new(TestHost {
        kinds,
        reply,
        asked: Mutex::new(Vec::new()),
        saw_cancel: Arc::new(AtomicBool::new(false)),
    })
}

fn codes(f: &Fired) -> Vec<&str> {
    f.decision.diagnostics.iter().map(|d| d.code.as_str()).collect()
}

fn stop() -> Value {
    json!({"last_assistant_message": "Done."})
}

/// 8.4: a prompt's `ok:false` on Stop keeps the agent going with the reason; the request
/// carries the rendered prompt (8.2: `$ARGUMENTS` replaced by the payload, `\$` kept).
#[test]
fn a_prompt_refusal_keeps_a_stop_going() {
    let w = World::new(json!({"hooks": {"Stop": [{"hooks": [
        {"type": "prompt", "prompt": "Costs \\$5. Judge: $ARGUMENTS"}]}]}}));
    let h = host(&["prompt"], |_| Some(Ok(json!({"ok": false, "reason": "tests fail"}))));
    let f = w.fire(Some(Arc::clone(&h)), Event::Stop, stop());
    assert!(f.decision.continue_loop, "{:?}", f.decision);
    assert_eq!(f.decision.feedback, ["tests fail"]);
    let asked = h.asked.lock().unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["kind"], "prompt");
    assert_eq!(asked[0]["timeout_ms"], 30_000);
    let prompt = asked[0]["prompt"].as_str().unwrap();
    assert!(prompt.starts_with("Costs $5. Judge: {"), "{prompt}");
    assert!(prompt.contains(r#""last_assistant_message":"Done.""#), "{prompt}");
    assert!(!prompt.contains("\n\n"), "with $ARGUMENTS nothing is appended: {prompt}");
    assert_eq!(asked[0]["input"]["last_assistant_message"], "Done.");

    // `ok:true` adds nothing; `impossible:true` on a prompt: no continuation (F40).
    let h = host(&["prompt"], |_| Some(Ok(json!({"ok": true}))));
    assert!(!w.fire(Some(h), Event::Stop, stop()).decision.continue_loop);
    let h =
        host(&["prompt"], |_| Some(Ok(json!({"ok": false, "reason": "R", "impossible": true}))));
    assert!(!w.fire(Some(h), Event::Stop, stop()).decision.continue_loop);
}

/// F42 through the library: the mcp_tool arguments are filled from the payload and the
/// tool's text is parsed like stdout; `isError` is a non-blocking error.
#[test]
fn an_mcp_tool_reply_is_parsed_like_stdout() {
    let w = World::new(json!({"hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [
        {"type": "mcp_tool", "server": "sec", "tool": "scan",
         "input": {"file": "${tool_input.file_path}", "n": "${tool_input.n}", "missing": "${nope}"}}]}]}}));
    let payload = json!({"tool_name": "Write", "tool_input": {"file_path": "/p/a.ts", "n": 3},
        "tool_response": {}, "tool_use_id": "t1"});
    let h = host(&["mcp_tool"], |_| {
        Some(Ok(json!({"content": [{"type": "text", "text": "{\"decision\": \"block\","},
            {"type": "image", "data": "x"}, {"type": "text", "text": "\"reason\": \"x\"}"}], "isError": false})))
    });
    let f = w.fire(Some(Arc::clone(&h)), Event::PostToolUse, payload.clone());
    assert_eq!(f.decision.feedback, ["x"]);
    let asked = h.asked.lock().unwrap();
    assert_eq!(asked[0]["arguments"], json!({"file": "/p/a.ts", "n": 3, "missing": ""}));
    assert_eq!(asked[0]["server"], "sec");
    assert_eq!(codes(&f), ["mcp_input_path_missing"]);

    let h = host(&["mcp_tool"], |_| {
        Some(Ok(
            json!({"content": [{"type": "text", "text": "scanner crashed\nmore"}], "isError": true}),
        ))
    });
    let f = w.fire(Some(h), Event::PostToolUse, payload);
    assert!(f.decision.feedback.is_empty());
    assert!(!f.decision.is_blocking());
    let failed = f.decision.diagnostics.iter().find(|d| d.code == "host_handler_failed").unwrap();
    assert!(failed.message.ends_with("returned an error: scanner crashed"), "{}", failed.message);
}

/// 8.1: a host that never answers: at the handler's timeout the call's context is
/// cancelled and the result is `timeout`, never a block.
#[test]
fn a_host_that_never_answers_is_a_timeout_and_its_call_is_cancelled() {
    let w = World::new(json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "prompt", "prompt": "p", "timeout": 1}]}]}}));
    let h = host(&["prompt"], |_| None);
    let payload = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t"});
    let f = w.fire(Some(Arc::clone(&h)), Event::PreToolUse, payload);
    assert_eq!(codes(&f), ["timeout"]);
    assert!(f.handlers[0].timed_out);
    assert!(!f.decision.is_blocking());
    assert!(h.saw_cancel.load(Ordering::SeqCst), "the host's task saw the cancellation");
}

/// 8.5: kinds the host does not answer are skipped with a `handler_needs_host` info, the
/// host is never asked; an error the host returns is `host_handler_failed`.
#[test]
fn kinds_the_host_does_not_answer_are_skipped() {
    let w = World::new(json!({"hooks": {"Stop": [{"hooks": [
        {"type": "agent", "prompt": "a"}, {"type": "prompt", "prompt": "p"}]}]}}));
    let h = host(&["prompt"], |_| Some(Err("model offline".into())));
    let f = w.fire(Some(Arc::clone(&h)), Event::Stop, stop());
    assert_eq!(codes(&f), ["handler_needs_host", "host_handler_failed"]);
    assert_eq!(f.decision.diagnostics[0].severity, hooks_core::diag::Severity::Info);
    assert_eq!(f.decision.diagnostics[1].message, "Host handler Stop:0:1 failed: model offline");
    assert_eq!(h.asked.lock().unwrap().len(), 1, "only the prompt handler was asked");
    assert!(!f.decision.continue_loop);
}
