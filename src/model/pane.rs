use super::agents::{self, AgentRow};
use super::attention::{Attention, AttentionItem};
use super::decision::Decision;
use super::lifecycle::{Lifecycle, Live};
use super::pane_id::PaneId;
use super::task::{Hold, Task};
use super::time::Timestamp;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Which agent runs in a pane; decides the adapter and the rung inventory.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "snake_case")]
pub enum AgentKind {
    Claude,
    Codex,
    Cursor,
    Gemini,
    /// Qwen Code (`qwen`), a Gemini CLI fork with Claude Code's hook schema.
    Qwen,
    /// OpenCode (`opencode`), reporting through Attend's JS plugin.
    #[serde(rename = "opencode")]
    OpenCode,
    /// GitHub Copilot CLI (`copilot`): camelCase hooks that name their event only on the
    /// command line.
    Copilot,
    /// Factory Droid (`droid`): Claude Code's hook schema, Droid's tool names.
    Droid,
    /// pi (`pi`, the pi coding agent), reporting through Attend's TypeScript extension.
    Pi,
    /// Kimi Code CLI (`kimi`): Claude-style hooks in `config.toml` `[[hooks]]` tables, with
    /// its own permission result and interrupt events.
    Kimi,
    /// Kilo Code CLI (`kilo`), an OpenCode fork reporting through the same JS plugin.
    Kilo,
    /// Cline CLI (`cline`): one hook file per event in its hooks directory, camelCase
    /// payloads named by `hookName`; its approval dialog is seen on screen only.
    Cline,
    /// oh-my-pi (`omp`), a pi fork reporting through Attend's pi extension, which it loads
    /// from its own agent directory; its tool approvals are events of that extension too.
    Omp,
    /// Continue CLI (`continue`, the program `cn`): Claude-style hooks in
    /// `~/.continue/settings.json` (it reads Claude's `settings.json` too).
    Continue,
    /// Grok CLI (`grok`, `@vibe-kit/grok-cli`): no hooks, no window title; its screen only.
    Grok,
    /// Letta Code (`letta`): Claude-style hooks in `~/.letta/settings.json` whose payloads
    /// name their event by `event_type`; its approval dialog is told by a `Notification`.
    Letta,
    /// Auggie (`auggie`, Augment's CLI): Claude-style hooks in `~/.augment/settings.json`
    /// named `hook_event_name`; documented only (it needs an Augment sign-in).
    Auggie,
    /// Mistral Vibe (`vibe`, PyPI `mistral-vibe`): `[[hooks]]` in `~/.vibe/hooks.toml`
    /// (turn end and tool hooks, experimental); documented only, it needs Python ≥ 3.12.
    Vibe,
    /// aider (`aider`, PyPI `aider-chat`): no hooks; its `notifications-command` says it
    /// waits for input, the screen and the window title say the rest.
    Aider,
    /// Hermes Agent (`hermes`, PyPI `hermes-agent`): shell hooks in
    /// `~/.hermes/config.yaml` (session, LLM call, tool call events).
    Hermes,
    /// OpenHands CLI (`openhands`, PyPI `openhands`): Claude-style hooks in
    /// `.openhands/hooks.json`; documented only, it needs Python 3.12.
    #[serde(rename = "openhands")]
    OpenHands,
    /// Amp (`amp`, npm `@ampcode/cli`), reporting through Attend's TypeScript plugin;
    /// documented only (it needs an Amp account).
    Amp,
    /// Qoder CLI (`qoder`, the program `qodercli`): Claude Code's hook schema in
    /// `~/.qoder/settings.json`; documented only (it needs a Qoder sign-in).
    Qoder,
    /// Crush (`crush`, Charm's CLI): a `PreToolUse` hook in `crush.json` and its turn-end
    /// notification on the terminal; documented only (its binary downloads from GitHub).
    Crush,
    /// MastraCode (`mastracode`): a flat `~/.mastracode/hooks.json` (one list of commands
    /// per event) with its own run, permission and interrupt events.
    #[serde(rename = "mastracode")]
    MastraCode,
    /// A plain shell or any unrecognised program.
    #[default]
    Shell,
}

impl AgentKind {
    /// Every kind.
    pub const ALL: [AgentKind; 26] = [
        AgentKind::Claude,
        AgentKind::Codex,
        AgentKind::Cursor,
        AgentKind::Gemini,
        AgentKind::Qwen,
        AgentKind::OpenCode,
        AgentKind::Copilot,
        AgentKind::Droid,
        AgentKind::Pi,
        AgentKind::Kimi,
        AgentKind::Kilo,
        AgentKind::Cline,
        AgentKind::Omp,
        AgentKind::Continue,
        AgentKind::Grok,
        AgentKind::Letta,
        AgentKind::Auggie,
        AgentKind::Vibe,
        AgentKind::Aider,
        AgentKind::Hermes,
        AgentKind::OpenHands,
        AgentKind::Amp,
        AgentKind::Qoder,
        AgentKind::Crush,
        AgentKind::MastraCode,
        AgentKind::Shell,
    ];

    /// Wire name (`"claude"`).
    pub fn as_str(self) -> &'static str {
        match self {
            AgentKind::Claude => "claude",
            AgentKind::Codex => "codex",
            AgentKind::Cursor => "cursor",
            AgentKind::Gemini => "gemini",
            AgentKind::Qwen => "qwen",
            AgentKind::OpenCode => "opencode",
            AgentKind::Copilot => "copilot",
            AgentKind::Droid => "droid",
            AgentKind::Pi => "pi",
            AgentKind::Kimi => "kimi",
            AgentKind::Kilo => "kilo",
            AgentKind::Cline => "cline",
            AgentKind::Omp => "omp",
            AgentKind::Continue => "continue",
            AgentKind::Grok => "grok",
            AgentKind::Letta => "letta",
            AgentKind::Auggie => "auggie",
            AgentKind::Vibe => "vibe",
            AgentKind::Aider => "aider",
            AgentKind::Hermes => "hermes",
            AgentKind::OpenHands => "openhands",
            AgentKind::Amp => "amp",
            AgentKind::Qoder => "qoder",
            AgentKind::Crush => "crush",
            AgentKind::MastraCode => "mastracode",
            AgentKind::Shell => "shell",
        }
    }

    /// Every wire name, comma-separated (`"claude, codex, …, shell"`), for messages that
    /// list what is accepted; `hooks_only` leaves out `shell` (no hooks report for it).
    pub fn names(hooks_only: bool) -> String {
        AgentKind::ALL
            .into_iter()
            .filter(|a| !hooks_only || *a != AgentKind::Shell)
            .map(AgentKind::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Parses a wire name; `None` outside the vocabulary.
    pub fn parse(s: &str) -> Option<AgentKind> {
        AgentKind::ALL.into_iter().find(|a| a.as_str() == s)
    }

    /// Detects the agent from a program path's file name: one of the executables its row
    /// of `data/agents.tsv` lists ([`agents::by_program`]: `/usr/bin/claude` → Claude,
    /// `cursor-agent` → Cursor); anything else is a shell.
    pub fn from_program(program: &str) -> AgentKind {
        agents::by_program(program)
            .and_then(|row| AgentKind::parse(row.name))
            .unwrap_or(AgentKind::Shell)
    }

    /// This agent's row of `data/agents.tsv` ([`agents::row`]); `None` for a shell.
    pub fn row(self) -> Option<&'static AgentRow<'static>> {
        agents::row(self.as_str())
    }

    /// The name people know the agent by (`Claude Code`, `GitHub Copilot CLI`), from its
    /// row; `Shell` for a shell.
    pub fn display_name(self) -> &'static str {
        self.row().map_or("Shell", |row| row.display)
    }

    /// The names a process of the agent carries (its row's `processes`: `claude`, and
    /// `node` when its npm launcher runs under it); none for a shell.
    pub fn process_names(self) -> &'static [&'static str] {
        self.row().map_or(&[], |row| row.processes.as_slice())
    }
}

impl fmt::Display for AgentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Identity fields a signal may carry; applied before the state transition (spec 024
/// FR-001: a session-end payload's session id still updates identity and resume argv).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Identity {
    pub session_id: Option<String>,
    pub resume_argv: Option<Vec<String>>,
    pub cwd: Option<String>,
    pub title: Option<String>,
}

impl Identity {
    /// True when no field is set.
    pub fn is_empty(&self) -> bool {
        self == &Identity::default()
    }
}

/// One pane (the "seat"): all state attaches here, never to the agent session occupying it
/// (`docs/taxonomy.md#handover`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pane {
    pub id: PaneId,
    /// Workspace key: git top-level path, else the cwd
    /// (`docs/lifecycle-attention.md#workspace-key`).
    pub workspace: String,
    pub tab: String,
    pub name: String,
    pub agent: AgentKind,
    pub lifecycle: Lifecycle,
    /// The lifecycle at the moment the process exited
    /// (`docs/lifecycle-attention.md#liveness`); `None` while running.
    pub last_lifecycle: Option<Lifecycle>,
    pub live: Live,
    /// When the process last exited (`docs/lifecycle-attention.md#liveness`); `None`
    /// while it runs. What `attend rm --exited --older-than` and the automatic removal
    /// of exited panes measure from (`docs/lifecycle-attention.md#removing-panes`).
    #[serde(default)]
    pub exited_at: Option<Timestamp>,
    /// Outstanding attention items; the shown attention is their maximum.
    pub items: Vec<AttentionItem>,
    pub pending_decision: Option<Decision>,
    pub session_id: Option<String>,
    pub resume_argv: Option<Vec<String>>,
    pub cwd: Option<String>,
    pub repo: Option<String>,
    pub branch: Option<String>,
    pub title: Option<String>,
    /// Last explicit message (hook summary, notification text), never scraped screen text.
    pub last_message: Option<String>,
    pub last_message_at: Option<Timestamp>,
    pub last_seen_at: Option<Timestamp>,
    pub attention_changed_at: Option<Timestamp>,
    /// When the pane last entered `done` (for DONE-UNSEEN).
    pub done_at: Option<Timestamp>,
    /// A focused pane counts new ordinary items as seen at once
    /// (`docs/lifecycle-attention.md#focus`).
    pub focused: bool,
    /// Started with `--oneshot`: exit code 0 means done.
    pub oneshot: bool,
    /// True once any lifecycle hook reached this pane's current session (terminal
    /// notifications are then not a reason to guess `blocked`).
    pub hooks_seen: bool,
    /// The needs-input reason a usage or rate limit left ("usage limit").
    pub limit_reason: Option<String>,
    pub tasks: Vec<Task>,
    pub hold: Option<Hold>,
    /// The argv Attend spawned (empty for an external pane).
    pub command: Vec<String>,
    /// True when Attend owns the pane's PTY (it can type answers); false for an external
    /// pane known only through hooks.
    pub owned: bool,
    pub created_at: Timestamp,
    /// While a fresh interactive shell's start is quiet, its output raises no unread
    /// (`docs/lifecycle-attention.md#quiet-shell-start`); `None` otherwise.
    pub start_quiet: Option<StartQuiet>,
    /// When the user last asked Attend to signal this pane's program (`attend kill`, the
    /// panel's Kill); the exit that follows soon after is the user's own act
    /// (`docs/lifecycle-attention.md#process-exited`). Cleared by the exit.
    pub kill_requested_at: Option<Timestamp>,
    /// Where a pane followed in the user's tmux lives (`docs/tmux.md`); `None` for an
    /// owned pane and a pane known through hooks only.
    #[serde(default)]
    pub tmux: Option<TmuxLocation>,
    /// The git worktree Attend made for the pane (`attend run --worktree`,
    /// `docs/worktrees.md`): its folder. `None` for every other pane. `attend rm
    /// --worktree` removes it; resume re-enters it; nothing else touches it.
    #[serde(default)]
    pub worktree: Option<String>,
}

/// A tmux pane Attend follows (`docs/tmux.md#identity`): the server's socket and pid and
/// the pane's id, which together name it for as long as it lives, and where it was last
/// seen (`session:window.pane`, for people).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TmuxLocation {
    /// The server's socket path (`#{socket_path}`; the first field of `TMUX`).
    pub socket: String,
    /// The server's pid (`#{pid}`).
    pub server_pid: u32,
    /// The pane's id, `%N` (`TMUX_PANE`).
    pub pane: String,
    /// `session:window.pane` when following began.
    pub place: String,
}

impl TmuxLocation {
    /// True when `other` names the same tmux pane (same server, same pane id).
    pub fn same_pane(&self, other: &TmuxLocation) -> bool {
        self.socket == other.socket
            && self.server_pid == other.server_pid
            && self.pane == other.pane
    }
}

/// How a fresh interactive shell's start stays quiet
/// (`docs/lifecycle-attention.md#quiet-shell-start`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "until", rename_all = "snake_case")]
pub enum StartQuiet {
    /// No OSC 133 prompt mark seen yet: quiet until the named quiet time after `since`
    /// (the spawn) has passed.
    Timed { since: Timestamp },
    /// The shell sends OSC 133 prompt marks: quiet until its first command runs (mark C).
    FirstCommand,
}

impl Pane {
    /// A fresh pane: lifecycle `unknown`, attention `none`, running.
    pub fn new(
        id: PaneId,
        workspace: &str,
        tab: &str,
        name: &str,
        agent: AgentKind,
        now: Timestamp,
    ) -> Pane {
        Pane {
            id,
            workspace: workspace.to_string(),
            tab: tab.to_string(),
            name: name.to_string(),
            agent,
            lifecycle: Lifecycle::Unknown,
            last_lifecycle: None,
            live: Live::Running,
            exited_at: None,
            items: Vec::new(),
            pending_decision: None,
            session_id: None,
            resume_argv: None,
            cwd: None,
            repo: None,
            branch: None,
            title: None,
            last_message: None,
            last_message_at: None,
            last_seen_at: None,
            attention_changed_at: None,
            done_at: None,
            focused: false,
            oneshot: false,
            hooks_seen: false,
            limit_reason: None,
            tasks: Vec::new(),
            hold: None,
            command: Vec::new(),
            owned: false,
            created_at: now,
            start_quiet: None,
            kill_requested_at: None,
            tmux: None,
            worktree: None,
        }
    }

    /// The shown attention: the highest outstanding item, `none` when empty
    /// (`docs/lifecycle-attention.md#attention`).
    pub fn attention(&self) -> Attention {
        self.items
            .iter()
            .map(|i| i.level)
            .max()
            .unwrap_or(Attention::None)
    }

    /// True when Attend holds a terminal of the pane's program, whose keys it types and
    /// whose process it signals: a pane it runs (owned) or one it follows in the user's
    /// tmux (`docs/tmux.md`). An external pane known only through hooks has none.
    pub fn has_terminal(&self) -> bool {
        self.owned || self.tmux.is_some()
    }

    /// Spec 024's derived predicate: lifecycle done/failed, attention none, no decision.
    /// Never stored.
    pub fn is_reviewed_terminal(&self) -> bool {
        self.lifecycle.is_terminal()
            && self.attention() == Attention::None
            && self.pending_decision.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::AgentKind;

    #[test]
    fn the_program_file_name_picks_the_agent() {
        for (program, agent) in [
            ("/usr/bin/claude", AgentKind::Claude),
            ("cursor-agent", AgentKind::Cursor),
            ("qwen", AgentKind::Qwen),
            ("/opt/node/bin/opencode", AgentKind::OpenCode),
            ("opencode-ai", AgentKind::Shell),
            ("/opt/npm/bin/copilot", AgentKind::Copilot),
            ("/opt/npm/bin/droid", AgentKind::Droid),
            ("/opt/npm/bin/pi", AgentKind::Pi),
            ("pip", AgentKind::Shell),
            ("/opt/npm/bin/kimi", AgentKind::Kimi),
            ("/opt/npm/bin/cline", AgentKind::Cline),
            ("/opt/npm/bin/omp", AgentKind::Omp),
            ("/opt/npm/bin/cn", AgentKind::Continue),
            ("/opt/npm/bin/grok", AgentKind::Grok),
            ("/opt/npm/bin/letta", AgentKind::Letta),
            ("/opt/npm/bin/auggie", AgentKind::Auggie),
            ("/venv/bin/vibe", AgentKind::Vibe),
            ("/venv/bin/aider", AgentKind::Aider),
            ("/venv/bin/hermes", AgentKind::Hermes),
            ("/venv/bin/openhands", AgentKind::OpenHands),
            ("/home/u/.local/bin/amp", AgentKind::Amp),
            ("/opt/npm/bin/qodercli", AgentKind::Qoder),
            ("/opt/npm/bin/crush", AgentKind::Crush),
            ("ampere", AgentKind::Shell),
            ("/opt/npm/bin/mastracode", AgentKind::MastraCode),
            // Kilo's npm launcher, and the native binary it copies beside itself.
            ("/opt/npm/bin/kilo", AgentKind::Kilo),
            ("/opt/npm/lib/@kilocode/cli/bin/.kilo", AgentKind::Kilo),
            ("copilot-wrapper", AgentKind::Shell),
            ("htop", AgentKind::Shell),
        ] {
            assert_eq!(AgentKind::from_program(program), agent, "{program}");
        }
        for agent in AgentKind::ALL {
            assert_eq!(AgentKind::parse(agent.as_str()), Some(agent));
        }
        assert!(AgentKind::names(true).ends_with(
            "grok, letta, auggie, vibe, aider, hermes, openhands, amp, qoder, crush, mastracode"
        ));
        assert_eq!(AgentKind::OpenCode.as_str(), "opencode");
        assert_eq!(
            serde_json::to_string(&AgentKind::OpenCode).unwrap(),
            "\"opencode\""
        );
        assert_eq!(AgentKind::from_program("node"), AgentKind::Shell);
    }

    #[test]
    fn every_agent_kind_but_shell_has_one_row_and_every_row_is_a_kind() {
        use crate::model::agents::table;
        for agent in AgentKind::ALL {
            let rows = table().iter().filter(|r| r.name == agent.as_str()).count();
            let wanted = usize::from(agent != AgentKind::Shell);
            assert_eq!(rows, wanted, "rows of {agent} in data/agents.tsv");
        }
        for row in table() {
            assert!(
                AgentKind::parse(row.name).is_some_and(|a| a != AgentKind::Shell),
                "row {:?} of data/agents.tsv is no AgentKind",
                row.name
            );
        }
        assert_eq!(AgentKind::Copilot.display_name(), "GitHub Copilot CLI");
        assert_eq!(AgentKind::Shell.display_name(), "Shell");
        assert_eq!(AgentKind::OpenCode.process_names(), ["opencode"]);
        assert!(AgentKind::Shell.process_names().is_empty());
    }
}
