//! The fixed names Attend's daemon and its hook clients share. Hooks installed on other
//! machines and in other users' agent configurations call them, so none of them change
//! with a build (docs/dbus-api.md; docs/decisions/0004-hook-executable.md).

/// The daemon's D-Bus well-known name on the session bus.
pub const BUS_NAME: &str = "io.github.attend.Attend1";
/// The object path of the daemon's one object.
pub const OBJECT_PATH: &str = "/io/github/attend/Attend1";
/// The D-Bus interface of that object (docs/dbus-api.md).
pub const INTERFACE: &str = "io.github.attend.Attend1";
/// The prefix of the interface's named errors (`<prefix>InvalidArgument`, `<prefix>Internal`,
/// …; docs/dbus-api.md "Errors").
pub const ERROR_PREFIX: &str = "io.github.attend.Attend1.Error.";
/// The environment variable naming the pane in every child Attend spawns (`p1`, `p2`, …).
pub const PANE_ENV: &str = "ATTEND_PANE";
/// The environment variable Attend sets in a pane whose agent it started with hooks of
/// its own (on the agent's command line or environment): the agent's name (`claude`,
/// `codex`, `gemini`). A hook entry without [`PANE_HOOKS_FLAG`] (the globally installed
/// one) of that agent then exits at once without calling the daemon, so each event is
/// delivered once (docs/adapters.md "Hooks for panes Attend starts";
/// docs/decisions/0008-per-pane-hooks.md).
pub const PANE_HOOKS_ENV: &str = "ATTEND_PANE_HOOKS";
/// The argument that marks the hook entries Attend gives an agent it starts (`attend-hook
/// claude --pane-hooks`): they deliver even while [`PANE_HOOKS_ENV`] is set.
pub const PANE_HOOKS_FLAG: &str = "--pane-hooks";
/// The file name of the hook executable, installed beside `attend`.
pub const HOOK_EXE: &str = "attend-hook";

/// The largest hook payload (the agent's JSON text) the daemon accepts, in bytes (1 MiB);
/// the hook client refuses a larger one before sending or spooling anything.
pub const MAX_PAYLOAD: usize = 1024 * 1024;

/// The environment variables the hook client sends in its `terminal` context entry
/// (`a{ss}`), when set: where the agent's terminal can show its pane (tmux, kitty,
/// WezTerm; docs/desktop-surfaces.md).
pub const TERMINAL_ENV: [&str; 6] = [
    "TMUX",
    "TMUX_PANE",
    "KITTY_WINDOW_ID",
    "KITTY_LISTEN_ON",
    "WEZTERM_PANE",
    "WEZTERM_UNIX_SOCKET",
];
