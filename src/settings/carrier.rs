//! The argv that reaches a remote (`docs/remote.md`, `docs/decisions/0014-remote-link.md`):
//! the link's carrier (ssh by default, or the remote's `via` command) with the remote
//! command, and the same carrier run interactively for `attend attach NAME:pN`. Pure: it
//! only builds words from a [`Remote`] of `config.toml`; the daemon's link and the CLI run
//! them.

use super::{Remote, Target};

/// The ssh options of the default carrier: no password prompt (the user's agent and keys
/// only), and a dead link — a cut connection, or a host that went silent — noticed by ssh
/// itself within about 3 s (two keep-alives a second apart unanswered; no timer here, the
/// keep-alives are ssh's and go out only while the link carries nothing).
pub const SSH_OPTIONS: [&str; 7] = [
    "-T",
    "-o",
    "BatchMode=yes",
    "-o",
    "ServerAliveInterval=1",
    "-o",
    "ServerAliveCountMax=2",
];

/// The carrier's argv: `ssh SSH_OPTIONS [-p PORT] -- DEST COMMAND…`, or the `via`
/// command's words followed by the remote command's words (split like a shell would,
/// never run by one); for ssh, the remote command as one shell-quoted line (what sshd
/// gives the remote user's shell). Errors: a bad target, an empty or badly quoted `via`/`command`.
pub fn carrier_argv(remote: &Remote) -> Result<Vec<String>, String> {
    let command = command_words(remote)?;
    carry(remote, &SSH_OPTIONS, command)
}

/// The words of the remote's command. Errors: empty or badly quoted.
fn command_words(remote: &Remote) -> Result<Vec<String>, String> {
    shlex::split(remote.command())
        .filter(|w| !w.is_empty())
        .ok_or_else(|| format!("bad command {:?}", remote.command()))
}

/// `command` carried to the remote: after the `via` words, or as one shell-quoted line
/// after `ssh OPTIONS [-p PORT] -- DEST`. Errors: a bad target, an empty or badly quoted
/// `via`.
fn carry(remote: &Remote, options: &[&str], command: Vec<String>) -> Result<Vec<String>, String> {
    match &remote.via {
        Some(via) => {
            let mut argv = shlex::split(via)
                .filter(|w| !w.is_empty())
                .ok_or_else(|| format!("bad via {via:?}"))?;
            argv.extend(command);
            Ok(argv)
        }
        None => {
            let target = Target::parse(&remote.target)?;
            let mut argv: Vec<String> = std::iter::once("ssh")
                .chain(options.iter().copied())
                .map(str::to_string)
                .collect();
            if let Some(port) = target.port {
                argv.extend(["-p".to_string(), port.to_string()]);
            }
            argv.extend(["--".to_string(), target.destination()]);
            // sshd hands the command to the remote user's shell as one line: quoted
            // words, so each arrives as it was given.
            let line = shlex::try_join(command.iter().map(String::as_str))
                .map_err(|_| format!("bad command {:?}", remote.command()))?;
            argv.push(line);
            Ok(argv)
        }
    }
}

/// The argv of `attend attach NAME:pN` (`docs/cli.md#attach`): the link's carrier run
/// interactively with `attend attach PANE --detach-key KEY` on the remote (and `--watch`
/// with `watch`: the panel's look, which is not focus there). For ssh:
/// `ssh -t -o BatchMode=yes [-p PORT] -- DEST LINE` (a terminal there; keys only, no
/// password prompt); for a `via` remote: the `via` words, then the remote command. The
/// remote `attend` is the link's own: the remote command's words up to the first whose
/// file name is `attend` (an `env …` prefix and a path kept), else plain `attend`.
/// Errors: as [`carrier_argv`].
pub fn attach_argv(
    remote: &Remote,
    pane: &str,
    detach_key: &str,
    watch: bool,
) -> Result<Vec<String>, String> {
    let words = command_words(remote)?;
    let attend = words
        .iter()
        .position(|w| std::path::Path::new(w).file_name() == Some("attend".as_ref()));
    let mut command: Vec<String> = match attend {
        Some(i) => words[..=i].to_vec(),
        None => vec!["attend".into()],
    };
    command.extend(["attach", pane, "--detach-key", detach_key].map(str::to_string));
    if watch {
        command.push("--watch".into());
    }
    carry(remote, &["-t", "-o", "BatchMode=yes"], command)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::HostName;

    fn remote(target: &str, via: Option<&str>, command: Option<&str>) -> Remote {
        Remote {
            name: HostName::parse("r1").unwrap(),
            target: target.into(),
            via: via.map(str::to_string),
            command: command.map(str::to_string),
        }
    }

    #[test]
    fn ssh_is_the_default_carrier_and_via_replaces_it() {
        let argv = carrier_argv(&remote("me@box:2222", None, None)).unwrap();
        assert_eq!(
            argv.join(" "),
            "ssh -T -o BatchMode=yes -o ServerAliveInterval=1 -o ServerAliveCountMax=2 \
             -p 2222 -- me@box attend bridge --stdio"
        );
        let argv = carrier_argv(&remote("box", None, Some("systemd-stdio-bridge --user"))).unwrap();
        assert_eq!(
            argv[argv.len() - 3..],
            ["--", "box", "systemd-stdio-bridge --user"]
        );
        // The remote shell gets one line with the words quoted as given.
        let argv = carrier_argv(&remote(
            "box",
            None,
            Some("env 'A=x y' attend bridge --stdio"),
        ));
        assert_eq!(
            argv.unwrap().last().unwrap(),
            "env 'A=x y' attend bridge --stdio"
        );
        let argv = carrier_argv(&remote("ctr", Some("docker exec -i 'my ctr'"), None)).unwrap();
        assert_eq!(
            argv,
            ["docker", "exec", "-i", "my ctr", "attend", "bridge", "--stdio"]
        );
        assert!(carrier_argv(&remote("-oProxyCommand=x", None, None)).is_err());
        assert!(carrier_argv(&remote("x", Some("'"), None)).is_err());
    }

    #[test]
    fn attach_runs_the_carrier_with_a_terminal_and_the_links_own_attend() {
        let argv = attach_argv(&remote("me@box:2222", None, None), "p3", "C-\\", false).unwrap();
        assert_eq!(
            argv[..8],
            [
                "ssh",
                "-t",
                "-o",
                "BatchMode=yes",
                "-p",
                "2222",
                "--",
                "me@box"
            ]
        );
        // One line for the remote shell, whose words are the ones given.
        assert_eq!(
            shlex::split(&argv[8]).unwrap(),
            ["attend", "attach", "p3", "--detach-key", "C-\\"]
        );
        let command = Some("env A=1 /opt/bin/attend bridge --stdio");
        let argv = attach_argv(
            &remote("ctr", Some("docker exec -it ctr"), command),
            "p1",
            "C-]",
            false,
        );
        assert_eq!(
            argv.unwrap().join(" "),
            "docker exec -it ctr env A=1 /opt/bin/attend attach p1 --detach-key C-]"
        );
        let argv = attach_argv(
            &remote("box", None, Some("systemd-stdio-bridge")),
            "p1",
            "C-]",
            false,
        );
        let line = argv.unwrap().last().unwrap().clone();
        assert_eq!(
            shlex::split(&line).unwrap(),
            ["attend", "attach", "p1", "--detach-key", "C-]"]
        );
        assert!(attach_argv(&remote("-x", None, None), "p1", "C-]", false).is_err());
    }

    #[test]
    fn a_watching_attach_asks_the_remote_attend_to_watch() {
        let argv = attach_argv(&remote("box", None, None), "p2", "C-\\", true).unwrap();
        assert_eq!(
            shlex::split(argv.last().unwrap()).unwrap(),
            ["attend", "attach", "p2", "--detach-key", "C-\\", "--watch"]
        );
    }
}
