//! Whether an index can stand in for a search's walk: decided here, once,
//! for grep and for find, from what the search does.

/// Which search asks.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum SearchKind {
    /// grep: files' contents ([`crate::ContentSearch`]); every directory
    /// the index lists is opened.
    Contents,
    /// find: entries' names and what a stat tells
    /// ([`crate::Indexes::serve_names`]); a listed directory is opened only
    /// when an entry needs it.
    Names,
}

/// The order a search visits entries in.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Order {
    /// Any: the parallel walk's.
    Any,
    /// Depth first, each directory's entries by name (grep's `--sort
    /// path`): the sorted walk, which takes the directories an index lists
    /// where they come among their parents' entries.
    ByPath,
    /// Another (`--sort` by time, `--sortr`, find's `-depth`), or find's
    /// `--sort`: not served.
    Other,
}

/// What a search does that decides whether an index can serve it (see
/// [`serves`]).
#[derive(Clone, Copy, Debug)]
pub struct Search {
    /// grep's or find's.
    pub kind: SearchKind,
    /// `--no-index`.
    pub no_index: bool,
    /// The order its entries are visited in.
    pub order: Order,
    /// Symbolic links met below the starting points are followed (`-R`,
    /// find's `-L`): the index keeps links as links.
    pub follows_links: bool,
    /// Entries are chosen by rules the index does not apply: ignore files
    /// (`--gitignore`), globs, file types, hidden files (by the path below
    /// the operand), find's `-prune`.
    pub chooses_entries: bool,
    /// It stays on its starting points' file systems (`-xdev`,
    /// `--one-file-system`).
    pub one_file_system: bool,
    /// Files are read otherwise than as the lines of their bytes the
    /// index's trigrams describe (`--multiline`, a forced `--encoding`).
    pub reads_otherwise: bool,
    /// It lists files and reads none (`--files`).
    pub lists_only: bool,
    /// Directory operands are walked (grep's `-d recurse`, find always).
    pub recurses: bool,
}

/// Whether an index can serve `search`: hand its walk the entries to
/// visit, with the same output as a walk of the tree.
pub fn serves(search: &Search) -> bool {
    // find's listed directories are opened only when an entry needs it, so
    // the walk does not know their devices to stay on one file system.
    let devices_unknown = search.one_file_system && search.kind == SearchKind::Names;
    // find's sorted walk would open every listed directory it passes.
    let unordered = match search.order {
        Order::Any => false,
        Order::ByPath => search.kind == SearchKind::Names,
        Order::Other => true,
    };
    !(search.no_index
        || unordered
        || search.follows_links
        || search.chooses_entries
        || devices_unknown
        || search.reads_otherwise
        || search.lists_only
        || !search.recurses)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(kind: SearchKind) -> Search {
        Search {
            kind,
            no_index: false,
            order: Order::Any,
            follows_links: false,
            chooses_entries: false,
            one_file_system: false,
            reads_otherwise: false,
            lists_only: false,
            recurses: true,
        }
    }

    #[test]
    fn a_plain_search_is_served_and_each_reason_alone_refuses_it() {
        for kind in [SearchKind::Contents, SearchKind::Names] {
            assert!(serves(&plain(kind)), "{kind:?}");
            let refusals: [fn(&mut Search); 7] = [
                |s| s.no_index = true,
                |s| s.order = Order::Other,
                |s| s.follows_links = true,
                |s| s.chooses_entries = true,
                |s| s.reads_otherwise = true,
                |s| s.lists_only = true,
                |s| s.recurses = false,
            ];
            for (i, refuse) in refusals.iter().enumerate() {
                let mut s = plain(kind);
                refuse(&mut s);
                assert!(!serves(&s), "{kind:?}, reason {i}");
            }
        }
    }

    #[test]
    fn a_search_by_path_is_served_for_grep_but_not_for_find() {
        let mut grep = plain(SearchKind::Contents);
        grep.order = Order::ByPath;
        assert!(serves(&grep));
        let mut find = plain(SearchKind::Names);
        find.order = Order::ByPath;
        assert!(!serves(&find));
    }

    #[test]
    fn staying_on_one_file_system_refuses_find_but_not_grep() {
        let mut grep = plain(SearchKind::Contents);
        grep.one_file_system = true;
        assert!(serves(&grep));
        let mut find = plain(SearchKind::Names);
        find.one_file_system = true;
        assert!(!serves(&find));
    }
}
