//! Service benchmarks (docs/benchmarks.md, items 2–9), against a real `attend daemon` on a
//! private bus and against the references a user would compare Attend to (a bare PTY
//! reader, tmux 3.3).
//!
//! Run: `cargo bench --no-default-features --bench service -- [NAME…]` with NAME among
//! `store`, `hook`, `pty`, `idle`, `memory`, `latency`, `scale`, `hook-pty`, `holders`,
//! `panes`, `working` (default: all). Every figure is printed as a `RESULT` line (see [`harness::result`]) that
//! `build-aux/bench.sh` collects into one table; ratios are measured side by side in one
//! run, alternating, because the machine is shared and noisy.

mod harness;
mod holders;
mod hook_load;
mod hooks;
mod idle;
mod memory;
mod panes;
mod pty_throughput;
mod scale;
mod store;
#[path = "../../tests/support/mod.rs"]
mod support;
mod working;

const ALL: [&str; 11] = [
    "store", "hook", "pty", "idle", "memory", "latency", "scale", "hook-pty", "holders", "panes",
    "working",
];

fn main() {
    let mut names: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if names.is_empty() {
        names = ALL.map(String::from).to_vec();
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    for name in names {
        match name.as_str() {
            "store" => store::run(),
            "hook" => rt.block_on(hooks::run_throughput()),
            "pty" => rt.block_on(pty_throughput::run()),
            "idle" => rt.block_on(idle::run()),
            "memory" => rt.block_on(memory::run()),
            "latency" => rt.block_on(hooks::run_latency()),
            "scale" => rt.block_on(scale::run()),
            "hook-pty" => rt.block_on(hook_load::run()),
            "holders" => rt.block_on(holders::run()),
            "panes" => rt.block_on(panes::run()),
            // Blocking proxies and CLI calls: outside the runtime.
            "working" => working::run(),
            other => {
                eprintln!("unknown benchmark {other:?} (known: {})", ALL.join(", "));
                std::process::exit(2);
            }
        }
    }
}
