//! The hook events each agent CLI fires, as the tests know them (from the recorded
//! fixtures in `tests/fixtures/` and the agents' hook references): one list per agent,
//! kept apart from the installer's own lists in `src/install/` so that the tests check
//! those rather than repeat them. Included by `tests/support/mod.rs` and, on its own,
//! by the tests that need nothing else of the support (`#[path]`).
#![allow(dead_code)]

/// Claude Code (2.1.197 and 2.1.332): every hook event, in the order `install-hooks` writes
/// them.
pub const CLAUDE: &[&str] = &[
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

/// Cursor: every hook event, in the order `install-hooks` writes them.
pub const CURSOR: &[&str] = &[
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

/// Gemini CLI 0.61.0: every hook event the CLI fires.
pub const GEMINI: &[&str] = &[
    "SessionStart",
    "SessionEnd",
    "BeforeAgent",
    "AfterAgent",
    "BeforeModel",
    "AfterModel",
    "BeforeToolSelection",
    "BeforeTool",
    "AfterTool",
    "Notification",
    "PreCompress",
];

/// Qwen Code 0.24.4: the hook events `install-hooks` writes (the harness records these
/// too); the CLI also fires `MessageDisplay` (per streamed chunk), `UserPromptExpansion`,
/// `InstructionsLoaded`, `SessionDelete`, `TodoCreated` and `TodoCompleted`, which
/// Attend does not use.
/// Its hook schema is Claude Code's, so the list is the same.
pub const QWEN: &[&str] = CLAUDE;

/// GitHub Copilot CLI 1.0.102: the hook events `install-hooks` writes, by name; the CLI
/// also fires `userPromptTransformed`, `preMcpToolCall`, `postResult` and
/// `prePRDescription`, which Attend does not use.
pub const COPILOT: &[&str] = &[
    "agentStop",
    "errorOccurred",
    "notification",
    "permissionRequest",
    "postToolUse",
    "postToolUseFailure",
    "preCompact",
    "preToolUse",
    "sessionEnd",
    "sessionStart",
    "subagentStart",
    "subagentStop",
    "userPromptSubmitted",
];

/// GitHub Copilot CLI 1.0.102: every hook type (its `HookType` list), what the harness
/// records.
pub const COPILOT_ALL: &[&str] = &[
    "sessionStart",
    "userPromptSubmitted",
    "userPromptTransformed",
    "preToolUse",
    "preMcpToolCall",
    "permissionRequest",
    "notification",
    "postToolUse",
    "postToolUseFailure",
    "agentStop",
    "subagentStart",
    "subagentStop",
    "preCompact",
    "errorOccurred",
    "postResult",
    "prePRDescription",
    "sessionEnd",
];

/// Factory Droid 0.225.2: the hook events its hooks reference lists, in the order
/// `install-hooks` writes them (`droid exec` fired `SessionStart`, `PreToolUse`,
/// `PostToolUse`, `Stop` and `SessionEnd` here; the others need its interactive mode).
pub const DROID: &[&str] = &[
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
