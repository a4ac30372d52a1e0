//! Mirroring a linked remote's panes (`docs/remote.md#how-remote-panes-are-mirrored`):
//! while a link is up, its task subscribes to the remote's `Event` signal, then drives the
//! host's [`HostMirror`] and carries out the effects it returns with the typed client
//! ([`crate::client::Attend1Proxy`]). No timer: it waits on the remote's signals only.
//!
//! Each remote event is stamped into the local log through the owner task ([`stamp`]),
//! with the host's last remote seq in the same commit (the stamps queued at once, a
//! catch-up page's, in one commit); a new mirror of the host continues after that seq (src/service/remotes/mod.rs). `Notify` and `Withdraw` reach the desktop
//! surfaces with every change of the mirror ([`super::RemoteUpdate`]).

use super::Remotes;
use crate::adapters::mirror::{Effect, MirroredPane, Origin, RemoteEvent};
use crate::client::json::dict_json;
use crate::client::wire::{from_dict, mirrored, WirePane};
use crate::client::{Attend1Proxy, Dict};
use crate::config::{BUS_NAME, INTERFACE};
use crate::model::HostName;
use crate::service::command::{ask, Command, RemoteStampRequest};
use crate::system::clock::now;
use std::collections::VecDeque;

/// Events read per catch-up page.
pub const PAGE: u32 = 500;

/// Follows the remote on `conn` for host `name` (task `generation`) until the connection
/// fails; the reason, one line. Never returns while the link is healthy.
pub async fn follow(
    conn: &zbus::Connection,
    name: &HostName,
    generation: u64,
    remotes: &Remotes,
) -> String {
    match run(conn, name, generation, remotes).await {
        Ok(why) => why,
        Err(e) => format!("the remote attend failed: {e}"),
    }
}

async fn run(
    conn: &zbus::Connection,
    name: &HostName,
    generation: u64,
    remotes: &Remotes,
) -> zbus::Result<String> {
    use zbus::export::futures_core::Stream;
    let rule = zbus::MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .sender(BUS_NAME)?
        .interface(INTERFACE)?
        .member("Event")?
        .build();
    let mut stream = zbus::MessageStream::for_match_rule(rule, conn, Some(1024)).await?;
    let proxy = Attend1Proxy::builder(conn)
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await?;
    let mirror = |f: &mut dyn FnMut(&mut crate::adapters::mirror::HostMirror) -> Vec<Effect>| {
        remotes.mirror(name, generation, f)
    };
    let mut effects: VecDeque<Effect> = mirror(&mut |m| m.link_up(now())).into();
    loop {
        loop {
            // Every stamp queued now goes in one commit (a catch-up page's in one, not one
            // each); they keep their order, and nothing else here depends on them.
            let stamps = take_stamps(&mut effects, name);
            if !stamps.is_empty() {
                stamp(remotes, generation, stamps).await?;
            }
            let Some(effect) = effects.pop_front() else {
                break;
            };
            match effect {
                Effect::Snapshot => {
                    let dicts: Vec<Dict> = proxy.inner().call("ListPanes", &()).await?;
                    let panes: Vec<_> = read(name, &dicts).collect();
                    effects.extend(mirror(&mut |m| m.snapshot(panes.iter().cloned())));
                }
                Effect::CatchUp { after } => {
                    let page = proxy.events(after, PAGE).await?;
                    for (seq, kind, pane, data) in &page {
                        let data = serde_json::Value::Object(dict_json(data));
                        let e = RemoteEvent {
                            seq: *seq,
                            kind,
                            pane,
                            data: &data,
                            origin: Origin::CatchUp,
                        };
                        effects.extend(mirror(&mut |m| m.event(e)));
                    }
                    let short = page.len() < PAGE as usize;
                    effects.extend(mirror(&mut |m| m.page_done(short)));
                }
                // A later refresh of the same pane is queued: that one reads it.
                Effect::Refresh { pane }
                    if effects
                        .iter()
                        .any(|e| matches!(e, Effect::Refresh { pane: p } if *p == pane)) => {}
                Effect::Refresh { pane } => match proxy
                    .inner()
                    .call::<_, _, Dict>("GetPane", &(pane.to_string(),))
                    .await
                {
                    Ok(d) => {
                        if let Some(p) = read(name, std::slice::from_ref(&d)).next() {
                            effects.extend(mirror(&mut |m| m.refreshed(p.clone())));
                        }
                    }
                    // Removed meanwhile: its `pane.removed` follows.
                    Err(e) if crate::client::error_name(&e) == Some("NoSuchPane") => {}
                    Err(e) => return Err(e),
                },
                // Taken out above.
                Effect::Stamp { .. } => {}
                Effect::Dropped { reason } => {
                    tracing::warn!(remote = %name, %reason, "remote input dropped");
                }
                // Published to the surfaces by `Remotes::mirror` as they were returned.
                Effect::Notify { .. } | Effect::Withdraw { .. } => {}
            }
        }
        let next = std::future::poll_fn(|cx| std::pin::Pin::new(&mut stream).poll_next(cx));
        let msg = match next.await {
            None => return Ok("the connection closed".into()),
            Some(msg) => msg?,
        };
        let Ok((seq, kind, pane, data)) = msg.body().deserialize::<crate::client::EventTuple>()
        else {
            tracing::warn!(remote = %name, "malformed Event signal dropped");
            continue;
        };
        let data = serde_json::Value::Object(dict_json(&data));
        let e = RemoteEvent {
            seq,
            kind: &kind,
            pane: &pane,
            data: &data,
            origin: Origin::Signal,
        };
        effects.extend(mirror(&mut |m| m.event(e)));
    }
}

/// The `Stamp` effects in `effects`, taken out in their order, as requests of host `name`.
fn take_stamps(effects: &mut VecDeque<Effect>, name: &HostName) -> Vec<RemoteStampRequest> {
    let mut stamps = Vec::new();
    effects.retain_mut(|e| match e {
        Effect::Stamp {
            remote_seq,
            kind,
            pane,
            data,
        } => {
            stamps.push(RemoteStampRequest {
                host: name.clone(),
                remote_seq: *remote_seq,
                kind: std::mem::take(kind),
                pane: pane.take(),
                data: data.take(),
            });
            false
        }
        _ => true,
    });
    stamps
}

/// Stamps remote events (of one host, in order) into the local log through the owner task
/// in one commit and waits for it (so the host's last seq is stored with them). A task
/// replaced meanwhile stamps nothing. When the commit fails the mirror starts again from
/// the last stored seq and the link ends (it reconnects and reads the log from there).
async fn stamp(
    remotes: &Remotes,
    generation: u64,
    reqs: Vec<RemoteStampRequest>,
) -> zbus::Result<()> {
    let Some(last) = reqs.last() else {
        return Ok(());
    };
    let (name, remote_seq) = (last.host.clone(), last.remote_seq);
    let Some(owner) = remotes.owner(&name, generation) else {
        return Ok(());
    };
    match ask(&owner, |r| Command::StampRemote(reqs, r)).await {
        Ok(_) => {
            remotes.stored(&name, generation, remote_seq);
            Ok(())
        }
        Err(e) => {
            remotes.restart_mirror(&name, generation);
            Err(zbus::Error::Failure(format!(
                "cannot store the remote's event {remote_seq}: {e}"
            )))
        }
    }
}

/// The panes of a `ListPanes`/`GetPane` answer of host `name`, each read as the wire
/// struct ([`WirePane`], one dictionary at a time so that a malformed one is left out,
/// logged) and then as its mirror here (`None`: no valid pane id).
fn read<'a>(
    name: &'a HostName,
    dicts: &'a [Dict],
) -> impl Iterator<Item = Option<MirroredPane>> + 'a {
    dicts.iter().filter_map(move |d| {
        from_dict::<WirePane>(d)
            .map_err(|e| tracing::warn!(error = %e, "remote pane dropped"))
            .ok()
            .map(|p| mirrored(name, &p))
    })
}
