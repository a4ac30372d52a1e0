//! The selected pane's live terminal (`docs/desktop-surfaces.md#the-live-terminal`): a VTE
//! terminal ([`TerminalView`]) attached to the pane through the daemon's attach socket as
//! `attend attach` is, as a *watch* client (`src/client/attach/watch.rs`,
//! `docs/decisions/0017-panel-terminal-over-the-attach-socket.md`).
//!
//! - Showing a pane whose PTY Attend holds here ([`terminal_source::Source::Live`]) asks
//!   the daemon for the socket (`Attach`), connects, and feeds the redraw and the live
//!   output to VTE: colours, cursor, scrollback and mouse selection are VTE's.
//! - What VTE sends to its child (keys, pastes, mouse reports) goes to the program as
//!   input frames; a grid change (the widget resized) as a resize frame, so the pane
//!   takes the widget's size; the widget's keyboard focus as focus frames (which reach
//!   the program only, as `CSI I` / `CSI O` when it asked for them).
//! - Showing another pane, or none, detaches: the program keeps running. A dropped
//!   connection (the daemon restarting) is attached again at the next snapshot.
//! - A followed tmux pane and a remote pane its host holds ([`Source::Relayed`]) are
//!   shown through `attend attach --watch ID` run in a pseudo-terminal of the widget's
//!   (`src/client/attach/relay.rs`): a tmux client of its own, or the link's carrier
//!   running `attend attach` on the host. The same frames go to it (input, resize);
//!   leaving the pane hangs it up (the pane runs on). When it ends by itself (tmux's
//!   detach key, the pane gone) its last screen stays until the pane is shown again.
//! - Any other pane shows the sentence of [`terminal_source::reason`].
//!
//! The window is told when the terminal takes or loses the keyboard focus
//! ([`PaneTerminal::setup`]): it engages the pane (focus and seen, as an activation) and
//! suspends its single-key shortcuts so that keys reach the program.

use super::client::Request;
use super::data::PaneInfo;
use super::terminal_source::{self, Source};
use super::terminal_view::TerminalView;
use super::vte::TerminalExt;
use async_channel::Sender;
use gtk4 as gtk;
use gtk4::glib;
use gtk4::prelude::*;
use gtk4::subclass::prelude::*;
use serde_json::{json, Value};
use std::path::PathBuf;

use crate::client::attach::frame::ClientFrame;
use crate::client::attach::relay::Relay;
use crate::client::attach::watch::{Watch, WatchEvent};

/// Where the connection to the pane shown stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Conn {
    /// No pane, or a pane without a live screen.
    #[default]
    Idle,
    /// `Attach` was asked of the daemon; its answer is awaited.
    Asking,
    /// Connected (or connecting) to the socket.
    Attached,
    /// The program exited while shown: its last screen stays.
    Exited,
    /// The connection ended (the daemon went away): attached again at the next snapshot.
    Ended,
    /// The daemon refused (or the relayed command could not start): its reason is shown
    /// until another pane is.
    Failed,
    /// The relayed command ended by itself: its last screen stays until the pane is
    /// shown again.
    Left,
}

impl Conn {
    fn name(self) -> &'static str {
        match self {
            Conn::Idle => "idle",
            Conn::Asking => "asking",
            Conn::Attached => "attached",
            Conn::Exited => "exited",
            Conn::Ended => "ended",
            Conn::Failed => "failed",
            Conn::Left => "left",
        }
    }
}

/// How the pane shown is connected: the daemon's attach socket, or a relayed
/// `attend attach --watch`.
#[derive(Debug)]
pub enum Link {
    /// A watch client of the attach socket (a pane whose PTY Attend holds here).
    Socket(Watch),
    /// `attend attach --watch ID` in a terminal of the widget's.
    Relay(Relay),
}

impl Link {
    fn send(&self, frame: ClientFrame) {
        match self {
            Link::Socket(w) => w.send(frame),
            Link::Relay(r) => r.send(frame),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Link::Socket(_) => "socket",
            Link::Relay(_) => "relay",
        }
    }
}

/// The colours of the terminal: foreground, background and the 16-colour palette
/// (Tango, as GNOME's terminals use), so a program's colours look as in a terminal.
const FOREGROUND: &str = "#d3d7cf";
const BACKGROUND: &str = "#1e1e1e";
const PALETTE: [&str; 16] = [
    "#2e3436", "#cc0000", "#4e9a06", "#c4a000", "#3465a4", "#75507b", "#06989a", "#d3d7cf",
    "#555753", "#ef2929", "#8ae234", "#fce94f", "#729fcf", "#ad7fa8", "#34e2e2", "#eeeeec",
];

/// Told when the terminal takes (`true`) or loses the keyboard focus, with its pane.
type FocusHandler = Box<dyn Fn(&str, bool)>;

mod imp {
    use super::*;
    use std::cell::{Cell, OnceCell, RefCell};

    #[derive(Default, gtk::CompositeTemplate)]
    #[template(file = "pane_terminal.ui")]
    pub struct PaneTerminal {
        #[template_child]
        pub stack: TemplateChild<gtk::Stack>,
        #[template_child]
        pub view: TemplateChild<TerminalView>,
        #[template_child]
        pub reason: TemplateChild<gtk::Label>,
        pub requests: OnceCell<Sender<Request>>,
        pub on_focus: OnceCell<FocusHandler>,
        pub on_change: OnceCell<Box<dyn Fn()>>,
        /// The pane shown.
        pub pane: RefCell<Option<String>>,
        pub conn: Cell<Conn>,
        pub watch: RefCell<Option<Link>>,
        /// Counts connections: events of an older one are dropped.
        pub generation: Cell<u64>,
        /// A change notice is queued (coalesced into one idle call).
        pub change_queued: Cell<bool>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for PaneTerminal {
        const NAME: &str = "AttendPaneTerminal";
        type Type = super::PaneTerminal;
        type ParentType = gtk::Box;

        fn class_init(klass: &mut Self::Class) {
            TerminalView::ensure_type();
            klass.bind_template();
        }

        fn instance_init(obj: &glib::subclass::InitializingObject<Self>) {
            obj.init_template();
        }
    }

    impl ObjectImpl for PaneTerminal {
        fn constructed(&self) {
            self.parent_constructed();
            self.obj().init();
        }
    }

    impl WidgetImpl for PaneTerminal {}
    impl BoxImpl for PaneTerminal {}
}

glib::wrapper! {
    /// The live terminal of the pane detail.
    pub struct PaneTerminal(ObjectSubclass<imp::PaneTerminal>)
        @extends gtk::Box, gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget, gtk::Orientable;
}

impl PaneTerminal {
    fn init(&self) {
        let view = self.imp().view.get();
        let rgba = |s: &str| gtk::gdk::RGBA::parse(s).expect("a valid colour");
        let palette: Vec<gtk::gdk::RGBA> = PALETTE.iter().map(|c| rgba(c)).collect();
        view.set_colors(&rgba(FOREGROUND), &rgba(BACKGROUND), &palette);
        let weak = self.downgrade();
        view.connect_commit(move |bytes| {
            if let Some(t) = weak.upgrade() {
                t.send(ClientFrame::Input(bytes.to_vec()));
            }
        });
        let weak = self.downgrade();
        view.connect_grid(move |rows, cols| {
            if let Some(t) = weak.upgrade() {
                t.send(ClientFrame::Resize { rows, cols });
            }
        });
        let weak = self.downgrade();
        view.connect_contents_changed(move || {
            if let Some(t) = weak.upgrade() {
                t.changed();
            }
        });
        let focus = gtk::EventControllerFocus::new();
        let weak = self.downgrade();
        focus.connect_enter(move |_| {
            if let Some(t) = weak.upgrade() {
                t.focus_changed(true);
            }
        });
        let weak = self.downgrade();
        focus.connect_leave(move |_| {
            if let Some(t) = weak.upgrade() {
                t.focus_changed(false);
            }
        });
        view.add_controller(focus);
        self.show_reason(None);
    }

    /// Connects the terminal to the window: `requests` carries its `Attach` calls,
    /// `on_focus(pane, inside)` hears when the terminal takes or loses the keyboard
    /// focus, `on_change` when what it shows changed (the test dump). Once.
    pub fn setup(
        &self,
        requests: Sender<Request>,
        on_focus: impl Fn(&str, bool) + 'static,
        on_change: impl Fn() + 'static,
    ) {
        let imp = self.imp();
        let _ = imp.requests.set(requests);
        let _ = imp.on_focus.set(Box::new(on_focus));
        let _ = imp.on_change.set(Box::new(on_change));
    }

    /// Shows `pane` (`None`: nothing): attaches to a live one, detaches from the one
    /// shown before, or shows why the pane has no screen.
    pub fn set_pane(&self, pane: Option<&PaneInfo>) {
        let imp = self.imp();
        let Some(p) = pane else {
            self.detach();
            imp.pane.replace(None);
            self.show_reason(None);
            return;
        };
        let same = imp.pane.borrow().as_deref() == Some(p.id.as_str());
        let source = terminal_source::source(p);
        if !same {
            self.detach();
            imp.view.reset_all();
            imp.pane.replace(Some(p.id.clone()));
        }
        match (source, imp.conn.get()) {
            // The last screen of a program that exited while shown stays.
            (Source::Exited, Conn::Exited | Conn::Attached | Conn::Left) => {}
            (Source::Live, conn @ (Conn::Idle | Conn::Ended | Conn::Exited)) => {
                if conn == Conn::Exited {
                    // Resumed: a new program in the same pane.
                    imp.view.reset_all();
                }
                imp.conn.set(Conn::Asking);
                imp.stack.set_visible_child_name("live");
                imp.view.set_input_enabled(true);
                if let Some(tx) = imp.requests.get() {
                    let _ = tx.try_send(Request::Attach(p.id.clone()));
                }
            }
            (Source::Live, _) => {}
            (Source::Relayed, Conn::Idle) => {
                imp.stack.set_visible_child_name("live");
                imp.view.set_input_enabled(true);
                self.start_relay(&p.id);
            }
            (Source::Relayed, _) => {}
            (other, _) => {
                self.detach();
                self.show_reason(terminal_source::reason(&other, &p.id));
            }
        }
        self.changed();
    }

    /// The daemon's answer to `Attach(pane)`: the socket path, or its error.
    pub fn on_socket(&self, pane: &str, socket: Result<String, String>) {
        let imp = self.imp();
        if imp.pane.borrow().as_deref() != Some(pane) || imp.conn.get() != Conn::Asking {
            return;
        }
        let path = match socket {
            Ok(path) => PathBuf::from(path),
            Err(message) => {
                imp.conn.set(Conn::Failed);
                self.show_reason(Some(message));
                return;
            }
        };
        let pane = pane.to_string();
        self.connect(|rows, cols, on_event| {
            Link::Socket(Watch::start(path, pane, rows, cols, on_event))
        });
    }

    /// Runs `attend attach --watch pane` in a terminal of the widget's
    /// ([`Source::Relayed`]): without `TMUX`, so that tmux attaches a client of its own
    /// even when the panel was started inside tmux.
    fn start_relay(&self, pane: &str) {
        let mut command = std::process::Command::new(super::attach_terminal::attend_binary());
        command
            .args(["attach", "--watch", pane])
            .env("TERM", "xterm-256color")
            .env_remove("TMUX")
            .env_remove("TMUX_PANE");
        self.connect(|rows, cols, on_event| {
            Link::Relay(Relay::start(command, rows, cols, on_event))
        });
    }

    /// Starts the link `start(rows, cols, on_event)` returns, at the widget's grid, and
    /// feeds its events to [`Self::on_event`] on the main loop.
    fn connect(&self, start: impl FnOnce(u16, u16, Box<dyn FnMut(WatchEvent) + Send>) -> Link) {
        let imp = self.imp();
        let generation = imp.generation.get() + 1;
        imp.generation.set(generation);
        let (tx, rx) = async_channel::unbounded::<WatchEvent>();
        let (rows, cols) = imp.view.grid();
        let link = start(
            rows,
            cols,
            Box::new(move |e| {
                let _ = tx.send_blocking(e);
            }),
        );
        imp.watch.replace(Some(link));
        imp.conn.set(Conn::Attached);
        let weak = self.downgrade();
        glib::spawn_future_local(async move {
            while let Ok(event) = rx.recv().await {
                let Some(t) = weak.upgrade() else { return };
                if t.imp().generation.get() != generation {
                    return;
                }
                t.on_event(event);
            }
        });
        self.changed();
    }

    fn on_event(&self, event: WatchEvent) {
        let imp = self.imp();
        match event {
            WatchEvent::Attached => {
                // The daemon resized the pane to the hello's grid; a change since then
                // (the widget allocated meanwhile) is sent now.
                let (rows, cols) = imp.view.grid();
                self.send(ClientFrame::Resize { rows, cols });
                if imp.view.has_focus() {
                    self.send(ClientFrame::FocusIn);
                }
            }
            WatchEvent::Output(bytes) => imp.view.feed(&bytes),
            WatchEvent::Exited(_) => {
                imp.watch.replace(None);
                imp.conn.set(Conn::Exited);
                imp.view.set_input_enabled(false);
            }
            WatchEvent::Refused(text) => {
                imp.watch.replace(None);
                imp.conn.set(Conn::Failed);
                self.show_reason(Some(text));
            }
            WatchEvent::Ended(_) => {
                let relayed = matches!(imp.watch.replace(None), Some(Link::Relay(_)));
                if relayed {
                    imp.conn.set(Conn::Left);
                    imp.view.set_input_enabled(false);
                } else {
                    imp.conn.set(Conn::Ended);
                }
            }
        }
        self.changed();
    }

    /// Drops the connection (a detach: the program keeps running).
    fn detach(&self) {
        let imp = self.imp();
        imp.generation.set(imp.generation.get() + 1);
        imp.watch.replace(None);
        imp.conn.set(Conn::Idle);
    }

    fn show_reason(&self, text: Option<String>) {
        let imp = self.imp();
        imp.reason.set_text(&text.unwrap_or_default());
        imp.stack.set_visible_child_name("none");
    }

    fn send(&self, frame: ClientFrame) {
        if let Some(w) = self.imp().watch.borrow().as_ref() {
            w.send(frame);
        }
    }

    fn focus_changed(&self, inside: bool) {
        self.send(if inside {
            ClientFrame::FocusIn
        } else {
            ClientFrame::FocusOut
        });
        let pane = self.imp().pane.borrow().clone();
        if let (Some(pane), Some(f)) = (pane, self.imp().on_focus.get()) {
            f(&pane, inside);
        }
        self.changed();
    }

    /// Tells the window (once per main-loop turn) that what the terminal shows changed.
    fn changed(&self) {
        let imp = self.imp();
        if imp.on_change.get().is_none() || imp.change_queued.replace(true) {
            return;
        }
        let weak = self.downgrade();
        glib::idle_add_local_once(move || {
            if let Some(t) = weak.upgrade() {
                t.imp().change_queued.set(false);
                if let Some(f) = t.imp().on_change.get() {
                    f();
                }
            }
        });
    }

    /// True when the pane's screen is shown live (keys can go to it).
    pub fn is_live(&self) -> bool {
        self.imp().conn.get() == Conn::Attached
    }

    /// True while the terminal has the keyboard focus.
    pub fn has_keyboard_focus(&self) -> bool {
        self.imp().view.has_focus()
    }

    /// Gives the terminal the keyboard focus; false when it shows no live screen.
    pub fn take_focus(&self) -> bool {
        self.is_live() && self.imp().view.grab_focus()
    }

    /// The sentence shown instead of a screen, when one is.
    pub fn reason(&self) -> Option<String> {
        let imp = self.imp();
        (imp.stack.visible_child_name().as_deref() == Some("none"))
            .then(|| imp.reason.text().to_string())
    }

    /// Copies the selection to the clipboard (the copy shortcut).
    pub fn copy(&self) {
        self.imp().view.copy_text();
    }

    /// Pastes the clipboard into the program (the paste shortcut).
    pub fn paste(&self) {
        if self.is_live() {
            self.imp().view.paste_clipboard();
        }
    }

    /// What the terminal displays, for `ATTEND_PANEL_DUMP`.
    pub fn dump(&self) -> Value {
        let imp = self.imp();
        let (rows, cols) = imp.view.grid();
        let text = imp.view.text();
        json!({
            "mode": imp.stack.visible_child_name().map(|n| n.to_string()),
            "reason": self.reason(),
            "connection": imp.conn.get().name(),
            "link": imp.watch.borrow().as_ref().map(Link::name),
            "rows": rows,
            "cols": cols,
            "focused": imp.view.has_focus(),
            "text": text.trim_end(),
        })
    }
}
