//! `attend-hook AGENT [EVENT]` (payload on stdin) or `attend-hook codex --notify [EVENT]
//! PAYLOAD`: the executable the agents' hooks run (docs/decisions/0004-hook-executable.md).
//! Always exits 0 (see `attend_hook::client`), a usage error too: it prints one line on
//! stderr, because an agent reads a hook's exit 2 as "block the tool call" and a
//! misconfigured hook line must not block the user's agent (docs/adapters.md, "Never
//! block, never fail, never lose").

use std::io::Write;

const USAGE: &str = "usage: attend-hook AGENT [EVENT]   (the hook payload on stdin)
       attend-hook codex --notify [EVENT] PAYLOAD
Delivers one agent hook to the Attend daemon, or spools it when the daemon is down.
AGENT: an agent of Attend's table (`attend install-hooks --help` lists them: claude, codex, …).
";

fn main() {
    // An argument that is not UTF-8 names no agent: a usage error.
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.into_string().unwrap_or_else(|_| "-".into()))
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let code = match attend_hook::client::parse_args(&args) {
        Some(hook) => attend_hook::run(&attend_hook::EXECUTABLE, hook),
        None if matches!(args.as_slice(), ["--help" | "-h"]) => {
            let _ = std::io::stdout().write_all(USAGE.as_bytes());
            0
        }
        None if matches!(args.as_slice(), ["--version" | "-V"]) => {
            let version = option_env!("ATTEND_VERSION").unwrap_or(env!("CARGO_PKG_VERSION"));
            println!("attend-hook {version}");
            0
        }
        None => {
            let _ = writeln!(
                std::io::stderr(),
                "attend-hook: usage error, nothing delivered (see attend-hook --help)"
            );
            0
        }
    };
    std::process::exit(code);
}
