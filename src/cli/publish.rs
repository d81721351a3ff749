//! `docnav publish DIR`: write the workspace as a new read-only generation in the publish folder
//! `DIR`, for replicas to copy ([`crate::workspace::publish`]).
//!
//! A subcommand of its own, with `docnav index --publish DIR` as a shorthand, because publishing
//! is not tied to an index run: a workspace indexed by `docnav index --watch` or by a script
//! that runs several `docnav index` calls is published once it is in the state to ship, and a
//! publish that failed (a full disk) is retried without indexing again.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::GlobalArgs;
use crate::workspace::publish::{self, manifest, DEFAULT_KEEP};

/// Arguments of `docnav publish`.
#[derive(Debug, clap::Args)]
pub struct PublishArgs {
    /// The publish folder: created if missing (it must then be new or empty); each publish adds
    /// a generation folder `gen-NNNNNN` to it. Replicas copy this folder (`rsync -a --delete`)
    /// and open it with `--workspace DIR`.
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// Keep this many newest generations; older ones are deleted after publishing.
    #[arg(long, default_value_t = DEFAULT_KEEP, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    keep: u64,
    /// Publish nothing: read every file of every generation in DIR and check it against its
    /// manifest's sizes and sha256 (exit 1 when one differs).
    #[arg(long)]
    verify: bool,
}

/// Run `docnav publish`. Prints the new generation's folder on stdout and a summary on stderr;
/// with `--verify`, one line per generation on stdout.
pub fn run(global: &GlobalArgs, args: PublishArgs) -> anyhow::Result<ExitCode> {
    if args.verify {
        return verify(&args.dir);
    }
    let path = publish_and_report(&global.workspace, &args.dir, args.keep)?;
    println!("{}", path.display());
    Ok(ExitCode::SUCCESS)
}

/// Publish `workspace` into `dir` keeping `keep` generations, and print one summary line on
/// stderr. Returns the new generation's folder. Errors: [`publish::publish`]'s.
pub fn publish_and_report(workspace: &Path, dir: &Path, keep: u64) -> anyhow::Result<PathBuf> {
    let done = publish::publish(workspace, dir, keep)?;
    let pruned = match done.pruned.len() {
        0 => String::new(),
        n => format!("; {n} older generation(s) deleted"),
    };
    eprintln!(
        "published `{}`: {} document(s), {} file(s), {:.1} MB ({} hard-linked, {} copied){pruned}",
        done.path.display(),
        done.manifest.documents,
        done.manifest.file_count(),
        done.bytes() as f64 / 1e6,
        done.linked,
        done.copied,
    );
    Ok(done.path)
}

fn verify(dir: &Path) -> anyhow::Result<ExitCode> {
    let generations = publish::generations(dir);
    if !publish::is_publish_folder(dir) || generations.is_empty() {
        eprintln!(
            "error: `{}` is not a publish folder with generations\n\
             hint: docnav publish DIR writes one",
            dir.display()
        );
        return Ok(ExitCode::from(1));
    }
    let mut failed = false;
    for (_, path) in generations {
        match manifest::verify(&path) {
            Ok(m) => println!("{}: ok ({} files)", path.display(), m.file_count()),
            Err(why) => {
                failed = true;
                println!("{}: incomplete or damaged: {why}", path.display());
            }
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
