//! Sound with notifications (docs/desktop-surfaces.md#sound), off unless `[sound]` in
//! config.toml asks for it: the `sound-name` hint on what the daemon sends Debian's real
//! `dunst` (read off the bus by a monitor: dunst does not show hints), and, with no
//! notification server, the theme's sound file played through stand-ins for `pw-play`
//! and `paplay` on `PATH` (no audio device here). Hooks through the real `attend hook
//! claude` with Claude Code's recorded payloads.

use crate::desktop;

use desktop::{claude_payload, Desk, NotifyCalls};
use serde_json::json;
use std::path::Path;

fn gate(session: &str, command: &str) -> String {
    claude_payload(
        "PermissionRequest.json",
        session,
        &[("tool_input.command", json!(command))],
    )
}

fn stop(session: &str, message: &str) -> String {
    claude_payload(
        "Stop.json",
        session,
        &[("last_assistant_message", json!(message))],
    )
}

fn failure(session: &str) -> String {
    claude_payload("StopFailure.json", session, &[])
}

#[test]
fn the_notification_carries_the_sound_name_hint_for_the_levels_asked_for() {
    let mut d = Desk::with_display();
    d.start_dunst();
    let calls = NotifyCalls::start(&d);
    d.config("[sound]\nlevels = [\"permission\", \"unread\"]\nagents = [\"claude\"]\n");
    d.start_daemon(&["--no-tray"]);

    let sound_of = |what: &str| {
        let mut found = None;
        d.wait_until(&format!("the {what} notification"), || {
            found = calls
                .calls()
                .into_iter()
                .find(|c| c.summary.ends_with(what));
            found.is_some()
        });
        found.unwrap().hint_str("sound-name")
    };
    d.hook(None, &gate("s1", "npm test"), &[]);
    assert_eq!(
        sound_of("— permission: Bash").as_deref(),
        Some("message-new-instant")
    );
    d.hook(None, &stop("s2", "All tests pass"), &[]);
    assert_eq!(sound_of("— done").as_deref(), Some("complete"));
    // A level not asked for: a notification without a sound.
    d.hook(None, &failure("s3"), &[]);
    assert_eq!(sound_of("— failed"), None);
    // The real server showed all three.
    d.wait_until("dunst shows them", || d.displayed() == 3);
}

/// A stand-in player that appends its name and arguments to `log`.
fn player(bin: &Path, name: &str, log: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let f = bin.join(name);
    std::fs::write(
        &f,
        format!("#!/bin/sh\necho \"{name} $*\" >> '{}'\n", log.display()),
    )
    .unwrap();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn without_a_notification_server_the_theme_sound_plays_through_pw_play_else_paplay() {
    let mut d = Desk::new();
    let theme = d.path("data/sounds/freedesktop/stereo");
    std::fs::create_dir_all(&theme).unwrap();
    for name in [
        "message-new-instant.oga",
        "complete.oga",
        "dialog-error.oga",
    ] {
        std::fs::write(theme.join(name), b"OggS").unwrap();
    }
    let bin = d.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = d.path("played.log");
    player(&bin, "paplay", &log);
    d.config("[sound]\nlevels = [\"permission\", \"unread\"]\n");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let data = d.path("data").display().to_string();
    let home_data = d.path("home-data").display().to_string();
    d.env.start_daemon_with(
        &["--no-tray"],
        &[
            ("PATH", path.as_str()),
            ("XDG_DATA_DIRS", data.as_str()),
            ("XDG_DATA_HOME", home_data.as_str()),
            ("RUST_LOG", "info,attend=debug"),
        ],
    );
    let played = || std::fs::read_to_string(&log).unwrap_or_default();

    // Only paplay (PulseAudio): it plays the gate's sound.
    d.hook(None, &gate("s1", "npm test"), &[]);
    let want = format!(
        "paplay {}\n",
        theme.join("message-new-instant.oga").display()
    );
    d.wait_until("paplay played the gate's sound", || played() == want);

    // pw-play (PipeWire) there too: it is preferred.
    player(&bin, "pw-play", &log);
    d.hook(None, &stop("s2", "All tests pass"), &[]);
    let want = format!("{want}pw-play {}\n", theme.join("complete.oga").display());
    d.wait_until("pw-play played the completion's sound", || played() == want);

    // A level not asked for plays nothing: the failure's notification comes before the
    // next gate's (one notification task, in order), and only the gate's sound follows.
    d.hook(None, &failure("s3"), &[]);
    d.hook(None, &gate("s4", "npm run build"), &[]);
    let want = format!(
        "{want}pw-play {}\n",
        theme.join("message-new-instant.oga").display()
    );
    d.wait_until("the next gate's sound", || played().len() >= want.len());
    assert_eq!(played(), want, "{}", d.daemon_log());
}
