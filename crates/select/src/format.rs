//! `-printf` formats as data of the expression: parsed once, as GNU
//! find reads them (rendering, per entry, is the evaluator's: printf.rs).

use crate::cformat::Spec;
use crate::error::{Error, ErrorKind};

/// A parsed format.
#[derive(Clone, Debug)]
pub struct Format {
    /// The pieces in order.
    pub pieces: Vec<Piece>,
}

/// A piece of a format.
#[derive(Clone, Debug)]
pub enum Piece {
    /// Literal bytes (escapes already decoded).
    Lit(Vec<u8>),
    /// A `%` directive.
    Directive(Directive),
    /// `\c`: stop output here.
    Stop,
}

/// A `%` directive with its flags.
#[derive(Clone, Debug)]
pub struct Directive {
    /// The conversion letter (`p`, `s`, `T`...).
    pub conv: u8,
    /// For `%A`, `%B`, `%C`, `%T`: the time field letter (`@`, `Y`, ...).
    pub time: u8,
    /// Flags, width and precision, as printf(3) reads them.
    pub spec: Spec,
}

/// The conversions of one letter, and those followed by a time field.
const CONVERSIONS: &[u8] = b"abcdDfFgGhHiklmMnpPsStuUyYZ";
const TIME_CONVERSIONS: &[u8] = b"ABCT";

impl Format {
    /// Parses a `-printf` argument as GNU find does: an unknown escape or
    /// directive is printed as written, with a warning (returned beside
    /// the format, to be said once); a `%` at the end, or a directive
    /// reserved for the future (`%{`, `%[`, `%(`), is an error.
    pub fn parse(f: &[u8]) -> Result<(Format, Vec<String>), Error> {
        let mut pieces = Vec::new();
        let mut warnings = Vec::new();
        let mut lit = Vec::new();
        let mut i = 0;
        while i < f.len() {
            match f[i] {
                b'\\' if i + 1 == f.len() => {
                    warnings.push("warning: escape `\\' followed by nothing at all".into());
                    lit.push(b'\\');
                    i += 1;
                }
                b'\\' => {
                    let c = f[i + 1];
                    i += 2;
                    match c {
                        b'a' => lit.push(7),
                        b'b' => lit.push(8),
                        b'f' => lit.push(12),
                        b'n' => lit.push(b'\n'),
                        b'r' => lit.push(b'\r'),
                        b't' => lit.push(b'\t'),
                        b'v' => lit.push(11),
                        b'\\' => lit.push(b'\\'),
                        b'c' => {
                            flush(&mut pieces, &mut lit);
                            pieces.push(Piece::Stop);
                        }
                        b'0'..=b'7' => {
                            let mut v = (c - b'0') as u32;
                            let mut n = 1;
                            while n < 3 && i < f.len() && (b'0'..=b'7').contains(&f[i]) {
                                v = v * 8 + (f[i] - b'0') as u32;
                                i += 1;
                                n += 1;
                            }
                            lit.push(v as u8);
                        }
                        _ => {
                            warnings.push(format!(
                                "warning: unrecognized escape `\\{}'",
                                String::from_utf8_lossy(&[c])
                            ));
                            lit.push(b'\\');
                            lit.push(c);
                        }
                    }
                }
                b'%' if i + 1 == f.len() => return Err(ErrorKind::PercentAtEnd.into()),
                b'%' if f[i + 1] == b'%' => {
                    lit.push(b'%');
                    i += 2;
                }
                b'%' => {
                    let start = i;
                    i += 1;
                    let mut spec = Spec::default();
                    while let Some(&c @ (b'-' | b'+' | b' ' | b'#')) = f.get(i) {
                        spec.left |= c == b'-';
                        spec.plus |= c == b'+';
                        spec.space |= c == b' ';
                        spec.alt |= c == b'#';
                        i += 1;
                    }
                    // Leading zeros of the width are printf's 0 flag.
                    while f.get(i) == Some(&b'0') {
                        spec.zero = true;
                        i += 1;
                    }
                    while let Some(d) = f.get(i).filter(|d| d.is_ascii_digit()) {
                        spec.width =
                            spec.width.saturating_mul(10).saturating_add((d - b'0') as usize);
                        i += 1;
                    }
                    if f.get(i) == Some(&b'.') {
                        i += 1;
                        let mut p = 0usize;
                        while let Some(d) = f.get(i).filter(|d| d.is_ascii_digit()) {
                            p = p.saturating_mul(10).saturating_add((d - b'0') as usize);
                            i += 1;
                        }
                        spec.precision = Some(p);
                    }
                    let Some(&conv) = f.get(i) else {
                        return Err(ErrorKind::PercentAtEnd.into());
                    };
                    i += 1;
                    let mut d = Directive { conv, time: 0, spec };
                    let unknown = |warnings: &mut Vec<String>, text: &str| {
                        warnings.push(format!("warning: {text}"));
                    };
                    if TIME_CONVERSIONS.contains(&conv) {
                        match f.get(i) {
                            Some(&t) => {
                                d.time = t;
                                i += 1;
                            }
                            None => {
                                let what = format!(
                                    "format directive `%{}' should be followed by another character",
                                    conv as char
                                );
                                unknown(&mut warnings, &what);
                                lit.extend_from_slice(&f[start..i]);
                                continue;
                            }
                        }
                    } else if b"{[(".contains(&conv) {
                        return Err(ErrorKind::ReservedDirective { conversion: conv }.into());
                    } else if !CONVERSIONS.contains(&conv) {
                        let what = format!(
                            "unrecognized format directive `%{}'",
                            String::from_utf8_lossy(&[conv])
                        );
                        unknown(&mut warnings, &what);
                        lit.extend_from_slice(&f[start..i]);
                        continue;
                    }
                    flush(&mut pieces, &mut lit);
                    pieces.push(Piece::Directive(d));
                }
                c => {
                    lit.push(c);
                    i += 1;
                }
            }
        }
        flush(&mut pieces, &mut lit);
        Ok((Format { pieces }, warnings))
    }
}

fn flush(pieces: &mut Vec<Piece>, lit: &mut Vec<u8>) {
    if !lit.is_empty() {
        pieces.push(Piece::Lit(std::mem::take(lit)));
    }
}
