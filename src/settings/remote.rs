//! The `[remote.NAME]` tables of `config.toml` (`docs/configuration.md#remote`): the other
//! machines' Attend daemons this one links to (`docs/decisions/0014-remote-link.md`).
//!
//! ```toml
//! [remote.buildbox]
//! target = "me@buildbox.example:2222"        # [user@]host[:port], for ssh
//! # via = "docker exec -i ctr"               # a carrier instead of ssh (like rsync -e)
//! # command = "systemd-stdio-bridge --user"  # the remote command (default attend bridge --stdio)
//! ```
//!
//! Lenient by entry (`docs/configuration.md#bad-entries`): a bad remote (a bad name, no
//! target, a bad key) is a [`Problem`] and only that remote is left out.

use super::problem::Problem;
use crate::model::HostName;
use std::fmt;
use toml_edit::TableLike;

/// The keys a `[remote.NAME]` table accepts.
pub const KEYS: [&str; 3] = ["target", "via", "command"];

/// The remote command when the entry names none: the bridge of `attend` on the remote.
pub const DEFAULT_COMMAND: &str = "attend bridge --stdio";

/// Longest `target`, `via` or `command` value, in bytes.
pub const VALUE_MAX: usize = 1024;

/// Where ssh connects: `[user@]host[:port]` (`[v6addr]:port` for an IPv6 address).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub user: Option<String>,
    pub host: String,
    pub port: Option<u16>,
}

impl Target {
    /// Parses `[user@]host[:port]`. Errors: a sentence naming what is wrong (empty, a
    /// part starting with `-` (it would be read as an ssh option), white space or
    /// control characters, a port that is not 1–65535).
    pub fn parse(s: &str) -> Result<Target, String> {
        let bad = |why: &str| {
            Err(format!(
                "bad target {s:?}: {why} (accepted: [user@]host[:port])"
            ))
        };
        if s.is_empty() || s.len() > VALUE_MAX {
            return bad("empty or too long");
        }
        if s.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return bad("white space or a control character");
        }
        let (user, rest) = match s.rsplit_once('@') {
            Some((u, r)) => (Some(u.to_string()), r),
            None => (None, s),
        };
        let (host, port) = if let Some(v6) = rest.strip_prefix('[') {
            let Some((host, after)) = v6.split_once(']') else {
                return bad("an unclosed '['");
            };
            match after {
                "" => (host, None),
                p => match p.strip_prefix(':') {
                    Some(p) => (host, Some(p)),
                    None => return bad("text after ']'"),
                },
            }
        } else {
            match rest.split_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (rest, None),
            }
        };
        if host.is_empty() || user.as_deref() == Some("") {
            return bad("an empty host or user");
        }
        if host.starts_with('-') || user.as_deref().is_some_and(|u| u.starts_with('-')) {
            return bad("a host or user starting with '-'");
        }
        let port = match port {
            None => None,
            Some(p) => match p.parse::<u16>() {
                Ok(n) if n > 0 => Some(n),
                _ => return bad("the port is not a number from 1 to 65535"),
            },
        };
        Ok(Target {
            user,
            host: host.to_string(),
            port,
        })
    }

    /// ssh's destination: `user@host` or `host`.
    pub fn destination(&self) -> String {
        match &self.user {
            Some(u) => format!("{u}@{}", self.host),
            None => self.host.clone(),
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(u) = &self.user {
            write!(f, "{u}@")?;
        }
        if self.host.contains(':') {
            write!(f, "[{}]", self.host)?;
        } else {
            f.write_str(&self.host)?;
        }
        if let Some(p) = self.port {
            write!(f, ":{p}")?;
        }
        Ok(())
    }
}

/// One configured remote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remote {
    pub name: HostName,
    /// The text of `target` as written (parsed again by the link; [`Target::parse`]).
    pub target: String,
    /// `via`: a carrier command (split into words like a shell would, never run by one)
    /// used instead of ssh; the remote command is appended.
    pub via: Option<String>,
    /// `command`: the remote command; `None`: [`DEFAULT_COMMAND`].
    pub command: Option<String>,
}

impl Remote {
    /// The remote command in force.
    pub fn command(&self) -> &str {
        self.command.as_deref().unwrap_or(DEFAULT_COMMAND)
    }

    /// Checks the values: the target parses (unless `via` carries the link, where the
    /// target is only a label), `via` and `command` split into words.
    pub fn check(&self) -> Result<(), String> {
        if self.via.is_none() {
            Target::parse(&self.target)?;
        } else if self.target.len() > VALUE_MAX || self.target.chars().any(char::is_control) {
            return Err(format!(
                "bad target {:?}: too long or a control character",
                self.target
            ));
        }
        for (key, value) in [
            ("via", self.via.as_deref()),
            ("command", Some(self.command())),
        ] {
            let Some(value) = value else { continue };
            if value.len() > VALUE_MAX {
                return Err(format!("{key} is longer than {VALUE_MAX} bytes"));
            }
            match shlex::split(value) {
                Some(words) if !words.is_empty() => {}
                _ => return Err(format!("{key} {value:?} is empty or has an unclosed quote")),
            }
        }
        Ok(())
    }
}

/// Reads the `[remote]` table (one sub-table per remote) into `out`; each bad remote is
/// one [`Problem`] and is left out.
pub fn read(table: &dyn TableLike, out: &mut Vec<Remote>, problems: &mut Vec<Problem>) {
    for (name, item) in table.iter() {
        let entry = format!("remote.{name}");
        let host = match HostName::parse(name) {
            Ok(h) => h,
            Err(e) => {
                problems.push(Problem::new(entry, e));
                continue;
            }
        };
        let Some(t) = item.as_table_like() else {
            problems.push(Problem::new(
                entry,
                "not a table (accepted keys: target, via, command)",
            ));
            continue;
        };
        let mut values: [Option<String>; 3] = [None, None, None];
        let mut bad = false;
        for (key, v) in t.iter() {
            let Some(i) = KEYS.iter().position(|k| *k == key) else {
                problems.push(Problem::unknown_key(&entry, key, &KEYS));
                bad = true;
                continue;
            };
            match v.as_str() {
                Some(s) => values[i] = Some(s.to_string()),
                None => {
                    problems.push(Problem::new(format!("{entry}.{key}"), "not a string"));
                    bad = true;
                }
            }
        }
        if bad {
            continue;
        }
        let [target, via, command] = values;
        let Some(target) = target else {
            problems.push(Problem::new(
                entry,
                "no target (accepted: [user@]host[:port])",
            ));
            continue;
        };
        let remote = Remote {
            name: host,
            target,
            via,
            command,
        };
        match remote.check() {
            Ok(()) => out.push(remote),
            Err(e) => problems.push(Problem::new(entry, e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_user_host_and_port() {
        let t = Target::parse("me@build.example:2222").unwrap();
        assert_eq!(t.user.as_deref(), Some("me"));
        assert_eq!(t.host, "build.example");
        assert_eq!(t.port, Some(2222));
        assert_eq!(t.destination(), "me@build.example");
        assert_eq!(t.to_string(), "me@build.example:2222");
        let t = Target::parse("[::1]:22").unwrap();
        assert_eq!((t.host.as_str(), t.port), ("::1", Some(22)));
        assert_eq!(t.to_string(), "[::1]:22");
        assert_eq!(Target::parse("box").unwrap().to_string(), "box");
        for bad in [
            "",
            "-oProxyCommand=x",
            "me@",
            "@h",
            "h:0",
            "h:99999",
            "h:x",
            "a b",
            "[::1",
            "-u@h",
        ] {
            assert!(Target::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_bad_remote_is_one_problem_and_the_others_stay() {
        let doc: toml_edit::DocumentMut = "[remote.ok]\ntarget = \"h\"\n\
             [remote.Bad]\ntarget = \"h\"\n\
             [remote.nt]\nvia = \"cat\"\n\
             [remote.k]\ntarget = \"h\"\nport = 3\n\
             [remote.q]\ntarget = \"h\"\nvia = \"docker 'exec\"\n\
             [remote.v]\ntarget = \"ctr\"\nvia = \"docker exec -i ctr\"\ncommand = \"systemd-stdio-bridge --user\"\n"
            .parse()
            .unwrap();
        let (mut out, mut problems) = (Vec::new(), Vec::new());
        read(
            doc["remote"].as_table_like().unwrap(),
            &mut out,
            &mut problems,
        );
        let names: Vec<&str> = out.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["ok", "v"]);
        assert_eq!(out[0].command(), DEFAULT_COMMAND);
        assert_eq!(out[1].command(), "systemd-stdio-bridge --user");
        let entries: Vec<&str> = problems.iter().map(|p| p.entry.as_str()).collect();
        assert_eq!(
            entries,
            ["remote.Bad", "remote.nt", "remote.k.port", "remote.q"]
        );
    }
}
