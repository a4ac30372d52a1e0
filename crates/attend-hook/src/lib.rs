//! The hook side of Attend, in a crate of its own so that the executable the agents run
//! before every tool call stays small: `attend-hook AGENT [EVENT]` (src/main.rs), and what
//! the daemon shares with it — the fixed names ([`names`]), the state and runtime
//! directories ([`paths`]), the spool format and its writer ([`spool`]), the payload
//! limit, the terminal environment names and the `/proc` stat reader ([`procstat`]), and
//! the reply text of a Copilot, Droid, Kimi or aider turn read from its transcript ([`transcript`],
//! [`droid_transcript`], [`kimi_transcript`], [`aider_history`]) (docs/decisions/0004-hook-executable.md).
//!
//! Its dependencies are `libc`, `serde`, `serde_json` and `dbus` (the bindings to libdbus,
//! the library `dbus-send` uses; [`bus`]) only: no async runtime, no SQLite, no argument
//! parser, no GUI toolkit.

pub mod address;
pub mod aider_history;
pub mod bus;
pub mod client;
pub mod context;
pub mod droid_transcript;
pub mod event;
pub mod gate;
pub mod kimi_transcript;
pub mod names;
pub mod paths;
pub mod procstat;
pub mod shrink;
pub mod spool;
pub mod transcript;

pub use client::{run, Entry, Failure, Invocation, EXECUTABLE};
pub use context::Context;
pub use names::{
    BUS_NAME, ERROR_PREFIX, HOOK_EXE, INTERFACE, MAX_PAYLOAD, OBJECT_PATH, PANE_ENV,
    PANE_HOOKS_ENV, PANE_HOOKS_FLAG, TERMINAL_ENV,
};
