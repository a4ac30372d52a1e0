//! Build-time configuration (Loupe's pattern): meson passes these through the
//! environment of `cargo build`; plain `cargo` builds fall back to the defaults.

/// Application id (desktop file, GApplication): `io.github.attend.Attend`.
pub const APP_ID: &str = match option_env!("ATTEND_APP_ID") {
    Some(v) => v,
    None => "io.github.attend.Attend",
};

/// Version string: meson's project version, else the crate version.
pub const VERSION: &str = match option_env!("ATTEND_VERSION") {
    Some(v) => v,
    None => env!("CARGO_PKG_VERSION"),
};

/// Where translations are installed.
pub const LOCALEDIR: &str = match option_env!("ATTEND_LOCALEDIR") {
    Some(v) => v,
    None => "/usr/local/share/locale",
};

/// D-Bus well-known name, object path and interface (DESIGN.md "Names").
pub const BUS_NAME: &str = "io.github.attend.Attend1";
/// D-Bus object path of the service.
pub const OBJECT_PATH: &str = "/io/github/attend/Attend1";
/// D-Bus interface name.
pub const INTERFACE: &str = "io.github.attend.Attend1";
/// Environment variable naming the pane in every child Attend spawns.
pub const PANE_ENV: &str = "ATTEND_PANE";
