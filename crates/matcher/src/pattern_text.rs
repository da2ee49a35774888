//! Pattern text as the builder reads it: whether a pattern has an upper
//! case letter (`--smart-case`), whether it is plain (a fixed string in
//! every dialect), and bytes that are not UTF-8 carried through the dialect
//! translation and escaped for either engine.

use crate::options::Text;
use crate::tokens;

/// Whether a pattern contains an uppercase ASCII letter that is not part of
/// an escape such as `\S` or `\W` (for `--smart-case`).
pub fn pattern_has_uppercase_letter(pattern: &[u8]) -> bool {
    let text = String::from_utf8_lossy(pattern);
    tokens::tokens(&text, tokens::Brackets::Perl).any(|t| match t.kind {
        tokens::TokenKind::Char { c, .. } => c.is_ascii_uppercase(),
        tokens::TokenKind::PosixClass { end } => {
            text[t.at..end].bytes().any(|b| b.is_ascii_uppercase())
        }
        _ => false,
    })
}

/// As [`pattern_has_uppercase_letter`], for Unicode text: any uppercase
/// letter (`É` too).
pub(crate) fn pattern_has_uppercase(pattern: &[u8]) -> bool {
    let text = String::from_utf8_lossy(pattern);
    tokens::tokens(&text, tokens::Brackets::Perl).any(|t| match t.kind {
        tokens::TokenKind::Char { c, .. } => c.is_uppercase(),
        tokens::TokenKind::PosixClass { end } => text[t.at..end].chars().any(char::is_uppercase),
        _ => false,
    })
}

/// Turns pattern bytes into pattern text: invalid UTF-8 bytes become `\xHH`
/// escapes, which both engines read as that byte (the C locale).
pub(crate) fn bytes_to_pattern(p: &[u8]) -> String {
    match std::str::from_utf8(p) {
        Ok(s) => s.to_string(),
        Err(_) => {
            let mut out = String::new();
            for chunk in p.utf8_chunks() {
                out.push_str(chunk.valid());
                for b in chunk.invalid() {
                    out.push_str(&format!("\\x{b:02X}"));
                }
            }
            out
        }
    }
}

/// The first of 256 private-use characters standing for bytes that are not
/// UTF-8 while a POSIX pattern is translated.
const BYTE_PLACEHOLDER: u32 = 0xF0000;

/// Pattern bytes as text, each byte that is not UTF-8 as a placeholder.
pub(crate) fn bytes_to_placeholders(p: &[u8]) -> String {
    let mut out = String::with_capacity(p.len());
    for chunk in p.utf8_chunks() {
        out.push_str(chunk.valid());
        for &b in chunk.invalid() {
            out.push(char::from_u32(BYTE_PLACEHOLDER + u32::from(b)).expect("a private-use char"));
        }
    }
    out
}

/// Placeholders back to `\xHH` escapes, which both engines read as that
/// byte (the C locale).
pub(crate) fn placeholders_to_escapes(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    for c in p.chars() {
        match (c as u32).checked_sub(BYTE_PLACEHOLDER) {
            Some(b) if b < 256 => out.push_str(&format!("\\x{b:02X}")),
            _ => out.push(c),
        }
    }
    out
}

/// Whether `p` reads the same as a fixed string in every dialect (BRE, ERE,
/// Perl): letters, digits, `_`, `-`, space, `,`, `:`, `;`, `/`, `=`, `@`,
/// `%`, `&`, `!`, `~`, `'`, `"`, `<`, `>` (GNU's `\<` needs the backslash),
/// and non-ASCII bytes, taken one by one in the C locale. `#` is left out
/// (a comment under `(?x)`, which needs a `(` anyway, but kept simple).
pub(crate) fn is_plain(p: &[u8]) -> bool {
    p.iter().all(|&b| {
        b.is_ascii_alphanumeric()
            || b >= 0x80
            || matches!(
                b,
                b'_' | b'-'
                    | b' '
                    | b','
                    | b':'
                    | b';'
                    | b'/'
                    | b'='
                    | b'@'
                    | b'%'
                    | b'&'
                    | b'!'
                    | b'~'
                    | b'\''
                    | b'"'
                    | b'<'
                    | b'>'
            )
    })
}

/// Escapes fixed-string bytes as a Perl pattern that matches them literally.
/// A fixed string as a pattern of the text mode: in Unicode mode its
/// non-ASCII characters stay themselves (`\xHH` would name a character).
pub(crate) fn escape(p: &[u8], text: Text) -> String {
    match (text, std::str::from_utf8(p)) {
        (Text::Unicode, Ok(s)) => {
            let mut out = String::with_capacity(p.len());
            for c in s.chars() {
                if c.is_ascii() && !(c.is_ascii_alphanumeric() || c == '_' || c == ' ') {
                    out.push_str(&format!("\\x{:02X}", c as u32));
                } else {
                    out.push(c);
                }
            }
            out
        }
        _ => escape_bytes(p),
    }
}

fn escape_bytes(p: &[u8]) -> String {
    let mut out = String::new();
    for &b in p {
        if b.is_ascii_alphanumeric() || b == b'_' || b == b' ' {
            out.push(b as char);
        } else {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}
