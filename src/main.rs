use std::process::ExitCode;

/// mimalloc instead of the system allocator: a command reads thousands of DocCards (hundreds of
/// thousands of small strings) and an index run allocates per token, so both are bound by the
/// cost of small, short-lived allocations, which mimalloc keeps far below glibc's malloc (the
/// benchmark history, docs/src/benchmarks-history.md, "Scale").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    match docnav::cli::run() {
        Ok(code) => code,
        Err(err) => {
            eprintln!(
                "error: {}",
                docnav::cli::output::for_display(&one_line_message(&err))
            );
            ExitCode::from(1)
        }
    }
}

/// The error and its causes joined by `: `, skipping a cause whose text the message already
/// holds (our error types name their OS error in their own message and also expose it as their
/// source, so `{:#}` would print it twice).
fn one_line_message(err: &anyhow::Error) -> String {
    let mut message = err.to_string();
    for cause in err.chain().skip(1) {
        let cause = cause.to_string();
        if !message.contains(&cause) {
            message.push_str(": ");
            message.push_str(&cause);
        }
    }
    message
}
