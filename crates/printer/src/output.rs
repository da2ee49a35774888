//! Where finished output goes ([`Output`]), what each piece of it is
//! ([`Chunk`]), and what goes between the outputs of files
//! ([`Separators`]): the one place that decides where `--` goes, whether
//! files are written as they end (unsorted), in walk order (sorted), or
//! merged from the shards of a distributed run.

use std::io;

use crate::color;
use crate::config::PrinterConfig;

/// What a piece of output is, for what goes between files.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Chunk {
    /// The start of a file's lines: a group of context. With context lines
    /// on, `--` goes before it when a group was written before (groups of
    /// different files are separated); under `--heading`, an empty line.
    Lines,
    /// More of the piece written before it (a file's output written as it
    /// grows): nothing goes before it.
    Continued,
    /// A file whose lines printed nothing (`-o` finding no match in them):
    /// no bytes, but a group all the same, as in GNU grep: `--` before it
    /// when a group came before, and before the next group.
    EmptyGroup,
    /// A file's whole output when it holds no line, only its `binary file
    /// matches` notice (which GNU grep writes to standard error): no group,
    /// so no `--` before it and none after it on its account. (GNU grep
    /// counts the file as output, so that its standard output starts with
    /// `--` when such a file comes first; trawl does not follow it there,
    /// so that the lines written do not depend on the order files end in.)
    Notice,
    /// Output outside any group: `-c`, `-l`, `-L` and `--files` lines,
    /// JSON messages, find's entries, the `--stats` totals, a color reset.
    Other,
}

impl Chunk {
    /// Every kind, in the order of their tags.
    pub const ALL: [Chunk; 5] =
        [Chunk::Lines, Chunk::Continued, Chunk::EmptyGroup, Chunk::Notice, Chunk::Other];

    /// The kind as one byte, for a carrier that does not know it (a sorted
    /// walk keeps it beside the piece).
    pub fn tag(self) -> u8 {
        match self {
            Chunk::Lines => 0,
            Chunk::Continued => 1,
            Chunk::EmptyGroup => 2,
            Chunk::Notice => 3,
            Chunk::Other => 4,
        }
    }

    /// The kind whose [`Chunk::tag`] is `tag` (a byte no kind gives:
    /// [`Chunk::Other`], output that separates nothing).
    pub fn from_tag(tag: u8) -> Chunk {
        Chunk::ALL.get(tag as usize).copied().unwrap_or(Chunk::Other)
    }

    /// Whether a piece of this kind holding `bytes` is output at all: an
    /// empty piece is none, except an empty group.
    pub fn is_output(self, bytes: &[u8]) -> bool {
        !bytes.is_empty() || self == Chunk::EmptyGroup
    }
}

/// Where printers send finished output (standard output under a lock, a
/// sorted walk's capture, a shard's record stream).
pub trait Output: Sync {
    /// Writes a piece of output (nothing for an empty piece but
    /// [`Chunk::EmptyGroup`]'s separator).
    fn write(&self, bytes: &[u8], chunk: Chunk) -> io::Result<()>;

    /// Writes the pieces of consecutive entries of a sorted walk, in walk
    /// order, after everything written before them. By default, one
    /// [`Output::write`] each.
    fn write_in_order(&self, pieces: &[(Chunk, &[u8])]) -> io::Result<()> {
        pieces.iter().try_for_each(|&(chunk, bytes)| self.write(bytes, chunk))
    }

    /// Writes what [`Output::write_in_order`] gathered.
    fn flush(&self) -> io::Result<()> {
        Ok(())
    }

    /// Keeps other threads from writing until [`Output::let_go`]: a file
    /// whose output is too large to hold is written in pieces that must
    /// stay together.
    fn hold(&self) {}

    /// Ends [`Output::hold`].
    fn let_go(&self) {}

    /// Whether a reader closed the output (a pipe): the run then ends
    /// quietly.
    fn broken_pipe(&self) -> bool {
        false
    }
}

/// What goes between the outputs of files, decided piece by piece in the
/// order they are written: an empty line under `--heading`, the group
/// separator with context lines, else nothing.
#[derive(Clone, Debug, Default)]
pub struct Separators {
    /// The separator, when files are separated.
    text: Option<Vec<u8>>,
    /// A group was written: the next one is separated from it.
    group_written: bool,
}

impl Separators {
    /// The separators of output printed as `config` says.
    pub fn new(config: &PrinterConfig) -> Separators {
        Separators { text: file_separator(config), group_written: false }
    }

    /// No separators (`trawl find`).
    pub fn none() -> Separators {
        Separators::default()
    }

    /// Files separated by `text` (as [`Separators::text`] gave it), or not.
    pub fn with_text(text: Option<Vec<u8>>) -> Separators {
        Separators { text, group_written: false }
    }

    /// The separator, when files are separated.
    pub fn separator(&self) -> Option<&[u8]> {
        self.text.as_deref()
    }

    /// The separator to write before a piece of kind `chunk` (holding
    /// `bytes`), if any; notes the piece. Call it for every piece, in the
    /// order written.
    pub fn before(&mut self, chunk: Chunk, bytes: &[u8]) -> Option<&[u8]> {
        let text = self.text.as_deref()?;
        if !chunk.is_output(bytes) || !matches!(chunk, Chunk::Lines | Chunk::EmptyGroup) {
            return None;
        }
        std::mem::replace(&mut self.group_written, true).then_some(text)
    }

    /// The separator's text (empty when files are not separated).
    pub fn text(&self) -> &[u8] {
        self.text.as_deref().unwrap_or_default()
    }
}

/// What goes between two files' outputs: an empty line under `--heading`,
/// the group separator with context lines, else nothing.
fn file_separator(config: &PrinterConfig) -> Option<Vec<u8>> {
    if config.heading {
        return Some(b"\n".to_vec());
    }
    config.context.then(|| group_separator(config))
}

/// The line between groups of context (`--` unless `--group-separator`
/// says otherwise), colored when coloring; empty with
/// `--no-group-separator`.
fn group_separator(config: &PrinterConfig) -> Vec<u8> {
    let mut out = Vec::new();
    if let Some(text) = &config.group_separator {
        color::separator(&mut out, config.colors.as_ref(), text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context() -> PrinterConfig {
        PrinterConfig { context: true, group_separator: Some(b"--".to_vec()), ..Default::default() }
    }

    /// What a writer puts out for `pieces`, separators included.
    fn written(config: &PrinterConfig, pieces: &[(Chunk, &[u8])]) -> Vec<u8> {
        let mut seps = Separators::new(config);
        let mut out = Vec::new();
        for &(chunk, bytes) in pieces {
            if let Some(sep) = seps.before(chunk, bytes) {
                out.extend_from_slice(sep);
            }
            out.extend_from_slice(bytes);
        }
        out
    }

    #[test]
    fn groups_of_different_files_are_separated_with_context() {
        let pieces: [(Chunk, &[u8]); 3] =
            [(Chunk::Lines, b"a:1\n"), (Chunk::Continued, b"a:2\n"), (Chunk::Lines, b"b:1\n")];
        assert_eq!(written(&context(), &pieces), b"a:1\na:2\n--\nb:1\n");
        assert_eq!(written(&PrinterConfig::default(), &pieces), b"a:1\na:2\nb:1\n");
    }

    #[test]
    fn a_notice_alone_is_no_group() {
        let pieces: [(Chunk, &[u8]); 3] = [
            (Chunk::Notice, b"trawl: x: binary file matches\n"),
            (Chunk::Lines, b"a:1\n"),
            (Chunk::Notice, b"trawl: y: binary file matches\n"),
        ];
        let want = b"trawl: x: binary file matches\na:1\ntrawl: y: binary file matches\n";
        assert_eq!(written(&context(), &pieces), want);
    }

    #[test]
    fn an_empty_group_is_separated_on_both_sides() {
        let pieces: [(Chunk, &[u8]); 3] =
            [(Chunk::Lines, b"a\n"), (Chunk::EmptyGroup, b""), (Chunk::Lines, b"b\n")];
        assert_eq!(written(&context(), &pieces), b"a\n--\n--\nb\n");
    }

    #[test]
    fn empty_pieces_and_other_output_separate_nothing() {
        let pieces: [(Chunk, &[u8]); 4] = [
            (Chunk::Lines, b""),
            (Chunk::Lines, b"a\n"),
            (Chunk::Other, b"3\n"),
            (Chunk::Lines, b"b\n"),
        ];
        assert_eq!(written(&context(), &pieces), b"a\n3\n--\nb\n");
    }

    #[test]
    fn heading_separates_files_by_an_empty_line() {
        let config = PrinterConfig { heading: true, context: true, ..context() };
        let pieces: [(Chunk, &[u8]); 2] = [(Chunk::Lines, b"a\n1\n"), (Chunk::Lines, b"b\n2\n")];
        assert_eq!(written(&config, &pieces), b"a\n1\n\nb\n2\n");
    }

    #[test]
    fn no_group_separator_still_separates_by_nothing() {
        let config = PrinterConfig { group_separator: None, ..context() };
        let pieces: [(Chunk, &[u8]); 2] = [(Chunk::Lines, b"a\n"), (Chunk::Lines, b"b\n")];
        assert_eq!(written(&config, &pieces), b"a\nb\n");
    }

    #[test]
    fn tags_name_each_kind_once() {
        for chunk in Chunk::ALL {
            assert_eq!(Chunk::from_tag(chunk.tag()), chunk);
        }
        assert_eq!(Chunk::from_tag(200), Chunk::Other);
    }
}
