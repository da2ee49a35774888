//! trawl's other modes, declared once: `trawl index` and `trawl cache` are
//! parsed through these commands, and the completions and the man page
//! offer them after `trawl ` (`trawl find` reads GNU find's expression
//! grammar itself, trawl-select's parser; its command here names its global
//! options and takes the rest as the expression).

use clap::{Arg, ArgAction, Command};

/// `trawl index --help`.
pub const INDEX_HELP: &str = "\
Usage: trawl index [--full] [--search-zip|--docs|--ocr] [PATH...]
                                          build or update the index of each tree (default .)
       trawl index --watch [--search-zip|--docs|--ocr] [PATH]
                                          build or update it, then keep watching the tree
       trawl index --status [PATH...]     list the indexes, or check each against its tree
       trawl index --drop PATH...         remove the index of each tree

An index lives under $XDG_CACHE_HOME/trawl/index, never in the tree. A search of an indexed
tree, or of a directory below its root, uses it by itself: every file's and directory's stamps
are checked first, files that changed are searched directly, and unchanged files that cannot
hold a match are not opened; the output equals a search without it (--no-index).
Run again, trawl index reads only the directories that changed; --full builds anew.
With --search-zip (or --docs) the index also holds the text inside compressed files and
archives (and documents; with --ocr, scanned documents too, in the locale's language or
English), as searches with the same option read it (and fills the cache of extracted text);
run again without any, it keeps what it holds.
With --watch, trawl index stays running (until interrupted) and follows the tree's changes
through inotify; a search then asks it what changed instead of checking every file's stamps.
inotify does not see writes through a shared mapping (mmap), changes made through a hard link
from outside the tree or from another machine (NFS): only watch a tree changed in other ways.
";

/// A switch of a mode.
fn flag(name: &'static str) -> Arg {
    Arg::new(name).action(ArgAction::SetTrue)
}

/// `trawl find`.
pub fn find() -> Command {
    Command::new("find")
        .about("GNU find's expressions, walked in parallel, with content tests")
        .arg(flag("follow_never").short('P').help("Never follow symbolic links (the default)"))
        .arg(flag("follow_operands").short('H').help("Follow symbolic links named as operands"))
        .arg(flag("follow_all").short('L').help("Follow every symbolic link"))
        .arg(Arg::new("threads").short('j').value_name("N").help("Number of threads"))
        .arg(flag("sort").long("sort").help("Depth-first, names in byte order"))
        .arg(flag("no_index").long("no-index").help("Walk even when an index covers the tree"))
        .arg(
            Arg::new("expression")
                .action(ArgAction::Append)
                .num_args(0..)
                .trailing_var_arg(true)
                .allow_hyphen_values(true)
                .value_hint(clap::ValueHint::AnyPath)
                .help("Starting points, then the expression (see trawl find --help)"),
        )
}

/// `trawl index`.
pub fn index() -> Command {
    Command::new("index")
        .about("Build, update, watch, check or remove the index of a tree")
        .override_help(INDEX_HELP)
        .disable_version_flag(true)
        .arg(flag("full").long("full").help("Build anew"))
        .arg(
            flag("search_zip")
                .long("search-zip")
                .visible_alias("zip")
                .help("Index the text inside compressed files and archives"),
        )
        .arg(flag("docs").long("docs").help("And documents' text"))
        .arg(flag("ocr").long("ocr").help("And scanned documents' text (Tesseract)"))
        .arg(flag("watch").long("watch").help("Keep following the tree's changes (inotify)"))
        .arg(flag("status").long("status").help("List the indexes, or check each against its tree"))
        .arg(flag("drop").long("drop").help("Remove the index of each tree"))
        .arg(
            Arg::new("path")
                .action(ArgAction::Append)
                .value_parser(clap::value_parser!(std::ffi::OsString))
                .value_hint(clap::ValueHint::DirPath),
        )
}

/// `trawl cache`.
pub fn cache() -> Command {
    Command::new("cache")
        .about("Show or clear the cache of extracted text, or list the failures it remembers")
        .disable_version_flag(true)
        .arg(Arg::new("action").value_parser(["show", "clear", "failures"]))
        .arg(
            flag("failures")
                .long("failures")
                .help("With clear: forget only the failures (their extractors run again)"),
        )
}

/// `trawl extractors`.
pub fn extractors() -> Command {
    Command::new("extractors").about("What reads which documents (--docs)")
}

/// The search command with trawl's other modes as subcommands: what the
/// completions and the man page offer after `trawl `.
pub fn all() -> Command {
    super::command::command()
        .args_conflicts_with_subcommands(true)
        .subcommand(find())
        .subcommand(index())
        .subcommand(cache())
        .subcommand(extractors())
}
