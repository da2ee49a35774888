//! How a printed line's text is shaped by ripgrep's output options:
//! `--replace` (matches replaced, with `$1`/`${name}` groups), `--trim`
//! (leading whitespace dropped) and `-M/--max-columns` (a long line
//! omitted, or cut with `--max-columns-preview`).

use trawl_matcher::{Match, Matcher};

/// `-M NUM`: lines longer than `limit` bytes (with their terminator, as
/// ripgrep measures) are omitted, or shown up to `limit` characters.
#[derive(Clone, Copy, Debug)]
pub struct MaxColumns {
    /// The longest line printed whole.
    pub limit: u64,
    /// `--max-columns-preview`: print the start of a longer line.
    pub preview: bool,
}

/// One piece of a `--replace` template.
#[derive(Clone, Debug, Eq, PartialEq)]
enum Piece {
    Text(Vec<u8>),
    Number(usize),
    Name(String),
}

/// `--replace TEXT`: what each match is replaced with. `$N`, `${N}`,
/// `$name` and `${name}` are the match's groups (`$0` the whole match; a
/// name runs over letters, digits and `_`, so `$1a` is the group `1a`);
/// `$$` is a `$`. A group that did not take part, or does not exist, is
/// empty (as in ripgrep).
#[derive(Clone, Debug, Default)]
pub struct Template {
    pieces: Vec<Piece>,
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl Template {
    /// Reads a template.
    pub fn new(text: &[u8]) -> Template {
        let mut pieces = Vec::new();
        let mut lit = Vec::new();
        let mut i = 0;
        while i < text.len() {
            if text[i] != b'$' {
                lit.push(text[i]);
                i += 1;
                continue;
            }
            let rest = &text[i + 1..];
            let (name, used) = match rest.first() {
                Some(b'$') => {
                    lit.push(b'$');
                    i += 2;
                    continue;
                }
                Some(b'{') => match rest.iter().position(|&b| b == b'}') {
                    Some(close) if close > 1 && rest[1..close].iter().all(|&b| is_name_byte(b)) => {
                        (&rest[1..close], close + 1)
                    }
                    _ => (&rest[..0], 0),
                },
                _ => {
                    let n = rest.iter().take_while(|&&b| is_name_byte(b)).count();
                    (&rest[..n], n)
                }
            };
            if used == 0 {
                // A `$` that starts no reference stands for itself.
                lit.push(b'$');
                i += 1;
                continue;
            }
            if !lit.is_empty() {
                pieces.push(Piece::Text(std::mem::take(&mut lit)));
            }
            let name = String::from_utf8_lossy(name).into_owned();
            pieces.push(match name.parse::<usize>() {
                Ok(n) => Piece::Number(n),
                Err(_) => Piece::Name(name),
            });
            i += 1 + used;
        }
        if !lit.is_empty() {
            pieces.push(Piece::Text(lit));
        }
        Template { pieces }
    }

    /// Appends the replacement of `m`, a match in `line`, to `out`.
    pub(crate) fn expand<M: Matcher>(
        &self,
        matcher: &M,
        line: &[u8],
        m: Match,
        groups: &mut Vec<Option<Match>>,
        out: &mut Vec<u8>,
    ) {
        let needs_groups =
            self.pieces.iter().any(|p| !matches!(p, Piece::Text(_) | Piece::Number(0)));
        if needs_groups {
            if matcher.captures(line, m, groups).is_err() {
                groups.clear();
                groups.push(Some(m));
            }
        } else {
            groups.clear();
            groups.push(Some(m));
        }
        for piece in &self.pieces {
            let group = match piece {
                Piece::Text(t) => {
                    out.extend_from_slice(t);
                    continue;
                }
                Piece::Number(n) => Some(*n),
                Piece::Name(name) => matcher.group_number(name),
            };
            if let Some(Some(g)) = group.and_then(|n| groups.get(n)) {
                out.extend_from_slice(&line[g.start..g.end]);
            }
        }
    }
}

/// The line's text with each match replaced; `spans` receives where the
/// replacements are in it.
pub(crate) fn replaced<M: Matcher>(
    template: &Template,
    matcher: &M,
    body: &[u8],
    matches: &[Match],
    spans: &mut Vec<Match>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut groups = Vec::new();
    let mut printed = 0;
    spans.clear();
    for &m in matches {
        out.extend_from_slice(&body[printed..m.start]);
        let start = out.len();
        template.expand(matcher, body, m, &mut groups, &mut out);
        spans.push(Match::new(start, out.len()));
        printed = m.end;
    }
    out.extend_from_slice(&body[printed..]);
    out
}

/// How many leading bytes `--trim` drops: ASCII whitespace.
pub(crate) fn trimmed_len(text: &[u8]) -> usize {
    text.iter().take_while(|b| b.is_ascii_whitespace()).count()
}

/// The byte length of the first `chars` characters of `text` (UTF-8
/// sequences count as one; other bytes one each).
pub(crate) fn char_prefix(text: &[u8], chars: u64) -> usize {
    let mut seen = 0u64;
    for (i, &b) in text.iter().enumerate() {
        if b & 0xC0 != 0x80 {
            if seen == chars {
                return i;
            }
            seen += 1;
        }
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_name_groups_as_ripgrep_does() {
        let t = Template::new(b"<$1|${2}|$name|${x}y|$$|$|$1a|${bad-}>");
        assert_eq!(
            t.pieces,
            [
                Piece::Text(b"<".to_vec()),
                Piece::Number(1),
                Piece::Text(b"|".to_vec()),
                Piece::Number(2),
                Piece::Text(b"|".to_vec()),
                Piece::Name("name".into()),
                Piece::Text(b"|".to_vec()),
                Piece::Name("x".into()),
                Piece::Text(b"y|$|$|".to_vec()),
                Piece::Name("1a".into()),
                Piece::Text(b"|${bad-}>".to_vec()),
            ]
        );
    }

    #[test]
    fn char_prefix_counts_utf8_sequences_once() {
        assert_eq!(char_prefix("abéc def".as_bytes(), 4), 5);
        assert_eq!(char_prefix(b"abc", 5), 3);
        assert_eq!(char_prefix(b"\xff\xfeabc", 2), 2);
    }
}
