//! Desktop notifications (`docs/desktop-surfaces.md#notifications`): a client of
//! `org.freedesktop.Notifications` (Desktop Notifications spec 1.2) on the daemon's bus
//! connection.
//!
//! - Raised on `attention.created` at the configured levels ([`Settings`]; by default
//!   permission_required, input_required, error, and unread when it comes with a
//!   completion, `agent.done`). Never for a focused pane
//!   (`docs/lifecycle-attention.md#focus`: ordinary items on a focused pane are not even
//!   raised; required ones are raised but not notified).
//! - One notification per pane: a newer one replaces it (`replaces_id`); it is closed
//!   (`CloseNotification`) when the attention it announced clears.
//! - Summary where and what (`workspace › pane — permission: Bash`), body the agent's
//!   message once ([`notice`]); the body is markup-escaped when the server advertises
//!   `body-markup`. Hints: `urgency` (critical for permission, input and
//!   error), `desktop-entry` `io.github.attend.Attend`, `category` `x-attend.<level>`.
//! - Actions (when the server advertises `actions`): `default` focuses the pane
//!   ([`Actions::focus`], with the `ActivationToken` the server sent); on a gate or
//!   question of a pane Attend runs, one button per choice of the decision (the list
//!   `attend show` and the panel show: `allow`, `deny`) answers it ([`Actions::answer`]).
//! - Replies ([`super::replies`], carried out in `notifications/reply.rs`): a question that takes typed text, on a pane Attend runs, gets an
//!   inline reply field where the server advertises `inline-reply` (the text typed
//!   there reaches the agent), else a "Reply…" button that opens the panel's reply field.
//! - Sound, when `[sound]` asks for it for the level and the agent: the `sound-name`
//!   hint; with no server, the theme's file through `pw-play`/`paplay` ([`sound`]).
//! - No server on the bus: logged once, the daemon goes on; when a server appears or
//!   restarts (`NameOwnerChanged`), the notifications still wanted are raised again.
//! - Remote panes ([`remote`]): raised and withdrawn when their host's mirror says
//!   (`docs/remote.md`, "Notifications"), with the same words prefixed by the host; their
//!   actions go to the host's daemon over the link.

mod remote;
mod reply;

use super::actions::Actions;
use super::notice::notice;
use super::replies::{reply_action, REPLY_IN_PANEL};
use super::snapshot::{Snapshot, Update};
use super::sound;
use crate::adapters::mirror::MirroredPane;
use crate::client::overview::{escape_markup, icon_name};
use crate::client::wire::WirePane;
use crate::model::{Attention, EventKind, Lifecycle, Pane, PaneId, PaneRef};
use crate::service::remotes::RemoteUpdate;
use crate::settings::Settings;
use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use zbus::export::futures_core::Stream;
use zbus::zvariant::Value;

/// The notification service's well-known name.
pub const NOTIFICATIONS: &str = "org.freedesktop.Notifications";
/// The `desktop-entry` hint: the panel's desktop file id.
pub const DESKTOP_ENTRY: &str = crate::config::APP_ID;
/// How long a call to the server may take (D-Bus activation of a server included).
const CALL_LIMIT: Duration = Duration::from_secs(10);
/// After a failed call, how long to wait before trying again when no server appeared.
const RETRY_AFTER: Duration = Duration::from_secs(30);

/// `org.freedesktop.Notifications` (Desktop Notifications spec 1.2).
#[zbus::proxy(
    interface = "org.freedesktop.Notifications",
    default_service = "org.freedesktop.Notifications",
    default_path = "/org/freedesktop/Notifications",
    gen_blocking = false
)]
pub trait Notifications {
    /// Shows (or, with a non-zero `replaces_id`, replaces) a notification; returns its id.
    #[allow(clippy::too_many_arguments)]
    fn notify(
        &self,
        app_name: &str,
        replaces_id: u32,
        app_icon: &str,
        summary: &str,
        body: &str,
        actions: &[&str],
        hints: HashMap<&str, Value<'_>>,
        expire_timeout: i32,
    ) -> zbus::Result<u32>;

    fn close_notification(&self, id: u32) -> zbus::Result<()>;

    fn get_capabilities(&self) -> zbus::Result<Vec<String>>;

    #[zbus(signal)]
    fn action_invoked(&self, id: u32, action_key: String) -> zbus::Result<()>;

    #[zbus(signal)]
    fn notification_closed(&self, id: u32, reason: u32) -> zbus::Result<()>;

    /// `NotificationReplied` (the `inline-reply` extension KDE Plasma implements): the
    /// text typed into a notification's reply field.
    #[zbus(signal)]
    fn notification_replied(&self, id: u32, text: String) -> zbus::Result<()>;

    #[zbus(signal)]
    fn activation_token(&self, id: u32, activation_token: String) -> zbus::Result<()>;
}

/// What the server can do (`GetCapabilities`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Caps {
    /// `actions`: buttons and the default (click) action.
    pub actions: bool,
    /// `body-markup`: the body is markup and must be escaped.
    pub markup: bool,
    /// `inline-reply`: a reply field in the notification (`NotificationReplied`).
    pub inline_reply: bool,
}

impl Caps {
    /// From the capability list.
    pub fn from_list(list: &[String]) -> Caps {
        Caps {
            actions: list.iter().any(|c| c == "actions"),
            markup: list.iter().any(|c| c == "body-markup"),
            inline_reply: list.iter().any(|c| c == "inline-reply"),
        }
    }
}

/// One notification's text, icon, actions and hints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Content {
    pub summary: String,
    pub body: String,
    pub icon: String,
    /// (key, label) pairs: `default`, and `allow`/`deny` on an answerable gate.
    pub actions: Vec<(String, String)>,
    /// 1 normal, 2 critical.
    pub urgency: u8,
    /// `x-attend.<level>`.
    pub category: String,
}

/// The buttons that answer the pane's open decision from its notification, each (the
/// choice `attend answer` takes, its label): `allow` and `deny` on an external pane whose
/// gate a waiting hook run takes the answer for (`gated`,
/// docs/decisions/0015-answering-external-gates.md); else, on a running pane whose keys
/// Attend types — an owned one, or one followed in the user's tmux (typed through `tmux
/// send-keys`, docs/tmux.md#answers) — the decision's choices
/// ([`crate::model::Decision::choices`], the list `attend show` and the panel show), each
/// labelled with its name; a question that names no choice but its options (Claude's
/// `AskUserQuestion` opened by its hook, whose picker no screen rule reads) gets one
/// button per option, labelled with the option and answering with its number as the
/// agent draws it (options in the order the hook names them, numbered from 1; a number
/// is typed as the user's own key; the option that takes typed text, Claude's "Type
/// something.", gets none: it is the reply action's); none otherwise (Attend cannot type into a pane it
/// does not run). A choice named `default` is left out (that key is the click).
fn answer_buttons(p: &Pane, gated: bool) -> Vec<(String, String)> {
    match &p.pending_decision {
        Some(_) if gated && !p.owned => attend_hook::gate::CHOICES
            .iter()
            .map(|c| (c.to_string(), c.to_string()))
            .collect(),
        Some(d) if p.has_terminal() && p.live.is_running() => {
            let choices = d.choices();
            if choices.is_empty() && d.kind == crate::model::DecisionKind::Question {
                return d
                    .options
                    .iter()
                    .enumerate()
                    .take(9)
                    .filter(|(_, o)| !crate::client::needs::is_free_text_label(o))
                    .map(|(i, o)| ((i + 1).to_string(), o.trim().to_string()))
                    .collect();
            }
            choices
                .into_iter()
                .filter(|c| c != "default")
                .map(|c| (c.clone(), c))
                .collect()
        }
        _ => Vec::new(),
    }
}

/// The notification for pane `p` at `level`, for a server with `caps`: the words of
/// [`notice`]; a button per answerable choice on a required level
/// (`permission_required`, `input_required`), labelled with the choice's name as every
/// surface shows it.
///
/// A question that takes a typed reply on a pane Attend runs or follows in tmux also gets
/// a reply action ([`reply_action`]).
pub fn content(p: &Pane, gated: bool, level: Attention, caps: Caps) -> Content {
    let view = WirePane::of(p);
    let mut c = content_of(&view, answer_buttons(p, gated), level, caps);
    let typeable = p.has_terminal() && p.live.is_running();
    c.actions.extend(reply_action(
        &view,
        typeable,
        level,
        caps.actions,
        caps.inline_reply,
    ));
    c
}

/// The notification of a pane's `view` (a local pane's or a mirrored one's,
/// [`crate::client::wire::remote_pane`]) with its answer `buttons`: the one
/// rendering [`content`] describes.
fn content_of(
    view: &WirePane,
    buttons: Vec<(String, String)>,
    level: Attention,
    caps: Caps,
) -> Content {
    let text = notice(level, view);
    let mut actions = Vec::new();
    if caps.actions {
        actions.push(("default".to_string(), "Show pane".to_string()));
        if level.is_required() {
            actions.extend(buttons);
        }
    }
    Content {
        summary: text.summary,
        body: if caps.markup {
            escape_markup(&text.body)
        } else {
            text.body
        },
        icon: icon_name(level),
        actions,
        urgency: if level.is_required() || level == Attention::Error {
            2
        } else {
            1
        },
        category: format!("x-attend.{}", level.as_str()),
    }
}

/// What one batch did to a pane, for the notification decision.
#[derive(Debug, Default)]
struct Touch {
    created: Vec<Attention>,
    done: bool,
}

/// The level to announce for pane `p` after a batch that `touch`ed it: the highest
/// configured level created in the batch that is still outstanding (unread only with a
/// completion in the same batch); none for a focused pane.
fn wanted(p: &Pane, touch: &Touch, settings: &Settings) -> Option<Attention> {
    if p.focused {
        return None;
    }
    touch
        .created
        .iter()
        .copied()
        .filter(|l| settings.notify_levels.contains(l))
        .filter(|l| *l != Attention::Unread || touch.done)
        .filter(|l| p.items.iter().any(|i| i.level == *l))
        .max()
}

/// A notification Attend keeps up for a pane.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Shown {
    /// The server's id; `None` while no server took it.
    id: Option<u32>,
    level: Attention,
    /// The decision a required level announced.
    decision: Option<u64>,
    /// What the server was last sent: a decision a later rung enriched (the tool and
    /// command a hook names after the self-report opened it) replaces it in place.
    content: Option<Content>,
}

impl Shown {
    /// Whether the attention it announced is still outstanding on `p`.
    fn still_open(&self, p: Option<&Pane>) -> bool {
        p.is_some_and(|p| {
            p.items.iter().any(|i| {
                i.level == self.level && (self.decision.is_none() || i.decision == self.decision)
            })
        })
    }
}

struct Notifier {
    proxy: NotificationsProxy<'static>,
    actions: Actions,
    settings: Settings,
    caps: Option<Caps>,
    failed_at: Option<Instant>,
    warned: bool,
    /// A sound could not be played (logged once).
    sound_warned: bool,
    shown: BTreeMap<PaneId, Shown>,
    tokens: HashMap<u32, String>,
    snapshot: Arc<Snapshot>,
    /// The notifications kept up for remote panes ([`remote`]).
    remote_shown: BTreeMap<PaneRef, Shown>,
    /// The mirrored panes after the last remote update.
    remote: Arc<Vec<MirroredPane>>,
}

impl Notifier {
    /// The server's capabilities, asking when unknown; `None` when no server answers
    /// (logged once per outage; retried after [`RETRY_AFTER`] or when one appears).
    async fn server(&mut self) -> Option<Caps> {
        if let Some(c) = self.caps {
            return Some(c);
        }
        if self.failed_at.is_some_and(|t| t.elapsed() < RETRY_AFTER) {
            return None;
        }
        match tokio::time::timeout(CALL_LIMIT, self.proxy.get_capabilities()).await {
            Ok(Ok(list)) => {
                let caps = Caps::from_list(&list);
                tracing::info!(?caps, "desktop notifications: server found");
                self.caps = Some(caps);
                self.failed_at = None;
                self.warned = false;
                Some(caps)
            }
            other => {
                let why = match other {
                    Ok(Err(e)) => e.to_string(),
                    _ => format!("no answer within {} s", CALL_LIMIT.as_secs()),
                };
                self.unavailable(&why);
                None
            }
        }
    }

    fn unavailable(&mut self, why: &str) {
        self.caps = None;
        self.failed_at = Some(Instant::now());
        if !self.warned {
            self.warned = true;
            tracing::warn!(
                "no notification server on the bus ({NOTIFICATIONS}: {why}); running without \
                 desktop notifications until one appears"
            );
        }
    }

    async fn update(&mut self, u: &Update) {
        self.snapshot = u.snapshot.clone();
        let mut touched: BTreeMap<PaneId, Touch> = BTreeMap::new();
        for e in &u.events {
            let t = touched.entry(e.pane).or_default();
            match &e.kind {
                EventKind::AttentionCreated { level, .. } => t.created.push(*level),
                EventKind::Agent {
                    value: Lifecycle::Done,
                    ..
                } => t.done = true,
                _ => {}
            }
        }
        let snapshot = self.snapshot.clone();
        for (pane, touch) in touched {
            let p = snapshot.panes.get(&pane);
            match p.and_then(|p| wanted(p, &touch, &self.settings)) {
                Some(level) => self.show(pane, level, true).await,
                None => match (self.shown.get(&pane), p) {
                    (Some(s), _) if !s.still_open(p) => self.close(pane).await,
                    // The same decision, enriched: the notification says it better, in
                    // place (one decision, one notification, no second sound).
                    (Some(s), Some(p)) if s.level.is_required() && s.id.is_some() => {
                        let gated = snapshot.gates.contains(&pane);
                        let now = self.caps.map(|caps| content(p, gated, s.level, caps));
                        if now.is_some() && now != s.content {
                            let level = s.level;
                            self.show(pane, level, false).await;
                        }
                    }
                    _ => {}
                },
            }
        }
    }

    /// Shows (or replaces) the notification of `pane` at `level`; a `fresh` one (not
    /// raised again after a server restart) comes with the sound `[sound]` asks for: the
    /// `sound-name` hint, or, with no server, the theme's file played by Attend
    /// ([`sound`]).
    async fn show(&mut self, pane: PaneId, level: Attention, fresh: bool) {
        let snapshot = self.snapshot.clone();
        let Some(p) = snapshot.panes.get(&pane) else {
            return;
        };
        let decision = if level.is_required() {
            p.pending_decision.as_ref().map(|d| d.id)
        } else {
            None
        };
        let replaces = self.shown.get(&pane).and_then(|s| s.id);
        self.shown.insert(
            pane,
            Shown {
                id: replaces,
                level,
                decision,
                content: None,
            },
        );
        let sound =
            (fresh && self.settings.sound.wanted(level, p.agent)).then(|| sound::sound_name(level));
        let Some(caps) = self.server().await else {
            if let Some(name) = sound {
                self.play(pane, name);
            }
            return;
        };
        let c = content(p, self.snapshot.gates.contains(&pane), level, caps);
        if let Some(id) = self.notify(replaces, &c, sound).await {
            tracing::debug!(%pane, id, level = level.as_str(), "notified");
            if let Some(s) = self.shown.get_mut(&pane) {
                s.id = Some(id);
                s.content = Some(c);
            }
        }
    }

    /// `Notify` with `c` (replacing `replaces`) and the `sound-name` hint `sound`; the
    /// server's id, `None` when it failed (logged once).
    async fn notify(
        &mut self,
        replaces: Option<u32>,
        c: &Content,
        sound: Option<&str>,
    ) -> Option<u32> {
        let actions: Vec<&str> = c
            .actions
            .iter()
            .flat_map(|(k, l)| [k.as_str(), l.as_str()])
            .collect();
        let mut hints: HashMap<&str, Value<'_>> = HashMap::new();
        hints.insert("urgency", Value::U8(c.urgency));
        hints.insert("desktop-entry", Value::from(DESKTOP_ENTRY));
        hints.insert("category", Value::from(c.category.as_str()));
        if let Some(name) = sound {
            hints.insert("sound-name", Value::from(name));
        }
        let call = self.proxy.notify(
            "Attend",
            replaces.unwrap_or(0),
            &c.icon,
            &c.summary,
            &c.body,
            &actions,
            hints,
            -1,
        );
        match tokio::time::timeout(CALL_LIMIT, call).await {
            Ok(Ok(id)) => Some(id),
            Ok(Err(e)) => {
                self.unavailable(&e.to_string());
                None
            }
            Err(_) => {
                self.unavailable("Notify timed out");
                None
            }
        }
    }

    /// Plays sound `name` of the configured theme without a notification server; a
    /// failure is logged once.
    fn play(&mut self, pane: impl std::fmt::Display, name: &str) {
        match sound::play(name, &self.settings.sound.theme) {
            Ok(file) => {
                tracing::info!(%pane, file = %file.display(), "no notification server: sound played")
            }
            Err(e) if !self.sound_warned => {
                self.sound_warned = true;
                tracing::warn!("cannot play the notification sound: {e}");
            }
            Err(e) => tracing::debug!("cannot play the notification sound: {e}"),
        }
    }

    /// Closes and forgets the notification of `pane`.
    async fn close(&mut self, pane: PaneId) {
        let Some(Shown { id: Some(id), .. }) = self.shown.remove(&pane) else {
            return;
        };
        self.tokens.remove(&id);
        if self.caps.is_none() {
            return;
        }
        match tokio::time::timeout(CALL_LIMIT, self.proxy.close_notification(id)).await {
            Ok(Ok(())) => tracing::debug!(%pane, id, "notification closed"),
            Ok(Err(e)) => tracing::debug!(%pane, id, "cannot close the notification: {e}"),
            Err(_) => tracing::debug!(%pane, id, "CloseNotification timed out"),
        }
    }

    fn pane_of(&self, id: u32) -> Option<PaneId> {
        self.shown
            .iter()
            .find(|(_, s)| s.id == Some(id))
            .map(|(p, _)| *p)
    }

    /// `ActionInvoked`: `default` focuses the pane, a choice's button answers the
    /// decision with that choice (only the decision the notification announced).
    async fn invoked(&mut self, id: u32, key: &str) {
        let Some(pane) = self.pane_of(id) else {
            self.remote_invoked(id, key).await;
            return;
        };
        let token = self.tokens.remove(&id);
        let actions = self.actions.clone();
        match key {
            REPLY_IN_PANEL => self.reply_in_panel(pane, token).await,
            "default" => {
                tracing::info!(%pane, "notification clicked: focusing the pane");
                // The user acted on it: it goes away; the state keeps what is still open.
                self.close(pane).await;
                tokio::spawn(async move {
                    if let Err(e) = actions.focus(pane, token).await {
                        tracing::warn!(%pane, "cannot focus the pane: {e}");
                    }
                });
            }
            choice => {
                let announced = self.shown.get(&pane).and_then(|s| s.decision);
                let snapshot = self.snapshot.clone();
                let p = snapshot.panes.get(&pane);
                let open = p.and_then(|p| p.pending_decision.as_ref()).map(|d| d.id);
                if announced.is_none() || announced != open {
                    tracing::info!(%pane, "notification button for a decision that is gone: ignored");
                    return;
                }
                let gated = snapshot.gates.contains(&pane);
                if !p.is_some_and(|p| answer_buttons(p, gated).iter().any(|(c, _)| c == choice)) {
                    tracing::debug!(%pane, action = choice, "unknown notification action");
                    return;
                }
                tracing::info!(%pane, choice, "answering from the notification");
                let choice = choice.to_string();
                tokio::spawn(async move {
                    if let Err(e) = actions.answer(pane, &choice).await {
                        tracing::warn!(%pane, "cannot answer: {e}");
                    }
                });
            }
        }
    }

    /// `NotificationClosed`: the user dismissed it (or it expired): forget it.
    fn closed(&mut self, id: u32) {
        self.tokens.remove(&id);
        if let Some(pane) = self.pane_of(id) {
            self.shown.remove(&pane);
        }
        if let Some(pane) = self.remote_pane_of(id) {
            self.remote_shown.remove(&pane);
        }
    }

    /// The server appeared, restarted or left: its ids are void; when one is there, the
    /// notifications still wanted are raised again.
    async fn owner_changed(&mut self, present: bool) {
        self.caps = None;
        self.failed_at = None;
        self.tokens.clear();
        for s in self
            .shown
            .values_mut()
            .chain(self.remote_shown.values_mut())
        {
            s.id = None;
        }
        if !present {
            tracing::info!("the notification server left the bus");
            return;
        }
        tracing::info!("a notification server appeared on the bus");
        let snapshot = self.snapshot.clone();
        let again: Vec<(PaneId, Attention)> = self
            .shown
            .iter()
            .filter(|(p, s)| s.still_open(snapshot.panes.get(p)))
            .map(|(p, s)| (*p, s.level))
            .collect();
        self.shown.clear();
        for (pane, level) in again {
            // Raised again, not new: no sound.
            self.show(pane, level, false).await;
        }
        self.remote_again().await;
    }
}

fn next<S: Stream + Unpin>(s: &mut S) -> impl Future<Output = Option<S::Item>> + '_ {
    std::future::poll_fn(move |cx| std::pin::Pin::new(&mut *s).poll_next(cx))
}

/// Runs the notifications until `updates` closes (the daemon stops). Never fails: when
/// the bus refuses the subscriptions it logs that and keeps draining `updates`.
///
/// `remote` pushes every change of the remote hosts' mirrors: their notifications are
/// raised and withdrawn as the mirror says ([`remote`]).
pub async fn run(
    conn: zbus::Connection,
    mut updates: mpsc::UnboundedReceiver<Arc<Update>>,
    mut remote: mpsc::UnboundedReceiver<Arc<RemoteUpdate>>,
    actions: Actions,
    settings: Settings,
) {
    let levels: Vec<&str> = settings.notify_levels.iter().map(|l| l.as_str()).collect();
    tracing::info!(levels = %levels.join(","), "desktop notifications on");
    let sound = &settings.sound;
    if !sound.levels.is_empty() {
        let levels: Vec<&str> = sound.levels.iter().map(|l| l.as_str()).collect();
        let agents = sound.agents.as_ref().map_or("all".to_string(), |a| {
            a.iter().map(|a| a.as_str()).collect::<Vec<_>>().join(",")
        });
        tracing::info!(levels = %levels.join(","), %agents, theme = %sound.theme, "notification sounds on");
    }
    let subscribed = async {
        let proxy = NotificationsProxy::builder(&conn)
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
            .await?;
        let invoked = proxy.receive_action_invoked().await?;
        let closed = proxy.receive_notification_closed().await?;
        let tokens = proxy.receive_activation_token().await?;
        let replied = proxy.receive_notification_replied().await?;
        let dbus = zbus::fdo::DBusProxy::new(&conn).await?;
        let owners = dbus
            .receive_name_owner_changed_with_args(&[(0, NOTIFICATIONS)])
            .await?;
        Ok::<_, zbus::Error>((proxy, invoked, closed, tokens, owners, replied))
    };
    let (proxy, mut invoked, mut closed, mut tokens, mut owners, mut replied) =
        match subscribed.await {
            Ok(x) => x,
            Err(e) => {
                tracing::warn!("desktop notifications unavailable: {e}");
                drop(remote);
                while updates.recv().await.is_some() {}
                return;
            }
        };
    let mut n = Notifier {
        proxy,
        actions,
        settings,
        caps: None,
        failed_at: None,
        warned: false,
        sound_warned: false,
        shown: BTreeMap::new(),
        tokens: HashMap::new(),
        snapshot: Arc::new(Snapshot::default()),
        remote_shown: BTreeMap::new(),
        remote: Arc::new(Vec::new()),
    };
    loop {
        tokio::select! {
            u = updates.recv() => match u {
                Some(u) => n.update(&u).await,
                None => break,
            },
            Some(u) = remote.recv() => n.remote_update(&u).await,
            Some(s) = next(&mut invoked) => {
                if let Ok(a) = s.args() {
                    n.invoked(a.id, &a.action_key).await;
                }
            }
            Some(s) = next(&mut closed) => {
                if let Ok(a) = s.args() {
                    n.closed(a.id);
                }
            }
            Some(s) = next(&mut replied) => {
                if let Ok(a) = s.args() {
                    n.replied(a.id, &a.text).await;
                }
            }
            Some(s) = next(&mut tokens) => {
                if let Ok(a) = s.args() {
                    n.tokens.insert(a.id, a.activation_token.clone());
                }
            }
            Some(s) = next(&mut owners) => {
                if let Ok(a) = s.args() {
                    n.owner_changed(a.new_owner.is_some()).await;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
