//! The one home of Attend's names in this crate.
//!
//! - Fixed names, shared with the hook executable (`attend_hook::names`) and with hooks
//!   installed on other machines, so never changed by a build: the D-Bus name, object
//!   path, interface and error prefix, `ATTEND_PANE`, `ATTEND_PANE_HOOKS` and its
//!   `--pane-hooks` marker, the payload limit, the hook executable's file name (docs/dbus-api.md; docs/decisions/0004-hook-executable.md).
//! - Build-time values (Loupe's pattern): meson passes them through the environment of
//!   `cargo build` (`ATTEND_APP_ID`, `ATTEND_LOCALEDIR`, meson.build) where they differ
//!   from the defaults below, which a plain `cargo build` uses; so both share one
//!   `target/release` (docs/packaging.md).

pub use attend_hook::names::{
    BUS_NAME, ERROR_PREFIX, HOOK_EXE, INTERFACE, MAX_PAYLOAD, OBJECT_PATH, PANE_ENV,
    PANE_HOOKS_ENV, PANE_HOOKS_FLAG, TERMINAL_ENV,
};

/// Application id (desktop file, GApplication, the panel's D-Bus name, the tray item and
/// the notifications' `desktop-entry`): `io.github.attend.Attend` unless meson sets
/// `ATTEND_APP_ID`.
pub const APP_ID: &str = match option_env!("ATTEND_APP_ID") {
    Some(v) => v,
    None => "io.github.attend.Attend",
};

/// The panel's bus name (its GApplication id), which `attend up` and the tray's "Open"
/// activate.
pub const PANEL_NAME: &str = APP_ID;

/// The object path of the panel's `org.freedesktop.Application`.
pub const PANEL_PATH: &str = "/io/github/attend/Attend";

/// Version string: `ATTEND_VERSION` when a build sets it, else the crate version (the
/// version of `Cargo.toml`, which the Debian packages carry too; meson sets none).
pub const VERSION: &str = match option_env!("ATTEND_VERSION") {
    Some(v) => v,
    None => env!("CARGO_PKG_VERSION"),
};

/// The major version of the D-Bus interface `io.github.attend.Attend1`
/// (`InterfaceVersion()`, `docs/dbus-api.md#methods`): raised when a change would break
/// a client of the previous one. A link refuses a remote daemon that answers another
/// (`docs/decisions/0014-remote-link.md`).
pub const INTERFACE_VERSION: u32 = 1;

/// Where translations are installed (`ATTEND_LOCALEDIR`, meson's `localedir`), else
/// `/usr/share/locale`; the panel looks here last (src/panel/i18n.rs).
pub const LOCALEDIR: &str = match option_env!("ATTEND_LOCALEDIR") {
    Some(v) => v,
    None => "/usr/share/locale",
};

/// What every message that finds the daemon down suggests (CLI errors, `attend status`,
/// `attend events --follow`, the tray's tooltip; `docs/cli.md#the-daemon-is-down`):
/// `attend up` starts the service the installed way (D-Bus activation or systemd, else a
/// detached `attend daemon` logging to the state directory) and does nothing when it runs.
pub const START_HINT: &str = "start it with `attend up`";
