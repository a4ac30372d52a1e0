//! `ListRemoteWorkspaces()`: a remote workspace as a workspace summary dictionary
//! (`docs/dbus-api.md#remote-workspace`). A mirrored pane's dictionary
//! (`ListRemotePanes()`) is [`crate::client::wire::remote_pane`].

use crate::adapters::mirror::RemoteWorkspace;
use crate::client::wire::{workspace_dict, Dict};

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
