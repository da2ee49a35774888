//! `trawl index [PATH...]`: the command line of trawl-index's front door.
//! Builds or updates the index of each tree (`.` by default; see
//! trawl_index::Index::refresh), `--status` lists the indexes (with paths:
//! checks each against its tree), `--drop PATH...` removes them, `--watch`
//! follows a tree's changes. On a terminal a build shows its progress;
//! through a pipe it is quiet. The text an index holds besides files'
//! bytes comes from trawl-extract (Extracting, below).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::report::{Ended, FailedWith};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use std::os::unix::ffi::OsStrExt;

use trawl_index::{
    Done, Estimate, Extraction, Index, Indexes, Mode, Note, OpenError, Progress, Refresh,
    RefreshError, StreamKind, TextSink, WatchError,
};
use trawl_search::Cancel;

/// What text the index holds besides files' bytes.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Texts {
    /// As the index there is (none for a new one).
    Kept,
    /// Compressed files' and archives' members (--search-zip).
    Zip,
    /// And documents' text (--docs).
    Docs,
    /// And scanned documents' text (--ocr).
    Ocr,
}

#[derive(Clone, Copy)]
enum Action {
    Build,
    Watch,
    Status,
    Drop,
}

pub fn main(args: Vec<std::ffi::OsString>, cancel: &Cancel) -> ExitCode {
    let argv = std::iter::once(std::ffi::OsString::from("index")).chain(args);
    let m = match crate::flags::subcommands::index().try_get_matches_from(argv) {
        Ok(m) => m,
        Err(e) if e.use_stderr() => {
            let given = match e.get(clap::error::ContextKind::InvalidArg) {
                Some(clap::error::ContextValue::String(s)) => s.clone(),
                _ => e.to_string().lines().next().unwrap_or_default().to_string(),
            };
            crate::report::error(format_args!("index: unknown option '{given}' (--status, --drop, --watch, --full, --search-zip, --docs, --ocr)"
            ));
            return Ended::Failed(FailedWith::Error).into();
        }
        Err(e) => {
            // --help.
            let _ = e.print();
            return Ended::Ok.into();
        }
    };
    // Of --status, --drop and --watch, the last one given.
    let action = [("status", Action::Status), ("drop", Action::Drop), ("watch", Action::Watch)]
        .into_iter()
        .filter(|(id, _)| m.get_flag(id))
        .max_by_key(|(id, _)| m.index_of(id))
        .map_or(Action::Build, |(_, a)| a);
    let full = m.get_flag("full");
    let texts = match (m.get_flag("ocr"), m.get_flag("docs"), m.get_flag("search_zip")) {
        (true, _, _) => Texts::Ocr,
        (false, true, _) => Texts::Docs,
        (false, false, true) => Texts::Zip,
        (false, false, false) => Texts::Kept,
    };
    let mut paths: Vec<PathBuf> = m
        .get_many::<std::ffi::OsString>("path")
        .map(|v| v.map(PathBuf::from).collect())
        .unwrap_or_default();
    let Some(cache) = trawl_extract::cache::default_dir() else {
        crate::report::error(format_args!("index: neither XDG_CACHE_HOME nor HOME is set"));
        return Ended::Failed(FailedWith::Error).into();
    };
    let indexes = Indexes::in_cache(&cache);
    if let (Action::Status, true) = (&action, paths.is_empty()) {
        return status(&indexes);
    }
    if paths.is_empty() {
        paths.push(PathBuf::from("."));
    }
    if let (Action::Watch, true) = (&action, paths.len() > 1) {
        crate::report::error(format_args!("index: --watch watches one tree"));
        return Ended::Failed(FailedWith::Error).into();
    }
    let mut code = Ended::Ok.into();
    for p in &paths {
        let index = match indexes.of(p) {
            Ok(index) => index,
            Err(e) => {
                crate::report::error(format_args!(
                    "{}: {}",
                    p.display(),
                    trawl_diag::io_message(&e)
                ));
                code = Ended::Failed(FailedWith::Error).into();
                continue;
            }
        };
        let mode = if full { Mode::Full } else { Mode::Update };
        let ok = match action {
            Action::Status => freshness(&index, p),
            Action::Drop => drop_one(&index, p),
            Action::Build => refresh_one(&index, p, mode, (texts, cancel)),
            Action::Watch => {
                refresh_one(&index, p, mode, (texts, cancel)) && watch_one(&index, p, cancel)
            }
        };
        if !ok {
            code = Ended::Failed(FailedWith::Error).into();
        }
    }
    if crate::unusable::errored() {
        code = Ended::Failed(FailedWith::Error).into();
    }
    code
}

fn status(indexes: &Indexes) -> ExitCode {
    let kept = indexes.all();
    if kept.is_empty() {
        println!("no index under {}", indexes.dir().display());
    }
    for k in kept {
        let root = k.root.map_or_else(
            || "(unreadable)".to_string(),
            |r| String::from_utf8_lossy(&r).into_owned(),
        );
        println!("{root}\t{:.1} MiB\t{}", k.size as f64 / 1048576.0, k.dir.display());
    }
    Ended::Ok.into()
}

/// Says why the index of `shown` cannot be read.
fn report_open_error(e: &OpenError, shown: &Path) {
    match e {
        OpenError::Missing => crate::report::error(format_args!("{}: no index", shown.display())),
        e => crate::report::error(format_args!("index of {}: {e}", shown.display())),
    }
}

/// Checks the index of `shown` against the tree, and says what changed.
fn freshness(index: &Index, shown: &Path) -> bool {
    let start = Instant::now();
    let checked = match index.check(trawl_diag::cpus()) {
        Ok(checked) => checked,
        Err(e) => {
            report_open_error(&e, shown);
            return false;
        }
    };
    let verdict = if checked.up_to_date() {
        "up to date".to_string()
    } else {
        let n =
            |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
        format!(
            "{} and {} changed",
            n(checked.dirs_changed, "directory", "directories"),
            n(checked.files_changed, "file", "files")
        )
    };
    println!(
        "{}: {verdict} ({} directories, {} entries checked in {:.1} ms)",
        shown.display(),
        checked.dirs,
        checked.entries,
        start.elapsed().as_secs_f64() * 1000.0
    );
    true
}

/// Watches the tree of `index` (see trawl_index::Index::watch) until
/// interrupted.
fn watch_one(index: &Index, shown: &Path, cancel: &Cancel) -> bool {
    let mut ready = |n: usize| {
        if std::io::stderr().is_terminal() {
            crate::report::error(format_args!(
                "watching {n} directories of {} (searches ask this process; ^C stops)",
                shown.display()
            ));
        }
    };
    match index.watch(trawl_diag::cpus(), &|| cancel.is_cancelled(), &mut ready) {
        Ok(()) => true,
        Err(WatchError::Open(e)) => {
            report_open_error(&e, shown);
            false
        }
        Err(e) => {
            let msg = match &e {
                WatchError::Io(io) => trawl_diag::io_message(io),
                e => e.to_string(),
            };
            crate::report::error(format_args!("watching {}: {msg}", shown.display()));
            false
        }
    }
}

fn drop_one(index: &Index, shown: &Path) -> bool {
    match index.remove() {
        Ok(true) => true,
        Ok(false) => {
            crate::report::error(format_args!("{}: no index", shown.display()));
            false
        }
        Err(e) => {
            crate::report::error(format_args!(
                "{}: {}",
                index.dir().display(),
                trawl_diag::io_message(&e)
            ));
            false
        }
    }
}

/// The progress line: files, directories, bytes read (of how many, when
/// known), rate and, when the total is known, the time left.
fn progress_message(p: &Progress, total: Option<u64>, elapsed: Duration) -> String {
    let bytes = p.bytes.load(Ordering::Relaxed);
    let secs = elapsed.as_secs_f64().max(0.001);
    let rate = bytes as f64 / secs;
    let mut msg = format!(
        "{} files, {} dirs, {:.0} MB",
        p.files.load(Ordering::Relaxed),
        p.dirs.load(Ordering::Relaxed),
        bytes as f64 / 1e6
    );
    if let Some(total) = total {
        msg.push_str(&format!(" of {:.0} MB", total as f64 / 1e6));
    }
    msg.push_str(&format!(" at {:.0} MB/s", rate / 1e6));
    if let Some(total) = total.filter(|_| rate > 0.0) {
        let left = Duration::from_secs_f64(total.saturating_sub(bytes) as f64 / rate);
        msg.push_str(&format!(", ETA {}", indicatif::HumanDuration(left)));
    }
    msg
}

/// Shows a refresh's progress on a terminal (files, directories, bytes,
/// rate, and the time left once the total is known) while `work` runs;
/// nothing through a pipe. `work` is given how to say something meanwhile
/// (above the progress line).
fn with_progress<T>(
    start: Instant,
    progress: &Progress,
    work: impl FnOnce(&dyn Fn(&str)) -> T,
) -> T {
    let done = std::sync::atomic::AtomicBool::new(false);
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        bar
    });
    std::thread::scope(|s| {
        let shown = bar.clone().map(|bar| {
            let done = &done;
            s.spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    bar.set_message(progress_message(progress, progress.total(), start.elapsed()));
                    bar.tick();
                    std::thread::sleep(Duration::from_millis(100));
                }
                bar.finish_and_clear();
            })
        });
        let say = |msg: &str| match &bar {
            Some(bar) => bar.suspend(|| crate::report::say(msg)),
            None => crate::report::say(msg),
        };
        let out = work(&say);
        done.store(true, Ordering::Relaxed);
        if let Some(thread) = shown {
            let _ = thread.join();
        }
        out
    })
}

/// Builds the index of `index`'s root, or updates the one there is
/// (reading only what changed) unless `mode` says to build anew.
fn refresh_one(index: &Index, shown: &Path, mode: Mode, (texts, cancel): (Texts, &Cancel)) -> bool {
    let start = Instant::now();
    // The extraction the index holds text of: as asked, or as it was
    // (with OCR, in the languages and at the resolution it was).
    let extraction = match texts {
        Texts::Kept if mode == Mode::Update => index.extraction().map(|sig| {
            let ocr = trawl_extract::ocr::OcrOptions::from_signature(&sig).map(|o| {
                trawl_extract::ocr::OcrAsked {
                    languages: Some(o.languages.join("+")),
                    dpi: Some(o.dpi),
                }
            });
            (trawl_extract::Extractor::signature_reads_documents(&sig), ocr)
        }),
        Texts::Kept => None,
        Texts::Zip => Some((false, None)),
        Texts::Docs => Some((true, None)),
        Texts::Ocr => Some((true, Some(Default::default()))),
    };
    let extractor = match extraction {
        Some((documents, ocr)) => {
            let limits = trawl_extract::Limits { documents, ..Default::default() };
            match crate::extractors::extractor(limits, ocr.as_ref(), cancel, true) {
                Ok(e) => Some(Extracting(e)),
                Err(msg) => {
                    crate::report::error(msg);
                    return false;
                }
            }
        }
        None => None,
    };
    let signature = extractor.as_ref().map(|e| e.0.signature()).unwrap_or_default();
    let progress = Progress::default();
    let terminal = std::io::stderr().is_terminal();
    let how = Refresh {
        mode,
        texts: extractor.as_ref().map(|e| (e as &dyn trawl_index::Texts, &signature[..])),
        threads: trawl_diag::cpus(),
        progress: &progress,
        estimate: if terminal { Estimate::Count } else { Estimate::Skip },
    };
    let mut unreadable = 0;
    let refreshed = with_progress(start, &progress, |say| {
        index.refresh(how, &mut |note| match note {
            Note::Anew(why) => {
                say(&format!("warning: index of {}: {why}; built anew", shown.display()))
            }
            Note::Unreadable(u) => {
                unreadable += 1;
                say(&format!("{}: {}", u.path.display(), trawl_diag::io_message(&u.error)));
            }
        })
    });
    let what = match refreshed {
        Ok(Done::UpToDate) => {
            if terminal {
                crate::report::error(format_args!("index of {}: up to date", shown.display()));
            }
            return true;
        }
        Ok(Done::Updated { dirs_read }) => format!("updated ({dirs_read} directories read again)"),
        Ok(Done::Built) => "indexed".to_string(),
        Err(RefreshError::Dir(e)) => {
            crate::report::error(format_args!(
                "{}: {}",
                index.dir().display(),
                trawl_diag::io_message(&e)
            ));
            return false;
        }
        Err(e) => {
            let msg = trawl_diag::io_message(e.io_error());
            crate::report::error(format_args!("index of {}: {msg}", shown.display()));
            return false;
        }
    };
    if terminal {
        crate::report::error(format_args!(
            "{what} {}: {} files, {} directories, {:.1} MB read, in {:.1} s",
            shown.display(),
            progress.files.load(Ordering::Relaxed),
            progress.dirs.load(Ordering::Relaxed),
            progress.bytes.load(Ordering::Relaxed) as f64 / 1e6,
            start.elapsed().as_secs_f64()
        ));
    }
    unreadable == 0
}

/// The text searches that extract read of a file, for the index: what
/// the extractor finds inside it (members, a document's text), through
/// its cache. A big archive's members are each a stream of their own, and
/// their texts are kept in the cache one by one (a pack), so that a search
/// reads only the members that may match.
struct Extracting(trawl_extract::Extractor);

impl trawl_index::Texts for Extracting {
    fn texts(
        &self,
        path: &Path,
        file: &std::fs::File,
        out: &mut dyn TextSink,
    ) -> Option<Extraction> {
        let name = path.as_os_str().as_bytes();
        let kind = match self.0.sniff(name, file) {
            Ok(trawl_extract::Kind::Plain) => return None,
            Ok(kind) => kind,
            Err(_) => return Some(Extraction::Failed),
        };
        let mut collect = Collect { out, complete: true, buf: vec![0; 64 << 10], members: false };
        let size = file.metadata().map_or(0, |m| m.len());
        collect.members = self.0.packs(kind, size);
        // Without a pack kept, a search reads the archive whole.
        let (_, packed) = self.0.file_packing(name, file, kind, &mut collect);
        Some(match (collect.complete, packed) {
            (true, _) => Extraction::Complete,
            (false, trawl_extract::pack::Packed::WithMessages) => Extraction::Replayable,
            (false, _) => Extraction::Failed,
        })
    }
}

/// Hands every text stream's bytes on; notes what could not be read.
struct Collect<'o> {
    out: &'o mut dyn TextSink,
    complete: bool,
    buf: Vec<u8>,
    /// The file's members are indexed one by one.
    members: bool,
}

impl trawl_extract::Visit for Collect<'_> {
    fn text(
        &mut self,
        _name: &[u8],
        data: &mut dyn std::io::Read,
        origin: trawl_extract::Origin<'_>,
    ) -> trawl_extract::Flow {
        let kind = match (self.members, origin.member()) {
            (true, Some(_)) => StreamKind::Member,
            _ => StreamKind::Part,
        };
        self.out.begin(kind);
        loop {
            match data.read(&mut self.buf) {
                Ok(0) => break,
                Ok(n) => self.out.add(&self.buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => {
                    self.complete = false;
                    break;
                }
            }
        }
        trawl_extract::Flow::Continue
    }

    fn error(&mut self, _name: &[u8], _err: &std::io::Error) {
        self.complete = false;
    }

    fn warning(&mut self, _name: &[u8], _err: &std::io::Error) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_line_tells_the_time_left_once_the_total_is_known() {
        let p = Progress::default();
        p.files.store(120, Ordering::Relaxed);
        p.dirs.store(7, Ordering::Relaxed);
        p.bytes.store(300_000_000, Ordering::Relaxed);
        let two = Duration::from_secs(2);
        assert_eq!(progress_message(&p, None, two), "120 files, 7 dirs, 300 MB at 150 MB/s");
        assert_eq!(
            progress_message(&p, Some(1_200_000_000), two),
            "120 files, 7 dirs, 300 MB of 1200 MB at 150 MB/s, ETA 6 seconds"
        );
        p.bytes.store(0, Ordering::Relaxed);
        assert_eq!(
            progress_message(&p, Some(10), two),
            "120 files, 7 dirs, 0 MB of 0 MB at 0 MB/s"
        );
    }
}
