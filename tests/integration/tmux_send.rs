//! `attend send` to a pane followed in the user's tmux types the text as given
//! (docs/tmux.md#answers): a final `;` (which tmux would read as the end of a command)
//! and a text longer than one tmux command line (tmux refuses one over 16 KiB) both
//! arrive byte for byte, in order.

use crate::support;
use crate::tmux_support::{blocked_in, fake_claude_in, need_tmux, server_with_a_shell};

use support::Env;

#[test]
fn send_types_a_final_semicolon_and_a_long_text_as_given() {
    need_tmux();
    let mut env = Env::new();
    env.start_daemon();
    let (_server, shell) = server_with_a_shell(&env);
    let bin = env.path("bin");
    let unused = env.work_dir().join("unused.txt");
    // The link named `claude` and the recorded dialog; the script below is ours.
    let command = fake_claude_in(&bin, "dialog", &unused, "", "");
    let claude = command.split_whitespace().next().unwrap().to_string();
    let out = env.work_dir().join("typed.txt");
    let long = "x".repeat(20_000);
    let want = format!("echo one;{long}");
    let script = bin.join("raw.sh");
    std::fs::write(
        &script,
        format!(
            "printf '\\033[H\\033[2J'\ncat '{}'\nstty raw -echo\nhead -c {} > '{}'\n",
            bin.join("folder-trust.txt").display(),
            want.len(),
            out.display()
        ),
    )
    .unwrap();
    let id = blocked_in(&env, &shell, &format!("{claude} {}", script.display()));
    env.ok(&["send", &id, "echo one;"]);
    env.ok(&["send", &id, &long]);
    env.wait_until("every byte typed through tmux", || {
        std::fs::metadata(&out).is_ok_and(|m| m.len() as usize >= want.len())
    });
    let typed = std::fs::read_to_string(&out).unwrap();
    assert!(
        typed == want,
        "typed {} bytes: {:?}…",
        typed.len(),
        &typed[..typed.len().min(40)]
    );
}
