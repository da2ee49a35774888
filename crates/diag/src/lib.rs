//! The bottom of trawl's crates: how trawl words what it reports, shared by
//! every crate that reports (I/O errors as C tools print them,
//! [`io_message`]; file names made safe for a terminal,
//! [`escape_controls`]), and the facts of the machine every crate asks
//! (how many CPUs, [`cpus`], in `machine.rs`); and the one writer of
//! `trawl: ` lines on standard error ([`say`], [`error`], [`warning`], in
//! `say.rs`).
//!
//! ```
//! let e = std::io::Error::from_raw_os_error(2);
//! assert_eq!(trawl_diag::io_message(&e), "No such file or directory");
//! let mut out = Vec::new();
//! trawl_diag::escape_controls(&mut out, b"a\nb");
//! assert_eq!(out, b"a\\nb");
//! ```
#![deny(missing_docs)]

mod machine;
mod say;

use std::io;

pub use crate::machine::cpus;
pub use crate::say::{error, said, say, warning};

/// The text of an I/O error without Rust's " (os error N)" suffix, as C
/// tools print it.
pub fn io_message(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => {
            // Only the parenthesis goes: a message may go on after it.
            let end = s[i..].find(')').map_or(s.len(), |j| i + j + 1);
            format!("{}{}", &s[..i], &s[end..])
        }
        None => s,
    }
}

/// Writes a file name with control characters escaped (`\n`, `\t`,
/// `\xHH`), for printing names to a terminal, where they could move the
/// cursor or change colors.
pub fn escape_controls(out: &mut Vec<u8>, name: &[u8]) {
    for &b in name {
        match b {
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0..=0x1f | 0x7f => out.extend_from_slice(format!("\\x{b:02x}").as_bytes()),
            _ => out.push(b),
        }
    }
}
