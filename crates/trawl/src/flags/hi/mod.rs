//! From a search's typed arguments to its [`Config`], in three steps:
//! [`Facts`] about the environment gathered once and the files options name
//! read ([`Read`]); [`Settings`] derived from them without side effects;
//! then the run's resources opened ([`Settings::open`]: the matcher
//! compiled, the extractor and its cache, an index, standard output's
//! identity).

mod facts;
mod open;
mod printer;
mod search;

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use trawl_matcher::MatcherBuilder;
use trawl_printer::{OutputMode, PrinterConfig};
use trawl_search::{Cancel, SearcherConfig};
use trawl_select::rules::{GlobCase, Hidden, RulesBuilder};

pub use self::facts::Facts;
use crate::flags::low::{DevicesArg, DirectoriesArg, LowArgs, NameRule, SortBy};
use crate::patterns::Patterns;
use trawl_run::Filter;
use trawl_run::{Config, Devices, Directories, FilterOptions, Order, SortKey, Target};

/// The configuration of a search with the options `low`.
pub fn config(low: &LowArgs, cancel: Cancel) -> Result<Config, String> {
    let facts = Facts::gather(low);
    let read = Read::files(low)?;
    Settings::derive(low, &facts, read)?.open(low, cancel)
}

/// The files the options name, read: the patterns of `-f`, the globs of
/// `--exclude-from`.
pub struct Read {
    /// `-e` and `-f` patterns in order; None when neither was given.
    patterns: Option<Patterns>,
    /// Each `--exclude-from` file's bytes, in order.
    exclude_from: Vec<Vec<u8>>,
}

impl Read {
    pub fn files(low: &LowArgs) -> Result<Read, String> {
        let patterns = Patterns::from_args(&low.patterns)?;
        let mut exclude_from = Vec::new();
        for rule in &low.name_rules {
            if let NameRule::ExcludeFrom(file) = rule {
                let text = std::fs::read(file).map_err(|e| {
                    format!("{}: {}", file.to_string_lossy(), trawl_diag::io_message(&e))
                })?;
                exclude_from.push(text);
            }
        }
        Ok(Read { patterns, exclude_from })
    }
}

/// A search's settings: what its options, the environment and the files
/// they name decide, before anything is opened.
pub struct Settings {
    pub patterns: Patterns,
    pub matcher: MatcherBuilder,
    pub searcher: SearcherConfig,
    pub printer: PrinterConfig,
    pub targets: Vec<Target>,
    pub filter: Filter,
    pub order: Option<Order>,
    pub sorted: bool,
    pub gitignore: bool,
    pub selects_nothing: bool,
    pub stdin_label: Vec<u8>,
    pub devices: Devices,
    pub directories: Directories,
    /// Compressed files and archives are opened (`--search-zip`, `--docs`).
    pub extract: Option<trawl_extract::Limits>,
    /// Scanned documents are recognised (`--ocr`), as asked.
    pub ocr: Option<trawl_extract::ocr::OcrAsked>,
    /// Bad patterns' messages show where (a terminal reads them).
    pub errors: crate::patterns::Errors,
    /// What the user should be warned of (said when the run opens).
    pub warnings: Vec<String>,
}

impl Settings {
    /// The settings of a search with the options `low`, in an environment
    /// with `facts`, given the files its options name.
    pub fn derive(low: &LowArgs, facts: &Facts, read: Read) -> Result<Settings, String> {
        let mut operands = low.operands.iter();
        // Patterns: -e and -f in the order given, else the first operand
        // (--files takes none: every operand is a path).
        let patterns =
            match read.patterns {
                Some(p) => p,
                None if low.files => Patterns::operand(b""),
                None => match operands.next() {
                    Some(p) => Patterns::operand(p.as_bytes()),
                    None => return Err(
                        "no pattern given (usage: trawl [OPTIONS] PATTERN [PATH...]; see --help)"
                            .into(),
                    ),
                },
            };
        let matcher = search::matcher_builder(low, facts.utf8)?;
        let mode = printer::mode(low);
        let line_number = printer::line_number(low, facts, mode);
        // The run's cancel is set when it opens.
        let searcher = search::searcher_config(low, mode, line_number, Cancel::new())?;
        let targets = targets(low, facts, operands.cloned().collect());
        let directories = match low.directories {
            Some(DirectoriesArg::Read) => Directories::Read,
            Some(DirectoriesArg::Skip) => Directories::Skip,
            Some(DirectoriesArg::Recurse) | None => Directories::Recurse,
        };
        // File names are printed when more than one file can be searched
        // (one operand: only for files found in it by recursion, a
        // directory's when -d says recurse); of -h and -H, the last given.
        let implicit_dot =
            matches!(&targets[..], [Target::Path { display, .. }] if display.is_empty());
        let one_dir = facts.one_operand_is_dir || implicit_dot;
        let with_filename = low.vimgrep
            || low.with_filename.unwrap_or_else(|| {
                targets.len() > 1 || directories == Directories::Recurse && one_dir
            });
        let mut warnings = Vec::new();
        let printer = printer::printer_config(low, facts, with_filename, &mut warnings)?;
        // --sort path walks in order; other keys and --sortr list first.
        let (by, reverse) = low.sort.map_or((SortBy::None, false), |s| (s.by, s.reverse));
        let sorted = by == SortBy::Path && !reverse;
        let key = match by {
            SortBy::Path => Some(SortKey::Path),
            SortBy::Modified => Some(SortKey::Modified),
            SortBy::Accessed => Some(SortKey::Accessed),
            SortBy::Created => Some(SortKey::Created),
            SortBy::None => None,
        };
        let order = key.filter(|_| !sorted).map(|key| Order { key, reverse });
        // GNU grep's rule: -m 0, or one empty pattern with -v (no pattern
        // at all counts as the empty one inverted), without -x or -w.
        let lines = &patterns.lines;
        let only_empty = lines.len() == 1 && lines[0].is_empty();
        let no_line = (lines.is_empty() && !low.invert)
            || (only_empty && low.invert && !low.line && !low.word);
        let selects_nothing = (low.max_count == Some(0) || no_line)
            && !matches!(mode, OutputMode::FilesWithoutMatch | OutputMode::Files);
        let names = FilterOptions {
            name_rules: &low.name_rules,
            exclude_dir: &low.exclude_dir,
            max_filesize: low.max_filesize,
        };
        let filter = Filter::new(names, &read.exclude_from, rules_builder(low)?)?;
        let asked = trawl_extract::AskedLimits {
            max_depth: low.max_archive_depth,
            jobs: low.extract_jobs,
            timeout_secs: low.extract_timeout,
        };
        // --ocr implies --docs.
        let docs = low.docs || low.ocr;
        let extract = (low.search_zip || docs).then(|| trawl_extract::Limits::new(docs, asked));
        let ocr = low.ocr.then(|| trawl_extract::ocr::OcrAsked {
            languages: low.ocr_lang.clone(),
            dpi: low.ocr_dpi.map(|d| u32::try_from(d).unwrap_or(u32::MAX)),
        });
        Ok(Settings {
            patterns,
            matcher,
            searcher,
            printer,
            targets,
            filter,
            order,
            sorted,
            gitignore: low.gitignore,
            selects_nothing,
            stdin_label: match &low.label {
                Some(l) => l.as_bytes().to_vec(),
                // JSON names it as ripgrep does, for tools written for rg --json.
                None if mode == OutputMode::Json => b"<stdin>".to_vec(),
                None => b"(standard input)".to_vec(),
            },
            devices: match low.devices {
                Some(DevicesArg::Read) => Devices::Read,
                Some(DevicesArg::Skip) => Devices::Skip,
                None => Devices::Operands,
            },
            directories,
            extract,
            ocr,
            errors: match facts.stderr_tty {
                true => crate::patterns::Errors::Terminal,
                false => crate::patterns::Errors::Plain,
            },
            warnings,
        })
    }
}

/// The paths to search: the operands; with none, standard input when it
/// holds input (a pipe, a socket, a regular file), else `.` (always `.`
/// with -r or -R, as grep, and with --files).
fn targets(low: &LowArgs, facts: &Facts, paths: Vec<OsString>) -> Vec<Target> {
    let mut targets: Vec<Target> = paths
        .into_iter()
        .map(|p| match p == "-" {
            true => Target::Stdin,
            false => {
                let b = p.into_vec();
                Target::Path { path: b.clone(), display: b }
            }
        })
        .collect();
    if targets.is_empty() {
        targets.push(match low.recursive || low.files || !facts.stdin_is_input {
            true => Target::Path { path: b".".to_vec(), display: Vec::new() },
            false => Target::Stdin,
        });
    }
    targets
}

/// `--glob`/`--iglob` in command-line order, the types and hidden files.
pub fn rules_builder(low: &LowArgs) -> Result<RulesBuilder, String> {
    let said = |e: trawl_select::rules::Error| e.to_string();
    let mut b = RulesBuilder::default();
    for g in &low.globs {
        let case = if g.ignore_case { GlobCase::Insensitive } else { GlobCase::Sensitive };
        b.glob(g.glob.as_bytes(), case).map_err(said)?;
    }
    let t = &low.types;
    for d in &t.clear {
        b.type_clear(d.as_bytes()).map_err(said)?;
    }
    for d in &t.add {
        b.type_add(d.as_bytes()).map_err(said)?;
    }
    for s in &t.select {
        b.select(s.as_bytes()).map_err(said)?;
    }
    for s in &t.negate {
        b.negate(s.as_bytes()).map_err(said)?;
    }
    if low.no_hidden {
        b.hidden(Hidden::Skipped);
    }
    Ok(b)
}
