//! A remote daemon's pane and the mirror of it here (`docs/remote.md#how-remote-panes-are-mirrored`):
//! the [`WirePane`] a remote's `ListPanes`/`GetPane` sent, read into a
//! [`MirroredPane`] (values in the local vocabulary, strings cleaned by
//! [`crate::adapters::mirror::vocab`]), and a mirrored pane as the Remote pane dictionary
//! of `ListRemotePanes` (`docs/dbus-api.md#remote-pane`), which is also the pane every
//! surface renders for it.

use super::pane::{WireDecision, WireLive, WirePane};
use crate::adapters::mirror::vocab::{self, Vocab, MAX_LINE, MAX_PATH};
use crate::adapters::mirror::{MirroredDecision, MirroredPane, WorkspaceRef};
use crate::model::{HostName, PaneId, PaneRef, Timestamp};

/// The pane of `host` that a remote's `ListPanes`/`GetPane` entry `p` describes; `None`
/// when its id is not a pane id (`pN`). Not offline: the mirror says so.
pub fn mirrored(host: &HostName, p: &WirePane) -> Option<MirroredPane> {
    let pane = PaneId::parse(&p.id)?;
    let decision = p.pending_decision.as_ref().map(|d| {
        MirroredDecision::clean(
            d.id,
            &d.kind,
            &d.prompt,
            &d.options,
            &d.choices,
            d.is_gate(),
        )
    });
    Some(MirroredPane {
        id: PaneRef {
            host: Some(host.clone()),
            pane,
        },
        workspace: WorkspaceRef {
            host: Some(host.clone()),
            key: vocab::line(&p.workspace, MAX_PATH),
        },
        tab: vocab::line(&p.tab, MAX_LINE),
        name: vocab::line(&p.name, MAX_LINE),
        agent: vocab::agent(&p.agent),
        lifecycle: vocab::lifecycle(&p.lifecycle),
        attention: vocab::attention(&p.attention),
        live: vocab::live(&p.live.state, p.live.code, p.live.signal),
        decision,
        last_message: p.last_message.as_deref().map(vocab::text),
        last_message_at: p.last_message_at.map(Timestamp),
        attention_changed_at: p.attention_changed_at.map(Timestamp),
        cwd: vocab::opt_line(p.cwd.as_deref(), MAX_PATH),
        title: vocab::opt_line(p.title.as_deref(), MAX_LINE),
        repo: vocab::opt_line(p.repo.as_deref(), MAX_LINE),
        branch: vocab::opt_line(p.branch.as_deref(), MAX_LINE),
        focused: p.focused,
        owned: p.owned,
        offline: false,
    })
}

/// A mirrored pane as the Remote pane dictionary: the keys a mirror keeps (`id`
/// `NAME:pN`, name, workspace — its key on its host —, tab, agent, lifecycle, attention,
/// live, pending_decision? with `source` `remote` and `opened_at` the pane's
/// `attention_changed_at` (0 when unknown), last_message?, last_message_at?,
/// attention_changed_at?, cwd?, title?, repo?, branch?, focused, owned), raw values
/// raw, plus `host`, `offline` and `degraded`.
pub fn remote_pane(p: &MirroredPane) -> WirePane {
    let live = match &p.live {
        Vocab::Known(l) => WireLive::of(*l),
        Vocab::Raw(s) => WireLive {
            state: s.clone(),
            code: None,
            signal: None,
        },
    };
    let pending_decision = p.decision.as_ref().map(|d| WireDecision {
        id: d.id,
        kind: match &d.kind {
            Vocab::Known(k) => k.as_str().to_string(),
            Vocab::Raw(s) => s.clone(),
        },
        prompt: d.prompt.clone(),
        options: d.options.clone(),
        choices: d.choices.clone(),
        source: "remote".into(),
        opened_at: p.attention_changed_at.unwrap_or(Timestamp(0)).0,
        tool_use_id: None,
        gate: d.gate.then_some(true),
    });
    WirePane {
        id: p.id.to_string(),
        name: p.name.clone(),
        workspace: p.workspace.key.clone(),
        tab: p.tab.clone(),
        agent: p.agent.to_string(),
        lifecycle: p.lifecycle.to_string(),
        last_lifecycle: None,
        attention: p.attention.to_string(),
        live,
        items: None,
        pending_decision,
        last_message: p.last_message.clone(),
        last_message_at: p.last_message_at.map(|t| t.0),
        last_seen_at: None,
        attention_changed_at: p.attention_changed_at.map(|t| t.0),
        done_at: None,
        exited_at: None,
        created_at: None,
        session_id: None,
        cwd: p.cwd.clone(),
        title: p.title.clone(),
        repo: p.repo.clone(),
        branch: p.branch.clone(),
        limit_reason: None,
        resume_argv: None,
        command: None,
        focused: p.focused,
        oneshot: None,
        owned: p.owned,
        hooks_seen: None,
        taxonomy: None,
        diagnoses: None,
        tasks: None,
        hold: None,
        host: Some(
            p.id.host
                .as_ref()
                .map(|h| h.as_str().to_string())
                .unwrap_or_default(),
        ),
        offline: Some(p.offline),
        location: None,
        worktree: None,
        degraded: Some(p.is_degraded()),
    }
}
