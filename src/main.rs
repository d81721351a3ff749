use std::process::ExitCode;

fn main() -> ExitCode {
    match docnav::cli::run() {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(1)
        }
    }
}
