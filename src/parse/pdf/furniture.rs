//! Page furniture: running headers, running footers and page numbers.
//!
//! Only the lines at a page's top and bottom edge are candidates: the highest (lowest) baseline
//! and the lines sharing it, then — once those are furniture — the next one in, at most
//! [`MAX_PEEL`] baselines per edge. A candidate is furniture when one of these holds:
//! 1. it is a bare page number: `12`, `xiv`, `- 4 -`, `Page 3`, `3 / 50`;
//! 2. it carries the printed page number as its first or last word (`9.5. Cron jobs 87`,
//!    `996 lines`): the physical page plus the document's dominant offset (the offset most
//!    candidates agree on, kept when at least [`MIN_OFFSET_PAGES`] pages and
//!    [`MIN_OFFSET_SHARE`] of them carry it), in a slot (top or bottom edge, first or last word)
//!    where at least [`MIN_SLOT_PAGES`] pages carry it — so GS9's heading `1 Introduction` at
//!    the top of printed page 1 stays, its page numbers being the last word of the header;
//! 3. it is the outermost line of its edge, its text (case and spacing aside) is the outermost
//!    line of that edge on at least [`MIN_REPEAT_PAGES`] pages (`Debian Policy Manual, Release
//!    4.6.2.0`, fhs's `The Root Filesystem`), and it stands apart from the body: a gap of at
//!    least [`HEADER_GAP_PITCHES`] line pitches to the next line inward.
//!
//! The gap condition keeps headings out: a heading opening many pages sits ~1.5 pitches above
//! its text, while headers and footers sit 2.3–4 pitches away from the body in every corpus
//! PDF. Rule 3 compares whole texts, digits included, so numbered headings that look alike
//! (`22.3 Version 4.6.1`, `22.6 Version 4.5.0`) are not taken for a running line.

use std::collections::HashMap;

use super::text::TextLine;

/// Edge baselines examined per page edge (a header line, then e.g. a rule-separated subtitle).
pub const MAX_PEEL: usize = 2;
/// A repeated edge line counts as furniture from this many pages on.
pub const MIN_REPEAT_PAGES: usize = 3;
/// Gap between a repeated edge line and the body, in line pitches, that marks it as furniture.
pub const HEADER_GAP_PITCHES: f32 = 2.0;
/// A printed page-number offset needs this many pages carrying it.
pub const MIN_OFFSET_PAGES: usize = 3;
/// … and this share of the pages with edge candidates.
pub const MIN_OFFSET_SHARE: f32 = 0.2;
/// A slot (edge and word position) counts for page numbers from this many pages on, and so
/// does a second offset near the dominant one.
pub const MIN_SLOT_PAGES: usize = 2;
/// Other offsets within this many pages of the dominant one also count (a page skipped in an
/// excerpt or a scan: the Vicksburg sample's printed pages run 49, 50, 52, 53…).
pub const MAX_OFFSET_DRIFT: i64 = 5;
/// Two baselines within this many points are the same line position.
const SAME_BASELINE: f32 = 1.5;

/// What [`remove_furniture`] dropped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Removed {
    /// Lines dropped, all pages.
    pub lines: usize,
    /// The printed page number's offset from the physical page number, when one was found.
    pub page_offset: Option<i64>,
}

/// An edge line: page index, line index, its edge, its gap to the next baseline inward (line
/// pitches) and its depth (0 = outermost baseline).
#[derive(Debug, Clone, Copy)]
struct Candidate {
    page: usize,
    line: usize,
    top: bool,
    gap_pitches: f32,
    depth: usize,
}

/// Drop running headers, footers and page numbers from `pages` (see the module doc).
pub fn remove_furniture(pages: &mut [Vec<TextLine>]) -> Removed {
    let pitch = line_pitch(pages);
    let candidates: Vec<Candidate> = pages
        .iter()
        .enumerate()
        .flat_map(|(p, lines)| edge_candidates(p, lines, pitch))
        .collect();
    let offset = dominant_offset(pages, &candidates);
    let mut repeats: HashMap<(bool, String), Vec<usize>> = HashMap::new();
    for c in candidates.iter().filter(|c| c.depth == 0) {
        let key = (c.top, fold(&pages[c.page][c.line].text));
        let pages_with = repeats.entry(key).or_default();
        if pages_with.last() != Some(&c.page) {
            pages_with.push(c.page);
        }
    }
    let is_furniture = |c: &Candidate, line: &TextLine| {
        if bare_page_number(&line.text) {
            return true;
        }
        if let Some(offset) = &offset {
            let physical = i64::try_from(c.page).unwrap_or(i64::MAX) + 1;
            if number_slots(&line.text).any(|(first, n)| {
                offset.values.contains(&(n - physical)) && offset.slots.contains(&(c.top, first))
            }) {
                return true;
            }
        }
        c.depth == 0
            && c.gap_pitches >= HEADER_GAP_PITCHES
            && repeats
                .get(&(c.top, fold(&line.text)))
                .is_some_and(|ps| ps.len() >= MIN_REPEAT_PAGES)
    };
    // Peel from the outside in: a deeper candidate counts only when every line outside it on
    // its edge was furniture.
    let mut drop: Vec<Vec<bool>> = pages.iter().map(|l| vec![false; l.len()]).collect();
    let mut blocked: HashMap<(usize, bool), usize> = HashMap::new();
    for c in &candidates {
        let line = &pages[c.page][c.line];
        let first_blocked = blocked.get(&(c.page, c.top)).copied().unwrap_or(usize::MAX);
        if c.depth > first_blocked {
            continue;
        }
        if is_furniture(c, line) {
            drop[c.page][c.line] = true;
        } else {
            blocked.insert((c.page, c.top), c.depth.min(first_blocked));
        }
    }
    let mut removed = 0;
    for (lines, drop) in pages.iter_mut().zip(drop) {
        let mut keep = drop.iter().map(|d| !d);
        let before = lines.len();
        let mut para_next = false;
        let mut out = Vec::with_capacity(before);
        for mut line in std::mem::take(lines) {
            if keep.next().unwrap_or(true) {
                line.para_before |= para_next && !out.is_empty();
                para_next = false;
                out.push(line);
            } else {
                para_next = !out.is_empty();
            }
        }
        removed += before - out.len();
        *lines = out;
    }
    Removed {
        lines: removed,
        page_offset: offset.map(|o| o.values[0]),
    }
}

/// Median distance between consecutive baselines on a page (points), over the document;
/// 12 when there is nothing to measure.
fn line_pitch(pages: &[Vec<TextLine>]) -> f32 {
    let mut gaps: Vec<f32> = Vec::new();
    for lines in pages {
        let mut ys: Vec<f32> = lines.iter().map(|l| l.y).collect();
        ys.sort_by(|a, b| b.total_cmp(a));
        for w in ys.windows(2) {
            let d = w[0] - w[1];
            if d > SAME_BASELINE && d < 40.0 {
                gaps.push(d);
            }
            if gaps.len() > 20_000 {
                break;
            }
        }
    }
    if gaps.is_empty() {
        return 12.0;
    }
    let mid = gaps.len() / 2;
    *gaps.select_nth_unstable_by(mid, f32::total_cmp).1
}

/// The edge candidates of one page: up to [`MAX_PEEL`] baselines from the top and from the
/// bottom, each line with its gap to the next baseline inward. Pages with fewer than two
/// baselines have none.
fn edge_candidates(page: usize, lines: &[TextLine], pitch: f32) -> Vec<Candidate> {
    let mut ys: Vec<f32> = lines.iter().map(|l| l.y).collect();
    ys.sort_by(|a, b| b.total_cmp(a));
    ys.dedup_by(|a, b| (*b - *a).abs() <= SAME_BASELINE);
    if ys.len() < 2 {
        return Vec::new();
    }
    let peel = MAX_PEEL.min(ys.len() / 2);
    let mut out = Vec::new();
    for depth in 0..peel {
        for top in [true, false] {
            let (at, inner) = if top {
                (ys[depth], ys[depth + 1])
            } else {
                (ys[ys.len() - 1 - depth], ys[ys.len() - 2 - depth])
            };
            let gap = (at - inner).abs() / pitch.max(1.0);
            for (i, l) in lines.iter().enumerate() {
                if (l.y - at).abs() <= SAME_BASELINE {
                    out.push(Candidate {
                        page,
                        line: i,
                        top,
                        gap_pitches: gap,
                        depth,
                    });
                }
            }
        }
    }
    out
}

/// The document's printed page numbering: printed = physical + one of `values` (the dominant
/// one first), found in `slots` (top edge?, first word?).
#[derive(Debug)]
struct Offset {
    values: Vec<i64>,
    slots: Vec<(bool, bool)>,
}

/// The offset (printed − physical page number) most edge candidates agree on, if it is carried
/// by at least [`MIN_OFFSET_PAGES`] pages and [`MIN_OFFSET_SHARE`] of the pages with
/// candidates, with the slots at least [`MIN_SLOT_PAGES`] pages carry it in.
fn dominant_offset(pages: &[Vec<TextLine>], candidates: &[Candidate]) -> Option<Offset> {
    let mut votes: HashMap<i64, Vec<(usize, bool, bool)>> = HashMap::new();
    for c in candidates {
        let physical = i64::try_from(c.page).unwrap_or(i64::MAX) + 1;
        for (first, n) in number_slots(&pages[c.page][c.line].text) {
            votes
                .entry(n - physical)
                .or_default()
                .push((c.page, c.top, first));
        }
    }
    let mut with: Vec<usize> = candidates.iter().map(|c| c.page).collect();
    with.dedup();
    let pages_of = |v: &[(usize, bool, bool)]| {
        let mut ps: Vec<usize> = v.iter().map(|x| x.0).collect();
        ps.dedup();
        ps.len()
    };
    let (value, hits) = votes
        .iter()
        .max_by_key(|(o, v)| (pages_of(v), std::cmp::Reverse(o.abs())))?;
    let value = *value;
    let support = pages_of(hits);
    let share = support as f32 / with.len().max(1) as f32;
    if support < MIN_OFFSET_PAGES || share < MIN_OFFSET_SHARE {
        return None;
    }
    let slots = [(true, true), (true, false), (false, true), (false, false)]
        .into_iter()
        .filter(|&(top, first)| {
            hits.iter().filter(|h| (h.1, h.2) == (top, first)).count() >= MIN_SLOT_PAGES
        })
        .collect();
    let mut values = vec![value];
    values.extend(votes.iter().filter_map(|(o, v)| {
        (*o != value && (o - value).abs() <= MAX_OFFSET_DRIFT && pages_of(v) >= MIN_SLOT_PAGES)
            .then_some(*o)
    }));
    Some(Offset { values, slots })
}

/// Integers of 1–4 digits standing as the first or last word of `text`: (is first word, value).
fn number_slots(text: &str) -> impl Iterator<Item = (bool, i64)> + '_ {
    let mut words = text.split_whitespace();
    let first = words.next().map(|w| (true, w));
    let last = words.next_back().map(|w| (false, w));
    [first, last]
        .into_iter()
        .flatten()
        .filter(|(_, w)| w.len() <= 4 && w.bytes().all(|b| b.is_ascii_digit()))
        .filter_map(|(f, w)| w.parse().ok().map(|n| (f, n)))
}

/// `text` lowercased with whitespace runs as one space: the key of a running line.
fn fold(text: &str) -> String {
    text.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// True for a line that is only a page number: `12`, `xiv`, `- 4 -`, `— 4`, `Page 3`,
/// `3 / 50`, `3 of 50`. Roman numerals count up to 50, in lowercase (an uppercase `X` alone is
/// more often an index letter), and must be written canonically.
pub fn bare_page_number(text: &str) -> bool {
    let t = text.trim_matches(|c: char| c.is_whitespace() || "-–—·•|[]()".contains(c));
    let t = t
        .strip_prefix("Page ")
        .or_else(|| t.strip_prefix("page "))
        .unwrap_or(t)
        .trim();
    let number = t
        .split_once(" of ")
        .or_else(|| t.split_once('/'))
        .map_or(t, |(n, _)| n.trim());
    let total_ok = t
        .split_once(" of ")
        .or_else(|| t.split_once('/'))
        .is_none_or(|(_, total)| {
            let total = total.trim();
            !total.is_empty() && total.len() <= 5 && total.bytes().all(|b| b.is_ascii_digit())
        });
    if !total_ok || number.is_empty() {
        return false;
    }
    (number.len() <= 4 && number.bytes().all(|b| b.is_ascii_digit())) || roman(number).is_some()
}

/// The value of a canonical Roman numeral of at most 50, all lowercase or all uppercase.
fn roman(s: &str) -> Option<u32> {
    if s.is_empty() || s.len() > 7 {
        return None;
    }
    let lower = s.to_ascii_lowercase();
    if lower != s {
        return None;
    }
    let value = |c: char| match c {
        'i' => Some(1),
        'v' => Some(5),
        'x' => Some(10),
        'l' => Some(50),
        _ => None,
    };
    let digits: Vec<i32> = lower.chars().map(value).collect::<Option<_>>()?;
    let mut total = 0i32;
    for (i, &d) in digits.iter().enumerate() {
        if digits.get(i + 1).is_some_and(|&next| next > d) {
            total -= d;
        } else {
            total += d;
        }
    }
    let total = u32::try_from(total).ok()?;
    ((1..=50).contains(&total) && to_roman(total) == lower).then_some(total)
}

fn to_roman(mut n: u32) -> String {
    let mut out = String::new();
    for (v, s) in [
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ] {
        while n >= v {
            out.push_str(s);
            n -= v;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(y: f32, text: &str) -> TextLine {
        TextLine {
            text: text.into(),
            x: 72.0,
            y,
            size: 10.0,
            ..TextLine::default()
        }
    }

    /// A page: an optional header at 750, body lines every 12 points from 700, an optional
    /// footer at 40.
    fn page(header: Option<&str>, body: &[&str], footer: Option<&str>) -> Vec<TextLine> {
        let mut out = Vec::new();
        if let Some(h) = header {
            out.push(line(750.0, h));
        }
        for (i, b) in body.iter().enumerate() {
            out.push(line(700.0 - 12.0 * i as f32, b));
        }
        if let Some(f) = footer {
            out.push(line(40.0, f));
        }
        out
    }

    #[test]
    fn page_numbers_alone() {
        for yes in [
            "12",
            "xiv",
            "- 4 -",
            "— 4 —",
            "Page 3",
            "3 / 50",
            "3 of 50",
            "ix",
        ] {
            assert!(bare_page_number(yes), "{yes}");
        }
        for no in [
            "mix", "X", "iiii", "12a", "Page", "", "3 of x", "civil", "vim", "2022.1",
        ] {
            assert!(!bare_page_number(no), "{no}");
        }
        assert_eq!(roman("xlix"), Some(49));
        assert_eq!(roman("li"), None);
    }

    #[test]
    fn numbers_in_first_and_last_word() {
        let slots: Vec<(bool, i64)> = number_slots("996 lines").collect();
        assert_eq!(slots, vec![(true, 996)]);
        let slots: Vec<(bool, i64)> = number_slots("9.5. Cron jobs 87").collect();
        assert_eq!(slots, vec![(false, 87)]);
        assert_eq!(number_slots("12345 x 2022.1").count(), 0);
    }

    #[test]
    fn headers_with_page_numbers_repeated_footers_and_numbers_go_headings_stay() {
        let mut pages: Vec<Vec<TextLine>> = (0..6)
            .map(|i| {
                let header = format!("{} Chapter {}", i + 10, i / 3 + 1);
                page(
                    Some(&header),
                    &["Description", "body text one", "body text two"],
                    Some("Manual, Release 1.2"),
                )
            })
            .collect();
        // One page without header, starting with a heading right at the top.
        pages.push(page(None, &["Description", "text"], Some("16")));
        let removed = remove_furniture(&mut pages);
        assert_eq!(removed.page_offset, Some(9));
        assert_eq!(removed.lines, 13);
        for p in &pages {
            assert_eq!(p[0].text, "Description");
            assert!(p.iter().all(|l| !l.text.contains("Release")));
        }
        assert_eq!(pages[6].len(), 2);
    }

    #[test]
    fn a_repeated_first_line_without_a_gap_is_body_text() {
        // "Usage" opens every page but sits one pitch above its text: a heading, not furniture.
        let mut pages: Vec<Vec<TextLine>> = (0..5)
            .map(|_| page(None, &["Usage", "run it", "like this", "and that"], None))
            .collect();
        let before = pages.clone();
        let removed = remove_furniture(&mut pages);
        assert_eq!(removed, Removed::default());
        assert_eq!(pages, before);
    }
}
