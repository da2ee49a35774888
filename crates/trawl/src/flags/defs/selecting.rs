//! `--help`'s "Selecting lines".

use super::{Flag, Kind, Value};

pub const FLAGS: &[Flag] = &[
    Flag::switch("invert", Some('v'), "invert-match", |l, _| l.invert = true)
        .help(14, "Select non-matching lines"),
    Flag::valued("max_count", Some('m'), "max-count", Value::One("NUM", Kind::Count), |l, v| {
        l.max_count = Some(v.count())
    })
    .help(26, "Stop after NUM selected lines per file"),
    Flag::switch("null_data", Some('z'), "null-data", |l, _| l.null_data = true).help(
        35,
        "Lines end with NUL, not newline, in input and output (for find -print0 lists); newlines \
         are ordinary bytes",
    ),
];
