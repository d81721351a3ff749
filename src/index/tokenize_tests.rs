use pretty_assertions::assert_eq;

use super::*;

fn toks(text: &str) -> Vec<String> {
    tokenize(text)
}

#[test]
fn stopwords_are_sorted_unique_and_exactly_the_table_members() {
    let mut sorted = STOPWORDS.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted, STOPWORDS);
    assert!(STOPWORDS.iter().all(|w| w.len() <= STOPWORD_MAX_BYTES));
    assert!(STOPWORDS.iter().all(|w| is_stopword(w)));
    for word in [
        "there", "thereby", "whomever", "shoulder", "abouts", "ab", "é", "",
    ] {
        assert_eq!(is_stopword(word), STOPWORDS.contains(&word), "{word}");
    }
    // Every lowercase ASCII word of up to three letters: the table answers as the list does.
    let letters = || (b'a'..=b'z').map(|c| c as char);
    let mut words: Vec<String> = letters().map(String::from).collect();
    for a in letters() {
        for b in letters() {
            words.push(format!("{a}{b}"));
            words.extend(letters().map(|c| format!("{a}{b}{c}")));
        }
    }
    for word in &words {
        assert_eq!(
            is_stopword(word),
            STOPWORDS.contains(&word.as_str()),
            "{word}"
        );
    }
}

#[test]
fn plain_words_lowercased_stopwords_and_single_letters_dropped() {
    assert_eq!(
        toks("The Quick brown fox is a Fox; I said: GO!"),
        ["quick", "brown", "fox", "fox", "said", "go"]
    );
}

#[test]
fn per_and_via_are_stopwords_also_inside_technical_tokens() {
    assert_eq!(
        toks("one stat per file, via HTTP: sys.int_info.bits_per_digit and Per-drive paths"),
        [
            "one",
            "stat",
            "file",
            "http",
            "sys.int_info.bits_per_digit",
            "sys",
            "int",
            "info",
            "bit",
            "digit",
            "per-drive",
            "drive",
            "path",
        ]
    );
}

#[test]
fn plural_stemming() {
    assert_eq!(
        toks("libraries dependencies releases files matches boxes classes hashes caches"),
        [
            "library",
            "dependency",
            "release",
            "file",
            "match",
            "box",
            "class",
            "hash",
            "cache"
        ]
    );
    // Not plurals: -ss, -us, -is, and words of 3 bytes or fewer.
    assert_eq!(
        toks("class status analysis dns gas"),
        ["class", "status", "analysis", "dns", "gas"]
    );
}

#[test]
fn dotted_identifiers_kept_whole_and_split() {
    assert_eq!(toks("fs.Stats"), ["fs.stats", "fs", "stat"]);
    assert_eq!(
        toks("see fs.readFileSync()."),
        ["see", "fs.readfilesync", "fs", "readfilesync"]
    );
}

#[test]
fn flags_keep_leading_dashes() {
    assert_eq!(toks("--max-count"), ["--max-count", "max", "count"]);
    assert_eq!(toks("use -n here"), ["use", "-n", "here"]);
    // A dash that is not a flag prefix: a list bullet, a minus sign.
    assert_eq!(toks("- item -1"), ["item"]);
    assert_eq!(toks("---"), Vec::<String>::new());
}

#[test]
fn underscores_split_and_single_letters_dropped() {
    assert_eq!(toks("O_DIRECT"), ["o_direct", "direct"]);
    assert_eq!(toks("__init__"), ["init"]);
}

#[test]
fn version_numbers_kept_whole_only() {
    assert_eq!(toks("1.8.0"), ["1.8.0"]);
    assert_eq!(toks("Released v1.8.0."), ["released", "v1.8.0", "1.8.0"]);
    assert_eq!(toks("2023-01-15"), ["2023-01-15"]);
    // Mixed tokens keep their non-numeric parts only.
    assert_eq!(toks("1.8.0-beta.1"), ["1.8.0-beta.1", "beta"]);
    assert_eq!(toks("2023 42 7"), ["2023", "42"]);
}

#[test]
fn cjk_runs_become_bigrams() {
    assert_eq!(
        toks("設定ファイル"),
        ["設定", "定フ", "ファ", "ァイ", "イル"]
    );
    assert_eq!(toks("猫"), ["猫"]);
    // Japanese punctuation separates runs; Latin words next to CJK are their own tokens.
    assert_eq!(
        toks("docnavを使う。設定"),
        ["docnav", "を使", "使う", "設定"]
    );
}

#[test]
fn accented_latin_is_lowercased_and_stemmed() {
    assert_eq!(toks("Café Crème cafés"), ["café", "crème", "café"]);
}

#[test]
fn overlong_tokens_dropped() {
    let blob = "x".repeat(MAX_TOKEN_BYTES + 1);
    assert_eq!(toks(&format!("a {blob} b2")), ["b2"]);
}

#[test]
fn callback_sees_same_terms_as_tokenize() {
    let text = "Node.js fs.Stats --max-count 1.8.0 インストール café";
    let mut seen = Vec::new();
    for_each_token(text, |t| seen.push(t.to_string()));
    assert_eq!(seen, tokenize(text));
}

#[test]
fn odd_input_does_not_panic() {
    for text in [
        "",
        ".",
        "-",
        "--",
        "_-.",
        "a.",
        "ﬁ",
        "İstanbul",
        "\u{FFFD}\u{0}",
        "ß.ß-ß",
    ] {
        let _ = tokenize(text);
    }
    // Lowercasing that changes byte length (İ → i̇) stays on char boundaries.
    assert_eq!(toks("İSTANBUL.X"), ["i\u{307}stanbul.x", "i\u{307}stanbul"]);
}

#[test]
fn urls_contribute_their_host_only() {
    assert_eq!(
        toks("see [log](https://github.com/microsoft/fluentui/pull/123) now"),
        ["see", "log", "github.com", "github", "com", "now"]
    );
    assert_eq!(
        toks("HTTP://Example.org/a_b?c=d#e."),
        ["example.org", "example", "org"]
    );
    // Not a URL: other schemes, or no `//`.
    assert_eq!(
        toks("mailto:x@y.io https: ok"),
        ["mailto", "y.io", "io", "http", "ok"]
    );
    assert_eq!(toks("https://"), Vec::<String>::new());
}
