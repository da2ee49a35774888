//! What the end of a run says: `--stats`'s totals as text, or JSON's
//! summary message (json.rs), from one [`Summary`]; and the lines about
//! documents whose text could not be extracted that go to standard error.

use std::time::Duration;

use crate::config::OutputMode;
use crate::stats::{ExtractionStats, IndexStats, Stats};

/// The end of a run, as its totals say it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Summary {
    /// The totals of the searches.
    pub stats: Stats,
    /// The whole run's time.
    pub elapsed: Duration,
    /// How an index served the search, when one did.
    pub index: Option<IndexStats>,
    /// What became of documents.
    pub extraction: ExtractionStats,
}

impl Summary {
    /// Writes the end of the output into `out`: JSON's summary message
    /// under `--json`, else `--stats`'s text.
    pub fn write(&self, mode: OutputMode, out: &mut Vec<u8>) {
        match mode {
            OutputMode::Json => {
                crate::json::summary(out, &self.stats, self.elapsed, self.index, self.extraction)
            }
            _ => self.write_text(out),
        }
    }

    /// `--stats`: the totals, one per line, after an empty line.
    fn write_text(&self, out: &mut Vec<u8>) {
        let s = &self.stats;
        let binary = match s.binary_files_matched {
            0 => String::new(),
            n => format!(" (not counting those in {n} binary files)"),
        };
        let text = format!(
            "\n{} matches{binary}\n{} matched lines\n{} files contained matches\n{} files searched\n{} bytes printed\n{} bytes searched\n{:.6} seconds\n",
            s.matches,
            s.matched_lines,
            s.files_matched,
            s.files_searched,
            s.bytes_printed,
            s.bytes_searched,
            self.elapsed.as_secs_f64()
        );
        out.extend_from_slice(text.as_bytes());
        let x = &self.extraction;
        if x.searched_as_bytes > 0 {
            let n = x.searched_as_bytes;
            let line = format!("{n} documents searched as bytes after their extractor failed\n");
            out.extend_from_slice(line.as_bytes());
        }
        if x.failed_remembered > 0 {
            let n = x.failed_remembered;
            let line = format!("{n} documents whose text could not be extracted (remembered)\n");
            out.extend_from_slice(line.as_bytes());
        }
        if let Some(ix) = &self.index {
            let watched = match ix.watched {
                true => "what changed: from the index's watcher (trawl index --watch)\n",
                false => "",
            };
            let text = format!(
                "{} files passed over by the index (they cannot match)\n{} files searched as the index's candidates\n{} files searched because they changed or are new\n{watched}",
                ix.files_skipped, ix.files_candidates, ix.files_changed,
            );
            out.extend_from_slice(text.as_bytes());
        }
    }
}

/// What the end of a run says on standard error about documents (without
/// `trawl: `): how many had their text not extracted (each was named as
/// met), and how many the cache remembers failing (named by `trawl cache
/// failures`).
pub fn extraction_notes(extraction: &ExtractionStats) -> Vec<String> {
    let mut notes = Vec::new();
    if extraction.failed > 0 {
        let n = extraction.failed;
        let what = if n == 1 { "file or member" } else { "files or members" };
        notes.push(format!("text not extracted from {n} {what} (each named above)"));
    }
    if extraction.failed_remembered > 0 {
        let n = extraction.failed_remembered;
        let what = if n == 1 { "document's text" } else { "documents' text" };
        notes.push(format!(
            "{n} {what} could not be extracted (remembered; trawl cache failures lists them)"
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats() -> Stats {
        Stats {
            matches: 7,
            matched_lines: 5,
            files_matched: 2,
            files_searched: 3,
            bytes_searched: 1000,
            bytes_printed: 120,
            binary_files_matched: 0,
            search_time: Duration::from_millis(3),
        }
    }

    fn text(s: &Summary) -> String {
        let mut out = Vec::new();
        s.write(OutputMode::Lines, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn stats_text_says_each_total_on_its_line() {
        let s = Summary {
            stats: stats(),
            elapsed: Duration::from_micros(1_500_250),
            ..Default::default()
        };
        let want = "\n7 matches\n5 matched lines\n2 files contained matches\n3 files searched\n120 bytes printed\n1000 bytes searched\n1.500250 seconds\n";
        assert_eq!(text(&s), want);
    }

    #[test]
    fn stats_text_names_binary_files_documents_and_the_index() {
        let s = Summary {
            stats: Stats { binary_files_matched: 1, ..stats() },
            elapsed: Duration::ZERO,
            index: Some(IndexStats {
                files_skipped: 4,
                files_candidates: 2,
                files_changed: 1,
                watched: true,
            }),
            extraction: ExtractionStats { failed: 0, failed_remembered: 2, searched_as_bytes: 1 },
        };
        let got = text(&s);
        assert!(got.starts_with("\n7 matches (not counting those in 1 binary files)\n"), "{got}");
        assert!(
            got.ends_with(
                "0.000000 seconds\n\
             1 documents searched as bytes after their extractor failed\n\
             2 documents whose text could not be extracted (remembered)\n\
             4 files passed over by the index (they cannot match)\n\
             2 files searched as the index's candidates\n\
             1 files searched because they changed or are new\n\
             what changed: from the index's watcher (trawl index --watch)\n"
            ),
            "{got}"
        );
    }

    #[test]
    fn json_summary_is_one_message() {
        let s = Summary { stats: stats(), ..Default::default() };
        let mut out = Vec::new();
        s.write(OutputMode::Json, &mut out);
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["type"], "summary");
        assert_eq!(v["data"]["stats"]["matches"], 7);
        assert_eq!(v["data"]["stats"]["searches"], 3);
        assert!(v["data"].get("extraction").is_none());
        assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 1);
    }

    #[test]
    fn extraction_notes_count_failures_in_words() {
        assert!(extraction_notes(&ExtractionStats::default()).is_empty());
        let one = ExtractionStats { failed: 1, failed_remembered: 1, searched_as_bytes: 0 };
        assert_eq!(
            extraction_notes(&one),
            [
                "text not extracted from 1 file or member (each named above)",
                "1 document's text could not be extracted (remembered; trawl cache failures lists them)"
            ]
        );
    }
}
