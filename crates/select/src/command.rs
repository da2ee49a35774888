//! A parsed `find` command line, as plain data: what [`crate::parse`]
//! makes of the arguments and nothing else. A [`crate::Run`] is made from
//! it to walk; the command itself is never written after parsing.

use crate::expr::{ExecSpec, Expr};

/// Which symlinks the walk follows.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum Follow {
    /// `-P` (the default): none.
    #[default]
    Never,
    /// `-H`: those named on the command line.
    Roots,
    /// `-L`: all.
    Always,
}

/// What the content tests look inside (global options), each level
/// including the one before.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq, PartialOrd, Ord)]
pub enum Extraction {
    /// The bytes of each file (the default).
    #[default]
    Bytes,
    /// `-search-zip`: the text inside compressed files and archives.
    Archives,
    /// `-docs`: that, and the text of documents (PDF, office, EPUB).
    Documents,
    /// `-ocr`: that, and scanned documents (images, PDF pages without
    /// text) recognised by Tesseract.
    Ocr,
}

/// A parsed `find` command line.
#[derive(Debug)]
pub struct FindCommand {
    /// `-H`, `-L`, `-P`.
    pub follow: Follow,
    /// Starting points (`.` when none is given; none with `-files0-from`).
    pub paths: Vec<Vec<u8>>,
    /// `-files0-from FILE`: the starting points, NUL-separated, in FILE
    /// (`-` for standard input), read when a run starts; the last one
    /// given counts.
    pub files0_from: Option<Vec<u8>>,
    /// The expression, with the implicit `-print` added.
    pub expr: Expr,
    /// `-maxdepth`.
    pub max_depth: Option<usize>,
    /// `-mindepth`.
    pub min_depth: usize,
    /// `-depth` (or implied by `-delete`): directories after their contents.
    pub depth_first: bool,
    /// `-xdev`, `-mount`.
    pub same_file_system: bool,
    /// `-ignore_readdir_race`: entries that vanish are not errors.
    pub ignore_readdir_race: bool,
    /// The commands of `-exec` and `-execdir`.
    pub execs: Vec<ExecSpec>,
    /// `-j N` (trawl): threads, 0 for automatic.
    pub threads: usize,
    /// `--sort` (trawl): depth-first, by name bytes.
    pub sorted: bool,
    /// `--no-index` (trawl): walk even below a root `trawl index` indexed.
    pub no_index: bool,
    /// The time the command started (seconds, nanoseconds), for `-mtime` & co.
    pub now: (i64, i64),
    /// `-search-zip`, `-docs` (trawl): what `-contains`, `-text` and
    /// `-binary` look inside.
    pub extraction: Extraction,
    /// `--max-archive-depth`, `--extract-jobs`, `--extract-timeout`
    /// (trawl, as grep's): how far extraction may go.
    pub limits: trawl_extract::AskedLimits,
    /// What reading the expression asked for beside the tree, in order:
    /// a run does these first.
    pub setup: Vec<Setup>,
}

impl FindCommand {
    /// Whether `-ok` or `-okdir` read their answers from standard input.
    pub fn asks(&self) -> bool {
        self.execs.iter().any(|e| e.ask)
    }
}

/// What GNU find does while it reads the expression beside building it,
/// in the order it reads them: a run starts by doing these (and after a
/// mistake, those read before it are done: [`crate::after_mistake`]).
#[derive(Clone, Debug, Eq, PartialEq)]
pub enum Setup {
    /// Say this warning (an unknown `-printf` directive or escape).
    Warn(String),
    /// Open (create, or truncate) the file of `-fprint`, `-fprint0`,
    /// `-fprintf` or `-fls`; the actions name it by its place among the
    /// command's `Open` steps.
    Open(Vec<u8>),
}
