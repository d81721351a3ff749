//! Where a workspace may be written: a local filesystem. The catalog is SQLite in WAL mode, whose
//! readers and writer share memory through a mapped `-shm` file and rely on POSIX locks; SQLite's
//! documentation says a WAL database must not be on a network filesystem, where neither holds
//! across machines (and locks may be silently advisory). A team shares an index by copying a
//! published generation to each machine's local disk instead (guide: "Workspace and scaling").

use std::path::Path;

use super::WorkspaceError;

/// The environment variable that lets a workspace be written on a network filesystem anyway
/// (for a mount used by one machine only, where the risk is the user's to take): any value.
pub const ALLOW_NETWORK_FS_ENV: &str = "DOCNAV_ALLOW_NETWORK_FS";

/// The network filesystem kind of a `statfs` filesystem type (`f_type`, Linux's
/// `include/uapi/linux/magic.h` and the SMB/CIFS client's magic numbers), if it is one.
pub fn network_filesystem(f_type: u64) -> Option<&'static str> {
    Some(match f_type {
        0x6969 => "NFS",
        0x517B => "SMB",
        0xFF53_4D42 => "CIFS",
        0xFE53_4D42 => "SMB2",
        0x6573_5546 => "FUSE",
        0x00C3_6400 => "Ceph",
        0x5346_414F | 0x6B41_4653 => "AFS",
        0x7375_7245 => "Coda",
        0x0102_1997 => "9P",
        _ => return None,
    })
}

/// Fails when `dir` is on a network filesystem and [`ALLOW_NETWORK_FS_ENV`] is unset. A folder
/// not created yet is judged by its nearest existing ancestor, so nothing is created on a
/// network mount before the refusal.
///
/// Errors: [`WorkspaceError::NetworkFilesystem`] naming the folder and the filesystem. A folder
/// whose filesystem cannot be asked about passes (the writer lock then reports what fails).
pub(crate) fn require_local_disk(dir: &Path) -> Result<(), WorkspaceError> {
    if std::env::var_os(ALLOW_NETWORK_FS_ENV).is_some() {
        return Ok(());
    }
    let existing = dir.ancestors().find(|d| d.exists()).unwrap_or(dir);
    match filesystem_type(existing).and_then(network_filesystem) {
        Some(kind) => Err(WorkspaceError::NetworkFilesystem {
            dir: dir.to_path_buf(),
            kind,
        }),
        None => Ok(()),
    }
}

#[cfg(target_os = "linux")]
fn filesystem_type(dir: &Path) -> Option<u64> {
    // `f_type`'s integer type differs between architectures; every magic number fits in 32 bits
    // (the CIFS ones are negative on 32-bit targets, hence the mask).
    #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
    rustix::fs::statfs(dir)
        .ok()
        .map(|s| (s.f_type as i64 as u64) & 0xFFFF_FFFF)
}

#[cfg(not(target_os = "linux"))]
fn filesystem_type(_dir: &Path) -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_filesystems_are_named_and_local_ones_are_not() {
        assert_eq!(network_filesystem(0x6969), Some("NFS"));
        assert_eq!(network_filesystem(0xFF53_4D42), Some("CIFS"));
        assert_eq!(network_filesystem(0x6573_5546), Some("FUSE"));
        // ext4, tmpfs, btrfs, xfs, overlayfs.
        for local in [0xEF53, 0x0102_1994, 0x9123_683E, 0x5846_5342, 0x794C_7630] {
            assert_eq!(network_filesystem(local), None, "{local:#x}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_temporary_folder_is_local_and_its_type_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let f_type = filesystem_type(dir.path()).expect("statfs answers for a temporary folder");
        assert_eq!(network_filesystem(f_type), None, "{f_type:#x}");
        require_local_disk(dir.path()).unwrap();
        require_local_disk(&dir.path().join("not/made/yet")).unwrap();
    }

    #[test]
    fn the_refusal_names_the_folder_the_filesystem_and_the_way_out() {
        let e = WorkspaceError::NetworkFilesystem {
            dir: "/mnt/share/ws".into(),
            kind: "NFS",
        };
        let line = e.to_string();
        assert!(
            line.contains("`/mnt/share/ws`") && line.contains("NFS"),
            "{line}"
        );
        assert!(line.contains(ALLOW_NETWORK_FS_ENV), "{line}");
        assert!(!line.contains('\n'), "{line}");
    }
}
