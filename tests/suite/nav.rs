//! The command language on the fixture library: every documented example, paths, paging, errors.

use std::sync::{Arc, OnceLock};

use docnav::nav::{registry, CommandOutput, Cursor, Effect, Role, Session, Status};
use docnav::tree::BuildOptions;
use docnav::workspace::{InMemoryLibrary, Library};
use pretty_assertions::assert_eq;

use super::common::fixture;

/// The fixture documents used by the nav tests (ids: `multilingual`, `notes`, `ripgrep-guide`,
/// `ripgrep-faq`, `nodejs-doc-fs`, `r-intro`).
pub fn library() -> Arc<dyn Library> {
    static LIB: OnceLock<Arc<InMemoryLibrary>> = OnceLock::new();
    LIB.get_or_init(|| {
        let paths = [
            "multilingual.md",
            "notes.txt",
            "ripgrep__GUIDE.md",
            "ripgrep__FAQ.md",
            "nodejs-doc__fs.md",
            "R-intro.pdf",
        ]
        .map(fixture);
        Arc::new(InMemoryLibrary::from_paths(&paths, &BuildOptions::default()).unwrap())
    })
    .clone()
}

/// A person's session at `cwd`.
pub fn session_at(cwd: &str) -> Session {
    let mut s = Session::new(library(), Role::Person);
    let out = s.execute(&format!("cd {cwd}")).unwrap();
    assert_eq!(out.status, Status::Ok, "cd {cwd}: {}", out.text);
    s
}

fn run(s: &mut Session, line: &str) -> CommandOutput {
    s.execute(line).unwrap()
}

fn text(s: &mut Session, line: &str) -> String {
    let out = run(s, line);
    assert_eq!(out.status, Status::Ok, "{line}: {}", out.text);
    out.text
}

fn error(s: &mut Session, line: &str) -> String {
    let out = run(s, line);
    assert_eq!(
        out.status,
        Status::Error,
        "{line} should fail: {}",
        out.text
    );
    out.text
}

/// nushell-style `test_examples`: every documented example of every command runs and succeeds
/// from `/ripgrep-guide` (check/done as the agent, which is the only one allowed to run them).
#[test]
fn every_documented_example_runs() {
    for cmd in registry() {
        assert!(!cmd.examples().is_empty(), "{} has no examples", cmd.name());
        for ex in cmd.examples() {
            let role = if matches!(cmd.name(), "check" | "done" | "absent") {
                Role::Agent
            } else {
                Role::Person
            };
            let mut s = Session::new(library(), role);
            text(&mut s, "cd /ripgrep-guide");
            let out = run(&mut s, ex.command);
            assert_eq!(
                out.status,
                Status::Ok,
                "example `{}`: {}",
                ex.command,
                out.text
            );
            assert!(
                ex.command.starts_with(cmd.name()),
                "example `{}` does not run {}",
                ex.command,
                cmd.name()
            );
        }
        let help = text(&mut session_at("/"), &format!("help {}", cmd.name()));
        assert!(
            help.starts_with(&format!("usage: {}\n", cmd.usage())),
            "{help}"
        );
    }
}

#[test]
fn ls_at_root_lists_documents_with_format_and_size() {
    assert_eq!(
        text(&mut session_at("/"), "ls"),
        "1. multilingual  [markdown, 873 B]  — Multilingual notes\n\
         2. nodejs-doc-fs  [markdown, 254.5 KB]  — File system\n\
         3. notes  [text, 906 B]  — notes\n\
         4. r-intro  [pdf, 632.0 KB]  — R-intro\n\
         5. ripgrep-faq  [markdown, 41.7 KB]  — ripgrep__FAQ\n\
         6. ripgrep-guide  [markdown, 40.7 KB]  — ripgrep__GUIDE"
    );
}

#[test]
fn ls_lines_give_number_title_leaves_words_summary() {
    let out = text(&mut session_at("/multilingual"), "ls");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4);
    assert!(
        lines[0].starts_with("1. インストール  [1 subsection, "),
        "{}",
        lines[0]
    );
    assert_eq!(
        lines[2],
        "3. Café noir  [no subsections, 15 words]  — Le café noir est servi sans lait. Il se boit chaud, sans sucre de préférence."
    );
    let leaf = text(&mut session_at("/multilingual/3"), "ls");
    assert_eq!(
        leaf,
        "(no sections under /multilingual/3: 15 words here, read them with cat)"
    );
}

#[test]
fn paths_by_number_title_prefix_structure_and_dots() {
    let mut s = session_at("/");
    assert_eq!(text(&mut s, "cd ripgrep-guide/1/2"), "/ripgrep-guide/1/2");
    assert_eq!(
        text(&mut s, "cd \"/ripgrep-guide/USER GUIDE/basics\""),
        "/ripgrep-guide/1/2"
    );
    assert_eq!(text(&mut s, "cd ../rec"), "/ripgrep-guide/1/3");
    assert_eq!(
        text(&mut s, "cd ./../Preprocessor/2"),
        "/ripgrep-guide/1/11/2"
    );
    assert_eq!(text(&mut s, "cd #1.6.1"), "/ripgrep-guide/1/6/1");
    assert_eq!(
        text(&mut s, "cd /ripgrep-guide/#1.10"),
        "/ripgrep-guide/1/10"
    );
    assert_eq!(
        text(
            &mut s,
            "cd '/ripgrep-guide/User Guide/Manual filtering: globs'"
        ),
        "/ripgrep-guide/1/5"
    );
    assert_eq!(
        text(&mut s, r"cd ../Manual\ filtering:\ file"),
        "/ripgrep-guide/1/6"
    );
    assert_eq!(text(&mut s, "pwd"), "/ripgrep-guide/1/6");
    assert_eq!(text(&mut s, "cd ../../.."), "/");
    assert_eq!(
        text(&mut s, "cd .."),
        "/",
        "`..` at the root stays at the root"
    );
    assert_eq!(text(&mut s, "cd ../ripgrep-g"), "/ripgrep-guide");
    assert_eq!(text(&mut s, "cd /3"), "/notes");
    assert_eq!(text(&mut s, "cd"), "/");
}

#[test]
fn non_ascii_titles_resolve_by_title_prefix_and_number() {
    let mut s = session_at("/multilingual");
    assert_eq!(text(&mut s, "cd インストール/設定"), "/multilingual/1/1");
    assert_eq!(text(&mut s, "cd /multilingual/イン"), "/multilingual/1");
    assert_eq!(text(&mut s, "cd \"../CAFÉ CRÈME\""), "/multilingual/2");
    assert_eq!(text(&mut s, "cd ../café\\ n"), "/multilingual/3");
    // NFD (e + U+0301) typed by some keyboards matches the NFC title.
    assert_eq!(
        text(&mut s, "cd ../re\u{301}sume\u{301}"),
        "/multilingual/4"
    );
    let header = text(&mut s, "head -n 0 /multilingual/1/1");
    assert_eq!(header, "== multilingual › インストール › 設定ファイル  (lines 18–21) ==\n[0 of 3 lines; read all with cat /multilingual/1/1]");
}

#[test]
fn ambiguous_prefix_lists_candidates_and_missing_child_says_try_ls() {
    let mut s = session_at("/multilingual");
    assert_eq!(
        error(&mut s, "cd caf"),
        "cd: 'caf' is ambiguous under /multilingual: 2. Café crème, 3. Café noir (use the number or more of the title)"
    );
    assert_eq!(
        text(&mut s, "pwd"),
        "/multilingual",
        "a failed cd does not move"
    );
    assert_eq!(
        error(&mut s, "cd nowhere"),
        "cd: no child 'nowhere' under /multilingual (try ls)"
    );
    assert_eq!(
        error(&mut s, "cat 2/deeper"),
        "cat: no child 'deeper' under /multilingual/2 (try ls)"
    );
    assert_eq!(
        error(&mut s, "cd /ripgrep"),
        "cd: 'ripgrep' is ambiguous under /: 5. ripgrep-faq, 6. ripgrep-guide (use the number or more of the name)"
    );
    assert_eq!(
        error(&mut s, "cd #9.9"),
        "cd: no node '#9.9' in /multilingual (try tree /multilingual)"
    );
    assert_eq!(
        error(&mut session_at("/"), "cd #1"),
        "cd: '#1' needs a document: cd into one first (try ls /)"
    );
}

/// Issue 14.1: every command takes `--` as the end of its options, and a key concept that starts
/// with dashes reaches `find` as a word.
#[test]
fn every_command_ends_its_options_at_double_dash() {
    let mut agent = Session::new(library(), Role::Agent);
    text(&mut agent, "cd /ripgrep-guide");
    for (line, want) in [
        ("ls --", "1. User Guide"),
        ("cd -- 1", "/ripgrep-guide/1"),
        ("pwd --", "/ripgrep-guide/1"),
        (
            "cat --budget 40 -- 10",
            "== ripgrep-guide › User Guide › Binary data",
        ),
        (
            "head -n 1 -- 10",
            "== ripgrep-guide › User Guide › Binary data",
        ),
        ("find -- --binary", "/ripgrep-guide/1/"),
        ("findtree -- '*binary*'", "/ripgrep-guide/1/10"),
        ("grep -c -- --binary", "/ripgrep-guide/1/"),
        ("tree -L 1 -- 10", "/ripgrep-guide/1/10"),
        ("wc -- 10", "/ripgrep-guide/1/10:"),
        ("help -- cat", "usage: cat"),
    ] {
        let out = text(&mut agent, line);
        assert!(out.starts_with(want), "{line}: {out}");
    }
    assert_eq!(run(&mut agent, "check --").effect, Effect::Check);
    assert_eq!(run(&mut agent, "done --").effect, Effect::Done);
    assert_eq!(run(&mut agent, "absent --").effect, Effect::Absent);
    assert!(
        registry().iter().all(|c| [
            "ls", "cd", "pwd", "cat", "head", "find", "findtree", "grep", "tree", "wc", "help",
            "check", "done", "absent"
        ]
        .contains(&c.name())),
        "a new command needs a line above"
    );
    // A quoted phrase is never an option; an unknown option says how to pass it as a word.
    let phrase = text(&mut agent, "find '--binary binary files'");
    assert!(phrase.starts_with("/ripgrep-guide/1/10  "), "{phrase}");
    assert_eq!(
        error(&mut agent, "find --binary"),
        "find: unknown option '--binary' (to use it as a word, end the options first: -- --binary)\nusage: find [-n HITS] <keywords…>"
    );
}

/// Issue 14.4: `help` states the regex flavour and the line-number convention.
#[test]
fn help_states_the_regex_syntax_lines_and_double_dash() {
    let help = text(&mut session_at("/"), "help");
    for needle in [
        "regex: grep takes Rust regex syntax (a|b",
        "no look-around, no backreferences",
        "lines: grep's `path:N` is line N of the section's text as `cat path` shows it",
        "`cat path:N` reads from that line",
        "options: -- ends them",
    ] {
        assert!(help.contains(needle), "{needle} missing:\n{help}");
    }
}

#[test]
fn parser_errors_are_outputs() {
    let mut s = session_at("/");
    assert_eq!(
        error(&mut s, "frobnicate x"),
        "unknown command 'frobnicate' (try help)"
    );
    assert_eq!(
        error(&mut s, "cd a b"),
        "cd: too many arguments\nusage: cd [path]"
    );
    assert_eq!(
        error(&mut s, "head -n lots /multilingual"),
        "head: --lines needs a number, got 'lots'\nusage: head [-n LINES] [path]"
    );
    assert_eq!(
        error(&mut s, "grep"),
        "grep: no regex given\nusage: grep [-i] [-c] [-m MAX] <regex> [path]"
    );
    assert_eq!(
        error(&mut s, "cd \"/multilingual"),
        "unterminated \" quote starting at column 4 (close the quote)"
    );
    assert_eq!(text(&mut s, "   "), "");
}

#[test]
fn check_and_done_belong_to_the_agent() {
    let mut person = session_at("/");
    assert_eq!(
        error(&mut person, "check"),
        "check: only the agent can run this"
    );
    assert_eq!(
        error(&mut person, "done"),
        "done: only the agent can run this"
    );
    let mut agent = Session::new(library(), Role::Agent);
    let out = run(&mut agent, "check");
    assert_eq!((out.text.as_str(), out.effect), ("", Effect::Check));
    assert_eq!(run(&mut agent, "done").effect, Effect::Done);
    assert_eq!(
        error(&mut person, "absent"),
        "absent: only the agent can run this"
    );
    assert_eq!(run(&mut agent, "absent").effect, Effect::Absent);
}

/// Parse `[chars A–B of T shown; read on: cat -o B PATH …]` into the next command.
fn next_command(page: &str) -> Option<String> {
    let note = page.lines().last()?;
    let rest = note.split("read on: ").nth(1)?;
    Some(rest.split(" — ").next()?.trim_end_matches(']').to_string())
}

/// The page body: the chars after the header line that the note's `[chars A–B` range names.
fn body(page: &str) -> String {
    let note = page.lines().last().unwrap();
    let range = note
        .strip_prefix("[chars ")
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    let (a, b) = range.split_once('–').unwrap();
    let len = b.parse::<usize>().unwrap() - a.parse::<usize>().unwrap();
    let mut after_header = &page[page.find('\n').unwrap() + 1..];
    // A page starting inside a table shows the table's header line first; it is not body text.
    if after_header.starts_with("[table header, line ") {
        after_header = &after_header[after_header.find('\n').unwrap() + 1..];
    }
    after_header.chars().take(len).collect()
}

#[test]
fn cat_pages_resume_exactly_and_concatenate_to_the_full_text() {
    let lib = library();
    for (path, budget) in [
        ("/nodejs-doc-fs/4", 4000),
        ("/nodejs-doc-fs/5", 977),
        ("/multilingual", 37),
        ("/ripgrep-guide/1/8", 101),
    ] {
        let mut s = session_at(path);
        let doc = lib.document(path.split('/').nth(1).unwrap()).unwrap();
        let Cursor::Node { node, .. } = s.cursor().clone() else {
            panic!()
        };
        let full = doc.tree.text_of(node);
        let mut joined = String::new();
        let mut command = format!("cat --budget {budget} {path}");
        let mut pages = 0;
        loop {
            let page = text(&mut s, &command);
            pages += 1;
            let next = next_command(&page);
            let b = body(&page);
            assert!(
                b.chars().count() <= budget,
                "page over budget: {}",
                b.chars().count()
            );
            joined.push_str(&b);
            match next {
                Some(n) => command = n.replace("cat -o", &format!("cat --budget {budget} -o")),
                None => break,
            }
        }
        assert_eq!(joined, full, "{path} at budget {budget}");
        assert!(pages > 1, "{path} should need several pages");
        let covered: usize = s.evidence().iter().map(|e| e.chars.len()).sum();
        assert_eq!(
            covered,
            full.chars().count(),
            "evidence covers the whole text once"
        );
    }
}

#[test]
fn cat_header_note_and_evidence() {
    let mut s = Session::new(library(), Role::Agent);
    let out = run(&mut s, "cat -o 100 --budget 200 /ripgrep-guide/1/10");
    let first = out.text.lines().next().unwrap();
    assert_eq!(
        first,
        "== ripgrep-guide › User Guide › Binary data  (lines 713–782) =="
    );
    let last = out.text.lines().last().unwrap();
    let Effect::Evidence(ev) = out.effect else {
        panic!("cat gives evidence")
    };
    assert_eq!((ev.doc_id.as_str(), ev.chars.start), ("ripgrep-guide", 100));
    // Issue 14.10: the note says where the page stopped and which limit cut it.
    assert_eq!(
        last,
        format!(
            "[chars 100–{} of {} shown (lines 4–5 of 68): page cut at a line break within --budget 200; read on: cat -o {} /ripgrep-guide/1/10]",
            ev.chars.end, ev.total_chars, ev.chars.end
        )
    );
    assert_eq!(s.evidence(), &[ev]);
    let with_children = run(&mut s, "cat --budget 300 /ripgrep-guide/1/11").text;
    assert!(
        with_children.ends_with(" — or ls /ripgrep-guide/1/11 and cat one section]"),
        "{with_children}"
    );
    assert_eq!(
        run(&mut s, "cat -o 999999 /multilingual").text,
        "cat: offset 999999 is past the end of /multilingual (681 chars)"
    );
    assert_eq!(run(&mut s, "cat /").status, Status::Error);
}

/// Issue 14.3: one line-number convention. Every `grep` hit `path:N: text`, in Markdown, text and
/// PDF alike, is directly readable: `cat path:N` starts its page on that very line.
#[test]
fn every_grep_hit_is_read_by_cat_path_colon_line() {
    let mut s = Session::new(library(), Role::Person).with_budget(1_000_000);
    let out = text(&mut s, "grep -m 1000 -i 'ripgrep|café|search|vector' /");
    let mut formats = std::collections::BTreeSet::new();
    let mut checked = 0;
    for line in out.lines().filter(|l| !l.starts_with('…')) {
        let mut parts = line.splitn(3, ':');
        let (path, number, shown) = (
            parts.next().unwrap(),
            parts.next().unwrap(),
            parts.next().unwrap(),
        );
        let n: usize = number.parse().unwrap_or_else(|_| panic!("{line}"));
        // A table's header line shown above hits in its body reads the same way.
        let shown = shown.trim_start();
        let shown = shown.strip_prefix("[table header] ").unwrap_or(shown);
        let shown = shown.trim_end_matches('…');
        let page = text(&mut s, &format!("cat {path}:{n}"));
        // A page starting inside a table's body shows the table's header line first.
        let first = page
            .lines()
            .skip(1)
            .find(|l| !l.starts_with("[table header, line "))
            .unwrap();
        let collapsed = first.split_whitespace().collect::<Vec<_>>().join(" ");
        // A title hit shows the title; its line is the `# Title` heading.
        assert!(
            collapsed.starts_with(shown)
                || collapsed
                    .trim_start_matches('#')
                    .trim_start()
                    .starts_with(shown),
            "{line}\ncat {path}:{n} starts with: {first}"
        );
        // The same line is line N of the whole `cat path` text.
        let whole = text(&mut s, &format!("cat {path}"));
        assert_eq!(whole.lines().nth(n), Some(first), "{line}");
        formats.insert(path.split('/').nth(1).unwrap().to_string());
        checked += 1;
    }
    assert!(checked > 100, "only {checked} lines checked");
    for doc in ["r-intro", "notes", "multilingual", "ripgrep-guide"] {
        assert!(formats.contains(doc), "no hit in {doc}: {formats:?}");
    }
}

#[test]
/// Issue 25.3: `cat path:N-M` and `cat -n COUNT path:N` read exactly those lines and collect only
/// them (one line of answer cost 3,500–4,000 chars of evidence when `cat path:N` read to the
/// page budget).
fn cat_of_a_line_range_collects_exactly_those_lines() {
    let mut s = Session::new(library(), Role::Agent);
    let out = run(&mut s, "cat /ripgrep-guide/1/10:3-4");
    let whole = text(&mut s, "cat /ripgrep-guide/1/10");
    let lines: Vec<&str> = whole.lines().skip(1).collect();
    assert_eq!(
        out.text,
        format!(
            "== ripgrep-guide › User Guide › Binary data  (lines 713–782) ==\n{}\n{}\n[lines 3–4 of 68: the lines asked for; the whole section: cat /ripgrep-guide/1/10]",
            lines[2], lines[3]
        )
    );
    let Effect::Evidence(ev) = &out.effect else {
        panic!("a line range is evidence")
    };
    let collected = ev.chars.end - ev.chars.start;
    assert_eq!(
        collected,
        lines[2].chars().count() + lines[3].chars().count() + 2
    );
    assert_eq!(text(&mut s, "cat -n 2 /ripgrep-guide/1/10:3"), out.text);
    assert_eq!(
        error(&mut s, "cat /ripgrep-guide/1/10:4-3"),
        "cat: the range 4-3 ends before it starts (write path:N-M with N ≤ M)"
    );
    assert_eq!(
        error(&mut s, "cat -n 2 /ripgrep-guide/1/10"),
        "cat: -n COUNT reads COUNT lines from a line: cat -n 5 path:N\nusage: cat [-o OFFSET | -l LINE] [-n COUNT] [--budget CHARS] [path[:LINE[-LAST]]]"
    );
    // A range past the end reads to the end.
    let tail = text(&mut s, "cat /multilingual/3:3-99");
    assert!(tail.contains("Le café noir est servi sans lait."), "{tail}");
}

#[test]
fn cat_from_a_line_its_errors_and_its_note() {
    let mut s = Session::new(library(), Role::Agent);
    let out = run(&mut s, "cat -l 3 /multilingual/3");
    assert_eq!(
        out.text,
        "== multilingual › Café noir  (lines 27–30) ==\nLe café noir est servi sans lait. Il se boit chaud, sans sucre de préférence.\n[chars 13–91 of 91 shown (line 3 of 3); end of /multilingual/3]"
    );
    let Effect::Evidence(ev) = out.effect else {
        panic!("cat from a line is evidence")
    };
    assert_eq!(ev.chars, 13..91);
    assert_eq!(text(&mut s, "cat /multilingual/3:3"), out.text);
    assert_eq!(text(&mut s, "cd /multilingual/3"), "/multilingual/3");
    assert_eq!(text(&mut s, "cat :3"), out.text);
    assert_eq!(
        error(&mut s, "cat /multilingual/3:9"),
        "cat: line 9 is past the end of /multilingual/3 (3 lines)"
    );
    assert_eq!(
        error(&mut s, "cat /multilingual/3:0"),
        "cat: lines count from 1 (the heading)"
    );
    assert_eq!(
        error(&mut s, "cat -o 5 /multilingual/3:2"),
        "cat: give a line or an offset (-o), not both\nusage: cat [-o OFFSET | -l LINE] [-n COUNT] [--budget CHARS] [path[:LINE[-LAST]]]"
    );
    assert_eq!(
        error(&mut s, "cat /nowhere:2"),
        "cat: no document 'nowhere:2' under / (try ls /)"
    );
}

#[test]
fn grep_caps_counts_and_reports_bad_regex() {
    let mut s = session_at("/ripgrep-guide");
    let count = text(&mut s, "grep -c rg");
    let total: usize = count.lines().last().unwrap()["total: ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(total > 30);
    let capped = text(&mut s, "grep rg");
    let lines: Vec<&str> = capped.lines().collect();
    assert_eq!(lines.len(), 31);
    assert_eq!(
        lines[30],
        format!(
            "… {} more matching line(s) not shown (narrow the regex or the path, or -m)",
            total - 30
        )
    );
    assert_eq!(
        error(&mut s, "grep '(unclosed'"),
        "grep: bad regex '(unclosed': error: unclosed group"
    );
    assert_eq!(
        text(&mut s, "grep -i 'zzqqxx' 1/2"),
        "grep: no line below /ripgrep-guide/1/2 matches 'zzqqxx'"
    );
}

#[test]
fn find_searches_the_document_or_everything_at_root() {
    let mut s = session_at("/ripgrep-guide");
    let out = text(&mut s, "find binary data");
    assert!(
        out.lines()
            .next()
            .unwrap()
            .starts_with("/ripgrep-guide/1/10  "),
        "{out}"
    );
    assert!(out.lines().all(|l| l.starts_with("/ripgrep-guide/")));
    let all = text(&mut session_at("/"), "find -n 20 café file");
    // 20 hits, then a line saying more sections match.
    let hits: Vec<&str> = all.lines().filter(|l| l.starts_with('/')).collect();
    assert_eq!(hits.len(), 20, "{all}");
    assert_eq!(
        all.lines().last(),
        Some("(the best 20 hits shown, best first; more sections match: find -n 40 for more)")
    );
    let docs: std::collections::BTreeSet<&str> =
        hits.iter().map(|l| l.split('/').nth(1).unwrap()).collect();
    assert!(docs.len() >= 2, "{all}");
    // Every hit path is reusable as is.
    for line in hits {
        let path = line.split("  ").next().unwrap();
        assert_eq!(text(&mut session_at("/"), &format!("cd {path}")), path);
    }
    assert_eq!(
        text(&mut s, "find zzqqxx"),
        "find: no section of /ripgrep-guide matches 'zzqqxx' (try other words, or grep)"
    );
    // Zero hits is a usage error, not "no section matches".
    let zero = error(&mut s, "find -n 0 binary data");
    assert!(zero.contains("-n needs at least 1 hit"), "{zero}");
    assert!(!zero.contains("no section"), "{zero}");
}

#[test]
fn findtree_tree_wc_head() {
    let mut s = session_at("/ripgrep-guide");
    assert_eq!(
        text(&mut s, "findtree '*preprocessor*'"),
        "/ripgrep-guide/1/11  User Guide › Preprocessor\n\
         /ripgrep-guide/1/11/1  User Guide › Preprocessor › A more robust preprocessor\n\
         /ripgrep-guide/1/11/2  User Guide › Preprocessor › Reducing preprocessor overhead"
    );
    assert_eq!(
        text(&mut s, "tree -L 2 /multilingual"),
        "/multilingual — Multilingual notes\n  1 インストール\n    1.1 設定ファイル\n  2 Café crème\n  3 Café noir\n  4 Résumé des commandes"
    );
    let wc = text(&mut s, "wc /multilingual");
    assert_eq!(
        wc,
        "/multilingual: 33 lines, 116 words, 681 chars, ~171 tokens"
    );
    assert_eq!(
        text(&mut s, "head -n 1 /multilingual/3"),
        "== multilingual › Café noir  (lines 27–30) ==\n# Café noir\n[1 of 3 lines; read all with cat /multilingual/3]"
    );
}

#[test]
fn completion_of_commands_titles_and_numbers() {
    let s = session_at("/multilingual");
    assert_eq!(s.complete("fi", 2), vec!["find", "findtree"]);
    assert_eq!(
        s.complete("cd Caf", 6),
        vec!["\"Café crème\"", "\"Café noir\""]
    );
    assert_eq!(s.complete("cd イ", "cd イ".len()), vec!["インストール"]);
    assert_eq!(s.complete("cat 1/", 6), vec!["1/設定ファイル"]);
    assert_eq!(s.complete("ls 3", 4), vec!["3"]);
    assert_eq!(
        s.complete("ls /rip", 7),
        vec!["/ripgrep-faq", "/ripgrep-guide"]
    );
    assert_eq!(
        s.complete("cd \"Café c", "cd \"Café c".len()),
        vec!["\"Café crème\""]
    );
    assert!(s.complete("cd nothing/", 11).is_empty());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
    /// Fuzz: any line, from several places, gives an output (never a panic, never a fatal error).
    #[test]
    fn execute_never_panics(line in "(ls|cd|cat|head|grep|find|findtree|tree|wc|pwd|help|check|x)?[ -~\\PC]{0,40}", place in 0usize..3) {
        let cwd = ["/", "/multilingual/1", "/ripgrep-guide/1/11"][place];
        let mut s = session_at(cwd);
        proptest::prop_assert!(s.execute(&line).is_ok());
        let _ = s.complete(&line, line.len() / 2);
    }
}

/// Run `command`, then every `ls --from …` its output says to run next, each output within
/// `budget` chars; the listed numbers in order and how many listings it took.
fn follow_listing(s: &mut Session, command: &str, budget: usize) -> (Vec<usize>, usize) {
    let mut command = command.to_string();
    let (mut numbers, mut pages) = (Vec::new(), 0);
    loop {
        let out = text(s, &command);
        assert!(out.chars().count() <= budget, "{out}");
        pages += 1;
        let mut next = None;
        for line in out.lines() {
            if let Some(rest) = line.split("list them with: ").nth(1) {
                next = Some(rest.to_string());
            } else {
                numbers.push(line.split('.').next().unwrap().parse::<usize>().unwrap());
            }
        }
        match next {
            Some(n) => command = n,
            None => return (numbers, pages),
        }
    }
}

#[test]
fn long_listings_stop_at_the_budget_and_say_how_to_go_on() {
    let mut s = Session::new(library(), Role::Person).with_budget(1500);
    let (numbers, _) = follow_listing(&mut s, "ls /nodejs-doc-fs/5", 1500);
    assert_eq!(numbers, (1..=52).collect::<Vec<_>>());
    assert_eq!(
        text(&mut s, "ls --from 99 /multilingual"),
        "(no section number 99 under /multilingual: it has 4)"
    );
}

/// `ls /` reads one page of the catalog and stops at the budget like any listing, saying how to
/// go on (issue 24: at 100,000 documents it printed them all).
#[test]
fn ls_at_root_stops_at_the_budget_and_says_how_to_go_on() {
    let mut s = Session::new(library(), Role::Person).with_budget(250);
    let (numbers, pages) = follow_listing(&mut s, "ls /", 250);
    assert!(pages > 1, "{pages}");
    assert_eq!(numbers, (1..=6).collect::<Vec<_>>());
    assert_eq!(
        text(&mut s, "ls --from 9 /"),
        "(no document number 9 under /: there are 6)"
    );
}

#[test]
fn pdf_nodes_show_pages() {
    let mut s = session_at("/r-intro");
    assert_eq!(text(&mut s, "cd '2 simple'"), "/r-intro/3");
    let head = text(&mut s, "head -n 1");
    assert_eq!(
        head.lines().next().unwrap(),
        "== r-intro › 2 Simple manipulations; numbers and vectors  (pages 14–19) =="
    );
}

#[test]
fn cat_default_budget_is_4000_chars_and_zero_is_a_usage_error() {
    let mut s = Session::new(library(), Role::Agent);
    let page = text(&mut s, "cat /nodejs-doc-fs/4");
    let note = page.lines().last().unwrap();
    let shown: usize = note["[chars 0–".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (3000..=4000).contains(&shown),
        "default page should stop just under 4000 chars: {note}"
    );
    assert!(
        note.contains(" within the 4000-char output budget; read on: cat -o "),
        "{note}"
    );
    assert_eq!(
        error(&mut s, "cat --budget 0 /multilingual"),
        "cat: --budget needs at least 1 char\nusage: cat [-o OFFSET | -l LINE] [-n COUNT] [--budget CHARS] [path[:LINE[-LAST]]]"
    );
}

#[test]
fn grep_i_ignores_case_and_a_zero_cap_prints_only_the_count_line() {
    let mut s = session_at("/multilingual");
    assert_eq!(
        text(&mut s, "grep CAFÉ"),
        "grep: no line below /multilingual matches 'CAFÉ'"
    );
    let folded = text(&mut s, "grep -i CAFÉ");
    assert_eq!(folded, text(&mut s, "grep '[Cc]afé'"));
    assert!(folded.lines().count() >= 3, "{folded}");
    // Regression: `-m 0` printed an empty line before the count of lines not shown.
    let n = folded.lines().count();
    assert_eq!(
        text(&mut s, "grep -m 0 -i CAFÉ"),
        format!("… {n} more matching line(s) not shown (narrow the regex or the path, or -m)")
    );
}

/// Regression: a hit on a section without text of its own ended in a dangling `: `.
#[test]
fn find_hit_on_a_section_without_text_ends_at_its_title() {
    let lib = library();
    let (doc_id, doc, node) = lib
        .all_cards()
        .iter()
        .map(|c| (c.doc_id.clone(), lib.document(&c.doc_id).unwrap()))
        .find_map(|(id, doc)| {
            let tree = &doc.tree;
            let node = tree
                .preorder(docnav::tree::NodeId::ROOT)
                .into_iter()
                .find(|&n| {
                    let n = tree.node(n);
                    n.content.trim().is_empty() && n.depth > 0 && (8..70).contains(&n.title.len())
                })?;
            Some((id, doc.clone(), node))
        })
        .expect("a fixture has a section with children only");
    let node = doc.tree.node(node);
    let path = format!("/{doc_id}/{}", node.structure.replace('.', "/"));
    let out = text(
        &mut session_at(&format!("/{doc_id}")),
        &format!("find -n 50 {}", node.title.replace(['`', '\''], " ")),
    );
    let line = out
        .lines()
        .find(|l| l.starts_with(&format!("{path}  ")))
        .unwrap_or_else(|| panic!("{path} not among the hits:\n{out}"));
    assert!(line.ends_with(&node.title), "{line}");
}
