//! `install-hooks continue`: Continue CLI reads Claude Code's hook settings shape from
//! `~/.continue/settings.json` (or the project's `.continue/settings.json`), so the
//! grouped JSON editor of Claude's hooks writes them (docs/adapters.md "Continue CLI").

/// Continue CLI's hook events Attend maps (docs/adapters.md "Continue CLI"): those of
/// Claude Code it knows (its `HOOK_EVENT_NAMES`), but `ConfigChange`, `TeammateIdle`,
/// `TaskCompleted`, `WorktreeCreate` and `WorktreeRemove`, which say nothing of the pane's
/// state. Its tool events get `"matcher": "*"` as Claude's do.
pub(super) const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "Notification",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "SessionEnd",
];
