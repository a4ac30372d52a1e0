//! `attend status [--format plain|json|waybar|i3bar] [--follow]`
//! (`docs/desktop-surfaces.md#status-bar`): counts by attention and the most urgent pane
//! (the engine's next-unread order), for status bars without a tray: the daemon's
//! `GetOverview()`, the same values the tray shows.
//!
//! - `plain`: `1 permission · 2 unread — next: p3 webapp › api — permission: …`.
//!
//! Remote panes (`ListRemotePanes`) count like local ones while their host is online; the
//! next pane may be one (`buildbox:p3 buildbox › webapp › api — …`).
//! - `json`: the overview as one object (see [`Overview::json`]).
//! - `waybar`: `{"text", "tooltip", "class", "alt"}`, class and alt the worst attention
//!   (`offline` while the daemon is not running).
//! - `i3bar`: with `--follow` the i3bar protocol (header, then an endless array of block
//!   lists); without it one block list.
//!
//! `--follow` prints a line whenever the rendering changes: it subscribes to the daemon's
//! `Event` and `RemotesChanged` signals (no polling; a remote host going offline changes
//! the counts without an event) and to `NameOwnerChanged` of its bus name, so it prints
//! the offline line when the daemon stops and carries on when it comes back. It never
//! starts the daemon itself (no D-Bus activation from a status bar). It ends when the bar
//! closes the pipe, also while nothing changes ([`super::out::reader_gone`]).

use super::client::{call, classify, CliError, Client, EXIT_INTERNAL, EXIT_OK, EXIT_UNREACHABLE};
use super::render;
use crate::client::overview::Overview;
use crate::config::{BUS_NAME, START_HINT};
use std::future::Future;
use std::io::Write;
use std::time::Duration;
use zbus::export::futures_core::Stream;

/// Output formats of `attend status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Plain,
    Json,
    Waybar,
    I3bar,
}

/// The header line of the i3bar protocol.
pub const I3BAR_HEADER: &str = r#"{"version":1}"#;

/// One line of `format` for `o` (plain: control characters escaped, so a pane's title
/// cannot split it; `first` tells i3bar's follow mode whether a comma
/// separator is due).
pub fn render_line(format: Format, o: &Overview, follow: bool, first: bool) -> String {
    match format {
        Format::Plain => render::escape_controls(&o.plain()),
        Format::Json => o.json().to_string(),
        Format::Waybar => o.waybar().to_string(),
        Format::I3bar => {
            let blocks = serde_json::Value::Array(vec![o.i3bar_block()]).to_string();
            if follow && !first {
                format!(",{blocks}")
            } else {
                blocks
            }
        }
    }
}

fn next<S: Stream + Unpin>(s: &mut S) -> impl Future<Output = Option<S::Item>> + '_ {
    std::future::poll_fn(move |cx| std::pin::Pin::new(&mut *s).poll_next(cx))
}

/// The overview now: `ListPanes` and `NextUnread`; offline when nobody owns the name.
async fn overview(c: &Client) -> Result<Overview, CliError> {
    if !c.daemon_running().await? {
        return Ok(Overview::offline());
    }
    let fetch = async {
        let d = call!(c, get_overview())?;
        Overview::from_json(&crate::client::json::dict_json(&d))
            .map_err(|e| CliError::new(EXIT_INTERNAL, e))
    };
    match fetch.await {
        Err(e) if e.code == EXIT_UNREACHABLE => Ok(Overview::offline()),
        other => other,
    }
}

/// Writes one line; `false` when stdout is gone (the bar closed the pipe).
fn emit(line: &str) -> bool {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").and_then(|_| out.flush()).is_ok()
}

/// Runs `attend status`; returns the exit code (0, or 3 without a session bus; without
/// `--follow` also 3 when the daemon is not running).
pub fn run(format: Format, follow: bool) -> Result<i32, CliError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::new(EXIT_INTERNAL, e.to_string()))?;
    rt.block_on(async move {
        let c = Client::connect().await?;
        if follow {
            // The bar may close the pipe while nothing changes.
            tokio::select! {
                r = follow_status(&c, format) => r,
                () = super::out::reader_gone() => Ok(EXIT_OK),
            }
        } else {
            let o = overview(&c).await?;
            if !o.online && matches!(format, Format::Plain | Format::Json) {
                return Err(CliError::new(
                    EXIT_UNREACHABLE,
                    format!("the attend daemon is not running; {START_HINT}"),
                ));
            }
            emit(&render_line(format, &o, false, true));
            Ok(EXIT_OK)
        }
    })
}

async fn follow_status(c: &Client, format: Format) -> Result<i32, CliError> {
    // Subscribe first, then read: nothing falls between the two.
    let mut events = c.event_messages(Some(256)).await?;
    let mut remotes = c.signal_messages("RemotesChanged", Some(256)).await?;
    let dbus = zbus::fdo::DBusProxy::new(&c.conn).await.map_err(classify)?;
    let mut owners = dbus
        .receive_name_owner_changed_with_args(&[(0, BUS_NAME)])
        .await
        .map_err(classify)?;
    if format == Format::I3bar && !(emit(I3BAR_HEADER) && emit("[")) {
        return Ok(EXIT_OK);
    }
    let mut last: Option<String> = None;
    let mut first = true;
    let mut online = true;
    loop {
        let o = if online {
            overview(c).await?
        } else {
            Overview::offline()
        };
        let line = render_line(format, &o, true, first);
        // The comma of i3bar's array is not part of what changed.
        let key = line.trim_start_matches(',').to_string();
        if last.as_deref() != Some(key.as_str()) {
            if !emit(&line) {
                return Ok(EXIT_OK);
            }
            first = false;
            last = Some(key);
        }
        tokio::select! {
            msg = next(&mut events) => {
                if msg.is_none() {
                    return Err(CliError::new(EXIT_UNREACHABLE, "the session bus closed"));
                }
                online = true;
                // A burst of events is one change: read what is already queued.
                while let Ok(Some(_)) = tokio::time::timeout(Duration::ZERO, next(&mut events)).await {}
            }
            msg = next(&mut remotes) => {
                if msg.is_none() {
                    return Err(CliError::new(EXIT_UNREACHABLE, "the session bus closed"));
                }
                online = true;
                while let Ok(Some(_)) = tokio::time::timeout(Duration::ZERO, next(&mut remotes)).await {}
            }
            change = next(&mut owners) => {
                let Some(change) = change else {
                    return Err(CliError::new(EXIT_UNREACHABLE, "the session bus closed"));
                };
                online = change.args().map(|a| a.new_owner.is_some()).unwrap_or(true);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i3bar_follow_lines_are_array_elements() {
        let o = Overview::offline();
        let first = render_line(Format::I3bar, &o, true, true);
        let later = render_line(Format::I3bar, &o, true, false);
        assert!(first.starts_with("[{"));
        assert_eq!(later, format!(",{first}"));
        assert_eq!(render_line(Format::I3bar, &o, false, false), first);
        let w: serde_json::Value =
            serde_json::from_str(&render_line(Format::Waybar, &o, true, true)).unwrap();
        assert_eq!(w["class"], "offline");
    }
}
