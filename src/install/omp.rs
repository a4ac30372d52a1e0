//! `install-hooks omp`: oh-my-pi loads pi's TypeScript extensions from its own agent
//! directory (`~/.omp/agent/extensions/`, a project's `.omp/extensions/`), so Attend's pi
//! extension ([`super::pi`]) is written there, with `attend-hook omp` in its hook line
//! (docs/adapters.md "oh-my-pi").

use std::path::{Path, PathBuf};

/// oh-my-pi's directories under its `.omp` directory `omp` (`~/.omp` when `user`, else the
/// project's), innermost first, that an uninstall removes when it left them empty:
/// `~/.omp/agent/extensions`, `~/.omp/agent`, `~/.omp`; the project's `.omp/extensions`
/// and `.omp`. (`$PI_CODING_AGENT_DIR`, which omp honours too, is left to pi: one
/// extension file serves one agent.)
pub(super) fn dirs(omp: &Path, user: bool) -> Vec<PathBuf> {
    if user {
        vec![
            omp.join("agent/extensions"),
            omp.join("agent"),
            omp.to_path_buf(),
        ]
    } else {
        vec![omp.join("extensions"), omp.to_path_buf()]
    }
}
