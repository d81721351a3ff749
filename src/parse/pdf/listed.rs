//! A contents list printed without page numbers (PG&E's 10-K for 2019: `PART 1`, `ITEM 1.
//! BUSINESS`, `ITEM 1A. RISK FACTORS` … on page 4, in the bold type of the real headings):
//! [`super::toc`] finds contents lists by their page numbers, so this one reads as a run of
//! headings with no text of their own, and every Item of the 10-K would be there twice — once
//! empty, on the contents page.
//!
//! The run is told by what a contents list is: at least [`MIN_LISTED_DIVISIONS`] division
//! headings (`Item 7.`, `Part II`, `Note 3`) close together, most of which the document heads
//! again further on with the same number. Its headings are dropped, so the list stays text
//! (of the `Contents` heading above it, when there is one).

use super::headings::Heading;

/// Fewest division headings in a run that can be a contents list.
pub const MIN_LISTED_DIVISIONS: usize = 5;
/// Most lines between two headings of one contents list (the subsections it lists between
/// its Items are plain lines).
pub const MAX_LISTED_GAP_LINES: usize = 12;
/// Share of a run's division headings that must be headed again later.
pub const REPEATED_SHARE: f32 = 0.6;

fn division_key(h: &Heading) -> Option<(super::numbering::Scheme, String)> {
    let n = h.number.as_ref()?;
    n.scheme.rank()?;
    Some((n.scheme, n.key.to_uppercase()))
}

/// Drop from `headings` (in reading order) the runs that are a contents list without page
/// numbers (see the module doc); the others stay as they are.
pub fn drop_listed_divisions(headings: &mut Vec<Heading>) {
    let keys: Vec<Option<_>> = headings.iter().map(division_key).collect();
    let mut drop = vec![false; headings.len()];
    let mut start = 0;
    while start < headings.len() {
        // The run: headings each within MAX_LISTED_GAP_LINES of the one before.
        let mut end = start + 1;
        while end < headings.len() {
            let prev = &headings[end - 1];
            if headings[end].at > prev.at + prev.lines + MAX_LISTED_GAP_LINES {
                break;
            }
            end += 1;
        }
        let divisions: Vec<usize> = (start..end).filter(|&i| keys[i].is_some()).collect();
        if divisions.len() >= MIN_LISTED_DIVISIONS {
            let repeated = divisions
                .iter()
                .filter(|&&i| keys[end..].contains(&keys[i]))
                .count();
            if repeated as f32 >= divisions.len() as f32 * REPEATED_SHARE {
                // From the run's first division to its last: a `Contents` title before it
                // stays a heading.
                let (first, last) = (divisions[0], divisions[divisions.len() - 1]);
                for d in &mut drop[first..=last] {
                    *d = true;
                }
            }
        }
        start = end;
    }
    let mut i = 0;
    headings.retain(|_| {
        i += 1;
        !drop[i - 1]
    });
}

#[cfg(test)]
mod tests {
    use super::super::numbering::numbering;
    use super::*;

    fn h(at: usize, title: &str) -> Heading {
        Heading {
            at,
            lines: 1,
            level: 1,
            title: title.to_string(),
            number: numbering(title),
            size: 8.8,
            bold: true,
            listed: false,
        }
    }

    fn titles(hs: &[Heading]) -> Vec<&str> {
        hs.iter().map(|h| h.title.as_str()).collect()
    }

    #[test]
    fn a_run_of_divisions_headed_again_later_is_a_contents_list() {
        let mut hs = vec![
            h(10, "Contents"),
            h(14, "PART 1"),
            h(15, "ITEM 1. BUSINESS"),
            h(22, "ITEM 1A. RISK FACTORS"),
            h(23, "ITEM 1B. UNRESOLVED STAFF COMMENTS"),
            h(24, "ITEM 2. PROPERTIES"),
            h(25, "PART II"),
            h(26, "ITEM 7. MANAGEMENT'S DISCUSSION"),
            h(300, "PART I"),
            h(301, "ITEM 1. BUSINESS"),
            h(900, "ITEM 1A. RISK FACTORS"),
            h(1500, "ITEM 1B. UNRESOLVED STAFF COMMENTS"),
            h(1510, "ITEM 2. PROPERTIES"),
            h(1600, "PART II"),
            h(1700, "ITEM 7. MANAGEMENT'S DISCUSSION"),
        ];
        drop_listed_divisions(&mut hs);
        assert_eq!(
            titles(&hs),
            [
                "Contents",
                "PART I",
                "ITEM 1. BUSINESS",
                "ITEM 1A. RISK FACTORS",
                "ITEM 1B. UNRESOLVED STAFF COMMENTS",
                "ITEM 2. PROPERTIES",
                "PART II",
                "ITEM 7. MANAGEMENT'S DISCUSSION"
            ]
        );
    }

    /// Short Items one after another (`ITEM 1B. … None.`, `ITEM 4. … Not applicable.`) are no
    /// contents list: nothing heads them again.
    #[test]
    fn short_items_in_a_row_stay() {
        let mut hs = vec![
            h(500, "ITEM 1B. UNRESOLVED STAFF COMMENTS"),
            h(502, "ITEM 2. PROPERTIES"),
            h(505, "ITEM 3. LEGAL PROCEEDINGS"),
            h(508, "ITEM 4. MINE SAFETY DISCLOSURES"),
            h(510, "PART II"),
            h(511, "ITEM 5. MARKET"),
            h(900, "ITEM 6. SELECTED FINANCIAL DATA"),
        ];
        let before = hs.len();
        drop_listed_divisions(&mut hs);
        assert_eq!(hs.len(), before);
    }
}
