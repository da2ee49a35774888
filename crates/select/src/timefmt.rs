//! Local-time formatting with the C library (the TZ rules find uses).

/// Formats `secs` in local time with a strftime format (NUL-free).
pub fn strftime(secs: i64, fmt: &str) -> Vec<u8> {
    let t = secs as libc::time_t;
    // SAFETY: zeroed tm is valid; localtime_r fills it.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointers.
    if unsafe { libc::localtime_r(&t, &mut tm) }.is_null() {
        return secs.to_string().into_bytes();
    }
    let cfmt = std::ffi::CString::new(fmt).unwrap_or_default();
    let mut buf = vec![0u8; 256];
    // SAFETY: the buffer is valid for its length; the format is NUL-terminated.
    let n = unsafe { libc::strftime(buf.as_mut_ptr().cast(), buf.len(), cfmt.as_ptr(), &tm) };
    buf.truncate(n);
    buf
}

/// `%T@`: seconds since the epoch with ten fractional digits, as GNU find.
pub fn epoch(secs: i64, nsec: i64) -> Vec<u8> {
    format!("{secs}.{nsec:09}0").into_bytes()
}

/// `%t`: ctime(3) style with the fraction of a second, as GNU find.
pub fn ctime(secs: i64, nsec: i64) -> Vec<u8> {
    let mut out = strftime(secs, "%a %b %e %H:%M:%S");
    out.extend_from_slice(format!(".{nsec:09}0").as_bytes());
    out.extend_from_slice(&strftime(secs, " %Y"));
    out
}

/// A time field of `%Ak`, `%Ck`, `%Tk`.
pub fn field(secs: i64, nsec: i64, k: u8) -> Vec<u8> {
    match k {
        b'@' => epoch(secs, nsec),
        b'+' => {
            let mut out = strftime(secs, "%Y-%m-%d+%H:%M:%S");
            out.extend_from_slice(format!(".{nsec:09}0").as_bytes());
            out
        }
        b'S' => {
            let mut out = strftime(secs, "%S");
            out.extend_from_slice(format!(".{nsec:09}0").as_bytes());
            out
        }
        b'T' => {
            let mut out = strftime(secs, "%H:%M:%S");
            out.extend_from_slice(format!(".{nsec:09}0").as_bytes());
            out
        }
        k if k.is_ascii_alphabetic() => strftime(secs, &format!("%{}", k as char)),
        k => vec![b'%', k],
    }
}

/// The date column of `-ls`: time of day for recent files, else the year.
pub fn ls_date(secs: i64, now: i64) -> Vec<u8> {
    let six_months = 6 * 30 * 24 * 3600;
    if secs > now - six_months && secs <= now + 3600 {
        strftime(secs, "%b %e %H:%M")
    } else {
        strftime(secs, "%b %e  %Y")
    }
}
