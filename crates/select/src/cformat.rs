//! printf(3)'s conversions as `-printf` uses them: GNU find hands each
//! directive to C's printf as `%s` (names, and most numbers, converted to
//! text first), `%d` (the depth), `%o` (the mode) or `%g` (sparseness),
//! with the flags (`-` left, `+` sign, space, `#` alternate form, `0`
//! zeros), width and precision the user wrote: each behaves as C's does.

/// A directive's flags, width and precision.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct Spec {
    /// `-`: pad on the right.
    pub left: bool,
    /// `+`: a sign on positive numbers.
    pub plus: bool,
    /// ` `: a space before positive numbers.
    pub space: bool,
    /// `#`: the alternate form (`%o`: a leading 0; `%g`: trailing zeros).
    pub alt: bool,
    /// `0`: numbers padded with zeros.
    pub zero: bool,
    /// Minimum width.
    pub width: usize,
    /// Precision: a string's maximum length, an integer's minimum digits,
    /// `%g`'s significant digits.
    pub precision: Option<usize>,
}

impl Spec {
    /// Pads `body` (after `sign`) to the width; `zeros`: with zeros
    /// between sign and body, else with spaces.
    fn pad(&self, out: &mut Vec<u8>, sign: &[u8], body: &[u8], zeros: bool) {
        let fill = self.width.saturating_sub(sign.len() + body.len());
        if self.left {
            out.extend_from_slice(sign);
            out.extend_from_slice(body);
            out.extend(std::iter::repeat_n(b' ', fill));
        } else if zeros {
            out.extend_from_slice(sign);
            out.extend(std::iter::repeat_n(b'0', fill));
            out.extend_from_slice(body);
        } else {
            out.extend(std::iter::repeat_n(b' ', fill));
            out.extend_from_slice(sign);
            out.extend_from_slice(body);
        }
    }

    fn sign(&self, negative: bool) -> &'static [u8] {
        match (negative, self.plus, self.space) {
            (true, ..) => b"-",
            (false, true, _) => b"+",
            (false, false, true) => b" ",
            _ => b"",
        }
    }

    /// `%s`.
    pub fn string(&self, out: &mut Vec<u8>, value: &[u8]) {
        let value = match self.precision {
            Some(p) if value.len() > p => &value[..p],
            _ => value,
        };
        self.pad(out, b"", value, false);
    }

    /// `%d`.
    pub fn decimal(&self, out: &mut Vec<u8>, value: i128) {
        let digits = self.min_digits(value.unsigned_abs().to_string(), value == 0);
        let zeros = self.zero && self.precision.is_none() && !self.left;
        self.pad(out, self.sign(value < 0), digits.as_bytes(), zeros);
    }

    /// `%o` (unsigned: no sign).
    pub fn octal(&self, out: &mut Vec<u8>, value: u64) {
        let mut digits = self.min_digits(format!("{value:o}"), value == 0);
        if self.alt && !digits.starts_with('0') {
            digits.insert(0, '0');
        }
        let zeros = self.zero && self.precision.is_none() && !self.left;
        self.pad(out, b"", digits.as_bytes(), zeros);
    }

    /// An integer's digits with the precision's minimum (a zero with
    /// precision 0 has none).
    fn min_digits(&self, digits: String, zero: bool) -> String {
        match self.precision {
            Some(0) if zero => String::new(),
            Some(p) if digits.len() < p => format!("{digits:0>p$}"),
            _ => digits,
        }
    }

    /// `%g`.
    pub fn general(&self, out: &mut Vec<u8>, value: f64) {
        let sign = self.sign(value.is_sign_negative() && !value.is_nan());
        if !value.is_finite() {
            let body: &[u8] = if value.is_nan() { b"nan" } else { b"inf" };
            self.pad(out, sign, body, false);
            return;
        }
        let v = value.abs();
        let p = self.precision.unwrap_or(6).max(1);
        // The exponent the value has once rounded to P significant digits.
        let sci = format!("{:.*e}", p - 1, v);
        let exp: i32 = sci.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
        let mut body = if exp < -4 || exp >= p as i32 {
            let (mantissa, _) = sci.split_once('e').unwrap_or((&sci, ""));
            let mut m = mantissa.to_string();
            if !self.alt {
                trim_zeros(&mut m);
            }
            format!("{m}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
        } else {
            let mut f = format!("{:.*}", (p as i32 - 1 - exp).max(0) as usize, v);
            if !self.alt {
                trim_zeros(&mut f);
            }
            f
        };
        if self.alt && !body.contains('.') {
            match body.find('e') {
                Some(e) => body.insert(e, '.'),
                None => body.push('.'),
            }
        }
        let zeros = self.zero && !self.left;
        self.pad(out, sign, body.as_bytes(), zeros);
    }
}

/// `1.500` → `1.5`, `2.000` → `2`.
fn trim_zeros(s: &mut String) {
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(flags: &str, width: usize, precision: Option<usize>) -> Spec {
        Spec {
            left: flags.contains('-'),
            plus: flags.contains('+'),
            space: flags.contains(' '),
            alt: flags.contains('#'),
            zero: flags.contains('0'),
            width,
            precision,
        }
    }

    fn run(f: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut out = Vec::new();
        f(&mut out);
        String::from_utf8(out).unwrap()
    }

    /// Each case as C's printf prints it (glibc).
    #[test]
    fn conversions_behave_as_printf() {
        assert_eq!(run(|o| spec("0", 5, None).string(o, b"6")), "    6");
        assert_eq!(run(|o| spec("-", 5, None).string(o, b"6")), "6    ");
        assert_eq!(run(|o| spec("", 10, Some(3)).string(o, b"abcdef")), "       abc");
        assert_eq!(run(|o| spec("+0", 3, None).decimal(o, 0)), "+00");
        assert_eq!(run(|o| spec(" ", 0, None).decimal(o, 0)), " 0");
        assert_eq!(run(|o| spec("", 0, Some(3)).decimal(o, 0)), "000");
        assert_eq!(run(|o| spec("+", 0, Some(2)).decimal(o, 0)), "+00");
        assert_eq!(run(|o| spec("", 0, Some(0)).decimal(o, 0)), "");
        assert_eq!(run(|o| spec("0", 6, Some(3)).decimal(o, -7)), "  -007");
        assert_eq!(run(|o| spec("-", 4, None).decimal(o, 0)), "0   ");
        assert_eq!(run(|o| spec("#", 0, None).octal(o, 0o644)), "0644");
        assert_eq!(run(|o| spec("0", 5, None).octal(o, 0o644)), "00644");
        assert_eq!(run(|o| spec("#", 10, None).octal(o, 0o644)), "      0644");
        assert_eq!(run(|o| spec("", 0, Some(5)).octal(o, 0o644)), "00644");
        assert_eq!(run(|o| spec("#", 0, None).octal(o, 0)), "0");
        assert_eq!(run(|o| spec("", 0, None).general(o, 4096.0 / 6.0)), "682.667");
        assert_eq!(run(|o| spec("", 0, Some(2)).general(o, 4096.0 / 6.0)), "6.8e+02");
        assert_eq!(run(|o| spec("+", 0, None).general(o, 4096.0 / 6.0)), "+682.667");
        assert_eq!(run(|o| spec("0", 10, None).general(o, 4096.0 / 6.0)), "000682.667");
        assert_eq!(run(|o| spec("#", 0, None).general(o, 0.0)), "0.00000");
        assert_eq!(run(|o| spec("0", 10, None).general(o, 0.0)), "0000000000");
        assert_eq!(run(|o| spec("", 0, None).general(o, 1.0)), "1");
        assert_eq!(run(|o| spec("", 0, None).general(o, 0.0001234)), "0.0001234");
        assert_eq!(run(|o| spec("", 0, None).general(o, 0.00001234)), "1.234e-05");
        assert_eq!(run(|o| spec("", 0, None).general(o, 1234567.0)), "1.23457e+06");
        assert_eq!(run(|o| spec("", 0, None).general(o, f64::INFINITY)), "inf");
        assert_eq!(run(|o| spec("", 0, None).general(o, 100000.0)), "100000");
        assert_eq!(run(|o| spec("#", 0, Some(1)).general(o, 3.0)), "3.");
    }
}
