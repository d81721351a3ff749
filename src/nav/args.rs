//! Option parsing shared by the commands: short flags (`-i`, combined `-ic`), options with a value
//! (`-n 5`, `-n5`, `--budget 500`, `--budget=500`), `--` ending the options, and positionals.
//!
//! Every command parses its words here, so every command takes `--` as the end of its options:
//! `find -- --binary files` searches for `--binary`. Words that cannot be options are positionals
//! wherever they stand: `-` alone, a negative number (`-3`), and a word with whitespace in it (a
//! quoted phrase such as `"--restart on-failure"`: option names never contain spaces). An unknown
//! option's error says how to pass the word itself (`find -- '--binary'`).

/// One option a command accepts.
#[derive(Debug, Clone, Copy)]
pub struct OptSpec {
    /// Short name (`'n'` for `-n`), if any.
    pub short: Option<char>,
    /// Long name without dashes (`"budget"` for `--budget`); also the key in [`ParsedArgs`].
    pub long: &'static str,
    /// True when the option takes a value.
    pub takes_value: bool,
}

impl OptSpec {
    /// A boolean flag.
    pub const fn flag(short: char, long: &'static str) -> OptSpec {
        OptSpec {
            short: Some(short),
            long,
            takes_value: false,
        }
    }

    /// An option with a value.
    pub const fn value(short: Option<char>, long: &'static str) -> OptSpec {
        OptSpec {
            short,
            long,
            takes_value: true,
        }
    }
}

/// Arguments split into options and positionals.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedArgs {
    /// Long names of the flags given.
    pub flags: Vec<&'static str>,
    /// `(long name, value)` of the options given; a repeated option keeps its last value.
    pub values: Vec<(&'static str, String)>,
    /// Everything else, in order.
    pub positional: Vec<String>,
}

impl ParsedArgs {
    /// True when the flag with this long name was given.
    pub fn flag(&self, long: &str) -> bool {
        self.flags.contains(&long)
    }

    /// The value of an option, if given (the last one wins).
    pub fn value(&self, long: &str) -> Option<&str> {
        self.values
            .iter()
            .rev()
            .find(|(k, _)| *k == long)
            .map(|(_, v)| v.as_str())
    }

    /// The value of an option parsed as a count.
    ///
    /// Errors: a message naming the option and the value when it is not a non-negative integer.
    pub fn count(&self, long: &str) -> Result<Option<usize>, String> {
        match self.value(long) {
            None => Ok(None),
            Some(v) => v
                .parse::<usize>()
                .map(Some)
                .map_err(|_| format!("--{long} needs a number, got '{v}'")),
        }
    }
}

/// The hint appended to an unknown option's error: how to pass `word` as a positional.
fn as_word_hint(word: &str) -> String {
    format!(
        " (to use it as a word, end the options first: -- {})",
        crate::nav::lexer::quote_word(word)
    )
}

/// Split `args` by `spec`.
///
/// Errors: a one-line message naming the unknown option (with how to pass it as a word) or the
/// option missing its value.
pub fn parse_args(args: &[String], spec: &[OptSpec]) -> Result<ParsedArgs, String> {
    let mut out = ParsedArgs::default();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == "--" {
            out.positional.extend(iter.by_ref().cloned());
            break;
        }
        if arg.contains(char::is_whitespace) {
            out.positional.push(arg.clone());
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let opt = spec
                .iter()
                .find(|o| o.long == name)
                .ok_or_else(|| format!("unknown option '--{name}'{}", as_word_hint(arg)))?;
            if opt.takes_value {
                let v = match inline {
                    Some(v) => v,
                    None => iter
                        .next()
                        .cloned()
                        .ok_or_else(|| format!("option '--{name}' needs a value"))?,
                };
                out.values.push((opt.long, v));
            } else if inline.is_some() {
                return Err(format!("option '--{name}' takes no value"));
            } else {
                out.flags.push(opt.long);
            }
            continue;
        }
        let shorts = match arg.strip_prefix('-') {
            Some(s) if !s.is_empty() && !s.starts_with(|c: char| c.is_ascii_digit()) => s,
            _ => {
                out.positional.push(arg.clone());
                continue;
            }
        };
        for (i, c) in shorts.char_indices() {
            let opt = spec
                .iter()
                .find(|o| o.short == Some(c))
                .ok_or_else(|| format!("unknown option '-{c}'{}", as_word_hint(arg)))?;
            if opt.takes_value {
                let rest = &shorts[i + c.len_utf8()..];
                let v = if rest.is_empty() {
                    iter.next()
                        .cloned()
                        .ok_or_else(|| format!("option '-{c}' needs a value"))?
                } else {
                    rest.to_string()
                };
                out.values.push((opt.long, v));
                break;
            }
            out.flags.push(opt.long);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &[OptSpec] = &[
        OptSpec::flag('i', "ignore-case"),
        OptSpec::flag('c', "count"),
        OptSpec::value(Some('n'), "lines"),
        OptSpec::value(None, "budget"),
    ];

    fn parse(line: &str) -> Result<ParsedArgs, String> {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        parse_args(&args, SPEC)
    }

    #[test]
    fn flags_values_and_positionals() {
        let p = parse("-ic -n5 --budget=20 a -- -x").unwrap();
        assert_eq!(p.flags, vec!["ignore-case", "count"]);
        assert_eq!(p.count("lines").unwrap(), Some(5));
        assert_eq!(p.count("budget").unwrap(), Some(20));
        assert_eq!(p.positional, vec!["a", "-x"]);
        let p = parse("-n 7 --budget 9 -3").unwrap();
        assert_eq!(p.value("lines"), Some("7"));
        assert_eq!(p.value("budget"), Some("9"));
        assert_eq!(p.positional, vec!["-3"]);
    }

    /// Key concepts such as `--restart on-failure` reach `find` as words.
    #[test]
    fn double_dash_ends_the_options_and_phrases_are_never_options() {
        let words = |w: &[&str]| -> Vec<String> { w.iter().map(|s| s.to_string()).collect() };
        let p = parse_args(&words(&["-i", "--", "--binary", "-n", "x"]), SPEC).unwrap();
        assert_eq!(p.flags, vec!["ignore-case"]);
        assert_eq!(p.positional, words(&["--binary", "-n", "x"]));
        let p = parse_args(&words(&["--restart on-failure", "-c", "-"]), SPEC).unwrap();
        assert_eq!(p.flags, vec!["count"]);
        assert_eq!(p.positional, words(&["--restart on-failure", "-"]));
        // `--` may also come first, or last with nothing after it.
        assert_eq!(
            parse_args(&words(&["--"]), SPEC).unwrap(),
            ParsedArgs::default()
        );
    }

    #[test]
    fn errors_name_the_option_and_how_to_pass_it_as_a_word() {
        assert_eq!(
            parse("-z").unwrap_err(),
            "unknown option '-z' (to use it as a word, end the options first: -- -z)"
        );
        assert_eq!(
            parse("-iz").unwrap_err(),
            "unknown option '-z' (to use it as a word, end the options first: -- -iz)"
        );
        assert_eq!(
            parse("--nope").unwrap_err(),
            "unknown option '--nope' (to use it as a word, end the options first: -- --nope)"
        );
        assert_eq!(parse("-n").unwrap_err(), "option '-n' needs a value");
        assert_eq!(
            parse_args(&["--budget".into()], SPEC).unwrap_err(),
            "option '--budget' needs a value"
        );
        assert_eq!(
            parse("-n x").unwrap().count("lines").unwrap_err(),
            "--lines needs a number, got 'x'"
        );
    }
}
