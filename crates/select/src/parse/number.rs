//! Numeric arguments as GNU find reads them: a comparison sign (`+N` more,
//! `-N` less), then an unsigned integer as strtoumax(3) reads it (spaces
//! and one `+` may lead; nothing may follow), or a floating-point number
//! as strtod(3) does (times: `-mtime 1.5`, `-mmin .5`, `-used 1e1`).

use crate::error::{Error, ErrorKind};
use crate::expr::Cmp;

/// `+N`, `-N` or `N`: the comparison and the rest.
pub(super) fn signed(arg: &[u8]) -> (Cmp, &[u8]) {
    match arg.first() {
        Some(b'+') => (Cmp::Greater, &arg[1..]),
        Some(b'-') => (Cmp::Less, &arg[1..]),
        _ => (Cmp::Equal, arg),
    }
}

/// C's isspace in the C locale.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// An unsigned decimal as strtoumax reads it, the whole of `s`: leading
/// spaces and one `+` allowed, a `-` refused, at least one digit, nothing
/// after the digits, no overflow.
pub(super) fn unsigned(s: &[u8]) -> Option<u64> {
    let s = &s[s.iter().take_while(|&&b| is_space(b)).count()..];
    let s = s.strip_prefix(b"+").unwrap_or(s);
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    s.iter().try_fold(0u64, |n, &d| n.checked_mul(10)?.checked_add(u64::from(d - b'0')))
}

/// A floating-point number as strtod reads it, the whole of `s`: leading
/// spaces, a sign, decimals with an exponent, `inf`, `nan`, hexadecimal
/// integers (`0x10`).
pub(super) fn float(s: &[u8]) -> Option<f64> {
    let s = std::str::from_utf8(s).ok()?;
    let s = s.trim_start_matches(|c: char| c.is_ascii() && is_space(c as u8));
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let hex = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X"));
    let value = match hex {
        Some(h) if !h.is_empty() => u64::from_str_radix(h, 16).ok()? as f64,
        Some(_) => return None,
        // Rust also reads "infinity" and "nan" as C does; it refuses what
        // C refuses but for hexadecimal.
        None if digits.starts_with(['+', '-']) || digits.is_empty() => return None,
        None => digits.parse::<f64>().ok()?,
    };
    Some(if neg { -value } else { value })
}

/// A non-negative integer option's argument (`-maxdepth N`, `-j N`).
pub(super) fn number(arg: Option<&Vec<u8>>, opt: &str) -> Result<u64, Error> {
    let option = || opt.to_string();
    let a = arg.ok_or_else(|| ErrorKind::MissingArgument { option: option() })?;
    let n = std::str::from_utf8(a).ok().and_then(|s| s.parse::<u64>().ok());
    n.ok_or_else(|| ErrorKind::InvalidArgument { option: option(), argument: a.clone() }.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_read_as_strtoumax_reads_them() {
        assert_eq!(unsigned(b"12"), Some(12));
        assert_eq!(unsigned(b"+1"), Some(1));
        assert_eq!(unsigned(b" 1"), Some(1));
        assert_eq!(unsigned(b" +7"), Some(7));
        for bad in [&b""[..], b"-1", b"1x", b"1.5", b"++1", b"+", b" ", b"99999999999999999999"] {
            assert_eq!(unsigned(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn floats_are_read_as_strtod_reads_them() {
        assert_eq!(float(b"1.5"), Some(1.5));
        assert_eq!(float(b".5"), Some(0.5));
        assert_eq!(float(b"1e2"), Some(100.0));
        assert_eq!(float(b" -2"), Some(-2.0));
        assert_eq!(float(b"+3"), Some(3.0));
        assert_eq!(float(b"0x10"), Some(16.0));
        assert_eq!(float(b"inf"), Some(f64::INFINITY));
        for bad in [&b""[..], b"x", b"1x", b"--1", b"+-1", b"0x"] {
            assert_eq!(float(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }
}
