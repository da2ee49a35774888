//! The patterns of a grep run: gathered from `-e`, `-f` and the first
//! operand in command-line order, each line remembering where it came from,
//! so that an error can name it as GNU grep does (`FILE:LINE: reason`).

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;

use trawl_matcher::BadPattern;

use crate::flags::low::PatternArg;

/// Where error messages go, which decides how much they show.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Errors {
    /// A terminal: a person reads them.
    Terminal,
    /// A pipe or a file: a script or a test suite reads them.
    Plain,
}

/// Where one pattern line came from.
enum Origin {
    /// `-e PATTERN` or the first operand.
    CommandLine,
    /// Line `line` (from 1) of a `-f` file.
    File { name: OsString, line: usize },
}

/// The pattern lines of a run, in command-line order.
pub struct Patterns {
    /// One entry per line (a `-e` value holding newlines gives several).
    pub lines: Vec<Vec<u8>>,
    origins: Vec<Origin>,
}

impl Patterns {
    /// The patterns of `-e` and `-f` in the order given (`-f` files read);
    /// None when neither was given (the first operand is then the
    /// pattern).
    pub fn from_args(given: &[PatternArg]) -> Result<Option<Patterns>, String> {
        if given.is_empty() {
            return Ok(None);
        }
        let mut patterns = Patterns { lines: Vec::new(), origins: Vec::new() };
        for arg in given {
            match arg {
                PatternArg::File(name) => {
                    for (n, line) in read_pattern_file(name)?.into_iter().enumerate() {
                        patterns.lines.push(line);
                        patterns.origins.push(Origin::File { name: name.clone(), line: n + 1 });
                    }
                }
                PatternArg::Given(value) => patterns.push_command_line(value.as_bytes()),
            }
        }
        Ok(Some(patterns))
    }

    /// The first operand as the one pattern.
    pub fn operand(pattern: &[u8]) -> Patterns {
        let mut patterns = Patterns { lines: Vec::new(), origins: Vec::new() };
        patterns.push_command_line(pattern);
        patterns
    }

    fn push_command_line(&mut self, pattern: &[u8]) {
        for line in pattern.split(|&b| b == b'\n') {
            self.lines.push(line.to_vec());
            self.origins.push(Origin::CommandLine);
        }
    }

    /// The message for patterns that do not compile: a line per pattern,
    /// `FILE:LINE: reason` for a pattern from a file, as GNU grep words it
    /// (which drops a pattern given twice before compiling: it is named
    /// once, at its first place). For a terminal (`Errors::Terminal`), where
    /// the engine stopped in the pattern, when that is known: then the
    /// pattern follows, with a caret under that place (as rg shows it);
    /// scripts and test suites that read the message through a pipe get
    /// grep's one line. The caller prefixes the first line with `trawl: `.
    pub fn describe(&self, bad: &[BadPattern], errors: Errors) -> String {
        let mut out = String::new();
        let given_before = |i: usize| self.lines[..i].contains(&self.lines[i]);
        let bad = bad.iter().filter(|b| b.index >= self.lines.len() || !given_before(b.index));
        for (k, b) in bad.enumerate() {
            if k > 0 {
                out.push_str("\ntrawl: ");
            }
            if let Some(Origin::File { name, line }) = self.origins.get(b.index) {
                out.push_str(&format!("{}:{line}: ", name.to_string_lossy()));
            }
            out.push_str(&b.reason);
            if errors == Errors::Plain {
                continue;
            }
            if let (Some(at), Some(pattern)) = (b.offset, self.lines.get(b.index)) {
                let mut shown = Vec::new();
                trawl_diag::escape_controls(&mut shown, pattern);
                let shown = String::from_utf8_lossy(&shown);
                out.push_str(&format!(" (at offset {at} in '{shown}')"));
                // The caret goes under the character at the offset (past
                // the end for a pattern that ends too early).
                let mut before = Vec::new();
                trawl_diag::escape_controls(&mut before, &pattern[..at.min(pattern.len())]);
                let column = String::from_utf8_lossy(&before).chars().count();
                out.push_str(&format!("\n    {shown}\n    {}^", " ".repeat(column)));
            }
        }
        out
    }
}

/// The lines of a pattern file (`-` is standard input). A file holding one
/// empty line holds the empty pattern; an empty file holds none.
fn read_pattern_file(f: &OsString) -> Result<Vec<Vec<u8>>, String> {
    let mut text = Vec::new();
    let result = if f == "-" {
        std::io::stdin().read_to_end(&mut text)
    } else {
        std::fs::File::open(f).and_then(|mut h| h.read_to_end(&mut text))
    };
    result.map_err(|e| format!("{}: {}", f.to_string_lossy(), trawl_diag::io_message(&e)))?;
    if text.ends_with(b"\n") {
        text.pop();
        if text.is_empty() {
            return Ok(vec![Vec::new()]);
        }
    } else if text.is_empty() {
        return Ok(Vec::new());
    }
    Ok(text.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect())
}
