//! Which panes the panel's live terminal shows, how, and what it says for the others
//! (`docs/desktop-surfaces.md#the-live-terminal`). Pure: a function of the pane as the
//! daemon reported it.
//!
//! A pane whose PTY Attend holds on this machine is attached through the daemon's attach
//! socket while its program runs (the D-Bus `Attach` check). A followed tmux pane and a
//! remote pane whose host holds its PTY are shown through `attend attach --watch ID` run
//! in the widget's own terminal (a tmux client of its own; the link's carrier). A pane
//! Attend follows only through its hooks, a remote pane its host does not hold (or whose
//! link is down) and an exited program have nothing to show: each gets a sentence saying
//! so instead of a screen.

use super::data::PaneInfo;
use gettextrs::gettext;

/// What the live terminal shows for a pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Attach: Attend holds the pane's PTY on this machine and the program runs.
    Live,
    /// Run `attend attach --watch ID` in the terminal: a followed tmux pane whose agent
    /// runs, or a running remote pane its host holds (its link up).
    Relayed,
    /// A mirrored pane of the remote `host` that cannot be shown from here: its host
    /// follows it without holding its PTY, it exited, or the link is down.
    Remote { host: String },
    /// Attend follows the agent through its hooks: no terminal it can show.
    HooksOnly,
    /// The program has exited (Attend ran it, or it ran in a followed tmux pane).
    Exited,
}

/// The [`Source`] of `pane`.
pub fn source(pane: &PaneInfo) -> Source {
    let tmux = pane
        .location
        .as_ref()
        .and_then(|l| l.get("kind"))
        .is_some_and(|k| k == "tmux");
    if let Some(host) = &pane.host {
        if pane.owned && pane.running() && !pane.is_offline() {
            Source::Relayed
        } else {
            Source::Remote { host: host.clone() }
        }
    } else if !pane.running() && (pane.owned || tmux) {
        Source::Exited
    } else if tmux {
        Source::Relayed
    } else if !pane.owned {
        Source::HooksOnly
    } else {
        Source::Live
    }
}

/// The sentence shown instead of a screen (translated), `None` for [`Source::Live`] and
/// [`Source::Relayed`]. `pane` is the pane's id as `attend attach` takes it.
pub fn reason(source: &Source, pane: &str) -> Option<String> {
    match source {
        Source::Live | Source::Relayed => None,
        Source::Remote { host } => Some(
            gettext(
                "This pane runs on {host}, which does not hold its terminal (it follows it through hooks or tmux), or the link to {host} is down: its screen cannot be shown here. To type into it, run attend attach {host}:{pane} in a terminal.",
            )
            .replace("{host}", host)
            .replace("{pane}", pane),
        ),
        Source::HooksOnly => Some(gettext(
            "Attend follows this agent through its hooks: it runs in a terminal Attend did not start, so there is no screen to show here. Switch to that terminal to type into it.",
        )),
        Source::Exited => Some(gettext(
            "The program has exited, so there is no live screen. Resume starts it again.",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::wire::WirePane;
    use crate::model::{AgentKind, Pane, PaneId, Timestamp};

    fn pane(owned: bool, host: Option<&str>, exited: bool) -> PaneInfo {
        PaneInfo::of(wire(owned, host, exited)).unwrap()
    }

    fn wire(owned: bool, host: Option<&str>, exited: bool) -> WirePane {
        let mut p = WirePane::of(&Pane::new(
            PaneId(7),
            "/src/api",
            "main",
            "api",
            AgentKind::Claude,
            Timestamp(0),
        ));
        p.owned = owned;
        p.host = host.map(String::from);
        if host.is_some() {
            p.location = None;
            p.offline = Some(false);
        }
        if exited {
            p.live.state = "exited".into();
        } else {
            p.live.state = "running".into();
        }
        p
    }

    /// A pane followed in tmux (`%3`), its agent running or exited.
    fn tmux_pane(exited: bool) -> PaneInfo {
        let mut p = wire(false, None, exited);
        let location = [
            ("kind", "tmux"),
            ("socket", "/tmp/t/default"),
            ("pane", "%3"),
        ];
        p.location = Some(
            location
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        );
        PaneInfo::of(p).unwrap()
    }

    #[test]
    fn only_a_running_pane_attend_holds_here_is_live() {
        assert_eq!(source(&pane(true, None, false)), Source::Live);
        assert_eq!(source(&pane(true, None, true)), Source::Exited);
        assert_eq!(source(&pane(false, None, false)), Source::HooksOnly);
        // Live is exactly what the Attach button offers.
        for (owned, host, exited) in [
            (true, None, false),
            (true, None, true),
            (false, None, false),
            (true, Some("h"), false),
        ] {
            let p = pane(owned, host, exited);
            assert_eq!(
                source(&p) == Source::Live,
                p.can_attach(),
                "{owned} {host:?} {exited}"
            );
        }
    }

    #[test]
    fn a_followed_tmux_pane_and_a_remote_pane_its_host_holds_are_relayed() {
        assert_eq!(source(&tmux_pane(false)), Source::Relayed);
        assert_eq!(source(&tmux_pane(true)), Source::Exited);
        assert_eq!(source(&pane(true, Some("build"), false)), Source::Relayed);
        let remote = Source::Remote {
            host: "build".into(),
        };
        assert_eq!(
            source(&pane(false, Some("build"), false)),
            remote,
            "followed there through hooks or tmux"
        );
        assert_eq!(source(&pane(true, Some("build"), true)), remote, "exited");
        let mut offline = wire(true, Some("build"), false);
        offline.offline = Some(true);
        assert_eq!(source(&PaneInfo::of(offline).unwrap()), remote, "link down");
    }

    #[test]
    fn every_pane_without_a_screen_says_why() {
        assert_eq!(reason(&Source::Live, "p7"), None);
        assert_eq!(reason(&Source::Relayed, "p7"), None);
        let remote = reason(
            &Source::Remote {
                host: "build".into(),
            },
            "p7",
        )
        .unwrap();
        assert!(
            remote.contains("runs on build") && remote.contains("attend attach build:p7"),
            "{remote}"
        );
        assert!(reason(&Source::HooksOnly, "p7")
            .unwrap()
            .contains("through its hooks"));
        assert!(reason(&Source::Exited, "p7").unwrap().contains("exited"));
    }
}
