//! The `adw::Application` (`io.github.attend.Attend`, D-Bus activatable): one window,
//! the stylesheet, keyboard shortcuts ([`shortcuts::ACCELS`]), and the app actions other programs activate
//! through `org.freedesktop.Application` — `app.show-pane` (`s`: a pane id; the
//! notifications' "focus" action) and `app.quit`.
//!
//! The D-Bus client starts in the primary instance only (`startup`); a second
//! `attend-panel` just activates the first and exits.

use super::client::{self, Request, Update};
use super::window::PanelWindow;
use super::{actions, i18n, shortcuts, terminal_actions};
use crate::config::APP_ID;
use adw::prelude::*;
use async_channel::Sender;
use gtk4 as gtk;
use gtk4::{gio, glib};
use std::cell::{OnceCell, RefCell};
use std::rc::Rc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long the D-Bus thread may take to deliver the last requests (focus off) at exit.
const FLUSH: Duration = Duration::from_secs(2);

/// What the primary instance shares between its callbacks.
struct Shared {
    requests: Sender<Request>,
    thread: RefCell<Option<JoinHandle<()>>>,
    /// The last state update, for a window opened after it arrived.
    last_state: RefCell<Option<Update>>,
}

/// Runs the application; returns the process exit code.
pub fn run() -> i32 {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .try_init();
    i18n::init();
    let app = adw::Application::builder()
        .application_id(APP_ID)
        .flags(gio::ApplicationFlags::empty())
        .build();
    let shared: Rc<OnceCell<Rc<Shared>>> = Rc::default();

    app.connect_startup(glib::clone!(
        #[strong]
        shared,
        move |app| {
            load_css();
            shortcuts::install(app);
            let (requests, updates, thread) = client::spawn();
            let s = Rc::new(Shared {
                requests,
                thread: RefCell::new(Some(thread)),
                last_state: RefCell::new(None),
            });
            listen(app, updates, s.clone());
            let _ = shared.set(s);
        }
    ));
    app.connect_shutdown(|app| {
        for w in app.windows() {
            if let Ok(w) = w.downcast::<PanelWindow>() {
                w.release_focus();
            }
        }
    });
    app.connect_activate(glib::clone!(
        #[strong]
        shared,
        move |app| {
            if let Some(s) = shared.get() {
                window(app, s).present();
            }
        }
    ));

    let quit = gio::SimpleAction::new("quit", None);
    quit.connect_activate(glib::clone!(
        #[weak]
        app,
        move |_, _| app.quit()
    ));
    app.add_action(&quit);
    let show = gio::SimpleAction::new("show-pane", Some(glib::VariantTy::STRING));
    show.connect_activate(glib::clone!(
        #[weak]
        app,
        #[strong]
        shared,
        move |_, param| {
            let Some(s) = shared.get() else { return };
            let w = window(&app, s);
            match param.and_then(|p| p.get::<String>()) {
                Some(p) => w.show_pane(p),
                None => w.present(),
            }
        }
    ));
    app.add_action(&show);
    // A notification's "Reply…": the Needs you view with the pane's reply field focused.
    let reply = gio::SimpleAction::new("reply-pane", Some(glib::VariantTy::STRING));
    reply.connect_activate(glib::clone!(
        #[weak]
        app,
        #[strong]
        shared,
        move |_, param| {
            let Some(s) = shared.get() else { return };
            if let Some(p) = param.and_then(|p| p.get::<String>()) {
                window(&app, s).reply_to(p);
            }
        }
    ));
    app.add_action(&reply);

    let code = app.run();
    if let Some(s) = shared.get() {
        // Deliver what is queued (the window's last focus report), then stop the client.
        let _ = s.requests.try_send(Request::Quit);
        if let Some(thread) = s.thread.take() {
            let deadline = Instant::now() + FLUSH;
            while !thread.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
    i32::from(code)
}

/// The app's window, made on first use with the last known state.
fn window(app: &adw::Application, s: &Shared) -> PanelWindow {
    if let Some(w) = app
        .windows()
        .into_iter()
        .find_map(|w| w.downcast::<PanelWindow>().ok())
    {
        return w;
    }
    let w = PanelWindow::new(app, s.requests.clone());
    actions::install(&w);
    terminal_actions::setup(&w, s.requests.clone());
    if let Some(u) = s.last_state.borrow().clone() {
        w.apply(u);
    }
    w
}

/// Forwards the client's updates to the window, keeping the last state update; quits on
/// [`Update::Quit`].
fn listen(app: &adw::Application, updates: async_channel::Receiver<Update>, s: Rc<Shared>) {
    let app = app.downgrade();
    glib::spawn_future_local(async move {
        while let Ok(u) = updates.recv().await {
            let Some(app) = app.upgrade() else { break };
            match u {
                Update::Quit => {
                    app.quit();
                    continue;
                }
                Update::Offline | Update::Snapshot(_) => {
                    s.last_state.replace(Some(u.clone()));
                }
                _ => {}
            }
            if let Some(w) = app
                .windows()
                .into_iter()
                .find_map(|w| w.downcast::<PanelWindow>().ok())
            {
                w.apply(u);
            }
        }
    });
}

fn load_css() {
    let provider = gtk::CssProvider::new();
    provider.load_from_data(include_str!("style.css"));
    if let Some(display) = gtk::gdk::Display::default() {
        gtk::style_context_add_provider_for_display(
            &display,
            &provider,
            gtk::STYLE_PROVIDER_PRIORITY_APPLICATION,
        );
    }
}
