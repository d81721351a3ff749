//! Short diffs for replay divergences: where an expected (recorded) and an actual (replayed) event
//! first differ — for an observation its first differing line, for a model request its first
//! differing message and line, for evidence the first differing field — with the line number, a
//! little unchanged context before it, and `-` (expected) / `+` (actual) lines cut to
//! [`DIFF_LINE_CHARS`] chars on a char boundary.

use crate::agent::events::OBSERVATION_EVENT_CHARS;
use crate::agent::AgentEvent;
use crate::llm::{ChatMessage, Role};

/// Chars shown of a differing or context line; longer lines are cut with `…`, around the first
/// difference when it lies further in.
pub const DIFF_LINE_CHARS: usize = 160;

/// Unchanged lines shown before the first differing one.
pub const CONTEXT_LINES: usize = 2;

/// Chars kept before the first difference when a long line is shown from the middle.
const LEAD_CHARS: usize = 40;

/// The diff block of a divergence between `expected` and `actual` (either may be missing: one side
/// ended): lines ready to print, indented by 2 (heading) and 4 (diff lines). Empty when the two
/// events are not of a kind with content to compare line by line (commands, decisions of
/// different kinds, one side missing): the expected/actual summaries say it all then.
pub fn short_diff(expected: Option<&AgentEvent>, actual: Option<&AgentEvent>) -> Vec<String> {
    use AgentEvent as E;
    match (expected, actual) {
        (
            Some(E::Observation {
                text: a, chars: na, ..
            }),
            Some(E::Observation {
                text: b, chars: nb, ..
            }),
        ) => observation_diff(a, *na, b, *nb),
        (Some(E::ModelRequest { messages: a, .. }), Some(E::ModelRequest { messages: b, .. })) => {
            request_diff(a, b)
        }
        (
            Some(E::EvidenceCollected {
                doc_id: da,
                structure: sa,
                chars: ca,
            }),
            Some(E::EvidenceCollected {
                doc_id: db,
                structure: sb,
                chars: cb,
            }),
        ) => {
            let fields =
                |d: &str, s: &str, c: usize| format!("document: {d}\nnode: #{s}\nchars read: {c}");
            text_diff("the evidence", &fields(da, sa, *ca), &fields(db, sb, *cb))
                .unwrap_or_default()
        }
        (Some(E::ModelResponse { text: a, .. }), Some(E::ModelResponse { text: b, .. })) => {
            text_diff("the reply", a, b).unwrap_or_default()
        }
        (Some(E::Decision { kind: ka, value: a }), Some(E::Decision { kind: kb, value: b }))
            if ka == kb =>
        {
            let pretty =
                |v: &serde_json::Value| serde_json::to_string_pretty(v).unwrap_or_default();
            text_diff(&format!("the {ka} decision"), &pretty(a), &pretty(b)).unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

/// Diff two observations as stored: each side's text is the first [`OBSERVATION_EVENT_CHARS`] of
/// `chars`; when either was cut, the diff is within the stored prefix and says so.
fn observation_diff(a: &str, a_chars: usize, b: &str, b_chars: usize) -> Vec<String> {
    let stored = |text: &str, chars: usize| text.chars().count() < chars;
    let note = if stored(a, a_chars) || stored(b, b_chars) {
        Some(format!(
            "  (the trace keeps only the first {OBSERVATION_EVENT_CHARS} chars of an observation: \
             {} of {a_chars} expected, {} of {b_chars} actual; diffed within those)",
            a.chars().count(),
            b.chars().count()
        ))
    } else {
        None
    };
    let mut out = match text_diff("the observation", a, b) {
        Some(lines) => lines,
        None if note.is_some() => vec![format!(
            "  the stored prefixes are identical: the difference lies beyond the first {} chars",
            a.chars().count()
        )],
        None => Vec::new(),
    };
    out.extend(note);
    out
}

/// Diff two requests: the first message that differs (in role, presence or content), then the
/// first differing line of its content.
fn request_diff(a: &[ChatMessage], b: &[ChatMessage]) -> Vec<String> {
    let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) else {
        return Vec::new();
    };
    let n = i + 1;
    let role = |m: &ChatMessage| match m.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    let first_line = |m: &ChatMessage| cut(m.content.split('\n').next().unwrap_or(""));
    match (a.get(i), b.get(i)) {
        (Some(x), Some(y)) if x.role == y.role => {
            let what = format!("message {n} of {} ({})", a.len(), role(x));
            text_diff(&what, &x.content, &y.content).unwrap_or_default()
        }
        (Some(x), Some(y)) => vec![
            format!("  first difference at message {n}: its role"),
            format!("    - {}: {}", role(x), first_line(x)),
            format!("    + {}: {}", role(y), first_line(y)),
        ],
        (Some(x), None) => vec![
            format!(
                "  first difference at message {n}: the replayed request has {} messages",
                b.len()
            ),
            format!("    - {}: {}", role(x), first_line(x)),
            format!("    + (no message {n})"),
        ],
        (None, Some(y)) => vec![
            format!(
                "  first difference at message {n}: the recorded request has {} messages",
                a.len()
            ),
            format!("    - (no message {n})"),
            format!("    + {}: {}", role(y), first_line(y)),
        ],
        (None, None) => Vec::new(),
    }
}

/// The first differing line of `a` (expected) and `b` (actual), or `None` when they are equal:
/// a heading naming the line and `what`, up to [`CONTEXT_LINES`] unchanged lines before it, then
/// the `-` and `+` lines (or `(no line N)` for the side that ended).
pub fn text_diff(what: &str, a: &str, b: &str) -> Option<Vec<String>> {
    let la: Vec<&str> = a.split('\n').collect();
    let lb: Vec<&str> = b.split('\n').collect();
    let i = (0..la.len().max(lb.len())).find(|&i| la.get(i) != lb.get(i))?;
    let width = (i + 1).to_string().len();
    let mut out = vec![format!(
        "  first difference at line {} of {what} (- expected, + actual):",
        i + 1
    )];
    for (k, line) in la
        .iter()
        .enumerate()
        .take(i)
        .skip(i.saturating_sub(CONTEXT_LINES))
    {
        let context = format!("      {:>width$}  {}", k + 1, cut(line));
        out.push(context.trim_end().to_string());
    }
    let (sa, sb) = match (la.get(i), lb.get(i)) {
        (Some(x), Some(y)) => windows(x, y),
        (x, y) => (
            x.map_or_else(
                || format!("(no line {}: {} lines)", i + 1, la.len()),
                |l| cut(l),
            ),
            y.map_or_else(
                || format!("(no line {}: {} lines)", i + 1, lb.len()),
                |l| cut(l),
            ),
        ),
    };
    out.push(format!("    - {:>width$}  {sa}", i + 1));
    out.push(format!("    + {:>width$}  {sb}", i + 1));
    Some(out)
}

/// `line` cut to [`DIFF_LINE_CHARS`] chars (on a char boundary) with `…` when longer.
fn cut(line: &str) -> String {
    window(line, 0)
}

/// At most [`DIFF_LINE_CHARS`] chars of `line` from char `start`, with `…` marking cut ends.
fn window(line: &str, start: usize) -> String {
    let mut s = String::new();
    if start > 0 {
        s.push('…');
    }
    s.extend(line.chars().skip(start).take(DIFF_LINE_CHARS));
    if line.chars().count() > start + DIFF_LINE_CHARS {
        s.push('…');
    }
    s
}

/// Two differing lines cut to the same window, which starts [`LEAD_CHARS`] before their first
/// differing char when that char would otherwise be shown with fewer than [`LEAD_CHARS`] after it.
fn windows(a: &str, b: &str) -> (String, String) {
    let first = a
        .chars()
        .zip(b.chars())
        .position(|(x, y)| x != y)
        .unwrap_or_else(|| a.chars().count().min(b.chars().count()));
    let start = if first + LEAD_CHARS < DIFF_LINE_CHARS {
        0
    } else {
        first - LEAD_CHARS
    };
    (window(a, start), window(b, start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_differing_line_is_shown_with_context_and_its_number() {
        let a = "one\ntwo\nthree\nkeep several apart\nfive";
        let b = "one\ntwo\nthree\nkeep various apart\nfive";
        let d = text_diff("the observation", a, b).unwrap();
        assert_eq!(
            d,
            vec![
                "  first difference at line 4 of the observation (- expected, + actual):",
                "      2  two",
                "      3  three",
                "    - 4  keep several apart",
                "    + 4  keep various apart",
            ]
        );
        assert_eq!(text_diff("x", a, a), None);
        // One side ends first.
        let d = text_diff("x", "a\nb", "a").unwrap();
        assert_eq!(d[2..], ["    - 2  b", "    + 2  (no line 2: 1 lines)"]);
    }

    #[test]
    fn long_lines_are_cut_on_char_boundaries_around_the_difference() {
        let head = "é".repeat(300);
        let (a, b) = (format!("{head}several"), format!("{head}various"));
        let d = text_diff("x", &a, &b).unwrap();
        let (minus, plus) = (&d[1], &d[2]);
        assert!(
            minus.contains("several") && plus.contains("various"),
            "{d:?}"
        );
        assert!(minus.contains('…'));
        assert!(minus.chars().count() <= DIFF_LINE_CHARS + 12, "{minus}");
        // A difference early in a long line: shown from the start, cut at the end.
        let (a, b) = (format!("x{head}"), format!("y{head}"));
        let d = text_diff("x", &a, &b).unwrap();
        assert!(
            d[1].starts_with("    - 1  x") && d[1].ends_with('…'),
            "{d:?}"
        );
    }

    #[test]
    fn requests_diff_at_the_first_differing_message() {
        let a = vec![
            ChatMessage::system("s"),
            ChatMessage::user("q\nstep 1\nstep 2"),
        ];
        let mut b = a.clone();
        b[1] = ChatMessage::user("q\nstep 1\nstep 3");
        let d = request_diff(&a, &b);
        assert_eq!(
            d[0],
            "  first difference at line 3 of message 2 of 2 (user) (- expected, + actual):"
        );
        assert_eq!(d[3..], ["    - 3  step 2", "    + 3  step 3"]);
        let d = request_diff(&a, &a[..1]);
        assert_eq!(d[1..], ["    - user: q", "    + (no message 2)"]);
    }

    #[test]
    fn observations_cut_in_the_trace_are_diffed_within_what_is_stored() {
        let stored = "x".repeat(OBSERVATION_EVENT_CHARS);
        let d = observation_diff(&stored, 5000, &stored, 5001);
        assert!(d[0].contains("the stored prefixes are identical"), "{d:?}");
        assert!(
            d[1].contains("2000 of 5000 expected, 2000 of 5001 actual"),
            "{d:?}"
        );
        let other = format!("y{}", &stored[1..]);
        let d = observation_diff(&stored, 5000, &other, 5000);
        assert!(d[0].contains("line 1 of the observation"), "{d:?}");
        assert!(d.last().unwrap().contains("diffed within those"), "{d:?}");
    }

    #[test]
    fn evidence_diffs_name_the_differing_field() {
        let ev = |s: &str| AgentEvent::EvidenceCollected {
            doc_id: "notes".into(),
            structure: s.into(),
            chars: 10,
        };
        let d = short_diff(Some(&ev("1.1")), Some(&ev("1.2")));
        assert_eq!(d[2..], ["    - 2  node: #1.1", "    + 2  node: #1.2"]);
        assert!(short_diff(Some(&ev("1")), None).is_empty());
    }
}
