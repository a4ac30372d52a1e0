//! The bare PTY reader: the physical limit of PTY throughput on this machine
//! (`docs/benchmarks.md`, item 3).
//!
//! Opens a PTY of 40×120, runs `sh -c COMMAND` on its slave side as a session leader
//! with the PTY as its controlling terminal, reads the master side until end of output
//! with 64 KiB reads and throws the bytes away, then reaps the child. Prints one line:
//! `bytes=<N> reads=<read calls> seconds=<wall time from spawn to reaped>`.
//!
//! Run: `cargo run --release --example bare_pty -- 'cat /tmp/big.txt'`.

use nix::pty::{openpty, Winsize};
use nix::unistd::read;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode};
use std::time::Instant;

fn main() -> ExitCode {
    let Some(script) = std::env::args().nth(1) else {
        eprintln!("usage: bare_pty COMMAND");
        return ExitCode::from(2);
    };
    let size = Winsize {
        ws_row: 40,
        ws_col: 120,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    let pty = openpty(&size, None).expect("openpty");
    let start = Instant::now();
    let slave = pty.slave;
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(&script)
        .env("TERM", "xterm-256color")
        .stdin(slave.try_clone().expect("dup"))
        .stdout(slave.try_clone().expect("dup"))
        .stderr(slave.try_clone().expect("dup"));
    let slave_fd = slave.as_raw_fd();
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            nix::unistd::setsid()?;
            if nix::libc::ioctl(slave_fd, nix::libc::TIOCSCTTY as _, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().expect("spawn sh");
    // Only the child holds the slave now, so its exit ends our reads (EIO).
    drop(cmd);
    drop(slave);
    let mut buf = vec![0u8; 64 * 1024];
    let (mut total, mut reads) = (0u64, 0u64);
    loop {
        match read(&pty.master, &mut buf) {
            Ok(0) => break,
            Ok(n) => {
                total += n as u64;
                reads += 1;
            }
            Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => break,
        }
    }
    let status = child.wait().expect("wait");
    let secs = start.elapsed().as_secs_f64();
    println!("bytes={total} reads={reads} seconds={secs:.3}");
    if status.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
