//! The literals one of which every match holds, for a regex the engine
//! cannot skip ahead in by itself (`\w+_RESUME`, a case-blind literal, a
//! few prefix literals with rare byte pairs): candidates are found by them
//! and the regex runs only on each candidate's line.

use aho_corasick::{AhoCorasick, MatchKind};
use regex_syntax::hir::literal::{ExtractKind, Extractor, Seq};
use regex_syntax::hir::{self, Class, Hir, HirKind};

use crate::fold::{FoldByte, FoldFinder};
use crate::literal::LiteralFinder;
use crate::windows::WindowSet;

/// A required inner literal: candidates are found with it, and the regex
/// then runs only on each candidate's line.
#[derive(Debug)]
pub(crate) enum InnerLiterals {
    One(Box<LiteralFinder>),
    Many(AhoCorasick),
    /// The regex's own prefix literals, when there are a few and each holds
    /// a pair of rare bytes or all start with the same three: found by those
    /// pairs or that prefix (see [`WindowSet`]).
    Windows(WindowSet),
    /// A run of bytes some of which match either case (`-i`); `whole` when
    /// the run is the entire pattern, so a candidate is a match.
    Folded {
        finder: FoldFinder,
        whole: bool,
    },
}

impl InnerLiterals {
    /// Picks the best required literal set of a regex that lacks a prefix
    /// one, or a few prefix literals the engine would find more slowly.
    pub(super) fn find(hir: &Hir) -> Option<InnerLiterals> {
        let prefix_of = |h: &Hir| -> Seq {
            let mut e = Extractor::new();
            e.kind(ExtractKind::Prefix).limit_total(64);
            e.extract(h)
        };
        let prefix_seq = prefix_of(hir);
        let prefixes = good(&prefix_seq);
        let parts: Vec<&Hir> = match hir.kind() {
            HirKind::Concat(subs) => {
                subs.iter().filter(|h| !matches!(h.kind(), HirKind::Look(_))).collect()
            }
            _ => Vec::new(),
        };
        // A regex with a usable prefix is fast in the engine already: its
        // first part's, or the whole pattern's (`[Pp][Mm]_(?:[Rr]…|[Ss]…)`,
        // a folded alternation factored by its common prefix, has one),
        // unless its prefixes are a few literals with rare byte pairs or a
        // three-byte prefix in common, and the engine would not search for
        // one long prefix they share.
        if prefixes.is_some() || parts.first().is_none_or(|h| good(&prefix_of(h)).is_some()) {
            if shares_a_long_prefix(prefix_seq) {
                return None;
            }
            return prefixes.and_then(|lits| WindowSet::new(&lits)).map(InnerLiterals::Windows);
        }
        // What every match of the pattern's tail from part i on starts with
        // (in `\w+@\w+\.(org|com)`, the tail from `\.` gives `.org` and
        // `.com`, where no single part gives three bytes).
        let best = (1..parts.len())
            .filter_map(|i| {
                let tail = Hir::concat(parts[i..].iter().map(|h| (*h).clone()).collect());
                good(&prefix_of(&tail))
            })
            .max_by_key(|lits| {
                (lits.iter().map(Vec::len).min().unwrap_or(0), usize::MAX - lits.len())
            })?;
        Some(if best.len() == 1 {
            InnerLiterals::One(Box::new(LiteralFinder::new(&best[0])))
        } else {
            // Leftmost semantics: the packed (Teddy) search serves them;
            // the standard kind runs the automaton over every byte.
            InnerLiterals::Many(
                AhoCorasick::builder().match_kind(MatchKind::LeftmostFirst).build(&best).ok()?,
            )
        })
    }

    /// The longest run of bytes (some matching either case) that every
    /// match contains, when it has a byte that folds: the engine's literal
    /// prefilters cannot use it (a case-blind literal of n letters has 2^n
    /// spellings).
    pub(super) fn folded(hir: &Hir) -> Option<InnerLiterals> {
        let parts: &[Hir] = match hir.kind() {
            HirKind::Concat(subs) => subs,
            _ => std::slice::from_ref(hir),
        };
        let mut best: Vec<FoldByte> = Vec::new();
        let mut run = Vec::new();
        let mut whole = true;
        for part in parts {
            if !push_folded(part, &mut run) {
                whole = false;
                if run.len() > best.len() {
                    best = std::mem::take(&mut run);
                }
                run.clear();
            }
        }
        if run.len() > best.len() {
            best = run;
        }
        if best.iter().all(|f| f.mask == 0) {
            return None;
        }
        Some(InnerLiterals::Folded { finder: FoldFinder::new(best)?, whole })
    }

    /// Where the next candidate at or after `at` is.
    pub(super) fn find_in(&self, hay: &[u8], at: usize) -> Option<usize> {
        match self {
            InnerLiterals::One(f) => f.find(&hay[at..]).map(|i| at + i),
            InnerLiterals::Many(ac) => {
                ac.find(aho_corasick::Input::new(hay).span(at..hay.len())).map(|m| m.start())
            }
            InnerLiterals::Folded { finder, .. } => finder.find(&hay[at..]).map(|i| at + i),
            InnerLiterals::Windows(set) => set.find(hay, at),
        }
    }
}

/// Appends to `run` the bytes `hir` always matches, one after the other,
/// when it is a literal, a class of one byte or of the two cases of a
/// letter, or a capture or concatenation of those. False when it is anything
/// else: `run` then ends with the bytes matched before the piece that is not.
fn push_folded(hir: &Hir, run: &mut Vec<FoldByte>) -> bool {
    match hir.kind() {
        HirKind::Literal(hir::Literal(bytes)) => {
            run.extend(bytes.iter().map(|&b| FoldByte::exact(b)));
            true
        }
        HirKind::Class(Class::Bytes(c)) => {
            match c.ranges() {
                [one] if one.start() == one.end() => run.push(FoldByte::exact(one.start())),
                [upper, lower]
                    if upper.start() == upper.end()
                        && lower.start() == lower.end()
                        && upper.start().is_ascii_uppercase()
                        && lower.start() == upper.start().to_ascii_lowercase() =>
                {
                    run.push(FoldByte::either_case(lower.start()))
                }
                _ => return false,
            }
            true
        }
        HirKind::Capture(cap) => push_folded(&cap.sub, run),
        HirKind::Concat(subs) => subs.iter().all(|h| push_folded(h, run)),
        _ => false,
    }
}

/// Whether the engine, optimizing these prefix literals as it does, searches
/// for one prefix of at least four bytes they share (`MODULE_` for
/// `MODULE_LICENSE|MODULE_AUTHOR`): one memmem over a rare string is faster
/// than Teddy over pairs. Shorter shared prefixes (`E` for
/// `EINVAL|ENOMEM|EBUSY`) are what makes the engine slow.
fn shares_a_long_prefix(mut seq: Seq) -> bool {
    seq.optimize_for_prefix_by_preference();
    seq.literals().is_some_and(|lits| lits.len() == 1 && lits[0].len() >= 4)
}

/// The literals of a finite sequence long enough to be worth searching for.
fn good(seq: &Seq) -> Option<Vec<Vec<u8>>> {
    let lits = seq.literals()?;
    if lits.is_empty() || lits.len() > 64 || lits.iter().any(|l| l.len() < 3) {
        return None;
    }
    Some(lits.iter().map(|l| l.as_bytes().to_vec()).collect())
}
