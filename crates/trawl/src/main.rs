//! trawl: a parallel recursive grep for huge file trees.
//!
//! The data path, stage by stage (each stage a crate):
//!
//! ```text
//! args.rs, config.rs   options → MatcherBuilder, SearcherConfig, PrinterConfig, WalkBuilder
//! trawl-walk           roots → getdents64/openat on N threads (work stealing) → Entry
//! grep.rs (Visitor)    Entry → globs, file type → open → Searcher (one per thread)
//! trawl-search         read() into a reusable buffer → Matcher over the whole buffer
//!                      → lines located around matches → Sink callbacks
//! trawl-matcher        Rust regex | PCRE2 (JIT) | Aho-Corasick, with grep's line semantics
//! trawl-printer        Sink → grep format / JSON / color into a per-thread buffer
//! output.rs            whole files' output → stdout under a lock, in large writes
//!
//! trawl find: find.rs   parse (trawl-select) → the same walk → Evaluator per thread
//!                       (tests read metadata lazily; actions print or spawn argv)
//! ```
//!
//! Exit status as GNU grep: 0 a line was selected, 1 none, 2 an error
//! (0 with `-q` when a line was selected, errors or not).

mod args;
mod cache_cmd;
mod config;
mod find;
mod grep;
mod output;
mod patterns;
mod sigpipe;
mod thread_growth;
mod usage;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Instant;

use trawl_printer::{Chunk, OutputMode, Stats};
use trawl_search::Cancel;

fn main() -> ExitCode {
    let start = Instant::now();
    sigpipe::restore();
    let cancel = Cancel::new();
    install_interrupt_handler(&cancel);
    let mut argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if argv.get(1).is_some_and(|a| a == "find") {
        raise_open_file_limit();
        return find::main(argv.split_off(2), cancel);
    }
    if argv.get(1).is_some_and(|a| a == "cache") {
        return cache_cmd::main(argv.split_off(2));
    }
    let command = args::command();
    let argv = args::preprocess(argv, &command);
    let matches = match command.try_get_matches_from(&argv) {
        Ok(m) => m,
        Err(e) if e.use_stderr() => {
            eprintln!("trawl: {}", usage::message(&e, &argv));
            return ExitCode::from(2);
        }
        Err(e) => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
    };
    let cfg = match config::Config::from_matches(&matches, cancel.clone()) {
        Ok(c) => c,
        Err(msg) => {
            eprintln!("trawl: {msg}");
            return ExitCode::from(2);
        }
    };
    if cfg.selects_nothing {
        return ExitCode::from(1);
    }
    raise_open_file_limit();
    let out = output::Stdout::new(&cfg);
    let ctx = grep::Context::new(&cfg, &out);
    let stats: Stats = grep::run(&ctx);
    if cfg.stats || cfg.printer.mode == OutputMode::Json {
        let mut text = Vec::new();
        let elapsed = start.elapsed();
        if cfg.printer.mode == OutputMode::Json {
            trawl_printer::json_summary(&mut text, &stats, elapsed);
        } else {
            text.extend_from_slice(
                format!(
                    "\n{} matches\n{} matched lines\n{} files contained matches\n{} files searched\n{} bytes printed\n{} bytes searched\n{:.6} seconds\n",
                    stats.matches,
                    stats.matched_lines,
                    stats.files_matched,
                    stats.files_searched,
                    stats.bytes_printed,
                    stats.bytes_searched,
                    elapsed.as_secs_f64()
                )
                .as_bytes(),
            );
        }
        let _ = trawl_printer::Output::write(&out, &text, Chunk::Continued);
    }
    if cancel.is_cancelled() {
        if cfg.printer.colors.is_some() {
            // A line cut short may have left a color on.
            let _ = trawl_printer::Output::write(&out, b"\x1b[0m", Chunk::Continued);
        }
        die_of_interrupt();
    }
    let matched = ctx.matched.load(Ordering::Relaxed);
    let error = ctx.error.load(Ordering::Relaxed);
    if out.broken_pipe() {
        // SIGPIPE was ignored (or trawl would have died of it): as grep,
        // the write error was reported, and the exit status says so.
        return ExitCode::from(2);
    }
    let _ = std::io::stderr().flush();
    if cfg.printer.mode == OutputMode::Quiet && matched {
        return ExitCode::from(0);
    }
    ExitCode::from(if error {
        2
    } else if matched {
        0
    } else {
        1
    })
}

/// Deep trees keep a descriptor open per level and thread: lift the soft limit.
fn raise_open_file_limit() {
    // SAFETY: getrlimit/setrlimit with a valid out-pointer.
    unsafe {
        let mut rl: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) == 0 && rl.rlim_cur < rl.rlim_max {
            rl.rlim_cur = rl.rlim_max.min(1 << 20);
            libc::setrlimit(libc::RLIMIT_NOFILE, &rl);
        }
    }
}

/// SIGINT (and SIGTERM) cancel the run: every search stops at its next
/// read, every walker thread at its next entry, `-exec` children are
/// interrupted and waited for, colors are reset, then trawl dies of SIGINT.
/// A second signal ends trawl at once (exit status 128 + the signal).
fn install_interrupt_handler(cancel: &Cancel) {
    use signal_hook::consts::{SIGINT, SIGTERM};
    for sig in [SIGINT, SIGTERM] {
        // Registered first, so it sees the flag as the previous signal left
        // it: set only from the second signal on.
        let _ = signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, cancel.flag());
        let _ = signal_hook::flag::register(sig, cancel.flag());
        // SAFETY: the action only loads atomics and calls kill(2), both
        // async-signal-safe; it allocates nothing and takes no lock.
        let _ = unsafe { signal_hook::low_level::register(sig, trawl_select::interrupt_children) };
    }
}

/// Ends the process by SIGINT, as an interrupted program should (the shell
/// then knows the user stopped it).
pub(crate) fn die_of_interrupt() -> ! {
    let _ = std::io::stderr().flush();
    // SAFETY: restoring the default action and raising the signal.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
        libc::raise(libc::SIGINT);
    }
    std::process::exit(130)
}

/// Whether standard input is a terminal (then no path means `.`).
pub(crate) fn stdin_is_terminal() -> bool {
    std::io::stdin().is_terminal()
}
