//! No timer wakeups while idle (docs/benchmarks.md): with 20 idle panes the daemon
//! accrues no CPU time over 10 s (utime + stime from /proc/<pid>/stat) — with the
//! automatic removal of exited panes configured and one reviewed exited pane waiting for
//! it (its one timer sleeps until the pane falls due).

use crate::support;

use std::time::Duration;
use support::{cpu_ticks, Env};

/// Clock ticks of noise allowed (a tick is 10 ms at the usual USER_HZ of 100).
const NOISE_TICKS: u64 = 2;

#[test]
fn twenty_idle_panes_cost_no_cpu_time() {
    let mut env = Env::new();
    let config = env.path("config");
    std::fs::create_dir_all(config.join("attend")).unwrap();
    std::fs::write(
        config.join("attend/config.toml"),
        "[panes]\nremove_exited_after = \"1d\"\n",
    )
    .unwrap();
    env.start_daemon_with(
        &["--no-tray", "--no-notifications"],
        &[("XDG_CONFIG_HOME", config.to_str().unwrap())],
    );
    let panes: Vec<String> = (0..20).map(|_| env.run(&["--", "sleep", "1000"])).collect();
    for p in &panes {
        env.wait_pane(p, "running", |v| v["live"]["state"] == "running");
    }
    let reviewed = env.run(&["--", "true"]);
    env.wait_pane(&reviewed, "exited", |v| v["live"]["state"] == "exited");
    env.ok(&["seen", &reviewed]);
    env.wait_pane(&reviewed, "reviewed", |v| v["attention"] == "none");
    assert!(env
        .daemon_log()
        .contains("removed this long after their exit"));
    // Let start-up work settle (spawn threads, git lookups, the first commits).
    std::thread::sleep(Duration::from_secs(1));
    let pid = env.daemon_pid();
    let before = cpu_ticks(pid);
    std::thread::sleep(Duration::from_secs(10));
    let after = cpu_ticks(pid);
    assert!(
        after - before <= NOISE_TICKS,
        "the idle daemon used {} ticks of CPU in 10 s",
        after - before
    );
    // Still alive and answering.
    assert_eq!(env.show(&panes[19])["live"]["state"], "running");
}
