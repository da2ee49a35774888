//! `-printf` formats: parsed once, rendered per entry by the evaluator.

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
    /// For `%A`, `%C`, `%T`: the time field letter (`@`, `Y`, ...).
    pub time: u8,
    /// `-`: pad on the right.
    pub left: bool,
    /// `0`: pad numbers with zeros.
    pub zero: bool,
    /// Minimum width.
    pub width: usize,
    /// Maximum length of string conversions.
    pub precision: Option<usize>,
}

const CONVERSIONS: &[u8] = b"abcdDfFgGhHiklmMnpPsStuUyY";

impl Format {
    /// Parses a `-printf` argument.
    pub fn parse(f: &[u8]) -> Result<Format, String> {
        let mut pieces = Vec::new();
        let mut lit = Vec::new();
        let mut i = 0;
        while i < f.len() {
            match f[i] {
                b'\\' if i + 1 < f.len() => {
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
                            lit.push(b'\\');
                            lit.push(c);
                        }
                    }
                }
                b'%' if i + 1 == f.len() => return Err("error: % at end of format string".into()),
                b'%' => {
                    i += 1;
                    if f[i] == b'%' {
                        lit.push(b'%');
                        i += 1;
                        continue;
                    }
                    let mut d = Directive {
                        conv: 0,
                        time: 0,
                        left: false,
                        zero: false,
                        width: 0,
                        precision: None,
                    };
                    while i < f.len() && matches!(f[i], b'-' | b'+' | b' ' | b'#' | b'0') {
                        d.left |= f[i] == b'-';
                        d.zero |= f[i] == b'0';
                        i += 1;
                    }
                    while i < f.len() && f[i].is_ascii_digit() {
                        d.width = d.width * 10 + (f[i] - b'0') as usize;
                        i += 1;
                    }
                    if i < f.len() && f[i] == b'.' {
                        i += 1;
                        let mut p = 0;
                        while i < f.len() && f[i].is_ascii_digit() {
                            p = p * 10 + (f[i] - b'0') as usize;
                            i += 1;
                        }
                        d.precision = Some(p);
                    }
                    let Some(&conv) = f.get(i) else {
                        return Err("error: % at end of format string".into());
                    };
                    i += 1;
                    if matches!(conv, b'A' | b'C' | b'T' | b'B') {
                        let Some(&t) = f.get(i) else {
                            return Err(format!(
                                "error: missing time field after %{}",
                                conv as char
                            ));
                        };
                        i += 1;
                        d.time = t;
                    } else if !CONVERSIONS.contains(&conv) {
                        return Err(format!(
                            "error: unrecognised format directive `%{}'",
                            conv as char
                        ));
                    }
                    d.conv = conv;
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
        Ok(Format { pieces })
    }
}

fn flush(pieces: &mut Vec<Piece>, lit: &mut Vec<u8>) {
    if !lit.is_empty() {
        pieces.push(Piece::Lit(std::mem::take(lit)));
    }
}

/// Appends `value` padded as the directive asks; `numeric` allows zero padding.
pub fn pad(out: &mut Vec<u8>, d: &Directive, value: &[u8], numeric: bool) {
    let value = match d.precision {
        Some(p) if !numeric && value.len() > p => &value[..p],
        _ => value,
    };
    let fill = d.width.saturating_sub(value.len());
    if d.left {
        out.extend_from_slice(value);
        out.extend(std::iter::repeat_n(b' ', fill));
    } else if d.zero && numeric {
        let (sign, digits) = match value.first() {
            Some(b'-') => (&value[..1], &value[1..]),
            _ => (&value[..0], value),
        };
        out.extend_from_slice(sign);
        out.extend(std::iter::repeat_n(b'0', fill));
        out.extend_from_slice(digits);
    } else {
        out.extend(std::iter::repeat_n(b' ', fill));
        out.extend_from_slice(value);
    }
}

// ---------------------------------------------------------------------
// Rendering, per entry.

use crate::eval::{time_of, type_letter, Evaluator, LazyEntry};
use crate::expr::TimeField;
use crate::paths::{dir_name, last_component, relative_to_root, root_of};
use crate::{mode, timefmt};
use trawl_walk::FileType;

impl Evaluator<'_> {
    pub(crate) fn render(&mut self, f: &Format, it: &mut LazyEntry<'_, '_>, out: &mut Vec<u8>) {
        for p in &f.pieces {
            match p {
                Piece::Lit(b) => out.extend_from_slice(b),
                Piece::Stop => return,
                Piece::Directive(d) => self.directive(d, it, out),
            }
        }
    }

    pub(crate) fn directive(
        &mut self,
        d: &Directive,
        it: &mut LazyEntry<'_, '_>,
        out: &mut Vec<u8>,
    ) {
        let e = it.e;
        let num = |out: &mut Vec<u8>, n: i128| pad(out, d, n.to_string().as_bytes(), true);
        let text = |out: &mut Vec<u8>, s: &[u8]| pad(out, d, s, false);
        match d.conv {
            b'p' => text(out, e.path()),
            b'f' => text(out, last_component(e)),
            b'h' => text(out, dir_name(e.path())),
            b'P' => text(out, relative_to_root(e)),
            b'H' => text(out, root_of(e)),
            b'd' => num(out, e.depth() as i128),
            b'y' => text(out, &[type_letter(e.file_type())]),
            b'Y' => {
                let t = if e.file_type().is_symlink() {
                    match e.fetch_stat(true) {
                        Ok(st) => type_letter(FileType::from_mode(st.st_mode)),
                        Err(err) if err.raw_os_error() == Some(libc::ELOOP) => b'L',
                        Err(_) => b'N',
                    }
                } else {
                    type_letter(e.file_type())
                };
                text(out, &[t]);
            }
            b'l' => {
                // Links that were followed print nothing, as in GNU find.
                let target = if e.file_type().is_symlink() {
                    e.read_link().unwrap_or_default()
                } else {
                    Vec::new()
                };
                text(out, &target);
            }
            _ => {
                let Some(st) = self.stat(it) else { return };
                match d.conv {
                    b's' => num(out, st.st_size as i128),
                    b'm' => pad(out, d, format!("{:o}", st.st_mode & 0o7777).as_bytes(), true),
                    b'M' => text(out, &mode::symbolic(st.st_mode)),
                    b'i' => num(out, st.st_ino as i128),
                    b'n' => num(out, st.st_nlink as i128),
                    b'k' => num(out, (st.st_blocks as i128 + 1) / 2),
                    b'b' => num(out, st.st_blocks as i128),
                    b'D' => num(out, st.st_dev as i128),
                    b'U' => num(out, st.st_uid as i128),
                    b'G' => num(out, st.st_gid as i128),
                    b'u' => {
                        let name = self.names.user(st.st_uid).map(<[u8]>::to_vec);
                        text(out, &name.unwrap_or_else(|| st.st_uid.to_string().into_bytes()));
                    }
                    b'g' => {
                        let name = self.names.group(st.st_gid).map(<[u8]>::to_vec);
                        text(out, &name.unwrap_or_else(|| st.st_gid.to_string().into_bytes()));
                    }
                    b'S' => {
                        let sparse = if st.st_size > 0 {
                            (st.st_blocks as f64 * 512.0) / st.st_size as f64
                        } else {
                            1.0
                        };
                        text(out, format!("{sparse}").as_bytes());
                    }
                    b'F' => text(out, b"unknown"),
                    b'a' | b'c' | b't' => {
                        let field = match d.conv {
                            b'a' => TimeField::Access,
                            b'c' => TimeField::Change,
                            _ => TimeField::Modify,
                        };
                        let (s, ns) = time_of(&st, field);
                        text(out, &timefmt::ctime(s, ns));
                    }
                    b'A' | b'C' | b'T' | b'B' => {
                        let field = match d.conv {
                            b'A' => TimeField::Access,
                            b'C' => TimeField::Change,
                            _ => TimeField::Modify,
                        };
                        let (s, ns) = time_of(&st, field);
                        text(out, &timefmt::field(s, ns, d.time));
                    }
                    _ => {}
                }
            }
        }
    }
}
