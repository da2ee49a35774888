//! `trawl cache [show|clear|failures]`: the extraction cache's place,
//! entries and size; emptying it (`clear --failures`: only forgetting the
//! failures it remembers, so that their extractors run again); or listing
//! the documents whose text could not be extracted, with their
//! extractors' messages (a search names them once, then only counts them).

use std::process::ExitCode;

use crate::report::{Ended, FailedWith};

use trawl_extract::cache::{default_dir, Cache, DEFAULT_LIMIT};

pub fn main(args: Vec<std::ffi::OsString>) -> ExitCode {
    let argv = std::iter::once(std::ffi::OsString::from("cache")).chain(args);
    let m = match crate::flags::subcommands::cache().try_get_matches_from(argv) {
        Ok(m) => m,
        Err(e) if e.use_stderr() => {
            use clap::error::{ContextKind, ContextValue};
            let given = match (e.get(ContextKind::InvalidValue), e.get(ContextKind::InvalidArg)) {
                (Some(ContextValue::String(v)), _) | (None, Some(ContextValue::String(v))) => {
                    v.clone()
                }
                _ => e.to_string().lines().next().unwrap_or_default().to_string(),
            };
            crate::report::error(format_args!(
                "cache: unknown command '{given}' (show, clear, clear --failures, failures)"
            ));
            return Ended::Failed(FailedWith::Error).into();
        }
        Err(e) => {
            let _ = e.print();
            return Ended::Ok.into();
        }
    };
    let action = m.get_one::<String>("action").map_or("show", String::as_str);
    let words: Vec<&str> = match m.get_flag("failures") {
        true => vec![action, "--failures"],
        false => vec![action],
    };
    let Some(dir) = default_dir() else {
        crate::report::error(format_args!("cache: neither XDG_CACHE_HOME nor HOME is set"));
        return Ended::Failed(FailedWith::Error).into();
    };
    let cache = match Cache::open(&dir, DEFAULT_LIMIT) {
        Ok((cache, note)) => {
            if let Some(note) = note {
                crate::report::error(format_args!("extraction cache {note}"));
            }
            cache
        }
        Err(e) => {
            crate::report::error(format_args!("cache: {}: {e}", dir.display()));
            return Ended::Failed(FailedWith::Error).into();
        }
    };
    let result = match words[..] {
        ["show"] => cache.stats().map(|(entries, failed, bytes)| {
            println!("{}", cache.path().display());
            println!(
                "{entries} entries ({failed} failures remembered), {:.1} MiB stored",
                bytes as f64 / 1048576.0
            );
        }),
        ["clear"] => cache.clear().map(|()| println!("cleared {}", cache.path().display())),
        ["clear", "--failures"] => cache
            .clear_failures()
            .map(|n| println!("forgot {n} failures in {}", cache.path().display())),
        ["failures"] => cache.failures().map(|failures| {
            let mut out = Vec::new();
            for (name, message) in failures {
                let name =
                    name.unwrap_or_else(|| b"(a document named by an earlier trawl)".to_vec());
                out.extend_from_slice(&name);
                out.extend_from_slice(format!(": {message}\n").as_bytes());
            }
            let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), &out);
        }),
        _ => {
            crate::report::error(format_args!(
                "cache: unknown command '{}' (show, clear, clear --failures, failures)",
                words.join(" ")
            ));
            return Ended::Failed(FailedWith::Error).into();
        }
    };
    match result {
        Ok(()) => Ended::Ok.into(),
        Err(e) => {
            crate::report::error(format_args!("cache: {e}"));
            Ended::Failed(FailedWith::Error).into()
        }
    }
}
