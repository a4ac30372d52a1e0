//! Sending away pushes (`docs/away.md#delivery`) with `ureq` on tokio's blocking pool,
//! one at a time in the order they were decided (a follow-up never overtakes its push):
//!
//! - ntfy: `POST SERVER/` with the JSON publish body (`topic`, `title`, `message`,
//!   `tags`, `priority`), and `Authorization: Bearer TOKEN` when a token is set.
//! - webhook: `POST URL` with the [`Message`] as JSON (`Content-Type:
//!   application/json`).
//!
//! One attempt each (bounded by [`SEND_LIMIT`]); a failure is logged as a warning. The
//! token and the webhook URL never appear in the log: errors are scrubbed of both, and
//! the `Authorization` value is marked sensitive.

use super::message::{Message, Phase};
use crate::settings::{Away, Ntfy, Secret};
use tokio::sync::mpsc;

/// How long one request may take, connection included.
pub const SEND_LIMIT: std::time::Duration = std::time::Duration::from_secs(15);

/// Where pushes go.
#[derive(Debug, Clone)]
pub struct Targets {
    pub ntfy: Option<Ntfy>,
    pub webhook: Option<Secret>,
}

impl Targets {
    /// The targets `[away]` names.
    pub fn of(away: &Away) -> Targets {
        Targets {
            ntfy: away.ntfy.clone(),
            webhook: away.webhook.clone(),
        }
    }
}

/// ntfy's JSON publish body for `m` on `topic`.
pub fn ntfy_body(m: &Message, topic: &str) -> serde_json::Value {
    let (tags, priority) = match m.event {
        Phase::Open => (["bell", m.kind], 4),
        Phase::Resolved => (["white_check_mark", m.kind], 3),
    };
    serde_json::json!({
        "topic": topic,
        "title": m.ntfy_title(),
        "message": m.ntfy_message(),
        "tags": tags,
        "priority": priority,
    })
}

/// `text` with every secret in `secrets` replaced by `<redacted>`.
fn scrub(text: &str, secrets: &[&str]) -> String {
    secrets
        .iter()
        .filter(|s| !s.is_empty())
        .fold(text.to_string(), |t, s| t.replace(s, "<redacted>"))
}

fn post_json(
    agent: &ureq::Agent,
    url: &str,
    bearer: Option<&Secret>,
    body: &serde_json::Value,
) -> Result<u16, String> {
    let mut req = agent.post(url).header("Content-Type", "application/json");
    let mut secrets = vec![url];
    if let Some(token) = bearer {
        let mut value = ureq::http::HeaderValue::from_str(&format!("Bearer {}", token.expose()))
            .map_err(|_| "the token is no header value".to_string())?;
        value.set_sensitive(true);
        req = req.header("Authorization", value);
        secrets.push(token.expose());
    }
    match req.send(body.to_string()) {
        Ok(r) => Ok(r.status().as_u16()),
        Err(e) => Err(scrub(&e.to_string(), &secrets)),
    }
}

/// Sends `m` to every target: per target, its name and the outcome.
fn deliver(
    agent: &ureq::Agent,
    targets: &Targets,
    m: &Message,
) -> Vec<(&'static str, Result<u16, String>)> {
    let mut out = Vec::new();
    if let Some(n) = &targets.ntfy {
        let url = format!("{}/", n.server);
        out.push((
            "ntfy",
            post_json(agent, &url, n.token.as_ref(), &ntfy_body(m, &n.topic)),
        ));
    }
    if let Some(w) = &targets.webhook {
        let body = serde_json::to_value(m).unwrap_or_default();
        out.push(("webhook", post_json(agent, w.expose(), None, &body)));
    }
    out
}

/// Sends each message of `rx` to `targets`, in order, until the channel closes.
pub async fn run(mut rx: mpsc::UnboundedReceiver<Message>, targets: Targets) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(SEND_LIMIT))
        .build()
        .into();
    while let Some(m) = rx.recv().await {
        let (a, t, msg) = (agent.clone(), targets.clone(), m.clone());
        let Ok(results) = tokio::task::spawn_blocking(move || deliver(&a, &t, &msg)).await else {
            continue;
        };
        let event = match m.event {
            Phase::Open => "open",
            Phase::Resolved => "resolved",
        };
        for (transport, r) in results {
            match r {
                Ok(status) => tracing::info!(
                    transport,
                    event,
                    pane = %m.pane,
                    kind = m.kind,
                    status,
                    "away push sent"
                ),
                Err(e) => tracing::warn!(
                    transport,
                    event,
                    pane = %m.pane,
                    "away push failed: {e}"
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_scrubbed_of_secrets() {
        assert_eq!(
            scrub("io: http://h/x?k=tk_1 tk_1", &["http://h/x?k=tk_1", "tk_1"]),
            "io: <redacted> <redacted>"
        );
        assert_eq!(scrub("plain", &[""]), "plain");
    }
}
