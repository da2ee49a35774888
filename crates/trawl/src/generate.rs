//! `trawl --generate KIND`: shell completions (clap_complete) and the man
//! page (clap_mangen), both made from the clap definition of the command
//! line, so they never disagree with what trawl accepts.

use clap::{Arg, ArgAction, Command};

/// What `--generate` can write.
pub const KINDS: [&str; 6] = [
    "complete-bash",
    "complete-zsh",
    "complete-fish",
    "complete-powershell",
    "complete-elvish",
    "man",
];

/// The search command with trawl's other modes as subcommands: what the
/// completions offer after `trawl `.
fn full_command() -> Command {
    let flag = |name: &'static str| Arg::new(name).action(ArgAction::SetTrue);
    let paths = || Arg::new("path").action(ArgAction::Append).value_hint(clap::ValueHint::AnyPath);
    let find = Command::new("find")
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
        );
    let index = Command::new("index")
        .about("Build, update, watch, check or remove the index of a tree")
        .arg(flag("full").long("full").help("Build anew"))
        .arg(
            flag("search_zip")
                .long("search-zip")
                .help("Index the text inside compressed files and archives"),
        )
        .arg(flag("docs").long("docs").help("And documents' text"))
        .arg(flag("watch").long("watch").help("Keep following the tree's changes (inotify)"))
        .arg(flag("status").long("status").help("List the indexes, or check each against its tree"))
        .arg(flag("drop").long("drop").help("Remove the index of each tree"))
        .arg(paths().value_hint(clap::ValueHint::DirPath));
    let cache = Command::new("cache")
        .about("Show or clear the cache of extracted text")
        .arg(Arg::new("action").value_parser(["show", "clear"]));
    let extractors = Command::new("extractors").about("What reads which documents (--docs)");
    crate::args::command()
        .args_conflicts_with_subcommands(true)
        .subcommand(find)
        .subcommand(index)
        .subcommand(cache)
        .subcommand(extractors)
}

/// Writes what `kind` names (one of [`KINDS`]) to `out`.
pub fn write(kind: &str, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    use clap_complete::Shell;
    let shell = match kind {
        "complete-bash" => Shell::Bash,
        "complete-zsh" => Shell::Zsh,
        "complete-fish" => Shell::Fish,
        "complete-powershell" => Shell::PowerShell,
        "complete-elvish" => Shell::Elvish,
        _ => return man(out),
    };
    let mut cmd = full_command();
    clap_complete::generate(shell, &mut cmd, "trawl", out);
    Ok(())
}

/// The man page: the search command's options, then each mode's own help.
fn man(out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let cmd = full_command();
    clap_mangen::Man::new(cmd).render(out)?;
    let modes = [("TRAWL FIND", crate::find::USAGE), ("TRAWL INDEX", crate::index_cmd::HELP)];
    for (title, text) in modes {
        writeln!(out, ".SH \"{title}\"\n.nf")?;
        for line in text.lines() {
            writeln!(out, "{}", roff_line(line))?;
        }
        writeln!(out, ".fi")?;
    }
    Ok(())
}

/// A line of preformatted text, escaped for roff: backslashes doubled, and
/// a leading `.` or `'` kept from being read as a request.
fn roff_line(line: &str) -> String {
    let escaped = line.replace('\\', "\\e");
    match escaped.starts_with(['.', '\'']) {
        true => format!("\\&{escaped}"),
        false => escaped,
    }
}
