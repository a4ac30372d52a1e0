//! The `attend` command line.

/// Entry point of the `attend` binary; returns the process exit code.
pub fn main() -> i32 {
    0
}
