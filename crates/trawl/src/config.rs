//! From parsed arguments to the configuration of every stage.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use clap::ArgMatches;
use trawl_index::visit::BinaryFiles;
use trawl_matcher::{AnyMatcher, Engine, LineTerminator, MatcherBuilder, Syntax, Text};
use trawl_printer::{Colors, OutputMode, PrinterConfig};
use trawl_search::{BinaryMode, Cancel, MmapChoice, SearcherConfig};
use trawl_select::rules::{GlobCase, Hidden, RulesBuilder};

use crate::args::os_values;
use crate::filter::Filter;
use crate::patterns::Patterns;

/// A path to search.
pub enum Target {
    /// Standard input, printed as "(standard input)".
    Stdin,
    /// A file or directory; `display` is empty for the implicit ".".
    Path { path: Vec<u8>, display: Vec<u8> },
}

/// Everything a run needs, decided once.
pub struct Config {
    pub matcher: AnyMatcher,
    pub searcher: SearcherConfig,
    pub printer: PrinterConfig,
    pub targets: Vec<Target>,
    pub filter: Filter,
    pub threads: usize,
    pub follow_links: bool,
    pub max_depth: Option<usize>,
    pub one_file_system: bool,
    pub sorted: bool,
    /// `--sort modified` and the like, and `--sortr`.
    pub order: Option<Order>,
    pub gitignore: bool,
    pub no_messages: bool,
    pub stats: bool,
    /// No line can be selected (`-m 0`; no pattern at all; `-v ''`): as
    /// GNU grep, exit 1 without opening a file (unless `-L`, which lists
    /// every file).
    pub selects_nothing: bool,
    /// How standard input is named (`--label`; "(standard input)").
    pub stdin_label: Vec<u8>,
    /// Standard output's device and inode when it is a regular file and
    /// lines are printed (GNU grep's check: not with -c, -l, -L, -q or
    /// -m 1): a file that is also the output is not read.
    pub output_file: Option<(u64, u64)>,
    /// `--search-zip`: compressed files and archives are opened.
    pub extract: Option<trawl_extract::Extractor>,
    /// `-D`: what is done with devices, FIFOs and sockets.
    pub devices: Devices,
    /// `-d`: what is done with directory operands.
    pub directories: Directories,
    /// The index's question, when an index may serve the search.
    pub index: Option<crate::indexed::IndexUse>,
}

/// `--sort`/`--sortr` by something a walk in order cannot give: the files
/// are listed, sorted, then searched in that order.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct Order {
    pub key: SortKey,
    pub reverse: bool,
}

/// What `--sort` sorts by.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum SortKey {
    Path,
    Modified,
    Accessed,
    Created,
}

impl Order {
    /// Sorts `files` (their times filled in here); ties and files whose
    /// time is unknown (first) keep path order.
    pub fn sort(&self, files: &mut [(Option<std::time::SystemTime>, Vec<u8>)]) {
        let time = |md: std::fs::Metadata| match self.key {
            SortKey::Path => None,
            SortKey::Modified => md.modified().ok(),
            SortKey::Accessed => md.accessed().ok(),
            SortKey::Created => md.created().ok(),
        };
        if self.key != SortKey::Path {
            for (t, path) in files.iter_mut() {
                *t = std::fs::metadata(std::ffi::OsStr::from_bytes(path)).ok().and_then(time);
            }
        }
        files.sort_by(|a, b| {
            // Depth first, names in byte order (as --sort path walks).
            let by_path = a.1.split(|&c| c == b'/').cmp(b.1.split(|&c| c == b'/'));
            let ord = a.0.cmp(&b.0).then(by_path);
            if self.reverse {
                ord.reverse()
            } else {
                ord
            }
        });
    }
}

/// `-D ACTION`: devices, FIFOs and sockets.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Devices {
    /// Read those named as operands; skip those met in recursion (grep -r).
    Operands,
    /// `-D read`: read them wherever they are met.
    Read,
    /// `-D skip`: never read them (standard input is still read).
    Skip,
}

/// `-d ACTION`: directory operands.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Directories {
    /// Search them recursively (trawl's default; `-r`, `-R`).
    Recurse,
    /// `-d read`: read as files, which fails ("Is a directory"), as grep.
    Read,
    /// `-d skip`: skip them silently.
    Skip,
}

impl Config {
    /// Whether `.` is searched because no path was given (its entries are
    /// printed without `./`, and `--exclude-dir` never skips it).
    pub fn implicit_dot(&self) -> bool {
        self.targets.iter().any(|t| matches!(t, Target::Path { display, .. } if display.is_empty()))
    }
}

/// Whether the locale's characters are UTF-8: the first of `LC_ALL`,
/// `LC_CTYPE` and `LANG` that is set and not empty names it (as setlocale
/// reads them); unset, `C` and `POSIX` are bytes.
pub fn utf8_locale() -> bool {
    let value = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .find_map(|k| std::env::var_os(k).filter(|v| !v.is_empty()));
    value.is_some_and(|v| {
        let v = v.to_string_lossy().to_ascii_lowercase();
        v.contains("utf-8") || v.contains("utf8")
    })
}

/// What the last of -a, -I and --binary-files given asks for.
fn binary_files_asked(m: &ArgMatches) -> Option<BinaryMode> {
    // The last --binary-files value is the one given last.
    let value = match m.get_many::<String>("binary_files").and_then(Iterator::last) {
        Some(v) if v == "text" => BinaryMode::Text,
        Some(v) if v == "without-match" => BinaryMode::SkipFile,
        _ => BinaryMode::Detect,
    };
    [("text", BinaryMode::Text), ("skip_binary", BinaryMode::SkipFile), ("binary_files", value)]
        .into_iter()
        .filter_map(|(id, mode)| last_given(m, &[id]).map(|at| (at, mode)))
        .max_by_key(|&(at, _)| at)
        .map(|(_, mode)| mode)
}

/// The last index at which any of the flags `ids` was given.
fn last_given(m: &ArgMatches, ids: &[&str]) -> Option<usize> {
    ids.iter()
        .filter(|id| m.value_source(id) == Some(clap::parser::ValueSource::CommandLine))
        .filter_map(|id| m.indices_of(id).and_then(Iterator::max))
        .max()
}

/// Whether the later of `on` and `off` (each a set of flags) turns it on.
fn switched_on(m: &ArgMatches, on: &[&str], off: &[&str]) -> bool {
    last_given(m, on) > last_given(m, off)
}

/// `--glob`/`--iglob` in command-line order, the types and hidden files.
pub fn rules_builder(m: &ArgMatches) -> Result<RulesBuilder, String> {
    let mut b = RulesBuilder::default();
    let mut globs: Vec<(usize, OsString, GlobCase)> = Vec::new();
    for (id, case) in [("glob", GlobCase::Sensitive), ("iglob", GlobCase::Insensitive)] {
        let indices = m.indices_of(id).map(Iterator::collect::<Vec<_>>).unwrap_or_default();
        for (g, at) in os_values(m, id).into_iter().zip(indices) {
            globs.push((at, g, case));
        }
    }
    globs.sort_by_key(|g| g.0);
    for (_, g, case) in globs {
        b.glob(g.as_bytes(), case)?;
    }
    for d in os_values(m, "type_clear") {
        b.type_clear(d.as_bytes())?;
    }
    for d in os_values(m, "type_add") {
        b.type_add(d.as_bytes())?;
    }
    for t in os_values(m, "type") {
        b.select(t.as_bytes())?;
    }
    for t in os_values(m, "type_not") {
        b.negate(t.as_bytes())?;
    }
    if switched_on(m, &["no_hidden", "code"], &["hidden"]) {
        b.hidden(Hidden::Skipped);
    }
    Ok(b)
}

impl Config {
    pub fn from_matches(m: &ArgMatches, cancel: Cancel) -> Result<Config, String> {
        let flag = |id: &str| crate::args::flag(m, id);
        let mut positional = os_values(m, "pattern_or_path").into_iter();

        // Patterns: -e and -f in the order given, else the first operand
        // (--files takes none: every operand is a path).
        let list_files = flag("files");
        let patterns =
            match Patterns::from_options(m)? {
                Some(p) => p,
                None if list_files => Patterns::operand(b""),
                None => match positional.next() {
                    Some(p) => Patterns::operand(p.as_bytes()),
                    None => return Err(
                        "no pattern given (usage: trawl [OPTIONS] PATTERN [PATH...]; see --help)"
                            .into(),
                    ),
                },
            };

        // -E, -F, -G and -P name the matcher once (each may be repeated).
        let matchers = ["extended", "fixed", "basic", "perl"];
        if matchers.iter().filter(|id| flag(id)).count() > 1 {
            return Err("conflicting matchers specified".into());
        }
        let terminator =
            if flag("null_data") { LineTerminator::Nul } else { LineTerminator::Newline };
        let mut mb = MatcherBuilder::new();
        let syntax = if flag("fixed") {
            Syntax::Fixed
        } else if flag("basic") {
            Syntax::Basic
        } else if flag("extended") {
            Syntax::Extended
        } else {
            Syntax::Perl
        };
        let engine = match m.get_one::<String>("engine").map(String::as_str) {
            Some("rust") => Engine::Rust,
            Some("pcre2") => Engine::Pcre2,
            _ if flag("perl") => Engine::Pcre2,
            _ => Engine::Auto,
        };
        mb.syntax(syntax)
            .engine(engine)
            .ignore_case(flag("ignore_case") && !flag("no_ignore_case"))
            .smart_case(flag("smart_case") && !flag("ignore_case"))
            .word(flag("word"))
            .line(flag("line"))
            .terminator(terminator)
            .text(if utf8_locale() { Text::Unicode } else { Text::Bytes })
            .multiline(flag("multiline"))
            .dot_all(flag("multiline_dotall"));
        let matcher = mb.build(&patterns.lines).map_err(|e| match e.bad_patterns() {
            [] => e.to_string(),
            bad => patterns.describe(
                bad,
                match std::io::stderr().is_terminal() {
                    true => crate::patterns::Errors::Terminal,
                    false => crate::patterns::Errors::Plain,
                },
            ),
        })?;
        let patterns = patterns.lines;
        // The index's question, asked only when an index covers an operand.
        let index_query = |invert| {
            let (mb, patterns) = (mb.clone(), patterns.clone());
            move || crate::index_query::query(&mb, &patterns, invert)
        };

        let stdout_tty = std::io::stdout().is_terminal();
        let context = |id: &str| m.get_one::<u64>(id).map(|&n| n as usize);
        let both = context("context");
        let before = context("before").or(both).unwrap_or(0);
        let after = context("after").or(both).unwrap_or(0);
        // Any context option, even 0, separates non-adjacent groups (grep).
        let group_breaks =
            both.is_some() || context("before").is_some() || context("after").is_some();
        let invert = flag("invert");

        let mode = if list_files {
            OutputMode::Files
        } else if flag("quiet") {
            OutputMode::Quiet
        } else if flag("files_with_matches") || flag("files_without_match") {
            // The later of -l and -L wins, as in grep.
            match switched_on(m, &["files_with_matches"], &["files_without_match"]) {
                true => OutputMode::FilesWithMatches,
                false => OutputMode::FilesWithoutMatch,
            }
        } else if flag("count") {
            OutputMode::Count
        } else if flag("json") {
            OutputMode::Json
        } else {
            OutputMode::Lines
        };
        let only_matching = flag("only_matching");
        let json = mode == OutputMode::Json;
        // Line numbers: asked for, or on by default on a terminal; JSON always has them.
        let vimgrep = flag("vimgrep");
        let column = (flag("column") || vimgrep) && mode == OutputMode::Lines;
        // --column and --vimgrep imply -n (as in rg).
        let line_number =
            ((flag("line_number") || stdout_tty) && !flag("no_line_number")) || json || column;
        let colors = match m.get_one::<String>("color").map(String::as_str) {
            Some("always") => true,
            Some("never") => false,
            // NO_COLOR (no-color.org), set and not empty, says no unless asked.
            _ if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) => false,
            _ => stdout_tty && std::env::var_os("TERM").is_some_and(|t| t != "dumb"),
        };
        let colors = (colors && !json).then(|| {
            let legacy = std::env::var("GREP_COLOR").ok();
            let spec = std::env::var("GREP_COLORS").ok();
            let (c, legacy_in_effect) =
                Colors::from_env(legacy.as_deref(), spec.as_deref(), invert);
            if let Some(v) = legacy.filter(|_| legacy_in_effect) {
                eprintln!(
                    "trawl: warning: GREP_COLOR='{v}' is deprecated; use GREP_COLORS='mt={v}'"
                );
            }
            c
        });
        // With NUL ending lines, no byte makes a file binary (the C locale).
        // The later of -a, -I and --binary-files decides, as in grep; -k
        // skips binary files unless one of them is given.
        let asked = binary_files_asked(m);
        let binary = match (terminator, asked) {
            (LineTerminator::Nul, _) => BinaryMode::Text,
            (_, Some(mode)) => mode,
            (_, None) if flag("code") => BinaryMode::SkipFile,
            (_, None) => BinaryMode::Detect,
        };
        let lines_out = mode == OutputMode::Lines || json;
        // --passthru: every line is printed, those not selected as context.
        let passthru = flag("passthru") && lines_out;
        let (before, after, group_breaks) = match passthru {
            true => (0, usize::MAX, false),
            false => (before, after, group_breaks),
        };
        // -a searches raw bytes, unless an encoding is named.
        let encoding = match m.get_one::<String>("encoding") {
            Some(label) => trawl_search::Encoding::for_label(label)
                .ok_or_else(|| format!("unknown encoding '{label}' (an encoding_rs label such as latin1, utf-16le, shift_jis; or none)"))?,
            None if asked == Some(BinaryMode::Text) => trawl_search::Encoding::Raw,
            None => trawl_search::Encoding::Sniff,
        };
        let searcher = SearcherConfig {
            encoding,
            invert,
            line_numbers: lines_out && line_number,
            before_context: if lines_out { before } else { 0 },
            after_context: if lines_out { after } else { 0 },
            passthru,
            multiline: flag("multiline"),
            // -o alone: a line too long to hold gives its matches as found.
            matches_only: only_matching
                && mode == OutputMode::Lines
                && !invert
                && before == 0
                && after == 0
                && !passthru
                && !flag("multiline"),
            group_breaks: lines_out && group_breaks,
            stream: flag("line_buffered"),
            lines_unneeded: !lines_out,
            read_size: 0,
            part_size: 0,
            mmap: if flag("no_mmap") {
                MmapChoice::never()
            } else {
                // SAFETY: trawl accepts that a mapped file may change while
                // it is searched (as it may between reads); trawl-search
                // re-reads what a truncation turned to zeros.
                unsafe { MmapChoice::auto() }
            },
            threads: m.get_one::<usize>("threads").copied().unwrap_or(0),
            cancel: cancel.clone(),
            max_count: m.get_one::<u64>("max_count").copied(),
            binary,
            terminator,
        };

        // Paths: the operands; with none, stdin when it holds input (a pipe,
        // a socket, a regular file), else ".".
        let mut targets: Vec<Target> = positional
            .map(|p| {
                if p == "-" {
                    Target::Stdin
                } else {
                    let b = p.into_vec();
                    Target::Path { path: b.clone(), display: b }
                }
            })
            .collect();
        if targets.is_empty() {
            // grep -r (and -R) with no path searches ".", whatever stdin is.
            let recursive = flag("recursive") || flag("dereference") || list_files;
            targets.push(if recursive || !crate::stdin_is_input() {
                Target::Path { path: b".".to_vec(), display: Vec::new() }
            } else {
                Target::Stdin
            });
        }
        // File names are printed when more than one file can be searched;
        // of -h and -H, the last one given wins.
        let last = |id: &str| last_given(m, &[id]);
        // -h (Some(false)) or -H (Some(true)), whichever was given last.
        let names_given = match (last("no_filename"), last("with_filename")) {
            (Some(h), Some(big_h)) => Some(big_h > h),
            (Some(_), None) => Some(false),
            (None, Some(_)) => Some(true),
            (None, None) => None,
        };
        let directories = match m.get_one::<String>("directories").map(String::as_str) {
            // -r and -R after -d say recurse again (grep keeps the last).
            Some(_) if last("directories") < last("recursive").max(last("dereference")) => {
                Directories::Recurse
            }
            Some("read") => Directories::Read,
            Some("skip") => Directories::Skip,
            _ => Directories::Recurse,
        };
        // One operand: names only for files found in it by recursion (a
        // directory's, when -d says recurse).
        let with_filename = vimgrep
            || names_given.unwrap_or_else(|| {
                targets.len() > 1
                    || directories == Directories::Recurse
                        && targets.iter().any(|t| match t {
                            Target::Stdin => false,
                            Target::Path { path, .. } => {
                                std::fs::metadata(std::ffi::OsStr::from_bytes(path))
                                    .map(|md| md.is_dir())
                                    .unwrap_or(false)
                            }
                        })
            });
        let printer = PrinterConfig {
            mode,
            with_filename,
            group_separator: {
                let sep = last("group_separator");
                match (last("no_group_separator"), sep) {
                    (Some(no), Some(s)) if no > s => None,
                    (Some(_), None) => None,
                    (_, Some(_)) => {
                        m.get_one::<OsString>("group_separator").map(|s| s.as_bytes().to_vec())
                    }
                    (None, None) => Some(b"--".to_vec()),
                }
            },
            member_names: names_given != Some(false),
            line_number,
            byte_offset: flag("byte_offset"),
            only_matching,
            invert,
            context: lines_out && group_breaks && !json,
            null: flag("null"),
            initial_tab: flag("initial_tab"),
            terminator,
            colors,
            line_buffered: flag("line_buffered"),
            escape_names: stdout_tty,
            column,
            multiline: flag("multiline"),
            vimgrep: vimgrep && mode == OutputMode::Lines,
            heading: switched_on(m, &["heading"], &["no_heading", "vimgrep"])
                && mode == OutputMode::Lines,
            trim: flag("trim"),
            max_columns: m.get_one::<u64>("max_columns").filter(|&&n| n > 0).map(|&limit| {
                trawl_printer::MaxColumns { limit, preview: flag("max_columns_preview") }
            }),
            replace: m
                .get_one::<OsString>("replace")
                .map(|t| trawl_printer::Template::new(t.as_bytes())),
            hyperlinks: match m.get_one::<String>("hyperlink_format") {
                Some(f) => trawl_printer::Hyperlinks::new(f)?,
                None => None,
            },
            host: None,
        };
        // --sort path walks in order; other keys and --sortr list first.
        let (sort_by, reverse) = match (m.get_one::<String>("sort"), m.get_one::<String>("sortr")) {
            (_, Some(by)) if last("sortr") > last("sort") => (by.as_str(), true),
            (Some(by), _) => (by.as_str(), false),
            _ => ("none", false),
        };
        let sorted = sort_by == "path" && !reverse;
        let key = match sort_by {
            "path" => Some(SortKey::Path),
            "modified" => Some(SortKey::Modified),
            "accessed" => Some(SortKey::Accessed),
            "created" => Some(SortKey::Created),
            _ => None,
        };
        let order = key.filter(|_| !sorted).map(|key| Order { key, reverse });
        // GNU grep's rule: -m 0, or one empty pattern with -v (no pattern
        // at all counts as the empty one inverted), without -x or -w.
        let only_empty = patterns.len() == 1 && patterns[0].is_empty();
        let no_line = (patterns.is_empty() && !invert)
            || (only_empty && invert && !flag("line") && !flag("word"));
        let selects_nothing = (searcher.max_count == Some(0) || no_line)
            && !matches!(mode, OutputMode::FilesWithoutMatch | OutputMode::Files);
        let gitignore = switched_on(m, &["gitignore", "code"], &["no_gitignore"]);
        let filter = Filter::new(m)?;
        let output_file = output_file(mode, searcher.max_count);
        // What an index cannot serve yet: a sorted walk, followed links,
        // ignore files, extracted text.
        let extract = (flag("search_zip") || flag("docs"))
            .then(|| {
                let asked = trawl_extract::AskedLimits {
                    max_depth: m.get_one::<usize>("max_archive_depth").copied(),
                    jobs: m.get_one::<usize>("extract_jobs").copied(),
                    timeout_secs: m.get_one::<u64>("extract_timeout").copied(),
                };
                let limits = trawl_extract::Limits::new(flag("docs"), asked);
                extractor(limits, &cancel, !flag("no_cache"))
            })
            .transpose()?;
        // Nor --glob, --type or --no-hidden (they choose by the path below
        // the operand), nor --files (which reads no file).
        let unserved = ["no_index", "dereference"];
        let forced_encoding = matches!(searcher.encoding, trawl_search::Encoding::Forced(_));
        let index = (!sorted
            && !flag("multiline")
            && order.is_none()
            && !forced_encoding
            && !unserved.iter().any(|id| flag(id))
            && !gitignore
            && filter.chosen.is_none()
            && !list_files
            && directories == Directories::Recurse)
            // -c and -L print files without a match too: all are read.
            .then(|| {
                let every = matches!(mode, OutputMode::Count | OutputMode::FilesWithoutMatch);
                let extraction = || extract.as_ref().map(trawl_extract::Extractor::signature);
                // -I: a file the index found binary prints nothing,
                // unless non-matching files are printed too.
                let binary_files = match binary == BinaryMode::SkipFile && !every {
                    true => BinaryFiles::Skipped,
                    false => BinaryFiles::Searched,
                };
                crate::indexed::IndexUse::find(
                    Box::new(index_query(invert || every)),
                    extraction,
                    binary_files,
                )
            })
            .flatten();
        Ok(Config {
            matcher,
            searcher,
            printer,
            targets,
            filter,
            threads: m.get_one::<usize>("threads").copied().unwrap_or(0),
            follow_links: flag("dereference"),
            max_depth: m.get_one::<usize>("max_depth").copied(),
            one_file_system: flag("one_file_system"),
            sorted,
            order,
            gitignore,
            no_messages: flag("no_messages"),
            stats: flag("stats"),
            selects_nothing,
            output_file,
            devices: match m.get_one::<String>("devices").map(String::as_str) {
                Some("read") => Devices::Read,
                Some("skip") => Devices::Skip,
                _ => Devices::Operands,
            },
            directories,
            index,
            stdin_label: m.get_one::<OsString>("label").map_or_else(
                // JSON names it as ripgrep does, for tools written for rg --json.
                || match json {
                    true => b"<stdin>".to_vec(),
                    false => b"(standard input)".to_vec(),
                },
                |l| l.as_bytes().to_vec(),
            ),
            extract,
        })
    }
}

/// The extractor for `limits`, with the cache of extracted text under
/// `$XDG_CACHE_HOME/trawl` unless `cache` is false, and, when documents
/// are read, the user's extractors (an error in their file is the error).
pub fn extractor(
    limits: trawl_extract::Limits,
    cancel: &Cancel,
    cache: bool,
) -> Result<trawl_extract::Extractor, String> {
    let mut extractor = trawl_extract::Extractor::new(limits, cancel.flag());
    if limits.documents {
        extractor = extractor.with_configured(crate::extractors::load()?);
    }
    Ok(match trawl_extract::cache::default_dir() {
        Some(dir) if cache => extractor.with_cache(dir, trawl_extract::cache::DEFAULT_LIMIT),
        _ => extractor,
    })
}

/// Standard output's (device, inode) if it is a regular file and the mode
/// prints lines (see [`Config::output_file`]).
fn output_file(mode: OutputMode, max_count: Option<u64>) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    if !matches!(mode, OutputMode::Lines | OutputMode::Json) || max_count.is_some_and(|m| m <= 1) {
        return None;
    }
    // SAFETY: descriptor 1 stays open; ManuallyDrop keeps it from closing.
    let out = std::mem::ManuallyDrop::new(unsafe {
        <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(1)
    });
    let md = out.metadata().ok()?;
    md.is_file().then(|| (md.dev(), md.ino()))
}
