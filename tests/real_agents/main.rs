//! The real-agent tests (CI stage `real-agents`, `build-aux/test.sh --real-agents`): the
//! real Claude Code, Codex, Gemini, Qwen Code, Copilot, OpenCode, Kilo, Cline, aider and
//! Hermes Agent CLIs in Attend panes
//! against the scripted model (docs/real-agents.md). One test binary; each module is one
//! file of this directory. A test's name starts with its agent (`claude_…`), so
//! `cargo test --test real_agents -- claude` runs one agent's tests, and
//! `cargo test --test real_agents real_claude_gate::` one file's.

#[path = "../desktop/mod.rs"]
mod desktop;
#[cfg(feature = "gui")]
#[path = "../panel/mod.rs"]
mod panel;
#[path = "../support/mod.rs"]
mod support;

mod ladder_real_claude;
mod real_agent_failures;
mod real_agent_handover;
mod real_agent_outage;
mod real_agent_pane_hooks;
mod real_agent_scenarios;
mod real_agent_turns;
mod real_agents;
mod real_aider;
mod real_claude_dialogs;
mod real_claude_gate;
#[cfg(feature = "gui")]
mod real_claude_panel_reply;
mod real_claude_tmux;
mod real_claude_tmux_answers;
mod real_cline;
mod real_codex_tmux;
mod real_continue;
mod real_copilot;
mod real_droid;
mod real_gemini_tmux;
mod real_grok;
mod real_hermes;
mod real_kilo;
mod real_kimi;
mod real_letta;
mod real_mastracode;
mod real_omp;
mod real_opencode;
mod real_pi;
mod real_qwen;
mod tmux_agent;
