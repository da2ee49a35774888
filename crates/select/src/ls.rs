//! `-ls` and `-fls`: GNU find's long listing of an entry.

use crate::eval::{Evaluator, LazyEntry};
use crate::{mode, timefmt};

impl Evaluator<'_> {
    pub(crate) fn ls(&mut self, it: &mut LazyEntry<'_, '_>, out: &mut Vec<u8>) {
        let Some(st) = self.stat(it) else { return };
        let e = it.e;
        let user = self
            .names
            .user(st.st_uid)
            .map(<[u8]>::to_vec)
            .unwrap_or_else(|| st.st_uid.to_string().into_bytes());
        let group = self
            .names
            .group(st.st_gid)
            .map(<[u8]>::to_vec)
            .unwrap_or_else(|| st.st_gid.to_string().into_bytes());
        let blocks = (st.st_blocks as u64 * 512).div_ceil(1024);
        out.extend_from_slice(format!("{:>9} {:>6} ", st.st_ino, blocks).as_bytes());
        out.extend_from_slice(&mode::symbolic(st.st_mode));
        out.extend_from_slice(format!(" {:>3} ", st.st_nlink).as_bytes());
        out.extend_from_slice(&user);
        out.extend(std::iter::repeat_n(b' ', 9usize.saturating_sub(user.len()).max(1)));
        out.extend_from_slice(&group);
        out.extend(std::iter::repeat_n(b' ', 9usize.saturating_sub(group.len()).max(1)));
        let kind = st.st_mode & libc::S_IFMT;
        if kind == libc::S_IFBLK || kind == libc::S_IFCHR {
            let (ma, mi) = (libc::major(st.st_rdev), libc::minor(st.st_rdev));
            out.extend_from_slice(format!("{ma:>3}, {mi:>3} ").as_bytes());
        } else {
            out.extend_from_slice(format!("{:>8} ", st.st_size).as_bytes());
        }
        out.extend_from_slice(&timefmt::ls_date(st.st_mtime, self.cmd.now.0));
        out.push(b' ');
        ls_quote(out, e.path());
        if kind == libc::S_IFLNK {
            if let Ok(t) = e.read_link() {
                out.extend_from_slice(b" -> ");
                ls_quote(out, &t);
            }
        }
        out.push(b'\n');
    }
}

/// Names in `-ls` output are escaped as GNU find does: C escapes for
/// whitespace and controls, a backslash before space, `"` and `\`, octal for
/// bytes that are not printable ASCII.
fn ls_quote(out: &mut Vec<u8>, name: &[u8]) {
    for &b in name {
        match b {
            b' ' | b'"' | b'\\' => out.extend_from_slice(&[b'\\', b]),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\r' => out.extend_from_slice(b"\\r"),
            7 => out.extend_from_slice(b"\\a"),
            8 => out.extend_from_slice(b"\\b"),
            11 => out.extend_from_slice(b"\\v"),
            12 => out.extend_from_slice(b"\\f"),
            0x21..=0x7e => out.push(b),
            _ => out.extend_from_slice(format!("\\{b:03o}").as_bytes()),
        }
    }
}
