//! `attend up` (`docs/desktop-surfaces.md#attend-up-and-attend-demo---live`): makes sure
//! the session service runs — D-Bus activation when it is installed, else `attend daemon`
//! started detached (its log in the state directory) and awaited on the bus — and opens the
//! panel (`attend-panel`, when built and a display is there). Without a session bus it
//! starts Attend's private one first (src/system/private_bus.rs) and prints the line that
//! sets `DBUS_SESSION_BUS_ADDRESS` for the user's shell.

use super::client::{classify, CliError, Client, EXIT_INTERNAL, EXIT_OK, EXIT_UNREACHABLE};
use super::out;
use crate::config::BUS_NAME;
use crate::config::{PANEL_NAME, PANEL_PATH};
use crate::system::launch::{find_program, has_display, spawn_detached};
use crate::system::private_bus;
use attend_hook::paths::state_dir;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::{Duration, Instant};
use zbus::zvariant::Value;

/// How long the daemon may take to take its bus name.
const START_LIMIT: Duration = Duration::from_secs(15);

/// `attend up` options.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct UpArgs {
    /// Do not open the panel.
    #[arg(long)]
    pub no_panel: bool,
    /// Start the daemon without the tray icon (when `up` starts it).
    #[arg(long)]
    pub no_tray: bool,
    /// Start the daemon without desktop notifications (when `up` starts it).
    #[arg(long)]
    pub no_notifications: bool,
}

async fn has_owner(c: &Client, name: &str) -> Result<bool, CliError> {
    let dbus = zbus::fdo::DBusProxy::new(&c.conn).await.map_err(classify)?;
    let name = zbus::names::BusName::try_from(name)
        .map_err(|e| CliError::new(EXIT_INTERNAL, e.to_string()))?;
    dbus.name_has_owner(name)
        .await
        .map_err(|e| classify(e.into()))
}

/// The last lines of a log file, for an error message.
fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// The daemon that holds this user's state directory, when this process has no session
/// bus to look for it on (no `DBUS_SESSION_BUS_ADDRESS`, no standard socket, no recorded
/// private bus): its pid and its bus address, as its lock file says
/// (src/system/state_lock.rs), when that process is alive and that bus answers. `attend
/// up` then uses that bus rather than starting a private one whose daemon could not take
/// the state directory (a daemon started by a quick start on a bus of its own).
fn running_elsewhere() -> Option<(u32, String)> {
    use attend_hook::address::{resolve, Source};
    let found = resolve();
    let has_bus = match found.source {
        Source::Missing => false,
        Source::Recorded => private_bus::answers(&found.address),
        Source::Variable | Source::Standard => true,
    };
    if has_bus {
        return None;
    }
    super::client::daemon_bus()
}

/// Starts the daemon unless it runs; returns how it came up.
async fn ensure_daemon(c: &Client, a: &UpArgs) -> Result<String, CliError> {
    if has_owner(c, BUS_NAME).await? {
        return Ok("already running".into());
    }
    if !a.no_tray && !a.no_notifications {
        let dbus = zbus::fdo::DBusProxy::new(&c.conn).await.map_err(classify)?;
        let name = zbus::names::WellKnownName::try_from(BUS_NAME)
            .map_err(|e| CliError::new(EXIT_INTERNAL, e.to_string()))?;
        if let Ok(Ok(_)) =
            tokio::time::timeout(START_LIMIT, dbus.start_service_by_name(name, 0)).await
        {
            return Ok("started by D-Bus activation".into());
        }
    }
    let exe = std::env::current_exe()
        .map_err(|e| CliError::new(EXIT_INTERNAL, format!("cannot find attend itself: {e}")))?;
    let mut argv = vec![exe.to_string_lossy().into_owned(), "daemon".to_string()];
    if a.no_tray {
        argv.push("--no-tray".into());
    }
    if a.no_notifications {
        argv.push("--no-notifications".into());
    }
    let log = state_dir().join("daemon.log");
    let pid = spawn_detached(&argv, &BTreeMap::new(), Some(&log))
        .map_err(|e| CliError::new(EXIT_INTERNAL, format!("cannot start `attend daemon`: {e}")))?;
    let start = Instant::now();
    while !has_owner(c, BUS_NAME).await? {
        // It ended without taking the name (another daemon holds the state directory, a
        // bad configuration): say why now rather than after the whole wait. The launcher's
        // thread reaps it, so its /proc entry goes.
        if !Path::new(&format!("/proc/{pid}")).exists() && !has_owner(c, BUS_NAME).await? {
            return Err(CliError::new(
                EXIT_INTERNAL,
                format!(
                    "`attend daemon` exited at once; its log ({}):\n{}",
                    log.display(),
                    tail(&log, 10)
                ),
            ));
        }
        if start.elapsed() > START_LIMIT {
            return Err(CliError::new(
                EXIT_INTERNAL,
                format!(
                    "`attend daemon` did not come up within {} s; its log ({}):\n{}",
                    START_LIMIT.as_secs(),
                    log.display(),
                    tail(&log, 10)
                ),
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(format!("started (log: {})", log.display()))
}

/// Opens the panel; returns what happened, for the user.
async fn open_panel(c: &Client) -> String {
    if !has_display() {
        return "no display (WAYLAND_DISPLAY and DISPLAY are unset): no panel; the daemon \
                runs headless"
            .into();
    }
    let token = std::env::var("XDG_ACTIVATION_TOKEN").ok();
    if matches!(has_owner(c, PANEL_NAME).await, Ok(true)) {
        let mut platform: HashMap<&str, Value<'_>> = HashMap::new();
        if let Some(t) = &token {
            platform.insert("activation-token", Value::from(t.as_str()));
        }
        let body = (platform,);
        let call = c.conn.call_method(
            Some(PANEL_NAME),
            PANEL_PATH,
            Some("org.freedesktop.Application"),
            "Activate",
            &body,
        );
        return match tokio::time::timeout(Duration::from_secs(10), call).await {
            Ok(Ok(_)) => "the panel was running: raised it".into(),
            Ok(Err(e)) => format!("cannot raise the running panel: {e}"),
            Err(_) => "the running panel did not answer".into(),
        };
    }
    match find_program("attend-panel") {
        Some(bin) => {
            let argv = vec![bin.to_string_lossy().into_owned()];
            match spawn_detached(&argv, &BTreeMap::new(), None) {
                Ok(_) => format!("opened {}", bin.display()),
                Err(e) => format!("cannot start {}: {e}", bin.display()),
            }
        }
        None => "attend-panel is not built (build with the default `gui` feature)".into(),
    }
}

/// Runs `attend up`; returns the exit code (3 when there is no session bus and no private
/// one can be started).
///
/// Without a session bus of its own it uses Attend's private bus (started when needed,
/// [`private_bus::ensure`]) and prints, on stdout, only the line that sets
/// `DBUS_SESSION_BUS_ADDRESS` in a POSIX shell (`eval "$(attend up)"`); its other messages
/// then go to stderr. With a bus of its own, everything goes to stdout as before.
pub fn run(mut a: UpArgs) -> Result<i32, CliError> {
    // No display: no notification server can show anything here (one activated would
    // fail to open its window), so a daemon started here notifies nothing; the tray is
    // D-Bus only and stays.
    let headless = !has_display();
    if headless {
        a.no_notifications = true;
    }
    // Before the runtime below: both may set the variable (single-threaded here).
    let running = running_elsewhere();
    let private = match &running {
        Some((pid, address)) => {
            std::env::set_var(private_bus::VARIABLE, address);
            eprintln!("attend: the daemon already runs (pid {pid}) on the bus {address}");
            Some(address.clone())
        }
        None => private_bus::ensure().map_err(|e| {
            CliError::new(
                EXIT_UNREACHABLE,
                format!("there is no session bus, and Attend cannot start a private one: {e}"),
            )
        })?,
    };
    if let Some(address) = &private {
        out::line(&private_bus::export_line(address))?;
    }
    let is_attends_own = private.is_some() && running.is_none();
    let is_private = private.is_some();
    let say = move |text: &str| {
        if is_private {
            eprintln!("{text}");
        } else {
            let _ = out::line(text);
        }
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::new(EXIT_INTERNAL, e.to_string()))?;
    rt.block_on(async move {
        let c = Client::connect_or(|e| {
            CliError::new(
                EXIT_UNREACHABLE,
                format!(
                    "{}\nThat bus does not answer: unset DBUS_SESSION_BUS_ADDRESS and \
                     `attend up` starts a private one.",
                    super::client::no_bus_message(e)
                ),
            )
        })
        .await?;
        let how = ensure_daemon(&c, &a).await?;
        say(&format!("attend: the daemon is {how}"));
        if headless && !how.starts_with("already") {
            say("attend: no display (WAYLAND_DISPLAY and DISPLAY are unset): started without desktop notifications");
        }
        if !a.no_panel {
            say(&format!("attend: {}", open_panel(&c).await));
        }
        if is_attends_own {
            say(
                "attend: the session bus is Attend's private one: `eval \"$(attend up)\"` sets \
                 DBUS_SESSION_BUS_ADDRESS in this shell (attend commands and hooks find it \
                 without)",
            );
        }
        say(
            "attend: next: `attend run -- claude` runs an agent in a pane; `attend \
             install-hooks claude` follows the ones you start elsewhere; `attend status` \
             sums it up",
        );
        Ok(EXIT_OK)
    })
}
