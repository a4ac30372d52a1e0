//! `attend explain` for people (`docs/cli.md`): the `Explain` dictionary, read as JSON,
//! rendered as lines — the deciding evidence, every rung's reading, the pane's health.

use super::render;
use serde_json::{json, Value as Json};

fn s(v: &Json) -> String {
    match v {
        Json::Null => "-".into(),
        Json::String(s) => render::escape_controls(s),
        other => other.to_string(),
    }
}

/// `3.2 s` from milliseconds.
fn age(v: &Json) -> String {
    match v.as_i64() {
        Some(ms) => format!("{:.1} s", ms as f64 / 1000.0),
        None => "-".into(),
    }
}

/// One piece of evidence on one line: `rung source "note" (trust, 1.2 s ago)`.
fn evidence_line(e: &Json) -> String {
    if e.is_null() {
        return "no fresh evidence (unknown beats a confident wrong answer)".into();
    }
    format!(
        "{} {} {} ({}, {} ago)",
        s(&e["rung"]),
        s(&e["source"]),
        json!(e["note"].as_str().unwrap_or("")),
        s(&e["trust"]),
        age(&e["age_ms"])
    )
}

/// `attend explain` for people, from the `Explain` dictionary as JSON.
pub fn explain_text(x: &Json) -> String {
    let mut out = String::new();
    let mut line =
        |k: &str, v: String| out.push_str(&format!("{k:<14}{}\n", render::escape_controls(&v)));
    line(
        "pane",
        format!(
            "{} ({}), lifecycle {}, attention {}, live {}",
            s(&x["pane"]),
            s(&x["agent"]),
            s(&x["lifecycle"]),
            s(&x["attention"]),
            s(&x["live"])
        ),
    );
    line("display", s(&x["display"]));
    line(
        "activity",
        format!(
            "{} ← {}",
            s(&x["activity"]),
            evidence_line(&x["activity_evidence"])
        ),
    );
    let reason = match &x["needs_input_reason"] {
        Json::String(r) => format!(" {r:?}"),
        _ => String::new(),
    };
    let needs_by = if !x["needs_input_evidence"].is_null() {
        evidence_line(&x["needs_input_evidence"])
    } else if x["needs_input_count"].as_u64().unwrap_or(0) > 0 {
        "the open decision".to_string()
    } else {
        "nothing open".to_string()
    };
    line(
        "needs-input",
        format!("{}{reason} ← {needs_by}", s(&x["needs_input_count"])),
    );
    if !x["lifecycle_source"].is_null() {
        line(
            "lifecycle by",
            format!(
                "{} at {} (seq {})",
                s(&x["lifecycle_source"]),
                s(&x["lifecycle_at"]),
                s(&x["lifecycle_seq"])
            ),
        );
    }
    if !x["attention_source"].is_null() {
        line(
            "attention by",
            format!("{} at {}", s(&x["attention_source"]), s(&x["attention_at"])),
        );
    }
    let ch = &x["chrome"];
    let nearest = match ch["nearest_rule"].as_str() {
        Some(r) => format!(
            "; nearest {r} ({}/{} gates)",
            s(&ch["nearest_satisfied"]),
            s(&ch["nearest_total"])
        ),
        None => String::new(),
    };
    // A dialog closed without a hook: the rule whose closed screen shows.
    let closed = match ch["closed_rule"].as_str() {
        Some(r) => format!("; closed {r}"),
        None => String::new(),
    };
    line(
        "chrome",
        format!(
            "matched {}{nearest}{closed}; manifest {}",
            s(&ch["matched_rule"]),
            s(&ch["manifest"])
        ),
    );
    if let Some(sr) = x["self_report"].as_object() {
        line(
            "self-report",
            format!("pid {} {}", s(&sr["pid"]), s(&sr["path"])),
        );
    }
    let rows: Vec<Vec<String>> = x["rungs"]
        .as_array()
        .map(|rs| {
            rs.iter()
                .map(|r| {
                    let claim = match (&r["claims_activity"], &r["claims_needs_input"]) {
                        (Json::Null, Json::Null) => "-".to_string(),
                        (a, Json::Null) => s(a),
                        (a, n) => format!("{} needs={}", s(a), s(n)),
                    };
                    vec![
                        s(&r["rung"]),
                        s(&r["coverage"]),
                        s(&r["trust"]),
                        claim,
                        render::truncate(r["note"].as_str().unwrap_or("-"), 44),
                        age(&r["age_ms"]),
                    ]
                })
                .collect()
        })
        .unwrap_or_default();
    out.push('\n');
    out.push_str(&render::table(
        &["RUNG", "COVERAGE", "TRUST", "CLAIM", "LAST EVIDENCE", "AGE"],
        &rows,
    ));
    out.push_str("\nrung health:\n");
    match x["health"].as_array().filter(|h| !h.is_empty()) {
        None => out.push_str("  (no trust change)\n"),
        Some(hs) => {
            for h in hs {
                out.push_str(&format!(
                    "  {}  {} {} → {}: {}\n",
                    s(&h["at"]),
                    s(&h["rung"]),
                    s(&h["from"]),
                    s(&h["to"]),
                    s(&h["reason"])
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explain_text_names_the_deciding_evidence_and_health() {
        let x = json!({
            "pane": "p1", "agent": "claude", "lifecycle": "blocked", "attention": "permission_required",
            "live": "running", "display": "needs-input", "activity": "idle-at-prompt",
            "activity_evidence": {"rung": "self-report", "source": "claude.sessions/7.json",
                "note": "status=waiting", "trust": "authoritative", "age_ms": 1200},
            "needs_input_count": 1, "needs_input_reason": "permission prompt",
            "chrome": {"manifest": "shipped data/manifests/claude.toml", "nearest_rule": "permission-dialog",
                "nearest_satisfied": 3, "nearest_total": 4},
            "rungs": [{"rung": "self-report", "coverage": "full", "trust": "authoritative",
                "claims_activity": "idle-at-prompt", "claims_needs_input": 1, "note": "status=waiting", "age_ms": 1200}],
            "health": [{"at": "2026-11-30T05:00:00.000Z", "rung": "lifecycle-hooks", "from": "authoritative",
                "to": "identity-only", "reason": "contradiction"}],
        });
        let t = explain_text(&x);
        assert!(
            t.contains("idle-at-prompt ← self-report claude.sessions/7.json"),
            "{t}"
        );
        assert!(t.contains("(authoritative, 1.2 s ago)"), "{t}");
        assert!(
            t.contains("1 \"permission prompt\" ← the open decision"),
            "{t}"
        );
        assert!(t.contains("nearest permission-dialog (3/4 gates)"), "{t}");
        assert!(
            t.contains("lifecycle-hooks authoritative → identity-only: contradiction"),
            "{t}"
        );
        let none_open = explain_text(&json!({"activity": "working", "needs_input_count": 0}));
        assert!(none_open.contains("0 ← nothing open"), "{none_open}");
        let empty = explain_text(&json!({"activity": "unknown"}));
        assert!(
            empty.contains("unknown beats a confident wrong answer"),
            "{empty}"
        );
        assert!(empty.contains("(no trust change)"));
    }
}
