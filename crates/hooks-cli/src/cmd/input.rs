//! The invocation the command line gives (`hooks run`, `hooks list --payload`): the
//! payload (a file, `-` or the JSON), the common fields it lacks, read under the profile.

use std::io::Read as _;
use std::path::Path;

use anyhow::{Context as _, anyhow};
use hooks_core::payload::{
    CommonDefaults, PayloadError, defaulted_keys, example_payload, host_required_keys,
};
use hooks_core::{Diagnostic, Event, Invocation};
use serde_json::Value;

use crate::context::Ctx;
use crate::layers::absolute;

/// What `event`'s payload needs, for messages: its required fields, the fields defaulted
/// with a warning (docs/claude-code-contract.md#cc-5.2) and its example.
fn payload_needs(event: Event) -> String {
    let required = host_required_keys(event);
    let defaulted = match defaulted_keys(event) {
        [] => String::new(),
        keys => format!(", and {} defaulted with a payload_defaulted warning", keys.join(", ")),
    };
    format!(
        "{event} needs {} (session_id, transcript_path, cwd and permission_mode are filled \
         when absent{defaulted}); for example {}",
        if required.is_empty() { "no field".to_owned() } else { required.join(", ") },
        example_payload(event)
    )
}

/// A payload error as people read it: a payload that is not an object or lacks a
/// required field also says what the event needs.
pub(crate) fn payload_error(err: &PayloadError) -> String {
    match err {
        PayloadError::NotAnObject { event } => format!("{err}; {}", payload_needs(*event)),
        PayloadError::MissingField { event, field } if !field.contains(['.', '[']) => {
            format!("{err}; {}", payload_needs(*event))
        }
        _ => err.to_string(),
    }
}

/// What the command line gives of an invocation besides the event.
#[derive(Debug, Default)]
pub(crate) struct Given<'a> {
    /// `--payload`: a file, `-` or the JSON; `None` fires the example payload.
    pub payload: Option<&'a str>,
    /// `--session-id`; `None` makes a fresh UUID v4.
    pub session_id: Option<&'a str>,
    /// `--transcript-path`.
    pub transcript_path: Option<&'a str>,
    /// `--cwd`.
    pub cwd: Option<&'a Path>,
    /// `--match-target`: the target the host resolved (PreModelSwitch, PostModelSwitch;
    /// docs/claude-code-contract.md#cc-17.3); not part of the payload.
    pub match_target: Option<&'a str>,
    /// `--bridge HOST` and the host's event name: the payload is in that host's shape.
    pub bridge: Option<(hooks_core::bridge::BridgeHost, &'a str)>,
    /// The host's event, in a profile whose host names its own (cursor).
    pub host_event: Option<&'a str>,
}

/// A payload that is JSON but not a valid payload of its event: the message and the
/// `tool_name` it names, if any.
#[derive(Debug)]
pub(crate) struct PayloadInvalid {
    /// The error as people read it (with what the event needs).
    pub message: String,
    /// The error alone.
    pub error: String,
    pub tool_name: Option<String>,
}

/// Reads the invocation of `event` the command line gives, under the profile, and
/// prints its payload warnings.
pub(crate) fn read_invocation(
    cx: &mut Ctx<'_>,
    event: Event,
    given: &Given<'_>,
) -> anyhow::Result<(Invocation, Vec<Diagnostic>)> {
    read_checked_invocation(cx, event, given)?.map_err(|invalid| anyhow!(invalid.message))
}

/// [`read_invocation`], with a payload that is JSON but invalid for its event as
/// `Ok(Err(_))` (`hooks run` denies such a PreToolUse or PermissionRequest,
/// docs/claude-code-contract.md#cc-17.12).
pub(crate) fn read_checked_invocation(
    cx: &mut Ctx<'_>,
    event: Event,
    given: &Given<'_>,
) -> anyhow::Result<Result<(Invocation, Vec<Diagnostic>), PayloadInvalid>> {
    let value = match given.payload {
        Some(payload) => read_payload(cx, payload)?,
        None => {
            let example = example_payload(event);
            let _ = writeln!(
                cx.err,
                "{} no --payload: firing {event} with its example payload {example} (a \
                 try-out; give --payload FILE, - or JSON for a real event)",
                cx.err_style.dim("hooks:"),
            );
            example
        }
    };
    let value = match given.bridge {
        Some((host, name)) => host.canonical(name, &value).map_err(|e| anyhow!(e))?.1,
        None => value,
    };
    let cwd = given.cwd.map(|c| absolute(c, &cx.env.cwd));
    let defaults = CommonDefaults {
        session_id: match given.session_id {
            Some(id) => id.to_owned(),
            None => crate::uuid::v4().context("cannot make a session id")?,
        },
        transcript_path: given.transcript_path.unwrap_or_default().to_owned(),
        cwd: cwd.unwrap_or_else(|| cx.env.cwd.clone()).display().to_string(),
        permission_mode: Some("default".to_owned()),
    };
    let profile = crate::layers::profile(cx.global, cx.env)?;
    let host = given.host_event.and_then(|name| profile.host_event(name));
    let read = Invocation::from_invoked_json(
        profile,
        (event, host),
        &value,
        &defaults,
        given.match_target,
    );
    let (invocation, warnings) = match read {
        Ok(read) => read,
        Err(e) => {
            let tool_name = value.get("tool_name").and_then(Value::as_str).map(str::to_owned);
            let (message, error) = (payload_error(&e), e.to_string());
            return Ok(Err(PayloadInvalid { message, error, tool_name }));
        }
    };
    for w in &warnings {
        cx.warn(format!("payload: {}", w.message));
    }
    if host.is_none() && given.match_target.is_some() && !event.target_from_invocation() {
        let key = event.matcher_target().unwrap_or("nothing: it takes no matcher");
        cx.warn(format!(
            "--match-target has no effect on {event}: its groups match the payload's {key}"
        ));
    }
    Ok(Ok((invocation, warnings)))
}

/// Reads `--payload`: `-` is stdin, an existing file is read, text starting with `{` is
/// the JSON itself.
fn read_payload(cx: &mut Ctx<'_>, payload: &str) -> anyhow::Result<Value> {
    let (bytes, what) = match payload {
        "-" => {
            let mut bytes = Vec::new();
            cx.stdin.read_to_end(&mut bytes).context("cannot read the payload from stdin")?;
            (bytes, "stdin".to_owned())
        }
        text if text.trim_start().starts_with('{') => {
            (text.as_bytes().to_vec(), "--payload".to_owned())
        }
        file => {
            let path = absolute(Path::new(file), &cx.env.cwd);
            let bytes = std::fs::read(&path)
                .with_context(|| format!("cannot read the payload file {file}"))?;
            (bytes, file.to_owned())
        }
    };
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| anyhow!("the payload in {what} is not UTF-8: {e}"))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    serde_json::from_str(text).map_err(|e| anyhow!("the payload in {what} is not valid JSON: {e}"))
}
