//! What the primaries' arguments mean, where it takes more than a
//! number: times relative to the start (`-mtime`, `-mmin`, `-used`) or to
//! a file (`-newerXY`), the start of today (`-daystart`), files stat'd as
//! the symlink options say (`-newer`, `-samefile`), `-type`'s letters,
//! `-kind`'s names, and whether PATH is safe for `-execdir`.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;

use super::number::{float, signed};
use crate::error::{Error, ErrorKind};
use crate::expr::{Cmp, TimeField, Window};

/// `-execdir` and `-okdir` run commands inside the directories walked: a
/// PATH that names the current directory (`.`, an empty entry) or a
/// relative one would run a program found there (GNU find refuses).
pub(super) fn path_is_safe(action: &str) -> Result<(), Error> {
    let Some(path) = std::env::var_os("PATH") else { return Ok(()) };
    for entry in path.as_bytes().split(|&b| b == b':') {
        if entry.is_empty() || entry == b"." {
            return Err(ErrorKind::CurrentDirInPath { action: action.to_string() }.into());
        }
        if entry[0] != b'/' {
            let (action, entry) = (action.to_string(), entry.to_vec());
            return Err(ErrorKind::RelativeDirInPath { action, entry }.into());
        }
    }
    Ok(())
}

/// Seconds in a day.
pub(super) const DAY: i64 = 86400;

/// GNU find's relative time: `[+-]N` units back from `origin` (the
/// comparison's sense inverted: `+N`, more than N units ago, is a time
/// before the reference), N a floating-point number; None when N is not
/// one, or the time overflows.
pub(super) fn relative(arg: &[u8], origin: (i64, i64), unit: i64) -> Option<Window> {
    let (cmp, rest) = signed(arg);
    let kind = match cmp {
        Cmp::Less => Cmp::Greater,
        Cmp::Greater => Cmp::Less,
        Cmp::Equal => Cmp::Equal,
    };
    let total = float(rest)? * unit as f64;
    let (seconds, fraction) = (total.trunc(), total.fract());
    if !seconds.is_finite() || seconds.abs() > 9.2e18 {
        return None;
    }
    let nanos = fraction * 1e9;
    let mut s = origin.0.checked_sub(seconds as i64)?;
    let mut ns = (origin.1 as f64 - nanos) as i64;
    if (origin.1 as f64) < nanos {
        ns += 1_000_000_000;
        s = s.checked_sub(1)?;
    }
    Some(Window { kind, reference: (s, ns), window: unit })
}

/// The start (local midnight) of the day holding the time `t` (seconds).
pub(super) fn start_of_day(t: i64) -> (i64, i64) {
    // SAFETY: an all-zero tm is valid; localtime_r fills it in.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let time = t as libc::time_t;
    // SAFETY: both pointers are valid for the call.
    let ok = !unsafe { libc::localtime_r(&time, &mut tm) }.is_null();
    let since_midnight = match ok {
        true => i64::from(tm.tm_sec) + i64::from(tm.tm_min) * 60 + i64::from(tm.tm_hour) * 3600,
        false => t.rem_euclid(DAY),
    };
    (t - since_midnight, 0)
}

/// The time `y` of the file `path` (`-newerXY`'s reference): stat'd as
/// the symlink options say; its birth time from statx.
pub(super) fn reference_time(path: &[u8], y: TimeField, follow: bool) -> Result<(i64, i64), Error> {
    let st = stat_path(path, follow)?;
    Ok(match y {
        TimeField::Access => (st.st_atime, st.st_atime_nsec),
        TimeField::Change => (st.st_ctime, st.st_ctime_nsec),
        TimeField::Modify => (st.st_mtime, st.st_mtime_nsec),
        TimeField::Birth => crate::birth::of_path(path, follow)
            .ok()
            .flatten()
            .ok_or_else(|| ErrorKind::NoBirthTime { path: path.to_vec() })?,
    })
}

pub(super) fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(s).ok()?.parse().ok()
}

pub(super) fn stat_path(path: &[u8], follow: bool) -> Result<libc::stat, Error> {
    let c =
        CString::new(path.to_vec()).map_err(|_| ErrorKind::PathHoldsNul { path: path.to_vec() })?;
    // SAFETY: an all-zero stat is valid; (l)stat fills it in.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: NUL-terminated path and a valid out-pointer.
    let mut r = unsafe {
        if follow {
            libc::stat(c.as_ptr(), &mut st)
        } else {
            libc::lstat(c.as_ptr(), &mut st)
        }
    };
    // As GNU find: a link that cannot be followed (dangling, or through a
    // file) is the link itself.
    let errno = std::io::Error::last_os_error().raw_os_error();
    if r != 0 && follow && matches!(errno, Some(libc::ENOENT | libc::ENOTDIR)) {
        // SAFETY: as above.
        r = unsafe { libc::lstat(c.as_ptr(), &mut st) };
    }
    if r != 0 {
        let error = std::io::Error::last_os_error();
        return Err(ErrorKind::Stat { path: path.to_vec(), error }.into());
    }
    Ok(st)
}

/// Type letters (`f,d`) as a bit mask.
pub(super) fn type_mask(arg: &[u8]) -> Result<u16, Error> {
    let mut mask = 0;
    for (i, part) in arg.split(|&c| c == b',').enumerate() {
        let bit = match part {
            b"f" => 1,
            b"d" => 2,
            b"l" => 4,
            b"p" => 8,
            b"s" => 16,
            b"b" => 32,
            b"c" => 64,
            b"D" => 128,
            [] if i == 0 => return Err(ErrorKind::EmptyTypeList.into()),
            [] => return Err(ErrorKind::EmptyTypeInList.into()),
            _ => return Err(ErrorKind::UnknownType { letter: part.to_vec() }.into()),
        };
        if mask & bit != 0 {
            return Err(ErrorKind::DuplicateType { letter: part.to_vec() }.into());
        }
        mask |= bit;
    }
    Ok(mask)
}

/// The kinds `-kind` names, comma-separated; `compressed`, `archive` and
/// `document` stand for their groups.
pub(super) fn kinds(list: &[u8]) -> Result<Vec<trawl_extract::Kind>, Error> {
    use trawl_extract::{Codec, Kind};
    let mut out = Vec::new();
    for name in list.split(|&b| b == b',') {
        let codec = |c| Kind::Compressed(c);
        match name {
            b"gzip" | b"gz" => out.push(codec(Codec::Gzip)),
            b"bzip2" | b"bz2" => out.push(codec(Codec::Bzip2)),
            b"xz" => out.push(codec(Codec::Xz)),
            b"zstd" | b"zst" => out.push(codec(Codec::Zstd)),
            b"lz4" => out.push(codec(Codec::Lz4)),
            b"compressed" => out
                .extend([Codec::Gzip, Codec::Bzip2, Codec::Xz, Codec::Zstd, Codec::Lz4].map(codec)),
            b"tar" => out.push(Kind::Tar),
            b"zip" => out.push(Kind::Zip),
            b"archive" => out.extend([Kind::Tar, Kind::Zip]),
            b"pdf" => out.push(Kind::Pdf),
            b"postscript" | b"ps" => out.push(Kind::PostScript),
            b"dvi" => out.push(Kind::Dvi),
            b"ole" => out.push(Kind::Ole),
            b"document" => out.extend(Kind::DOCUMENTS),
            b"plain" => out.push(Kind::Plain),
            _ => return Err(ErrorKind::UnknownKind { name: name.to_vec() }.into()),
        }
    }
    Ok(out)
}
