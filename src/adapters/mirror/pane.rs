//! One remote pane as this machine holds it: its id `NAME:pN`, its workspace keyed by
//! host, its values in the local vocabulary (or raw and degraded) and its strings cleaned
//! (`docs/remote.md#how-remote-panes-are-mirrored`).

use super::vocab::{self, Vocab};
use crate::model::{AgentKind, Attention, DecisionKind, HostName, Lifecycle, Live, PaneId};
use crate::model::{PaneRef, Timestamp};

/// A workspace as this machine groups panes: the same key on two hosts is two workspaces
/// (docs/decisions/0013-pane-ids-across-hosts.md). `host` is `None` for this machine.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WorkspaceRef {
    pub host: Option<HostName>,
    /// The workspace key on its host (a path, or what `-w` gave).
    pub key: String,
}

/// The open decision of a remote pane, cleaned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MirroredDecision {
    /// The decision's id on its host.
    pub id: u64,
    pub kind: Vocab<DecisionKind>,
    /// Multi-line text, cleaned like a hook payload.
    pub prompt: String,
    pub options: Vec<String>,
    /// The answer choices (`allow`, `deny`, …) the remote daemon takes.
    pub choices: Vec<String>,
    /// An external pane's gate: the remote daemon answers `allow`/`deny` through the
    /// agent's waiting hook run (only `GetPane`/`ListPanes` say so, never an event).
    pub gate: bool,
}

impl MirroredDecision {
    /// A remote's decision, cleaned: `id` on its host, `kind` read with the local
    /// vocabulary, the prompt cleaned like a hook payload, options and choices as
    /// [`vocab::labels`].
    pub fn clean(
        id: u64,
        kind: &str,
        prompt: &str,
        options: &[String],
        choices: &[String],
        gate: bool,
    ) -> MirroredDecision {
        MirroredDecision {
            id,
            kind: vocab::decision_kind(kind),
            prompt: vocab::text(prompt),
            options: vocab::labels(options),
            choices: vocab::labels(choices),
            gate,
        }
    }

    /// The Decision dictionary of a `decision.opened` event's data, as JSON
    /// ([`crate::client::json::dict_json`]): `None` without `id`, `kind`, `prompt`,
    /// `options` and `choices`. Events never say `gate`.
    pub fn of_event(d: &serde_json::Value) -> Option<MirroredDecision> {
        let strs = |k: &str| -> Option<Vec<String>> {
            d.get(k)?
                .as_array()?
                .iter()
                .map(|v| v.as_str().map(String::from))
                .collect()
        };
        Some(MirroredDecision::clean(
            d.get("id")?.as_u64()?,
            d.get("kind")?.as_str()?,
            d.get("prompt")?.as_str()?,
            &strs("options")?,
            &strs("choices")?,
            false,
        ))
    }
}

/// One remote pane here. Every string is cleaned and bounded ([`super::vocab`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MirroredPane {
    /// `NAME:pN`.
    pub id: PaneRef,
    pub workspace: WorkspaceRef,
    pub tab: String,
    pub name: String,
    pub agent: Vocab<AgentKind>,
    pub lifecycle: Vocab<Lifecycle>,
    /// The pane's shown attention (its highest outstanding item on its host).
    pub attention: Vocab<Attention>,
    pub live: Vocab<Live>,
    pub decision: Option<MirroredDecision>,
    pub last_message: Option<String>,
    /// When its host recorded `last_message`.
    pub last_message_at: Option<Timestamp>,
    pub attention_changed_at: Option<Timestamp>,
    pub cwd: Option<String>,
    pub title: Option<String>,
    pub repo: Option<String>,
    pub branch: Option<String>,
    /// Focused on its host (someone looks at it there).
    pub focused: bool,
    /// Its host's Attend owns the PTY.
    pub owned: bool,
    /// Its host is offline: shown greyed, left out of the tray, `next` and
    /// notifications.
    pub offline: bool,
}

impl MirroredPane {
    /// The remote pane id (`pN`).
    pub fn pane(&self) -> PaneId {
        self.id.pane
    }

    /// True when a value is one the local side does not know (shown raw, marked).
    pub fn is_degraded(&self) -> bool {
        self.agent.is_degraded()
            || self.lifecycle.is_degraded()
            || self.attention.is_degraded()
            || self.live.is_degraded()
            || self.decision.as_ref().is_some_and(|d| d.kind.is_degraded())
    }

    /// The shown attention when it is a known, ranked level; a raw level ranks nowhere.
    pub fn known_attention(&self) -> Option<Attention> {
        self.attention.known()
    }

    /// Applies what a remote event says about the pane's state (`kind` and the event
    /// data as JSON, [`crate::client::json::dict_json`]). Each event carries the state
    /// after it (`shown`, `value`, the decision), so applying a suffix of the log over a
    /// snapshot converges to the remote's state. Returns what the event means for
    /// notifications.
    pub fn apply(&mut self, kind: &str, data: &serde_json::Value, at: Option<Timestamp>) -> Touch {
        let s = |k: &str| data.get(k).and_then(|v| v.as_str());
        let i = |k: &str| {
            data.get(k)
                .and_then(|v| v.as_i64())
                .and_then(|n| i32::try_from(n).ok())
        };
        let mut touch = Touch::default();
        match kind {
            "attention.created" | "attention.cleared" => {
                if let Some(shown) = s("shown") {
                    self.attention = vocab::attention(shown);
                    self.attention_changed_at = at.or(self.attention_changed_at);
                }
                if kind == "attention.created" {
                    touch.created = s("level").and_then(Attention::parse);
                }
            }
            "decision.opened" => {
                if let Some(mut d) = data.get("decision").and_then(MirroredDecision::of_event) {
                    // A replayed event keeps what `GetPane` said of the same decision
                    // (events never carry `gate`).
                    let gate = self
                        .decision
                        .as_ref()
                        .is_some_and(|o| o.id == d.id && o.gate);
                    d.gate |= gate;
                    self.decision = Some(d);
                }
            }
            "decision.resolved" => {
                let id = data.get("id").and_then(|v| v.as_u64());
                if self.decision.as_ref().is_some_and(|d| Some(d.id) == id) {
                    self.decision = None;
                }
            }
            "pane.exited" => {
                self.live = Vocab::Known(Live::Exited {
                    code: i("code"),
                    signal: i("signal"),
                });
            }
            k if k.starts_with("agent.") => {
                if let Some(v) = s("value") {
                    self.lifecycle = vocab::lifecycle(v);
                    touch.done = self.lifecycle == Vocab::Known(Lifecycle::Done);
                }
            }
            _ => {}
        }
        touch
    }
}

/// What one event did to a pane, for the notification rule
/// (`docs/remote.md#how-remote-panes-are-mirrored`, "Notifications").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Touch {
    /// The level of an attention item the event raised (known levels only).
    pub created: Option<Attention>,
    /// The event moved the pane to `done`.
    pub done: bool,
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::client::wire::{remote_pane, WireDecision, WirePane};
    use serde_json::json;

    /// A remote's pane with the given id, attention and lifecycle, as its `ListPanes`
    /// sends it.
    pub fn view(id: &str, attention: &str, lifecycle: &str) -> WirePane {
        let mut p = WirePane::of(&crate::model::Pane::new(
            PaneId(1),
            "/src/api",
            "main",
            "api",
            AgentKind::Claude,
            Timestamp(0),
        ));
        p.id = id.into();
        p.attention = attention.into();
        p.lifecycle = lifecycle.into();
        p.attention_changed_at = Some(5_000);
        p
    }

    /// The mirror of `v` on `host`.
    pub fn mirror(host: &HostName, v: &WirePane) -> Option<MirroredPane> {
        crate::client::wire::mirrored(host, v)
    }

    fn decision(id: u64, kind: &str, prompt: &str) -> WireDecision {
        WireDecision {
            id,
            kind: kind.into(),
            prompt: prompt.into(),
            options: vec!["Yes".into(), "No".into()],
            choices: vec!["allow".into(), "deny".into()],
            source: "user".into(),
            opened_at: 5_000,
            tool_use_id: None,
            gate: None,
        }
    }

    fn host() -> HostName {
        HostName::parse("buildbox").unwrap()
    }

    #[test]
    fn a_remote_pane_gets_a_host_qualified_id_and_workspace() {
        let p = mirror(&host(), &view("p3", "unread", "working")).unwrap();
        assert_eq!(p.id.to_string(), "buildbox:p3");
        assert_eq!(p.workspace.host, Some(host()));
        assert_eq!(p.workspace.key, "/src/api");
        assert_eq!(p.attention, Vocab::Known(Attention::Unread));
        assert_eq!(p.attention_changed_at, Some(Timestamp(5_000)));
        assert!(!p.is_degraded() && !p.offline);
        assert!(mirror(&host(), &view("buildbox:p3", "none", "idle")).is_none());
        assert!(mirror(&host(), &view("p0", "none", "idle")).is_none());
    }

    #[test]
    fn the_view_of_a_mirrored_pane_is_its_projection_with_the_host_id() {
        let mut v = view("p3", "permission_required", "blocked");
        v.pending_decision = Some(decision(4, "permission", "Bash: make deploy"));
        let p = mirror(&host(), &v).unwrap();
        let back = remote_pane(&p);
        assert_eq!(back.id, "buildbox:p3");
        assert_eq!(back.attention, "permission_required");
        assert_eq!(back.lifecycle, "blocked");
        assert_eq!(back.live, v.live);
        let d = back.pending_decision.unwrap();
        assert_eq!((d.id, d.prompt.as_str()), (4, "Bash: make deploy"));
        assert_eq!(d.choices, ["allow", "deny"]);
        assert_eq!((back.name, back.workspace), (v.name, v.workspace));
    }

    #[test]
    fn hostile_strings_are_cleaned_and_bounded() {
        let mut v = view("p1", "none", "idle");
        v.name = format!("\x1b]0;pwned\x07na\u{202e}me{}", "n".repeat(10_000));
        v.workspace = "/src/\x1b[2Japi".into();
        v.last_message = Some(format!("line1\nline2\x1b[1m{}", "m".repeat(100_000)));
        v.agent = "goose\x1b[31m".into();
        v.pending_decision = Some(WireDecision {
            options: vec!["Yes\x1b[0m".into(); 100],
            choices: vec!["allow".into(), "\u{9b}31m".into()],
            ..decision(7, "veto", "Bash `rm`\x07")
        });
        let p = mirror(&host(), &v).unwrap();
        assert!(p.name.starts_with("name") && p.name.len() <= vocab::MAX_LINE);
        assert_eq!(p.workspace.key, "/src/api");
        let msg = p.last_message.unwrap();
        assert!(msg.starts_with("line1\nline2mmm") && msg.len() <= 8 * 1024);
        assert_eq!(p.agent, Vocab::Raw("goose".into()));
        let d = p.decision.unwrap();
        assert_eq!(d.prompt, "Bash `rm`");
        assert_eq!(d.options.len(), vocab::MAX_OPTIONS);
        assert_eq!(d.options[0], "Yes");
        assert_eq!(d.choices, ["allow"]);
        assert!(d.kind.is_degraded());
    }

    #[test]
    fn events_carry_the_state_after_them() {
        let mut p = mirror(&host(), &view("p1", "none", "working")).unwrap();
        let t = p.apply(
            "attention.created",
            &json!({"level": "permission_required", "shown": "permission_required"}),
            Some(Timestamp(9)),
        );
        assert_eq!(t.created, Some(Attention::PermissionRequired));
        assert_eq!(p.known_attention(), Some(Attention::PermissionRequired));
        assert_eq!(p.attention_changed_at, Some(Timestamp(9)));
        let decision = json!({"decision": {"id": 4, "kind": "permission", "prompt": "Bash: make",
            "options": ["Yes", "No"], "choices": ["allow", "deny"], "source": "s",
            "opened_at": "2026-01-01T00:00:00.000Z"}});
        p.apply("decision.opened", &decision, None);
        assert_eq!(p.decision.as_ref().unwrap().choices, ["allow", "deny"]);
        assert!(!p.decision.as_ref().unwrap().gate, "events never say gate");
        // What `GetPane` said of the same decision stays when its event is replayed.
        p.decision.as_mut().unwrap().gate = true;
        p.apply("decision.opened", &decision, None);
        assert!(p.decision.as_ref().unwrap().gate);
        p.apply("decision.resolved", &json!({"id": 3}), None);
        assert!(p.decision.is_some(), "another decision's resolution");
        p.apply("decision.resolved", &json!({"id": 4}), None);
        assert!(p.decision.is_none());
        let t = p.apply(
            "agent.done",
            &json!({"previous": "working", "value": "done"}),
            None,
        );
        assert!(t.done && t.created.is_none());
        p.apply("agent.napping", &json!({"value": "napping"}), None);
        assert_eq!(p.lifecycle, Vocab::Raw("napping".into()));
        p.apply("pane.exited", &json!({"code": 2}), None);
        assert_eq!(
            p.live,
            Vocab::Known(Live::Exited {
                code: Some(2),
                signal: None
            })
        );
    }
}
