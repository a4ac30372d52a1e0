//! What the panel writes for the engine's values, through gettext (domain `attend`,
//! translations in `po/`). Each English label of a vocabulary value is its wire name with
//! `_` read as a space (`permission_required` → "permission required"), so a reader of
//! `attend ls` recognises every word; CSS classes keep the wire names
//! (`attention-permission_required`, `lifecycle-blocked`).

use super::data::HostInfo;
use crate::client::wire::WireLive;
use crate::model::{Attention, Lifecycle};
use gettextrs::{gettext, ngettext};

/// The label of a lifecycle value (`docs/lifecycle-attention.md#lifecycle`).
pub fn lifecycle(l: Lifecycle) -> String {
    match l {
        Lifecycle::Unknown => gettext("unknown"),
        Lifecycle::Working => gettext("working"),
        Lifecycle::Blocked => gettext("blocked"),
        Lifecycle::Done => gettext("done"),
        Lifecycle::Idle => gettext("idle"),
        Lifecycle::Failed => gettext("failed"),
    }
}

/// The label of an attention value (`docs/lifecycle-attention.md#attention`).
pub fn attention(a: Attention) -> String {
    match a {
        Attention::None => gettext("none"),
        Attention::Unread => gettext("unread"),
        Attention::Warning => gettext("warning"),
        Attention::InputRequired => gettext("input required"),
        Attention::PermissionRequired => gettext("permission required"),
        Attention::Error => gettext("error"),
    }
}

/// The label of a decision kind (`permission`, `question`, …); unknown kinds as sent.
pub fn decision_kind(kind: &str) -> String {
    match kind {
        "permission" => gettext("Permission requested"),
        "question" => gettext("Question"),
        other => other.to_string(),
    }
}

/// `running`, `exited 3`, `killed by signal 9`.
pub fn live(l: &WireLive) -> String {
    match (!l.exited(), l.code, l.signal) {
        (true, _, _) => gettext("running"),
        (false, _, Some(sig)) => {
            gettext("killed by signal {signal}").replace("{signal}", &sig.to_string())
        }
        (false, Some(code), None) => gettext("exited {code}").replace("{code}", &code.to_string()),
        (false, None, None) => gettext("exited"),
    }
}

/// Time since the last attention change, from milliseconds: "just now", "5 min ago",
/// "2 h ago", "3 days ago". Negative values (clock skew) read as "just now".
pub fn age(ms: i64) -> String {
    let secs = ms.max(0) / 1000;
    let (mins, hours, days) = (secs / 60, secs / 3600, secs / 86_400);
    if mins < 1 {
        gettext("just now")
    } else if hours < 1 {
        let n = mins as u32;
        ngettext("{n} min ago", "{n} min ago", n).replace("{n}", &n.to_string())
    } else if days < 1 {
        let n = hours as u32;
        ngettext("{n} h ago", "{n} h ago", n).replace("{n}", &n.to_string())
    } else {
        let n = days.min(i64::from(u32::MAX)) as u32;
        ngettext("{n} day ago", "{n} days ago", n).replace("{n}", &n.to_string())
    }
}

/// "repo · branch", either part alone, or "" when neither is known.
pub fn repo_branch(repo: Option<&str>, branch: Option<&str>) -> String {
    match (repo, branch) {
        (Some(r), Some(b)) => format!("{r} · {b}"),
        (Some(r), None) => r.to_string(),
        (None, Some(b)) => b.to_string(),
        (None, None) => String::new(),
    }
}

/// The accessible description of a sidebar row or pane row: "NAME: LIFECYCLE, ATTENTION".
pub fn summary(name: &str, l: Lifecycle, a: Attention) -> String {
    gettext("{name}: {lifecycle}, attention {attention}")
        .replace("{name}", name)
        .replace("{lifecycle}", &lifecycle(l))
        .replace("{attention}", &attention(a))
}

/// The sidebar's header of a host's workspaces: "This computer" (`host` `None`), else
/// "NAME · connected", "NAME · connecting" or "NAME · offline since HH:MM" (`time` writes
/// the link's `since_at`, ms since the epoch); a state this side does not know, as sent.
pub fn host_header(
    host: Option<&str>,
    info: Option<&HostInfo>,
    time: impl Fn(i64) -> String,
) -> String {
    let Some(name) = host else {
        return gettext("This computer");
    };
    let state = info.map(|h| h.state.as_str()).unwrap_or_default();
    let text = match state {
        "connected" => gettext("{host} · connected"),
        "connecting" => gettext("{host} · connecting"),
        "offline" => match info.and_then(|h| h.since_at) {
            Some(at) => gettext("{host} · offline since {time}").replace("{time}", &time(at)),
            None => gettext("{host} · offline"),
        },
        "" => "{host}".to_string(),
        other => format!("{{host}} · {other}"),
    };
    text.replace("{host}", name)
}

/// The word a greyed remote row carries while its host's link is down.
pub fn offline() -> String {
    gettext("offline")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_labels_are_the_wire_names_read_aloud() {
        for l in Lifecycle::ALL {
            assert_eq!(lifecycle(l), l.as_str());
        }
        for a in Attention::ALL {
            assert_eq!(attention(a), a.as_str().replace('_', " "));
        }
    }

    #[test]
    fn ages_round_down_to_the_largest_unit() {
        assert_eq!(age(-5), "just now");
        assert_eq!(age(59_999), "just now");
        assert_eq!(age(60_000), "1 min ago");
        assert_eq!(age(3_599_000), "59 min ago");
        assert_eq!(age(7_200_000), "2 h ago");
        assert_eq!(age(86_400_000), "1 day ago");
        assert_eq!(age(3 * 86_400_000), "3 days ago");
    }

    #[test]
    fn live_and_repo_labels() {
        let exited = |code, signal| WireLive {
            state: "exited".into(),
            code,
            signal,
        };
        assert_eq!(live(&exited(Some(3), None)), "exited 3");
        assert_eq!(live(&exited(None, Some(9))), "killed by signal 9");
        assert_eq!(live(&exited(None, None)), "exited");
        assert_eq!(repo_branch(Some("api"), Some("main")), "api · main");
        assert_eq!(repo_branch(None, None), "");
    }

    #[test]
    fn host_headers_name_this_machine_and_each_remote_with_its_link() {
        let host = |state: &str, since_at| HostInfo {
            name: "r1".into(),
            state: state.into(),
            since_at,
            last_error: Some("Broken pipe".into()),
        };
        let time = |ms: i64| format!("t{ms}");
        assert_eq!(host_header(None, None, time), "This computer");
        let h = host("connected", Some(5));
        assert_eq!(host_header(Some("r1"), Some(&h), time), "r1 · connected");
        let h = host("offline", Some(5));
        assert_eq!(
            host_header(Some("r1"), Some(&h), time),
            "r1 · offline since t5"
        );
        let h = host("asleep", None);
        assert_eq!(host_header(Some("r1"), Some(&h), time), "r1 · asleep");
        assert_eq!(host_header(Some("r1"), None, time), "r1");
    }
}
