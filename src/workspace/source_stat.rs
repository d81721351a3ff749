//! The size and modification time of source files, one `stat` each, as cheap as the kernel
//! allows: at 100,000 documents a re-index stats every source, so the kernel must not resolve
//! each full path from the root again ([`SourceStatter`] looks files up from their folder).

use std::path::Path;
#[cfg(target_os = "linux")]
use std::path::PathBuf;
use std::time::UNIX_EPOCH;

/// A source file's size in bytes and modification time in ms since the Unix epoch (0 when
/// unknown or before the epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceStat {
    pub len: u64,
    pub mtime_ms: u64,
}

/// Stats files one after another, keeping the last folder open: files of one folder (a walk's
/// sorted output) are then looked up by name from it (`fstatat`) instead of by their whole path.
/// One per thread.
#[derive(Default)]
pub struct SourceStatter {
    #[cfg(target_os = "linux")]
    folder: Option<(PathBuf, rustix::fd::OwnedFd)>,
}

impl SourceStatter {
    /// `stat` of `path`, following links (as [`std::fs::metadata`]). Errors: those of `stat`
    /// (missing file, permission), and of opening its folder on Linux.
    pub fn stat(&mut self, path: &Path) -> std::io::Result<SourceStat> {
        #[cfg(target_os = "linux")]
        if let (Some(parent), Some(name)) = (path.parent(), path.file_name()) {
            use rustix::fs::{AtFlags, Mode, OFlags};
            let same = self
                .folder
                .as_ref()
                .is_some_and(|(open, _)| open.as_os_str() == parent.as_os_str());
            if !same && !parent.as_os_str().is_empty() {
                let fd = rustix::fs::open(
                    parent,
                    OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
                    Mode::empty(),
                )?;
                self.folder = Some((parent.to_path_buf(), fd));
            }
            if let Some((_, fd)) = self
                .folder
                .as_ref()
                .filter(|_| !parent.as_os_str().is_empty())
            {
                let st = rustix::fs::statat(fd, name, AtFlags::empty())?;
                // Before the epoch is 0, as `SystemTime::duration_since` fails there.
                let seconds = u64::try_from(st.st_mtime).ok();
                #[allow(clippy::useless_conversion)] // u32 on some targets
                let nanos = u64::from(st.st_mtime_nsec);
                return Ok(SourceStat {
                    len: u64::try_from(st.st_size).unwrap_or(0),
                    mtime_ms: seconds.map_or(0, |s| {
                        s.saturating_mul(1000).saturating_add(nanos / 1_000_000)
                    }),
                });
            }
        }
        let meta = std::fs::metadata(path)?;
        Ok(SourceStat {
            len: meta.len(),
            mtime_ms: mtime_ms(&meta),
        })
    }
}

/// Modification time of `meta` in ms since the Unix epoch; 0 when unknown or before the epoch.
pub fn mtime_ms(meta: &std::fs::Metadata) -> u64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The folder-relative stat gives what `std::fs::metadata` gives, across folders and for a
    /// link; a missing file is an error.
    #[test]
    fn matches_std_metadata() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let files = [
            dir.path().join("a.md"),
            dir.path().join("b.md"),
            sub.join("c.md"),
        ];
        for (i, f) in files.iter().enumerate() {
            std::fs::write(f, "x".repeat(i * 10 + 1)).unwrap();
        }
        let mut statter = SourceStatter::default();
        let mut all = files.to_vec();
        #[cfg(unix)]
        {
            let link = dir.path().join("link.md");
            std::os::unix::fs::symlink(&files[2], &link).unwrap();
            all.push(link);
        }
        all.push(files[0].clone());
        for f in &all {
            let meta = std::fs::metadata(f).unwrap();
            let got = statter.stat(f).unwrap();
            assert_eq!(
                got,
                SourceStat {
                    len: meta.len(),
                    mtime_ms: mtime_ms(&meta)
                },
                "{}",
                f.display()
            );
            assert!(got.mtime_ms > 0);
        }
        assert!(statter.stat(&dir.path().join("gone.md")).is_err());
        assert!(statter.stat(&dir.path().join("nope/gone.md")).is_err());
    }
}
