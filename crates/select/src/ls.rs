//! `-ls` and `-fls`: GNU find's long listing of an entry.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::subject::{LazyEntry, Lookups};
use crate::{mode, timefmt};

/// The widths of `-ls`'s columns, as GNU find keeps them: each starts at
/// its minimum and grows, for the rest of the run, to the widest value
/// printed so far.
#[derive(Debug)]
pub(crate) struct LsWidths {
    inode: AtomicUsize,
    blocks: AtomicUsize,
    nlink: AtomicUsize,
    owner: AtomicUsize,
    group: AtomicUsize,
    major: AtomicUsize,
    minor: AtomicUsize,
    size: AtomicUsize,
}

impl Default for LsWidths {
    fn default() -> Self {
        let w = AtomicUsize::new;
        LsWidths {
            inode: w(9),
            blocks: w(6),
            nlink: w(3),
            owner: w(8),
            group: w(8),
            major: w(3),
            minor: w(3),
            size: w(8),
        }
    }
}

/// `value` right-aligned (or left, `left`) in the column `width`, which
/// then grows to fit it.
fn column(out: &mut Vec<u8>, width: &AtomicUsize, value: &[u8], left: bool) {
    let w = width.load(Ordering::Relaxed);
    let fill = w.saturating_sub(value.len());
    if !left {
        out.extend(std::iter::repeat_n(b' ', fill));
    }
    out.extend_from_slice(value);
    if left {
        out.extend(std::iter::repeat_n(b' ', fill));
    }
    width.fetch_max(value.len(), Ordering::Relaxed);
}

/// Appends `it`'s line to `out`, its columns as wide as `w` says (and
/// widening them); `now` (seconds) tells recent times from old ones.
pub(crate) fn line(
    it: &mut LazyEntry<'_, '_>,
    l: &mut Lookups<'_>,
    w: &LsWidths,
    now: i64,
    out: &mut Vec<u8>,
) {
    let Some(st) = it.stat(l.rep) else { return };
    let e = it.e;
    let num = |n: u64| n.to_string().into_bytes();
    let user = l.names.user(st.st_uid).map(<[u8]>::to_vec);
    let group = l.names.group(st.st_gid).map(<[u8]>::to_vec);
    let group = group.unwrap_or_else(|| st.st_gid.to_string().into_bytes());
    let blocks = (st.st_blocks as u64 * 512).div_ceil(1024);
    column(out, &w.inode, &num(st.st_ino), false);
    out.push(b' ');
    column(out, &w.blocks, &num(blocks), false);
    out.push(b' ');
    out.extend_from_slice(&mode::symbolic(st.st_mode));
    out.push(b' ');
    column(out, &w.nlink, &num(st.st_nlink), false);
    out.push(b' ');
    match user {
        Some(name) => {
            column(out, &w.owner, &name, true);
            out.push(b' ');
        }
        // GNU: the number in 8 columns, whatever the owner column's
        // width, which then grows to it and its space.
        None => {
            let n = format!("{:<8} ", st.st_uid);
            out.extend_from_slice(n.as_bytes());
            w.owner.fetch_max(n.len(), Ordering::Relaxed);
        }
    }
    column(out, &w.group, &group, true);
    out.push(b' ');
    let kind = st.st_mode & libc::S_IFMT;
    if kind == libc::S_IFBLK || kind == libc::S_IFCHR {
        let (ma, mi) = (libc::major(st.st_rdev), libc::minor(st.st_rdev));
        column(out, &w.major, &num(u64::from(ma)), false);
        out.extend_from_slice(b", ");
        column(out, &w.minor, &num(u64::from(mi)), false);
    } else {
        column(out, &w.size, &num(st.st_size as u64), false);
    }
    out.push(b' ');
    out.extend_from_slice(&timefmt::ls_date(st.st_mtime, now));
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
