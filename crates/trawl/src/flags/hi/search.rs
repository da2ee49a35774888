//! How lines are matched and files searched: the matcher's builder (the
//! dialect, engine, case and line rules) and the searcher's settings.

use trawl_matcher::{Engine, LineTerminator, MatcherBuilder, Syntax, Text};
use trawl_search::{BinaryMode, Cancel, Encoding, MmapChoice, SearcherConfig};

use crate::flags::low::{BinaryArg, Case, Dialect, EngineArg, LowArgs};
use trawl_printer::OutputMode;

/// The byte that ends a line: NUL under `-z`.
pub fn terminator(low: &LowArgs) -> LineTerminator {
    match low.null_data {
        true => LineTerminator::Nul,
        false => LineTerminator::Newline,
    }
}

/// The matcher's builder (the patterns are compiled when the run opens).
pub fn matcher_builder(low: &LowArgs, utf8: bool) -> Result<MatcherBuilder, String> {
    // -E, -F, -G and -P name the matcher once (each may be repeated).
    if low.dialects.len() > 1 {
        return Err("conflicting matchers specified".into());
    }
    let syntax = match low.dialects.first() {
        Some(Dialect::Fixed) => Syntax::Fixed,
        Some(Dialect::Basic) => Syntax::Basic,
        Some(Dialect::Extended) => Syntax::Extended,
        Some(Dialect::Perl) | None => Syntax::Perl,
    };
    let engine = match low.engine {
        Some(EngineArg::Rust) => Engine::Rust,
        Some(EngineArg::Pcre2) => Engine::Pcre2,
        _ if low.dialects.contains(&Dialect::Perl) => Engine::Pcre2,
        _ => Engine::Auto,
    };
    let mut mb = MatcherBuilder::new();
    mb.syntax(syntax)
        .engine(engine)
        .ignore_case(low.case == Case::Insensitive)
        .smart_case(low.case == Case::Smart)
        .word(low.word)
        .line(low.line)
        .terminator(terminator(low))
        .text(if utf8 { Text::Unicode } else { Text::Bytes })
        .multiline(low.multiline)
        .dot_all(low.multiline_dotall);
    Ok(mb)
}

/// What the last of -a, -I and --binary-files asks for.
pub fn binary_asked(low: &LowArgs) -> Option<BinaryMode> {
    low.binary.map(|b| match b {
        BinaryArg::Text => BinaryMode::Text,
        BinaryArg::WithoutMatch => BinaryMode::SkipFile,
        BinaryArg::Binary => BinaryMode::Detect,
    })
}

/// What is done with binary data: with NUL ending lines, no byte makes a
/// file binary (the C locale); else the last of -a, -I and --binary-files,
/// as in grep; -k skips binary files unless one of them is given.
pub fn binary(low: &LowArgs) -> BinaryMode {
    match (terminator(low), binary_asked(low)) {
        (LineTerminator::Nul, _) => BinaryMode::Text,
        (_, Some(mode)) => mode,
        (_, None) if low.code => BinaryMode::SkipFile,
        (_, None) => BinaryMode::Detect,
    }
}

/// The lines a search hands the printer: context, `--passthru`, `-o`.
pub struct Lines {
    pub before: usize,
    pub after: usize,
    /// Any context option, even 0, separates non-adjacent groups (grep).
    pub group_breaks: bool,
    pub passthru: bool,
}

impl Lines {
    /// The lines of a search printing in `mode`.
    pub fn of(low: &LowArgs, mode: OutputMode) -> Lines {
        let to_usize = |n: Option<u64>| n.map(|n| n as usize);
        let both = to_usize(low.context);
        let before = to_usize(low.before).or(both).unwrap_or(0);
        let after = to_usize(low.after).or(both).unwrap_or(0);
        let group_breaks = both.is_some() || low.before.is_some() || low.after.is_some();
        // --passthru: every line is printed, those not selected as context.
        let passthru = low.passthru && lines_out(mode);
        match passthru {
            true => Lines { before: 0, after: usize::MAX, group_breaks: false, passthru },
            false => Lines { before, after, group_breaks, passthru },
        }
    }
}

/// Whether `mode` prints lines (or their JSON).
pub fn lines_out(mode: OutputMode) -> bool {
    matches!(mode, OutputMode::Lines | OutputMode::Json)
}

/// The searcher's settings (`cancel` is the run's).
pub fn searcher_config(
    low: &LowArgs,
    mode: OutputMode,
    line_number: bool,
    cancel: Cancel,
) -> Result<SearcherConfig, String> {
    let lines = Lines::of(low, mode);
    let out = lines_out(mode);
    // -a searches raw bytes, unless an encoding is named.
    let encoding = match &low.encoding {
        Some(label) => Encoding::for_label(label).ok_or_else(|| {
            format!("unknown encoding '{label}' (an encoding_rs label such as latin1, utf-16le, shift_jis; or none)")
        })?,
        None if binary_asked(low) == Some(BinaryMode::Text) => Encoding::Raw,
        None => Encoding::Sniff,
    };
    Ok(SearcherConfig {
        encoding,
        invert: low.invert,
        line_numbers: out && line_number,
        before_context: if out { lines.before } else { 0 },
        after_context: if out { lines.after } else { 0 },
        passthru: lines.passthru,
        multiline: low.multiline,
        // -o alone: a line too long to hold gives its matches as found.
        matches_only: low.only_matching
            && mode == OutputMode::Lines
            && !low.invert
            && lines.before == 0
            && lines.after == 0
            && !lines.passthru
            && !low.multiline,
        group_breaks: out && lines.group_breaks,
        stream: low.line_buffered,
        lines_unneeded: !out,
        read_size: 0,
        part_size: 0,
        mmap: if low.no_mmap {
            MmapChoice::never()
        } else {
            // SAFETY: trawl accepts that a mapped file may change while it
            // is searched (as it may between reads); trawl-search re-reads
            // what a truncation turned to zeros.
            unsafe { MmapChoice::auto() }
        },
        threads: low.threads.unwrap_or(0),
        cancel,
        max_count: low.max_count,
        binary: binary(low),
        terminator: terminator(low),
    })
}
