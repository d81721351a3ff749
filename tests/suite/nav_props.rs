//! Property tests of the command language's front end (issue 11, point 6): the option parser over
//! arbitrary words and over generated command lines (which must parse back to what generated
//! them), and the path resolver over arbitrary strings and over every node of the fixture trees.

use docnav::nav::args::{parse_args, OptSpec, ParsedArgs};
use docnav::nav::lexer::quote_word;
use docnav::nav::path::Place;
use docnav::nav::{display_path, split_words, Cursor, Role, Session};
use std::sync::{Mutex, MutexGuard, OnceLock};

use docnav::tree::NodeId;
use proptest::prelude::*;

use super::nav::library;

const SPEC: &[OptSpec] = &[
    OptSpec::flag('i', "ignore-case"),
    OptSpec::flag('c', "count"),
    OptSpec::value(Some('n'), "lines"),
    OptSpec::value(None, "budget"),
];
const FLAGS: [(char, &str); 2] = [('i', "ignore-case"), ('c', "count")];

/// One generated piece of a command line.
#[derive(Debug, Clone)]
enum Piece {
    /// A flag, short (`-i`) or long (`--ignore-case`).
    Flag { which: usize, long: bool },
    /// Several short flags in one word (`-ic`), optionally ending in `-n` with its value glued on
    /// (`-icn5`).
    Combined {
        flags: Vec<usize>,
        lines: Option<String>,
    },
    /// `--lines`/`-n` or `--budget` with its value: `-n V`, `-nV`, `--lines V`, `--lines=V`.
    Value {
        budget: bool,
        value: String,
        form: u8,
    },
    /// A positional that does not look like an option.
    Positional(String),
}

fn piece() -> impl Strategy<Value = Piece> {
    let text = "\\PC{0,12}|[ -~]{0,12}";
    prop_oneof![
        (0..2usize, any::<bool>()).prop_map(|(which, long)| Piece::Flag { which, long }),
        (
            prop::collection::vec(0..2usize, 1..4),
            prop::option::of("[0-9a-z]{1,4}")
        )
            .prop_map(|(flags, lines)| Piece::Combined { flags, lines }),
        (any::<bool>(), text, 0..4u8).prop_map(|(budget, value, form)| Piece::Value {
            budget,
            value,
            form
        }),
        text.prop_filter("not an option", |s| !s.starts_with('-') && s != "--")
            .prop_map(Piece::Positional),
    ]
}

/// The words of `pieces` followed by `-- tail…`, and the parse they must give.
fn render(pieces: &[Piece], tail: &[String]) -> (Vec<String>, ParsedArgs) {
    let mut words = Vec::new();
    let mut want = ParsedArgs::default();
    for p in pieces {
        match p {
            Piece::Flag { which, long } => {
                let (short, name) = FLAGS[*which];
                words.push(if *long {
                    format!("--{name}")
                } else {
                    format!("-{short}")
                });
                want.flags.push(name);
            }
            Piece::Combined { flags, lines } => {
                let mut word: String = "-".into();
                for f in flags {
                    word.push(FLAGS[*f].0);
                    want.flags.push(FLAGS[*f].1);
                }
                if let Some(v) = lines {
                    word.push('n');
                    word.push_str(v);
                    want.values.push(("lines", v.clone()));
                }
                words.push(word);
            }
            Piece::Value {
                budget,
                value,
                form,
            } => {
                let name = if *budget { "budget" } else { "lines" };
                // `-nV` needs a value to glue; `--budget` has no short form; a word with
                // whitespace is never an option (a quoted phrase), so such a value is never glued.
                let glue = !value.contains(char::is_whitespace);
                match (form, *budget) {
                    (0, false) if !value.is_empty() && glue => words.push(format!("-n{value}")),
                    (1, false) => words.extend(["-n".to_string(), value.clone()]),
                    (2, _) if glue => words.push(format!("--{name}={value}")),
                    _ => words.extend([format!("--{name}"), value.clone()]),
                }
                want.values.push((name, value.clone()));
            }
            Piece::Positional(text) => {
                words.push(text.clone());
                want.positional.push(text.clone());
            }
        }
    }
    if !tail.is_empty() {
        words.push("--".into());
        words.extend(tail.iter().cloned());
        want.positional.extend(tail.iter().cloned());
    }
    (words, want)
}

/// One session shared by every case (its per-document statistics are computed once, which in a
/// debug build is most of the cost of a first `resolve`).
fn shared_session() -> MutexGuard<'static, Session> {
    static SESSION: OnceLock<Mutex<Session>> = OnceLock::new();
    let lock = SESSION.get_or_init(|| Mutex::new(Session::new(library(), Role::Person)));
    match lock.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// Every `(doc_id, node)` of the fixture library.
fn all_nodes() -> &'static [(String, NodeId)] {
    static NODES: OnceLock<Vec<(String, NodeId)>> = OnceLock::new();
    NODES.get_or_init(|| {
        let lib = library();
        let mut out = Vec::new();
        for card in lib.all_cards() {
            let doc = lib.document(&card.doc_id).unwrap();
            for id in doc.tree.preorder(NodeId::ROOT) {
                out.push((card.doc_id.clone(), id));
            }
        }
        out
    })
}

fn node_of(place: &Place) -> Option<(String, NodeId)> {
    match place {
        Place::Root => None,
        Place::Node { doc_id, node, .. } => Some((doc_id.clone(), *node)),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any words: a parse or a one-line error naming an option, never a panic.
    #[test]
    fn the_option_parser_takes_any_words(words in prop::collection::vec("\\PC{0,8}|-[a-z-]{0,6}(=\\PC{0,4})?", 0..8)) {
        match parse_args(&words, SPEC) {
            Ok(p) => prop_assert!(p.positional.len() <= words.len()),
            Err(e) => prop_assert!(e.starts_with("unknown option '-") || e.starts_with("option '-"), "{}", e),
        }
    }

    /// A generated line, quoted word by word, lexes back to its words and parses back to the
    /// flags, values and positionals it was made from.
    #[test]
    fn generated_command_lines_parse_back(pieces in prop::collection::vec(piece(), 0..6),
                                          tail in prop::collection::vec("\\PC{0,8}", 0..3)) {
        let (words, want) = render(&pieces, &tail);
        let line = words.iter().map(|w| quote_word(w)).collect::<Vec<_>>().join(" ");
        let lexed = split_words(&line).unwrap();
        prop_assert_eq!(&lexed, &words);
        prop_assert_eq!(parse_args(&lexed, SPEC).unwrap(), want);
    }

    /// Any path from any of three places resolves to a place or a fixable message; never a
    /// panic, never a fatal error (every document loads).
    #[test]
    fn any_path_resolves_or_says_why(path in "[/.#]{0,3}\\PC{0,30}|(\\.\\.|/|[0-9]{1,2}|#[0-9.]{0,5}|[a-zé ]{1,5})(/(\\.\\.|[0-9]{1,2}|[a-zé ]{1,5}|)){0,5}",
                                     at in 0usize..3) {
        let mut s = shared_session();
        let cwd = ["/", "/ripgrep-guide/1", "/r-intro/2"][at];
        let cd = format!("cd {cwd}");
        prop_assert!(s.execute(&cd).unwrap().is_ok());
        match s.resolve(&path).unwrap() {
            Ok(_) => {}
            Err(message) => prop_assert!(!message.is_empty() && !message.contains('\n'), "{:?}", message),
        }
    }

    /// Every node is reached by its printed path from anywhere, by `#structure` inside its
    /// document, and its printed path plus `/..` is its parent.
    #[test]
    fn every_node_is_reached_by_its_path(pick in any::<prop::sample::Index>(), from in any::<prop::sample::Index>()) {
        let nodes = all_nodes();
        let (doc_id, node) = nodes[pick.index(nodes.len())].clone();
        let (from_doc, from_node) = nodes[from.index(nodes.len())].clone();
        let lib = library();
        let doc = lib.document(&doc_id).unwrap();
        let mut s = shared_session();
        s.set_cursor(Cursor::Node { doc_id: from_doc, node: from_node });
        let path = display_path(&doc_id, &doc.tree, node);
        let got = node_of(&s.resolve(&path).unwrap().unwrap());
        prop_assert_eq!(got, Some((doc_id.clone(), node)), "{}", path);

        s.set_cursor(Cursor::Node { doc_id: doc_id.clone(), node: NodeId::ROOT });
        let structure = &doc.tree.node(node).structure;
        if !structure.is_empty() {
            let got = node_of(&s.resolve(&format!("#{structure}")).unwrap().unwrap());
            prop_assert_eq!(got, Some((doc_id.clone(), node)));
        }
        let parent = node_of(&s.resolve(&format!("{path}/..")).unwrap().unwrap());
        let want = doc.tree.node(node).parent.map(|p| (doc_id.clone(), p));
        prop_assert_eq!(parent, want);
    }
}

/// The resolver follows titles as well as numbers: each node of the fixture trees whose title
/// path is unambiguous is reached by `/doc_id/<title>/<title>…`.
#[test]
fn nodes_with_unique_titles_are_reached_by_their_title_path() {
    let lib = library();
    let s = shared_session();
    let mut checked = 0;
    for (doc_id, node) in all_nodes().iter().cloned() {
        let doc = lib.document(&doc_id).unwrap();
        let tree = &doc.tree;
        let chain: Vec<NodeId> = tree.ancestors_and_self(node);
        // Every step must be an exact title no sibling shares (prefix matches aside).
        let unique = chain.iter().filter(|n| **n != NodeId::ROOT).all(|n| {
            let title = docnav::tree::title_key(&tree.node(*n).title);
            let parent = tree.node(*n).parent.unwrap_or(NodeId::ROOT);
            let same = tree
                .node(parent)
                .children
                .iter()
                .filter(|c| docnav::tree::title_key(&tree.node(**c).title) == title)
                .count();
            same == 1
                && !title.is_empty()
                && title.parse::<usize>().is_err()
                && !title.starts_with('#')
                && title != "."
                && title != ".."
        });
        if !unique {
            continue;
        }
        let titles: Vec<&str> = chain
            .iter()
            .filter(|n| **n != NodeId::ROOT)
            .map(|n| tree.node(*n).title.as_str())
            .collect();
        let path = format!("/{doc_id}/{}", titles.join("/"));
        let got = node_of(
            &s.resolve(&path)
                .unwrap()
                .unwrap_or_else(|e| panic!("{path}: {e}")),
        );
        assert_eq!(got, Some((doc_id.clone(), node)), "{path}");
        checked += 1;
    }
    assert!(checked > 100, "only {checked} nodes checked");
}
