//! File work for `install-hooks`: reading configs, backups, atomic replacement, diffs.

use super::error::InstallError;
use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Infix of backup file names: `<file>.attend-backup-<unix-ms>`.
pub(super) const BACKUP_INFIX: &str = ".attend-backup-";

/// The file's text, `None` when it does not exist.
///
/// Errors: [`InstallError::Io`], also for text that is not UTF-8.
pub(super) fn read_optional(path: &Path) -> Result<Option<String>, InstallError> {
    match fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| {
            io_error(
                path,
                io::Error::new(io::ErrorKind::InvalidData, "the file is not UTF-8 text"),
            )
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error(path, e)),
    }
}

/// The path to edit: a symbolic link (dotfile managers) is followed to its target, so the
/// link stays a link; any other path is returned as is.
pub(super) fn resolve(path: PathBuf) -> PathBuf {
    match fs::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_symlink() => fs::canonicalize(&path).unwrap_or(path),
        _ => path,
    }
}

/// The texts of `path`'s backups, newest first (unreadable ones are skipped).
pub(super) fn backups(path: &Path) -> Vec<String> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return Vec::new();
    };
    let prefix = format!("{name}{BACKUP_INFIX}");
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(u128, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let file_name = entry.file_name();
            let stamp = file_name.to_str()?.strip_prefix(&prefix)?.parse().ok()?;
            Some((stamp, entry.path()))
        })
        .collect();
    found.sort_by_key(|(stamp, _)| std::cmp::Reverse(*stamp));
    found
        .into_iter()
        .filter_map(|(_, p)| fs::read_to_string(p).ok())
        .collect()
}

/// Copies `path` to a fresh `<path>.attend-backup-<unix-ms>` (permissions included, since
/// settings files may hold secrets) and returns the backup's path.
pub(super) fn backup(path: &Path) -> Result<PathBuf, InstallError> {
    let mut stamp = unix_ms();
    loop {
        let mut name = path.as_os_str().to_owned();
        name.push(format!("{BACKUP_INFIX}{stamp}"));
        let candidate = PathBuf::from(name);
        if !candidate.exists() {
            fs::copy(path, &candidate).map_err(|e| io_error(&candidate, e))?;
            return Ok(candidate);
        }
        stamp += 1;
    }
}

/// Replaces `path` with `text` atomically: a temporary file in the same directory, written
/// and fsynced, renamed over the original (whose permissions it keeps), then the directory
/// fsynced. Missing parent directories are created.
pub(super) fn write_atomic(path: &Path, text: &str) -> Result<(), InstallError> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("config");
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.attend-tmp-{}-{n}", std::process::id()));
    let result = (|| {
        let mut options = fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        let original = fs::metadata(path).ok();
        if let Some(meta) = &original {
            use std::os::unix::fs::PermissionsExt;
            options.mode(meta.permissions().mode() & 0o7777);
        }
        let mut file = options.open(&tmp)?;
        if let Some(meta) = original {
            file.set_permissions(meta.permissions())?;
        }
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        fs::rename(&tmp, path)?;
        fs::File::open(dir)?.sync_all()
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        io_error(path, e)
    })
}

/// Removes `path` (a file Attend created and emptied).
pub(super) fn remove(path: &Path) -> Result<(), InstallError> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(io_error(path, e)),
        _ => Ok(()),
    }
}

/// Creates `path` and its missing parents.
pub(super) fn create_dir(path: &Path) -> Result<(), InstallError> {
    fs::create_dir_all(path).map_err(|e| io_error(path, e))
}

/// Removes `path` when it is an empty directory; one that is not empty, or gone, is left
/// as it is.
pub(super) fn remove_empty_dir(path: &Path) -> Result<(), InstallError> {
    match fs::remove_dir(path) {
        Ok(()) => Ok(()),
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::DirectoryNotEmpty
            ) =>
        {
            Ok(())
        }
        Err(e) => Err(io_error(path, e)),
    }
}

/// True when `path` is a directory with nothing in it.
pub(super) fn is_empty_dir(path: &Path) -> bool {
    fs::read_dir(path).is_ok_and(|mut entries| entries.next().is_none())
}

/// A unified diff of one file (`/dev/null` stands for a missing file).
pub(super) fn unified_diff(path: &Path, before: Option<&str>, after: Option<&str>) -> String {
    let shown = path.display().to_string();
    let old_name = if before.is_some() {
        shown.as_str()
    } else {
        "/dev/null"
    };
    let new_name = if after.is_some() {
        shown.as_str()
    } else {
        "/dev/null"
    };
    similar::TextDiff::from_lines(before.unwrap_or(""), after.unwrap_or(""))
        .unified_diff()
        .context_radius(3)
        .header(old_name, new_name)
        .to_string()
}

pub(super) fn io_error(path: &Path, source: io::Error) -> InstallError {
    InstallError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn unix_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}
