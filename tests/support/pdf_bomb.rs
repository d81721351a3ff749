//! PDFs generated for tests and benchmarks instead of committed: a decompression bomb (a page
//! whose content stream inflates from a few hundred kilobytes to tens or hundreds of megabytes
//! of operators) and a page with a large plain content stream.
//!
//! The bomb's stream is a hand-written zlib stream (RFC 1950/1951): one fixed-Huffman block
//! with the literals `q Q\n` and then back-references of length 258 at distance 4, 13 bits per
//! 258 output bytes, so building it costs next to nothing and needs no compressor.

use lopdf::{dictionary, Document, Object, Stream};

/// LSB-first bit writer (RFC 1951 §3.1.1).
struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    fn put(&mut self, value: u64, bits: u32) {
        self.acc |= value << self.n;
        self.n += bits;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// A Huffman code, written most significant bit first.
    fn code(&mut self, code: u32, len: u32) {
        for i in (0..len).rev() {
            self.put(u64::from((code >> i) & 1), 1);
        }
    }

    /// A literal byte with the fixed code (0–143: 8 bits from 0x30).
    fn literal(&mut self, b: u8) {
        assert!(b < 144);
        self.code(0x30 + u32::from(b), 8);
    }

    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

/// Adler-32 of `pattern` repeated to `len` bytes.
fn adler32_repeated(pattern: &[u8], len: usize) -> u32 {
    const MOD: u64 = 65_521;
    let (mut a, mut b) = (1u64, 0u64);
    for chunk_start in (0..len).step_by(5_552) {
        let end = (chunk_start + 5_552).min(len);
        for i in chunk_start..end {
            a += u64::from(pattern[i % pattern.len()]);
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    ((b << 16) | a) as u32
}

/// A zlib stream that inflates to `q Q\n` repeated to at least `inflated` bytes (rounded up to
/// whole 258-byte back-references).
pub fn zlib_bomb(inflated: usize) -> (Vec<u8>, usize) {
    let pattern = b"q Q\n";
    let copies = inflated.saturating_sub(pattern.len()).div_ceil(258);
    let total = pattern.len() + copies * 258;
    let mut bits = Bits {
        out: vec![0x78, 0x01],
        acc: 0,
        n: 0,
    };
    bits.put(1, 1); // BFINAL
    bits.put(1, 2); // BTYPE 01: fixed Huffman
    for &b in pattern {
        bits.literal(b);
    }
    for _ in 0..copies {
        bits.code(0b1100_0101, 8); // length symbol 285: 258
        bits.code(3, 5); // distance code 3: 4
    }
    bits.code(0, 7); // end of block (256)
    let mut out = bits.finish();
    out.extend_from_slice(&adler32_repeated(pattern, total).to_be_bytes());
    (out, total)
}

/// A one-page document whose page content is `content` (raw stream bytes, `flate`: marked
/// FlateDecode) with Helvetica (no widths) as `/F1`.
pub fn one_page_document(content: Vec<u8>, flate: bool) -> Document {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let dict = if flate {
        dictionary! { "Filter" => "FlateDecode" }
    } else {
        dictionary! {}
    };
    let content_id = doc.add_object(Stream::new(dict, content));
    let page_id = doc.add_object(dictionary! {
        "Type" => "Page",
        "Parent" => pages_id,
        "Contents" => content_id,
        "Resources" => dictionary! { "Font" => dictionary! { "F1" => font_id } },
        "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => vec![page_id.into()], "Count" => 1,
        }),
    );
    let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog_id);
    doc
}

/// [`one_page_document`], saved.
fn one_page(content: Vec<u8>, flate: bool) -> Vec<u8> {
    let mut bytes = Vec::new();
    one_page_document(content, flate)
        .save_to(&mut bytes)
        .expect("save PDF to memory");
    bytes
}

/// A one-page PDF whose content stream inflates to at least `inflated` bytes of `q Q`
/// operators. Returns the file bytes and the exact inflated size.
pub fn bomb_pdf(inflated: usize) -> (Vec<u8>, usize) {
    let (stream, total) = zlib_bomb(inflated);
    (one_page(stream, true), total)
}

/// A one-page PDF saying `text` once, after `padding` bytes of uncompressed `q Q` operators
/// (`comment`: false) or of one comment line (true: as many bytes, next to no operators).
pub fn padded_pdf(text: &str, padding: usize, comment: bool) -> Vec<u8> {
    let mut content = if comment {
        let mut c = vec![b'%'; padding.max(2) - 1];
        c.push(b'\n');
        c
    } else {
        b"q Q\n".repeat(padding / 4)
    };
    content.extend_from_slice(format!("BT /F1 12 Tf 72 720 Td ({text}) Tj ET").as_bytes());
    one_page(content, false)
}
