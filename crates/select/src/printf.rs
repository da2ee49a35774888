//! `-printf` and `-fprintf`: a parsed [`Format`] rendered for one entry,
//! each directive as GNU find prints it.

use trawl_walk::FileType;

use crate::expr::TimeField;
use crate::format::{Directive, Format, Piece};
use crate::paths::{dir_name, last_component, relative_to_root, root_of};
use crate::subject::{time_of, type_letter, LazyEntry, Lookups};
use crate::{mode, timefmt};

/// Appends `f` rendered for `it` to `out`.
pub(crate) fn render(
    f: &Format,
    it: &mut LazyEntry<'_, '_>,
    l: &mut Lookups<'_>,
    out: &mut Vec<u8>,
) {
    for p in &f.pieces {
        match p {
            Piece::Lit(b) => out.extend_from_slice(b),
            Piece::Stop => return,
            Piece::Directive(d) => directive(d, it, l, out),
        }
    }
}

fn directive(d: &Directive, it: &mut LazyEntry<'_, '_>, l: &mut Lookups<'_>, out: &mut Vec<u8>) {
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
            Err(err) => l.rep.report(format!(
                "getfilecon failed: '{}': {}",
                String::from_utf8_lossy(e.path()),
                trawl_diag::io_message(&err)
            )),
        },
        b'B' => match it.birth_time(l.rep) {
            Some((s, ns)) => text(out, &timefmt::field(s, ns, d.time)),
            None => text(out, b""),
        },
        _ => {
            let Some(st) = it.stat(l.rep) else { return };
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
                    let name = l.names.user(st.st_uid).map(<[u8]>::to_vec);
                    text(out, &name.unwrap_or_else(|| st.st_uid.to_string().into_bytes()));
                }
                b'g' => {
                    let name = l.names.group(st.st_gid).map(<[u8]>::to_vec);
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
