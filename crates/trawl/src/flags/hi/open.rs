//! A search's resources, opened from its settings: the matcher compiled,
//! the extractor (the user's extractors file, the cache of extracted
//! text), the index that may serve it, and standard output's identity.

use trawl_index::BinaryFiles;
use trawl_printer::OutputMode;
use trawl_search::{BinaryMode, Cancel};

use super::Settings;
use crate::flags::low::LowArgs;
use trawl_run::{Config, Directories};

impl Settings {
    /// The run: the settings with their resources opened.
    pub fn open(self, low: &LowArgs, cancel: Cancel) -> Result<Config, String> {
        let Settings { patterns, matcher: mb, mut searcher, printer, .. } = self;
        let matcher = mb.build(&patterns.lines).map_err(|e| match e.bad_patterns() {
            [] => e.to_string(),
            bad => patterns.describe(bad, self.errors),
        })?;
        for w in &self.warnings {
            crate::report::warning(w);
        }
        searcher.cancel = cancel.clone();
        let extract = self
            .extract
            .map(|limits| {
                crate::extractors::extractor(limits, self.ocr.as_ref(), &cancel, !low.no_cache)
            })
            .transpose()?;
        let mode = printer.mode;
        let forced_encoding = matches!(searcher.encoding, trawl_search::Encoding::Forced(_));
        let served = trawl_index::serves(&trawl_index::Search {
            kind: trawl_index::SearchKind::Contents,
            no_index: low.no_index,
            order: match (self.order, self.sorted) {
                (Some(_), _) => trawl_index::Order::Other,
                (None, true) => trawl_index::Order::ByPath,
                (None, false) => trawl_index::Order::Any,
            },
            follows_links: low.dereference,
            // --glob, --type and --no-hidden choose by the path below the operand.
            chooses_entries: self.gitignore || self.filter.chosen.is_some(),
            one_file_system: low.one_file_system,
            reads_otherwise: low.multiline || forced_encoding,
            lists_only: low.files,
            recurses: self.directories == Directories::Recurse,
        });
        let index = served
            // -c and -L print files without a match too: all are read.
            .then(|| {
                let every = matches!(mode, OutputMode::Count | OutputMode::FilesWithoutMatch);
                let extraction = || extract.as_ref().map(trawl_extract::Extractor::signature);
                // -I: a file the index found binary prints nothing,
                // unless non-matching files are printed too.
                let binary_files = match searcher.binary == BinaryMode::SkipFile && !every {
                    true => BinaryFiles::Skipped,
                    false => BinaryFiles::Searched,
                };
                let invert = low.invert || every;
                let lines = patterns.lines.clone();
                let question = move || crate::index_query::query(&mb, &lines, invert);
                // Indexes live under trawl's cache directory.
                let cache = trawl_extract::cache::default_dir()?;
                trawl_index::ContentSearch::new(
                    trawl_index::Indexes::in_cache(&cache),
                    Box::new(question),
                    extraction,
                    binary_files,
                )
            })
            .flatten();
        let output_file = output_file(mode, searcher.max_count);
        Ok(Config {
            matcher,
            searcher,
            printer,
            targets: self.targets,
            filter: self.filter,
            threads: low.threads.unwrap_or(0),
            follow_links: low.dereference,
            max_depth: low.max_depth,
            one_file_system: low.one_file_system,
            sorted: self.sorted,
            order: self.order,
            gitignore: self.gitignore,
            no_messages: low.no_messages,
            stats: low.stats,
            selects_nothing: self.selects_nothing,
            output_file,
            devices: self.devices,
            directories: self.directories,
            index,
            stdin_label: self.stdin_label,
            extract,
        })
    }
}

/// Standard output's (device, inode) if it is a regular file and the mode
/// prints lines (see [`Config::output_file`]).
fn output_file(mode: OutputMode, max_count: Option<u64>) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    if !matches!(mode, OutputMode::Lines | OutputMode::Json) || max_count.is_some_and(|m| m <= 1) {
        return None;
    }
    // SAFETY: descriptor 1 stays open; ManuallyDrop keeps it from closing.
    let out = std::mem::ManuallyDrop::new(unsafe {
        <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(1)
    });
    let md = out.metadata().ok()?;
    md.is_file().then(|| (md.dev(), md.ino()))
}
