//! grep's format for one line: its prefix (name, page, line number,
//! column, byte offset, `-T`'s tab), its text (colored, `-o`'s matches,
//! `--replace`, `--trim`, `-M`), `--heading`'s name line, and the lines of
//! a `--multiline` record.

use trawl_matcher::{Match, Matcher};
use trawl_search::LineInfo;

use super::{Counting, FileSink, STREAM_AT};
use crate::color::{self, Colors};
use crate::hyperlink;
use crate::shape;
use crate::util::{file_name, itoa_buf, line_start_in, linked_file_name, next_match};
use crate::width;

impl<M: Matcher> FileSink<'_, '_, M> {
    pub(super) fn file_line(&mut self) {
        linked_file_name(&mut self.p.out, self.p.config, self.path);
        self.p.out.push(if self.p.config.null { 0 } else { b'\n' });
    }

    pub(super) fn file_name(&mut self) {
        file_name(&mut self.p.out, self.p.config, self.path);
    }

    /// The separator after a field: NUL after a file name with `-Z`.
    pub(super) fn sep(&mut self, sep: u8) {
        let c = self.p.config;
        if c.null {
            self.p.out.push(0);
        } else {
            color::paint(&mut self.p.out, c.colors.as_ref(), |c| &c.separator, &[sep]);
        }
    }

    fn number_field(&mut self, n: u64, which: Field, sep: u8) {
        let c = self.p.config;
        let mut b = itoa_buf();
        let aligned = match which {
            Field::Line | Field::Byte => self.number_width,
            Field::Column => 0,
        };
        let digits = width::right_aligned(&mut b, n, aligned);
        let pick: fn(&Colors) -> &str = match which {
            Field::Line => |k| &k.line_number,
            Field::Column => |k| &k.line_number,
            Field::Byte => |k| &k.byte_offset,
        };
        color::paint(&mut self.p.out, c.colors.as_ref(), pick, digits);
        color::paint(&mut self.p.out, c.colors.as_ref(), |k| &k.separator, &[sep]);
    }

    /// `--heading`: the file's name on its own line, before its first line.
    fn heading(&mut self, page: Option<u64>) {
        if self.headed || !self.show_name {
            return;
        }
        self.headed = true;
        let c = self.p.config;
        let link = c.hyperlinks.as_ref().filter(|_| c.colors.is_some());
        if let Some(h) = link {
            h.open(&mut self.p.out, self.path, 1, 1);
        }
        self.file_name();
        if let Some(page) = page {
            let text = format!("#page={page}");
            color::paint(&mut self.p.out, c.colors.as_ref(), |c| &c.file_name, text.as_bytes());
        }
        if link.is_some() {
            hyperlink::Hyperlinks::close(&mut self.p.out);
        }
        self.p.out.push(b'\n');
    }

    /// Writes the prefix of a line: name (and page), number, column,
    /// offset. `column` is the 0-based start of the match it names.
    fn prefix(
        &mut self,
        info: LineInfo,
        page: Option<u64>,
        offset: u64,
        sep: u8,
        column: Option<usize>,
        text: Text,
    ) {
        let c = self.p.config;
        let before = self.p.out.len();
        let named = self.show_name && !c.heading;
        // A link covers the name, and the line number when it names a line.
        let link = c.hyperlinks.as_ref().filter(|_| c.colors.is_some() && named);
        if let Some(h) = link {
            let line = info.line_number.unwrap_or(1);
            h.open(&mut self.p.out, self.path, line, column.map_or(1, |col| col as u64 + 1));
        }
        let mut linked = link.is_some();
        if named {
            self.file_name();
            if let Some(page) = page {
                let text = format!("#page={page}");
                color::paint(&mut self.p.out, c.colors.as_ref(), |c| &c.file_name, text.as_bytes());
            }
            if linked && !link.is_some_and(|h| h.has_line() && c.line_number) {
                hyperlink::Hyperlinks::close(&mut self.p.out);
                linked = false;
            }
            self.sep(sep);
        }
        if c.line_number {
            if let Some(n) = info.line_number {
                if linked {
                    // The link ends after the number, before its separator.
                    let mut b = itoa_buf();
                    let digits = width::right_aligned(&mut b, n, self.number_width);
                    color::paint(&mut self.p.out, c.colors.as_ref(), |k| &k.line_number, digits);
                    hyperlink::Hyperlinks::close(&mut self.p.out);
                    linked = false;
                    color::paint(&mut self.p.out, c.colors.as_ref(), |k| &k.separator, &[sep]);
                } else {
                    self.number_field(n, Field::Line, sep);
                }
            }
        }
        if linked {
            hyperlink::Hyperlinks::close(&mut self.p.out);
        }
        if let Some(col) = column.filter(|_| c.column) {
            self.number_field(col as u64 + 1, Field::Column, sep);
        }
        if c.byte_offset {
            self.number_field(offset, Field::Byte, sep);
        }
        // GNU grep: no tab before an empty line's (missing) text.
        if c.initial_tab && self.p.out.len() > before && text == Text::NotEmpty {
            self.p.out.push(b'\t');
        }
    }

    pub(super) fn write_line(&mut self, line: &[u8], info: LineInfo, selected: bool) {
        let c = self.p.config;
        self.grouped = true;
        if c.multiline && memchr::memchr(c.terminator.byte(), self.body(line)).is_some() {
            return self.write_record(line, info, selected);
        }
        let page = self.page(info, line);
        if c.heading {
            self.heading(page);
        }
        let term = c.terminator.byte();
        let body = self.body(line);
        let sep = if selected { b':' } else { b'-' };
        if c.only_matching {
            // The matches of a line selected, or of a context line under
            // -v (`2-yes`), as GNU grep: not those of a context line after
            // -m's last selected line, nor a selected line's under -v.
            if selected == c.invert {
                return;
            }
            let mut at = 0;
            while let Some(m) = next_match(self.matcher, body, &mut at) {
                self.prefix(
                    info,
                    page,
                    info.offset + m.start as u64,
                    sep,
                    Some(m.start),
                    Text::NotEmpty,
                );
                self.only_match(body, m, selected);
            }
            return;
        }
        // The matches, when something besides the line itself needs them.
        let colored = c.colors.as_ref().is_some_and(|k| {
            !(if selected { &k.selected_match } else { &k.context_match }).is_empty()
        });
        let has_matches = selected != c.invert;
        let needs_matches = has_matches
            && (c.column
                || c.vimgrep
                || (c.replace.is_some() && selected)
                || ((c.trim || c.max_columns.is_some()) && colored));
        let matches: Vec<Match> = match needs_matches {
            true => {
                let mut at = 0;
                std::iter::from_fn(|| next_match(self.matcher, body, &mut at)).collect()
            }
            false => Vec::new(),
        };
        if c.vimgrep && selected && !matches.is_empty() {
            // One line per match, each with its column.
            for m in &matches {
                self.prefix(info, page, info.offset, sep, Some(m.start), Text::of(body));
                self.body_text(body, &matches, selected);
                self.p.out.push(term);
            }
            return;
        }
        self.prefix(info, page, info.offset, sep, matches.first().map(|m| m.start), Text::of(body));
        self.body_text(body, &matches, selected);
        self.p.out.push(term);
    }

    /// `-o`: the match `m` of `hay` after its prefix (replaced under
    /// `--replace` in a selected line), shaped, and its terminator.
    fn only_match(&mut self, hay: &[u8], m: Match, selected: bool) {
        let c = self.p.config;
        let mut text = Vec::new();
        let shown: &[u8] = match &c.replace {
            Some(t) if selected => {
                t.expand(self.matcher, hay, m, &mut self.groups, &mut text);
                &text
            }
            _ => &hay[m.start..m.end],
        };
        let span = [Match::new(0, shown.len())];
        let counted = c.colors.is_some() || c.replace.is_some();
        self.shaped(shown, &span, selected, counted, Piece::Match);
        self.p.out.push(c.terminator.byte());
        if selected {
            self.p.stats.matches += 1;
        }
    }

    /// `--multiline`: a record of several lines (a match spans them): each
    /// line with its own prefix; with `-o`, each match's lines.
    fn write_record(&mut self, record: &[u8], info: LineInfo, selected: bool) {
        let c = self.p.config;
        let term = c.terminator.byte();
        let page = self.page(info, record);
        if c.heading {
            self.heading(page);
        }
        let sep = if selected { b':' } else { b'-' };
        // The prefix of the line starting at `at` in the record.
        let line_info = |at: usize| LineInfo {
            offset: info.offset + at as u64,
            line_number: info
                .line_number
                .map(|n| n + trawl_search::count_terminators(&record[..at], term)),
        };
        let body = self.body(record);
        if c.only_matching {
            // As for a line (write_line): whose matches are printed.
            if selected == c.invert {
                return;
            }
            let mut at = 0;
            while let Some(m) = next_match(self.matcher, body, &mut at) {
                let mut piece = m.start;
                for part in body[m.start..m.end].split(|&b| b == term) {
                    let line = line_info(piece);
                    let column = Some(piece - line_start_in(body, piece, term));
                    self.prefix(line, page, line.offset, sep, column, Text::of(part));
                    let span = [Match::new(0, part.len())];
                    self.shaped(part, &span, selected, c.colors.is_some(), Piece::Match);
                    self.p.out.push(term);
                    piece += part.len() + 1;
                }
                if selected {
                    self.p.stats.matches += 1;
                }
            }
            return;
        }
        let mut at = 0;
        for text in body.split(|&b| b == term) {
            let line = line_info(at);
            self.prefix(line, page, line.offset, sep, None, Text::of(text));
            self.body_text(text, &[], selected);
            self.p.out.push(term);
            at += text.len() + 1;
        }
    }

    /// Writes a printed line's text (`matches`: its matches, when they
    /// were needed).
    fn body_text(&mut self, body: &[u8], matches: &[Match], selected: bool) {
        let c = self.p.config;
        if c.trim || c.max_columns.is_some() || (c.replace.is_some() && selected) {
            let mut spans = Vec::new();
            let text: std::borrow::Cow<'_, [u8]> = match &c.replace {
                Some(t) if selected && !matches.is_empty() => {
                    shape::replaced(t, self.matcher, body, matches, &mut spans).into()
                }
                _ => {
                    spans.extend_from_slice(matches);
                    body.into()
                }
            };
            // ripgrep counts matches in its messages when it looked for
            // them (to color, replace or give a column).
            let counted = selected && !matches.is_empty();
            self.shaped(&text, &spans, selected, counted, Piece::Line);
            if self.p.counting == Counting::Summary && selected && !c.invert && c.colors.is_none() {
                self.count_matches(body);
            }
            return;
        }
        match &c.colors {
            Some(k) => {
                let (line_color, match_color) = if selected {
                    (k.selected_line.as_str(), k.selected_match.as_str())
                } else {
                    (k.context_line.as_str(), k.context_match.as_str())
                };
                // Matches are colored where they are: in selected lines, and
                // in context lines under -v.
                let color_matches = selected != c.invert;
                color::line(&mut self.p.out, k, body, line_color, match_color, |at| {
                    if color_matches {
                        next_match(self.matcher, body, at)
                    } else {
                        None
                    }
                });
            }
            None => {
                if body.len() >= STREAM_AT {
                    self.write_direct(body);
                } else {
                    self.p.out.extend_from_slice(body);
                }
                if self.p.counting == Counting::Summary && selected && !c.invert {
                    self.count_matches(body);
                }
            }
        }
    }

    /// Writes `text` (whose matches are at `spans`) as `--trim` and
    /// `-M` shape it, colored when coloring. `counted`: the messages of
    /// `-M` count the matches (ripgrep's when it looked for them).
    fn shaped(
        &mut self,
        text: &[u8],
        spans: &[Match],
        selected: bool,
        counted: bool,
        piece: Piece,
    ) {
        let c = self.p.config;
        let cut = if c.trim { shape::trimmed_len(text) } else { 0 };
        let text = &text[cut..];
        let spans: Vec<Match> = spans
            .iter()
            .filter(|m| m.end > cut)
            .map(|m| Match::new(m.start.max(cut) - cut, m.end - cut))
            .collect();
        let mut shown = text;
        let mut suffix = None;
        if let Some(mc) = c.max_columns {
            if text.len() as u64 + 1 > mc.limit {
                if !mc.preview {
                    let message = match (counted, selected) {
                        (true, _) => format!("[Omitted long line with {} matches]", spans.len()),
                        (false, true) => "[Omitted long matching line]".to_string(),
                        (false, false) => "[Omitted long context line]".to_string(),
                    };
                    self.p.out.extend_from_slice(message.as_bytes());
                    return;
                }
                shown = &text[..shape::char_prefix(text, mc.limit)];
                let more = spans.iter().filter(|m| m.start >= shown.len()).count();
                suffix = Some(match (counted, more) {
                    (true, 1) => " [... 1 more match]".to_string(),
                    (true, _) => format!(" [... {more} more matches]"),
                    (false, _) => " [... omitted end of long line]".to_string(),
                });
            }
        }
        match &c.colors {
            Some(k) => {
                let (line_color, match_color) = if selected {
                    (k.selected_line.as_str(), k.selected_match.as_str())
                } else {
                    (k.context_line.as_str(), k.context_match.as_str())
                };
                // GNU grep gives -o's matches no line color.
                let line_color = match piece {
                    Piece::Line => line_color,
                    Piece::Match => "",
                };
                let mut i = 0;
                let visible: Vec<Match> = spans
                    .iter()
                    .filter(|m| m.start < shown.len())
                    .map(|m| Match::new(m.start, m.end.min(shown.len())))
                    .collect();
                color::line(&mut self.p.out, k, shown, line_color, match_color, |_| {
                    let m = visible.get(i).copied();
                    i += 1;
                    m
                });
            }
            None => self.p.out.extend_from_slice(shown),
        }
        if let Some(s) = suffix {
            self.p.out.extend_from_slice(s.as_bytes());
        }
    }

    /// `-o` without context, a line too long to hold: one of its matches
    /// (`text`, at offset `at` of the line at `line`), after its prefix.
    pub(super) fn write_part(&mut self, text: &[u8], line: LineInfo, at: u64) {
        let column = Some((at - line.offset) as usize);
        self.prefix(line, None, at, b':', column, Text::of(text));
        self.only_match(text, Match::new(0, text.len()), true);
    }
}

/// What [`FileSink::shaped`] writes: a line, or one match of it (`-o`).
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Piece {
    Line,
    Match,
}

/// Whether a prefix is followed by text: `-T`'s tab goes only before some.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Text {
    Empty,
    NotEmpty,
}

impl Text {
    fn of(text: &[u8]) -> Text {
        match text.is_empty() {
            true => Text::Empty,
            false => Text::NotEmpty,
        }
    }
}

#[derive(Clone, Copy)]
enum Field {
    Line,
    Column,
    Byte,
}
