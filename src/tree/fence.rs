//! Code fences of Markdown text, as the tree builder (no split inside a fence), its `Part N`
//! titles and the reference scan (no reference inside a fence) all see them.

/// `Some((char, run length))` when the line (leading white space already trimmed) opens or
/// closes a code fence: a run of at least three backticks or tildes.
pub(super) fn fence_marker(trimmed: &str) -> Option<(char, usize)> {
    let c = trimmed.chars().next()?;
    if c != '`' && c != '~' {
        return None;
    }
    let n = trimmed.chars().take_while(|x| *x == c).count();
    (n >= 3).then_some((c, n))
}
