//! Page text extraction: a small content-stream interpreter on top of lopdf (PDF 32000-1:2008
//! §9.4 text objects, §8.4 graphics state, §8.10 form XObjects).
//!
//! Each shown string is placed in device space (text matrix × CTM); a space is inserted when the
//! gap to the previous string exceeds [`SPACE_GAP_EM`] of the font size (this covers `TJ`
//! kerning and explicit moves alike), a new line starts when the baseline moves by more than
//! half the font size, and that line is marked as a new paragraph when it moves by more than
//! [`PARAGRAPH_GAP_EM`]. Each [`TextLine`] keeps where it was drawn and in which type (size,
//! weight), for furniture removal and heading detection.
//! Ligatures (U+FB00–U+FB06) are expanded so `ﬁle` reads and greps as `file`. Digits set in a
//! clearly smaller font, raised, right after a letter (a footnote marker: `critical¹²`) are
//! separated from the word by a space (`critical 12`), so the word stays searchable.
//! Work per page is bounded ([`super::budget`]).

use std::collections::HashMap;
use std::sync::Arc;

use lopdf::content::Content;
use lopdf::{Dictionary, Document, Object, ObjectId};

use super::budget::{Meter, OverBudget, PageBudget};
use super::fonts::{deref, FontInfo};

mod show;
use show::show;

/// A horizontal gap wider than this many ems (of the current font size) becomes a space.
pub const SPACE_GAP_EM: f32 = 0.15;
/// A baseline move larger than this many ems becomes a blank line (paragraph break).
pub const PARAGRAPH_GAP_EM: f32 = 1.9;
/// A string in a font at most this fraction of the previous one's size, raised, made of digits,
/// right after a letter, is a footnote marker (separated by a space).
pub const FOOTNOTE_SIZE_RATIO: f32 = 0.8;
/// A horizontal gap wider than this many ems starts a new cell ([`TextLine::cells`]): wider
/// than any word gap of justified text, narrower than the gutter between table columns (and
/// between a `$` and its right-aligned amount).
pub const CELL_GAP_EM: f32 = 1.0;
/// A space drawn this many ems (or more) over the end of the glyph before it, with the next
/// glyph drawn as far over the space's own end, may be no word break ([`TextLine::split_spaces`]).
pub const SPLIT_SPACE_OVERLAP_EM: f32 = 0.005;
/// A line is bold when at least this share (percent) of its characters are.
pub const BOLD_LINE_PERCENT: usize = 85;
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

/// One line of page text: consecutive strings on one baseline, in content-stream order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TextLine {
    /// The text, ligatures expanded, control characters dropped, no trailing whitespace.
    pub text: String,
    /// Left edge of the first string, device space (points from the page origin).
    pub x: f32,
    /// Right edge of the line's rightmost glyph, device space (points).
    pub x_end: f32,
    /// Baseline of the first string, device space (points; larger is higher on the page).
    pub y: f32,
    /// Font size (device points) of the most characters of the line.
    pub size: f32,
    /// True when at least 85% (`BOLD_LINE_PERCENT`) of its characters are set in a bold font
    /// (`FontInfo::bold`): a bold line, not a line with bold words.
    pub bold: bool,
    /// True when a paragraph gap (a baseline move of more than 1.9 ems, `PARAGRAPH_GAP_EM`)
    /// separates it from the line before.
    pub para_before: bool,
    /// Raised marks set after other text on the line (see `is_mark`): the byte offset in
    /// `text` where the mark starts (at the space put before it, if any) and the mark
    /// (`12`, `*`). A footnote reference is one of these; so is an exponent (`10²`).
    pub marks: Vec<(usize, String)>,
    /// Footnotes whose reference sits on this line, each written `[^N]: text`
    /// (`footnotes`): moved here from the page bottom, rendered at the end of the
    /// section holding the line.
    pub notes: Vec<String>,
    /// The line's cells when gaps wider than 1 em (`CELL_GAP_EM`) split it (table cells, a label
    /// and its value): each cell's text and horizontal extent. Empty when the line is one run
    /// of text. Stale after a later stage rewrote `text` (hyphenation joins prose lines);
    /// [`TextLine::cell_texts_match`] tells.
    pub cells: Vec<Cell>,
    /// True for a line the parser's `tables` step rewrote as a row of a table (header,
    /// delimiter or body row): never a heading, never running text.
    pub in_table: bool,
    /// Byte offsets in `text` of spaces that may split a word: a space drawn as a string of its own
    /// over the end of the letter before it, with the next letter drawn over the space's own end
    /// (by 0.005 em or more each, `SPLIT_SPACE_OVERLAP_EM`). Some HTML-to-PDF producers set a word
    /// this way ("LIQUIDI TY", "Incom e"); the `spacing` step rejoins those the document confirms.
    /// Stale, like `cells`, once a later stage rewrote `text`.
    pub split_spaces: Vec<usize>,
}

/// A run of text on a line, apart from its neighbours by more than [`CELL_GAP_EM`].
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// The run's text, trimmed.
    pub text: String,
    /// Left edge, device space (points).
    pub x0: f32,
    /// Right edge (where its last glyph ends), device space (points).
    pub x1: f32,
}

impl TextLine {
    /// True when `cells` still spell `text` (cells in order, whitespace between them), i.e. no
    /// later stage rewrote the line.
    pub fn cell_texts_match(&self) -> bool {
        let mut rest = self.text.as_str();
        for cell in &self.cells {
            let Some(r) = rest.trim_start().strip_prefix(cell.text.as_str()) else {
                return false;
            };
            rest = r;
        }
        rest.trim().is_empty()
    }
}

/// True for a string that can be a footnote mark: one to three ASCII digits, or one of the
/// symbols `*†‡§¶` (a symbol possibly doubled: `**`, `††`).
pub fn is_mark(s: &str) -> bool {
    let n = s.chars().count();
    (1..=3).contains(&n)
        && (s.chars().all(|c| c.is_ascii_digit())
            || (n <= 2
                && s.chars()
                    .all(|c| "*\u{2020}\u{2021}\u{a7}\u{b6}".contains(c))))
}

/// Why a page gave no text.
#[derive(Debug, Clone, PartialEq)]
pub enum PageError {
    /// The content could not be read or decoded (one line); the page's text is lost.
    Unreadable(String),
    /// The page passed its work bound.
    OverBudget(OverBudget),
}

/// Extracts page text; caches fonts across pages of one document.
pub struct TextExtractor<'d> {
    doc: &'d Document,
    fonts: HashMap<ObjectId, Arc<FontInfo>>,
    budget: PageBudget,
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

/// A line being written: its text and how many characters were set at which size / in bold.
struct LineBuf {
    text: String,
    x: f32,
    x_end: f32,
    y: f32,
    para_before: bool,
    sizes: Vec<(f32, usize)>,
    bold_chars: usize,
    chars: usize,
    marks: Vec<(usize, String)>,
    /// Byte offset in `text` where each cell starts, with its left edge and right edge.
    cells: Vec<(usize, f32, f32)>,
    /// See [`TextLine::split_spaces`] (offsets in `text` before trimming).
    split_spaces: Vec<usize>,
}

/// The lines written so far and where the last string ended, in device space.
struct Pen {
    lines: Vec<LineBuf>,
    last: Option<(f32, f32, f32)>, // x end, baseline y, font size (device units)
    /// Where the ink of the last string with any ended (x, device units).
    last_ink: Option<f32>,
    /// A lone space drawn over the end of the letter before it (see
    /// [`TextLine::split_spaces`]): its line's index, byte offset, where it ends (x, device
    /// units) and its font size.
    overlapping_space: Option<(usize, usize, f32, f32)>,
}

impl Pen {
    fn current(&mut self, x: f32, y: f32, para_before: bool) -> &mut LineBuf {
        if self.lines.is_empty() {
            self.new_line(x, y, para_before);
        }
        let n = self.lines.len() - 1;
        &mut self.lines[n]
    }

    fn new_line(&mut self, x: f32, y: f32, para_before: bool) {
        self.lines.push(LineBuf {
            text: String::new(),
            x,
            x_end: x,
            y,
            para_before,
            sizes: Vec::new(),
            bold_chars: 0,
            chars: 0,
            marks: Vec::new(),
            cells: Vec::new(),
            split_spaces: Vec::new(),
        });
    }
}

impl<'d> TextExtractor<'d> {
    /// An extractor over `doc` reading each page under `budget`.
    pub fn new(doc: &'d Document, budget: PageBudget) -> Self {
        TextExtractor {
            doc,
            fonts: HashMap::new(),
            budget,
        }
    }

    /// The lines of one page (`page_id` from [`Document::get_pages`]), in content-stream order,
    /// without empty lines. Errors: [`PageError::Unreadable`] when the content stream cannot be
    /// read or decoded (operators after a decode error are lost; the lines before it are
    /// discarded too), [`PageError::OverBudget`] when the page passes the work bound.
    pub fn page_lines(&mut self, page_id: ObjectId) -> Result<Vec<TextLine>, PageError> {
        let mut meter = Meter::new(self.budget);
        let content = match self
            .doc
            .get_page_content_with_limit(page_id, meter.bytes_left())
        {
            Ok(c) => c,
            Err(lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded {
                ..
            })) => return Err(PageError::OverBudget(meter.bytes_exceeded())),
            Err(e) => {
                return Err(PageError::Unreadable(format!(
                    "page content unreadable: {e}"
                )))
            }
        };
        meter
            .charge_bytes(content.len())
            .map_err(PageError::OverBudget)?;
        let resources = self.page_resources(page_id);
        let mut pen = Pen {
            lines: Vec::new(),
            last: None,
            last_ink: None,
            overlapping_space: None,
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
        self.run(&content, &resources, state, &mut pen, &mut meter, 0)?;
        Ok(finish(pen.lines))
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
        let limit = self.budget.max_bytes;
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
                let info = Arc::new(FontInfo::new(doc, dict, limit));
                self.fonts.insert(id, Arc::clone(&info));
                return Some(info);
            }
            return obj
                .as_dict()
                .ok()
                .map(|d| Arc::new(FontInfo::new(doc, d, limit)));
        }
        None
    }

    /// Interpret `content`. Errors: a decode error (the caller decides whether it loses the
    /// page or only a form) or the work bound.
    fn run(
        &mut self,
        content: &[u8],
        resources: &[&'d Dictionary],
        mut gs: State,
        pen: &mut Pen,
        meter: &mut Meter,
        depth: usize,
    ) -> Result<(), PageError> {
        let mut stack: Vec<State> = Vec::new();
        let mut tm = IDENTITY;
        let mut tlm = IDENTITY;
        for op in Content::decode_iter(content) {
            meter.charge_operator().map_err(PageError::OverBudget)?;
            let op = op.map_err(|e| PageError::Unreadable(format!("content stream: {e}")))?;
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
                        self.run_form(resources, name, &gs, pen, meter, depth)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Run a form XObject's content with its own matrix and resources; a decode error inside a
    /// form only cuts that form short, the work bound stops the page.
    fn run_form(
        &mut self,
        resources: &[&'d Dictionary],
        name: &[u8],
        gs: &State,
        pen: &mut Pen,
        meter: &mut Meter,
        depth: usize,
    ) -> Result<(), PageError> {
        let doc = self.doc;
        let Some(stream) = resources.iter().find_map(|res| {
            let xobjects = res
                .get_deref(b"XObject", doc)
                .and_then(Object::as_dict)
                .ok()?;
            let obj = deref(doc, xobjects.get(name).ok()?);
            obj.as_stream().ok()
        }) else {
            return Ok(());
        };
        if stream.dict.get(b"Subtype").and_then(Object::as_name).ok() != Some(b"Form".as_slice()) {
            return Ok(());
        }
        let data = match stream.get_plain_content_with_limit(meter.bytes_left()) {
            Ok(data) => data,
            Err(lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded {
                ..
            })) => return Err(PageError::OverBudget(meter.bytes_exceeded())),
            Err(_) => return Ok(()),
        };
        meter
            .charge_bytes(data.len())
            .map_err(PageError::OverBudget)?;
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
        match self.run(&data, &res, inner, pen, meter, depth + 1) {
            // A broken form loses only its own remaining text.
            Err(PageError::Unreadable(_)) | Ok(()) => Ok(()),
            Err(over) => Err(over),
        }
    }
}

/// Append `s` cleaned: ligatures expanded, tabs and no-break spaces as spaces, control
/// characters and U+FFFD dropped.
fn push_clean(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '\u{FB00}' => out.push_str("ff"),
            '\u{FB01}' => out.push_str("fi"),
            '\u{FB02}' => out.push_str("fl"),
            '\u{FB03}' => out.push_str("ffi"),
            '\u{FB04}' => out.push_str("ffl"),
            '\u{FB05}' | '\u{FB06}' => out.push_str("st"),
            '\u{FFFD}' => {}
            '\t' | '\u{A0}' | '\n' | '\r' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
}

/// Finished lines: trailing and leading whitespace trimmed, empty lines dropped (a dropped
/// line's paragraph gap passes to the next line).
fn finish(raw: Vec<LineBuf>) -> Vec<TextLine> {
    let mut out: Vec<TextLine> = Vec::with_capacity(raw.len());
    let mut pending_para = false;
    for l in raw {
        let text = l.text.trim();
        let lead = l.text.len() - l.text.trim_start().len();
        if text.is_empty() {
            pending_para |= l.para_before;
            continue;
        }
        let size = l
            .sizes
            .iter()
            .max_by_key(|(_, n)| *n)
            .map_or(0.0, |(s, _)| *s);
        out.push(TextLine {
            text: text.to_string(),
            x: l.x,
            x_end: l.x_end,
            y: l.y,
            size,
            bold: l.chars > 0 && l.bold_chars * 100 >= l.chars * BOLD_LINE_PERCENT,
            para_before: (l.para_before || pending_para) && !out.is_empty(),
            marks: l
                .marks
                .into_iter()
                .filter_map(|(at, m)| Some((at.checked_sub(lead)?, m)))
                .filter(|(at, _)| *at < text.len())
                .collect(),
            notes: Vec::new(),
            cells: cells_of(&l.text, lead, &l.cells),
            in_table: false,
            split_spaces: l
                .split_spaces
                .iter()
                .filter_map(|at| at.checked_sub(lead))
                .filter(|at| text.as_bytes().get(*at) == Some(&b' '))
                .collect(),
        });
        pending_para = false;
    }
    out
}

/// The cells of a finished line (see [`TextLine::cells`]): `starts` are `(byte offset in
/// raw, left edge, right edge)`; `lead` bytes of leading whitespace were trimmed off `raw`.
/// Empty when the line is one run of text; cells without text are dropped.
fn cells_of(raw: &str, lead: usize, starts: &[(usize, f32, f32)]) -> Vec<Cell> {
    if starts.len() < 2 {
        return Vec::new();
    }
    let cells: Vec<Cell> = starts
        .iter()
        .enumerate()
        .filter_map(|(i, &(at, x0, x1))| {
            let end = starts.get(i + 1).map_or(raw.len(), |n| n.0);
            let text = raw.get(at.max(lead)..end)?.trim();
            (!text.is_empty()).then(|| Cell {
                text: text.to_string(),
                x0,
                x1,
            })
        })
        .collect();
    if cells.len() < 2 {
        Vec::new()
    } else {
        cells
    }
}

#[cfg(test)]
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
    fn cleaning_expands_ligatures_and_drops_controls() {
        let mut s = String::new();
        push_clean(&mut s, "\u{FB01}le \u{FB02}ow\u{0}\tx\u{FFFD}");
        assert_eq!(s, "file flow x");
    }

    fn buf(text: &str, para_before: bool) -> LineBuf {
        LineBuf {
            text: text.into(),
            x: 0.0,
            x_end: 0.0,
            y: 0.0,
            para_before,
            sizes: vec![(10.0, 3), (12.0, 1)],
            bold_chars: 2,
            chars: 4,
            marks: Vec::new(),
            cells: Vec::new(),
            split_spaces: Vec::new(),
        }
    }

    #[test]
    fn empty_lines_pass_their_paragraph_gap_on() {
        let lines = finish(vec![buf("  a ", false), buf("  ", true), buf("b", false)]);
        let texts: Vec<(&str, bool)> = lines
            .iter()
            .map(|l| (l.text.as_str(), l.para_before))
            .collect();
        assert_eq!(texts, vec![("a", false), ("b", true)]);
        assert_eq!(lines[0].size, 10.0);
        assert!(!lines[0].bold);
    }
}
