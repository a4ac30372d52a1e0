//! What a click on a surface does (`docs/lifecycle-attention.md#clearing-rules`;
//! `docs/desktop-surfaces.md#one-vocabulary`): the same commands the D-Bus
//! methods send to the owner task (so a click is exactly `attend focus`, `attend answer`,
//! `attend seen`), then showing the pane — through its terminal's CLI for an external pane
//! in tmux, kitty or WezTerm, else by raising the panel on it with the click's
//! activation token.

use super::terminal_location::TerminalRegistry;
use crate::config::{PANEL_NAME, PANEL_PATH};
use crate::model::{Action, PaneId, PaneRef};
use crate::service::bus::error::Attend1Error;
use crate::service::command::{ask, Command};
use crate::service::remotes::act::RemoteCall;
use crate::service::remotes::Remotes;
use crate::system::launch::{find_program, has_display, spawn_detached};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, Notify};
use zbus::zvariant::Value;

/// How long a freshly started panel may take to appear on the bus.
const PANEL_START: Duration = Duration::from_secs(10);
/// How long the panel may take to answer an activation.
const PANEL_CALL: Duration = Duration::from_secs(10);
/// How long a reply waits after picking a dialog's free-text option before typing: the
/// agent redraws the option as a text field.
const REPLY_PICK_SETTLE: Duration = Duration::from_millis(400);
/// Between a reply's text and its Enter: an agent that reads a burst of input as a paste
/// would take the Enter as part of it.
const REPLY_ENTER_AFTER: Duration = Duration::from_millis(150);

/// The actions the surfaces can take. Cheap to clone.
#[derive(Clone)]
pub struct Actions {
    conn: zbus::Connection,
    cmd_tx: mpsc::Sender<Command>,
    terminals: TerminalRegistry,
    quit: Arc<Notify>,
    /// Where actions on remote panes (`NAME:pN`) go.
    remotes: Remotes,
}

impl Actions {
    /// Actions sending to the owner task through `cmd_tx` and talking to the panel on
    /// `conn`.
    pub fn new(
        conn: zbus::Connection,
        cmd_tx: mpsc::Sender<Command>,
        terminals: TerminalRegistry,
        quit: Arc<Notify>,
        remotes: Remotes,
    ) -> Actions {
        Actions {
            conn,
            cmd_tx,
            terminals,
            quit,
            remotes,
        }
    }

    /// A notification click or "Jump to next unread" (a notification click is focus:
    /// `docs/lifecycle-attention.md#clearing-rules`): marks the pane seen and emits
    /// `FocusRequested` (the `Focus` method's path), then shows it: its terminal selects it
    /// when it runs in tmux, kitty or WezTerm (a followed tmux pane is selected by the
    /// owner, `docs/tmux.md#focus`), else the panel is raised on it with `token` (an XDG
    /// activation token).
    pub async fn focus(&self, pane: PaneId, token: Option<String>) -> Result<(), Attend1Error> {
        if ask(&self.cmd_tx, |r| Command::Focus(pane, r)).await? {
            return Ok(());
        }
        if let Some(location) = self.terminals.get(pane) {
            match location.focus().await {
                Ok(()) => {
                    tracing::info!(%pane, "selected the pane in its terminal");
                    return Ok(());
                }
                Err(e) => tracing::warn!(%pane, "cannot select the pane in its terminal: {e}"),
            }
        }
        self.show_panel(Some(pane), token).await;
        Ok(())
    }

    /// Answers the pane's open decision (`attend answer`'s path).
    pub async fn answer(&self, pane: PaneId, choice: &str) -> Result<(), Attend1Error> {
        let choice = choice.to_string();
        ask(&self.cmd_tx, |r| Command::Answer(pane, choice, r)).await
    }

    /// Marks the pane seen (`attend seen`'s path).
    pub async fn mark_seen(&self, pane: PaneId) -> Result<(), Attend1Error> {
        ask(&self.cmd_tx, |r| Command::Act(pane, Action::MarkSeen, r)).await
    }

    /// Marks the remote pane `pane` (`NAME:pN`) seen on its host (`MarkSeen` over the
    /// link, [`Remotes::act`]; the same errors).
    pub async fn mark_seen_remote(&self, pane: &PaneRef) -> Result<(), Attend1Error> {
        self.remotes.act(pane, RemoteCall::MarkSeen).await
    }

    /// Removes every exited pane (`attend rm --exited`'s path, `RemoveExited(0)`);
    /// returns their ids.
    pub async fn remove_exited(&self) -> Result<Vec<PaneId>, Attend1Error> {
        ask(&self.cmd_tx, |r| Command::RemoveExited(0, false, r)).await
    }

    /// The engine's next unread pane (`attend next`'s path).
    pub async fn next_unread(&self) -> Result<Option<PaneRef>, Attend1Error> {
        let id = ask(&self.cmd_tx, Command::NextUnread).await?;
        Ok(PaneRef::parse(&id))
    }

    /// Focuses `pane`, local ([`Actions::focus`]) or remote ([`Actions::focus_remote`]).
    pub async fn focus_ref(
        &self,
        pane: &PaneRef,
        token: Option<String>,
    ) -> Result<(), Attend1Error> {
        match pane.host {
            None => self.focus(pane.pane, token).await,
            Some(_) => self.focus_remote(pane, token).await,
        }
    }

    /// Focuses the remote pane `pane` (`NAME:pN`) on its host (`Focus` over the link,
    /// [`Remotes::act`]), then, when the panel is running, shows it on the pane.
    ///
    /// Errors: [`Remotes::act`]'s (`NoSuchHost`, `HostOffline`, the remote's own).
    pub async fn focus_remote(
        &self,
        pane: &PaneRef,
        token: Option<String>,
    ) -> Result<(), Attend1Error> {
        self.remotes.act(pane, RemoteCall::Focus).await?;
        if matches!(self.panel_running().await, Ok(true)) {
            if let Err(e) = self
                .activate_panel("show-pane", Some(pane.to_string()), token)
                .await
            {
                tracing::warn!(%pane, "cannot show the panel: {e}");
            }
        }
        Ok(())
    }

    /// Answers the open decision of the remote pane `pane` with `choice` on its host
    /// (`Answer` over the link, [`Remotes::act`]; the same errors).
    pub async fn answer_remote(&self, pane: &PaneRef, choice: &str) -> Result<(), Attend1Error> {
        self.remotes
            .act(pane, RemoteCall::Answer(choice.to_string()))
            .await
    }

    /// Asks the daemon to stop (the tray's "Quit"): the same shutdown as SIGTERM.
    pub fn quit(&self) {
        self.quit.notify_one();
    }

    /// Raises the panel (`io.github.attend.Attend`), on `pane` when given (its
    /// `app.show-pane` action), passing `token` as the activation token. When the panel
    /// is not running it is started (`attend-panel` beside this program or on `PATH`,
    /// with `XDG_ACTIVATION_TOKEN`) and awaited on the bus; without a display it is not
    /// started. Failures are logged: the click already did its part.
    pub async fn show_panel(&self, pane: Option<PaneId>, token: Option<String>) {
        if let Err(e) = self.try_show_panel("show-pane", pane, token).await {
            tracing::warn!("cannot show the panel: {e}");
        }
    }

    /// A notification's "Reply…": raises the panel (started when not running, as
    /// [`Actions::show_panel`]) with its `app.reply-pane` action on `pane`: the Needs you
    /// view with the pane's reply field focused.
    pub async fn reply_in_panel(&self, pane: PaneId, token: Option<String>) {
        if let Err(e) = self.try_show_panel("reply-pane", Some(pane), token).await {
            tracing::warn!("cannot open the panel's reply field: {e}");
        }
    }

    /// A typed reply to the pane's question (`docs/desktop-surfaces.md#replies`): the
    /// option labelled `pick` first when the question is a dialog (as `attend answer`
    /// takes a label), then `text`, then Enter (`attend send`'s path), and the pane marked
    /// seen (typing is interaction). Errors: the first command refused.
    pub async fn reply(
        &self,
        pane: PaneId,
        pick: Option<String>,
        text: String,
    ) -> Result<(), Attend1Error> {
        if let Some(label) = pick {
            self.answer(pane, &label).await?;
            tokio::time::sleep(REPLY_PICK_SETTLE).await;
        }
        let bytes = text.into_bytes();
        ask(&self.cmd_tx, |r| Command::SendInput(pane, bytes, r)).await?;
        tokio::time::sleep(REPLY_ENTER_AFTER).await;
        ask(&self.cmd_tx, |r| {
            Command::SendInput(pane, b"\r".to_vec(), r)
        })
        .await?;
        self.mark_seen(pane).await
    }

    async fn panel_running(&self) -> Result<bool, String> {
        let dbus = zbus::fdo::DBusProxy::new(&self.conn)
            .await
            .map_err(|e| e.to_string())?;
        let name = zbus::names::BusName::try_from(PANEL_NAME).map_err(|e| e.to_string())?;
        dbus.name_has_owner(name).await.map_err(|e| e.to_string())
    }

    async fn try_show_panel(
        &self,
        action: &str,
        pane: Option<PaneId>,
        token: Option<String>,
    ) -> Result<(), String> {
        if !self.panel_running().await? {
            if !has_display() {
                return Err("no display (WAYLAND_DISPLAY and DISPLAY are unset)".into());
            }
            match find_program("attend-panel") {
                Some(bin) => {
                    let mut env = BTreeMap::new();
                    if let Some(t) = &token {
                        env.insert("XDG_ACTIVATION_TOKEN".to_string(), t.clone());
                        env.insert("DESKTOP_STARTUP_ID".to_string(), t.clone());
                    }
                    let argv = vec![bin.to_string_lossy().into_owned()];
                    spawn_detached(&argv, &env, None)
                        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
                    let start = Instant::now();
                    while !self.panel_running().await? {
                        if start.elapsed() > PANEL_START {
                            return Err(format!(
                                "{} did not appear on the bus within {} s",
                                bin.display(),
                                PANEL_START.as_secs()
                            ));
                        }
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                }
                // Not beside us nor on PATH: D-Bus activation may still know it.
                None => tracing::info!("attend-panel not found; trying D-Bus activation"),
            }
        }
        self.activate_panel(action, pane.map(|p| p.to_string()), token)
            .await
    }

    /// Calls the panel: `ActivateAction(action, [pane])` on a pane id (`pN` or
    /// `NAME:pN`), else `Activate`.
    async fn activate_panel(
        &self,
        action: &str,
        pane: Option<String>,
        token: Option<String>,
    ) -> Result<(), String> {
        let mut platform: HashMap<&str, Value<'_>> = HashMap::new();
        if let Some(t) = &token {
            platform.insert("activation-token", Value::from(t.as_str()));
            platform.insert("desktop-startup-id", Value::from(t.as_str()));
        }
        let call = async {
            match pane {
                Some(p) => {
                    let param = vec![Value::from(p)];
                    self.conn
                        .call_method(
                            Some(PANEL_NAME),
                            PANEL_PATH,
                            Some("org.freedesktop.Application"),
                            "ActivateAction",
                            &(action, param, platform),
                        )
                        .await
                }
                None => {
                    self.conn
                        .call_method(
                            Some(PANEL_NAME),
                            PANEL_PATH,
                            Some("org.freedesktop.Application"),
                            "Activate",
                            &(platform,),
                        )
                        .await
                }
            }
        };
        match tokio::time::timeout(PANEL_CALL, call).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!(
                "the panel did not answer within {} s",
                PANEL_CALL.as_secs()
            )),
        }
    }
}
