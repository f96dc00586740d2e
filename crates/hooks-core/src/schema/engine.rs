//! `JsonSchema` for the values the engine reports to hosts: [`Decision`], [`Permission`],
//! [`PermissionBehavior`] and [`Effect`].
//!
//! Their `Serialize` impls are written by hand (keys depend on the event, `None` is written
//! as `null`), so their schemas are too, key for key; the tests serialize real decisions
//! and effects of every event and check them against these schemas. Every object lists all
//! the keys it may hold (`additionalProperties: false`), so a key added to a `Serialize`
//! impl fails those tests until it is described here.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value, json};

use crate::diag::Diagnostic;
use crate::reduce::{Decision, Permission, PermissionBehavior};
use crate::render::Effect;

/// An object schema with `properties`, the `required` keys and no other key.
fn object(description: &str, properties: Value, required: &[&str]) -> Value {
    json!({
        "description": description,
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// An object schema whose every property is required.
fn closed(description: &str, properties: Value) -> Value {
    let keys: Vec<String> =
        properties.as_object().map(|p| p.keys().cloned().collect()).unwrap_or_default();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    object(description, properties, &keys)
}

fn schema(value: Value) -> Schema {
    match value {
        Value::Object(map) => Schema::from(map),
        _ => Schema::from(Map::new()),
    }
}

fn string_or_null(description: &str) -> Value {
    json!({"description": description, "type": ["string", "null"]})
}

fn strings(description: &str) -> Value {
    json!({"description": description, "type": "array", "items": {"type": "string"}})
}

impl JsonSchema for PermissionBehavior {
    fn schema_name() -> Cow<'static, str> {
        "permission_behavior".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schema(json!({
            "description": "The winning permission outcome: `none` (nobody decided), `allow`, `ask`, `defer` (claude-code with the host capability `defer`) or `deny`.",
            "type": "string",
            "enum": ["none", "allow", "ask", "defer", "deny"],
        }))
    }
}

impl JsonSchema for Permission {
    fn schema_name() -> Cow<'static, str> {
        "permission".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        schema(closed(
            "The permission part of a decision (PreToolUse, PermissionRequest).",
            json!({
                "behavior": generator.subschema_for::<PermissionBehavior>(),
                "reason": string_or_null("The reason of the first handler that reached the winning rank."),
                "interrupt": {"description": "PermissionRequest deny with `interrupt: true`: abandon the batch.", "type": "boolean"},
            }),
        ))
    }
}

impl JsonSchema for Decision {
    fn schema_name() -> Cow<'static, str> {
        "decision".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        schema(object(
            "The reduced result of one event invocation. Check `continue` first.",
            json!({
                "continue": {"description": "False when a handler stopped processing (or a stop-type block happened).", "type": "boolean"},
                "stop_reason": string_or_null("The first stop reason, in configuration order."),
                "notices": strings("`systemMessage`s for the user, in configuration order."),
                "terminal_sequences": strings("Accepted `terminalSequence`s, in configuration order."),
                "permission": generator.subschema_for::<Permission>(),
                "context": strings("Context for the model, in configuration order."),
                "feedback": strings("Feedback: PostToolUse block reasons, Stop continuation messages."),
                "continue_loop": {"description": "Stop: keep the turn going with the feedback (claude-code SubagentStop, and TaskCompleted and TeammateIdle on exit 2, too; present only when true).", "type": "boolean"},
                "suppress_original_prompt": {"description": "UserPromptSubmit only: drop the prompt text.", "type": "boolean"},
                "updated_input": {"description": "A rewritten tool input; present only when set.", "type": "object"},
                "updated_permissions": {"description": "PermissionRequest (claude-code): every allow's permission updates, in order; present only when set.", "type": "array", "items": {"type": "object"}},
                "updated_tool_output": {"description": "PostToolUse (claude-code): what the model sees instead of the tool output; present only when set."},
                "updated_mcp_tool_output": {"description": "PostToolUse (claude-code): the legacy MCP form of `updated_tool_output`; present only when set."},
                "classifier_context": {"description": "PostToolUse (claude-code): the auto-mode classifier note, at most 2,000 characters; present only when set.", "type": "string"},
                "session_title": {"description": "SessionStart, UserPromptSubmit (claude-code): the session title; present only when set.", "type": "string"},
                "initial_user_message": {"description": "SessionStart (claude-code): the first user turn of a non-interactive run; present only when set.", "type": "string"},
                "watch_paths": strings("SessionStart (claude-code), CwdChanged, FileChanged: paths FileChanged watches, first-seen order; present only when set (or with `watch_paths_replace`)."),
                "reload_skills": {"description": "SessionStart (claude-code): the host rescans skills; present only when true.", "const": true},
                "watch_paths_replace": {"description": "CwdChanged, FileChanged: `watch_paths` replaces the dynamic watch list (empty: clears it); present only when true.", "const": true},
                "retry": {"description": "PermissionDenied: the model is told it may retry; present only when true.", "const": true},
                "display_content": {"description": "MessageDisplay: displayed instead of the delta; present only when set.", "type": "string"},
                "worktree_path": {"description": "WorktreeCreate: the created worktree's absolute path; present only when set.", "type": "string"},
                "worktree_failed": {"description": "WorktreeCreate: a handler failed or none gave a path; present only when true.", "const": true},
                "elicitation": {
                    "description": "Elicitation, ElicitationResult: the hooks' answer; present only when set.",
                    "type": "object",
                    "properties": {
                        "action": {"enum": ["accept", "decline", "cancel", null]},
                        "content": {"type": "object"},
                    },
                    "required": ["action"],
                },
                "config_change_blocked": {"description": "ConfigChange: the change is not applied (never for policy_settings); present only when true.", "const": true},
                "env_file": {"description": "Claude-code: the session's CLAUDE_ENV_FILE, present when it is not empty after the handlers; the host sources it before later Bash commands.", "type": "string"},
                "env_file_vars": {"description": "The `export NAME=VALUE` pairs of `env_file`, quotes removed, last assignment winning; present with `env_file`.", "type": "object", "additionalProperties": {"type": "string"}},
                "session_env": {"description": "Cursor: the variables sessionStart handlers set for every later handler of the conversation (their `env`), the highest-priority value of each; present when any is set.", "type": "object", "additionalProperties": {"type": "string"}},
                "plugin_paths": {"description": "Cursor: the plugin folders workspaceOpen handlers name (their `pluginPaths`), absolute, in priority order, each once; present when any is named.", "type": "array", "items": {"type": "string"}},
                "diagnostics": {
                    "description": "Every diagnostic of the invocation, in order.",
                    "type": "array",
                    "items": generator.subschema_for::<Diagnostic>(),
                },
                "async_pending": {
                    "description": "Claude-code: the ids of the background handlers (`async`, `asyncRewake`, a command that detached) this invocation started and did not wait for, in configuration order; each delivers later (serve: an `async_result` notification). Present only when not empty.",
                    "type": "array",
                    "items": {"type": "string"},
                    "minItems": 1,
                },
            }),
            &[
                "continue",
                "stop_reason",
                "notices",
                "terminal_sequences",
                "context",
                "feedback",
                "diagnostics",
            ],
        ))
    }
}

impl JsonSchema for Effect {
    fn schema_name() -> Cow<'static, str> {
        "effect".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let ctx = || string_or_null("Context lines joined by newlines, if any.");
        let review = json!({"oneOf": [
            {"type": "null"},
            closed("Approve the call.", json!({"type": {"const": "approve"}})),
            object(
                "Reject the call, with the model-visible reason if any.",
                json!({"type": {"const": "reject"}, "message": {"type": "string"}}),
                &["type"],
            ),
        ]});
        schema(json!({
            "description": "What Deep Agents Code does with the decision; one shape per outcome.",
            "oneOf": [
                closed("PreToolUse: the tool does not run; `tool_result` is what the model sees.", json!({
                    "outcome": {"const": "deny"},
                    "reason": {"type": "string"},
                    "tool_result": {"type": "string"},
                    "appended_context": ctx(),
                })),
                closed("PreToolUse: the permission prompt is forced.", json!({
                    "outcome": {"const": "ask"},
                    "prompt_description": {"type": "string"},
                    "appended_context": ctx(),
                })),
                closed("PreToolUse: the tool runs without the ordinary prompt.", json!({
                    "outcome": {"const": "allow"},
                    "appended_context": ctx(),
                })),
                closed("PreToolUse (claude-code, capability `defer`): the call is paused for later.", json!({
                    "outcome": {"const": "defer"},
                })),
                closed("PreToolUse: nobody decided; the normal approval flow applies.", json!({
                    "outcome": {"const": "normal_approval"},
                    "appended_context": ctx(),
                })),
                closed("PermissionRequest: the prompt's answer, when a hook gave one.", json!({
                    "review_decision": review,
                    "interrupt": {"type": "boolean"},
                    "resolved_by_hook": {"type": "boolean"},
                })),
                closed("Stop: the agent stops.", json!({"continue_turn": {"const": false}})),
                closed("Stop: the turn continues with this user message.", json!({
                    "continue_turn": {"const": true},
                    "injected_user_message": {"type": "string"},
                    "next_continuation_count": {"type": "integer", "minimum": 0},
                })),
                closed("UserPromptSubmit, SessionStart: the prompt or session is stopped.", json!({
                    "ok": {"const": false},
                    "stop_reason": {"type": "string"},
                })),
                closed("UserPromptSubmit: the prompt goes on.", json!({
                    "ok": {"const": true},
                    "system_context": string_or_null("Context lines joined by blank lines, if any."),
                    "suppress_original_prompt": {"type": "boolean"},
                })),
                closed("SessionStart: the session goes on.", json!({
                    "ok": {"const": true},
                    "pending_context": string_or_null("Context lines joined by blank lines, if any."),
                })),
                closed("PostToolUse, PostToolUseFailure: text appended to the tool result.", json!({
                    "appended_to_tool_result": string_or_null("Feedback, context and stop reason, joined by blank lines."),
                })),
                closed("PreCompact.", json!({
                    "compaction_proceeds": {"type": "boolean"},
                    "reason": string_or_null("The reason when compaction is blocked."),
                })),
                closed("SubagentStart: the subagent is not started.", json!({
                    "outcome": {"const": "deny"},
                    "tool_result": {"type": "string"},
                })),
                closed("SubagentStart: the subagent starts.", json!({
                    "description_prefix": string_or_null("Context lines prefixed to the task description."),
                })),
                closed("SubagentStop (claude-code): the subagent goes on with this instruction.", json!({
                    "continue_subagent": {"const": true},
                    "injected_message": {"type": "string"},
                    "next_continuation_count": {"type": "integer", "minimum": 0},
                })),
                closed("SubagentStop: text appended to the task result.", json!({
                    "appended_to_task_result": string_or_null("Context lines joined by newlines, if any."),
                })),
                closed("Notification.", json!({
                    "stop_raised": {"type": "boolean"},
                    "stop_reason": string_or_null("The reason when a hook stopped processing."),
                })),
                closed("PreModelSwitch: what becomes of the switch (`deny` cancels it, `ask` has the user confirm, `allow` skips the warm-cache confirmation, `none` is the host's normal flow).", json!({
                    "outcome": {"enum": ["deny", "ask", "allow", "none"]},
                    "reason": string_or_null("The deny reason, or the ask's prompt text."),
                })),
                closed("PostModelSwitch: context for the next model request.", json!({
                    "next_request_context": string_or_null("Context lines joined by blank lines, if any."),
                })),
                closed("SessionEnd: nothing to do.", json!({})),
            ],
        }))
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use schemars::generate::SchemaSettings;
    use serde_json::{Value, json};

    use crate::diag::Diagnostic;
    use crate::event::Event;
    use crate::reduce::{Decision, PermissionBehavior, ReduceContext};
    use crate::render::{Effect, render_effect};

    /// The schema of `T` as a document: the root and its `$defs`.
    fn document<T: schemars::JsonSchema>() -> Value {
        SchemaSettings::draft2020_12()
            .for_serialize()
            .into_generator()
            .into_root_schema_for::<T>()
            .to_value()
    }

    /// Decisions of every event with every combination of the fields rendering looks at.
    fn decisions() -> Vec<Decision> {
        let mut out = Vec::new();
        for event in Event::ALL {
            for stopped in [false, true] {
                for behavior in [
                    PermissionBehavior::None,
                    PermissionBehavior::Allow,
                    PermissionBehavior::Ask,
                    PermissionBehavior::Defer,
                    PermissionBehavior::Deny,
                ] {
                    for filled in [false, true] {
                        let mut d = Decision::new(event);
                        d.continue_processing = !stopped;
                        d.permission.behavior = behavior;
                        if filled {
                            d.stop_reason = Some("stop".into());
                            d.permission.reason = Some("why".into());
                            d.permission.interrupt = true;
                            d.notices.push("notice".into());
                            d.terminal_sequences.push("\u{1b}]0;t\u{7}".into());
                            d.context.push("context".into());
                            d.feedback.push("feedback".into());
                            d.continue_loop = matches!(event, Event::Stop | Event::SubagentStop);
                            d.updated_permissions.push(json!({"type": "setMode", "mode": "plan", "destination": "session"}));
                            d.updated_tool_output = Some(json!("out"));
                            d.updated_mcp_tool_output = Some(json!({"content": []}));
                            d.classifier_context = Some("note".into());
                            d.session_title = Some("title".into());
                            d.initial_user_message = Some("hi".into());
                            d.watch_paths.push("/p/a".into());
                            d.reload_skills = true;
                            d.suppress_original_prompt = true;
                            d.updated_input = json!({"command": "ls"}).as_object().cloned();
                            d.diagnostics.push(
                                Diagnostic::warning("unknown_field", "m")
                                    .with_handler(format!("{event}:0:0")),
                            );
                        }
                        out.push(d);
                    }
                }
            }
        }
        out
    }

    #[test]
    fn every_decision_and_effect_validates_against_its_schema() {
        let decision = document::<Decision>();
        let effect = document::<Effect>();
        let alternatives = effect["oneOf"].as_array().expect("effect shapes").len();
        let mut shapes_seen = vec![false; alternatives];
        for d in decisions() {
            let value = serde_json::to_value(&d).expect("serializes");
            assert_eq!(hooks_tests::schema::validate(&decision, &value), Ok(()), "{value}");
            let ctx = ReduceContext {
                stop_continuations: 1,
                stop_hook_active: false,
                ..ReduceContext::default()
            };
            let rendered =
                serde_json::to_value(render_effect(&d, Some("Bash"), &ctx)).expect("serializes");
            assert_eq!(hooks_tests::schema::validate(&effect, &rendered), Ok(()), "{rendered}");
            for (i, shape) in effect["oneOf"].as_array().into_iter().flatten().enumerate() {
                let one = json!({"$defs": effect.get("$defs"), "allOf": [shape]});
                shapes_seen[i] |= hooks_tests::schema::validate(&one, &rendered).is_ok();
            }
        }
        // Every shape the schema lists is one the engine renders (PermissionRequest's
        // review answers come from hook output, so they are not reached here).
        let unseen: Vec<usize> = (0..alternatives).filter(|i| !shapes_seen[*i]).collect();
        assert_eq!(unseen, Vec::<usize>::new(), "effect shapes never rendered");
    }

    #[test]
    fn schemas_reject_what_the_engine_never_writes() {
        let decision = document::<Decision>();
        let mut value = serde_json::to_value(Decision::new(Event::PreToolUse)).expect("json");
        value["permission"]["behavior"] = json!("maybe");
        assert!(hooks_tests::schema::validate(&decision, &value).is_err());
        let mut value = serde_json::to_value(Decision::new(Event::Stop)).expect("json");
        value["kind"] = json!("stop");
        assert!(hooks_tests::schema::validate(&decision, &value).is_err());
        let effect = document::<Effect>();
        for wrong in [
            json!({"kind": "deny"}),
            json!({"outcome": "deny", "tool_result": "x", "reason": "y"}),
            json!({"continue_turn": true}),
            json!({"ok": true}),
        ] {
            assert!(hooks_tests::schema::validate(&effect, &wrong).is_err(), "{wrong}");
        }
        let review = serde_json::to_value(Effect::PermissionReview {
            review: Some(crate::render::ReviewDecision::Reject { message: Some("no".into()) }),
            interrupt: false,
        })
        .expect("json");
        assert_eq!(hooks_tests::schema::validate(&effect, &review), Ok(()), "{review}");
    }
}
