//! A **relayed** watch: a command (`attend attach --watch PANE`) run in a pseudo-terminal
//! of its own, whose terminal bytes come out as [`WatchEvent`]s like a [`super::watch`]
//! connection's. The panel's terminal shows through it the panes whose screen the attach
//! socket does not serve here: a followed tmux pane (a tmux client of its own) and a
//! remote pane (the link's carrier, `attend attach` on its host);
//! `docs/decisions/0017-panel-terminal-over-the-attach-socket.md`.
//!
//! [`Relay::start`] returns at once; the spawn and the reading of the terminal happen on
//! one thread, the writing of the client's frames on another, so the caller (the GTK main
//! loop) never waits on the command. Input frames are written to the terminal, resize
//! frames set its size (the command gets `SIGWINCH`); focus frames are dropped (the
//! command asks the terminal for focus reports itself). Dropping the [`Relay`], or a
//! detach frame, hangs up the command's process group: the command ends, the pane it
//! showed does not.

use super::frame::ClientFrame;
use super::watch::WatchEvent;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::mpsc;

/// A running relayed watch. Dropping it ends the command (the pane runs on).
#[derive(Debug)]
pub struct Relay {
    tx: mpsc::Sender<ClientFrame>,
}

impl Relay {
    /// Runs `command` in a new pseudo-terminal of `rows` × `cols` (its session leader,
    /// the terminal its controlling one); `on_event` receives, on the reader thread,
    /// [`WatchEvent::Attached`] once it runs, then [`WatchEvent::Output`] chunks, and last
    /// [`WatchEvent::Ended`] with how it exited (or [`WatchEvent::Refused`] when it could
    /// not start). Never blocks.
    pub fn start(
        command: Command,
        rows: u16,
        cols: u16,
        on_event: impl FnMut(WatchEvent) + Send + 'static,
    ) -> Relay {
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("attend-relay".into())
            .spawn(move || run(command, rows, cols, rx, on_event))
            .expect("a thread for the relayed watch");
        Relay { tx }
    }

    /// Queues `frame` for the command (input, resize; focus is dropped). After the end
    /// frames are dropped.
    pub fn send(&self, frame: ClientFrame) {
        let _ = self.tx.send(frame);
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.tx.send(ClientFrame::Detach);
    }
}

fn winsize(rows: u16, cols: u16) -> nix::pty::Winsize {
    nix::pty::Winsize {
        ws_row: rows.max(1),
        ws_col: cols.max(1),
        ws_xpixel: 0,
        ws_ypixel: 0,
    }
}

fn cloexec(fd: &OwnedFd) {
    use nix::fcntl::{fcntl, FcntlArg, FdFlag};
    let _ = fcntl(fd, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC));
}

/// The reader side: spawn, then every chunk of the terminal to `on_event` until the
/// command and every process holding its terminal are gone; the writer thread takes the
/// queued frames.
fn run(
    mut command: Command,
    rows: u16,
    cols: u16,
    rx: mpsc::Receiver<ClientFrame>,
    mut on_event: impl FnMut(WatchEvent),
) {
    let pty = match nix::pty::openpty(&winsize(rows, cols), None::<&nix::sys::termios::Termios>) {
        Ok(p) => p,
        Err(e) => return on_event(WatchEvent::Refused(format!("no terminal: {e}"))),
    };
    cloexec(&pty.master);
    cloexec(&pty.slave);
    let stdio = |fd: &OwnedFd| fd.try_clone().map(Stdio::from);
    let (Ok(stdin), Ok(stdout), Ok(stderr)) =
        (stdio(&pty.slave), stdio(&pty.slave), stdio(&pty.slave))
    else {
        return on_event(WatchEvent::Refused("no terminal: cannot share it".into()));
    };
    command.stdin(stdin).stdout(stdout).stderr(stderr);
    // SAFETY: between fork and exec only async-signal-safe calls: a new session, then the
    // terminal on standard input as its controlling terminal.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = match command.spawn() {
        Ok(c) => c,
        Err(e) => {
            let program = command.get_program().to_string_lossy().into_owned();
            return on_event(WatchEvent::Refused(format!("{program}: {e}")));
        }
    };
    // Command drops its copies of the terminal's far side with itself; this one goes too,
    // so the reads end once the command's processes closed theirs.
    drop(command);
    drop(pty.slave);
    let group = nix::unistd::Pid::from_raw(child.id() as i32);
    let writer = match pty.master.try_clone() {
        Ok(w) => File::from(w),
        Err(e) => {
            let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGHUP);
            let _ = child.wait();
            return on_event(WatchEvent::Ended(Some(e.to_string())));
        }
    };
    on_event(WatchEvent::Attached);
    std::thread::Builder::new()
        .name("attend-relay-write".into())
        .spawn(move || write_frames(writer, group, rx))
        .expect("a thread for the relayed watch's writes");
    let mut reader = File::from(pty.master);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => on_event(WatchEvent::Output(buf[..n].to_vec())),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            // EIO: no process holds the terminal any more.
            Err(_) => break,
        }
    }
    let status = child.wait().map(|s| s.to_string());
    on_event(WatchEvent::Ended(Some(match status {
        Ok(s) => format!("the terminal's command ended ({s})"),
        Err(e) => e.to_string(),
    })));
}

/// Writes the queued frames to the terminal until a detach, or the [`Relay`] is gone:
/// then hangs up the command's process group.
fn write_frames(mut terminal: File, group: nix::unistd::Pid, rx: mpsc::Receiver<ClientFrame>) {
    loop {
        match rx.recv().unwrap_or(ClientFrame::Detach) {
            // A write fails only once no process holds the terminal any more.
            ClientFrame::Input(bytes) if terminal.write_all(&bytes).is_err() => break,
            ClientFrame::Resize { rows, cols } => {
                let size = winsize(rows, cols);
                // SAFETY: TIOCSWINSZ reads one winsize from the pointer, valid here.
                unsafe { libc::ioctl(terminal.as_raw_fd(), libc::TIOCSWINSZ as _, &size) };
            }
            ClientFrame::Detach => {
                let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGHUP);
                break;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// The events of `relay` until `done` holds for what it printed (bounded).
    fn until(
        rx: &mpsc::Receiver<WatchEvent>,
        seen: &mut String,
        done: impl Fn(&str) -> bool,
    ) -> bool {
        let end = Instant::now() + Duration::from_secs(20);
        while Instant::now() < end {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(WatchEvent::Output(b)) => seen.push_str(&String::from_utf8_lossy(&b)),
                Ok(WatchEvent::Ended(_)) => seen.push_str("<ended>"),
                Ok(_) | Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => return done(seen),
            }
            if done(seen) {
                return true;
            }
        }
        false
    }

    #[test]
    fn the_command_gets_a_terminal_of_that_size_input_resizes_and_a_hangup_at_drop() {
        let (tx, rx) = mpsc::channel();
        let mut c = Command::new("sh");
        c.args([
            "-c",
            "trap 'stty size; exit 0' 28; stty -echo; tty -s && echo tty-yes; stty size; \
             read l; echo got-$l; while :; do sleep 0.05; done",
        ]);
        let relay = Relay::start(c, 7, 33, move |e| {
            let _ = tx.send(e);
        });
        let mut seen = String::new();
        assert!(until(&rx, &mut seen, |s| s.contains("7 33")), "{seen:?}");
        assert!(seen.contains("tty-yes"), "{seen:?}");
        relay.send(ClientFrame::Input(b"abc\r".to_vec()));
        assert!(until(&rx, &mut seen, |s| s.contains("got-abc")), "{seen:?}");
        relay.send(ClientFrame::Resize { rows: 9, cols: 41 });
        assert!(until(&rx, &mut seen, |s| s.contains("9 41")), "{seen:?}");
        assert!(until(&rx, &mut seen, |s| s.contains("<ended>")), "{seen:?}");

        // A command that runs on ends when the relay is dropped.
        let (tx, rx) = mpsc::channel();
        let mut c = Command::new("sh");
        c.args(["-c", "echo up; sleep 600"]);
        let relay = Relay::start(c, 5, 20, move |e| {
            let _ = tx.send(e);
        });
        let mut seen = String::new();
        assert!(until(&rx, &mut seen, |s| s.contains("up")), "{seen:?}");
        drop(relay);
        assert!(until(&rx, &mut seen, |s| s.contains("<ended>")), "{seen:?}");
    }

    #[test]
    fn a_command_that_cannot_start_is_refused_naming_it() {
        let (tx, rx) = mpsc::channel();
        let _relay = Relay::start(Command::new("/nonexistent/attend"), 5, 20, move |e| {
            let _ = tx.send(e);
        });
        match rx.recv_timeout(Duration::from_secs(10)) {
            Ok(WatchEvent::Refused(text)) => {
                assert!(text.starts_with("/nonexistent/attend"), "{text}")
            }
            other => panic!("{other:?}"),
        }
    }
}
