//! Fonts for text extraction: how a shown string's bytes become character codes, Unicode text
//! and glyph widths (PDF 32000-1:2008 §9.6–9.10).
//!
//! Decoding order per code: the font's `/ToUnicode` CMap (§9.10.3, parsed here: `bfchar` and
//! `bfrange`), then the simple-font encoding (`/Encoding` name or `/Differences`, decoded through
//! lopdf's tables), else nothing. Widths come from `/FirstChar`+`/Widths` (simple fonts) or the
//! descendant font's `/DW`+`/W` (Type0, §9.7.4.3); unknown widths fall back to
//! [`FALLBACK_WIDTH`], or [`MONOSPACE_WIDTH`] for a fixed-pitch font that gives none.

use std::collections::HashMap;

use lopdf::{Dictionary, Document, Object};

/// Glyph width (in text-space units, 1.0 = one em) assumed when a font gives none.
pub const FALLBACK_WIDTH: f32 = 0.55;

/// Glyph width of a fixed-pitch font that gives none: 0.6 em, Courier's pitch in the standard 14
/// fonts' metrics (Adobe Core14 AFM, `Courier.afm`: every glyph 600 units) and that of the common
/// monospace faces. A non-embedded Courier (FHS 3.0's paths) measured at [`FALLBACK_WIDTH`] ends
/// 0.05 em short per glyph, and the gap after `/opt/bin` read as a space before its comma:
/// "/opt/bin , /opt/doc".
pub const MONOSPACE_WIDTH: f32 = 0.6;

/// Largest `bfrange` expanded into the lookup table; larger ranges in hostile CMaps are cut.
const MAX_RANGE: u32 = 0x1_0000;

/// Largest number of codes a CMap may map (guards memory on hostile input).
const MAX_CMAP_ENTRIES: usize = 200_000;

/// Everything the text interpreter needs from one font resource.
#[derive(Debug, Default)]
pub struct FontInfo {
    /// Bytes per character code: 1 for simple fonts, 2 for Type0 (Identity-H and kin).
    pub code_len: usize,
    /// `/ToUnicode` mappings: code → text.
    to_unicode: HashMap<u32, String>,
    /// Simple-font encoding: byte → text (empty when unknown).
    simple: Vec<String>,
    /// Widths by code, in ems.
    widths: HashMap<u32, f32>,
    /// Width of codes missing from `widths`, in ems.
    default_width: f32,
    /// True for a bold face ([`is_bold`]).
    pub bold: bool,
    /// True for a fixed-pitch (code) face ([`is_monospace`]); one without widths measures
    /// [`MONOSPACE_WIDTH`] per glyph.
    pub monospace: bool,
}

impl FontInfo {
    /// Build from a font dictionary; never fails (a broken part is simply left out). Embedded
    /// streams (`/ToUnicode`, the font program) that inflate past `max_stream_bytes` are
    /// ignored.
    pub fn new(doc: &Document, font: &Dictionary, max_stream_bytes: usize) -> FontInfo {
        let subtype = font
            .get(b"Subtype")
            .and_then(Object::as_name)
            .unwrap_or(b"");
        let type0 = subtype == b"Type0";
        let mut info = FontInfo {
            code_len: if type0 { 2 } else { 1 },
            default_width: FALLBACK_WIDTH,
            bold: is_bold(doc, font),
            monospace: is_monospace(doc, font),
            ..FontInfo::default()
        };
        if let Ok(stream) = font
            .get_deref(b"ToUnicode", doc)
            .and_then(Object::as_stream)
        {
            if let Ok(data) = stream.get_plain_content_with_limit(max_stream_bytes) {
                let (map, code_len) = parse_cmap(&data);
                info.to_unicode = map;
                if let Some(len) = code_len {
                    if type0 {
                        info.code_len = len.clamp(1, 4);
                    }
                }
            }
        }
        if !type0 {
            info.simple = simple_encoding(doc, font, max_stream_bytes);
            info.read_simple_widths(doc, font);
        } else {
            info.read_cid_widths(doc, font);
        }
        if info.widths.is_empty() && info.monospace {
            info.default_width = MONOSPACE_WIDTH;
        }
        info
    }

    /// Split a shown string into character codes.
    pub fn codes<'a>(&'a self, bytes: &'a [u8]) -> impl Iterator<Item = u32> + 'a {
        bytes
            .chunks(self.code_len.max(1))
            .map(|chunk| chunk.iter().fold(0u32, |acc, b| (acc << 8) | u32::from(*b)))
    }

    /// Unicode text of one code (may be empty or several chars, e.g. a ligature).
    pub fn text(&self, code: u32) -> &str {
        if let Some(s) = self.to_unicode.get(&code) {
            return s;
        }
        if self.code_len == 1 {
            if let Some(s) = usize::try_from(code).ok().and_then(|i| self.simple.get(i)) {
                return s;
            }
        }
        ""
    }

    /// Advance width of one code, in ems.
    pub fn width(&self, code: u32) -> f32 {
        self.widths
            .get(&code)
            .copied()
            .unwrap_or(self.default_width)
    }

    fn read_simple_widths(&mut self, doc: &Document, font: &Dictionary) {
        // Type3 glyph widths are in glyph space, scaled by the FontMatrix.
        let scale = font
            .get_deref(b"FontMatrix", doc)
            .and_then(Object::as_array)
            .ok()
            .and_then(|m| m.first().and_then(|v| v.as_float().ok()))
            .unwrap_or(0.001);
        if let Ok(missing) = font
            .get_deref(b"FontDescriptor", doc)
            .and_then(Object::as_dict)
            .and_then(|d| d.get_deref(b"MissingWidth", doc))
            .and_then(Object::as_float)
        {
            if missing > 0.0 {
                self.default_width = missing * scale;
            }
        }
        let first = font
            .get_deref(b"FirstChar", doc)
            .and_then(Object::as_i64)
            .unwrap_or(0);
        if let Ok(widths) = font.get_deref(b"Widths", doc).and_then(Object::as_array) {
            for (i, w) in widths.iter().enumerate().take(256) {
                let w = deref(doc, w).as_float().unwrap_or(0.0);
                if let Ok(code) = u32::try_from(first + i as i64) {
                    self.widths.insert(code, w * scale);
                }
            }
        }
    }

    fn read_cid_widths(&mut self, doc: &Document, font: &Dictionary) {
        let Some(cid) = font
            .get_deref(b"DescendantFonts", doc)
            .and_then(Object::as_array)
            .ok()
            .and_then(|a| a.first())
            .and_then(|f| deref(doc, f).as_dict().ok())
        else {
            return;
        };
        self.default_width = cid
            .get_deref(b"DW", doc)
            .and_then(Object::as_float)
            .unwrap_or(1000.0)
            / 1000.0;
        let Ok(w) = cid.get_deref(b"W", doc).and_then(Object::as_array) else {
            return;
        };
        let num = |o: &Object| deref(doc, o).as_float().ok();
        let mut i = 0;
        while i < w.len() && self.widths.len() < MAX_CMAP_ENTRIES {
            let Some(start) = num(&w[i]).map(|v| v as u32) else {
                break;
            };
            match w.get(i + 1).map(|o| deref(doc, o)) {
                Some(Object::Array(list)) => {
                    for (k, v) in list.iter().enumerate() {
                        if let Some(v) = num(v) {
                            self.widths
                                .insert(start.saturating_add(k as u32), v / 1000.0);
                        }
                    }
                    i += 2;
                }
                Some(end) => {
                    let end = end.as_float().map(|v| v as u32).unwrap_or(start);
                    let width = w.get(i + 2).and_then(num).unwrap_or(1000.0);
                    for code in start..=end.min(start.saturating_add(MAX_RANGE)) {
                        self.widths.insert(code, width / 1000.0);
                    }
                    i += 3;
                }
                None => break,
            }
        }
    }
}

/// Text of a glyph name through lopdf's glyph list (asked one name at a time, so one unknown
/// name does not void a whole `/Differences` array), plus TeX names missing from that list.
fn glyph_text(doc: &Document, name: &[u8], cache: &mut HashMap<Vec<u8>, String>) -> String {
    if let Some(s) = cache.get(name) {
        return s.clone();
    }
    let extra = match name {
        b"circlecopyrt" => Some("©"),
        b"visiblespace" => Some("␣"),
        b"dotlessj" => Some("ȷ"),
        b"angbracketleft" => Some("⟨"),
        b"angbracketright" => Some("⟩"),
        _ => None,
    };
    let text = extra.map(str::to_string).unwrap_or_else(|| {
        let mut enc = Dictionary::new();
        enc.set(
            "Differences",
            Object::Array(vec![Object::Integer(65), Object::Name(name.to_vec())]),
        );
        let mut font = Dictionary::new();
        font.set("Type", Object::Name(b"Font".to_vec()));
        font.set("Encoding", Object::Dictionary(enc));
        match font.get_font_encoding(doc) {
            Ok(e @ lopdf::Encoding::Differences(_)) => e.bytes_to_string(&[65]).unwrap_or_default(),
            _ => String::new(),
        }
    });
    cache.insert(name.to_vec(), text.clone());
    text
}

/// The 256-entry byte → text table of a named base encoding (lopdf's tables).
fn named_encoding(doc: &Document, name: &[u8]) -> Vec<String> {
    let mut font = Dictionary::new();
    font.set("Type", Object::Name(b"Font".to_vec()));
    font.set("Encoding", Object::Name(name.to_vec()));
    match font.get_font_encoding(doc) {
        Ok(e) => (0u8..=255)
            .map(|b| e.bytes_to_string(&[b]).unwrap_or_default())
            .collect(),
        Err(_) => vec![String::new(); 256],
    }
}

/// The built-in encoding of an embedded Type 1 font program: `dup <code> /<name> put` entries in
/// its cleartext part (Adobe Type 1 Font Format §10.3); `None` when absent or standard.
fn builtin_encoding(
    doc: &Document,
    font: &Dictionary,
    max_stream_bytes: usize,
) -> Option<Vec<(u8, Vec<u8>)>> {
    let descriptor = font
        .get_deref(b"FontDescriptor", doc)
        .and_then(Object::as_dict)
        .ok()?;
    let stream = descriptor
        .get_deref(b"FontFile", doc)
        .and_then(Object::as_stream)
        .ok()?;
    let data = stream.get_plain_content_with_limit(max_stream_bytes).ok()?;
    let clear_len = stream
        .dict
        .get(b"Length1")
        .and_then(Object::as_i64)
        .ok()
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(data.len())
        .min(data.len());
    let clear = &data[..clear_len];
    let words: Vec<&[u8]> = clear
        .split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    let entries: Vec<(u8, Vec<u8>)> = words
        .windows(4)
        .filter(|w| w[0] == b"dup" && w[3] == b"put" && w[2].starts_with(b"/"))
        .filter_map(|w| {
            let code: u8 = std::str::from_utf8(w[1]).ok()?.parse().ok()?;
            Some((code, w[2][1..].to_vec()))
        })
        .collect();
    (!entries.is_empty()).then_some(entries)
}

/// Byte → text table of a simple font: base encoding (`/Encoding` name, `/BaseEncoding`, the
/// embedded font's built-in encoding, else StandardEncoding) overlaid with `/Differences`.
fn simple_encoding(doc: &Document, font: &Dictionary, max_stream_bytes: usize) -> Vec<String> {
    let mut cache = HashMap::new();
    let encoding = font.get_deref(b"Encoding", doc).ok();
    let base_name = match encoding {
        Some(Object::Name(n)) => Some(n.clone()),
        Some(Object::Dictionary(d)) => d
            .get(b"BaseEncoding")
            .and_then(Object::as_name)
            .ok()
            .map(<[u8]>::to_vec),
        _ => None,
    };
    let mut table = match base_name {
        Some(name) => named_encoding(doc, &name),
        None => match builtin_encoding(doc, font, max_stream_bytes) {
            Some(entries) => {
                let mut t = vec![String::new(); 256];
                for (code, name) in entries {
                    t[usize::from(code)] = glyph_text(doc, &name, &mut cache);
                }
                t
            }
            None => named_encoding(doc, b"StandardEncoding"),
        },
    };
    if let Some(Object::Dictionary(d)) = encoding {
        if let Ok(diffs) = d.get_deref(b"Differences", doc).and_then(Object::as_array) {
            let mut code = 0usize;
            for item in diffs {
                match deref(doc, item) {
                    Object::Integer(n) => code = usize::try_from(*n).unwrap_or(256),
                    Object::Name(name) => {
                        if code < 256 {
                            table[code] = glyph_text(doc, name, &mut cache);
                        }
                        code += 1;
                    }
                    _ => {}
                }
            }
        }
    }
    table
}

/// True when the font is a bold face: its `/BaseFont` (subset tag `ABCDEF+` removed) names a
/// heavy weight (`Bold`, `Black`, `Heavy`, `Demi`, URW's `Medi`, Libertine's `…TB`) or is a
/// Computer Modern bold (`CMBX10`, `CMB10`, `CMSSBX10`, `CMMIB10`, `CMBSY7`), or its descriptor
/// says so (`/FontWeight` ≥ 600, or the ForceBold flag, bit 19 of `/Flags`; PDF 32000-1 §9.8).
pub fn is_bold(doc: &Document, font: &Dictionary) -> bool {
    let name = base_font_name(doc, font);
    let name = name.as_str();
    let by_name = ["bold", "black", "heavy", "demi", "medi"]
        .iter()
        .any(|w| name.contains(w))
        || ["cmbx", "cmb1", "cmssbx", "cmmib", "cmbsy"]
            .iter()
            .any(|p| name.starts_with(p))
        || name.starts_with("lin") && name.ends_with("tb");
    if by_name {
        return true;
    }
    let descriptor = font
        .get_deref(b"FontDescriptor", doc)
        .and_then(Object::as_dict)
        .ok();
    descriptor.is_some_and(|d| {
        let weight = d
            .get_deref(b"FontWeight", doc)
            .and_then(Object::as_float)
            .unwrap_or(0.0);
        let flags = d
            .get_deref(b"Flags", doc)
            .and_then(Object::as_i64)
            .unwrap_or(0);
        weight >= 600.0 || flags & (1 << 18) != 0
    })
}

/// Whether `font` is fixed-pitch, the face of code: its descriptor's FixedPitch flag (bit 1,
/// PDF 32000-1:2008 §9.8.2), else its name (Courier, `…Mono…`, TeX's typewriter `cmtt`/`sftt`,
/// `…Typewriter…`, Consolas, Menlo). The subset tag (`ABCDEF+`) is ignored.
pub fn is_monospace(doc: &Document, font: &Dictionary) -> bool {
    let name = base_font_name(doc, font);
    let name = name.as_str();
    let by_name = ["courier", "mono", "typewriter", "consolas", "menlo"]
        .iter()
        .any(|w| name.contains(w))
        || ["cmtt", "sftt", "ectt", "rm-lmtt", "lmtt"]
            .iter()
            .any(|p| name.starts_with(p));
    by_name
        || font
            .get_deref(b"FontDescriptor", doc)
            .and_then(Object::as_dict)
            .and_then(|d| d.get_deref(b"Flags", doc))
            .and_then(Object::as_i64)
            .is_ok_and(|flags| flags & 1 != 0)
}

/// The font's `/BaseFont`, lowercased, without a subset tag (`ABCDEF+`); empty when absent.
fn base_font_name(doc: &Document, font: &Dictionary) -> String {
    let name = font
        .get_deref(b"BaseFont", doc)
        .and_then(Object::as_name)
        .map(|n| String::from_utf8_lossy(n).to_lowercase())
        .unwrap_or_default();
    match name.split_once('+') {
        Some((tag, rest)) if tag.len() == 6 => rest.to_string(),
        _ => name,
    }
}

/// Follow a reference (once); the object itself otherwise or when the target is missing.
pub fn deref<'a>(doc: &'a Document, obj: &'a Object) -> &'a Object {
    doc.dereference(obj).map(|(_, o)| o).unwrap_or(obj)
}

/// A token of a CMap program.
#[derive(Debug, PartialEq)]
enum Token {
    Hex(Vec<u8>),
    ArrayStart,
    ArrayEnd,
    Word(Vec<u8>),
}

fn tokenize(data: &[u8]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < data.len() {
        let c = data[i];
        match c {
            b'%' => {
                while i < data.len() && data[i] != b'\n' && data[i] != b'\r' {
                    i += 1;
                }
            }
            b'<' if data.get(i + 1) == Some(&b'<') => i += 2,
            b'>' if data.get(i + 1) == Some(&b'>') => i += 2,
            b'<' => {
                let end = data[i..]
                    .iter()
                    .position(|&b| b == b'>')
                    .map_or(data.len(), |p| i + p);
                let digits: Vec<u8> = data[i + 1..end]
                    .iter()
                    .filter_map(|b| (*b as char).to_digit(16).map(|d| d as u8))
                    .collect();
                let bytes = digits
                    .chunks(2)
                    .map(|p| (p[0] << 4) | p.get(1).copied().unwrap_or(0))
                    .collect();
                out.push(Token::Hex(bytes));
                i = end + 1;
            }
            b'[' => {
                out.push(Token::ArrayStart);
                i += 1;
            }
            b']' => {
                out.push(Token::ArrayEnd);
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            _ => {
                let start = i;
                while i < data.len()
                    && !b"<>[]%".contains(&data[i])
                    && !data[i].is_ascii_whitespace()
                {
                    i += 1;
                }
                if i == start {
                    i += 1;
                }
                out.push(Token::Word(data[start..i].to_vec()));
            }
        }
    }
    out
}

fn code_of(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .take(4)
        .fold(0u32, |acc, b| (acc << 8) | u32::from(*b))
}

fn utf16_text(bytes: &[u8]) -> String {
    let units: Vec<u16> = bytes
        .chunks(2)
        .map(|p| (u16::from(p[0]) << 8) | u16::from(p.get(1).copied().unwrap_or(0)))
        .collect();
    String::from_utf16_lossy(&units)
}

/// Parse a `/ToUnicode` CMap: code → text, and the code length in bytes from the first
/// `codespacerange` (PDF 32000-1 §9.10.3; Adobe Technical Note #5411).
pub fn parse_cmap(data: &[u8]) -> (HashMap<u32, String>, Option<usize>) {
    let tokens = tokenize(data);
    let mut map = HashMap::new();
    let mut code_len = None;
    let mut i = 0;
    let hex = |t: Option<&Token>| match t {
        Some(Token::Hex(b)) => Some(b.clone()),
        _ => None,
    };
    while i < tokens.len() && map.len() < MAX_CMAP_ENTRIES {
        match &tokens[i] {
            Token::Word(w) if w == b"begincodespacerange" => {
                if let Some(lo) = hex(tokens.get(i + 1)) {
                    code_len.get_or_insert(lo.len());
                }
                i += 1;
            }
            Token::Word(w) if w == b"beginbfchar" => {
                i += 1;
                while let (Some(src), Some(dst)) = (hex(tokens.get(i)), hex(tokens.get(i + 1))) {
                    map.insert(code_of(&src), utf16_text(&dst));
                    i += 2;
                }
            }
            Token::Word(w) if w == b"beginbfrange" => {
                i += 1;
                while let (Some(lo), Some(hi)) = (hex(tokens.get(i)), hex(tokens.get(i + 1))) {
                    let (lo, hi) = (code_of(&lo), code_of(&hi));
                    let hi = hi.min(lo.saturating_add(MAX_RANGE));
                    match tokens.get(i + 2) {
                        Some(Token::Hex(dst)) => {
                            let mut units: Vec<u16> = utf16_text(dst).encode_utf16().collect();
                            for code in lo..=hi {
                                map.insert(code, String::from_utf16_lossy(&units));
                                if let Some(last) = units.last_mut() {
                                    *last = last.wrapping_add(1);
                                }
                            }
                            i += 3;
                        }
                        Some(Token::ArrayStart) => {
                            let mut j = i + 3;
                            let mut code = lo;
                            while let Some(Token::Hex(dst)) = tokens.get(j) {
                                if code <= hi {
                                    map.insert(code, utf16_text(dst));
                                }
                                code = code.saturating_add(1);
                                j += 1;
                            }
                            i = j + 1;
                        }
                        _ => break,
                    }
                }
            }
            _ => i += 1,
        }
    }
    (map, code_len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmap_bfchar_and_bfrange() {
        let cmap = b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n\
            1 begincodespacerange <0000> <FFFF> endcodespacerange\n\
            2 beginbfchar <0003> <0020> <000C> <FB01> endbfchar\n\
            2 beginbfrange <0041> <0043> <0061> <0050> <0051> [<0078> <00790079>] endbfrange\n\
            endcmap";
        let (map, len) = parse_cmap(cmap);
        assert_eq!(len, Some(2));
        assert_eq!(map[&0x03], " ");
        assert_eq!(map[&0x0C], "\u{FB01}");
        assert_eq!(map[&0x41], "a");
        assert_eq!(map[&0x43], "c");
        assert_eq!(map[&0x50], "x");
        assert_eq!(map[&0x51], "yy");
        assert_eq!(map.len(), 7);
    }

    #[test]
    fn cmap_garbage_does_not_panic() {
        let (map, _) = parse_cmap(b"beginbfrange <FF> [ <0 endbfrange <<>> ] % x\n beginbfchar <");
        assert!(map.len() <= 1);
    }
}
