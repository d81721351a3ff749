//! Reading the entries of a zip-based document (DOCX, EPUB) under a bound on what one entry may
//! inflate to.
//!
//! A zip bomb is a small archive whose entry inflates to gigabytes (deflate packs a run of one
//! byte about 1,000 to 1). Every entry is read through [`Archive::read`], which refuses an entry
//! whose declared size is past the bound without inflating anything, and stops inflating one
//! that lies about its size one byte past its declared size (which is within the bound): time
//! and memory stay proportional to the bound, never to the entry.
//!
//! Sizing, measured over real files: the 27 corpus Markdown files converted by pandoc give
//! `word/document.xml` entries of 17 KB to 6.4 MB (the largest from a 1.3 MB changelog; 4–15×
//! the Markdown), and their pandoc EPUBs have smaller entries still (a chapter each). The
//! default, [`DEFAULT_MAX_ENTRY_MIB`] = 32 MiB, is 5× the largest of them, while a 1 GB bomb
//! is refused after inflating at most 32 MiB: a whole `docnav index` run that meets one stays
//! under 100 MB (measured by `bench/formats`, also for a bomb whose header declares just under
//! the bound).

use std::io::{Cursor, Read};
use std::path::Path;

use super::ParseError;

/// Most capacity, in bytes, of the inflate buffer a thread keeps between entries
/// ([`Archive::with_text`]); a larger one (an entry past it) is freed after use.
pub const KEPT_BUFFER_BYTES: usize = 16 << 20;

thread_local! {
    /// The inflate buffer of [`Archive::with_text`], kept for the thread's next entry.
    static ENTRY_BUFFER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Default bound on one zip entry's inflated size, in MiB.
pub const DEFAULT_MAX_ENTRY_MIB: u32 = 32;

/// How zip-based documents are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZipOptions {
    /// Most bytes one entry may inflate to.
    pub max_entry_bytes: u64,
}

impl ZipOptions {
    /// The bound for `mib` MiB per entry (at least 1 MiB).
    pub fn from_mib(mib: u32) -> ZipOptions {
        ZipOptions {
            max_entry_bytes: u64::from(mib.max(1)) << 20,
        }
    }
}

impl Default for ZipOptions {
    fn default() -> Self {
        ZipOptions::from_mib(DEFAULT_MAX_ENTRY_MIB)
    }
}

/// Why an archive or one of its entries cannot be read. The messages name the entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ZipError {
    /// Not a zip archive, or a damaged one.
    #[error("not a readable zip archive ({0})")]
    Archive(String),
    /// An entry inflates (or says it does) past the bound.
    #[error(
        "entry `{entry}` inflates past {} MiB (a zip bomb?); the bound is {} MiB per entry \
         (raise it with --max-zip-entry-mib)",
        limit >> 20, limit >> 20
    )]
    TooLarge {
        /// The entry's name.
        entry: String,
        /// The bound, bytes.
        limit: u64,
    },
    /// An entry inflates past the size its headers declare: a zip bomb that lies about its
    /// size (the zip reader stops at the declared size, so this costs no more than an honest
    /// entry of that size).
    #[error(
        "entry `{entry}` inflates past the {declared} bytes its header declares (a zip bomb?)"
    )]
    Oversized {
        /// The entry's name.
        entry: String,
        /// The size the headers declare, bytes.
        declared: u64,
    },
    /// An entry cannot be inflated (damaged, encrypted, an unsupported method).
    #[error("entry `{entry}` cannot be read: {reason}")]
    Entry {
        /// The entry's name.
        entry: String,
        /// What went wrong.
        reason: String,
    },
}

/// An open archive whose entries are read under a bound.
pub struct Archive<'a> {
    zip: zip::ZipArchive<Cursor<&'a [u8]>>,
    limit: u64,
}

impl<'a> Archive<'a> {
    /// Open the archive in `bytes`. Errors: [`ZipError::Archive`] when it is not one.
    pub fn open(bytes: &'a [u8], options: &ZipOptions) -> Result<Archive<'a>, ZipError> {
        let zip = zip::ZipArchive::new(Cursor::new(bytes))
            .map_err(|e| ZipError::Archive(e.to_string()))?;
        Ok(Archive {
            zip,
            limit: options.max_entry_bytes,
        })
    }

    /// True when the archive has an entry of this name.
    pub fn contains(&self, name: &str) -> bool {
        self.zip.index_for_name(name).is_some()
    }

    /// The inflated bytes of entry `name`, `None` when there is no such entry.
    ///
    /// Errors: [`ZipError::TooLarge`] for an entry whose declared size is past the bound
    /// (before inflating anything); [`ZipError::Oversized`] for one that inflates past its
    /// declared size (found one byte past it); [`ZipError::Entry`] for one that cannot be
    /// inflated.
    pub fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>, ZipError> {
        let mut out = Vec::new();
        Ok(self.read_into(name, &mut out)?.then_some(out))
    }

    /// [`Archive::read`] appending to `out`: `Ok(false)` when there is no such entry.
    fn read_into(&mut self, name: &str, out: &mut Vec<u8>) -> Result<bool, ZipError> {
        let Some(index) = self.zip.index_for_name(name) else {
            return Ok(false);
        };
        let limit = self.limit;
        let too_large = || ZipError::TooLarge {
            entry: name.to_string(),
            limit,
        };
        let failed = |reason: String| ZipError::Entry {
            entry: name.to_string(),
            reason,
        };
        let mut file = self
            .zip
            .by_index(index)
            .map_err(|e| failed(e.to_string()))?;
        if file.size() > limit {
            return Err(too_large());
        }
        let declared = file.size();
        let oversized = || ZipError::Oversized {
            entry: name.to_string(),
            declared,
        };
        out.reserve(usize::try_from(declared).unwrap_or(0));
        let start = out.len();
        // Read the declared bytes through `take`, so no single read can ask the zip reader for
        // more than are left of them: how many bytes one read inflates then depends on neither
        // `out`'s capacity (a thread's kept buffer is large) nor std's read strategy, and the
        // zip reader's own check (it fails a read that goes past the declared size, dropping
        // that read's bytes) cannot fire before the declared size is reached.
        if let Err(e) = (&mut file).take(declared).read_to_end(out) {
            return Err(failed(e.to_string()));
        }
        if ((out.len() - start) as u64) < declared {
            // Shorter than declared: the zip reader has met the end and checked the CRC.
            return Ok(true);
        }
        // Exactly the declared size so far: the entry must end here.
        match file.read(&mut [0u8; 1]) {
            Ok(0) => Ok(true),
            Ok(_) => Err(oversized()),
            // The zip reader refuses the byte past the declared size with an error of its own;
            // any other error (a bad CRC at the end, damaged data) is said as it is.
            Err(e) if e.to_string().contains("larger than its declared") => Err(oversized()),
            Err(e) => Err(failed(e.to_string())),
        }
    }

    /// Entry `name` decoded as UTF-8 (invalid sequences replaced) and lent to `f`; `Ok(None)`
    /// when there is no such entry. Errors as [`Archive::read`].
    ///
    /// The text is inflated into a buffer this thread keeps for its next entry (up to
    /// [`KEPT_BUFFER_BYTES`] of capacity): an inflated `document.xml` is 4–15× its file, and a
    /// fresh buffer per document would have the kernel fault in and zero its pages again for
    /// every document of a run (the page faults and peak memory this saves: the benchmark
    /// history, docs/src/benchmarks-history.md, "Fourth pass …: a kept inflate buffer").
    pub fn with_text<R>(
        &mut self,
        name: &str,
        f: impl FnOnce(&str) -> R,
    ) -> Result<Option<R>, ZipError> {
        let mut buffer = ENTRY_BUFFER.take();
        buffer.clear();
        let read = self.read_into(name, &mut buffer);
        let out = match read {
            Ok(true) => Ok(Some(match std::str::from_utf8(&buffer) {
                Ok(text) => f(text),
                Err(_) => f(&String::from_utf8_lossy(&buffer)),
            })),
            Ok(false) => Ok(None),
            Err(e) => Err(e),
        };
        if buffer.capacity() <= KEPT_BUFFER_BYTES {
            buffer.clear();
            ENTRY_BUFFER.set(buffer);
        }
        out
    }

    /// [`Archive::read`] decoded as UTF-8 (invalid sequences replaced), `None` when missing.
    pub fn read_text(&mut self, name: &str) -> Result<Option<String>, ZipError> {
        Ok(self
            .read(name)?
            .map(|bytes| match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
            }))
    }
}

/// An archive opened as a document of one kind (a Word document, an EPUB book): every failure
/// to open it or read one of its parts is a [`ParseError::Archive`] naming the file and the kind.
pub struct ZippedDoc<'a> {
    archive: Archive<'a>,
    path: &'a Path,
    kind: &'static str,
}

impl<'a> ZippedDoc<'a> {
    /// Open `bytes` (read from `path`) as a `kind` (`Word document`, `EPUB book`).
    ///
    /// Errors: [`ParseError::Archive`] when `bytes` is not a zip archive.
    pub fn open(
        path: &'a Path,
        bytes: &'a [u8],
        options: &ZipOptions,
        kind: &'static str,
    ) -> Result<ZippedDoc<'a>, ParseError> {
        let archive = Archive::open(bytes, options).map_err(|e| failure(path, kind, &e))?;
        Ok(ZippedDoc {
            archive,
            path,
            kind,
        })
    }

    /// The [`ParseError::Archive`] of this document for `reason` (one line).
    pub fn error(&self, reason: String) -> ParseError {
        ParseError::Archive {
            path: self.path.to_path_buf(),
            kind: self.kind,
            reason,
        }
    }

    /// The error for a part `name` the document cannot do without and the archive lacks.
    pub fn missing(&self, name: &str) -> ParseError {
        self.error(format!("no `{name}` in the archive"))
    }

    /// True when the archive has an entry `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.archive.contains(name)
    }

    /// [`Archive::read_text`]: part `name` as text, `None` when the archive lacks it.
    ///
    /// Errors: [`ParseError::Archive`] for a part past the bound or that cannot be inflated.
    pub fn read_text(&mut self, name: &str) -> Result<Option<String>, ParseError> {
        let read = self.archive.read_text(name);
        read.map_err(|e| failure(self.path, self.kind, &e))
    }

    /// Part `name` as text. Errors: as [`ZippedDoc::read_text`], and [`ZippedDoc::missing`]
    /// when the archive lacks it.
    pub fn require_text(&mut self, name: &str) -> Result<String, ParseError> {
        self.read_text(name)?.ok_or_else(|| self.missing(name))
    }

    /// [`Archive::with_text`]: part `name` lent to `f` as text, `None` when the archive lacks
    /// it. Errors: as [`ZippedDoc::read_text`].
    pub fn with_text<R>(
        &mut self,
        name: &str,
        f: impl FnOnce(&str) -> R,
    ) -> Result<Option<R>, ParseError> {
        let read = self.archive.with_text(name, f);
        read.map_err(|e| failure(self.path, self.kind, &e))
    }
}

/// The [`ParseError::Archive`] of the `kind` at `path` for the archive error `e`.
fn failure(path: &Path, kind: &'static str, e: &ZipError) -> ParseError {
    ParseError::Archive {
        path: path.to_path_buf(),
        kind,
        reason: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn archive(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = Cursor::new(Vec::new());
        let mut w = zip::ZipWriter::new(&mut out);
        for (name, data) in entries {
            let options = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated);
            w.start_file(*name, options).unwrap();
            w.write_all(data).unwrap();
        }
        w.finish().unwrap();
        out.into_inner()
    }

    #[test]
    fn entries_read_under_the_bound() {
        let big = vec![b'a'; 3 << 20];
        let bytes = archive(&[("small.xml", b"<x/>"), ("big.xml", &big)]);
        let mut a = Archive::open(&bytes, &ZipOptions::from_mib(2)).unwrap();
        assert_eq!(a.read("small.xml").unwrap().unwrap(), b"<x/>");
        assert_eq!(a.read("missing").unwrap(), None);
        assert!(a.contains("big.xml"));
        let err = a.read("big.xml").unwrap_err();
        assert_eq!(
            err.to_string(),
            "entry `big.xml` inflates past 2 MiB (a zip bomb?); the bound is 2 MiB per entry \
             (raise it with --max-zip-entry-mib)"
        );
        let mut a = Archive::open(&bytes, &ZipOptions::from_mib(4)).unwrap();
        assert_eq!(a.read("big.xml").unwrap().unwrap().len(), 3 << 20);
        assert!(matches!(
            Archive::open(b"not a zip", &ZipOptions::default()),
            Err(ZipError::Archive(_))
        ));
    }

    /// `bytes` (an archive of one entry written by [`archive`]) with the entry's uncompressed
    /// size, in its local and central headers, replaced by `declared` (APPNOTE 4.3.7, 4.3.12).
    fn declaring(mut bytes: Vec<u8>, declared: u32) -> Vec<u8> {
        let at = |bytes: &[u8], signature: u32| {
            bytes
                .windows(4)
                .position(|w| w == signature.to_le_bytes())
                .unwrap()
        };
        let local = at(&bytes, 0x0403_4b50) + 22;
        let central = at(&bytes, 0x0201_4b50) + 24;
        for offset in [local, central] {
            bytes[offset..offset + 4].copy_from_slice(&declared.to_le_bytes());
        }
        bytes
    }

    #[test]
    fn an_entry_past_its_declared_size_is_named_so_whatever_the_buffer() {
        let bytes = declaring(archive(&[("lie.xml", &vec![b'a'; 200_000])]), 1024);
        let oversized = ZipError::Oversized {
            entry: "lie.xml".into(),
            declared: 1024,
        };
        let mut a = Archive::open(&bytes, &ZipOptions::default()).unwrap();
        assert_eq!(a.read("lie.xml").unwrap_err(), oversized);
        // A buffer with room for far more than the declared size, as a thread's kept buffer
        // has after a large entry: one read used to inflate past the declared size at once,
        // and the zip reader's refusal of it read as a damaged entry.
        for capacity in [1024, 1025, 64 << 10, 4 << 20] {
            let mut out = Vec::with_capacity(capacity);
            assert_eq!(a.read_into("lie.xml", &mut out).unwrap_err(), oversized);
        }
        ENTRY_BUFFER.set(Vec::with_capacity(4 << 20));
        assert_eq!(a.with_text("lie.xml", str::len).unwrap_err(), oversized);
        // Declared as exactly its size or larger, the same entry reads whole.
        for declared in [200_000, 300_000] {
            let bytes = declaring(archive(&[("e.xml", &vec![b'a'; 200_000])]), declared);
            let mut a = Archive::open(&bytes, &ZipOptions::default()).unwrap();
            assert_eq!(a.read("e.xml").unwrap().unwrap(), vec![b'a'; 200_000]);
        }
    }

    #[test]
    fn text_lent_from_the_kept_buffer_is_each_entrys_own() {
        let long = "<long>".repeat(10_000);
        let bytes = archive(&[
            ("long.xml", long.as_bytes()),
            ("short.xml", b"<s/>"),
            ("latin1.txt", b"caf\xe9"),
        ]);
        let mut a = Archive::open(&bytes, &ZipOptions::from_mib(1)).unwrap();
        let len = |t: &str| t.len();
        assert_eq!(a.with_text("long.xml", len).unwrap(), Some(long.len()));
        // The buffer that held the long entry is reused, and holds only the short one now.
        assert_eq!(
            a.with_text("short.xml", str::to_string).unwrap().as_deref(),
            Some("<s/>")
        );
        assert_eq!(
            a.with_text("latin1.txt", str::to_string)
                .unwrap()
                .as_deref(),
            Some("caf\u{FFFD}")
        );
        assert_eq!(a.with_text("missing", len).unwrap(), None);
        let mut small = Archive::open(
            &bytes,
            &ZipOptions {
                max_entry_bytes: 100,
            },
        )
        .unwrap();
        assert!(matches!(
            small.with_text("long.xml", len),
            Err(ZipError::TooLarge { .. })
        ));
        // A refused entry leaves nothing behind for the next one.
        assert_eq!(
            small
                .with_text("short.xml", str::to_string)
                .unwrap()
                .as_deref(),
            Some("<s/>")
        );
    }
}
