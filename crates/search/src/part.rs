//! A part of a file, for searching one file on several threads.

/// A part of a file searched alone by [`Searcher::search_part`](crate::Searcher::search_part): only lines
/// starting in `start..end` (offsets from the reader's start) are selected;
/// the lines before `start` serve as before-context and those after `end` as
/// after-context.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct Part {
    /// Offset of the part's first byte.
    pub start: u64,
    /// Offset just past its last byte.
    pub end: u64,
    /// Whether the file was already found binary before this part (a NUL
    /// earlier in the file): NULs end lines and no line is printed.
    pub binary: bool,
    /// Offset in the file of the reader's first byte.
    pub origin: u64,
}

impl Part {
    /// The whole input.
    pub(crate) const WHOLE: Part = Part { start: 0, end: u64::MAX, binary: false, origin: 0 };
}
