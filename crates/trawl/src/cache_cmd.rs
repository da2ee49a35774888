//! `trawl cache [show|clear]`: the extraction cache's place, entries and
//! size, or emptying it.

use std::process::ExitCode;

use trawl_extract::cache::{default_dir, Cache, DEFAULT_LIMIT};

pub fn main(args: Vec<std::ffi::OsString>) -> ExitCode {
    let what = args.first().map(|a| a.to_string_lossy().into_owned());
    let Some(dir) = default_dir() else {
        eprintln!("trawl: cache: neither XDG_CACHE_HOME nor HOME is set");
        return ExitCode::from(2);
    };
    let cache = match Cache::open(&dir, DEFAULT_LIMIT) {
        Ok((cache, note)) => {
            if let Some(note) = note {
                eprintln!("trawl: extraction cache {note}");
            }
            cache
        }
        Err(e) => {
            eprintln!("trawl: cache: {}: {e}", dir.display());
            return ExitCode::from(2);
        }
    };
    let result = match what.as_deref() {
        None | Some("show") => cache.stats().map(|(entries, failed, bytes)| {
            println!("{}", cache.path().display());
            println!(
                "{entries} entries ({failed} failures remembered), {:.1} MiB stored",
                bytes as f64 / 1048576.0
            );
        }),
        Some("clear") => cache.clear().map(|()| println!("cleared {}", cache.path().display())),
        Some(other) => {
            eprintln!("trawl: cache: unknown command '{other}' (show, clear)");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("trawl: cache: {e}");
            ExitCode::from(2)
        }
    }
}
