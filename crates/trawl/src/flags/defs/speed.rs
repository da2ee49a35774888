//! `--help`'s "Speed".

use super::{Flag, Kind, Value};

pub const FLAGS: &[Flag] = &[
    Flag::valued("threads", Some('j'), "threads", Value::One("N", Kind::Number), |l, v| {
        l.threads = Some(v.number())
    })
    .help(88, "Number of threads (default: the number of CPUs)"),
    Flag::switch("no_mmap", None, "no-mmap", |l, _| l.no_mmap = true)
        .help(77, "Read large files instead of mapping them into memory"),
    Flag::switch("no_index", None, "no-index", |l, _| l.no_index = true).help(
        83,
        "Do not use an index made by 'trawl index' (a search it serves reads only the files that \
         changed or may match; the output is the same)",
    ),
];
