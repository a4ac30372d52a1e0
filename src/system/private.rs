//! Private files: the state directory and the runtime directory are 0700 and every file
//! Attend keeps in them (`attend.db`, its `-wal` and `-shm`, the hook spool and its lock,
//! `daemon.lock`, the log `attend up` writes, the panes' screen logs, the attach and
//! holder sockets; [`OWN_FILES`]) 0600, and its directories there 0700, whatever the umask
//! of the process that made them (docs/dbus-api.md "Start-up and files";
//! docs/reliability.md "Access"). What is created is created with those modes; what an
//! older Attend or a permissive umask left behind is tightened by the daemon at start,
//! before it opens the database.
//!
//! Tightening clears the group and other bits and nothing else (0755 → 0700,
//! 0644 → 0600); it never follows a symbolic link and leaves alone what belongs to
//! another user (the daemon could not change it, and it is not the daemon's).

use std::fs::{DirBuilder, Permissions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Mode of a directory Attend keeps its files in.
pub const DIR_MODE: u32 = 0o700;
/// Mode of a file Attend keeps.
pub const FILE_MODE: u32 = 0o600;

/// Makes `path` a private directory: created (with its missing parents) as [`DIR_MODE`]
/// when missing, else [`tighten`]ed.
///
/// Errors: the directory cannot be created, or exists and cannot be changed (an
/// existing one owned by another user is left as it is, not an error).
pub fn dir(path: &Path) -> io::Result<()> {
    if !path.is_dir() {
        DirBuilder::new()
            .recursive(true)
            .mode(DIR_MODE)
            .create(path)?;
    }
    tighten(path).map(|_| ())
}

/// Clears the group and other bits of `path` when it is ours and has any: true when it
/// changed. A missing path, a symbolic link and another user's file are left alone
/// (false).
///
/// Errors: `lstat` fails for another reason than a missing path, or `chmod` fails.
pub fn tighten(path: &Path) -> io::Result<bool> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { nix::libc::geteuid() };
    let mode = meta.permissions().mode() & 0o7777;
    if meta.file_type().is_symlink() || meta.uid() != me || mode & 0o077 == 0 {
        return Ok(false);
    }
    std::fs::set_permissions(path, Permissions::from_mode(mode & !0o077))?;
    Ok(true)
}

/// Name prefixes of what Attend keeps in its state and runtime directories: `attend.db`
/// (and `-wal`, `-shm`, `-journal`, the `.corrupt-`/`.orphan-` copies moved aside),
/// `daemon.lock`, `daemon.log`, `hooks.spool` (its lock and batches), the attach sockets
/// `attach-<pid>.sock`, and the directories `screens` (the panes' screen logs),
/// `holders` (the pane holders' sockets) and `panes` (the hook settings of the agents
/// Attend starts), and the private session bus's files `session-bus.*` (its socket,
/// recorded address, lock and log; [`crate::system::private_bus`]).
pub const OWN_FILES: &[&str] = &[
    "attend.db",
    "daemon.",
    "hooks.spool",
    "attach-",
    "screens",
    "holders",
    "panes",
    "session-bus.",
];

/// [`tighten`]s the directory `dir`, the entries directly in it whose names start with
/// one of [`OWN_FILES`], and everything under those that are directories: the number of
/// paths changed. Nothing else is touched, so a state directory set to a shared place
/// (`ATTEND_STATE_DIR=$HOME`) keeps its other files as they are. Symbolic links are
/// neither followed nor changed. Best effort: a path that cannot be read or changed is
/// logged and skipped; a missing `dir` has nothing to change.
pub fn tighten_dir(dir: &Path) -> usize {
    let mut changed = 0;
    let mut tighten_one = |path: &Path| match tighten(path) {
        Ok(changed_it) => changed += usize::from(changed_it),
        Err(e) => tracing::warn!(path = %path.display(), "cannot make it private: {e}"),
    };
    tighten_one(dir);
    let mut todo: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok())
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                OWN_FILES.iter().any(|p| name.starts_with(p))
            })
            .map(|e| e.path())
            .collect(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return 0,
        Err(e) => {
            tracing::warn!(path = %dir.display(), "cannot read it: {e}");
            Vec::new()
        }
    };
    while let Some(path) = todo.pop() {
        tighten_one(&path);
        let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_dir());
        if is_dir {
            match std::fs::read_dir(&path) {
                Ok(entries) => todo.extend(entries.filter_map(|e| e.ok()).map(|e| e.path())),
                Err(e) => tracing::warn!(path = %path.display(), "cannot read it: {e}"),
            }
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(p: &Path) -> u32 {
        std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn attends_files_left_readable_by_others_are_made_private_and_nothing_else() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("state");
        std::fs::create_dir(&root).unwrap();
        std::fs::set_permissions(&root, Permissions::from_mode(0o755)).unwrap();
        let file = |name: &str, m: u32| {
            let p = root.join(name);
            std::fs::write(&p, "x").unwrap();
            std::fs::set_permissions(&p, Permissions::from_mode(m)).unwrap();
            p
        };
        let db = file("attend.db", 0o644);
        let wal = file("attend.db-wal", 0o664);
        let log = file("daemon.log", 0o666);
        let private = file("daemon.lock", 0o400);
        let screens = root.join("screens");
        std::fs::create_dir(&screens).unwrap();
        std::fs::set_permissions(&screens, Permissions::from_mode(0o755)).unwrap();
        let screen = file("screens/p1.log", 0o644);
        let other = file("notes.txt", 0o644);
        let outside = tmp.path().join("outside");
        std::fs::write(&outside, "x").unwrap();
        std::fs::set_permissions(&outside, Permissions::from_mode(0o644)).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("attend.db.link")).unwrap();

        assert_eq!(tighten_dir(&root), 6);
        assert_eq!(
            [&root, &db, &wal, &log, &private, &screens, &screen].map(|p| mode(p)),
            [0o700, 0o600, 0o600, 0o600, 0o400, 0o700, 0o600]
        );
        assert_eq!(mode(&other), 0o644, "not Attend's file");
        assert_eq!(
            mode(&outside),
            0o644,
            "a link's target is not ours to change"
        );
        assert_eq!(tighten_dir(&root), 0, "nothing left to change");
        assert_eq!(tighten_dir(&tmp.path().join("missing")), 0);
    }

    #[test]
    fn a_missing_directory_is_made_0700_and_an_open_one_is_closed() {
        let tmp = tempfile::tempdir().unwrap();
        let made = tmp.path().join("a/b");
        dir(&made).unwrap();
        assert_eq!(mode(&made), DIR_MODE);
        std::fs::set_permissions(&made, Permissions::from_mode(0o755)).unwrap();
        dir(&made).unwrap();
        assert_eq!(mode(&made), DIR_MODE);
    }
}
