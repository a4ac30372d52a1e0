//! A payload over the limit keeps its event (docs/adapters.md, "Never block, never fail,
//! never lose"): an agent's hook may carry a tool's whole input (Claude Code's `Write` of
//! a 1.1 MB file in its `PermissionRequest`), and refusing the payload whole would lose
//! the gate the user must answer. Its long strings are cut instead, so what Attend reads
//! (the event, the session, the tool and the start of its input) still arrives.

/// The longest string (bytes) a payload over the limit keeps whole; a longer one keeps
/// its first this many bytes (at a character boundary) and says how much was cut.
pub const KEEP: usize = 8 * 1024;

/// `payload` when it is at most `limit` bytes; else, when it is JSON, the same JSON with
/// every string longer than [`KEEP`] bytes cut to its first [`KEEP`] bytes followed by
/// `… [N bytes cut by Attend]`. Anything else is returned as it is (the size check that
/// follows refuses it).
pub fn within_limit(payload: String, limit: usize) -> String {
    if payload.len() <= limit {
        return payload;
    }
    let Ok(mut value) = serde_json::from_str::<serde_json::Value>(&payload) else {
        return payload;
    };
    cut(&mut value);
    value.to_string()
}

fn cut(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(s) if s.len() > KEEP => {
            let mut end = KEEP;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            let dropped = s.len() - end;
            s.truncate(end);
            s.push_str(&format!("… [{dropped} bytes cut by Attend]"));
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(cut),
        serde_json::Value::Object(map) => map.values_mut().for_each(cut),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A `PermissionRequest` for a `Write` of 1.1 MB keeps its event, session and tool,
    /// and the start of the content.
    #[test]
    fn a_gate_over_the_limit_keeps_its_event_with_its_long_strings_cut() {
        let content = "é".repeat(600_000);
        let payload = json!({
            "hook_event_name": "PermissionRequest",
            "session_id": "s1",
            "tool_name": "Write",
            "tool_input": {"file_path": "/tmp/big.txt", "content": content},
        })
        .to_string();
        assert!(payload.len() > 1_048_576);
        let sent = within_limit(payload, 1_048_576);
        assert!(sent.len() < 20_000, "{}", sent.len());
        let v: serde_json::Value = serde_json::from_str(&sent).unwrap();
        assert_eq!(v["hook_event_name"], "PermissionRequest");
        assert_eq!(v["tool_input"]["file_path"], "/tmp/big.txt");
        let kept = v["tool_input"]["content"].as_str().unwrap();
        assert!(kept.starts_with("éé"), "{}", &kept[..10]);
        assert!(
            kept.ends_with("bytes cut by Attend]"),
            "{}",
            &kept[kept.len() - 40..]
        );
    }

    #[test]
    fn a_payload_within_the_limit_or_not_json_is_left_alone() {
        let small = json!({"hook_event_name": "Stop", "x": "y".repeat(20_000)}).to_string();
        assert_eq!(within_limit(small.clone(), 1_048_576), small);
        let junk = "z".repeat(2_000_000);
        assert_eq!(within_limit(junk.clone(), 1_048_576), junk);
    }
}
