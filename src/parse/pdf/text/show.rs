//! One shown string (`Tj`, `'`, `"`, a string of `TJ`) written onto the page's lines: its
//! glyphs laid out along the baseline, where it joins the line before (a new line, a word
//! space, a new cell, a raised mark), and the line's text, cells and type updated.

use super::{
    is_mark, mul, push_clean, LineBuf, Matrix, Pen, State, CELL_GAP_EM, FOOTNOTE_SIZE_RATIO,
    PARAGRAPH_GAP_EM, SPACE_GAP_EM, SPLIT_SPACE_OVERLAP_EM,
};
use crate::parse::pdf::fonts::FontInfo;

/// Append one shown string to `pen`, advancing the text matrix `tm` by its glyph widths.
pub(super) fn show(gs: &State, tm: &mut Matrix, bytes: &[u8], pen: &mut Pen) {
    let Some(font) = gs.font.as_deref() else {
        return;
    };
    let trm = mul(
        &[gs.size * gs.hscale, 0.0, 0.0, gs.size, 0.0, gs.rise],
        &mul(tm, &gs.ctm),
    );
    let (x, y) = (trm[4], trm[5]);
    let size = (trm[2] * trm[2] + trm[3] * trm[3]).sqrt().max(0.1);
    let glyphs = lay_out(gs, font, bytes);
    *tm = mul(&[1.0, 0.0, 0.0, 1.0, glyphs.advance, 0.0], tm);
    // Where the last glyph ends: a wide character spacing after it is a gap, not ink (groff's
    // `. A` with 5.8 units of `Tc`, then `variable` drawn inside that spacing).
    let trailing = if glyphs.spaced {
        gs.char_space * gs.hscale
    } else {
        0.0
    };
    let end = mul(&[1.0, 0.0, 0.0, 1.0, -trailing, gs.rise], &mul(tm, &gs.ctm))[4];
    if glyphs.text.is_empty() {
        return;
    }
    // The ink's extent in device space (the string's start and end when it is all blank).
    let start_matrix = mul(
        &[1.0, 0.0, 0.0, 1.0, -glyphs.advance, gs.rise],
        &mul(tm, &gs.ctm),
    );
    let at = |offset: f32| mul(&[1.0, 0.0, 0.0, 1.0, offset, 0.0], &start_matrix)[4];
    let (ink_x0, ink_x1) = glyphs.ink.map_or((x, end), |(a, b)| (at(a), at(b)));
    let shown = Shown {
        x,
        y,
        size,
        end,
        inked: glyphs.ink.is_some(),
        ink_x0,
        ink_x1,
        runs: glyphs
            .runs
            .iter()
            .map(|&(offset, a, b)| (offset, at(a), at(b)))
            .collect(),
        text: glyphs.text,
    };
    let joint = joint(pen, &shown);
    let space_over_ink = note_split_space(pen, &shown);
    write(pen.current(x, y, false), &shown, joint, font.bold);
    pen.last = Some((end, y, size));
    pen.overlapping_space = space_over_ink;
    if shown.inked {
        pen.last_ink = Some(ink_x1);
    }
}

/// A string's glyphs along its baseline, in unscaled text-space advances from its start.
struct Glyphs {
    /// The text, cleaned ([`push_clean`]).
    text: String,
    /// The advance of the whole string.
    advance: f32,
    /// True when character spacing wider than a word gap spaces out every glyph.
    spaced: bool,
    /// Where ink starts and ends along the string (blank glyphs padding a table cell are none).
    ink: Option<(f32, f32)>,
    /// Runs of ink apart by blank glyphs wider than a cell gap (a table row drawn as one string
    /// padded with spaces): (byte offset in `text`, ink start, ink end).
    runs: Vec<(usize, f32, f32)>,
}

/// Lay out the glyphs of `bytes` in `font` under the text state `gs`.
fn lay_out(gs: &State, font: &FontInfo, bytes: &[u8]) -> Glyphs {
    let mut text = String::new();
    let mut advance = 0.0;
    // Character spacing wider than a word gap spaces out every glyph (groff sets `. If` as the
    // one string `.I` with 5.7 units of `Tc`, then `ft`).
    let spaced = gs.char_space > SPACE_GAP_EM * gs.size.abs();
    let mut ink: Option<(f32, f32)> = None;
    let mut runs: Vec<(usize, f32, f32)> = Vec::new();
    let cell_gap = CELL_GAP_EM * (gs.size * gs.hscale).abs();
    for code in font.codes(bytes) {
        if spaced && !text.is_empty() && !text.ends_with(' ') {
            text.push(' ');
        }
        let written = text.len();
        let glyph = font.text(code);
        let space = if font.code_len == 1 && code == 32 {
            gs.word_space
        } else {
            0.0
        };
        let glyph_advance = (font.width(code) * gs.size + gs.char_space + space) * gs.hscale;
        // A space glyph that negative character or word spacing narrows below a word gap is a
        // kerning device, no word break: groff draws `iv e` with −0.25 of `Tc` and −2.15 of
        // `Tw` to set `v` and `e` 0.1 pt apart ("given").
        let kerning_space = !glyph.is_empty()
            && glyph.chars().all(|c| c == ' ' || c == '\u{A0}')
            && font.width(code) > 0.0
            && gs.char_space + space < 0.0
            && glyph_advance.abs() < SPACE_GAP_EM * gs.size.abs();
        if !kerning_space {
            push_clean(&mut text, glyph);
        }
        let inked = !text[written..].trim().is_empty();
        let before = advance;
        let width = font.width(code) * gs.size * gs.hscale;
        advance += glyph_advance;
        if inked {
            ink = Some((ink.map_or(before, |i| i.0), before + width));
            match runs.last_mut() {
                Some(run) if spaced || before - run.2 <= cell_gap => run.2 = before + width,
                _ => runs.push((written, before, before + width)),
            }
        }
    }
    Glyphs {
        text,
        advance,
        spaced,
        ink,
        runs,
    }
}

/// A non-empty string placed in device space (x and sizes in device units).
struct Shown {
    text: String,
    /// Where the string starts, on its baseline `y`.
    x: f32,
    y: f32,
    /// Its font size.
    size: f32,
    /// Where it ends (x), a wide character spacing after its last glyph left out.
    end: f32,
    /// True when any glyph has ink.
    inked: bool,
    /// Where its ink starts and ends (x); its start and `end` when it is all blank.
    ink_x0: f32,
    ink_x1: f32,
    /// Its runs of ink ([`Glyphs::runs`]): byte offset in `text`, left and right edge.
    runs: Vec<(usize, f32, f32)>,
}

/// How a string joins the text on its line before it.
#[derive(Debug, Clone, Copy)]
struct Joint {
    /// A space goes between them.
    separate: bool,
    /// The string starts a cell ([`super::TextLine::cells`]).
    new_cell: bool,
    /// The string is a raised mark ([`is_mark`]) after other text.
    mark: bool,
    /// The string continues the mark before it (a mark drawn in pieces).
    extends_mark: bool,
}

/// The joint of a string that starts a line.
const LINE_START: Joint = Joint {
    separate: false,
    new_cell: true,
    mark: false,
    extends_mark: false,
};

/// Where `s` joins the text written before it: a baseline move of more than half an em starts
/// a new line in `pen` (a paragraph after [`PARAGRAPH_GAP_EM`]); on the same baseline, a gap
/// wider than [`SPACE_GAP_EM`] is a space and one wider than [`CELL_GAP_EM`] a new cell.
fn joint(pen: &mut Pen, s: &Shown) -> Joint {
    let Some((last_x, last_y, last_size)) = pen.last else {
        return LINE_START;
    };
    let em = s.size.max(last_size);
    let dy = (s.y - last_y).abs();
    if dy > 0.5 * em {
        start_line(pen, s, dy > PARAGRAPH_GAP_EM * em);
        return LINE_START;
    }
    let (x, y, size, text) = (s.x, s.y, s.size, s.text.as_str());
    let gap = x - last_x;
    let last_ink = pen.last_ink;
    let line = pen.current(x, y, false);
    let mark = size <= FOOTNOTE_SIZE_RATIO * last_size
        && y > last_y + 0.1 * last_size
        && is_mark(text.trim())
        && !line.text.trim().is_empty();
    // A mark drawn in pieces (`2`, then `3`: two references side by side) is one.
    let mut extends_mark = false;
    if let Some((at, m)) = line.marks.last() {
        extends_mark = line.text[*at..].trim_start() == m.as_str()
            && (y - last_y).abs() < 0.1 * last_size
            && (size - last_size).abs() < 0.05 * last_size
            && gap <= SPACE_GAP_EM * em
            && !text.starts_with(char::is_whitespace)
            && is_mark(&format!("{m}{}", text.trim_end()));
    }
    let footnote = mark
        && text.chars().all(|c| c.is_ascii_digit())
        && line.text.ends_with(char::is_alphabetic);
    let separate = !extends_mark
        && (footnote || gap > SPACE_GAP_EM * em || gap < -3.0 * em)
        && !line.text.ends_with(char::is_whitespace)
        && !text.starts_with(char::is_whitespace);
    // An amount drawn right after another starts a cell even when the gap is narrow:
    // a `$` set just after the previous column's figure (`213,883 $ 225,847`).
    let figure_after_figure = gap > SPACE_GAP_EM * em
        && line
            .text
            .trim_end()
            .ends_with(|c: char| c.is_ascii_digit() || c == ')' || c == '%')
        && text
            .trim_start()
            .starts_with(|c: char| c.is_ascii_digit() || "$€£¥(—–".contains(c));
    let ink_gap = last_ink.map_or(gap, |end| s.ink_x0 - end);
    let new_cell = !mark
        && !extends_mark
        && (ink_gap > CELL_GAP_EM * em || gap < -3.0 * em || figure_after_figure);
    Joint {
        separate,
        new_cell,
        mark,
        extends_mark,
    }
}

/// Start a new line in `pen` for `s` (`para`: after a paragraph gap); a line of only spaces
/// before it is reused, the new text taking its place.
fn start_line(pen: &mut Pen, s: &Shown, para: bool) {
    pen.last_ink = None;
    let empty = pen.lines.last().is_some_and(|l| l.text.trim().is_empty());
    if empty {
        if let Some(l) = pen.lines.last_mut() {
            l.para_before |= para;
            l.text.clear();
            (l.x, l.y, l.x_end) = (s.x, s.y, s.x);
            l.sizes.clear();
            l.marks.clear();
            l.cells.clear();
            (l.bold_chars, l.chars) = (0, 0);
        }
    } else {
        pen.new_line(s.x, s.y, para);
    }
}

/// Record on the current line a split space ([`super::TextLine::split_spaces`]) that `s`
/// completes: the lone space drawn before it over the ink of the letter before, with `s`'s ink
/// starting over the space's own end. Returns what [`Pen::overlapping_space`] holds next: `s`
/// itself when it is such a lone space.
fn note_split_space(pen: &mut Pen, s: &Shown) -> Option<(usize, usize, f32, f32)> {
    let overlapping_space = pen.overlapping_space.take();
    let last_ink = pen.last_ink;
    let line_index = pen.lines.len().saturating_sub(1);
    let line = pen.current(s.x, s.y, false);
    if let Some((at, space_end, space_size)) = overlapping_space
        .filter(|(index, ..)| *index == line_index)
        .map(|(_, at, end, size)| (at, end, size))
    {
        if s.inked
            && s.ink_x0 < space_end - SPLIT_SPACE_OVERLAP_EM * space_size
            && s.text.starts_with(char::is_alphabetic)
            && line.text.len() == at + 1
        {
            line.split_spaces.push(at);
        }
    }
    if !s.inked && s.text == " " {
        if let Some(last_ink) = last_ink {
            if s.x < last_ink - SPLIT_SPACE_OVERLAP_EM * s.size
                && line.text.ends_with(char::is_alphabetic)
            {
                return Some((line_index, line.text.len(), s.end, s.size));
            }
        }
    }
    None
}

/// Append `s` to `line` as `joint` says: its mark, the space before it, its ink's extent, its
/// cells, its text and its characters' size and weight (`bold`: its font's).
fn write(line: &mut LineBuf, s: &Shown, joint: Joint, bold: bool) {
    if joint.extends_mark {
        if let Some((_, m)) = line.marks.last_mut() {
            m.push_str(s.text.trim_end());
        }
    } else if joint.mark {
        line.marks
            .push((line.text.len(), s.text.trim().to_string()));
    }
    if joint.separate {
        line.text.push(' ');
    }
    if s.inked {
        // Blank strings drawn first (an empty table cell) do not place the line.
        if line.text.trim().is_empty() && !line.text.is_empty() {
            line.x = s.ink_x0;
            line.x_end = s.ink_x1;
        }
        line.x_end = line.x_end.max(s.ink_x1);
    }
    let base = line.text.len();
    for (k, &(offset, x0, x1)) in s.runs.iter().enumerate() {
        if k > 0 || joint.new_cell || line.cells.is_empty() {
            line.cells
                .push((if k == 0 { base } else { base + offset }, x0, x1));
        } else if let Some(cell) = line.cells.last_mut() {
            cell.2 = cell.2.max(x1);
        }
    }
    if s.runs.is_empty() && line.cells.is_empty() {
        line.cells.push((base, s.ink_x0, s.ink_x1));
    }
    let chars = s.text.chars().filter(|c| !c.is_whitespace()).count();
    line.text.push_str(&s.text);
    line.chars += chars;
    if bold {
        line.bold_chars += chars;
    }
    match line
        .sizes
        .iter_mut()
        .find(|(size, _)| (*size - s.size).abs() < 0.05)
    {
        Some((_, n)) => *n += chars,
        None => line.sizes.push((s.size, chars)),
    }
}
