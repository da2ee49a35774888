//! `trawl shard`: one part of a distributed run (docs/DISTRIBUTED.md). It
//! reads a request, refuses it before any work when it was made for
//! another trawl, runs the search, `find` or index it asks for over its
//! roots — each root on its own, shown under its display, sorted — and
//! writes the stream of records trawl-shard defines: the printers' pieces
//! as `chunk` records, standard error as `error` records, the totals and
//! the exit status at the end. Its own exit status is 0 whenever the
//! stream ended properly.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::process::{ExitCode, Stdio};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use trawl_printer::{Chunk, ExtractionStats, IndexStats, Output, OutputMode, Separators, Stats};
use trawl_search::Cancel;
use trawl_select::RunSettings;
use trawl_shard::{Bytes, Command, Ending, Format, Request, Root, ShardWriter};

use crate::report::{Quiet, Status};
use trawl_run::{Config, Target};

const USAGE: &str = "\
Usage: trawl shard --request FILE   run one shard's request (- for standard input)
       trawl shard --identity       the identity of this host's extractors

Writes the shard's stream of records (JSON Lines) to standard output, for
'trawl merge' (docs/DISTRIBUTED.md).
";

type Writer = ShardWriter<BufWriter<File>>;

/// How a shard's run ended.
struct End {
    status: u8,
    stats: Stats,
    extraction: ExtractionStats,
    /// How the worker's index served the search, when one did.
    index: Option<IndexStats>,
}

impl End {
    fn status(status: u8) -> End {
        End { status, stats: Stats::default(), extraction: ExtractionStats::default(), index: None }
    }
}

/// Runs `trawl shard ARGS`.
pub fn main(args: Vec<OsString>, cancel: &Cancel) -> ExitCode {
    let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
    let request_file = match args.as_slice() {
        [b"--identity"] => {
            println!("{}", identity());
            return crate::report::Ended::Ok.into();
        }
        [b"--request", file] => *file,
        [a] if a.starts_with(b"--request=") => &a[b"--request=".len()..],
        [b"--help"] => {
            print!("{USAGE}");
            return crate::report::Ended::Ok.into();
        }
        _ => {
            eprint!("trawl: shard: expected --request FILE or --identity\n{USAGE}");
            return crate::report::Status::Error.into();
        }
    };
    let stdout = match io::stdout().as_fd().try_clone_to_owned() {
        Ok(fd) => File::from(fd),
        Err(e) => {
            crate::report::error(format_args!("standard output: {}", trawl_diag::io_message(&e)));
            return crate::report::Status::Error.into();
        }
    };
    let out = Arc::new(ShardWriter::new(BufWriter::with_capacity(256 << 10, stdout)));
    let written = run(request_file, &out, cancel);
    if let Err(e) = written {
        crate::report::error(format_args!("write error: {}", trawl_diag::io_message(&e)));
        return crate::report::Status::Error.into();
    }
    if cancel.is_cancelled() {
        crate::interrupt::die();
    }
    crate::report::Ended::Ok.into()
}

/// Reads the request in `file`, runs it and writes the stream.
fn run(file: &[u8], out: &Arc<Writer>, cancel: &Cancel) -> io::Result<()> {
    let read = match file {
        b"-" => {
            let mut b = Vec::new();
            io::stdin().lock().read_to_end(&mut b).map(|_| b)
        }
        _ => std::fs::read(std::ffi::OsStr::from_bytes(file)),
    };
    let parsed = read
        .map_err(|e| format!("{}: {}", String::from_utf8_lossy(file), trawl_diag::io_message(&e)))
        .and_then(|b| Request::parse(&b));
    let version = env!("CARGO_PKG_VERSION");
    let name = parsed.as_ref().map_or("?", |r| r.shard.as_str());
    out.begin(name, &hostname(), version)?;
    let request = match parsed.and_then(|r| match r.refusal(version, identity) {
        Some(reason) => Err(reason),
        None => Ok(r),
    }) {
        Ok(r) => r,
        Err(reason) => {
            out.refused(&reason)?;
            return out.end(2, &Stats::default(), &ExtractionStats::default());
        }
    };
    if let Some(locale) = &request.locale {
        std::env::set_var("LC_ALL", locale);
    }
    let caught = crate::caught::catch(out.clone())?;
    let end = match request.command {
        Command::Grep => grep(&request, out, cancel),
        Command::Find => find(&request, out, cancel),
        Command::Index => index(&request, out),
    };
    let _ = io::stderr().flush();
    caught.release();
    let end = end?;
    out.end_indexed(end.status, &end.stats, &end.extraction, end.index.as_ref())
}

/// The roots' paths, as arguments (a relative one starting with `-` made
/// `./-…`, so that it is not read as an option).
fn path_arg(path: &[u8]) -> OsString {
    match path.starts_with(b"-") {
        true => OsString::from_vec([&b"./"[..], path].concat()),
        false => OsString::from_vec(path.to_vec()),
    }
}

/// What a root's walk starts from: its path and display, and for a part of
/// an operand, its operand's directory and the one entry searched there.
fn walked(root: &Root) -> (Vec<u8>, Vec<u8>, Option<Vec<u8>>) {
    let (path, display) = (&root.path.0, &root.display.0);
    let split = |p: &[u8]| {
        p.iter().rposition(|&b| b == b'/').map(|i| (p[..i].to_vec(), p[i + 1..].to_vec()))
    };
    match (root.part, split(path), split(display)) {
        (true, Some((dir, name)), Some((shown, _))) if !name.is_empty() => {
            let dir = if dir.is_empty() { b"/".to_vec() } else { dir };
            (dir, shown, Some(name))
        }
        _ => (path.clone(), display.clone(), None),
    }
}

/// The worker named by a display (`WORKER:PATH`).
fn worker(display: &[u8]) -> Option<String> {
    let i = display.iter().position(|&b| b == b':')?;
    Some(String::from_utf8_lossy(&display[..i]).into_owned())
}

/// The search's configuration, from the request's arguments and the paths
/// its roots walk (with `-H` first when the client has several operands,
/// as one trawl over them names files).
fn grep_config(request: &Request, cancel: &Cancel) -> Result<Config, String> {
    let mut argv = vec![OsString::from("trawl")];
    if request.operands > 1 {
        argv.push("-H".into());
    }
    argv.extend(request.args.iter().map(|a| OsString::from_vec(a.0.clone())));
    argv.extend(request.roots_in_order().iter().map(|r| path_arg(&walked(r).0)));
    let low = match crate::flags::read(argv)? {
        crate::flags::Asked::Search(low) => low,
        crate::flags::Asked::HelpOrVersion(_) => {
            return Err("--help and --version are not searches".to_string())
        }
    };
    if low.generate.is_some() || low.type_list {
        return Err("--generate and --type-list are not searches".to_string());
    }
    crate::flags::hi::config(&low, cancel.clone())
}

/// A search of each root in turn, sorted.
fn grep(request: &Request, out: &Arc<Writer>, cancel: &Cancel) -> io::Result<End> {
    let mut cfg = match grep_config(request, cancel) {
        Ok(c) => c,
        Err(msg) => {
            crate::report::error(msg);
            return Ok(End::status(2));
        }
    };
    // Walked in --sort path order, as the merge needs; a worker's index
    // serves it as it serves one trawl (checked fresh first), unless the
    // request's own options ruled one out (--sort by time: another order).
    cfg.sorted = true;
    cfg.order = None;
    let mode = cfg.printer.mode;
    out.format(&Format {
        separator: Separators::new(&cfg.printer).separator().map(|s| Bytes(s.to_vec())),
        ending: match mode {
            OutputMode::Json => Ending::Json,
            _ if cfg.stats => Ending::Stats,
            _ => Ending::None,
        },
        quiet: mode == OutputMode::Quiet,
        line_buffered: cfg.printer.line_buffered,
        messages: !cfg.no_messages,
    })?;
    if cfg.selects_nothing {
        return Ok(End::status(1));
    }
    let mut end = End::status(1);
    let (mut matched, mut error) = (false, false);
    // A part of a shared operand (one entry of its directory) is walked
    // without the index: the index would check and plan the whole operand
    // for each part (the Linux tree in 2 shards of its ~30 entries: 4.8 s
    // against 1.4 s unindexed).
    let mut index = cfg.index.take();
    for root in request.roots_in_order() {
        out.root(root.operand, &root.display.0)?;
        let (path, display, only) = walked(root);
        cfg.printer.host = (mode == OutputMode::Json).then(|| worker(&display)).flatten();
        cfg.targets = vec![Target::Path { path, display }];
        if only.is_none() {
            cfg.index = index.take();
        }
        let ctx = trawl_run::Context::new(&cfg, &**out).only(only.as_deref());
        end.stats.add(&trawl_run::run(&ctx));
        end.extraction.add(&ctx.extraction.stats());
        matched |= ctx.matched.load(Ordering::Relaxed);
        error |= ctx.error.load(Ordering::Relaxed);
        let quit = ctx.quit.load(Ordering::Relaxed);
        if only.is_none() {
            index = cfg.index.take();
        }
        out.flush()?;
        if quit || cancel.is_cancelled() {
            break;
        }
    }
    cfg.index = index;
    end.index = cfg.index.as_ref().and_then(|ix| ix.counts()).map(|c| IndexStats {
        files_skipped: c.skipped,
        files_candidates: c.candidates,
        files_changed: c.changed,
        watched: c.watched > 0,
    });
    error |= crate::unusable::errored();
    let quiet = match mode {
        OutputMode::Quiet => Quiet::Yes,
        _ => Quiet::No,
    };
    end.status = match Status::of(matched, error, quiet) {
        Status::Selected => 0,
        Status::NoneSelected => 1,
        Status::Error => 2,
    };
    Ok(end)
}

/// `trawl find` over each root in turn, sorted: only expressions whose
/// actions print (their output is the stream).
fn find(request: &Request, out: &Arc<Writer>, cancel: &Cancel) -> io::Result<End> {
    let args: Vec<Vec<u8>> = request.args.iter().map(|a| a.0.clone()).collect();
    let mut cmd = match trawl_select::parse(&args) {
        Ok(c) => c,
        Err(err) => {
            crate::report::error(trawl_select::after_mistake(err));
            return Ok(End::status(1));
        }
    };
    if cmd.files0_from.is_some() || !crate::find::prints_only(&cmd.expr) {
        crate::report::error("shard: only tests and -print, -print0, -printf, -ls and -prune run in a shard (the starting points come from the request)");
        return Ok(End::status(1));
    }
    out.format(&Format { messages: true, ..Format::default() })?;
    cmd.sorted = true;
    let mut failed = false;
    for root in request.roots_in_order() {
        out.root(root.operand, &root.display.0)?;
        cmd.paths = vec![root.path.0.clone()];
        let settings = RunSettings { cancel: cancel.clone(), escape_names: false };
        let shown = [root.display.0.clone()];
        failed |= crate::find::run(&cmd, settings, &**out, Some(&shown));
        out.flush()?;
        if cancel.is_cancelled() {
            break;
        }
    }
    Ok(End::status(failed as u8))
}

/// `trawl index` over each root in turn, run as a program of its own: its
/// output becomes the root's chunk.
fn index(request: &Request, out: &Arc<Writer>) -> io::Result<End> {
    out.format(&Format { messages: true, ..Format::default() })?;
    let exe = std::env::current_exe()?;
    let mut status = 0;
    for root in request.roots_in_order() {
        out.root(root.operand, &root.display.0)?;
        let args = request.args.iter().map(|a| OsString::from_vec(a.0.clone()));
        let child = std::process::Command::new(&exe)
            .arg("index")
            .args(args)
            .arg(path_arg(&root.path.0))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .output();
        match child {
            Ok(o) => {
                out.write(&o.stdout, Chunk::Other)?;
                status = status.max(o.status.code().unwrap_or(2).clamp(0, 2) as u8);
            }
            Err(e) => {
                crate::report::error(format_args!(
                    "{}: {}",
                    exe.display(),
                    trawl_diag::io_message(&e)
                ));
                status = 2;
            }
        }
        out.flush()?;
    }
    Ok(End::status(status))
}

/// This host's name.
fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim_end().to_string())
        .unwrap_or_else(|_| "?".to_string())
}

/// The identity of this host's extractors: each one's rule, program and
/// arguments, and its executable's bytes (a new version is a new
/// identity), hashed.
fn identity() -> String {
    let configured = crate::extractors::load().unwrap_or_default();
    let ex = trawl_extract::Extractor::default().with_configured(configured);
    let (configured, builtins) = ex.tools();
    let tools = configured.iter().map(|c| (format!("{c:?}"), &c.tool));
    let mut description = Vec::new();
    for (rule, tool) in tools.chain(builtins.iter().map(|t| (String::new(), *t))) {
        description.extend_from_slice(rule.as_bytes());
        for part in [tool.name.as_bytes(), tool.program.as_bytes()] {
            description.push(0);
            description.extend_from_slice(part);
        }
        for a in &tool.args {
            description.push(0);
            description.extend_from_slice(a.as_bytes());
        }
        description.push(0);
        match tool.executable().and_then(|p| std::fs::read(p).ok()) {
            Some(bytes) => description.extend_from_slice(&bytes),
            None => description.extend_from_slice(b"(missing)"),
        }
        description.push(b'\n');
    }
    trawl_shard::identity_of(&description)
}
