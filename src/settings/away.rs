//! The `[away]` table of `config.toml` (`docs/away.md#configuration`): pushing a gate
//! or question that stays open while the user is away from the desk to a phone, through
//! ntfy or a generic webhook. Off by default.
//!
//! ```toml
//! [away]
//! enabled = true
//! delay = "60s"                      # humantime; default 60 s
//! ntfy_server = "https://ntfy.sh"    # default
//! ntfy_topic = "attend-…"            # ntfy when set
//! ntfy_token = "tk_…"                # optional: `Authorization: Bearer …`
//! webhook_url = "https://…"          # a JSON POST when set
//! include_text = false               # default: no command or message in the push
//! ```

use super::problem::Problem;
use std::fmt;
use std::time::Duration;
use toml_edit::{Item, TableLike};

/// How long a gate or question must stay open while the user is away before it is
/// pushed, when `delay` is not set (`docs/decisions/0012-away-push-rule.md`).
pub const DEFAULT_AWAY_DELAY: Duration = Duration::from_secs(60);
/// The ntfy server when `ntfy_server` is not set.
pub const DEFAULT_NTFY_SERVER: &str = "https://ntfy.sh";

const KEYS: [&str; 7] = [
    "enabled",
    "delay",
    "ntfy_server",
    "ntfy_topic",
    "ntfy_token",
    "webhook_url",
    "include_text",
];

/// A value that is never shown: its `Debug` and `Display` print `<redacted>` (the ntfy
/// token; `docs/away.md#privacy`).
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps `value`.
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The value itself, for the one place that sends it (the `Authorization` header).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// Where to publish on ntfy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ntfy {
    /// The server's base URL (`http://` or `https://`, no trailing slash).
    pub server: String,
    pub topic: String,
    /// Sent as `Authorization: Bearer TOKEN`; never logged.
    pub token: Option<Secret>,
}

/// The `[away]` settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Away {
    /// `enabled`: off by default; on with no transport nothing is pushed (a problem).
    pub enabled: bool,
    /// `delay`: [`DEFAULT_AWAY_DELAY`] unless set; longer than zero.
    pub delay: Duration,
    /// ntfy, when `ntfy_topic` is set.
    pub ntfy: Option<Ntfy>,
    /// `webhook_url`: a JSON POST (`docs/away.md#webhook`); never logged (it may carry a
    /// secret in its path).
    pub webhook: Option<Secret>,
    /// `include_text`: the gate's command or the question's text in the push; off by
    /// default (`docs/away.md#privacy`).
    pub include_text: bool,
}

impl Default for Away {
    fn default() -> Away {
        Away {
            enabled: false,
            delay: DEFAULT_AWAY_DELAY,
            ntfy: None,
            webhook: None,
            include_text: false,
        }
    }
}

impl Away {
    /// Whether anything is pushed: enabled, with ntfy or a webhook.
    pub fn active(&self) -> bool {
        self.enabled && (self.ntfy.is_some() || self.webhook.is_some())
    }

    /// Reads the `[away]` table; each bad entry is a [`Problem`] and keeps its default.
    pub fn read(&mut self, table: &dyn TableLike, problems: &mut Vec<Problem>) {
        let mut server = DEFAULT_NTFY_SERVER.to_string();
        let mut topic = None;
        let mut token = None;
        for (key, item) in table.iter() {
            let entry = format!("away.{key}");
            match key {
                "enabled" | "include_text" => match item.as_bool() {
                    Some(b) if key == "enabled" => self.enabled = b,
                    Some(b) => self.include_text = b,
                    None => problems.push(Problem::new(
                        entry,
                        format!("{} is not true or false", shown(item)),
                    )),
                },
                "delay" => match item.as_str().map(|v| humantime::parse_duration(v.trim())) {
                    Some(Ok(d)) if !d.is_zero() => self.delay = d,
                    Some(Ok(_)) => problems.push(Problem::new(entry, "must be longer than zero")),
                    _ => problems.push(Problem::new(
                        entry,
                        format!(
                            "{} is not a duration (accepted: a humantime duration such as \
                             \"60s\", \"2m\")",
                            shown(item)
                        ),
                    )),
                },
                "ntfy_server" | "webhook_url" => match item.as_str().filter(|u| is_http_url(u)) {
                    Some(u) if key == "ntfy_server" => server = u.trim_end_matches('/').to_string(),
                    Some(u) => self.webhook = Some(Secret::new(u)),
                    None => problems.push(Problem::new(
                        entry,
                        "not a URL (accepted: an http:// or https:// URL)",
                    )),
                },
                "ntfy_topic" => match item.as_str().filter(|t| is_topic(t)) {
                    Some(t) => topic = Some(t.to_string()),
                    None => problems.push(Problem::new(
                        entry,
                        "not an ntfy topic (accepted: 1 to 64 of A-Z, a-z, 0-9, - and _)",
                    )),
                },
                "ntfy_token" => match item.as_str().filter(|t| is_token(t)) {
                    Some(t) => token = Some(Secret::new(t)),
                    // Never the value: it may be a token with a typo.
                    None => problems.push(Problem::new(
                        entry,
                        "not a token (accepted: a string of printable ASCII without spaces)",
                    )),
                },
                other => problems.push(Problem::unknown_key("away", other, &KEYS)),
            }
        }
        self.ntfy = topic.map(|topic| Ntfy {
            server,
            topic,
            token,
        });
        if self.enabled && !self.active() {
            problems.push(Problem::new(
                "away.enabled",
                "no ntfy_topic or webhook_url (accepted: either or both); nothing is pushed",
            ));
        }
    }
}

/// An item as the user wrote it, cut short (for a problem's message; never a token).
fn shown(item: &Item) -> String {
    let s = item.to_string();
    let s = s.trim();
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

fn is_http_url(u: &str) -> bool {
    let rest = u
        .strip_prefix("http://")
        .or_else(|| u.strip_prefix("https://"));
    rest.is_some_and(|r| {
        !r.is_empty() && !r.starts_with('/') && u.chars().all(|c| c.is_ascii_graphic())
    })
}

/// An ntfy topic name (ntfy allows `[-_A-Za-z0-9]{1,64}`).
fn is_topic(t: &str) -> bool {
    (1..=64).contains(&t.len())
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn is_token(t: &str) -> bool {
    !t.is_empty() && t.chars().all(|c| c.is_ascii_graphic())
}

#[cfg(test)]
mod tests {
    use super::super::Settings;
    use super::*;

    #[test]
    fn off_by_default_and_read_entry_by_entry() {
        let (s, problems) = Settings::parse("");
        assert_eq!(problems, []);
        assert_eq!(s.away, Away::default());
        assert!(!s.away.active());
        assert_eq!(s.away.delay, Duration::from_secs(60));

        let (s, problems) = Settings::parse(
            "[away]\nenabled = true\ndelay = \"2s\"\nntfy_server = \"http://127.0.0.1:9/\"\n\
             ntfy_topic = \"attend_x-1\"\nntfy_token = \"tk_abc\"\n\
             webhook_url = \"http://127.0.0.1:9/hook\"\ninclude_text = true\n",
        );
        assert_eq!(problems, []);
        let a = s.away;
        assert!(a.active() && a.include_text);
        assert_eq!(a.delay, Duration::from_secs(2));
        let ntfy = a.ntfy.unwrap();
        assert_eq!(ntfy.server, "http://127.0.0.1:9");
        assert_eq!(ntfy.topic, "attend_x-1");
        assert_eq!(ntfy.token.as_ref().map(Secret::expose), Some("tk_abc"));
        assert_eq!(format!("{:?}", ntfy.token), "Some(<redacted>)");
        assert_eq!(
            a.webhook.as_ref().map(Secret::expose),
            Some("http://127.0.0.1:9/hook")
        );
    }

    #[test]
    fn bad_entries_are_problems_and_keep_their_defaults() {
        let (s, problems) = Settings::parse(
            "[away]\nenabled = \"yes\"\ndelay = \"soon\"\nntfy_topic = \"a b\"\n\
             ntfy_token = \"tk secret\"\nwebhook_url = \"ftp://x\"\nloud = 1\n",
        );
        let entries: Vec<&str> = problems.iter().map(|p| p.entry.as_str()).collect();
        assert_eq!(
            entries,
            [
                "away.enabled",
                "away.delay",
                "away.ntfy_topic",
                "away.ntfy_token",
                "away.webhook_url",
                "away.loud"
            ]
        );
        assert!(problems.iter().all(|p| !p.message.contains("secret")));
        assert_eq!(s.away, Away::default());
        // Enabled without a transport: one problem, nothing pushed.
        let (s, problems) = Settings::parse("[away]\nenabled = true\n");
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].entry, "away.enabled");
        assert!(!s.away.active());
        let (_, problems) = Settings::parse("[away]\ndelay = \"0s\"\n");
        assert_eq!(problems[0].entry, "away.delay");
    }
}
