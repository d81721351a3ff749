//! The hard cap on prompt size: every prompt the agent sends is at most
//! `prompt_cap_tokens` estimated tokens (chars / 4, as in DESIGN.md §1).

use crate::llm::ChatMessage;

/// Estimated tokens of a conversation: chars / 4, rounded up, plus 4 per message for framing.
pub fn estimate_prompt_tokens(messages: &[ChatMessage]) -> usize {
    messages
        .iter()
        .map(|m| m.content.chars().count().div_ceil(4) + 4)
        .sum()
}

/// Keep at most `max_chars` chars of `text`, cut at a line boundary when one is near, with a note
/// saying how much was left out. Never splits a UTF-8 character.
pub fn clip(text: &str, max_chars: usize) -> String {
    let total = text.chars().count();
    if total <= max_chars {
        return text.to_string();
    }
    let end = text
        .char_indices()
        .nth(max_chars)
        .map_or(text.len(), |(i, _)| i);
    let mut cut = &text[..end];
    if let Some(nl) = cut.rfind('\n') {
        if nl > end / 2 {
            cut = &cut[..nl];
        }
    }
    let shown = cut.chars().count();
    format!("{cut}\n[… {} more chars not shown]", total - shown)
}

/// Shrink the last user message until the conversation fits `cap_tokens`: the message is clipped
/// from its middle sections outward by [`clip`] on the whole message as a last resort. Returns
/// whether anything was cut.
pub fn enforce_cap(messages: &mut [ChatMessage], cap_tokens: usize) -> bool {
    let total = estimate_prompt_tokens(messages);
    if total <= cap_tokens {
        return false;
    }
    let Some(last) = messages.last_mut() else {
        return false;
    };
    let over_chars = (total - cap_tokens) * 4 + 64;
    let keep = last.content.chars().count().saturating_sub(over_chars);
    last.content = clip(&last.content, keep);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_respects_char_boundaries_and_reports_the_rest() {
        let text = "日本語\n".repeat(100);
        let c = clip(&text, 50);
        assert!(c.contains("more chars not shown"));
        assert!(c.chars().count() < 100);
    }

    #[test]
    fn enforce_cap_brings_a_prompt_under_the_cap() {
        let mut m = vec![
            ChatMessage::system("rules ".repeat(100)),
            ChatMessage::user("x ".repeat(50_000)),
        ];
        assert!(enforce_cap(&mut m, 2_000));
        assert!(
            estimate_prompt_tokens(&m) <= 2_000,
            "{}",
            estimate_prompt_tokens(&m)
        );
    }
}
