//! The tray icon (`docs/desktop-surfaces.md#tray-icon`): a StatusNotifierItem with a
//! dbusmenu, served by `ksni` on its own connection to the session bus, inside the daemon's
//! one tokio runtime (ksni's default `tokio` feature, the same zbus 5 with `tokio`: the
//! setting ksni's note on zbus#526 asks for).
//!
//! - Status `NeedsAttention` while any required attention (permission, input) or an
//!   error is open, `Active` while anything else is (unread, warning), `Passive`
//!   otherwise. Icon (and attention icon) named by the worst attention
//!   ([`icon_name`]); `IconThemePath` points at the icons of the install prefix or the
//!   shipped `data/icons` ([`icon_theme_path`]).
//! - Tooltip: counts per attention level and the next unread pane ([`Overview`]).
//! - Menu: one entry per workspace (worst lifecycle, worst attention, latest message;
//!   it shows the workspace's most urgent pane in the panel), "Jump to next unread"
//!   (focuses it, as a notification click does), "Mark all seen…" and "Remove exited
//!   panes…" (each confirmed in its submenu; the latter is `attend rm --exited`), the
//!   Needs you section (every open decision with its choices, `tray/needs.rs`), "Open
//!   panel", "Quit Attend". Left click opens the panel.
//! - Remote panes (`docs/remote.md`): counted in the status, icon and tooltip while their
//!   host is online ([`tray_attention`]); each one that wants the human is listed after
//!   the workspaces as `NAME:pN — host › workspace › pane · reason` (it focuses the pane
//!   on its host). Every change of a mirror is pushed ([`RemoteUpdate`]), never polled.
//! - No `StatusNotifierWatcher` on the bus: logged once, the daemon runs without a
//!   tray; when a watcher appears, ksni registers the item.

use super::actions::Actions;
use super::snapshot::{Snapshot, Update};
use crate::adapters::mirror::{next_key, tray_attention, MirroredPane};
use crate::client::overview::{escape_markup, icon_name, pane_title, reason, Overview};
use crate::engine::clip;
use crate::engine::removal::exited_panes;
use crate::model::{Attention, PaneId, PaneRef};
use crate::service::remotes::RemoteUpdate;
use ksni::menu::{StandardItem, SubMenu};
use ksni::{MenuItem, Status, ToolTip, TrayMethods};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::sync::mpsc;

/// The item's id (its application id).
pub const TRAY_ID: &str = crate::config::APP_ID;

/// What a click in the tray asks the tray task to do.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Request {
    /// Raise the panel (on a pane), with the click's activation token.
    ShowPanel(Option<PaneId>, Option<String>),
    /// Focus a remote pane on its host (then the panel on it, when it runs).
    FocusRemote(PaneRef, Option<String>),
    /// Focus the engine's next unread pane.
    JumpNext(Option<String>),
    /// Mark every pane with ordinary attention seen: this machine's (read from the
    /// snapshot when carried out) and these of online remote hosts.
    MarkAllSeen(Vec<PaneRef>),
    /// Remove every exited pane.
    RemoveExited,
    /// Answer a pane's open decision (the Needs you section): this machine's or, over
    /// its link, a remote host's.
    Answer(PaneRef, String),
    /// Stop the daemon.
    Quit,
}

mod needs;

/// The tray's model: the last snapshot and what it needs to answer the host.
pub struct AttendTray {
    snapshot: Arc<Snapshot>,
    /// The mirrored panes of the remote hosts (src/service/remotes).
    remote: Arc<Vec<MirroredPane>>,
    overview: Overview,
    requests: mpsc::UnboundedSender<Request>,
    theme_path: String,
    offline_logged: AtomicBool,
}

/// A menu label: dbusmenu reads `_` as a mnemonic marker, so literal ones are doubled.
fn label(s: &str) -> String {
    s.replace('_', "__")
}

/// A directory holding `hicolor/scalable/status/attend-*-symbolic.svg`, for hosts that do
/// not find the icons in their themes: the install prefix's `share/icons` (meson installs
/// them there; a prefix such as `/opt` or `~/.local` may not be in `XDG_DATA_DIRS`), the
/// source tree of a build (`target/<profile>/../../data/icons`), or this crate's
/// `data/icons`. Empty when none has them.
pub fn icon_theme_path() -> String {
    let probe = "hicolor/scalable/status/attend-none-symbolic.svg";
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(PathBuf::from))
    {
        candidates.push(dir.join("../share/icons"));
        candidates.push(dir.join("../../data/icons"));
    }
    candidates.push(PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/icons"
    )));
    candidates
        .into_iter()
        .find(|d| d.join(probe).is_file())
        .and_then(|d| d.canonicalize().ok())
        .map(|d| d.to_string_lossy().into_owned())
        .unwrap_or_default()
}

impl AttendTray {
    fn new(snapshot: Arc<Snapshot>, requests: mpsc::UnboundedSender<Request>) -> AttendTray {
        AttendTray {
            overview: snapshot.overview(&[]),
            snapshot,
            remote: Arc::new(Vec::new()),
            requests,
            theme_path: icon_theme_path(),
            offline_logged: AtomicBool::new(false),
        }
    }

    fn set(&mut self, snapshot: Arc<Snapshot>) {
        self.overview = snapshot.overview(&self.remote);
        self.snapshot = snapshot;
    }

    fn set_remote(&mut self, remote: Arc<Vec<MirroredPane>>) {
        self.overview = self.snapshot.overview(&remote);
        self.remote = remote;
    }

    /// The remote panes that want the human (host online), in `next` order, each as its
    /// menu label: `buildbox:p3 — buildbox › webapp › api · permission: Bash …`.
    fn remote_entries(&self) -> Vec<(PaneRef, String)> {
        let mut keyed: Vec<_> = self
            .remote
            .iter()
            .filter_map(|p| Some((tray_attention(p)?, next_key(p), p)))
            .collect();
        keyed.sort_by(|a, b| (a.1.is_none(), &a.1).cmp(&(b.1.is_none(), &b.1)));
        keyed
            .into_iter()
            .map(|(level, _, p)| {
                let v = crate::client::wire::remote_pane(p);
                let text = format!("{} — {} · {}", p.id, pane_title(&v), reason(level, &v));
                (p.id.clone(), clip(&text, 96))
            })
            .collect()
    }

    fn ask(&self, r: Request) {
        let _ = self.requests.send(r);
    }

    /// The pane a workspace entry shows: its first pane in next-unread order, else the
    /// pane of its latest message, else its first pane.
    fn workspace_pane(&self, panes: &[PaneId], latest: Option<PaneId>) -> Option<PaneId> {
        self.snapshot
            .next_unread()
            .into_iter()
            .find(|p| panes.contains(p))
            .or(latest)
            .or_else(|| panes.first().copied())
    }
}

/// Panes with ordinary attention (what "Mark all seen" clears).
fn seeable(snapshot: &Snapshot) -> Vec<PaneId> {
    snapshot
        .panes
        .values()
        .filter(|p| p.items.iter().any(|i| i.decision.is_none()))
        .map(|p| p.id)
        .collect()
}

/// Mirrored panes of online hosts with attention and no open decision (what "Mark all
/// seen" clears there: `seen` on its host keeps a decision, so a pane that has one is left
/// to be answered).
fn seeable_remote(remote: &[MirroredPane]) -> Vec<PaneRef> {
    remote
        .iter()
        .filter(|p| tray_attention(p).is_some() && p.decision.is_none())
        .map(|p| p.id.clone())
        .collect()
}

/// Exited panes (what "Remove exited panes" removes: the engine's `attend rm --exited`
/// selection).
fn removable(snapshot: &Snapshot) -> usize {
    exited_panes(snapshot.panes.values(), 0, snapshot.at).len()
}

/// "N pane(s)".
fn panes_word(n: usize) -> String {
    format!("{n} pane{}", if n == 1 { "" } else { "s" })
}

impl ksni::Tray for AttendTray {
    fn id(&self) -> String {
        TRAY_ID.into()
    }

    fn title(&self) -> String {
        "Attend".into()
    }

    fn status(&self) -> Status {
        if self.overview.needs_attention() {
            Status::NeedsAttention
        } else if self.overview.worst > Attention::None {
            Status::Active
        } else {
            Status::Passive
        }
    }

    fn icon_name(&self) -> String {
        icon_name(self.overview.worst)
    }

    fn attention_icon_name(&self) -> String {
        icon_name(self.overview.worst)
    }

    fn icon_theme_path(&self) -> String {
        self.theme_path.clone()
    }

    fn tool_tip(&self) -> ToolTip {
        ToolTip {
            icon_name: icon_name(self.overview.worst),
            icon_pixmap: Vec::new(),
            title: format!("Attend — {}", self.overview.text()),
            description: escape_markup(&self.overview.tooltip()),
        }
    }

    fn activate(&mut self, _x: i32, _y: i32) {
        self.ask(Request::ShowPanel(
            None,
            ksni::current_xdg_activation_token(),
        ));
    }

    fn menu(&self) -> Vec<MenuItem<Self>> {
        let mut items: Vec<MenuItem<Self>> = Vec::new();
        for ws in self.snapshot.workspaces() {
            let mut text = format!(
                "{} — {} · {}",
                ws.name,
                ws.worst_lifecycle.as_str(),
                ws.worst_attention.as_str()
            );
            if let Some(m) = &ws.latest_message {
                let m = crate::adapters::terminal_signals::sanitize_text(m, 200);
                if !m.is_empty() {
                    text.push_str(": ");
                    text.push_str(&clip(&m, 48));
                }
            }
            let pane = self.workspace_pane(&ws.panes, ws.latest_message_pane);
            items.push(
                StandardItem {
                    label: label(&text),
                    activate: Box::new(move |t: &mut Self| {
                        t.ask(Request::ShowPanel(
                            pane,
                            ksni::current_xdg_activation_token(),
                        ))
                    }),
                    ..Default::default()
                }
                .into(),
            );
        }
        for (pane, text) in self.remote_entries() {
            items.push(
                StandardItem {
                    label: label(&text),
                    activate: Box::new(move |t: &mut Self| {
                        t.ask(Request::FocusRemote(
                            pane.clone(),
                            ksni::current_xdg_activation_token(),
                        ))
                    }),
                    ..Default::default()
                }
                .into(),
            );
        }
        if !items.is_empty() {
            items.push(MenuItem::Separator);
        }
        items.push(self.needs_section());
        items.push(
            StandardItem {
                label: "Jump to next unread".into(),
                enabled: self.overview.next.is_some(),
                icon_name: "go-next-symbolic".into(),
                activate: Box::new(|t: &mut Self| {
                    t.ask(Request::JumpNext(ksni::current_xdg_activation_token()))
                }),
                ..Default::default()
            }
            .into(),
        );
        let seeable = seeable(&self.snapshot).len() + seeable_remote(&self.remote).len();
        items.push(
            SubMenu {
                label: "Mark all seen…".into(),
                enabled: seeable > 0,
                submenu: vec![StandardItem {
                    label: format!(
                        "Yes, mark {seeable} pane{} seen",
                        if seeable == 1 { "" } else { "s" }
                    ),
                    activate: Box::new(|t: &mut Self| {
                        t.ask(Request::MarkAllSeen(seeable_remote(&t.remote)))
                    }),
                    ..Default::default()
                }
                .into()],
                ..Default::default()
            }
            .into(),
        );
        let removable = removable(&self.snapshot);
        items.push(
            SubMenu {
                label: "Remove exited panes…".into(),
                enabled: removable > 0,
                submenu: vec![StandardItem {
                    label: format!("Yes, remove {} that exited", panes_word(removable)),
                    icon_name: "edit-delete-symbolic".into(),
                    activate: Box::new(|t: &mut Self| t.ask(Request::RemoveExited)),
                    ..Default::default()
                }
                .into()],
                ..Default::default()
            }
            .into(),
        );
        items.push(
            StandardItem {
                label: "Open panel".into(),
                activate: Box::new(|t: &mut Self| {
                    t.ask(Request::ShowPanel(
                        None,
                        ksni::current_xdg_activation_token(),
                    ))
                }),
                ..Default::default()
            }
            .into(),
        );
        items.push(MenuItem::Separator);
        items.push(
            StandardItem {
                label: "Quit Attend".into(),
                icon_name: "application-exit-symbolic".into(),
                activate: Box::new(|t: &mut Self| t.ask(Request::Quit)),
                ..Default::default()
            }
            .into(),
        );
        items
    }

    fn watcher_online(&self) {
        self.offline_logged.store(false, Ordering::Relaxed);
        tracing::info!("tray icon: a StatusNotifierWatcher appeared; registered");
    }

    fn watcher_offline(&self, reason: ksni::OfflineReason) -> bool {
        if !self.offline_logged.swap(true, Ordering::Relaxed) {
            let why = match reason {
                ksni::OfflineReason::Error(e) => e.to_string(),
                _ => "it left the bus".to_string(),
            };
            tracing::warn!(
                "no StatusNotifierWatcher on the bus ({why}); running without a tray icon \
                 until one appears"
            );
        }
        true
    }
}

/// Carries out a tray request; the slow ones (raising the panel) off the tray's loop.
fn perform(request: Request, actions: &Actions, snapshot: &Snapshot) {
    let actions = actions.clone();
    match request {
        Request::ShowPanel(pane, token) => {
            tokio::spawn(async move { actions.show_panel(pane, token).await });
        }
        Request::FocusRemote(pane, token) => {
            tokio::spawn(async move {
                tracing::info!(%pane, "tray: focusing the remote pane");
                if let Err(e) = actions.focus_remote(&pane, token).await {
                    tracing::warn!(%pane, "cannot focus the remote pane: {e}");
                }
            });
        }
        Request::JumpNext(token) => {
            tokio::spawn(async move {
                match actions.next_unread().await {
                    Ok(Some(pane)) => {
                        tracing::info!(%pane, "tray: jump to next unread");
                        if let Err(e) = actions.focus_ref(&pane, token).await {
                            tracing::warn!(%pane, "cannot focus the pane: {e}");
                        }
                    }
                    Ok(None) => tracing::info!("tray: nothing unread"),
                    Err(e) => tracing::warn!("tray: next unread: {e}"),
                }
            });
        }
        Request::MarkAllSeen(remote) => {
            let panes = seeable(snapshot);
            tracing::info!(
                panes = panes.len(),
                remote = remote.len(),
                "tray: mark all seen"
            );
            tokio::spawn(async move {
                for pane in panes {
                    if let Err(e) = actions.mark_seen(pane).await {
                        tracing::warn!(%pane, "cannot mark seen: {e}");
                    }
                }
                for pane in remote {
                    if let Err(e) = actions.mark_seen_remote(&pane).await {
                        tracing::warn!(%pane, "cannot mark seen: {e}");
                    }
                }
            });
        }
        Request::RemoveExited => {
            tokio::spawn(async move {
                match actions.remove_exited().await {
                    Ok(panes) => tracing::info!(panes = panes.len(), "tray: removed exited panes"),
                    Err(e) => tracing::warn!("tray: cannot remove exited panes: {e}"),
                }
            });
        }
        Request::Answer(pane, choice) => {
            tokio::spawn(async move {
                tracing::info!(%pane, %choice, "tray: answering");
                let r = match pane.host {
                    None => actions.answer(pane.pane, &choice).await,
                    Some(_) => actions.answer_remote(&pane, &choice).await,
                };
                if let Err(e) = r {
                    tracing::warn!(%pane, "tray: cannot answer: {e}");
                }
            });
        }
        Request::Quit => {
            tracing::info!("tray: quit");
            actions.quit();
        }
    }
}

/// Runs the tray until `updates` closes. The first update is the state at start-up;
/// `remote` pushes every change of the mirrored panes (counted and listed at once).
/// Never fails: without a bus connection for ksni it logs that and drains `updates`.
pub async fn run(
    mut updates: mpsc::UnboundedReceiver<Arc<Update>>,
    mut remote: mpsc::UnboundedReceiver<Arc<RemoteUpdate>>,
    actions: Actions,
) {
    let Some(first) = updates.recv().await else {
        return;
    };
    let (req_tx, mut req_rx) = mpsc::unbounded_channel();
    let mut latest = first.snapshot.clone();
    let tray = AttendTray::new(latest.clone(), req_tx);
    let handle = match tray.assume_sni_available(true).spawn().await {
        Ok(h) => h,
        Err(e) => {
            tracing::warn!("tray icon unavailable: {e}");
            while updates.recv().await.is_some() {}
            return;
        }
    };
    tracing::info!("tray icon on (shown while a StatusNotifierWatcher runs)");
    loop {
        tokio::select! {
            u = updates.recv() => {
                let Some(mut u) = u else { break };
                // Only the newest state matters.
                while let Ok(newer) = updates.try_recv() {
                    u = newer;
                }
                latest = u.snapshot.clone();
                let snapshot = latest.clone();
                handle.update(move |t: &mut AttendTray| t.set(snapshot)).await;
            }
            Some(mut u) = remote.recv() => {
                while let Ok(newer) = remote.try_recv() {
                    u = newer;
                }
                let panes = u.panes.clone();
                handle.update(move |t: &mut AttendTray| t.set_remote(panes)).await;
            }
            Some(r) = req_rx.recv() => perform(r, &actions, &latest),
        }
    }
    handle.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AgentKind, AttentionItem, Pane, Source, Timestamp};
    use ksni::Tray;

    fn pane(id: u64, ws: &str, level: Option<Attention>) -> Pane {
        let mut p = Pane::new(PaneId(id), ws, "main", "", AgentKind::Claude, Timestamp(0));
        if let Some(level) = level {
            p.items.push(AttentionItem {
                level,
                source: Source::user(),
                at: Timestamp(id as i64),
                decision: level.is_required().then_some(id),
            });
            p.attention_changed_at = Some(Timestamp(id as i64));
        }
        p
    }

    fn tray(panes: Vec<Pane>) -> AttendTray {
        let snapshot = Snapshot {
            panes: panes.into_iter().map(|p| (p.id, p)).collect(),
            gates: Default::default(),
            at: Timestamp(100),
        };
        let (tx, _rx) = mpsc::unbounded_channel();
        AttendTray::new(Arc::new(snapshot), tx)
    }

    #[test]
    fn status_and_icon_follow_the_worst_attention() {
        let t = tray(vec![pane(1, "/w/a", None)]);
        assert_eq!(t.status(), Status::Passive);
        assert_eq!(t.icon_name(), "attend-none-symbolic");
        let t = tray(vec![pane(1, "/w/a", Some(Attention::Unread))]);
        assert_eq!(t.status(), Status::Active);
        let t = tray(vec![
            pane(1, "/w/a", Some(Attention::Unread)),
            pane(2, "/w/b", Some(Attention::PermissionRequired)),
        ]);
        assert_eq!(t.status(), Status::NeedsAttention);
        assert_eq!(t.icon_name(), "attend-permission-required-symbolic");
        assert!(t.tool_tip().description.contains("permission_required: 1"));
        assert!(t.tool_tip().description.contains("next: p2"));
    }

    #[test]
    fn the_menu_lists_workspaces_then_the_actions() {
        let t = tray(vec![
            pane(1, "/w/my_app", Some(Attention::Unread)),
            pane(2, "/w/infra", Some(Attention::PermissionRequired)),
        ]);
        let labels: Vec<String> = t
            .menu()
            .iter()
            .map(|m| match m {
                MenuItem::Standard(s) => s.label.clone(),
                MenuItem::SubMenu(s) => s.label.clone(),
                MenuItem::Separator => "-".into(),
                _ => "?".into(),
            })
            .collect();
        assert_eq!(
            labels,
            [
                "infra — unknown · permission__required",
                "my__app — unknown · unread",
                "-",
                "Needs you: nothing waits",
                "Jump to next unread",
                "Mark all seen…",
                "Remove exited panes…",
                "Open panel",
                "-",
                "Quit Attend",
            ]
        );
        assert_eq!(seeable(&t.snapshot), vec![PaneId(1)]);
    }

    /// Pane `n` of host `host` as mirrored here, at `attention`, with a decision or not.
    fn mirrored(host: &str, n: u64, attention: Attention, decision: bool) -> MirroredPane {
        let mut local = pane(n, "/w/far", Some(attention));
        if decision {
            local.pending_decision = Some(crate::model::Decision {
                id: n,
                kind: crate::model::DecisionKind::Permission,
                prompt: "Bash: make".into(),
                options: vec!["Yes".into(), "No".into()],
                answer_keys: Vec::new(),
                tool_use_id: None,
                source: Source::user(),
                opened_at: Timestamp(0),
            });
        }
        let v = crate::client::wire::WirePane::of(&local);
        let host = crate::model::HostName::parse(host).unwrap();
        crate::client::wire::mirrored(&host, &v).unwrap()
    }

    #[test]
    fn mark_all_seen_counts_and_asks_for_remote_panes_of_online_hosts_without_a_decision() {
        let mut t = tray(vec![pane(1, "/w/a", Some(Attention::Unread))]);
        let mut offline = mirrored("zed", 3, Attention::Unread, false);
        offline.offline = true;
        t.set_remote(Arc::new(vec![
            mirrored("box", 1, Attention::Unread, false),
            mirrored("box", 2, Attention::PermissionRequired, true),
            offline,
        ]));
        let submenu = t
            .menu()
            .into_iter()
            .find_map(|m| match m {
                MenuItem::SubMenu(s) if s.label == "Mark all seen…" => Some(s),
                _ => None,
            })
            .expect("the entry");
        let MenuItem::Standard(yes) = &submenu.submenu[0] else {
            panic!("a confirmation item")
        };
        assert_eq!(yes.label, "Yes, mark 2 panes seen");
        let (tx, mut rx) = mpsc::unbounded_channel();
        t.requests = tx;
        (yes.activate)(&mut t);
        assert_eq!(
            rx.try_recv().unwrap(),
            Request::MarkAllSeen(vec![PaneRef::parse("box:p1").unwrap()])
        );
    }

    #[test]
    fn remove_exited_panes_counts_the_exited_ones_and_asks_first() {
        let submenu = |t: &AttendTray| {
            t.menu()
                .into_iter()
                .find_map(|m| match m {
                    MenuItem::SubMenu(s) if s.label == "Remove exited panes…" => Some(s),
                    _ => None,
                })
                .expect("the entry")
        };
        let t = tray(vec![pane(1, "/w/a", None)]);
        assert!(!submenu(&t).enabled, "nothing exited");
        let mut gone = pane(2, "/w/a", Some(Attention::Unread));
        gone.live = crate::model::Live::Exited {
            code: Some(0),
            signal: None,
        };
        let mut gone2 = pane(3, "/w/b", None);
        gone2.live = gone.live;
        let t = tray(vec![pane(1, "/w/a", None), gone, gone2]);
        let s = submenu(&t);
        assert!(s.enabled);
        let labels: Vec<String> = s
            .submenu
            .iter()
            .map(|m| match m {
                MenuItem::Standard(i) => i.label.clone(),
                _ => "?".into(),
            })
            .collect();
        assert_eq!(labels, ["Yes, remove 2 panes that exited"]);
    }
}
