//! Zip archives generated for tests and benchmarks instead of committed: a DOCX whose
//! `word/document.xml` inflates from a few megabytes to a gigabyte (a zip bomb).
//!
//! The archive is written by hand (PKWARE APPNOTE 4.3: one local header, the entry's raw deflate
//! data, one central directory header, the end record) around the deflate stream of
//! [`super::pdf_bomb::zlib_bomb`] without its zlib header and checksum, so building it costs
//! no compression. The CRC is left 0: a reader that honours the bound stops long before the
//! end of the entry, where the CRC would be checked.

use super::pdf_bomb::zlib_bomb;

/// A zip of one deflated entry `name` with raw deflate `data` inflating to `size` bytes, of
/// which the headers declare `declared`.
pub fn zip_of(name: &str, data: &[u8], declared: u32, crc: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let name_len = u16::try_from(name.len()).unwrap();
    let comp = u32::try_from(data.len()).unwrap();
    let fixed = |out: &mut Vec<u8>| {
        out.extend_from_slice(&20u16.to_le_bytes()); // version needed
        out.extend_from_slice(&0u16.to_le_bytes()); // flags
        out.extend_from_slice(&8u16.to_le_bytes()); // deflate
        out.extend_from_slice(&0u16.to_le_bytes()); // time
        out.extend_from_slice(&0x21u16.to_le_bytes()); // date: 1980-01-01
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(&comp.to_le_bytes());
        out.extend_from_slice(&declared.to_le_bytes());
        out.extend_from_slice(&name_len.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes()); // extra
    };
    out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
    fixed(&mut out);
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(data);
    let directory = u32::try_from(out.len()).unwrap();
    out.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
    out.extend_from_slice(&20u16.to_le_bytes()); // version made by
    fixed(&mut out);
    out.extend_from_slice(&0u16.to_le_bytes()); // comment
    out.extend_from_slice(&0u16.to_le_bytes()); // disk
    out.extend_from_slice(&0u16.to_le_bytes()); // internal attributes
    out.extend_from_slice(&0u32.to_le_bytes()); // external attributes
    out.extend_from_slice(&0u32.to_le_bytes()); // local header offset
    out.extend_from_slice(name.as_bytes());
    let directory_len = u32::try_from(out.len()).unwrap() - directory;
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]); // disks
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&directory_len.to_le_bytes());
    out.extend_from_slice(&directory.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// A DOCX whose `word/document.xml` inflates to at least `inflated` bytes; its headers declare
/// the true size (`honest`) or 1 KiB (a lie, so only a bound on what is actually inflated
/// stops it). Returns the file bytes and the exact inflated size.
pub fn docx_bomb(inflated: usize, honest: bool) -> (Vec<u8>, usize) {
    let (zlib, total) = zlib_bomb(inflated);
    let raw = &zlib[2..zlib.len() - 4];
    let declared = if honest {
        u32::try_from(total).unwrap_or(u32::MAX)
    } else {
        1024
    };
    (zip_of("word/document.xml", raw, declared, 0), total)
}
