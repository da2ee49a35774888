//! Colors as GNU grep writes them, configured by GREP_COLORS.

use trawl_matcher::Match;

/// SGR sequences for each part of the output (empty: not colored).
#[derive(Clone, Debug)]
pub struct Colors {
    /// `ms`: a match in a selected line.
    pub selected_match: String,
    /// `mc`: a match in a context line.
    pub context_match: String,
    /// `sl`: a whole selected line.
    pub selected_line: String,
    /// `cx`: a whole context line.
    pub context_line: String,
    /// `fn`: file names.
    pub file_name: String,
    /// `ln`: line numbers.
    pub line_number: String,
    /// `bn`: byte offsets.
    pub byte_offset: String,
    /// `se`: separators (`:`, `-`, `--`).
    pub separator: String,
    /// Follow each sequence with "erase to end of line" (unless `ne`).
    pub erase: bool,
}

impl Default for Colors {
    fn default() -> Self {
        Colors {
            selected_match: "01;31".into(),
            context_match: "01;31".into(),
            selected_line: String::new(),
            context_line: String::new(),
            file_name: "35".into(),
            line_number: "32".into(),
            byte_offset: "32".into(),
            separator: "36".into(),
            erase: true,
        }
    }
}

impl Colors {
    /// grep's defaults changed by the deprecated GREP_COLOR (`legacy`: the
    /// match color, when it is only digits and `;`), then by GREP_COLORS;
    /// also whether GREP_COLOR still colors a match after both (grep then
    /// warns that it is deprecated).
    pub fn from_env(legacy: Option<&str>, spec: Option<&str>, invert: bool) -> (Colors, bool) {
        let mut base = Colors::default();
        let legacy =
            legacy.filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit() || b == b';'));
        if let Some(v) = legacy {
            base.selected_match = v.into();
            base.context_match = v.into();
        }
        let c = Colors::from_grep_colors_over(base, spec, invert);
        let in_effect = legacy.is_some_and(|v| c.selected_match == v || c.context_match == v);
        (c, in_effect)
    }

    /// grep's defaults changed by a GREP_COLORS value such as
    /// `ms=01;32:fn=34:ne`; `rv` swaps `sl` and `cx` when `invert` is on.
    pub fn from_grep_colors(spec: Option<&str>, invert: bool) -> Colors {
        Colors::from_grep_colors_over(Colors::default(), spec, invert)
    }

    fn from_grep_colors_over(base: Colors, spec: Option<&str>, invert: bool) -> Colors {
        let mut c = base;
        let mut reverse = false;
        for item in spec.unwrap_or("").split(':') {
            let (key, val) = item.split_once('=').unwrap_or((item, ""));
            let valid = val.bytes().all(|b| b.is_ascii_digit() || b == b';');
            if !valid {
                continue;
            }
            match key {
                "mt" => {
                    c.selected_match = val.into();
                    c.context_match = val.into();
                }
                "ms" => c.selected_match = val.into(),
                "mc" => c.context_match = val.into(),
                "sl" => c.selected_line = val.into(),
                "cx" => c.context_line = val.into(),
                "fn" => c.file_name = val.into(),
                "ln" => c.line_number = val.into(),
                "bn" => c.byte_offset = val.into(),
                "se" => c.separator = val.into(),
                "ne" => c.erase = false,
                "rv" => reverse = true,
                _ => {}
            }
        }
        if reverse && invert {
            std::mem::swap(&mut c.selected_line, &mut c.context_line);
        }
        c
    }

    fn start(&self, out: &mut Vec<u8>, sgr: &str) {
        out.extend_from_slice(b"\x1b[");
        out.extend_from_slice(sgr.as_bytes());
        out.push(b'm');
        if self.erase {
            out.extend_from_slice(b"\x1b[K");
        }
    }

    fn end(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"\x1b[m");
        if self.erase {
            out.extend_from_slice(b"\x1b[K");
        }
    }
}

/// Writes `text`, colored by the part `pick` selects when coloring.
pub(crate) fn paint(
    out: &mut Vec<u8>,
    colors: Option<&Colors>,
    pick: fn(&Colors) -> &str,
    text: &[u8],
) {
    match colors {
        Some(c) if !pick(c).is_empty() => {
            c.start(out, pick(c));
            out.extend_from_slice(text);
            c.end(out);
        }
        _ => out.extend_from_slice(text),
    }
}

/// Writes the line between groups (`--`, or `--group-separator`'s).
pub(crate) fn separator(out: &mut Vec<u8>, colors: Option<&Colors>, text: &[u8]) {
    paint(out, colors, |c| &c.separator, text);
    out.push(b'\n');
}

/// Writes a line body with its matches colored; `next` yields the matches.
/// As GNU grep: with no match color the matches are not looked for, and
/// the rest after the last match takes the line color without a carriage
/// return that ends it.
pub(crate) fn line(
    out: &mut Vec<u8>,
    c: &Colors,
    body: &[u8],
    line_color: &str,
    match_color: &str,
    mut next: impl FnMut(&mut usize) -> Option<Match>,
) {
    let mut at = 0;
    let mut printed = 0;
    while !match_color.is_empty() {
        let Some(m) = next(&mut at) else { break };
        if !line_color.is_empty() {
            c.start(out, line_color);
        }
        out.extend_from_slice(&body[printed..m.start]);
        c.start(out, match_color);
        out.extend_from_slice(&body[m.start..m.end]);
        c.end(out);
        printed = m.end;
    }
    let rest = &body[printed..];
    let tail = rest.strip_suffix(b"\r").unwrap_or(rest);
    if line_color.is_empty() || tail.is_empty() {
        out.extend_from_slice(rest);
    } else {
        c.start(out, line_color);
        out.extend_from_slice(tail);
        c.end(out);
        out.extend_from_slice(&rest[tail.len()..]);
    }
}
