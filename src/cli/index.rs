//! `docnav index <paths|dirs|globs…>`.

use std::path::Path;
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};

use super::{output, GlobalArgs};
use crate::parse::pdf::{PageBudget, PdfOptions};
use crate::parse::zipped::ZipOptions;
use crate::parse::ParseOptions;
use crate::tree::{BuildOptions, DocFormat};
use crate::workspace::indexer::{IndexProgress, NoProgress};
use crate::workspace::{watch, IndexOptions, Library, Workspace};

/// Arguments of `docnav index`.
#[derive(Debug, clap::Args)]
pub struct IndexArgs {
    /// Files, folders (searched recursively for .md .markdown .pdf .txt .html .htm .xhtml .docx .epub,
    /// passing over hidden entries, a Sphinx build's `_sources/` copies and index pages, a page's
    /// `.txt` source beside its `.html` and a site's `404.html`) or globs (`docs/**/*.md`).
    /// Without any: re-index every document of the workspace whose source changed (and repair
    /// its search index).
    #[arg(value_name = "PATH")]
    paths: Vec<String>,
    /// Remove documents whose source file no longer exists (when only files are named: those
    /// of the named files that are gone).
    #[arg(long)]
    prune: bool,
    /// Rebuild every document even when unchanged.
    #[arg(long)]
    force: bool,
    /// Worker threads [default: all cores].
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
    /// Split leaves larger than this many estimated tokens (chars / 4) into `Part N` children.
    #[arg(long, default_value_t = 4000, value_name = "TOKENS")]
    max_leaf_tokens: u32,
    /// Refuse a PDF with a page whose content inflates past this many MiB (or runs past 65,536
    /// operators per MiB): a decompression bomb fails fast instead of eating time and memory.
    #[arg(
        long,
        default_value_t = crate::parse::pdf::DEFAULT_MAX_PAGE_MIB,
        value_name = "MIB",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    max_pdf_page_mib: u32,
    /// Refuse a DOCX or EPUB with a zip entry that inflates past this many MiB: a zip bomb
    /// fails fast instead of eating time and memory.
    #[arg(
        long,
        default_value_t = crate::parse::zipped::DEFAULT_MAX_ENTRY_MIB,
        value_name = "MIB",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    max_zip_entry_mib: u32,
    /// Index only these formats, comma-separated: md, pdf, html, docx, epub, txt [default: all]. Folders
    /// and globs pass over files of other formats; a file of another format named here is an
    /// error.
    #[arg(long, value_delimiter = ',', value_name = "LIST", value_parser = parse_format)]
    formats: Vec<DocFormat>,
    /// How node summaries are made (only `quick`, the first sentences, needs no model).
    #[arg(long, default_value = "quick", value_parser = ["quick"])]
    summaries: String,
    /// After indexing, keep watching the files and folders given and index each change as it
    /// happens: changed and new files are built, the documents of deleted or moved-away files
    /// dropped. Runs until interrupted (Ctrl-C); one report line per batch of changes.
    #[arg(long, requires = "paths")]
    watch: bool,
    /// At the end of the run, merge the whole search index into one segment and drop the
    /// entries of replaced and removed documents for good. A run that writes a quarter of the
    /// index does so by itself; after many small runs (edits, `--watch`) the index is left in
    /// several segments, and each costs every search its own walk (at 100,000 documents a
    /// search takes about a fifth longer per large segment). The merge rewrites the index:
    /// about a minute per 20 million entries (100,000 documents) on 2 cores.
    #[arg(long, conflicts_with = "watch")]
    merge: bool,
    /// After the run (with --watch: after each run), publish the workspace as a new read-only
    /// generation in this folder, as `docnav publish DIR` does.
    #[arg(long, value_name = "DIR")]
    publish: Option<std::path::PathBuf>,
    /// With --publish: keep this many newest generations.
    #[arg(long, requires = "publish", default_value_t = crate::workspace::publish::DEFAULT_KEEP, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    keep: u64,
}

/// A `--formats` name (see [`DocFormat::from_flag_name`]).
fn parse_format(name: &str) -> Result<DocFormat, String> {
    DocFormat::from_flag_name(name).ok_or_else(|| {
        let known: Vec<&str> = DocFormat::ALL.iter().map(|f| f.flag_name()).collect();
        format!("unknown format `{name}` (known: {})", known.join(", "))
    })
}

struct Bar(ProgressBar);

impl IndexProgress for Bar {
    fn start(&self, total: usize) {
        self.0.set_length(total as u64);
    }
    fn file_done(&self, path: &Path) {
        if let Some(name) = path.file_name() {
            // One line on a terminal: a file name's control characters (a newline too) escaped.
            let name = name.to_string_lossy();
            self.0
                .set_message(output::for_display(&name).replace('\n', "\\n"));
        }
        self.0.inc(1);
    }
    fn phase(&self, step: &str) {
        self.0.set_message(step.to_string());
        // The bar is full and stays so: the spinner says the run is alive.
        self.0
            .enable_steady_tick(std::time::Duration::from_millis(120));
    }
}

/// Have the kernel back this process's memory with 4 KiB pages only. mimalloc asks for
/// transparent huge pages, so each first touch of a fresh 2 MiB region zeroes all of it; an index
/// run allocates and frees much short-lived memory (sources, inflated XML, trees, index
/// entries) on several threads, so with huge pages the kernel keeps zeroing whole 2 MiB regions
/// (`clear_page_erms` under huge-page faults) for memory used briefly. Without them the run
/// spends less system time and peak memory for the same user time (the figures: the benchmark
/// history, docs/src/benchmarks-history.md, "Formats").
#[cfg(target_os = "linux")]
fn without_huge_pages() {
    // Best effort: an older kernel without the setting just keeps its huge pages.
    let _ = rustix::thread::disable_transparent_huge_pages(true);
}

#[cfg(not(target_os = "linux"))]
fn without_huge_pages() {}

/// Run `docnav index`. Exit 1 when any input failed (after indexing all the others); exit 2
/// without paths when there is no workspace to refresh.
pub fn run(global: &GlobalArgs, args: IndexArgs) -> anyhow::Result<ExitCode> {
    without_huge_pages();
    let nothing_to_refresh =
        || Workspace::open_or_empty(&global.workspace).is_ok_and(|w| w.document_count() == 0);
    if args.paths.is_empty() && nothing_to_refresh() {
        eprintln!(
            "error: no paths given, and no documents in workspace `{}` to refresh\n\
             hint: docnav index <files|folders|globs…>",
            global.workspace.display()
        );
        return Ok(ExitCode::from(2));
    }
    let mut options = IndexOptions {
        build: BuildOptions {
            max_leaf_tokens: args.max_leaf_tokens.max(1),
            parse: ParseOptions {
                pdf: PdfOptions {
                    page_budget: PageBudget::from_mib(args.max_pdf_page_mib),
                },
                zip: ZipOptions::from_mib(args.max_zip_entry_mib),
            },
            ..BuildOptions::default()
        },
        prune: args.prune,
        force: args.force,
        merge: args.merge,
        formats: if args.formats.is_empty() {
            DocFormat::ALL.to_vec()
        } else {
            args.formats.clone()
        },
        ..IndexOptions::default()
    };
    if let Some(jobs) = args.jobs {
        options.jobs = jobs.max(1);
    }
    let bar = super::output::stderr_is_tty().then(|| {
        let bar = ProgressBar::new(0);
        if let Ok(style) =
            ProgressStyle::with_template("{spinner} indexing [{bar:30}] {pos}/{len} {wide_msg}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        Bar(bar)
    });
    let progress: &dyn IndexProgress = match &bar {
        Some(bar) => bar,
        None => &NoProgress,
    };
    // Watching starts before the first run, so that a change made while it runs is not lost.
    let watching = match args.watch {
        true => match watch::roots(&args.paths) {
            Ok(roots) => Some((watch::Changes::start(&roots)?, roots)),
            Err(e) => {
                eprintln!("error: {}", watch_error(&e));
                return Ok(ExitCode::from(2));
            }
        },
        false => None,
    };
    let report = Workspace::index(&global.workspace, &args.paths, &options, progress)?;
    if let Some(bar) = &bar {
        bar.0.finish_and_clear();
    }
    let failed = print_report(&report);
    if args.merge {
        print_merge(&report);
    }
    let failed = failed || report.merge_failed;
    let publish_to = args.publish.as_deref().map(|dir| (dir, args.keep));
    if let Some((dir, keep)) = publish_to {
        super::publish::publish_and_report(&global.workspace, dir, keep)?;
    }
    let Some((changes, roots)) = watching else {
        return Ok(if failed {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        });
    };
    let mut watch = watch::Watch::new(roots, options.formats.clone(), &global.workspace);
    eprintln!(
        "watching {} path(s) for changes (Ctrl-C stops)",
        args.paths.len()
    );
    while let Some(batch) = changes.next_batch() {
        let plan = watch.plan(&batch);
        let published = watch
            .index(&global.workspace, &options, &plan, &mut |report| {
                print_report(report);
            })
            .map_err(anyhow::Error::from)
            .and_then(|ran| match publish_to {
                Some((dir, keep)) if ran => {
                    super::publish::publish_and_report(&global.workspace, dir, keep).map(drop)
                }
                _ => Ok(()),
            });
        if let Err(e) = published {
            // The next change tries again: a workspace error (a full disk, say) may pass.
            eprintln!("error: {e:#}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A `--watch` path the watch refuses, in the command line's words.
fn watch_error(e: &watch::WatchError) -> String {
    match e {
        watch::WatchError::Glob(arg) => format!(
            "--watch takes files and folders, and `{arg}` is a glob \
             (watch its folder, with --formats to choose the file types)"
        ),
        other => other.to_string(),
    }
}

/// The line `--merge` adds to the report (a failed merge is among the report's errors).
fn print_merge(report: &crate::workspace::IndexReport) {
    match report.merged {
        Some(merged) => eprintln!(
            "merged the search index into {} segment{} ({} before) in {:.2} s",
            merged.segments_after,
            if merged.segments_after == 1 { "" } else { "s" },
            merged.segments_before,
            merged.elapsed.as_secs_f64()
        ),
        None if !report.merge_failed => {
            eprintln!("the search index is one segment without deleted entries: nothing to merge");
        }
        None => {}
    }
}

/// Most `note:` lines one run prints; past it, one line says how many more there are. A
/// folder of copies gives a note per copy (10,000 copies, 10,000 lines) whose content
/// `docnav docs` lists in full, and a terminal of them would hide the warnings and errors
/// printed after them. The library's report keeps every notice.
const MAX_NOTE_LINES: usize = 20;

/// Print a run's notices (at most [`MAX_NOTE_LINES`]), warnings, errors and its summary line
/// to stderr; true when any input failed.
fn print_report(report: &crate::workspace::IndexReport) -> bool {
    for notice in report.notices.iter().take(MAX_NOTE_LINES) {
        eprintln!("note: {notice}");
    }
    let more = report.notices.len().saturating_sub(MAX_NOTE_LINES);
    if more > 0 {
        eprintln!(
            "note: … and {more} more notes ({MAX_NOTE_LINES} shown; `docnav docs` lists every \
             document with its aliases)"
        );
    }
    for warning in &report.warnings {
        eprintln!("warning: {}", output::for_display(&warning.to_string()));
    }
    for error in &report.errors {
        eprintln!("error: {}", output::for_display(&error.to_string()));
    }
    let pruned = if report.pruned > 0 {
        format!(", {} pruned", report.pruned)
    } else {
        String::new()
    };
    // Sources kept as aliases of a document with their text (each is a `note:` line above).
    let duplicates = if report.duplicates > 0 {
        format!(", {} duplicates kept as aliases", report.duplicates)
    } else {
        String::new()
    };
    eprintln!(
        "indexed {} documents ({} unchanged, {} failed{pruned}{duplicates}) in {:.2} s",
        report.indexed,
        report.unchanged,
        report.failed,
        report.elapsed.as_secs_f64()
    );
    report.failed > 0
}
