//! The totals of a run ([`Stats`]), how an index served it
//! ([`IndexStats`]) and what became of its documents ([`ExtractionStats`]):
//! what `--stats` and JSON's summary say, summed over threads (and over
//! the shards of a distributed run).

use serde::Serialize;

/// Totals for `--stats` and JSON's summary.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// Matches found (counting each match on a line with `-o` or JSON).
    pub matches: u64,
    /// Lines selected.
    pub matched_lines: u64,
    /// Files with at least one selected line.
    pub files_matched: u64,
    /// Files searched.
    pub files_searched: u64,
    /// Bytes read.
    pub bytes_searched: u64,
    /// Bytes of output.
    pub bytes_printed: u64,
    /// Files whose selected lines were in binary data: their lines are
    /// counted, their matches are not (their text is not handed over).
    pub binary_files_matched: u64,
    /// Time spent in the searches of files (JSON: summed over files, as
    /// ripgrep's summary `stats.elapsed`).
    pub search_time: std::time::Duration,
}

impl Stats {
    /// Adds another thread's totals.
    pub fn add(&mut self, o: &Stats) {
        self.matches += o.matches;
        self.matched_lines += o.matched_lines;
        self.files_matched += o.files_matched;
        self.files_searched += o.files_searched;
        self.bytes_searched += o.bytes_searched;
        self.bytes_printed += o.bytes_printed;
        self.binary_files_matched += o.binary_files_matched;
        self.search_time += o.search_time;
    }
}

/// How an index served a search: files passed over unopened (they cannot
/// match), searched as candidates, and searched because they changed or
/// are new since the index was built.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct IndexStats {
    /// Unchanged files that cannot match.
    pub files_skipped: u64,
    /// Unchanged files that may match.
    pub files_candidates: u64,
    /// Files changed or new since the index was built.
    pub files_changed: u64,
    /// Whether what changed came from the index's watcher (`trawl index
    /// --watch`) rather than a check of every file's stamps.
    pub watched: bool,
}

/// What happened to the documents whose text an extractor makes
/// (`--docs`), beyond what was searched.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq, Serialize)]
pub struct ExtractionStats {
    /// Files and members whose text could not be (all) extracted in this
    /// run, each reported by name.
    pub failed: u64,
    /// Documents the cache remembers failing: what their extractor made
    /// was searched, and one line at the end says how many.
    pub failed_remembered: u64,
    /// Documents whose bytes are text (PostScript) searched as bytes after
    /// their extractor failed, now or remembered: not an error.
    pub searched_as_bytes: u64,
}

impl ExtractionStats {
    /// Whether there is anything to say.
    pub fn is_empty(&self) -> bool {
        *self == ExtractionStats::default()
    }

    /// Adds another part's counts.
    pub fn add(&mut self, o: &ExtractionStats) {
        self.failed += o.failed;
        self.failed_remembered += o.failed_remembered;
        self.searched_as_bytes += o.searched_as_bytes;
    }
}
