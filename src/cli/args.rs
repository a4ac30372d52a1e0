//! The `attend` command line's grammar (clap derive): every subcommand, its arguments and
//! help text.

use super::{install, remote, settings, status, tasks, up};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

const AFTER_HELP: &str =
    "Exit codes: 0 ok, 1 nothing (next, needs), 2 bad input, 3 daemon unreachable, \
4 daemon error; `attend hook` always exits 0.";

/// Lifecycle and attention tracking for AI coding agents.
#[derive(Debug, Parser)]
#[command(name = "attend", version, about, after_help = AFTER_HELP)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Cmd,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Run the session service (owns the PTYs, the state and the D-Bus name).
    Daemon(DaemonArgs),
    /// Run PROGRAM in a new pane; prints the pane id.
    Run(RunArgs),
    /// List panes: all, or only the PARKED, HELD or DONE-UNSEEN ones
    ///
    /// PARKED       stopped at its prompt or waiting for your input while it still has
    ///              open tasks (attend task), and not held: a dropped baton or an
    ///              unanswered question.
    /// HELD         stopped on purpose, with a named owner and a wake time still ahead
    ///              (attend hold). A held pane is never PARKED.
    /// DONE-UNSEEN  finished work nobody has looked at since it finished.
    #[command(verbatim_doc_comment)]
    Ls {
        #[arg(long)]
        json: bool,
        /// Only PARKED panes: stopped (idle or needing input) with open tasks, not held.
        #[arg(long, conflicts_with_all = ["held", "done_unseen"])]
        parked: bool,
        /// Only HELD panes: an armed hold with a named owner.
        #[arg(long, conflicts_with = "done_unseen")]
        held: bool,
        /// Only DONE-UNSEEN panes: finished work nobody looked at since.
        #[arg(long)]
        done_unseen: bool,
        /// Only the panes of remote host NAME (`attend remote ls`); `-` for this machine.
        #[arg(long, value_name = "NAME")]
        host: Option<String>,
    },
    /// Show one pane.
    Show {
        pane: String,
        #[arg(long)]
        json: bool,
    },
    /// List workspaces with their summary.
    Workspaces {
        #[arg(long)]
        json: bool,
    },
    /// Mark a pane seen (clears its ordinary attention).
    Seen { pane: String },
    /// Focus a pane: mark it seen and ask the surfaces to show it.
    Focus { pane: String },
    /// Print the pane to look at next; exit 1 when nothing is unread.
    Next {
        #[arg(long)]
        json: bool,
    },
    /// List every open decision (gates, questions) of this machine's and the remote
    /// hosts' panes, worst first, then the one that has waited longest; exit 1 when
    /// nothing waits.
    Needs {
        #[arg(long)]
        json: bool,
    },
    /// Answer the pane's open decision (types the choice's keys into the pane).
    ///
    /// CHOICE is one of the decision's choices, by name, as `attend show PANE` lists them
    /// on its `choices` line (allow, deny; the panel's and the notification's buttons are
    /// the same names); or the number the agent draws beside an option in its dialog (1,
    /// 2, ...); or an option's whole label. The names the agent's dialog rule also knows
    /// (always, cancel) are taken too. The keys come from the dialog on the pane's screen
    /// now: when it cannot be read, or nothing on it means CHOICE, nothing is typed and
    /// the decision stays open.
    Answer {
        pane: String,
        /// A choice name (allow, deny), an option number as the agent draws it, or an
        /// option's label.
        choice: String,
    },
    /// Type TEXT into a pane.
    Send {
        pane: String,
        /// Text typed into the pane as it is (empty only with --enter).
        text: String,
        /// Press Enter after the text.
        #[arg(long)]
        enter: bool,
    },
    /// Send a signal to a pane's process (default TERM).
    Kill {
        pane: String,
        /// Signal number or name (9, KILL, SIGKILL).
        #[arg(long, short = 's', default_value = "TERM")]
        signal: String,
    },
    /// End every program Attend runs (asks first on a terminal; --yes for scripts).
    /// Nothing else ends them: the daemon's exit, crash or upgrade leaves them running.
    StopAll {
        /// Do not ask.
        #[arg(long, short = 'y')]
        yes: bool,
        /// Send only this signal (number or name). Without it: SIGHUP, then SIGTERM to
        /// what still runs after 1 s, then SIGKILL after 5 s more.
        #[arg(long, short = 's')]
        signal: Option<String>,
    },
    /// Re-spawn an exited pane (its resume command when known), same pane id.
    Resume { pane: String },
    /// Remove panes: every surface forgets them; their events stay in the log; their ids
    /// are never reused.
    ///
    /// A running pane Attend runs is refused unless --kill (SIGHUP, SIGTERM after 1 s,
    /// SIGKILL after 5 s more).
    /// An external pane (known through hooks) is only forgotten: its agent keeps running
    /// and its next hook makes a new pane. A running pane followed in your tmux is only
    /// forgotten too (--kill ends its agent): its agent keeps running there, followed no
    /// more until another agent starts in that tmux pane. With --exited, every exited pane goes (or
    /// those that exited at least --older-than ago). All or nothing; prints the removed
    /// ids.
    #[command(verbatim_doc_comment)]
    Rm(RmArgs),
    /// Attach this terminal to a pane.
    Attach {
        pane: String,
        /// Key that detaches (default Ctrl-\).
        #[arg(long, default_value = "C-\\")]
        detach_key: String,
        /// Look without counting as focus: the attach does not mark the pane seen; a
        /// tmux pane gets a tmux client of its own (`ignore-size`: it sizes the window
        /// only while no other client is attached). The panel's terminal runs this.
        #[arg(long)]
        watch: bool,
    },
    /// Print the event log.
    Events {
        /// Only events after this seq.
        #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
        after: u64,
        /// At most this many events (without --follow).
        #[arg(long, allow_negative_numbers = true)]
        limit: Option<u32>,
        /// Keep printing new events as they happen, each once and in order, across daemon
        /// restarts (it catches up from the last seq it printed; notes on stderr); waits
        /// for a daemon that is not running yet.
        #[arg(long)]
        follow: bool,
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// Tasks (obligations) of panes: add, start, done, ls.
    Task {
        #[command(subcommand)]
        cmd: tasks::TaskCmd,
    },
    /// Hold a pane on purpose (HELD, never PARKED) until WHEN.
    Hold {
        pane: String,
        /// Who holds it.
        #[arg(long)]
        owner: String,
        /// When the hold ends: a duration (30m, 2h) or an RFC 3339 time.
        #[arg(long)]
        wake: String,
        /// Why.
        #[arg(long)]
        reason: Option<String>,
    },
    /// Release a pane's hold.
    Unhold { pane: String },
    /// Why a pane shows its lifecycle, activity and attention: the evidence that decided
    /// them, its rung, age and trust, the screen rule that matched, the rung health.
    Explain {
        pane: String,
        #[arg(long)]
        json: bool,
    },
    /// Deliver an agent hook: `attend hook AGENT [EVENT]` with the payload on stdin, or
    /// `attend hook codex --notify JSON` (Codex `notify` passes the JSON as the last
    /// argument). Always exits 0, delivered or not, a usage error too (said on stderr): an
    /// agent reads a hook's exit 2 as "block the tool call", as `attend-hook` does.
    Hook {
        /// The agent (`data/agents.tsv`; listed by `--help`).
        #[arg(help = agent_help(true))]
        agent: String,
        /// [EVENT] (when the payload does not name it); with --notify, the last one is
        /// the JSON payload.
        #[arg(num_args = 0..=2, value_name = "EVENT|PAYLOAD")]
        args: Vec<String>,
        /// Codex `notify`: the JSON payload is the last argument.
        #[arg(long)]
        notify: bool,
        /// The entry Attend gives an agent it starts itself; delivers even while
        /// ATTEND_PANE_HOOKS names the agent (which silences the globally installed entry).
        #[arg(long)]
        pane_hooks: bool,
    },
    /// Add (or with --uninstall remove) Attend's hooks in an agent's configuration.
    InstallHooks {
        /// The agent (`data/agents.tsv`; listed by `--help`).
        #[arg(help = agent_help(true))]
        agent: String,
        /// The user's configuration or the current project's.
        #[arg(long, value_enum, default_value = "user")]
        scope: install::ScopeArg,
        /// Print the change as a diff and write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Remove Attend's hooks (exactly those) instead.
        #[arg(long)]
        uninstall: bool,
    },
    /// Print the daemon's version.
    Version,
    /// Print shell completions.
    Completions { shell: clap_complete::Shell },
    /// Print the man page (roff).
    Man,
    /// Replay a scripted session through the engine and print the pane table per step;
    /// with --live, run a scripted demo in the daemon through the real hook path.
    Demo {
        /// Four scripted Claude Code panes in the running daemon: a permission gate, a
        /// completion, a failure and a review within a minute.
        #[arg(long)]
        live: bool,
    },
    /// Counts by attention and the most urgent pane, for status bars.
    Status {
        #[arg(long, value_enum, default_value = "plain")]
        format: status::Format,
        /// The same as --format json (every listing has --json).
        #[arg(long, conflicts_with = "format")]
        json: bool,
        /// Print a new line on every change (follows the daemon's signals; survives
        /// daemon restarts).
        #[arg(long)]
        follow: bool,
    },
    /// Start the daemon (if it is not running) and open the panel. Without a session bus,
    /// start a private one first and print the line that sets DBUS_SESSION_BUS_ADDRESS
    /// (`eval "$(attend up)"`).
    Up(up::UpArgs),
    /// The settings file, config.toml.
    Config {
        #[command(subcommand)]
        cmd: settings::ConfigCmd,
    },
    /// Other machines' Attend daemons this one links to (over ssh or a --via carrier).
    Remote {
        #[command(subcommand)]
        cmd: remote::RemoteCmd,
    },
    /// Join stdin/stdout to this machine's session bus (the remote end of a link, run by
    /// ssh: `attend bridge --stdio`).
    Bridge {
        /// Speak D-Bus on stdin/stdout (the only mode).
        #[arg(long, required = true)]
        stdio: bool,
    },
}

/// `attend daemon` options.
#[derive(Debug, Args)]
pub struct DaemonArgs {
    /// Run without the tray icon.
    #[arg(long)]
    pub no_tray: bool,
    /// Run without desktop notifications.
    #[arg(long)]
    pub no_notifications: bool,
    /// State directory (default $ATTEND_STATE_DIR, else $XDG_STATE_HOME/attend).
    #[arg(long)]
    pub state_dir: Option<PathBuf>,
    /// Scrollback lines kept per pane.
    #[arg(long, default_value_t = 2000, allow_negative_numbers = true)]
    pub scrollback: usize,
    /// Bytes of output each pane holder keeps while no daemon is connected (the newest;
    /// the pane's history shows a gap line for the rest). 0 keeps none: everything a pane
    /// prints while no daemon runs is one gap line.
    #[arg(
        long,
        default_value_t = attend_holder::holder::DEFAULT_BUFFER,
        allow_negative_numbers = true
    )]
    pub holder_buffer: usize,
    /// Take over from a running daemon (upgrade = install, then `attend daemon
    /// --replace`): asks it to quit, then SIGTERM, then SIGKILL; agents keep running.
    #[arg(long)]
    pub replace: bool,
}

/// `attend rm` options.
#[derive(Debug, Args)]
pub struct RmArgs {
    /// The panes to remove.
    #[arg(
        required_unless_present_any = ["exited", "older_than", "dry_run"],
        conflicts_with = "exited"
    )]
    pub panes: Vec<String>,
    /// End running panes Attend runs first (SIGHUP, SIGTERM after 1 s, SIGKILL after 5 s
    /// more) instead of refusing them.
    #[arg(long, conflicts_with = "exited")]
    pub kill: bool,
    /// Remove every exited pane instead of naming them.
    #[arg(long)]
    pub exited: bool,
    /// With --exited: only panes that exited at least this long ago (30m, 2h, 3d).
    // (`requires = "exited"` does not work for a flag: clap counts its default `false`.)
    #[arg(long, conflicts_with = "panes", value_name = "DURATION")]
    pub older_than: Option<String>,
    /// With --exited: print what would be removed and remove nothing.
    #[arg(long, conflicts_with = "panes")]
    pub dry_run: bool,
    /// Also remove the git worktree Attend made for each pane (`attend run --worktree`):
    /// refused, nothing removed, while one holds uncommitted or untracked changes (they
    /// are named); the branch stays. Without it a pane's worktree stays and rm says where.
    #[arg(long, conflicts_with = "exited")]
    pub worktree: bool,
    /// Print `{"removed": [...], "dry_run": BOOL, "worktrees": [...]}`.
    #[arg(long)]
    pub json: bool,
}

/// `attend run` options.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Workspace (default: the git top level of the cwd, else the cwd).
    #[arg(short = 'w', long)]
    pub workspace: Option<String>,
    /// Tab (default main).
    #[arg(short = 't', long)]
    pub tab: Option<String>,
    /// Pane name (default the pane id).
    #[arg(short = 'n', long)]
    pub name: Option<String>,
    /// Working directory (default the current one).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// Agent kind (`data/agents.tsv`, or shell; listed by `--help`); detected from PROGRAM.
    #[arg(long, help = format!("{}; detected from PROGRAM", agent_help(false)))]
    pub agent: Option<String>,
    /// Exit code 0 means done.
    #[arg(long)]
    pub oneshot: bool,
    /// Run in a new git worktree of the cwd's repository on BRANCH (`git worktree add`,
    /// beside the repository in REPO.worktrees/BRANCH or under `[worktrees] dir`); an
    /// existing branch is checked out there unless a worktree has it already.
    #[arg(long, value_name = "BRANCH")]
    pub worktree: Option<String>,
    /// With --worktree: where a new branch starts (default the cwd's HEAD).
    #[arg(long, value_name = "REF", requires = "worktree")]
    pub base: Option<String>,
    /// The program and its arguments.
    #[arg(last = true, required = true, num_args = 1..)]
    pub argv: Vec<String>,
}

/// The help text naming every agent kind (`AgentKind::names`): the hook agents, or those
/// and `shell`. One list, so the help never lags the table of agents.
fn agent_help(hooks_only: bool) -> String {
    format!("Agent: {}", crate::model::AgentKind::names(hooks_only))
}
