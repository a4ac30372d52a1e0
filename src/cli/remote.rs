//! `attend remote add|ls|rm`: the other machines' Attend daemons this one links to, kept
//! in `config.toml` as `[remote.NAME]` tables (edited with `toml_edit`, the rest of the
//! file kept as written) and applied by a running daemon at once (`ReloadRemotes`);
//! `docs/cli.md#remote`, `docs/decisions/0014-remote-link.md`.

use super::client::{call, classify, CliError, Client, EXIT_INTERNAL, EXIT_OK};
use super::render;
use crate::engine::escape_controls;
use crate::model::HostName;
use crate::settings::{config_path, Remote};
use std::path::Path;
use toml_edit::{DocumentMut, Item, Table};

/// `attend remote` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum RemoteCmd {
    /// Link to the Attend daemon of another machine, over ssh (the user's own ssh config
    /// and agent; no password prompt) or a --via carrier.
    Add {
        /// The name its panes get here (NAME:p3): 1 to 32 of a-z, 0-9 and "-".
        name: String,
        /// [user@]host[:port] for ssh (with --via only a label).
        target: String,
        /// A carrier instead of ssh, like rsync -e: e.g. 'docker exec -i ctr'; the remote
        /// command is appended.
        #[arg(long, value_name = "CMD")]
        via: Option<String>,
        /// The remote command (default `attend bridge --stdio`; also
        /// `systemd-stdio-bridge --user`).
        #[arg(long, value_name = "CMD")]
        command: Option<String>,
    },
    /// Every remote and its link: connected (with the remote's version), connecting, or
    /// offline since when, with the last error.
    Ls {
        /// One JSON array of the `Remotes()` dictionaries.
        #[arg(long)]
        json: bool,
    },
    /// Remove a remote (its link ends).
    Rm { name: String },
}

type Result<T> = std::result::Result<T, CliError>;

/// Runs an `attend remote` subcommand; returns its exit code.
pub fn run(cmd: RemoteCmd) -> Result<i32> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::new(EXIT_INTERNAL, e.to_string()))?;
    rt.block_on(async move {
        match cmd {
            RemoteCmd::Add {
                name,
                target,
                via,
                command,
            } => {
                let name = HostName::parse(&name).map_err(CliError::bad_input)?;
                let remote = Remote {
                    name,
                    target,
                    via,
                    command,
                };
                remote.check().map_err(CliError::bad_input)?;
                edit(|doc| add(doc, &remote))?;
                tell_daemon(&format!("added {}", remote.name)).await
            }
            RemoteCmd::Rm { name } => {
                edit(|doc| remove(doc, &name))?;
                tell_daemon(&format!("removed {}", escape_controls(&name))).await
            }
            RemoteCmd::Ls { json } => ls(json).await,
        }
    })
}

/// Adds `[remote.NAME]` to the document. Errors: the name is taken.
fn add(doc: &mut DocumentMut, remote: &Remote) -> Result<()> {
    let remotes = doc
        .entry("remote")
        .or_insert_with(|| {
            let mut t = Table::new();
            t.set_implicit(true);
            Item::Table(t)
        })
        .as_table_mut()
        .ok_or_else(|| CliError::bad_input("config.toml: `remote` is not a table"))?;
    if remotes.contains_key(remote.name.as_str()) {
        return Err(CliError::bad_input(format!(
            "a remote named {} exists already (`attend remote rm {}` first)",
            remote.name, remote.name
        )));
    }
    let mut t = Table::new();
    t.insert("target", toml_edit::value(remote.target.as_str()));
    if let Some(via) = &remote.via {
        t.insert("via", toml_edit::value(via.as_str()));
    }
    if let Some(command) = &remote.command {
        t.insert("command", toml_edit::value(command.as_str()));
    }
    remotes.insert(remote.name.as_str(), Item::Table(t));
    Ok(())
}

/// Removes `[remote.NAME]`. Errors: there is none.
fn remove(doc: &mut DocumentMut, name: &str) -> Result<()> {
    let removed = doc
        .get_mut("remote")
        .and_then(Item::as_table_like_mut)
        .and_then(|t| t.remove(name));
    if removed.is_none() {
        return Err(CliError::bad_input(format!(
            "no remote named {}",
            escape_controls(name)
        )));
    }
    Ok(())
}

/// Reads `config.toml` (none: empty), applies `change`, writes it back atomically.
fn edit(change: impl FnOnce(&mut DocumentMut) -> Result<()>) -> Result<()> {
    let path = config_path().ok_or_else(|| {
        CliError::bad_input("no config.toml: neither XDG_CONFIG_HOME nor HOME is set")
    })?;
    let shown = escape_controls(&path.display().to_string());
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(CliError::bad_input(format!("{shown}: cannot be read: {e}"))),
    };
    let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        let e = e
            .to_string()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        CliError::bad_input(format!("{shown}: not TOML: {e}"))
    })?;
    change(&mut doc)?;
    write_atomic(&path, &doc.to_string())
        .map_err(|e| CliError::new(EXIT_INTERNAL, format!("{shown}: cannot be written: {e}")))
}

fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("toml.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Asks a running daemon to apply the file now; without one the change waits for its
/// start (said on stdout, exit 0). The daemon's problems with the file are printed.
async fn tell_daemon(done: &str) -> Result<i32> {
    let reloaded = match Client::connect().await {
        Ok(c) => c.proxy.reload_remotes().await.map_err(classify),
        Err(e) => Err(e),
    };
    match reloaded {
        Ok(problems) => {
            super::out::line(done)?;
            for p in problems {
                super::out::line(&escape_controls(&format!("config.toml: {p}")))?;
            }
        }
        Err(e) if e.code == super::client::EXIT_UNREACHABLE => {
            super::out::line(&format!("{done}; no daemon runs: it links when it starts"))?;
        }
        Err(e) => return Err(e),
    }
    Ok(EXIT_OK)
}

async fn ls(json: bool) -> Result<i32> {
    let c = Client::connect().await?;
    let remotes = call!(c, remotes())?;
    if json {
        let v: Vec<_> = remotes
            .iter()
            .map(|d| serde_json::Value::Object(render::dict_json(d)))
            .collect();
        super::out::line(&serde_json::Value::Array(v).to_string())?;
        return Ok(EXIT_OK);
    }
    let rows: Vec<Vec<String>> = remotes
        .iter()
        .map(|d| {
            let state = render::text(d, "state");
            let since = d
                .get("since_at")
                .map(|v| render::to_json("since_at", v))
                .and_then(|j| j.as_str().map(str::to_string))
                .unwrap_or_default();
            let detail = if state == "connected" {
                format!("attend {}", render::text(d, "remote_version"))
            } else {
                render::text(d, "last_error")
            };
            let via = render::text(d, "via");
            let target = if via.is_empty() {
                render::text(d, "target")
            } else {
                format!("via {via}")
            };
            vec![render::text(d, "name"), state, since, target, detail]
        })
        .collect();
    super::out::write(&render::table(
        &["NAME", "STATE", "SINCE", "TARGET", "DETAIL"],
        &rows,
    ))?;
    Ok(EXIT_OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remote(name: &str, target: &str) -> Remote {
        Remote {
            name: HostName::parse(name).unwrap(),
            target: target.into(),
            via: None,
            command: None,
        }
    }

    #[test]
    fn add_and_rm_keep_the_rest_of_the_file() {
        let text = "# mine\n[sound]\nlevels = [\"error\"] # loud\n";
        let mut doc: DocumentMut = text.parse().unwrap();
        add(&mut doc, &remote("r1", "me@h:22")).unwrap();
        let mut r2 = remote("r2", "ctr");
        r2.via = Some("docker exec -i ctr".into());
        add(&mut doc, &r2).unwrap();
        let out = doc.to_string();
        assert!(out.starts_with(text), "{out}");
        assert!(out.contains("[remote.r1]\ntarget = \"me@h:22\"\n"), "{out}");
        assert!(!out.contains("[remote]\n"), "{out}");
        let e = add(&mut doc, &remote("r1", "x")).unwrap_err();
        assert!(e.message.contains("exists already"), "{e}");
        let (s, problems) = crate::settings::Settings::parse(&out);
        assert_eq!(problems, []);
        assert_eq!(s.remotes.len(), 2);
        remove(&mut doc, "r1").unwrap();
        remove(&mut doc, "r2").unwrap();
        assert!(remove(&mut doc, "r1")
            .unwrap_err()
            .message
            .contains("no remote named r1"));
        assert!(doc.to_string().starts_with(text));
    }
}
