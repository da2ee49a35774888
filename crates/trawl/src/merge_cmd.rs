//! `trawl merge`: the shards' streams of a distributed run
//! (docs/DISTRIBUTED.md) into what one trawl over all their roots prints,
//! with its exit status. trawl-shard reads and orders the streams; the
//! printer writes their pieces (its separators between files) and the end
//! of the run (`--stats`'s text or JSON's summary, totals summed).

use std::ffi::OsString;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use trawl_printer::{Chunk, Output, OutputMode, Separators, Stdout, Summary};
use trawl_shard::{Ending, Format, Request};

const USAGE: &str = "\
Usage: trawl merge --request FILE [STREAM...]

Prints what one trawl over all the shards' roots prints, from the shards'
streams ('trawl shard' output: files or FIFOs; - or none for standard
input), with its exit status (docs/DISTRIBUTED.md).
";

/// Runs `trawl merge ARGS`.
pub fn main(args: Vec<OsString>) -> ExitCode {
    let start = Instant::now();
    let (request, mut streams) = match args.first().map(|a| a.as_bytes()) {
        Some(b"--help") => {
            print!("{USAGE}");
            return crate::report::Ended::Ok.into();
        }
        Some(b"--request") if args.len() >= 2 => (args[1].clone(), args[2..].to_vec()),
        Some(a) if a.starts_with(b"--request=") => {
            (OsString::from(std::ffi::OsStr::from_bytes(&a[10..])), args[1..].to_vec())
        }
        _ => {
            eprint!("trawl: merge: expected --request FILE\n{USAGE}");
            return crate::report::Status::Error.into();
        }
    };
    if streams.is_empty() {
        streams.push("-".into());
    }
    let request = match std::fs::read(&request) {
        Ok(b) => Request::parse(&b),
        Err(e) => Err(format!("{}: {}", request.to_string_lossy(), trawl_diag::io_message(&e))),
    };
    let request = match request {
        Ok(r) => r,
        Err(msg) => {
            crate::report::error(msg);
            return crate::report::Status::Error.into();
        }
    };
    let say = Arc::new(|m: &[u8]| {
        let _ = io::stderr().lock().write_all(m);
    });
    let open = |f: &Format| {
        let separators = Separators::with_text(f.separator.as_ref().map(|b| b.0.clone()));
        Stdout::joining(separators, f.line_buffered)
    };
    let (merged, out) = match trawl_shard::merge(&streams, request.command, open, say) {
        Ok(m) => m,
        Err(e) => {
            crate::report::error(format_args!("write error: {}", trawl_diag::io_message(&e)));
            return crate::report::Status::Error.into();
        }
    };
    let format = &merged.format;
    if format.messages {
        for note in trawl_printer::extraction_notes(&merged.extraction) {
            crate::report::error(note);
        }
    }
    let mode = match format.ending {
        Ending::None => None,
        Ending::Stats => Some(OutputMode::Lines),
        Ending::Json => Some(OutputMode::Json),
    };
    if let Some(mode) = mode {
        let summary = Summary {
            stats: merged.stats,
            elapsed: start.elapsed(),
            index: merged.index,
            extraction: merged.extraction,
        };
        let mut text = Vec::new();
        summary.write(mode, &mut text);
        if let Err(e) = out.write(&text, Chunk::Other).and_then(|()| out.flush()) {
            crate::report::error(format_args!("write error: {}", trawl_diag::io_message(&e)));
            return crate::report::Status::Error.into();
        }
    }
    ExitCode::from(merged.status)
}
