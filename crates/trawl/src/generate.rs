//! `trawl --generate KIND`: shell completions (clap_complete) and the man
//! page (clap_mangen), both made from the clap definition of the command
//! line, so they never disagree with what trawl accepts.

/// Writes what `kind` names (one of flags' GENERATE_KINDS) to `out`.
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
    let mut cmd = crate::flags::subcommands::all();
    clap_complete::generate(shell, &mut cmd, "trawl", out);
    Ok(())
}

/// The man page: the search command's options, then each mode's own help.
fn man(out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let cmd = crate::flags::subcommands::all();
    clap_mangen::Man::new(cmd).render(out)?;
    let modes = [
        ("TRAWL FIND", crate::find::USAGE),
        ("TRAWL INDEX", crate::flags::subcommands::INDEX_HELP),
    ];
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
