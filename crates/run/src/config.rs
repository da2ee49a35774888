//! A search's configuration: what every stage of a run needs, decided once
//! (by flags::hi) and never written after.

use std::os::unix::ffi::OsStrExt;

use trawl_matcher::AnyMatcher;
use trawl_printer::{Counting, OutputMode, PrinterConfig};
use trawl_search::SearcherConfig;

use crate::filter::Filter;

/// A path to search.
pub enum Target {
    /// Standard input, printed as "(standard input)".
    Stdin,
    /// A file or directory; `display` is empty for the implicit ".".
    Path { path: Vec<u8>, display: Vec<u8> },
}

/// Everything a run needs, decided once.
pub struct Config {
    pub matcher: AnyMatcher,
    pub searcher: SearcherConfig,
    pub printer: PrinterConfig,
    pub targets: Vec<Target>,
    pub filter: Filter,
    pub threads: usize,
    pub follow_links: bool,
    pub max_depth: Option<usize>,
    pub one_file_system: bool,
    pub sorted: bool,
    /// `--sort modified` and the like, and `--sortr`.
    pub order: Option<Order>,
    pub gitignore: bool,
    pub no_messages: bool,
    pub stats: bool,
    /// No line can be selected (`-m 0`; no pattern at all; `-v ''`): as
    /// GNU grep, exit 1 without opening a file (unless `-L`, which lists
    /// every file).
    pub selects_nothing: bool,
    /// How standard input is named (`--label`; "(standard input)").
    pub stdin_label: Vec<u8>,
    /// Standard output's device and inode when it is a regular file and
    /// lines are printed (GNU grep's check: not with -c, -l, -L, -q or
    /// -m 1): a file that is also the output is not read.
    pub output_file: Option<(u64, u64)>,
    /// `--search-zip`: compressed files and archives are opened.
    pub extract: Option<trawl_extract::Extractor>,
    /// `-D`: what is done with devices, FIFOs and sockets.
    pub devices: Devices,
    /// `-d`: what is done with directory operands.
    pub directories: Directories,
    /// The index's question, when an index may serve the search.
    pub index: Option<trawl_index::ContentSearch>,
}

/// `--sort`/`--sortr` by something a walk in order cannot give: the files
/// are listed, sorted, then searched in that order.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct Order {
    pub key: SortKey,
    pub reverse: bool,
}

/// What `--sort` sorts by.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum SortKey {
    Path,
    Modified,
    Accessed,
    Created,
}

impl Order {
    /// Sorts `files` (their times filled in here); ties and files whose
    /// time is unknown (first) keep path order.
    pub fn sort(&self, files: &mut [(Option<std::time::SystemTime>, Vec<u8>)]) {
        let time = |md: std::fs::Metadata| match self.key {
            SortKey::Path => None,
            SortKey::Modified => md.modified().ok(),
            SortKey::Accessed => md.accessed().ok(),
            SortKey::Created => md.created().ok(),
        };
        if self.key != SortKey::Path {
            for (t, path) in files.iter_mut() {
                *t = std::fs::metadata(std::ffi::OsStr::from_bytes(path)).ok().and_then(time);
            }
        }
        files.sort_by(|a, b| {
            // Depth first, names in byte order (as --sort path walks).
            let by_path = a.1.split(|&c| c == b'/').cmp(b.1.split(|&c| c == b'/'));
            let ord = a.0.cmp(&b.0).then(by_path);
            if self.reverse {
                ord.reverse()
            } else {
                ord
            }
        });
    }
}

/// `-D ACTION`: devices, FIFOs and sockets.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Devices {
    /// Read those named as operands; skip those met in recursion (grep -r).
    Operands,
    /// `-D read`: read them wherever they are met.
    Read,
    /// `-D skip`: never read them (standard input is still read).
    Skip,
}

/// `-d ACTION`: directory operands.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Directories {
    /// Search them recursively (trawl's default; `-r`, `-R`).
    Recurse,
    /// `-d read`: read as files, which fails ("Is a directory"), as grep.
    Read,
    /// `-d skip`: skip them silently.
    Skip,
}

impl Config {
    /// Whether `.` is searched because no path was given (its entries are
    /// printed without `./`, and `--exclude-dir` never skips it).
    pub fn implicit_dot(&self) -> bool {
        self.targets.iter().any(|t| matches!(t, Target::Path { display, .. } if display.is_empty()))
    }

    /// What the printers count: everything when a summary ends the run.
    pub fn counting(&self) -> Counting {
        if self.stats || self.printer.mode == OutputMode::Json {
            Counting::Summary
        } else {
            Counting::Output
        }
    }
}

/// Whether the locale's characters are UTF-8: the first of `LC_ALL`,
/// `LC_CTYPE` and `LANG` that is set and not empty names it (as setlocale
/// reads them); unset, `C` and `POSIX` are bytes.
pub fn utf8_locale() -> bool {
    let value = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .find_map(|k| std::env::var_os(k).filter(|v| !v.is_empty()));
    value.is_some_and(|v| {
        let v = v.to_string_lossy().to_ascii_lowercase();
        v.contains("utf-8") || v.contains("utf8")
    })
}
