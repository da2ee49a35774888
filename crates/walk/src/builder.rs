//! How a walk is configured: [`WalkBuilder`] holds the roots and options
//! (plain data the walkers read), and answers how many threads a walk
//! takes and whether it is one entry; running it is run.rs's.

use std::ffi::{CString, OsStr};
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::sync::Arc;

use crate::dirent::FileType;
use crate::fds;
use crate::roots::{Listed, ListedDir, Root};
use crate::sys::fstatat;

/// Says, for an entry an ignore file would leave out, whether to walk it
/// anyway (ripgrep's rule: a user's glob that names an entry overrides the
/// ignore files): its path as printed, its depth, whether it is a
/// directory.
#[derive(Clone)]
pub struct KeepIgnored(pub Arc<KeepFn>);

/// The test of [`KeepIgnored`]: path, depth, whether a directory.
pub type KeepFn = dyn Fn(&[u8], usize, bool) -> bool + Send + Sync;

impl fmt::Debug for KeepIgnored {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KeepIgnored(..)")
    }
}

/// Configures a walk: plain data the walkers read (run.rs runs it).
#[derive(Clone, Debug)]
pub struct WalkBuilder {
    /// Entries kept whatever the ignore files say.
    pub(crate) keep_ignored: Option<KeepIgnored>,
    pub(crate) roots: Vec<Root>,
    threads: usize,
    pub(crate) follow_links: bool,
    pub(crate) max_depth: Option<usize>,
    pub(crate) same_file_system: bool,
    pub(crate) sorted: bool,
    pub(crate) reorder_buffer: usize,
    pub(crate) ignore_files: bool,
    pub(crate) follow_roots: bool,
    pub(crate) post_order: bool,
    pub(crate) file_systems: bool,
    /// Starting points are walked one after another (see
    /// [`WalkBuilder::operands_in_order`]).
    pub(crate) in_order: bool,
    /// The number the next starting point gets.
    next_operand: usize,
    /// The starting point listed roots added now belong to.
    listed_operand: usize,
    pub(crate) visit_descriptors: usize,
}

/// Output a sorted walk holds, by default, for entries whose predecessors
/// are not finished (see [`WalkBuilder::reorder_buffer`]).
pub const DEFAULT_REORDER_BUFFER: usize = 32 << 20;

impl Default for WalkBuilder {
    fn default() -> Self {
        WalkBuilder::new()
    }
}

impl WalkBuilder {
    /// A walk with no roots, on as many threads as there are CPUs.
    pub fn new() -> WalkBuilder {
        WalkBuilder {
            keep_ignored: None,
            roots: Vec::new(),
            threads: 0,
            follow_links: false,
            max_depth: None,
            same_file_system: false,
            sorted: false,
            reorder_buffer: DEFAULT_REORDER_BUFFER,
            ignore_files: false,
            follow_roots: true,
            post_order: false,
            file_systems: false,
            in_order: false,
            next_operand: 0,
            listed_operand: 0,
            visit_descriptors: 1,
        }
    }

    /// Walks the starting points one after another, in the order added:
    /// each one's entries (on every thread) after all of the previous
    /// one's, and every thread's visitor told in between
    /// ([`Visitor::operand_finished`](crate::Visitor::operand_finished)), so that what it holds is written
    /// in order (POSIX find).
    pub fn operands_in_order(&mut self, yes: bool) -> &mut Self {
        self.in_order = yes;
        self
    }

    /// Listed roots added from now on ([`WalkBuilder::add_listed`]) belong
    /// to a new starting point (roots added with [`WalkBuilder::add_root`]
    /// are each one of their own).
    pub fn start_operand(&mut self) -> &mut Self {
        self.listed_operand = self.next_operand;
        self.next_operand += 1;
        self
    }

    /// Asks each directory's file system (one `fstatfs` per directory) so
    /// that its entries can tell whether a short read means the end of the
    /// file ([`Entry::short_read_is_end`](crate::Entry::short_read_is_end)).
    pub fn file_systems(&mut self, yes: bool) -> &mut Self {
        self.file_systems = yes;
        self
    }

    /// Whether a root that is a symlink is followed (the default; `find -P`
    /// turns it off).
    pub fn follow_roots(&mut self, yes: bool) -> &mut Self {
        self.follow_roots = yes;
        self
    }

    /// Also call [`Visitor::visit_dir_end`](crate::Visitor::visit_dir_end) for every directory once all its
    /// contents were visited (`find -depth`).
    pub fn post_order(&mut self, yes: bool) -> &mut Self {
        self.post_order = yes;
        self
    }

    /// Adds a path to walk, printed as given.
    pub fn add_root(&mut self, path: impl AsRef<OsStr>) -> &mut Self {
        let bytes = path.as_ref().as_bytes();
        self.add_root_displayed(bytes, bytes)
    }

    /// Adds a path to walk whose entries are printed under `display` (an
    /// empty `display` prints bare names, as grep does for an implicit `.`).
    pub fn add_root_displayed(&mut self, path: &[u8], display: &[u8]) -> &mut Self {
        let open = CString::new(path.to_vec()).unwrap_or_else(|_| c".".to_owned());
        let operand = self.next_operand;
        self.next_operand += 1;
        self.roots.push(Root { open, display: display.to_vec(), listed: None, operand });
        self
    }

    /// Adds a directory whose entries the caller already knows (from an
    /// index): it is not read; only its listed children are visited, each
    /// as an entry met during recursion at `depth + 1` and printed under
    /// `display` (directories among them are walked as usual unless
    /// [`Descent::Listed`](crate::Descent::Listed)). With [`Itself::Visited`](crate::Itself::Visited) it is visited first,
    /// as a root. A sorted walk takes a listed directory that is the
    /// [`Descent::Listed`](crate::Descent::Listed) entry of another listed
    /// directory (its display that entry's path) where that entry comes,
    /// after visiting it, and the others as roots, in the order added. Not
    /// for a post-order walk, which ignores it.
    pub fn add_listed(&mut self, dir: ListedDir<'_>) -> &mut Self {
        let Ok(open) = CString::new(dir.path.to_vec()) else { return self };
        let listed = Some(Box::new(Listed {
            depth: dir.depth,
            children: dir.children,
            opening: dir.opening,
            itself: dir.itself,
        }));
        let operand = self.listed_operand;
        self.roots.push(Root { open, display: dir.display.to_vec(), listed, operand });
        self
    }

    /// Threads to use; 0 chooses from the number of CPUs.
    pub fn threads(&mut self, n: usize) -> &mut Self {
        self.threads = n;
        self
    }

    /// Follow symlinks met during recursion (`-R`), reporting loops.
    pub fn follow_links(&mut self, yes: bool) -> &mut Self {
        self.follow_links = yes;
        self
    }

    /// Visit nothing deeper than `depth` (0: the roots only).
    pub fn max_depth(&mut self, depth: Option<usize>) -> &mut Self {
        self.max_depth = depth;
        self
    }

    /// Do not descend into directories on other file systems.
    pub fn same_file_system(&mut self, yes: bool) -> &mut Self {
        self.same_file_system = yes;
        self
    }

    /// Walk in depth-first order, each directory's entries sorted by name
    /// bytes (with post-order visits after a directory's entries). On one
    /// thread the visits happen in that order; on more, they happen in
    /// parallel, out of order, and only the output visitors hand over
    /// ([`Visitor::take_output`](crate::Visitor::take_output)) comes out in that order.
    pub fn sorted(&mut self, yes: bool) -> &mut Self {
        self.sorted = yes;
        self
    }

    /// Whether the walk is sorted ([`WalkBuilder::sorted`]).
    pub fn is_sorted(&self) -> bool {
        self.sorted
    }

    /// In a sorted walk: how much output of finished entries may wait for
    /// earlier ones. Past half of it, threads take the earliest entries;
    /// past all of it, only the next entry to write (the others wait).
    /// Memory then stays under about `bytes` plus the output of the
    /// entries being visited.
    pub fn reorder_buffer(&mut self, bytes: usize) -> &mut Self {
        self.reorder_buffer = bytes;
        self
    }

    /// With ignore files honoured: the entries walked whatever they say.
    pub fn keep_ignored(&mut self, keep: Option<KeepIgnored>) -> &mut Self {
        self.keep_ignored = keep;
        self
    }

    /// Honour `.gitignore` and `.ignore` files, and skip `.git` directories.
    pub fn ignore_files(&mut self, yes: bool) -> &mut Self {
        self.ignore_files = yes;
        self
    }

    /// How many descriptors one visit may hold at once (a file open for
    /// reading, a child's pipes; 1 by default): the walk starts no more
    /// threads than the open-file limit leaves room for.
    pub fn visit_descriptors(&mut self, n: usize) -> &mut Self {
        self.visit_descriptors = n;
        self
    }

    /// The number of threads a walk will use.
    pub fn thread_count(&self) -> usize {
        let wanted = if self.threads > 0 { self.threads } else { trawl_diag::cpus() };
        wanted.min(fds::threads_within_limit(self.visit_descriptors))
    }

    /// Whether the walk is one entry: a single root that is not a
    /// directory to read (or nothing below the roots is visited). Such a
    /// walk runs on the calling thread, with no thread started.
    pub fn is_one_entry(&self) -> bool {
        if self.max_depth == Some(0) && self.roots.iter().all(|r| r.listed.is_none()) {
            return self.roots.len() <= 1;
        }
        let [root] = &self.roots[..] else { return self.roots.is_empty() };
        // A root that cannot be read is one entry too: its error.
        root.listed.is_none()
            && fstatat(libc::AT_FDCWD, &root.open, self.follow_roots)
                .map_or(true, |st| !FileType::from_mode(st.st_mode).is_dir())
    }
}
