//! The `attend` command line.

pub mod demo;

/// Entry point of the `attend` binary; returns the process exit code.
pub fn main() -> i32 {
    demo::run_demo()
}
