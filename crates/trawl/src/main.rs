//! trawl: a parallel recursive grep for huge file trees.
//!
//! The data path, stage by stage (each stage a crate):
//!
//! ```text
//! flags/               options → trawl-run's Config (MatcherBuilder, SearcherConfig,
//!                      PrinterConfig, the walk's settings), resources opened
//! trawl-run            the run: a WalkBuilder from the Config, a Visitor per thread
//! trawl-walk           roots → getdents64/openat on N threads (work stealing) → Entry
//! trawl-run (Visitor)  Entry → globs, file type → open → Searcher (one per thread)
//! trawl-search         read() into a reusable buffer → Matcher over the whole buffer
//!                      → lines located around matches → Sink callbacks
//! trawl-matcher        Rust regex | PCRE2 (JIT) | Aho-Corasick, with grep's line semantics
//! trawl-printer        Sink → grep format / JSON / color into a per-thread buffer;
//!                      whole files' output → stdout under a lock, in large writes
//!                      (trawl-run's sorted.rs: a sorted walk's captures, in walk order)
//!
//! trawl find: find.rs   parse (trawl-select) → the same walk → Evaluator per thread
//!                       (tests read metadata lazily; actions print or spawn argv)
//!
//! trawl shard: shard_cmd.rs   a request's search or find, root by root, sorted, into
//!                             trawl-shard's records (caught.rs: standard error as records)
//! trawl merge: merge_cmd.rs   shards' streams → trawl-shard's merge → the printer
//! ```
//!
//! Exit status as GNU grep: 0 a line was selected, 1 none, 2 an error
//! (0 with `-q` when a line was selected, errors or not).
//!
//! The binary has no Rust runtime start (`no_main`): runtime.rs does the
//! part of it trawl needs, at a fraction of its cost.

#![cfg_attr(not(test), no_main)]

mod alloc;
mod cache_cmd;
mod caught;
mod config_file;
mod extractors;
mod find;
mod flags;
mod generate;
mod index_cmd;
mod index_query;
mod interrupt;
mod merge_cmd;
mod patterns;
mod report;
#[cfg_attr(test, allow(dead_code))] // called only by the C entry point
mod runtime;
mod shard_cmd;
mod unusable;

use std::io::Write;
use std::process::ExitCode;

use report::{Quiet, Status};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// Large blocks on a cache line: see alloc.rs.
#[global_allocator]
static ALLOCATOR: alloc::LineAligned = alloc::LineAligned;

use trawl_printer::{Chunk, IndexStats, Output, OutputMode, Stats, Summary};
use trawl_search::Cancel;

/// The C library's entry point (the binary is `no_main`); arguments are read
/// through `std::env`, which the standard library records before this runs.
/// (The unit tests' binary keeps the test harness's `main`.)
#[cfg(not(test))]
#[unsafe(no_mangle)]
pub extern "C" fn main(_argc: std::ffi::c_int, _argv: *const *const std::ffi::c_char) -> ! {
    runtime::open_standard_descriptors();
    runtime::run(trawl_main)
}

#[cfg_attr(test, allow(dead_code))]
fn trawl_main() -> ExitCode {
    let start = Instant::now();
    let cancel = Cancel::new();
    interrupt::install(&cancel);
    let mut argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if argv.get(1).is_some_and(|a| a == "find") {
        return find::main(argv.split_off(2), cancel);
    }
    if argv.get(1).is_some_and(|a| a == "cache") {
        return cache_cmd::main(argv.split_off(2));
    }
    if argv.get(1).is_some_and(|a| a == "extractors") {
        return extractors::main(argv.split_off(2));
    }
    if argv.get(1).is_some_and(|a| a == "index") {
        return index_cmd::main(argv.split_off(2), &cancel);
    }
    if argv.get(1).is_some_and(|a| a == "shard") {
        return shard_cmd::main(argv.split_off(2), &cancel);
    }
    if argv.get(1).is_some_and(|a| a == "merge") {
        return merge_cmd::main(argv.split_off(2));
    }
    let unreadable = |u: config_file::Unreadable| unusable::report(&u.message, u.severity);
    let argv = match config_file::with_defaults(argv, flags::command::command, unreadable) {
        Ok(a) => a,
        Err(msg) => {
            report::error(msg);
            return Status::Error.into();
        }
    };
    let low = match flags::parse(argv) {
        Ok(flags::Parsed::Search(low)) => low,
        // --help and --version.
        Ok(flags::Parsed::Done) => return report::Ended::Ok.into(),
        Err(msg) => {
            report::error(msg);
            return Status::Error.into();
        }
    };
    if let Some(kind) = &low.generate {
        let mut out = std::io::stdout().lock();
        return match generate::write(kind, &mut out).and_then(|()| out.flush()) {
            Ok(()) => report::Ended::Ok.into(),
            Err(e) => {
                report::error(format_args!("write error: {}", trawl_diag::io_message(&e)));
                Status::Error.into()
            }
        };
    }
    if low.type_list {
        return match flags::hi::rules_builder(&low) {
            Ok(b) => {
                let mut text = b.type_list().join("\n");
                text.push('\n');
                let mut out = std::io::stdout().lock();
                match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                    Ok(()) => report::Ended::Ok.into(),
                    Err(_) => Status::Error.into(),
                }
            }
            Err(msg) => {
                report::error(msg);
                Status::Error.into()
            }
        };
    }
    let cfg = match flags::hi::config(&low, cancel.clone()) {
        Ok(c) => c,
        Err(msg) => {
            report::error(msg);
            return Status::Error.into();
        }
    };
    if cfg.selects_nothing {
        return Status::NoneSelected.into();
    }
    if cfg.printer.colors.is_some() {
        interrupt::colors_on_output();
    }
    let out = trawl_printer::Stdout::new(&cfg.printer);
    let ctx = trawl_run::Context::new(&cfg, &out);
    let stats: Stats = trawl_run::run(&ctx);
    let extraction = ctx.extraction.stats();
    if !cfg.no_messages && !cancel.is_cancelled() {
        for note in trawl_printer::extraction_notes(&extraction) {
            report::error(note);
        }
    }
    if cfg.stats || cfg.printer.mode == OutputMode::Json {
        let index = cfg.index.as_ref().and_then(|ix| ix.counts()).map(|c| IndexStats {
            files_skipped: c.skipped,
            files_candidates: c.candidates,
            files_changed: c.changed,
            watched: c.watched > 0,
        });
        let summary = Summary { stats, elapsed: start.elapsed(), index, extraction };
        let mut text = Vec::new();
        summary.write(cfg.printer.mode, &mut text);
        let _ = out.write(&text, Chunk::Other);
    }
    if cancel.is_cancelled() {
        if cfg.printer.colors.is_some() {
            // A line cut short may have left a color on.
            let _ = out.write(b"\x1b[0m", Chunk::Other);
        }
        interrupt::die();
    }
    let matched = ctx.matched.load(Ordering::Relaxed);
    let error = ctx.error.load(Ordering::Relaxed) || unusable::errored();
    if out.broken_pipe() {
        // SIGPIPE was ignored (or trawl would have died of it): as grep,
        // the write error was reported, and the exit status says so.
        return Status::Error.into();
    }
    let _ = std::io::stderr().flush();
    let quiet = match cfg.printer.mode == OutputMode::Quiet {
        true => Quiet::Yes,
        false => Quiet::No,
    };
    Status::of(matched, error, quiet).into()
}

/// Whether standard input holds input to search when no path is given: a
/// pipe, a socket or a regular file (`cmd | trawl PAT`, `trawl PAT < file`).
/// A terminal, /dev/null (cron, CI, `nohup`, a closed descriptor reopened
/// on it) or any other device is not: then no path means `.`, as ripgrep
/// decides, so that a script searches what its author searched at a
/// terminal.
pub(crate) fn stdin_is_input() -> bool {
    use std::os::unix::fs::FileTypeExt;
    // SAFETY: descriptor 0 is open (runtime.rs opens /dev/null on a closed
    // one); ManuallyDrop keeps it from being closed.
    let stdin = std::mem::ManuallyDrop::new(unsafe {
        <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(0)
    });
    stdin.metadata().is_ok_and(|m| {
        let t = m.file_type();
        t.is_file() || t.is_fifo() || t.is_socket()
    })
}
