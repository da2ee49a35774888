//! `--help`'s "Choosing files": recursion, devices and directories, grep's
//! name filters, ripgrep's globs, types and hidden files, depth.

use super::{Flag, Given, Kind, Value};
use crate::flags::low::{DevicesArg, DirectoriesArg, GlobArg, LowArgs, NameRule};

/// `-D`'s words.
pub const DEVICES: &[&str] = &["read", "skip"];

/// `-d`'s words.
pub const DIRECTORIES: &[&str] = &["read", "recurse", "skip"];

/// `-D ACTION`.
fn devices(l: &mut LowArgs, v: Given<'_>) {
    l.devices = Some(match v.word() {
        "skip" => DevicesArg::Skip,
        _ => DevicesArg::Read,
    })
}

pub const FLAGS: &[Flag] = &[
    Flag::switch("recursive", Some('r'), "recursive", |l, _| {
        l.recursive = true;
        l.directories = Some(DirectoriesArg::Recurse);
    })
    .help(86, "Search directories recursively (always on)"),
    Flag::switch("dereference", Some('R'), "dereference-recursive", |l, _| {
        l.recursive = true;
        l.dereference = true;
        l.directories = Some(DirectoriesArg::Recurse);
    })
    .help(87, "Recurse and follow symlinks"),
    Flag::valued("devices", Some('D'), "devices", Value::One("ACTION", Kind::Choice(DEVICES)), devices)
    .help(
        33,
        "Devices, FIFOs and sockets: read (also those met in recursion) or skip; by default those \
         named as operands are read",
    ),
    Flag::valued(
        "directories",
        Some('d'),
        "directories",
        Value::One("ACTION", Kind::Choice(DIRECTORIES)),
        |l, v| {
            l.directories = Some(match v.word() {
                "read" => DirectoriesArg::Read,
                "skip" => DirectoriesArg::Skip,
                _ => DirectoriesArg::Recurse,
            })
        },
    )
    .help(34, "Directory operands: recurse (the default), skip, or read (an error, as grep)"),
    Flag::valued("include", None, "include", Value::Many("GLOB", Kind::Text), |l, v| {
        l.name_rules.push(NameRule::Include(v.text()))
    })
    .help(45, "Search only files whose name matches GLOB"),
    Flag::valued("exclude", None, "exclude", Value::Many("GLOB", Kind::Text), |l, v| {
        l.name_rules.push(NameRule::Exclude(v.text()))
    })
    .help(46, "Skip files whose name matches GLOB"),
    Flag::valued("exclude_from", None, "exclude-from", Value::Many("FILE", Kind::Text), |l, v| {
        l.name_rules.push(NameRule::ExcludeFrom(v.text()))
    })
    .help(40, "Skip files whose name matches a glob read from FILE (one per line)"),
    Flag::valued("exclude_dir", None, "exclude-dir", Value::Many("GLOB", Kind::Text), |l, v| {
        l.exclude_dir.push(v.text())
    })
    .help(47, "Skip directories whose name matches GLOB"),
    Flag::switch("gitignore", None, "gitignore", |l, _| l.gitignore = true).help(
        48,
        "Honour .gitignore and .ignore files (inside a git repository also those of parent \
         directories, .git/info/exclude and core.excludesFile); skip .git directories",
    ),
    Flag::switch("no_gitignore", None, "no-gitignore", |l, _| l.gitignore = false)
        .help(60, "Do not honour ignore files (the default; undoes --gitignore and -k)"),
    Flag::valued("glob", Some('g'), "glob", Value::Many("GLOB", Kind::Text), |l, v| {
        l.globs.push(GlobArg { glob: v.text(), ignore_case: false })
    })
    .hyphen_values()
    .help(
        49,
        "Search only files matching GLOB, or with !GLOB skip what it matches (files and \
         directories); gitignore-style, matched against the path below the root given (braces, **); \
         repeatable, the last matching glob wins, and when one includes, files no glob names are \
         skipped",
    ),
    Flag::valued("iglob", None, "iglob", Value::Many("GLOB", Kind::Text), |l, v| {
        l.globs.push(GlobArg { glob: v.text(), ignore_case: true })
    })
    .hyphen_values()
    .help(50, "As --glob, ignoring case"),
    Flag::valued("type", Some('t'), "type", Value::Many("TYPE", Kind::Text), |l, v| {
        l.types.select.push(v.text())
    })
    .help(51, "Search only files of TYPE (ripgrep's type table, see --type-list; repeatable)"),
    Flag::valued("type_not", None, "type-not", Value::Many("TYPE", Kind::Text), |l, v| {
        l.types.negate.push(v.text())
    })
    .help(52, "Skip files of TYPE (rg's -T: -T is grep's --initial-tab here)"),
    Flag::valued("type_add", None, "type-add", Value::Many("TYPE:GLOB", Kind::Text), |l, v| {
        l.types.add.push(v.text())
    })
    .help(
        53,
        "Add GLOB to TYPE's globs, or TYPE:include:OTHER,... its types' (for this run; put it in \
         the configuration file to keep it)",
    ),
    Flag::valued("type_clear", None, "type-clear", Value::Many("TYPE", Kind::Text), |l, v| {
        l.types.clear.push(v.text())
    })
    .help(54, "Forget TYPE's globs (before --type-add redefines it)"),
    Flag::switch("type_list", None, "type-list", |l, _| l.type_list = true)
        .help(55, "List the file types and their globs, then exit"),
    Flag::switch("files", None, "files", |l, _| l.files = true).help(
        56,
        "List the files that would be searched (every filter applies; none is opened), without \
         searching: all operands are paths",
    ),
    Flag::valued("max_filesize", None, "max-filesize", Value::One("SIZE", Kind::Size), |l, v| {
        l.max_filesize = Some(v.count())
    })
    .help(57, "Skip files larger than SIZE bytes (suffixes K, M, G: binary multiples)"),
    Flag::switch("no_hidden", None, "no-hidden", |l, _| l.no_hidden = true).help(
        58,
        "Skip hidden files and directories (a name starting with '.'), unless a --glob or --type \
         names them",
    ),
    Flag::switch("hidden", None, "hidden", |l, _| l.no_hidden = false)
        .help(59, "Search hidden files and directories (the default; undoes --no-hidden and -k)"),
    Flag::switch("code", Some('k'), "code", |l, _| {
        l.code = true;
        l.gitignore = true;
        l.no_hidden = true;
    })
    .help(
        61,
        "Search a code repository as rg does by default: skip what git ignores (--gitignore), \
         hidden files (--no-hidden) and binary files (-I)",
    ),
    Flag::valued("max_depth", None, "max-depth", Value::One("N", Kind::Number), |l, v| {
        l.max_depth = Some(v.number())
    })
    .help(89, "Descend at most N directories below each path"),
    Flag::switch("one_file_system", None, "one-file-system", |l, _| l.one_file_system = true)
        .help(90, "Do not cross file system boundaries"),
];
