//! Git worktrees for agents (`docs/worktrees.md`, ADR
//! `docs/decisions/0018-where-worktrees-go.md`): `attend run --worktree BRANCH` makes one
//! and runs the agent there, `attend rm --worktree` removes it when it is clean. The
//! clients make and remove worktrees (the daemon only stores which folder a pane's
//! worktree is): [`plan`] decides (pure), [`git`] runs git.

pub mod git;
pub mod plan;
