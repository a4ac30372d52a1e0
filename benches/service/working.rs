//! Benchmark 9 (docs/benchmarks.md): what working agents cost. N real Claude Code panes
//! (6, then 12) in Attend and the same N in one tmux server, all at once, each mid-turn:
//! its scripted model (tests/support/model_server.rs, one per agent) takes an hour to
//! answer, so Claude's spinner redraws the whole time. Over the same window (60 s by
//! default, `ATTEND_BENCH_WINDOW_SECS=N` for another; once every pane of both sides is
//! drawn working and has settled) the CPU time (utime +
//! stime from `/proc`) of the daemon and all its pane holders is set against the tmux
//! server's; the agents themselves are the same on both sides and not counted.
//! Goal: at most 1.5× tmux.
//!
//! The agent is the newest pinned Claude Code (`build-aux/agents.sh`,
//! docs/real-agents.md), started offline as the real-CLI tests start it; without it the
//! benchmark prints `SKIPPED`. `ATTEND_BENCH_PROFILE=COMMAND` runs a profiler over the
//! window (`sh -c`, with `{pid}` the daemon's pid and `{secs}` the window's length, e.g.
//! `perf record -F 4999 --call-graph dwarf -p {pid} -- sleep {secs}`); the figures of
//! such a run include the profiler's overhead.

use crate::harness::{self, proc_figures, result, ticks_per_second, verdict, Tmux};
use crate::support::agents::{require, AgentHome, Cli};
use crate::support::model_server::{ModelServer, Reply};
use crate::support::{holders_of, poll, Env};
use serde_json::Value;
use std::collections::HashMap;
use std::process::Command;
use std::time::{Duration, Instant};

/// The measured window by default: long enough that one clock tick (10 ms) of either
/// side moves the ratio by about 2 % at 6 panes (at 20 s it moved it by 7 %).
const WINDOW_SECS: u64 = 60;

/// The measured window: `ATTEND_BENCH_WINDOW_SECS`, else [`WINDOW_SECS`].
fn window() -> Duration {
    let secs = std::env::var("ATTEND_BENCH_WINDOW_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|s| *s > 0)
        .unwrap_or(WINDOW_SECS);
    Duration::from_secs(secs)
}
/// Once every pane is drawn working: let start-up work (hooks, git, the first frames)
/// settle before the window opens.
const SETTLE: Duration = Duration::from_secs(3);
/// Start-up of 2 × N agents on a loaded 2-core machine.
const START: Duration = Duration::from_secs(240);
const ROWS: u16 = 40;
const COLS: u16 = 120;
const GOAL: f64 = 1.5;

/// One agent's scripted model and isolated home.
struct Agent {
    server: ModelServer,
    home: AgentHome,
}

impl Agent {
    fn new(binary: &std::path::Path) -> Agent {
        let server = ModelServer::start([Reply::text("This answer took a long time.")]);
        for turn in 1..=4 {
            server.slow_turn(turn, Duration::from_secs(3600));
        }
        let home = AgentHome::new(Cli::Claude, binary.to_path_buf(), &server);
        Agent { server, home }
    }

    /// The model has the turn's request: the agent waits for it, its spinner running.
    fn waiting(&self) -> bool {
        self.server.requests().iter().any(|r| r.is_turn())
    }
}

fn wait(what: &str, cond: impl FnMut() -> bool) {
    assert!(poll(START, cond), "timed out waiting for {what}");
}

/// `N` Claude panes in one daemon, with Attend's hooks installed as a user has them.
fn start_attend(env: &Env, agents: &[Agent]) -> Vec<String> {
    let proxy = env.attend1();
    let mut panes = Vec::new();
    for a in agents {
        let home = a.home.home.display().to_string();
        let out = env.attend_with(&["install-hooks", "claude"], b"", &[("HOME", &home)]);
        assert!(out.status.success(), "install-hooks");
        let launch = a.home.launch();
        let argv = launch.env_overlay_argv();
        let mut spec: HashMap<&str, zbus::zvariant::Value<'_>> = HashMap::new();
        spec.insert("argv", argv.clone().into());
        spec.insert("agent", "claude".into());
        spec.insert("rows", ROWS.into());
        spec.insert("cols", COLS.into());
        spec.insert("cwd", a.home.project.display().to_string().into());
        let pane = proxy.run(&spec).expect("Run");
        panes.push(pane);
    }
    panes
}

fn explain(env: &Env, pane: &str) -> Value {
    serde_json::from_str(&env.ok(&["explain", pane, "--json"])).unwrap_or(Value::Null)
}

/// Claude is at its prompt in the Attend pane: its session started and its self-report
/// says idle.
fn attend_ready(env: &Env, pane: &str) -> bool {
    let x = explain(env, pane);
    let self_report = x["rungs"]
        .as_array()
        .and_then(|rs| rs.iter().find(|r| r["rung"] == "self-report"))
        .cloned()
        .unwrap_or(Value::Null);
    env.show(pane)["session_id"].is_string() && self_report["note"] == "status=idle"
}

/// `N` Claude windows in one tmux server; the window targets.
fn start_tmux(t: &Tmux, agents: &[Agent]) -> Vec<String> {
    let mut targets = Vec::new();
    for (i, a) in agents.iter().enumerate() {
        let mut launch = a.home.launch();
        launch.set_env("TERM", "tmux-256color");
        let argv = launch.env_argv();
        let cwd = a.home.project.display().to_string();
        let name = format!("w{i}");
        let mut args: Vec<&str> = if i == 0 {
            vec![
                "new-session",
                "-d",
                "-s",
                "bench",
                "-n",
                &name,
                "-x",
                "120",
                "-y",
                "40",
                "-c",
                &cwd,
            ]
        } else {
            vec!["new-window", "-d", "-t", "bench", "-n", &name, "-c", &cwd]
        };
        args.extend(argv.iter().map(String::as_str));
        t.ok(&args);
        targets.push(format!("bench:{name}"));
    }
    targets
}

fn tmux_screen(t: &Tmux, target: &str) -> String {
    t.cmd(&["capture-pane", "-p", "-t", target])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).to_lowercase())
        .unwrap_or_default()
}

/// The CPU ticks of each thread of `pid`, by thread name.
fn thread_ticks(pid: u32) -> HashMap<String, u64> {
    let mut out = HashMap::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return out;
    };
    for t in tasks.flatten() {
        let stat = std::fs::read_to_string(t.path().join("stat")).unwrap_or_default();
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let name = stat[open + 1..close].to_string();
        let f: Vec<&str> = stat[close + 2..].split(' ').collect();
        let tick = |i: usize| f.get(i).and_then(|s| s.parse::<u64>().ok()).unwrap_or(0);
        *out.entry(name).or_default() += tick(11) + tick(12);
    }
    out
}

/// The newest event's seq.
fn last_seq(env: &Env) -> u64 {
    env.events()
        .last()
        .and_then(|e| e["seq"].as_u64())
        .unwrap_or(0)
}

/// Bytes in the panes' screen logs (`<state dir>/screens/`): the output the panes printed.
fn screen_log_bytes(env: &Env) -> u64 {
    std::fs::read_dir(env.state_dir().join("screens"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum()
}

fn measure(n: usize, binary: &std::path::Path) {
    println!("-- {n} working Claude panes, Attend and tmux side by side");
    let agents: Vec<Agent> = (0..2 * n).map(|_| Agent::new(binary)).collect();
    let (ours, theirs) = agents.split_at(n);
    let env = Env::with_daemon();
    let t = Tmux::new("working");
    let panes = start_attend(&env, ours);
    let targets = start_tmux(&t, theirs);
    wait("the Attend panes at Claude's prompt", || {
        panes.iter().all(|p| attend_ready(&env, p))
    });
    wait("the tmux panes at Claude's prompt", || {
        targets
            .iter()
            .all(|w| tmux_screen(&t, w).contains("for shortcuts"))
    });
    // The prompt, then Enter on its own (one write with the newline reads as a paste).
    for p in &panes {
        env.ok(&["send", p, "answer slowly"]);
    }
    for w in &targets {
        t.ok(&["send-keys", "-t", w, "-l", "answer slowly"]);
    }
    std::thread::sleep(Duration::from_millis(500));
    for p in &panes {
        env.ok(&["send", p, "", "--enter"]);
    }
    for w in &targets {
        t.ok(&["send-keys", "-t", w, "Enter"]);
    }
    wait("every model to have its turn's request", || {
        agents.iter().all(Agent::waiting)
    });
    wait("the Attend panes working", || {
        panes
            .iter()
            .all(|p| env.show(p)["lifecycle"].as_str() == Some("working"))
    });
    wait("the tmux panes drawn working", || {
        targets
            .iter()
            .all(|w| tmux_screen(&t, w).contains("esc to interrupt"))
    });
    std::thread::sleep(SETTLE);

    let daemon = env.daemon_pid();
    let tmux = t.server_pid();
    let holders = holders_of(&env.state_dir());
    assert_eq!(holders.len(), n, "one holder per pane");
    // A profiler over the window: `{pid}` is the daemon, `{secs}` the window's length.
    let perf = std::env::var("ATTEND_BENCH_PROFILE").ok().map(|cmd| {
        let cmd = cmd
            .replace("{pid}", &daemon.to_string())
            .replace("{secs}", &window().as_secs().to_string());
        Command::new("sh")
            .args(["-c", &cmd])
            .spawn()
            .expect("the profiler")
    });
    let sample = || {
        let h: u64 = holders.iter().map(|p| proc_figures(*p).cpu_ticks).sum();
        (
            proc_figures(daemon).cpu_ticks,
            h,
            proc_figures(tmux).cpu_ticks,
        )
    };
    let seq0 = last_seq(&env);
    let logged0 = screen_log_bytes(&env);
    let threads0 = thread_ticks(daemon);
    let (d0, h0, t0) = sample();
    let start = Instant::now();
    std::thread::sleep(window());
    let (d1, h1, t1) = sample();
    let secs = start.elapsed().as_secs_f64();
    let threads1 = thread_ticks(daemon);
    let events = last_seq(&env) - seq0;
    let logged = screen_log_bytes(&env) - logged0;
    if let Some(mut p) = perf {
        let _ = p.wait();
    }
    let still = panes
        .iter()
        .filter(|p| env.show(p)["lifecycle"].as_str() == Some("working"))
        .count();
    let drawn = targets
        .iter()
        .filter(|w| tmux_screen(&t, w).contains("esc to interrupt"))
        .count();

    let ms = |ticks: u64| ticks as f64 * 1000.0 / ticks_per_second();
    let (daemon_ms, holders_ms, tmux_ms) = (ms(d1 - d0), ms(h1 - h0), ms(t1 - t0));
    let ours_ms = daemon_ms + holders_ms;
    let ratio = ours_ms / tmux_ms.max(1.0);
    let per_pane = ours_ms / secs / 1000.0 / n as f64 * 100.0;
    let mut by_thread: Vec<(String, u64)> = threads1
        .iter()
        .map(|(k, v)| (k.clone(), v - threads0.get(k).copied().unwrap_or(0)))
        .filter(|(_, v)| *v > 0)
        .collect();
    by_thread.sort_by_key(|(_, ticks)| std::cmp::Reverse(*ticks));
    let by_thread: Vec<String> = by_thread
        .iter()
        .map(|(k, v)| format!("{k} {:.0}", ms(*v)))
        .collect();
    println!(
        "{n} panes, {secs:.1} s: daemon {daemon_ms:.0} ms + holders {holders_ms:.0} ms = \
         {ours_ms:.0} ms; tmux server {tmux_ms:.0} ms; {ratio:.2}x; {per_pane:.3} % of a core \
         per pane; still working at the end: Attend {still}/{n}, tmux {drawn}/{n}"
    );
    println!("daemon threads (ms): {}", by_thread.join(", "));
    println!(
        "in the window: {events} events, {:.1} KB/s of output per pane",
        logged as f64 / secs / 1000.0 / n as f64
    );
    println!("{}", harness::load());
    result(
        "9",
        &format!(
            "{n} working Claude panes, {} s: CPU of daemon + holders / tmux server",
            window().as_secs()
        ),
        "<= 1.5",
        &format!(
            "{ratio:.2} ({ours_ms:.0} vs {tmux_ms:.0} ms; {per_pane:.3} % of a core per pane)"
        ),
        verdict(ratio <= GOAL && still == n && drawn == n),
    );
}

pub fn run() {
    println!("== 9. Working agents: CPU of Claude panes mid-turn, Attend vs tmux");
    println!("{}", harness::load());
    let Some(binary) = require(Cli::Claude) else {
        result(
            "9",
            "working Claude panes: CPU / tmux",
            "<= 1.5",
            "not measured (no Claude Code CLI)",
            "-",
        );
        return;
    };
    let counts: Vec<usize> = std::env::var("ATTEND_BENCH_PANES")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![6, 12]);
    for n in counts {
        measure(n, &binary);
    }
}
