//! `--help`'s "Context".

use super::{Flag, Kind, Value};

pub const FLAGS: &[Flag] = &[
    Flag::valued("after", Some('A'), "after-context", Value::One("NUM", Kind::Count), |l, v| {
        l.after = Some(v.count())
    })
    .help(27, "Print NUM lines of trailing context"),
    Flag::valued("before", Some('B'), "before-context", Value::One("NUM", Kind::Count), |l, v| {
        l.before = Some(v.count())
    })
    .help(28, "Print NUM lines of leading context"),
    Flag::valued("context", Some('C'), "context", Value::One("NUM", Kind::Count), |l, v| {
        l.context = Some(v.count())
    })
    .help(29, "Print NUM lines of context"),
    Flag::valued(
        "group_separator",
        None,
        "group-separator",
        Value::One("SEP", Kind::Text),
        |l, v| l.group_separator = Some(Some(v.text())),
    )
    .help(36, "Print SEP between groups of context lines (default --)"),
    Flag::switch("no_group_separator", None, "no-group-separator", |l, _| {
        l.group_separator = Some(None)
    })
    .help(37, "Print nothing between groups of context lines"),
];
