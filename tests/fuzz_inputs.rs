//! Fuzzing (docs/reliability.md, "Reliability suite" → "Fuzzing"): proptest-driven mutation fuzzing
//! of the hook payload parsers, the terminal scanner, the pane terminal parser, the
//! screen manifest loader and the hook spool reader, over the checked-in corpus in
//! `tests/fuzz/corpus/`. See `tests/fuzz/mod.rs` for the machinery and the sizing
//! variables, and `build-aux/fuzz.sh` for a long run.

mod fuzz;
#[path = "support/hook_events.rs"]
mod hook_events;
