//! Page text extraction: a small content-stream interpreter on top of lopdf (PDF 32000-1:2008
//! §9.4 text objects, §8.4 graphics state, §8.10 form XObjects).
//!
//! Each shown string is placed in device space (text matrix × CTM); a space is inserted when the
//! gap to the previous string exceeds [`SPACE_GAP_EM`] of the font size (this covers `TJ`
//! kerning and explicit moves alike), a newline when the baseline moves by more than half the
//! font size, and a blank line when it moves by more than [`PARAGRAPH_GAP_EM`].
//! Ligatures (U+FB00–U+FB06) are expanded so `ﬁle` reads and greps as `file`.

use std::collections::HashMap;
use std::sync::Arc;

use lopdf::content::Content;
use lopdf::{Dictionary, Document, Object, ObjectId};

use super::fonts::{deref, FontInfo};

/// A horizontal gap wider than this many ems (of the current font size) becomes a space.
pub const SPACE_GAP_EM: f32 = 0.15;
/// A baseline move larger than this many ems becomes a blank line (paragraph break).
pub const PARAGRAPH_GAP_EM: f32 = 1.9;
/// Nested form XObjects deeper than this are not entered (guards cycles).
const MAX_FORM_DEPTH: usize = 6;

type Matrix = [f32; 6];
const IDENTITY: Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

/// `a × b` for PDF's row-vector affine matrices `[a b c d e f]`.
fn mul(a: &Matrix, b: &Matrix) -> Matrix {
    [
        a[0] * b[0] + a[1] * b[2],
        a[0] * b[1] + a[1] * b[3],
        a[2] * b[0] + a[3] * b[2],
        a[2] * b[1] + a[3] * b[3],
        a[4] * b[0] + a[5] * b[2] + b[4],
        a[4] * b[1] + a[5] * b[3] + b[5],
    ]
}

/// Extracts page text; caches fonts across pages of one document.
pub struct TextExtractor<'d> {
    doc: &'d Document,
    fonts: HashMap<ObjectId, Arc<FontInfo>>,
}

/// Graphics and text state that `q`/`Q` save and restore.
#[derive(Clone)]
struct State {
    ctm: Matrix,
    font: Option<Arc<FontInfo>>,
    size: f32,
    char_space: f32,
    word_space: f32,
    hscale: f32,
    leading: f32,
    rise: f32,
}

/// Where the text written so far ended, in device space.
struct Pen {
    out: String,
    last: Option<(f32, f32, f32)>, // x end, baseline y, font size (device units)
}

impl<'d> TextExtractor<'d> {
    /// An extractor over `doc`.
    pub fn new(doc: &'d Document) -> Self {
        TextExtractor {
            doc,
            fonts: HashMap::new(),
        }
    }

    /// The text of one page (`page_id` from [`Document::get_pages`]). Errors (one line) when the
    /// content stream cannot be read or decoded; operators after a decode error are lost.
    pub fn page_text(&mut self, page_id: ObjectId) -> Result<String, String> {
        let content = self
            .doc
            .get_page_content_with_limit(page_id, lopdf::DEFAULT_MAX_DECOMPRESSED_SIZE)
            .map_err(|e| format!("page content unreadable: {e}"))?;
        let resources = self.page_resources(page_id);
        let mut pen = Pen {
            out: String::new(),
            last: None,
        };
        let state = State {
            ctm: IDENTITY,
            font: None,
            size: 0.0,
            char_space: 0.0,
            word_space: 0.0,
            hscale: 1.0,
            leading: 0.0,
            rise: 0.0,
        };
        let result = self.run(&content, &resources, state, &mut pen, 0);
        let text = finish(&pen.out);
        result.map(|()| text)
    }

    /// The page's resource dictionaries, nearest first (page, then inherited from ancestors).
    fn page_resources(&self, page_id: ObjectId) -> Vec<&'d Dictionary> {
        let mut out = Vec::new();
        if let Ok((own, inherited)) = self.doc.get_page_resources(page_id) {
            out.extend(own);
            for id in inherited {
                if let Ok(d) = self.doc.get_dictionary(id) {
                    out.push(d);
                }
            }
        }
        out
    }

    fn font(&mut self, resources: &[&'d Dictionary], name: &[u8]) -> Option<Arc<FontInfo>> {
        let doc = self.doc;
        for res in resources {
            let Ok(fonts) = res.get_deref(b"Font", doc).and_then(Object::as_dict) else {
                continue;
            };
            let Ok(obj) = fonts.get(name) else { continue };
            if let Ok(id) = obj.as_reference() {
                if let Some(f) = self.fonts.get(&id) {
                    return Some(Arc::clone(f));
                }
                let dict = doc.get_dictionary(id).ok()?;
                let info = Arc::new(FontInfo::new(doc, dict));
                self.fonts.insert(id, Arc::clone(&info));
                return Some(info);
            }
            return obj.as_dict().ok().map(|d| Arc::new(FontInfo::new(doc, d)));
        }
        None
    }

    fn run(
        &mut self,
        content: &[u8],
        resources: &[&'d Dictionary],
        mut gs: State,
        pen: &mut Pen,
        depth: usize,
    ) -> Result<(), String> {
        let mut stack: Vec<State> = Vec::new();
        let mut tm = IDENTITY;
        let mut tlm = IDENTITY;
        for op in Content::decode_iter(content) {
            let op = op.map_err(|e| format!("content stream: {e}"))?;
            let nums: Vec<f32> = op
                .operands
                .iter()
                .filter_map(|o| o.as_float().ok())
                .collect();
            let num = |i: usize| nums.get(i).copied().unwrap_or(0.0);
            match op.operator.as_str() {
                "q" if stack.len() < 256 => stack.push(gs.clone()),
                "Q" => {
                    if let Some(s) = stack.pop() {
                        gs = s;
                    }
                }
                "cm" if nums.len() == 6 => {
                    gs.ctm = mul(&[num(0), num(1), num(2), num(3), num(4), num(5)], &gs.ctm);
                }
                "BT" => {
                    tm = IDENTITY;
                    tlm = IDENTITY;
                }
                "Tf" => {
                    gs.font = op
                        .operands
                        .first()
                        .and_then(|o| o.as_name().ok())
                        .and_then(|n| self.font(resources, n));
                    gs.size = op
                        .operands
                        .get(1)
                        .and_then(|o| o.as_float().ok())
                        .unwrap_or(0.0);
                }
                "Tc" => gs.char_space = num(0),
                "Tw" => gs.word_space = num(0),
                "Tz" => gs.hscale = num(0) / 100.0,
                "TL" => gs.leading = num(0),
                "Ts" => gs.rise = num(0),
                "Td" | "TD" => {
                    if op.operator == "TD" {
                        gs.leading = -num(1);
                    }
                    tlm = mul(&[1.0, 0.0, 0.0, 1.0, num(0), num(1)], &tlm);
                    tm = tlm;
                }
                "Tm" if nums.len() == 6 => {
                    tlm = [num(0), num(1), num(2), num(3), num(4), num(5)];
                    tm = tlm;
                }
                "T*" => {
                    tlm = mul(&[1.0, 0.0, 0.0, 1.0, 0.0, -gs.leading], &tlm);
                    tm = tlm;
                }
                "Tj" | "'" | "\"" | "TJ" => {
                    if op.operator != "Tj" && op.operator != "TJ" {
                        if op.operator == "\"" {
                            gs.word_space = num(0);
                            gs.char_space = num(1);
                        }
                        tlm = mul(&[1.0, 0.0, 0.0, 1.0, 0.0, -gs.leading], &tlm);
                        tm = tlm;
                    }
                    for operand in &op.operands {
                        match operand {
                            Object::String(bytes, _) => show(&gs, &mut tm, bytes, pen),
                            Object::Array(items) => {
                                for item in items {
                                    match item {
                                        Object::String(bytes, _) => show(&gs, &mut tm, bytes, pen),
                                        other => {
                                            let adj = other.as_float().unwrap_or(0.0);
                                            let tx = -adj / 1000.0 * gs.size * gs.hscale;
                                            tm = mul(&[1.0, 0.0, 0.0, 1.0, tx, 0.0], &tm);
                                        }
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
                "Do" if depth < MAX_FORM_DEPTH => {
                    if let Some(name) = op.operands.first().and_then(|o| o.as_name().ok()) {
                        self.run_form(resources, name, &gs, pen, depth);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Run a form XObject's content with its own matrix and resources; errors inside a form
    /// only cut that form short.
    fn run_form(
        &mut self,
        resources: &[&'d Dictionary],
        name: &[u8],
        gs: &State,
        pen: &mut Pen,
        depth: usize,
    ) {
        let doc = self.doc;
        let Some(stream) = resources.iter().find_map(|res| {
            let xobjects = res
                .get_deref(b"XObject", doc)
                .and_then(Object::as_dict)
                .ok()?;
            let obj = deref(doc, xobjects.get(name).ok()?);
            obj.as_stream().ok()
        }) else {
            return;
        };
        if stream.dict.get(b"Subtype").and_then(Object::as_name).ok() != Some(b"Form".as_slice()) {
            return;
        }
        let Ok(data) = stream.get_plain_content_with_limit(lopdf::DEFAULT_MAX_DECOMPRESSED_SIZE)
        else {
            return;
        };
        let mut inner = gs.clone();
        if let Ok(m) = stream
            .dict
            .get_deref(b"Matrix", doc)
            .and_then(Object::as_array)
        {
            let m: Vec<f32> = m.iter().filter_map(|v| v.as_float().ok()).collect();
            if m.len() == 6 {
                inner.ctm = mul(&[m[0], m[1], m[2], m[3], m[4], m[5]], &gs.ctm);
            }
        }
        let mut res: Vec<&'d Dictionary> = Vec::new();
        if let Ok(own) = stream
            .dict
            .get_deref(b"Resources", doc)
            .and_then(Object::as_dict)
        {
            res.push(own);
        }
        res.extend_from_slice(resources);
        // A broken form loses only its own remaining text.
        let _ = self.run(&data, &res, inner, pen, depth + 1);
    }
}

/// Append one shown string to `pen`, advancing the text matrix `tm` by its glyph widths.
fn show(gs: &State, tm: &mut Matrix, bytes: &[u8], pen: &mut Pen) {
    let Some(font) = gs.font.as_deref() else {
        return;
    };
    let trm = mul(
        &[gs.size * gs.hscale, 0.0, 0.0, gs.size, 0.0, gs.rise],
        &mul(tm, &gs.ctm),
    );
    let (x, y) = (trm[4], trm[5]);
    let size = (trm[2] * trm[2] + trm[3] * trm[3]).sqrt().max(0.1);
    let mut text = String::new();
    let mut advance = 0.0;
    for code in font.codes(bytes) {
        text.push_str(font.text(code));
        let space = if font.code_len == 1 && code == 32 {
            gs.word_space
        } else {
            0.0
        };
        advance += (font.width(code) * gs.size + gs.char_space + space) * gs.hscale;
    }
    *tm = mul(&[1.0, 0.0, 0.0, 1.0, advance, 0.0], tm);
    let end = mul(&[1.0, 0.0, 0.0, 1.0, 0.0, gs.rise], &mul(tm, &gs.ctm))[4];
    if text.is_empty() {
        return;
    }
    if let Some((last_x, last_y, last_size)) = pen.last {
        let em = size.max(last_size);
        let dy = (y - last_y).abs();
        if dy > 0.5 * em {
            if dy > PARAGRAPH_GAP_EM * em && !pen.out.ends_with("\n\n") {
                pen.out.push_str("\n\n");
            } else if !pen.out.ends_with('\n') {
                pen.out.push('\n');
            }
        } else {
            let gap = x - last_x;
            if (gap > SPACE_GAP_EM * em || gap < -3.0 * em)
                && !pen.out.ends_with(char::is_whitespace)
                && !text.starts_with(char::is_whitespace)
            {
                pen.out.push(' ');
            }
        }
    }
    pen.out.push_str(&text);
    pen.last = Some((end, y, size));
}

/// Clean raw page text: expand ligatures, drop control characters and U+FFFD, trim line ends.
fn finish(raw: &str) -> String {
    let mut s = String::with_capacity(raw.len());
    for c in raw.chars() {
        match c {
            '\u{FB00}' => s.push_str("ff"),
            '\u{FB01}' => s.push_str("fi"),
            '\u{FB02}' => s.push_str("fl"),
            '\u{FB03}' => s.push_str("ffi"),
            '\u{FB04}' => s.push_str("ffl"),
            '\u{FB05}' | '\u{FB06}' => s.push_str("st"),
            '\u{FFFD}' => {}
            '\t' => s.push(' '),
            '\n' => s.push('\n'),
            '\u{A0}' => s.push(' '),
            c if c.is_control() => {}
            c => s.push(c),
        }
    }
    let lines: Vec<&str> = s.lines().map(str::trim_end).collect();
    lines.join("\n").trim().to_string()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn matrix_product_composes_translations_and_scales() {
        let scale = [2.0, 0.0, 0.0, 2.0, 0.0, 0.0];
        let shift = [1.0, 0.0, 0.0, 1.0, 10.0, 5.0];
        assert_eq!(mul(&scale, &shift), [2.0, 0.0, 0.0, 2.0, 10.0, 5.0]);
        assert_eq!(mul(&shift, &scale), [2.0, 0.0, 0.0, 2.0, 20.0, 10.0]);
    }

    #[test]
    fn finish_expands_ligatures_and_trims() {
        assert_eq!(
            finish("  \u{FB01}le \u{FB02}ow\u{0}  \n\u{FFFD}x  \n"),
            "file flow\nx"
        );
    }
}
