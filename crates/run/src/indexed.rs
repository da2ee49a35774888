//! The hand-off to the walk of a search served by an index (`trawl
//! index`): for a directory operand at or below an indexed root,
//! trawl-index hands the walk the directories to open and the entries to
//! visit (see trawl_index::ContentSearch and Indexes::serve_names); this
//! file says which directories grep's filters let the walk enter, finds
//! find's indexes under trawl's cache directory, and reports an index
//! that cannot be used.

use trawl_index::{ContentSearch, Indexes, Unusable};
use trawl_walk::WalkBuilder;

use crate::config::Config;
use crate::filter::Reached;

/// Where indexes live: under trawl's cache directory (shared with the
/// cache of extracted text; config.rs makes grep's ContentSearch there);
/// None when it has none.
fn indexes() -> Option<Indexes> {
    trawl_extract::cache::default_dir().map(|cache| Indexes::in_cache(&cache))
}

fn report_unusable(e: &Unusable, report: &dyn Fn(&[u8])) {
    let msg = format!("warning: {e}; searched without it (run 'trawl index' again)");
    report(msg.as_bytes());
}

/// Hands `walk` what the index says to visit for the directory operand
/// `path` (printed as `display`); false when no index serves it (the
/// caller walks it). A damaged index is reported and not used.
pub fn add_operand(
    cfg: &Config,
    search: &ContentSearch,
    walk: &mut WalkBuilder,
    path: &[u8],
    display: &[u8],
    report: &dyn Fn(&[u8]),
) -> bool {
    // The directories --exclude-dir lets the walk enter.
    let mut enter = |shown: &[u8], depth: usize| {
        let reached = match (depth == 0, shown.is_empty()) {
            (true, true) => Reached::ImplicitDot,
            (true, false) => Reached::Operand,
            (false, _) => Reached::Recursion,
        };
        cfg.filter.dir_ok(shown, reached)
    };
    let limits = (cfg.max_depth, cfg.threads);
    match search.serve(walk, (path, display), limits, &mut enter) {
        Ok(served) => served,
        Err(e) => {
            report_unusable(&e, report);
            false
        }
    }
}

/// `trawl find`: hands `walk` every entry an index lists below the
/// starting point `path` whose name `named` accepts (see
/// Indexes::serve_names); `threads` check it (0: one per CPU). How many
/// entries it handed over; None when no index serves it.
pub fn add_find_root(
    walk: &mut WalkBuilder,
    path: &[u8],
    (max_depth, threads): (Option<usize>, usize),
    named: &dyn Fn(&[u8]) -> bool,
    report: &dyn Fn(&[u8]),
) -> Option<usize> {
    match indexes()?.serve_names(walk, path, (max_depth, threads), named) {
        Ok(handed) => handed,
        Err(e) => {
            report_unusable(&e, report);
            None
        }
    }
}
