//! `--help`'s "Binary files and encodings".

use super::{Flag, Kind, Value};
use crate::flags::low::BinaryArg;

/// `--binary-files`' words.
pub const BINARY_FILES: &[&str] = &["binary", "text", "without-match"];

pub const FLAGS: &[Flag] = &[
    Flag::switch("text", Some('a'), "text", |l, _| l.binary = Some(BinaryArg::Text))
        .help(42, "Search binary files as text"),
    Flag::switch("skip_binary", Some('I'), "", |l, _| l.binary = Some(BinaryArg::WithoutMatch))
        .help(43, "Skip binary files (--binary-files=without-match)"),
    Flag::valued(
        "binary_files",
        None,
        "binary-files",
        Value::One("TYPE", Kind::Choice(BINARY_FILES)),
        |l, v| {
            l.binary = Some(match v.word() {
                "text" => BinaryArg::Text,
                "without-match" => BinaryArg::WithoutMatch,
                _ => BinaryArg::Binary,
            })
        },
    )
    .help(44, "binary (default), text, without-match"),
    Flag::switch("binary_unix", Some('U'), "binary", |_, _| {})
        .help(39, "Accepted for GNU grep's sake: no effect on POSIX systems"),
    Flag::valued("encoding", None, "encoding", Value::One("LABEL", Kind::Str), |l, v| {
        l.encoding = Some(v.word().to_string())
    })
    .help(
        41,
        "Decode files from LABEL (an encoding_rs label: latin1, utf-16le, shift_jis...; rg's -E, \
         which is grep's here); 'none' searches raw bytes. By default a file starting with a UTF-16 \
         or UTF-8 byte-order mark is transcoded to UTF-8 (-a searches its raw bytes)",
    ),
];
