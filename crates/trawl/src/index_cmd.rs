//! `trawl index [PATH...]`: builds the index of each tree (`.` by default)
//! under `$XDG_CACHE_HOME/trawl/index`; `--status` lists the indexes (with
//! paths: checks each against its tree), `--drop PATH...` removes them. On a terminal a build shows its
//! progress; through a pipe it is quiet.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use std::os::unix::ffi::OsStrExt;

use trawl_index::build::{build, Progress, Unreadable};
use trawl_index::segment::{Dir, Segment};
use trawl_index::store::{all, Store};
use trawl_index::texts::{Extraction, StreamKind, TextSink};
use trawl_index::update::{update, Outcome};
use trawl_search::Cancel;

pub const HELP: &str = "\
Usage: trawl index [--full] [--search-zip|--docs] [PATH...]
                                          build or update the index of each tree (default .)
       trawl index --watch [--search-zip|--docs] [PATH]
                                          build or update it, then keep watching the tree
       trawl index --status [PATH...]     list the indexes, or check each against its tree
       trawl index --drop PATH...         remove the index of each tree

An index lives under $XDG_CACHE_HOME/trawl/index, never in the tree. A search of an indexed
tree, or of a directory below its root, uses it by itself: every file's and directory's stamps
are checked first, files that changed are searched directly, and unchanged files that cannot
hold a match are not opened; the output equals a search without it (--no-index).
Run again, trawl index reads only the directories that changed; --full builds anew.
With --search-zip (or --docs) the index also holds the text inside compressed files and
archives (and documents), as searches with the same option read it (and fills the cache of
extracted text); run again without either, it keeps what it holds.
With --watch, trawl index stays running (until interrupted) and follows the tree's changes
through inotify; a search then asks it what changed instead of checking every file's stamps.
inotify does not see writes through a shared mapping (mmap), changes made through a hard link
from outside the tree or from another machine (NFS): only watch a tree changed in other ways.
";

/// What text the index holds besides files' bytes.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Texts {
    /// As the index there is (none for a new one).
    Kept,
    /// Compressed files' and archives' members (--search-zip).
    Zip,
    /// And documents' text (--docs).
    Docs,
}

enum Action {
    Build,
    Watch,
    Status,
    Drop,
}

pub fn main(args: Vec<std::ffi::OsString>, cancel: &Cancel) -> ExitCode {
    let mut action = Action::Build;
    let mut full = false;
    let mut texts = Texts::Kept;
    let mut paths = Vec::new();
    for a in args {
        match a.to_str() {
            Some("--status") => action = Action::Status,
            Some("--drop") => action = Action::Drop,
            Some("--watch") => action = Action::Watch,
            Some("--full") => full = true,
            Some("--search-zip" | "--zip") => texts = texts.max_with(Texts::Zip),
            Some("--docs") => texts = Texts::Docs,
            Some("--help" | "-h") => {
                print!("{HELP}");
                return ExitCode::SUCCESS;
            }
            Some(s) if s.starts_with('-') && s != "-" => {
                eprintln!(
                    "trawl: index: unknown option '{s}' (--status, --drop, --watch, --full, --search-zip, --docs)"
                );
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
    if let (Action::Watch, true) = (&action, paths.len() > 1) {
        eprintln!("trawl: index: --watch watches one tree");
        return ExitCode::from(2);
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
            Action::Build => build_one(&store, p, full, (texts, cancel)),
            Action::Watch => {
                build_one(&store, p, full, (texts, cancel)) && watch_one(&store, p, cancel)
            }
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

/// The generation of `store` in use, and its number; None (reported)
/// when there is none or it cannot be read.
fn current(store: &Store, shown: &Path) -> Option<(Segment, u64)> {
    match store.current() {
        Ok(Some(found)) => Some(found),
        Ok(None) => {
            eprintln!("trawl: {}: no index", shown.display());
            None
        }
        Err(e) => {
            eprintln!("trawl: index of {}: {e}", shown.display());
            None
        }
    }
}

/// The directories of `segment`; None (reported) when it is damaged.
fn dirs_of<'s>(segment: &'s Segment, shown: &Path) -> Option<Vec<Dir<'s>>> {
    segment.dirs().map_err(|e| eprintln!("trawl: index of {}: {e}", shown.display())).ok()
}

/// Checks the index of `shown` against the tree, and says what changed.
fn freshness(store: &Store, shown: &Path) -> bool {
    let Some((segment, _)) = current(store, shown) else { return false };
    let racy_after = segment.racy_after();
    let Some(dirs) = dirs_of(&segment, shown) else { return false };
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

/// Watches the tree of `store` (see trawl_index::watch) until
/// interrupted, following the index to its new generations.
fn watch_one(store: &Store, shown: &Path, cancel: &Cancel) -> bool {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    loop {
        let Some((segment, generation)) = current(store, shown) else { return false };
        let Some(dirs) = dirs_of(&segment, shown) else { return false };
        let mut ready = |n: usize| {
            if std::io::stderr().is_terminal() {
                eprintln!(
                    "trawl: watching {n} directories of {} (searches ask this process; ^C stops)",
                    shown.display()
                );
            }
        };
        let served = trawl_index::watch::serve(
            store.root(),
            store.dir(),
            (generation, &dirs, segment.racy_after()),
            threads,
            &|| store.current_generation(),
            &|| cancel.is_cancelled(),
            &mut ready,
        );
        match served {
            Ok(trawl_index::watch::Ended::Stopped) => return true,
            Ok(trawl_index::watch::Ended::NewGeneration) => continue,
            Err(e) => {
                eprintln!("trawl: watching {}: {}", shown.display(), trawl_diag::io_message(&e));
                return false;
            }
        }
    }
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

/// How many bytes a build will read, for its progress's ETA.
enum Total<'a> {
    /// Not known (an update reads only what changed).
    Unknown,
    /// The files' sizes in the index built before.
    Known(u64),
    /// Counted while the build runs (the sizes of the regular files under
    /// this root, on its file system), when its progress is shown.
    Count(&'a Path),
}

/// The sizes of the regular files an index lists.
fn indexed_bytes(segment: &Segment) -> Option<u64> {
    let dirs = segment.dirs().ok()?;
    let files = dirs.iter().flat_map(|d| d.entries.iter());
    Some(
        files.filter(|e| e.kind == trawl_index::segment::EntryType::File).map(|e| e.key.size).sum(),
    )
}

/// The sizes of the regular files under `root`, not following links nor
/// leaving its file system (what a build reads).
fn count_bytes(root: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let Ok(top) = std::fs::symlink_metadata(root) else { return 0 };
    let (mut total, mut stack) = (0, vec![root.to_path_buf()]);
    while let Some(dir) = stack.pop() {
        let Ok(list) = std::fs::read_dir(&dir) else { continue };
        for e in list.flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() && e.metadata().is_ok_and(|m| m.dev() == top.dev()) => {
                    stack.push(e.path());
                }
                Ok(t) if t.is_file() => total += e.metadata().map_or(0, |m| m.len()),
                _ => {}
            }
        }
    }
    total
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

/// Shows a build's progress on a terminal (files, directories, bytes,
/// rate, ETA when the total is known) while `work` runs; nothing through
/// a pipe.
fn with_progress<T>(
    start: Instant,
    progress: &Progress,
    total: Total<'_>,
    work: impl FnOnce() -> T,
) -> T {
    let done = std::sync::atomic::AtomicBool::new(false);
    let terminal = std::io::stderr().is_terminal();
    // The total, once known (u64::MAX: not yet).
    let known = std::sync::atomic::AtomicU64::new(match total {
        Total::Known(n) => n,
        _ => u64::MAX,
    });
    std::thread::scope(|s| {
        if let (Total::Count(root), true) = (total, terminal) {
            let known = &known;
            s.spawn(move || known.store(count_bytes(root), Ordering::Relaxed));
        }
        let shown_progress = terminal.then(|| {
            s.spawn(|| {
                let bar = indicatif::ProgressBar::new_spinner();
                bar.set_style(
                    indicatif::ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                        .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
                );
                while !done.load(Ordering::Relaxed) {
                    let total = Some(known.load(Ordering::Relaxed)).filter(|&n| n != u64::MAX);
                    bar.set_message(progress_message(progress, total, start.elapsed()));
                    bar.tick();
                    std::thread::sleep(Duration::from_millis(100));
                }
                bar.finish_and_clear();
            })
        });
        let out = work();
        done.store(true, Ordering::Relaxed);
        if let Some(thread) = shown_progress {
            let _ = thread.join();
        }
        out
    })
}

/// Builds the index of `store`'s root, or updates the one there is
/// (reading only what changed) unless `full`.
fn build_one(store: &Store, shown: &Path, full: bool, (texts, cancel): (Texts, &Cancel)) -> bool {
    let start = Instant::now();
    // The postings are spilled beside the index, never in the tree.
    if let Err(e) = std::fs::create_dir_all(store.dir()) {
        eprintln!("trawl: {}: {}", store.dir().display(), trawl_diag::io_message(&e));
        return false;
    }
    let progress = Progress::default();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let root = store.root().as_os_str().as_bytes();
    let old = if full { Ok(None) } else { store.current() };
    let old = match old {
        Ok(old) => old,
        Err(e) => {
            eprintln!("trawl: warning: index of {}: {e}; built anew", shown.display());
            None
        }
    };
    // The extraction the index holds text of: as asked, or as it was.
    let documents = match texts {
        Texts::Kept => old.as_ref().and_then(|(s, _)| {
            let sig = s.extraction();
            (!sig.is_empty()).then(|| trawl_extract::Extractor::signature_reads_documents(sig))
        }),
        Texts::Zip => Some(false),
        Texts::Docs => Some(true),
    };
    let extractor = match documents {
        Some(documents) => {
            let limits = trawl_extract::Limits { documents, ..Default::default() };
            match crate::config::extractor(limits, cancel, true) {
                Ok(e) => Some(Extracting(e)),
                Err(msg) => {
                    eprintln!("trawl: {msg}");
                    return false;
                }
            }
        }
        None => None,
    };
    let signature = extractor.as_ref().map(|e| e.0.signature()).unwrap_or_default();
    let source = extractor.as_ref().map(|e| e as &dyn trawl_index::texts::Texts);
    if let Some((segment, _)) = &old {
        let outcome = with_progress(start, &progress, Total::Unknown, || {
            update(store.root(), segment, store.dir(), threads, &progress, (source, &signature))
        });
        match outcome {
            Ok(Outcome::UpToDate) => {
                if std::io::stderr().is_terminal() {
                    eprintln!("trawl: index of {}: up to date", shown.display());
                }
                return true;
            }
            Ok(Outcome::Rebuild) => {}
            Ok(Outcome::Updated(updated)) => {
                report_errors(&updated.errors);
                let trawl_index::update::Updated { segment, errors, dirs_read } = *updated;
                let published = store
                    .publish(|file| trawl_index::segment::write(file, root, &signature, segment));
                let what = format!("updated ({dirs_read} directories read again)");
                return published_or_not(published, shown, &what, (start, &progress))
                    && errors.is_empty();
            }
            Err(e) => {
                eprintln!("trawl: warning: index of {}: {e}; built anew", shown.display());
            }
        }
    }
    // What a build reads: as much as the index before it read, or counted.
    let before = match &old {
        Some((segment, _)) => indexed_bytes(segment),
        None => store.current().ok().flatten().and_then(|(segment, _)| indexed_bytes(&segment)),
    };
    let total = before.map_or(Total::Count(store.root()), Total::Known);
    let built = with_progress(start, &progress, total, || {
        build(store.root(), store.dir(), threads, &progress, source)
    });
    let built = match built {
        Ok(b) => b,
        Err(e) => {
            eprintln!("trawl: index of {}: {}", shown.display(), trawl_diag::io_message(&e));
            return false;
        }
    };
    report_errors(&built.errors);
    let published =
        store.publish(|file| trawl_index::segment::write(file, root, &signature, built.segment));
    published_or_not(published, shown, "indexed", (start, &progress)) && built.errors.is_empty()
}

fn report_errors(errors: &[Unreadable]) {
    for e in errors {
        eprintln!("trawl: {}: {}", e.path.display(), trawl_diag::io_message(&e.error));
    }
}

/// Reports how publishing went (on a terminal, what was done).
fn published_or_not(
    published: std::io::Result<u64>,
    shown: &Path,
    what: &str,
    (start, progress): (Instant, &Progress),
) -> bool {
    match published {
        Ok(_) => {
            if std::io::stderr().is_terminal() {
                eprintln!(
                    "trawl: {what} {}: {} files, {} directories, {:.1} MB read, in {:.1} s",
                    shown.display(),
                    progress.files.load(Ordering::Relaxed),
                    progress.dirs.load(Ordering::Relaxed),
                    progress.bytes.load(Ordering::Relaxed) as f64 / 1e6,
                    start.elapsed().as_secs_f64()
                );
            }
            true
        }
        Err(e) => {
            eprintln!("trawl: index of {}: {}", shown.display(), trawl_diag::io_message(&e));
            false
        }
    }
}

impl Texts {
    /// The more of the two (--docs holds what --search-zip does).
    fn max_with(self, other: Texts) -> Texts {
        if self == Texts::Docs {
            self
        } else {
            other
        }
    }
}

/// The text searches that extract read of a file, for the index: what
/// the extractor finds inside it (members, a document's text), through
/// its cache. A big archive's members are each a stream of their own, and
/// their texts are kept in the cache one by one (a pack), so that a search
/// reads only the members that may match.
struct Extracting(trawl_extract::Extractor);

impl trawl_index::texts::Texts for Extracting {
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

    #[test]
    fn the_bytes_a_build_reads_are_counted_on_its_file_system_without_links() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("a/b")).unwrap();
        std::fs::write(t.path().join("a/one"), [0u8; 1000]).unwrap();
        std::fs::write(t.path().join("a/b/two"), [0u8; 234]).unwrap();
        std::os::unix::fs::symlink("one", t.path().join("a/link")).unwrap();
        std::os::unix::fs::symlink("a", t.path().join("dirlink")).unwrap();
        assert_eq!(count_bytes(t.path()), 1234);
    }
}
