//! File modes: `-perm` arguments (octal or symbolic) and `ls`-style strings.

/// Parses an octal mode or a symbolic one (`u+x,g=r`, applied to 0 as GNU
/// find does): the mode for files, and the one for directories (`X` adds
/// execute permission to a directory, and to a file only if some execute
/// bit is set already).
pub fn parse(s: &[u8]) -> Option<(u32, u32)> {
    if s.is_empty() {
        return None;
    }
    if s.iter().all(|c| (b'0'..=b'7').contains(c)) {
        let m =
            u32::from_str_radix(std::str::from_utf8(s).ok()?, 8).ok().filter(|m| *m <= 0o7777)?;
        return Some((m, m));
    }
    Some((symbolic_mode(s, false)?, symbolic_mode(s, true)?))
}

/// A symbolic mode applied to 0, for a directory or not.
fn symbolic_mode(s: &[u8], dir: bool) -> Option<u32> {
    let mut mode = 0u32;
    for clause in s.split(|&c| c == b',') {
        let mut i = 0;
        let mut who = 0u32;
        while i < clause.len() && matches!(clause[i], b'u' | b'g' | b'o' | b'a') {
            who |= match clause[i] {
                b'u' => 0o4700,
                b'g' => 0o2070,
                b'o' => 0o1007,
                _ => 0o7777,
            };
            i += 1;
        }
        if who == 0 {
            who = 0o7777;
        }
        if i == clause.len() {
            return None;
        }
        while i < clause.len() {
            let op = clause[i];
            if !matches!(op, b'+' | b'-' | b'=') {
                return None;
            }
            i += 1;
            let mut bits = 0u32;
            while i < clause.len() && !matches!(clause[i], b'+' | b'-' | b'=') {
                bits |= match clause[i] {
                    b'r' => 0o444,
                    b'w' => 0o222,
                    b'x' => 0o111,
                    b'X' if dir || mode & 0o111 != 0 => 0o111,
                    b'X' => 0,
                    b's' => 0o6000,
                    b't' => 0o1000,
                    b'u' => perm_copy(mode, 6),
                    b'g' => perm_copy(mode, 3),
                    b'o' => perm_copy(mode, 0),
                    _ => return None,
                };
                i += 1;
            }
            let bits = bits & who;
            match op {
                b'+' => mode |= bits,
                b'-' => mode &= !bits,
                _ => mode = (mode & !who) | bits,
            }
        }
    }
    Some(mode)
}

/// The rwx bits at `shift`, copied to all three classes.
fn perm_copy(mode: u32, shift: u32) -> u32 {
    let b = (mode >> shift) & 7;
    b << 6 | b << 3 | b
}

/// `-rw-r--r--`, as `ls -l` and `find -ls` print a mode.
pub fn symbolic(mode: u32) -> [u8; 10] {
    let t = match mode & libc::S_IFMT {
        libc::S_IFDIR => b'd',
        libc::S_IFLNK => b'l',
        libc::S_IFIFO => b'p',
        libc::S_IFSOCK => b's',
        libc::S_IFBLK => b'b',
        libc::S_IFCHR => b'c',
        _ => b'-',
    };
    let bit = |m: u32, c: u8| if mode & m != 0 { c } else { b'-' };
    let special = |x: u32, s: u32, lower: u8, upper: u8| match (mode & x != 0, mode & s != 0) {
        (true, true) => lower,
        (false, true) => upper,
        (true, false) => b'x',
        (false, false) => b'-',
    };
    [
        t,
        bit(0o400, b'r'),
        bit(0o200, b'w'),
        special(0o100, 0o4000, b's', b'S'),
        bit(0o040, b'r'),
        bit(0o020, b'w'),
        special(0o010, 0o2000, b's', b'S'),
        bit(0o004, b'r'),
        bit(0o002, b'w'),
        special(0o001, 0o1000, b't', b'T'),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes() {
        let both = |m: u32| Some((m, m));
        assert_eq!(parse(b"644"), both(0o644));
        assert_eq!(parse(b"u+x"), both(0o100));
        assert_eq!(parse(b"g=w,o+r"), both(0o024));
        assert_eq!(parse(b"a+r"), both(0o444));
        assert_eq!(parse(b"+x"), both(0o111));
        assert_eq!(parse(b"u=rwx,g=u"), both(0o770));
        // X: execute for directories, for files only after another x.
        assert_eq!(parse(b"u=X"), Some((0, 0o100)));
        assert_eq!(parse(b"a=rX"), Some((0o444, 0o555)));
        assert_eq!(parse(b"u=x,g=X"), both(0o110));
        assert_eq!(parse(b"8"), None);
        assert_eq!(parse(b"q+x"), None);
        assert_eq!(&symbolic(0o100644), b"-rw-r--r--");
        assert_eq!(&symbolic(0o41777), b"drwxrwxrwt");
        assert_eq!(&symbolic(0o104755), b"-rwsr-xr-x");
    }
}
