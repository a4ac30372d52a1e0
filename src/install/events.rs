//! The hook events each agent's configuration registers, in the order `install-hooks`
//! writes them, and their timeouts (docs/adapters.md, each agent's section).

/// Claude Code's hook events, in the order `install-hooks` writes them (also the pane
/// hooks' list, `src/install/pane/`).
pub(crate) const CLAUDE_EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "Notification",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "PostToolBatch",
    "PermissionDenied",
    "SessionEnd",
];
/// Claude's per-event timeouts (global entries only): the `PermissionRequest` run waits
/// for a choice made in Attend for up to `attend_hook::gate::WAIT`.
pub(super) const CLAUDE_GATE_TIMEOUTS: &[(&str, u64)] =
    &[("PermissionRequest", attend_hook::gate::ENTRY_TIMEOUT_S)];
/// Claude's tool events, whose groups say `"matcher": "*"` (all tools).
pub(super) const CLAUDE_TOOL_EVENTS: &[&str] = &[
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
];
pub(super) const CODEX_EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "Stop",
    "SessionEnd",
];
pub(super) const CURSOR_EVENTS: &[&str] = &[
    "sessionStart",
    "sessionEnd",
    "beforeSubmitPrompt",
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "beforeShellExecution",
    "afterShellExecution",
    "afterAgentResponse",
    "stop",
];
pub(super) const GEMINI_EVENTS: &[&str] = &[
    "SessionStart",
    "SessionEnd",
    "BeforeAgent",
    "AfterAgent",
    "BeforeModel",
    "BeforeTool",
    "AfterTool",
    "Notification",
];

/// Factory Droid's hook events, as its hooks reference lists them (docs/adapters.md
/// "Factory Droid"); its tool events get `"matcher": "*"`.
pub(super) const DROID_EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Notification",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "SessionEnd",
];
pub(super) const DROID_TOOL_EVENTS: &[&str] = &["PreToolUse", "PostToolUse"];

/// Qwen Code's hook events Attend maps (docs/adapters.md "Qwen Code"): Claude Code's, as
/// its hook schema is Claude's; not `MessageDisplay` (fired over and over while a reply
/// streams), `UserPromptExpansion`, `InstructionsLoaded`, `SessionDelete`, `TodoCreated`,
/// `TodoCompleted`.
pub(super) const QWEN_EVENTS: &[&str] = CLAUDE_EVENTS;

/// GitHub Copilot CLI's hook events Attend maps (docs/adapters.md "GitHub Copilot CLI");
/// not `userPromptTransformed`, `preMcpToolCall`, `postResult` and `prePRDescription`,
/// which say nothing of the pane's state.
pub(super) const COPILOT_EVENTS: &[&str] = &[
    "sessionStart",
    "userPromptSubmitted",
    "preToolUse",
    "permissionRequest",
    "notification",
    "postToolUse",
    "postToolUseFailure",
    "agentStop",
    "errorOccurred",
    "subagentStart",
    "subagentStop",
    "preCompact",
    "sessionEnd",
];

/// Kimi Code CLI's hook events Attend maps (docs/adapters.md "Kimi Code CLI"): the 16
/// events 2.1.0 accepts in `config.toml` (an unknown event name makes it refuse the whole
/// file), but `PreCompact`, `PostCompact` and `Notification` (background tasks), which say
/// nothing of the pane's state.
pub(super) const KIMI_EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PermissionResult",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "StopFailure",
    "Interrupt",
    "SubagentStart",
    "SubagentStop",
    "SessionEnd",
];

/// The `timeout` (seconds) of Attend's Kimi hook tables. `PreToolUse`, `UserPromptSubmit`
/// and `Stop` hold the agent until the hook exits; the client returns well within it.
pub(super) const KIMI_TIMEOUT_S: i64 = 5;

/// Letta Code's hook events Attend maps (docs/adapters.md "Letta Code"): not
/// `PermissionRequest`, whose hook exiting 0 approves the call (Attend's hook client
/// always exits 0).
pub(super) const LETTA_EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Notification",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "SessionEnd",
];
/// Letta's tool events, whose groups say `"matcher": "*"` (all tools).
pub(super) const LETTA_TOOL_EVENTS: &[&str] = &["PreToolUse", "PostToolUse", "PostToolUseFailure"];

/// The `timeout` of Attend's Letta entries, in milliseconds (Letta's unit; its default is
/// 60 000). `PreToolUse` and `Stop` hold the agent until the hook exits; the client
/// returns well within it.
pub(super) const LETTA_TIMEOUT_MS: u64 = 5000;

/// Auggie's hook events (its documentation and 0.36.0's hook schema): all seven.
pub(super) const AUGGIE_EVENTS: &[&str] = &[
    "SessionStart",
    "PromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Notification",
    "Stop",
    "SessionEnd",
];

/// Qoder CLI's hook events Attend maps (docs/adapters.md "Qoder CLI"): Claude Code's that
/// it fires (its bundled hook guide); not `PreCompact`, `PostCompact`, `TeammateIdle`,
/// `ConfigChange`, `InstructionsLoaded`, the file, worktree and task events, which say
/// nothing of the pane's state. Its `PermissionRequest` hook only reports: a hook that
/// prints no decision leaves the choice to its own dialog.
pub(super) const QODER_EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "Notification",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "SessionEnd",
];

/// Crush's hook events: the one it runs (docs/adapters.md "Crush").
pub(super) const CRUSH_EVENTS: &[&str] = &["PreToolUse"];
/// MastraCode's hook events Attend maps (docs/adapters.md "MastraCode"): not `Stop`
/// (`AgentEnd` ends the turn; `Stop` says `complete` for a run the question tool
/// suspended), nor the subagent events (identity only).
pub(super) const MASTRACODE_EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "AgentStart",
    "PreToolUse",
    "PermissionRequest",
    "PermissionResult",
    "PostToolUse",
    "Notification",
    "AgentEnd",
    "Interrupt",
    "SessionEnd",
];

/// The `timeout` of Attend's MastraCode entries, in milliseconds (its unit; its default
/// is 10 000). `PreToolUse` and `UserPromptSubmit` hold the agent until the hook exits;
/// the client returns well within it.
pub(super) const MASTRACODE_TIMEOUT_MS: u64 = 5000;
