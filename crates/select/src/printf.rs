//! `-printf` formats: parsed once, rendered per entry by the evaluator.

use crate::cformat::Spec;

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
    pub fn parse(f: &[u8]) -> Result<(Format, Vec<String>), String> {
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
                b'%' if i + 1 == f.len() => return Err("error: % at end of format string".into()),
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
                        return Err("error: % at end of format string".into());
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
                        return Err(format!(
                            "error: the format directive `%{}' is reserved for future use",
                            conv as char
                        ));
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
        // As GNU find: numbers are printed as text (%s), but for the depth
        // (%d), the mode (%o) and the sparseness (%g).
        let spec = d.spec;
        let num = |out: &mut Vec<u8>, n: i128| spec.string(out, n.to_string().as_bytes());
        let text = |out: &mut Vec<u8>, s: &[u8]| spec.string(out, s);
        match d.conv {
            b'p' => text(out, e.path()),
            b'f' => text(out, last_component(e)),
            b'h' => text(out, dir_name(e.path())),
            b'P' => text(out, relative_to_root(e)),
            b'H' => text(out, root_of(e)),
            b'd' => spec.decimal(out, e.depth() as i128),
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
            b'Z' => match security_context(e.path()) {
                Ok(context) => text(out, &context),
                Err(err) => self.report(format!(
                    "getfilecon failed: '{}': {}",
                    String::from_utf8_lossy(e.path()),
                    trawl_diag::io_message(&err)
                )),
            },
            b'B' => match self.birth_time(it) {
                Some((s, ns)) => text(out, &timefmt::field(s, ns, d.time)),
                None => text(out, b""),
            },
            _ => {
                let Some(st) = self.stat(it) else { return };
                match d.conv {
                    b's' => num(out, st.st_size as i128),
                    b'm' => spec.octal(out, u64::from(st.st_mode & 0o7777)),
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
                    b'S' => spec.general(out, sparseness(&st)),
                    b'F' => text(out, crate::mounts::fstype_of(st.st_dev)),
                    b'a' | b'c' | b't' => {
                        let field = match d.conv {
                            b'a' => TimeField::Access,
                            b'c' => TimeField::Change,
                            _ => TimeField::Modify,
                        };
                        let (s, ns) = time_of(&st, field);
                        text(out, &timefmt::ctime(s, ns));
                    }
                    b'A' | b'C' | b'T' => {
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

/// The SELinux security context of the file at `path` (its
/// `security.selinux` attribute, as getfilecon(3) reads it).
fn security_context(path: &[u8]) -> std::io::Result<Vec<u8>> {
    let c = std::ffi::CString::new(path.to_vec())
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    let name = c"security.selinux";
    let mut buf = vec![0u8; 256];
    loop {
        // SAFETY: NUL-terminated path and name, a buffer of buf.len() bytes.
        let n = unsafe {
            libc::lgetxattr(c.as_ptr(), name.as_ptr(), buf.as_mut_ptr().cast(), buf.len())
        };
        if n >= 0 {
            buf.truncate(n as usize);
            if buf.last() == Some(&0) {
                buf.pop();
            }
            return Ok(buf);
        }
        let err = std::io::Error::last_os_error();
        if err.raw_os_error() != Some(libc::ERANGE) || buf.len() > 1 << 16 {
            return Err(err);
        }
        buf.resize(buf.len() * 4, 0);
    }
}

/// How much of a file's size its blocks cover (GNU find's %S).
fn sparseness(st: &libc::stat) -> f64 {
    match (st.st_size, st.st_blocks) {
        (0, 0) => 1.0,
        (0, b) if b < 0 => f64::NEG_INFINITY,
        (0, _) => f64::INFINITY,
        (size, blocks) => 512.0 * blocks as f64 / size as f64,
    }
}
