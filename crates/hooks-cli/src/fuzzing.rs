//! Fuzz target bodies of this crate, shared by the `fuzz/` targets and the regression
//! tests (`tests/fuzz_regressions.rs`). Not part of the stable API; compiled only with the
//! `fuzzing` feature (and in this crate's unit tests).

use hooks_core::{Invocation, Profile, payload::CommonDefaults};
use serde_json::Value;

use crate::cmd::serve::{Request, parse_request};

/// The `serve` target: `data` is what a host writes to `hooks serve`'s stdin; each line
/// goes through the request parser, in each profile.
///
/// Checks, beyond "does not panic": an error response is `{"id", "error": {"code",
/// "message"}}` with a JSON-RPC code, serializes to one line, and carries the request's id
/// once one was read; an `event` request's invocation writes wire bytes that read back.
pub fn serve(data: &[u8]) {
    let defaults = CommonDefaults::new("fuzz-session", "", "/fuzz");
    for line in data.split_inclusive(|b| *b == b'\n') {
        for profile in Profile::ALL {
            match parse_request(line, (profile, false), &defaults) {
                Ok(request) => check_request(line, &request, profile),
                Err(response) => {
                    check_error(line, &serde_json::to_value(&response).unwrap_or_default())
                }
            }
        }
    }
}

fn check_request(line: &[u8], request: &Request, profile: Profile) {
    let (id, invocation) = match request {
        Request::Blank => {
            assert!(line.iter().all(u8::is_ascii_whitespace), "non-blank line taken as blank");
            return;
        }
        Request::Event { id, invocation, .. } => (id, Some(invocation)),
        Request::HostReply { id, .. } => {
            // Only a line without `method` is a host reply, and its id is the line's.
            let value: Value = serde_json::from_slice(line).unwrap_or_default();
            assert!(value.get("method").is_none(), "a request taken as a host reply");
            assert_eq!(value.get("id").and_then(Value::as_str), Some(id.as_str()));
            return;
        }
        Request::Reload { id }
        | Request::Unmatchable { id, .. }
        | Request::List { id, .. }
        | Request::Shutdown { id }
        | Request::Session { id, .. } => (id, None),
    };
    let id = &serde_json::to_value(id).unwrap_or_default();
    assert!(id.is_string() || id.is_number(), "request id {id}");
    assert_eq!(Some(id), request_id(line).as_ref(), "request id differs from the line's");
    if let Some(invocation) = invocation {
        let wire = invocation.to_wire();
        let value: Value = match serde_json::from_slice(&wire) {
            Ok(v) => v,
            Err(e) => panic!("wire bytes are not JSON ({e})"),
        };
        if profile.rules().payload_verbatim {
            // The wire is the host's payload with the common keys it lacked: the event's
            // name and string session and folder, whatever else it holds.
            let event = invocation.event().name();
            assert_eq!(value.get("hook_event_name").and_then(Value::as_str), Some(event));
            for key in ["session_id", "cwd"] {
                assert!(value.get(key).is_some_and(Value::is_string), "wire {key}: {value}");
            }
        } else {
            let again = Invocation::from_json(invocation.event(), &value);
            assert!(again.is_ok(), "wire bytes do not read back: {again:?}");
        }
    }
}

fn check_error(line: &[u8], response: &Value) {
    let text = serde_json::to_string(response).unwrap_or_default();
    assert!(!text.is_empty() && !text.contains('\n'), "response is not one line: {text}");
    let code = response.pointer("/error/code").and_then(Value::as_i64);
    assert!(
        matches!(code, Some(-32700 | -32600 | -32601 | -32602)),
        "unexpected error code: {text}"
    );
    assert!(response.pointer("/error/message").is_some_and(Value::is_string), "{text}");
    let id = response.get("id");
    assert!(id.is_some_and(|id| id.is_null() || id.is_string() || id.is_number()), "{text}");
    if let (Some(id), Some(want)) = (id, request_id(line)) {
        assert!(id.is_null() || *id == want, "error id {id} for a request with id {want}");
    }
}

/// The line's `id`, when it is a JSON object with a string or number id.
fn request_id(line: &[u8]) -> Option<Value> {
    let value: Value = serde_json::from_slice(line).ok()?;
    value.get("id").filter(|id| id.is_string() || id.is_number()).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_every_kind_pass_the_checks() {
        serve(b"\n \r\n{\"id\":1,\"method\":\"list\"}\n{\"id\":\"a\",\"method\":\"nope\"}\n[1]\n{\"id\":2,\"method\":\"event\",\"params\":{\"event\":\"Stop\"}}\n{\"id\":true}\n\xFF\n");
    }

    #[test]
    fn request_id_reads_string_and_number_ids_only() {
        assert_eq!(request_id(br#"{"id": 7}"#), Some(Value::from(7)));
        assert_eq!(request_id(br#"{"id": "x"}"#), Some(Value::from("x")));
        assert_eq!(request_id(br#"{"id": null}"#), None);
        assert_eq!(request_id(b"[]"), None);
        assert_eq!(request_id(b"{"), None);
    }
}
