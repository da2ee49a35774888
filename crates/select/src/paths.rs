//! Pieces of an entry's path that find's tests and actions print: the base
//! name, the directory, the starting point and the path relative to it.

use trawl_walk::Entry;

/// The last component of a path, trailing slashes ignored ("/" stays "/").
pub(crate) fn base_name<'e>(e: &'e Entry<'_>) -> &'e [u8] {
    if !e.is_root() {
        return e.file_name();
    }
    let p = e.path();
    let end = match p.iter().rposition(|&b| b != b'/') {
        Some(i) => i + 1,
        None => return if p.is_empty() { p } else { &p[..1] },
    };
    let start = memchr::memrchr(b'/', &p[..end]).map_or(0, |i| i + 1);
    &p[start..end]
}

/// `%h`: the leading directories, or "." when there are none.
pub(crate) fn dir_name(p: &[u8]) -> &[u8] {
    let end = match p.iter().rposition(|&b| b != b'/') {
        Some(i) => i + 1,
        None => return if p.is_empty() { b"." } else { &p[..1] },
    };
    match memchr::memrchr(b'/', &p[..end]) {
        Some(0) => b"/",
        Some(i) => &p[..i],
        None => b".",
    }
}

/// The starting point an entry was found under (`%H`).
pub(crate) fn root_of<'e>(e: &'e Entry<'_>) -> &'e [u8] {
    let p = e.path();
    let mut cut = p.len();
    for _ in 0..e.depth() {
        cut = memchr::memrchr(b'/', &p[..cut]).unwrap_or(0);
    }
    &p[..cut]
}

/// `%P`: the path below its starting point.
pub(crate) fn relative_to_root<'e>(e: &'e Entry<'_>) -> &'e [u8] {
    if e.depth() == 0 {
        return b"";
    }
    let root = root_of(e);
    let rest = &e.path()[root.len()..];
    rest.strip_prefix(b"/").unwrap_or(rest)
}

/// `%f` and `-execdir`: a root's last component keeps its trailing slashes.
pub(crate) fn last_component<'e>(e: &'e Entry<'_>) -> &'e [u8] {
    if !e.is_root() {
        return e.file_name();
    }
    let p = e.path();
    let end = match p.iter().rposition(|&b| b != b'/') {
        Some(i) => i + 1,
        None => return p,
    };
    let start = memchr::memrchr(b'/', &p[..end]).map_or(0, |i| i + 1);
    &p[start..]
}
