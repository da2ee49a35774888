//! JSON Lines output, in ripgrep's message format.

use base64::Engine as _;
use trawl_matcher::Matcher;
use trawl_search::{LineInfo, SearchSummary};

/// Writes `{"text":...}` for UTF-8 data, else `{"bytes":base64}`.
fn data(out: &mut Vec<u8>, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(s) => {
            out.extend_from_slice(b"{\"text\":");
            serde_json::to_writer(&mut *out, s).expect("writing to a Vec cannot fail");
        }
        Err(_) => {
            out.extend_from_slice(b"{\"bytes\":\"");
            out.extend_from_slice(
                base64::engine::general_purpose::STANDARD.encode(bytes).as_bytes(),
            );
            out.push(b'"');
        }
    }
    out.push(b'}');
}

pub(crate) fn begin(out: &mut Vec<u8>, path: &[u8]) {
    out.extend_from_slice(b"{\"type\":\"begin\",\"data\":{\"path\":");
    data(out, path);
    out.extend_from_slice(b"}}\n");
}

/// Writes a match or context message; returns the number of submatches.
pub(crate) fn line<M: Matcher>(
    out: &mut Vec<u8>,
    path: &[u8],
    line: &[u8],
    info: LineInfo,
    matcher: Option<&M>,
    with_submatches: bool,
) -> u64 {
    let kind: &[u8] = if matcher.is_some() { b"match" } else { b"context" };
    out.extend_from_slice(b"{\"type\":\"");
    out.extend_from_slice(kind);
    out.extend_from_slice(b"\",\"data\":{\"path\":");
    data(out, path);
    out.extend_from_slice(b",\"lines\":");
    data(out, line);
    match info.line_number {
        Some(n) => out.extend_from_slice(format!(",\"line_number\":{n}").as_bytes()),
        None => out.extend_from_slice(b",\"line_number\":null"),
    }
    out.extend_from_slice(
        format!(",\"absolute_offset\":{},\"submatches\":[", info.offset).as_bytes(),
    );
    let mut n = 0;
    if let (Some(m), true) = (matcher, with_submatches) {
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        let mut at = 0;
        while let Some(x) = super::next_match(m, body, &mut at) {
            if n > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"match\":");
            data(out, &body[x.start..x.end]);
            out.extend_from_slice(format!(",\"start\":{},\"end\":{}}}", x.start, x.end).as_bytes());
            n += 1;
        }
    }
    out.extend_from_slice(b"]}}\n");
    n
}

pub(crate) fn end(out: &mut Vec<u8>, path: &[u8], summary: &SearchSummary, selected: u64) {
    out.extend_from_slice(b"{\"type\":\"end\",\"data\":{\"path\":");
    data(out, path);
    match summary.binary_offset {
        Some(o) => out.extend_from_slice(format!(",\"binary_offset\":{o}").as_bytes()),
        None => out.extend_from_slice(b",\"binary_offset\":null"),
    }
    out.extend_from_slice(
        format!(
            ",\"stats\":{{\"searches\":1,\"searches_with_match\":{},\"bytes_searched\":{},\"matched_lines\":{}}}}}}}\n",
            (selected > 0) as u8,
            summary.bytes,
            selected
        )
        .as_bytes(),
    );
}

/// Writes the closing summary message.
pub fn summary(out: &mut Vec<u8>, stats: &super::Stats, elapsed: std::time::Duration) {
    out.extend_from_slice(
        format!(
            "{{\"type\":\"summary\",\"data\":{{\"elapsed_total\":{{\"secs\":{},\"nanos\":{},\"human\":\"{:.6}s\"}},\"stats\":{{\"searches\":{},\"searches_with_match\":{},\"bytes_searched\":{},\"bytes_printed\":{},\"matched_lines\":{},\"matches\":{}}}}}}}\n",
            elapsed.as_secs(),
            elapsed.subsec_nanos(),
            elapsed.as_secs_f64(),
            stats.files_searched,
            stats.files_matched,
            stats.bytes_searched,
            stats.bytes_printed,
            stats.matched_lines,
            stats.matches
        )
        .as_bytes(),
    );
}
