//! Small helpers the formats share: the next match in a line, decimal
//! digits, file names as printed, the bytes a search counts as read.

use trawl_matcher::Matcher;
use trawl_search::SearchSummary;

use crate::config::PrinterConfig;
use crate::{color, hyperlink};

/// The start of the line holding `at` in `text`.
pub(crate) fn line_start_in(text: &[u8], at: usize, term: u8) -> usize {
    memchr::memrchr(term, &text[..at]).map_or(0, |i| i + 1)
}

/// The next non-empty match in `line` at or after `*at`; advances `*at`.
pub(crate) fn next_match<M: Matcher>(
    m: &M,
    line: &[u8],
    at: &mut usize,
) -> Option<trawl_matcher::Match> {
    while *at <= line.len() {
        let found = m.find_at(line, *at).ok()??;
        if found.is_empty() {
            *at = found.end + 1;
            continue;
        }
        *at = found.end;
        return Some(found);
    }
    None
}

/// The bytes a search looked at: up to the end of the last line `-m`
/// let it select, else all it read (as ripgrep counts them).
pub(crate) fn bytes_searched(summary: &SearchSummary) -> u64 {
    summary.stopped_at.map_or(summary.bytes, |at| at.min(summary.bytes))
}

pub(crate) fn itoa_buf() -> [u8; 20] {
    [0; 20]
}

/// Formats `n` in decimal into `buf`, returning the digits.
pub(crate) fn fmt_u64(buf: &mut [u8; 20], mut n: u64) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[i..];
        }
    }
}

/// A file name as printed alone (`-l`, `-c`, `--files`): a link when
/// links are on (and coloring).
pub(crate) fn linked_file_name(out: &mut Vec<u8>, config: &PrinterConfig, path: &[u8]) {
    match config.hyperlinks.as_ref().filter(|_| config.colors.is_some()) {
        Some(h) => {
            h.open(out, path, 1, 1);
            file_name(out, config, path);
            hyperlink::Hyperlinks::close(out);
        }
        None => file_name(out, config, path),
    }
}

/// A file name as printed: control characters escaped on a terminal, and
/// colored when coloring.
pub(crate) fn file_name(out: &mut Vec<u8>, config: &PrinterConfig, path: &[u8]) {
    if config.escape_names && path.iter().any(|&b| b < 0x20 || b == 0x7f) {
        let mut escaped = Vec::new();
        trawl_diag::escape_controls(&mut escaped, path);
        color::paint(out, config.colors.as_ref(), |c| &c.file_name, &escaped);
        return;
    }
    color::paint(out, config.colors.as_ref(), |c| &c.file_name, path);
}
