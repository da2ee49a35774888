//! `trawl index [PATH...]`: builds the index of each tree (`.` by default)
//! under `$XDG_CACHE_HOME/trawl/index`; `--status` lists the indexes (with
//! paths: checks each against its tree), `--drop PATH...` removes them. On a terminal a build shows its
//! progress; through a pipe it is quiet.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use trawl_index::build::{build, Progress};
use trawl_index::store::{all, Store};

enum Action {
    Build,
    Status,
    Drop,
}

pub fn main(args: Vec<std::ffi::OsString>) -> ExitCode {
    let mut action = Action::Build;
    let mut paths = Vec::new();
    for a in args {
        match a.to_str() {
            Some("--status") => action = Action::Status,
            Some("--drop") => action = Action::Drop,
            Some(s) if s.starts_with('-') && s != "-" => {
                eprintln!("trawl: index: unknown option '{s}' (--status, --drop)");
                return ExitCode::from(2);
            }
            _ => paths.push(PathBuf::from(a)),
        }
    }
    let Some(cache) = trawl_extract::cache::default_dir() else {
        eprintln!("trawl: index: neither XDG_CACHE_HOME nor HOME is set");
        return ExitCode::from(2);
    };
    if let (Action::Status, true) = (&action, paths.is_empty()) {
        return status(&cache);
    }
    if paths.is_empty() {
        paths.push(PathBuf::from("."));
    }
    let mut code = ExitCode::SUCCESS;
    for p in &paths {
        let store = match std::fs::canonicalize(p).and_then(|root| Store::new(&cache, &root)) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("trawl: {}: {}", p.display(), trawl_diag::io_message(&e));
                code = ExitCode::from(2);
                continue;
            }
        };
        let ok = match action {
            Action::Status => freshness(&store, p),
            Action::Drop => drop_one(&store, p),
            Action::Build => build_one(&store, p),
        };
        if !ok {
            code = ExitCode::from(2);
        }
    }
    code
}

fn status(cache: &Path) -> ExitCode {
    let indexes = all(cache);
    if indexes.is_empty() {
        println!("no index under {}", cache.join("index").display());
    }
    for (dir, root, size) in indexes {
        let root = root.map_or_else(
            || "(unreadable)".to_string(),
            |r| String::from_utf8_lossy(&r).into_owned(),
        );
        println!("{root}\t{:.1} MiB\t{}", size as f64 / 1048576.0, dir.display());
    }
    ExitCode::SUCCESS
}

/// Checks the index of `shown` against the tree, and says what changed.
fn freshness(store: &Store, shown: &Path) -> bool {
    let mut racy_after = 0;
    let dirs = match store.current() {
        Ok(Some((segment, _))) => {
            racy_after = segment.racy_after();
            segment.dirs()
        }
        Ok(None) => {
            eprintln!("trawl: {}: no index", shown.display());
            return false;
        }
        Err(e) => Err(e),
    };
    let dirs = match dirs {
        Ok(d) => d,
        Err(e) => {
            eprintln!("trawl: index of {}: {e}", shown.display());
            return false;
        }
    };
    let start = Instant::now();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let changes = trawl_index::fresh::check(store.root(), &dirs, racy_after, threads);
    let files: usize = dirs.iter().map(|d| d.entries.len()).sum();
    let verdict = if changes.is_empty() {
        "up to date".to_string()
    } else {
        let n =
            |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
        format!(
            "{} and {} changed",
            n(changes.dirs.len(), "directory", "directories"),
            n(changes.files.len(), "file", "files")
        )
    };
    println!(
        "{}: {verdict} ({} directories, {files} entries checked in {:.1} ms)",
        shown.display(),
        dirs.len(),
        start.elapsed().as_secs_f64() * 1000.0
    );
    true
}

fn drop_one(store: &Store, shown: &Path) -> bool {
    match store.drop_index() {
        Ok(true) => true,
        Ok(false) => {
            eprintln!("trawl: {}: no index", shown.display());
            false
        }
        Err(e) => {
            eprintln!("trawl: {}: {}", store.dir().display(), trawl_diag::io_message(&e));
            false
        }
    }
}

fn build_one(store: &Store, shown: &Path) -> bool {
    let start = Instant::now();
    // The postings are spilled beside the index, never in the tree.
    if let Err(e) = std::fs::create_dir_all(store.dir()) {
        eprintln!("trawl: {}: {}", store.dir().display(), trawl_diag::io_message(&e));
        return false;
    }
    let progress = Progress::default();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let done = std::sync::atomic::AtomicBool::new(false);
    let built = std::thread::scope(|s| {
        let shown_progress = std::io::stderr().is_terminal().then(|| {
            s.spawn(|| {
                let bar = indicatif::ProgressBar::new_spinner();
                bar.set_style(
                    indicatif::ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                        .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
                );
                while !done.load(Ordering::Relaxed) {
                    let bytes = progress.bytes.load(Ordering::Relaxed);
                    let secs = start.elapsed().as_secs_f64().max(0.001);
                    bar.set_message(format!(
                        "{} files, {} dirs, {:.0} MB at {:.0} MB/s",
                        progress.files.load(Ordering::Relaxed),
                        progress.dirs.load(Ordering::Relaxed),
                        bytes as f64 / 1e6,
                        bytes as f64 / 1e6 / secs
                    ));
                    bar.tick();
                    std::thread::sleep(Duration::from_millis(100));
                }
                bar.finish_and_clear();
            })
        });
        let built = build(store.root(), store.dir(), threads, &progress);
        done.store(true, Ordering::Relaxed);
        if let Some(thread) = shown_progress {
            let _ = thread.join();
        }
        built
    });
    let built = match built {
        Ok(b) => b,
        Err(e) => {
            eprintln!("trawl: index of {}: {}", shown.display(), trawl_diag::io_message(&e));
            return false;
        }
    };
    for (path, e) in &built.errors {
        eprintln!("trawl: {}: {}", path.display(), trawl_diag::io_message(e));
    }
    let root = store.root().as_os_str();
    use std::os::unix::ffi::OsStrExt;
    let mut postings = Some(built.postings);
    let published = store.publish(|file| {
        let postings = postings.take().unwrap_or_else(trawl_index::spill::Merge::empty);
        trawl_index::segment::write(file, root.as_bytes(), built.started_ns, &built.dirs, postings)
    });
    match published {
        Ok(_) => {
            if std::io::stderr().is_terminal() {
                eprintln!(
                    "trawl: indexed {}: {} files, {} directories, {:.1} MB, in {:.1} s",
                    shown.display(),
                    progress.files.load(Ordering::Relaxed),
                    progress.dirs.load(Ordering::Relaxed),
                    progress.bytes.load(Ordering::Relaxed) as f64 / 1e6,
                    start.elapsed().as_secs_f64()
                );
            }
            built.errors.is_empty()
        }
        Err(e) => {
            eprintln!("trawl: index of {}: {}", shown.display(), trawl_diag::io_message(&e));
            false
        }
    }
}
