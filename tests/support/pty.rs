//! Starting a pane's program the one way the daemon does: in a pane holder
//! (`docs/decisions/0009-pane-holders.md`), here `attend __holder` of a state directory of
//! its own, tethered to this test process (`ATTEND_HOLDER_TETHER`) so that it ends with
//! the test run even when that is killed.

use attend::model::PaneId;
use attend::service::pty::holders::{Holders, DEFAULT_HOLDER_BUFFER, HOLDER_SUBCOMMAND};
use attend::service::pty::{EventTx, PtyHandle, SpawnError, SpawnSpec};
use attend_holder::client::Launcher;
use attend_holder::tether::TETHER_ENV;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The temporary directory of this test process's holders (removed at exit by nobody:
/// it holds only empty directories and the sockets of ended holders).
fn root() -> &'static PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| tempfile::tempdir().expect("a temporary directory").keep())
}

/// Starts `spec` as pane `pane` in a new holder with its own state directory (so panes
/// of several tests never share a socket) and reports on `tx`, as `Holders::spawn`.
pub fn start(
    pane: PaneId,
    spec: &SpawnSpec,
    tx: impl Into<EventTx>,
) -> Result<PtyHandle, SpawnError> {
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = root().join(N.fetch_add(1, Ordering::Relaxed).to_string());
    let state = dir.join("state");
    std::fs::create_dir_all(&state).expect("a state directory");
    let holders = Holders::new(&state, &dir.join("run"), DEFAULT_HOLDER_BUFFER)
        .expect("holders")
        .with_launcher(Launcher {
            program: env!("CARGO_BIN_EXE_attend").into(),
            pre_args: vec![HOLDER_SUBCOMMAND.into()],
        });
    let mut spec = spec.clone();
    spec.env
        .push((TETHER_ENV.into(), std::process::id().to_string()));
    holders.spawn(pane, &spec, tx)
}
