//! Sound with a notification (`docs/desktop-surfaces.md#sound`), when `[sound]` in
//! `config.toml` asks for it for the level and the agent (off by default):
//!
//! - With a notification server: the standard `sound-name` hint (Desktop Notifications
//!   spec, "Hints") naming a sound of the XDG sound theme naming spec ([`sound_name`]);
//!   the server plays it from the user's theme.
//! - Without one (status-bar-only desktops): Attend plays the theme's file itself
//!   ([`find_sound_file`], XDG Sound Theme spec lookup) through the sound server's
//!   player: `pw-play` (PipeWire), else `paplay` (PulseAudio), found on `PATH`; without
//!   either, or without the file, it says so once in the log.

use crate::model::Attention;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a player may play before it is stopped.
const PLAY_LIMIT: Duration = Duration::from_secs(10);
/// The players tried, in order.
pub const PLAYERS: [&str; 2] = ["pw-play", "paplay"];
/// File types of a theme, in the order they are looked for (the spec's mandatory ones).
const EXTENSIONS: [&str; 3] = ["oga", "ogg", "wav"];

/// The sound (XDG sound naming spec) for a notification at `level`: a gate or a
/// question `message-new-instant`, a completion `complete`, a failure `dialog-error`, a
/// warning `dialog-warning`.
pub fn sound_name(level: Attention) -> &'static str {
    match level {
        Attention::PermissionRequired | Attention::InputRequired => "message-new-instant",
        Attention::Error => "dialog-error",
        Attention::Warning => "dialog-warning",
        Attention::Unread | Attention::None => "complete",
    }
}

/// The base directories of sound themes: `$XDG_DATA_HOME/sounds` (else
/// `~/.local/share/sounds`), then `sounds` in each of `$XDG_DATA_DIRS` (else
/// `/usr/local/share:/usr/share`).
pub fn sound_dirs() -> Vec<PathBuf> {
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    let mut dirs = Vec::new();
    match env("XDG_DATA_HOME") {
        Some(d) => dirs.push(PathBuf::from(d)),
        None => {
            if let Some(h) = env("HOME") {
                dirs.push(PathBuf::from(h).join(".local/share"));
            }
        }
    }
    let data = env("XDG_DATA_DIRS").unwrap_or_else(|| "/usr/local/share:/usr/share".into());
    dirs.extend(std::env::split_paths(&data));
    dirs.into_iter()
        .filter(|d| d.is_absolute())
        .map(|d| d.join("sounds"))
        .collect()
}

/// `Inherits=` of the theme's `index.theme` (the first one found in `bases`).
fn parents(theme: &str, bases: &[PathBuf]) -> Vec<String> {
    for b in bases {
        if let Ok(text) = std::fs::read_to_string(b.join(theme).join("index.theme")) {
            return text
                .lines()
                .find_map(|l| l.trim().strip_prefix("Inherits="))
                .map(|v| {
                    v.split(',')
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty() && !s.contains('/'))
                        .collect()
                })
                .unwrap_or_default();
        }
    }
    Vec::new()
}

/// The file of sound `name` in `theme`, looked up as the XDG Sound Theme spec says: in
/// the theme, then its parents (`Inherits=`), then `freedesktop`, then unthemed; in each,
/// the `stereo` profile's file, then the theme directory's own; a name not found is cut at
/// its last `-` and looked up again (`message-new-instant` → `message-new` → `message`).
/// `None` when no file exists.
pub fn find_sound_file(name: &str, theme: &str, bases: &[PathBuf]) -> Option<PathBuf> {
    let mut themes = vec![theme.to_string()];
    let mut i = 0;
    while i < themes.len() && themes.len() < 16 {
        for p in parents(&themes[i], bases) {
            if !themes.contains(&p) {
                themes.push(p);
            }
        }
        i += 1;
    }
    let default = crate::settings::DEFAULT_THEME.to_string();
    if !themes.contains(&default) {
        themes.push(default);
    }
    let mut name = name.to_string();
    loop {
        for t in &themes {
            for b in bases {
                for dir in [b.join(t).join("stereo"), b.join(t)] {
                    if let Some(f) = file_in(&dir, &name) {
                        return Some(f);
                    }
                }
            }
        }
        for b in bases {
            if let Some(f) = file_in(b, &name) {
                return Some(f);
            }
        }
        match name.rfind('-') {
            Some(cut) => name.truncate(cut),
            None => return None,
        }
    }
}

fn file_in(dir: &Path, name: &str) -> Option<PathBuf> {
    EXTENSIONS
        .iter()
        .map(|e| dir.join(format!("{name}.{e}")))
        .find(|f| f.is_file())
}

/// The first of [`PLAYERS`] on `PATH`.
pub fn player() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    PLAYERS.iter().find_map(|p| {
        std::env::split_paths(&path)
            .map(|d| d.join(p))
            .find(|f| is_executable(f))
    })
}

fn is_executable(f: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(f).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Why a sound could not be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error("no sound file for {name:?} in the sound theme {theme:?} (nor freedesktop)")]
    NoFile { name: String, theme: String },
    #[error("no sound player on PATH (pw-play, paplay)")]
    NoPlayer,
    #[error("cannot start {player}: {error}")]
    Spawn { player: String, error: String },
}

/// Plays sound `name` of `theme` with [`player`] in the background (the player is
/// stopped after [`PLAY_LIMIT`] and reaped). Must run inside a tokio runtime. Returns the
/// file played.
pub fn play(name: &str, theme: &str) -> Result<PathBuf, PlayError> {
    let file = find_sound_file(name, theme, &sound_dirs()).ok_or_else(|| PlayError::NoFile {
        name: name.into(),
        theme: theme.into(),
    })?;
    let player = player().ok_or(PlayError::NoPlayer)?;
    let mut child = tokio::process::Command::new(&player)
        .arg(&file)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| PlayError::Spawn {
            player: player.display().to_string(),
            error: e.to_string(),
        })?;
    tokio::spawn(async move {
        if tokio::time::timeout(PLAY_LIMIT, child.wait())
            .await
            .is_err()
        {
            let _ = child.kill().await;
        }
    });
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, b"RIFF").unwrap();
    }

    #[test]
    fn each_level_has_its_standard_sound() {
        assert_eq!(
            sound_name(Attention::PermissionRequired),
            "message-new-instant"
        );
        assert_eq!(sound_name(Attention::InputRequired), "message-new-instant");
        assert_eq!(sound_name(Attention::Unread), "complete");
        assert_eq!(sound_name(Attention::Error), "dialog-error");
        assert_eq!(sound_name(Attention::Warning), "dialog-warning");
    }

    #[test]
    fn the_lookup_follows_the_sound_theme_spec() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("user/sounds");
        let system = dir.path().join("system/sounds");
        let bases = vec![user.clone(), system.clone()];
        touch(&system.join("freedesktop/stereo/complete.oga"));
        touch(&system.join("freedesktop/stereo/message.oga"));
        touch(&system.join("freedesktop/stereo/dialog-error.wav"));
        // The freedesktop theme when the theme has no such sound (or does not exist).
        assert_eq!(
            find_sound_file("complete", "ocean", &bases),
            Some(system.join("freedesktop/stereo/complete.oga"))
        );
        // A name cut at its last dash.
        assert_eq!(
            find_sound_file("message-new-instant", "freedesktop", &bases),
            Some(system.join("freedesktop/stereo/message.oga"))
        );
        // The theme first, then its parents; the user's directory before the system's.
        std::fs::create_dir_all(user.join("ocean")).unwrap();
        std::fs::write(
            user.join("ocean/index.theme"),
            "[Sound Theme]\nName=Ocean\nInherits=waves\n",
        )
        .unwrap();
        touch(&system.join("waves/stereo/dialog-error.oga"));
        assert_eq!(
            find_sound_file("dialog-error", "ocean", &bases),
            Some(system.join("waves/stereo/dialog-error.oga"))
        );
        touch(&user.join("ocean/stereo/dialog-error.ogg"));
        assert_eq!(
            find_sound_file("dialog-error", "ocean", &bases),
            Some(user.join("ocean/stereo/dialog-error.ogg"))
        );
        // .oga before .ogg before .wav in one directory.
        touch(&user.join("ocean/stereo/dialog-error.oga"));
        assert_eq!(
            find_sound_file("dialog-error", "ocean", &bases),
            Some(user.join("ocean/stereo/dialog-error.oga"))
        );
        assert_eq!(find_sound_file("bell", "ocean", &bases), None);
        // A theme that inherits from itself ends.
        std::fs::write(user.join("ocean/index.theme"), "Inherits=ocean,waves\n").unwrap();
        assert_eq!(find_sound_file("bell", "ocean", &bases), None);
    }
}
