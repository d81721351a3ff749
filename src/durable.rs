//! Crash-safe file writes: temp file in the same directory, fsync, rename, fsync the directory.

use std::io::Write;
use std::path::Path;

/// Write `bytes` to `path` atomically: readers see the old file or the new one, never a prefix.
///
/// The temp file is created next to `path` (same filesystem, so the rename is atomic), fsynced,
/// renamed over `path`, then the directory is fsynced so the rename survives a power loss.
/// Errors: any I/O error; the temp file is removed and `path` is untouched.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_temp_and_rename(path, bytes, true)?;
    sync_dir(path.parent().unwrap_or_else(|| Path::new(".")))
}

/// [`write_atomic`] whose durability is the caller's: on Linux nothing is synced (the indexer
/// writes many tree files this way and makes them all durable with one [`sync_filesystem`]
/// before the index and the catalog name them, so a run does not wait for the disk once per
/// document); elsewhere the file is fsynced and only its new name waits for the caller's sync of
/// the directory. Readers see the old file or the new one, never a prefix, either way. Errors:
/// any I/O error; the temp file is removed and `path` is untouched.
pub fn write_atomic_deferred(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_temp_and_rename(path, bytes, !cfg!(target_os = "linux"))
}

fn write_temp_and_rename(path: &Path, bytes: &[u8], sync: bool) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
    // Temp files are created 0600; workspace files are ordinary data files others may read.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))?;
    }
    tmp.write_all(bytes)?;
    if sync {
        tmp.as_file().sync_all()?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Make every file written on the filesystem holding `dir` durable: one `syncfs(2)` on Linux,
/// an fsync of `dir` itself elsewhere (where files are synced one by one as they are written).
///
/// Errors: the I/O error of opening `dir` or of the sync.
pub fn sync_filesystem(dir: &Path) -> std::io::Result<()> {
    let handle = std::fs::File::open(dir)?;
    #[cfg(target_os = "linux")]
    {
        rustix::fs::syncfs(&handle)?;
    }
    #[cfg(not(target_os = "linux"))]
    {
        match handle.sync_all() {
            // Some filesystems refuse fsync on directories; renames there are still atomic.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {}
            other => other?,
        }
    }
    Ok(())
}

/// fsync a directory so renames inside it are durable (a no-op where unsupported).
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::File::open(dir) {
        Ok(f) => match f.sync_all() {
            Ok(()) => Ok(()),
            // Some filesystems refuse fsync on directories; the rename is still atomic there.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => Ok(()),
            Err(e) if e.raw_os_error() == Some(21) => Ok(()),
            Err(e) => Err(e),
        },
        Err(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn failure_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("missing-dir").join("f.json");
        assert!(write_atomic(&p, b"x").is_err());
    }
}
