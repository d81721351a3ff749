//! `docnav exec` and `docnav shell` driven for real: the shell runs in a tmux pane (a real
//! terminal), keys are sent with `send-keys`, the screen is read with `capture-pane`.

use std::cell::Cell;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use super::common::{fixture, run};

/// A temp workspace with the multilingual and ripgrep guide fixtures indexed.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let multilingual = fixture("multilingual.md");
    let guide = fixture("ripgrep__GUIDE.md");
    let out = run(
        &ws,
        &[
            "index",
            multilingual.to_str().unwrap(),
            guide.to_str().unwrap(),
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    dir
}

#[test]
fn exec_prints_output_and_exits_1_on_command_errors() {
    let dir = workspace();
    let ws = dir.path().join("ws");
    let ok = run(&ws, &["exec", "ls"]);
    assert_eq!(ok.code, 0);
    assert_eq!(
        ok.stdout,
        "1. multilingual  [markdown, 873 B]  — Multilingual notes\n2. ripgrep-guide  [markdown, 40.7 KB]  — ripgrep__GUIDE\n"
    );
    let cd = run(&ws, &["exec", "--cwd", "/multilingual", "cd 'Café n'"]);
    assert_eq!((cd.code, cd.stdout.as_str()), (0, "/multilingual/3\n"));
    let bad = run(&ws, &["exec", "--cwd", "/multilingual", "cd nowhere"]);
    assert_eq!(bad.code, 1);
    assert_eq!(
        bad.stderr,
        "cd: no child 'nowhere' under /multilingual (try ls)\n"
    );
    let unknown = run(&ws, &["exec", "frob"]);
    assert_eq!(
        (unknown.code, unknown.stderr.as_str()),
        (1, "unknown command 'frob' (try help)\n")
    );
    let bad_cwd = run(&ws, &["exec", "--cwd", "/nope", "ls"]);
    assert_eq!(bad_cwd.code, 1);
}

/// A tmux server of our own (its own socket), killed on drop.
///
/// Waits look only at what the screen shows from the line the cursor was on when keys were last
/// sent: text an earlier command left on screen never satisfies a wait for this one's output.
pub struct Tmux {
    socket: String,
    /// Index (in [`Tmux::screen`]'s lines) of the last non-blank line when keys were last sent.
    mark: Cell<usize>,
}

impl Tmux {
    pub fn start(command: &str) -> Option<Tmux> {
        let socket = format!("docnav-test-{}-{}", std::process::id(), rand_suffix());
        let status = Command::new("tmux")
            .args([
                "-L",
                &socket,
                // The whole scrollback is kept, so a line's index in `screen` never shifts.
                "start-server",
                ";",
                "set-option",
                "-g",
                "history-limit",
                "100000",
                ";",
                "new-session",
                "-d",
                "-x",
                "120",
                "-y",
                "40",
                command,
            ])
            .status()
            .ok()?;
        status.success().then_some(Tmux {
            socket,
            mark: Cell::new(0),
        })
    }

    /// Send `keys` (tmux key names); later waits look at the screen from the current line on.
    pub fn keys(&self, keys: &[&str]) {
        let screen = self.screen();
        let lines: Vec<&str> = screen.lines().collect();
        let last_line = lines
            .iter()
            .rposition(|line| !line.trim().is_empty())
            .unwrap_or(0);
        self.mark.set(last_line);
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys", "-t", "0"])
            .args(keys)
            .status()
            .unwrap();
        assert!(status.success());
    }

    pub fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args([
                "-L",
                &self.socket,
                "capture-pane",
                "-p",
                "-J",
                "-t",
                "0",
                "-S",
                "-",
            ])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The screen with its escape sequences (colours) kept.
    pub fn screen_with_escapes(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-e", "-t", "0"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Wait until the screen since the last [`Tmux::keys`] contains `want` (10 s at most); returns
    /// the whole screen.
    pub fn wait_for(&self, want: &str) -> String {
        self.wait_until(want, |recent| recent.contains(want))
    }

    /// Wait until `prompt` is on screen after the last `output` since the last [`Tmux::keys`]
    /// (10 s at most): output shown, then the prompt back, means this line is done.
    pub fn wait_for_prompt_after(&self, output: &str, prompt: &str) -> String {
        self.wait_until(&format!("{output:?} then {prompt:?}"), |recent| {
            recent
                .rfind(output)
                .is_some_and(|at| recent[at + output.len()..].contains(prompt))
        })
    }

    fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            let recent: Vec<&str> = screen.lines().skip(self.mark.get()).collect();
            if done(&recent.join("\n")) {
                return screen;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "timed out waiting for {what}; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

/// Whether the terminal tests can run. Without tmux they skip with a message on a developer's
/// machine, but under CI (`CI` set, as `.ci/run` runs) a missing tmux fails the test: a terminal
/// test that silently passes proves nothing.
pub fn tmux_available() -> bool {
    let present = Command::new("tmux").arg("-V").output().is_ok();
    if !present && std::env::var_os("CI").is_some() {
        panic!("tmux is required under CI for the terminal tests (.ci/run installs it)");
    }
    if !present {
        eprintln!("skipping: tmux is not installed");
    }
    present
}

/// Starts tmux on `command`, failing the test when tmux is installed but cannot start a session.
pub fn start_tmux(command: &str) -> Tmux {
    Tmux::start(command).unwrap_or_else(|| panic!("tmux is installed but cannot start a session"))
}

fn rand_suffix() -> u32 {
    rand::random::<u32>()
}

/// `docnav shell` over the test workspace, at its first prompt; `None` without tmux
/// ([`tmux_available`]).
fn shell_at_root() -> Option<(tempfile::TempDir, Tmux)> {
    if !tmux_available() {
        return None;
    }
    let dir = workspace();
    let t = start_tmux(&shell_command(&dir.path().join("ws")));
    t.wait_for("docnav:/> ");
    Some((dir, t))
}

fn shell_command(ws: &Path) -> String {
    format!(
        "env -u PAGER -u DOCNAV_MODEL -u OPENAI_API_KEY -u OPENAI_BASE_URL -u DOCNAV_WORKSPACE NO_COLOR=1 TERM=xterm {} --workspace {} shell; echo EXITED:$?; sleep 60",
        env!("CARGO_BIN_EXE_docnav"),
        ws.display()
    )
}

#[test]
fn shell_cd_ls_completion_ctrl_c_ctrl_d_and_history() {
    let Some((dir, t)) = shell_at_root() else {
        return;
    };
    let ws = dir.path().join("ws");
    // Keys are sent once the next prompt is on screen, so each screen below is exact
    // (typing ahead is covered by `lines_typed_ahead_all_run`).
    t.keys(&["cd multi", "Enter"]);
    t.wait_for("/multilingual\ndocnav:/multilingual> ");
    t.keys(&["ls", "Enter"]);
    t.wait_for("4. Résumé des commandes  [no subsections, 24 words]\ndocnav:/multilingual> ");
    // Tab completes a command name, then a quoted title with spaces.
    t.keys(&["tre", "Tab"]);
    t.wait_for("docnav:/multilingual> tree ");
    t.keys(&["C-u", "cd \"Café n", "Tab"]);
    t.wait_for("docnav:/multilingual> cd \"Café noir\"");
    t.keys(&["Enter"]);
    t.wait_for("/multilingual/3\ndocnav:/multilingual/3> ");
    // Ctrl-C cancels the line being typed: it is never run.
    t.keys(&["garbage words", "C-c"]);
    t.wait_for("garbage words\ndocnav:/multilingual/3> ");
    t.keys(&["pwd", "Enter"]);
    let screen = t.wait_for("> pwd\n/multilingual/3\ndocnav:/multilingual/3> ");
    assert!(!screen.contains("unknown command 'garbage'"), "{screen}");
    // A question goes to the agent; without a model configured that is a message, not a crash.
    t.keys(&["ask how do I install it", "Enter"]);
    t.wait_for_prompt_after(
        "> ask how do I install it\nno model configured",
        "docnav:/multilingual/3> ",
    );
    // Ctrl-D leaves with exit code 0.
    t.keys(&["C-d"]);
    t.wait_for("EXITED:0");
    drop(t);

    let history = std::fs::read_to_string(ws.join("history")).unwrap();
    assert!(history.contains("cd \"Café noir\""), "{history}");
    assert!(!history.contains("garbage"), "{history}");

    // History survives a restart: Up brings back the last line.
    let t = start_tmux(&shell_command(&ws));
    t.wait_for("docnav:/> ");
    t.keys(&["Up"]);
    t.wait_for("docnav:/> ask how do I install it");
    t.keys(&["Up", "Up"]);
    t.wait_for("docnav:/> cd \"Café noir\"");
    t.keys(&["C-u", "C-d"]);
    t.wait_for("EXITED:0");
}

/// Lines typed (or pasted) before the shell is back at its prompt are run in order, not dropped:
/// the terminal reader hands on what it read past the end of a line (rustyline's `buffer-redux`).
#[test]
fn lines_typed_ahead_all_run() {
    let Some((_dir, t)) = shell_at_root() else {
        return;
    };
    // One write to the terminal: the shell reads all three lines at once.
    t.keys(&["cd multi", "Enter", "cd 3", "Enter", "pwd", "Enter"]);
    t.wait_for_prompt_after("> pwd\n/multilingual/3\n", "docnav:/multilingual/3> ");
    // And a line typed while a slow command (a pager-free 60-line grep) is still printing.
    t.keys(&[
        "grep -m 60 rg /ripgrep-guide",
        "Enter",
        "cd /",
        "Enter",
        "pwd",
        "Enter",
    ]);
    t.wait_for_prompt_after("> pwd\n/\n", "docnav:/> ");
    t.keys(&["C-d"]);
    t.wait_for("EXITED:0");
}

/// Colour only on a terminal and never with `NO_COLOR`; long output goes through `$PAGER` only
/// when it is set.
#[test]
fn shell_colour_follows_no_color_and_long_output_uses_pager_only_when_set() {
    if !tmux_available() {
        return;
    }
    let dir = workspace();
    let ws = dir.path().join("ws");
    let paged = dir.path().join("paged.txt");
    let bin = env!("CARGO_BIN_EXE_docnav");
    let coloured = format!(
        "env -u NO_COLOR -u DOCNAV_MODEL -u OPENAI_API_KEY -u OPENAI_BASE_URL TERM=xterm-256color PAGER='cat > {}' {bin} --workspace {} shell; echo EXITED:$?; sleep 60",
        paged.display(),
        ws.display()
    );
    let t = start_tmux(&coloured);
    t.wait_for("docnav:/> ");
    t.keys(&["cd nowhere", "Enter"]);
    t.wait_for_prompt_after("cd: no document 'nowhere' under / (try ls /)", "docnav:/> ");
    let raw = t.screen_with_escapes();
    assert!(
        raw.contains("\u{1b}[31mcd: no document 'nowhere'"),
        "errors are red on a terminal: {raw:?}"
    );
    // 60 grep lines are more than a screen: they go to the pager, not the terminal.
    t.keys(&["grep -m 60 rg /ripgrep-guide", "Enter"]);
    t.wait_for_prompt_after("> grep -m 60 rg /ripgrep-guide\n", "docnav:/> ");
    let start = Instant::now();
    let pager_got = loop {
        let text = std::fs::read_to_string(&paged).unwrap_or_default();
        if text.lines().count() > 40 || start.elapsed() > Duration::from_secs(10) {
            break text;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(pager_got.lines().count() > 40, "{pager_got}");
    assert!(pager_got.starts_with("/ripgrep-guide/1/"), "{pager_got}");
    assert!(!t.screen().contains("/ripgrep-guide/1/"), "{}", t.screen());
    t.keys(&["C-d"]);
    t.wait_for("EXITED:0");
    drop(t);

    // NO_COLOR and no PAGER: plain text, printed directly.
    let plain = t_plain(&ws);
    plain.wait_for("docnav:/> ");
    plain.keys(&["cd nowhere", "Enter"]);
    plain.wait_for_prompt_after("cd: no document 'nowhere' under / (try ls /)", "docnav:/> ");
    assert!(!plain.screen_with_escapes().contains("\u{1b}[31m"));
    plain.keys(&["grep -m 60 rg /ripgrep-guide", "Enter"]);
    // The prompt back before Ctrl-D: a Ctrl-D typed while the output is still printing reaches
    // the terminal in its line mode, which takes it as an end of input nobody reads.
    plain.wait_for_prompt_after("/ripgrep-guide/1/", "docnav:/> ");
    plain.keys(&["C-d"]);
    plain.wait_for("EXITED:0");
}

fn t_plain(ws: &Path) -> Tmux {
    start_tmux(&shell_command(ws).replace("TERM=xterm", "TERM=xterm-256color"))
}
