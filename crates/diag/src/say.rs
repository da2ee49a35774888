//! Every `trawl: ` line on standard error, in one home: a line is written
//! whole in one write, so that lines from several threads never mix.

use std::fmt::Display;
use std::io::Write;

/// Writes `trawl: LINE` on standard error.
pub fn say(line: impl AsRef<[u8]>) {
    let _ = std::io::stderr().lock().write_all(&said(line.as_ref()));
}

/// An error: `trawl: MESSAGE`.
pub fn error(message: impl Display) {
    say(message.to_string());
}

/// A warning: `trawl: warning: MESSAGE`.
pub fn warning(message: impl Display) {
    say(format!("warning: {message}"));
}

/// The bytes [`say`] writes for `line`.
pub fn said(line: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(line.len() + 8);
    out.extend_from_slice(b"trawl: ");
    out.extend_from_slice(line);
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_named_and_ended() {
        assert_eq!(said(b"x: No such file or directory"), b"trawl: x: No such file or directory\n");
    }
}
