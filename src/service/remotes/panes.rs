//! `ListRemotePanes()`: a mirrored pane as a Pane dictionary (`docs/dbus-api.md#remote-pane`),
//! the keys of `ListPanes` ([`crate::client::wire::pane_dict`]) that a mirror keeps, with
//! the values written by the same builders, plus `host`, `offline` and `degraded`.

use crate::adapters::mirror::{MirroredPane, RemoteWorkspace, Vocab};
use crate::client::wire::{live_dict, workspace_dict, Dict, DictBuilder};

/// The dictionary of one mirrored pane: `id` (`NAME:pN`), name, workspace (its key on its
/// host), tab, agent, lifecycle, attention, live (a{sv}), pending_decision? (a{sv}: id,
/// kind, prompt, options, choices, source `remote`, opened_at, gate?), last_message?,
/// attention_changed_at?, cwd?, title?, repo?, branch?, focused, owned, `host` s,
/// `offline` b, `degraded` b (a value this side does not know, shown raw).
pub fn remote_pane_dict(p: &MirroredPane) -> Dict {
    let live = match &p.live {
        Vocab::Known(l) => live_dict(*l),
        Vocab::Raw(s) => DictBuilder::new().str("state", s).build(),
    };
    let host = p.id.host.as_ref().map(|h| h.as_str()).unwrap_or_default();
    let mut b = DictBuilder::new()
        .str("id", &p.id.to_string())
        .str("name", &p.name)
        .str("workspace", &p.workspace.key)
        .str("tab", &p.tab)
        .str("agent", &p.agent.to_string())
        .str("lifecycle", &p.lifecycle.to_string())
        .str("attention", &p.attention.to_string())
        .dict("live", live)
        .opt_str("last_message", p.last_message.as_deref())
        .time("last_message_at", p.last_message_at)
        .time("attention_changed_at", p.attention_changed_at)
        .opt_str("cwd", p.cwd.as_deref())
        .opt_str("title", p.title.as_deref())
        .opt_str("repo", p.repo.as_deref())
        .opt_str("branch", p.branch.as_deref())
        .put("focused", p.focused)
        .put("owned", p.owned)
        .str("host", host)
        .put("offline", p.offline)
        .put("degraded", p.is_degraded());
    if let Some(d) = &p.decision {
        let opened = p.attention_changed_at.unwrap_or(crate::model::Timestamp(0));
        let mut decision = DictBuilder::new()
            .put("id", d.id)
            .str(
                "kind",
                match &d.kind {
                    Vocab::Known(k) => k.as_str(),
                    Vocab::Raw(s) => s,
                },
            )
            .str("prompt", &d.prompt)
            .strs("options", &d.options)
            .strs("choices", &d.choices)
            .str("source", "remote")
            .time("opened_at", Some(opened));
        if d.gate {
            decision = decision.put("gate", true);
        }
        b = b.dict("pending_decision", decision.build());
    }
    b.build()
}

/// The dictionary of one remote workspace (`ListRemoteWorkspaces()`,
/// `docs/dbus-api.md#remote-workspace`): the keys of a workspace summary
/// ([`workspace_dict`]; `key` the host's own, `panes` and `latest_message_pane` `NAME:pN`)
/// plus `host` s and `offline` b (every pane of it on an offline link).
pub fn remote_workspace_dict(w: &RemoteWorkspace) -> Dict {
    let mut d = workspace_dict(&w.summary);
    d.insert("host".into(), w.host.to_string().into());
    d.insert("offline".into(), w.offline.into());
    d
}
