//! The matcher: one small trait and the engines behind it.
//!
//! trawl searches whole buffers that hold many lines, yet every engine here
//! honours grep's line semantics: a match never spans a newline, `^` and `$`
//! anchor at line boundaries, and look-around cannot see past the line. The
//! searcher can therefore run one engine call over a buffer of thousands of
//! lines and only look for line boundaries around the matches it gets back.
//!
//! Three engines implement [`Matcher`]:
//! - [`RustMatcher`]: the Rust regex engine (`regex-automata`'s meta regex over
//!   bytes), with the pattern's syntax tree rewritten so that no class can
//!   match `\n`. The default.
//! - [`PcreMatcher`]: PCRE2 with JIT, for what the Rust engine lacks
//!   (look-around, backreferences, atomic groups, `\K`, recursion, ...).
//! - [`FixedMatcher`]: fixed strings (`-F`, or a pattern with no special
//!   byte): a vector search for one, a case-blind pair filter, a shift table
//!   (Wu-Manber), windows of four bytes 64 positions at a time (9 to 64
//!   strings, case-sensitive, AVX-512 VBMI), a shift-or filter (more than
//!   64, case-sensitive) or Aho-Corasick for several (other sets of several
//!   go to the Rust engine as an alternation).
//!
//! [`MatcherBuilder`] holds the grep options that shape a pattern (`-F`, `-G`,
//! `-i`, `-S`, `-w`, `-x`, several `-e`) and picks the engine.
//!
//! Pattern text is read by one tokenizer (`tokens`), which the engine
//! choice, PCRE2's buffer mode and `--smart-case` share; [`to_perl`]
//! translates the POSIX and emacs dialects (grep `-G`, find `-regextype`)
//! for either engine. A POSIX pattern that glibc or GNU grep would refuse is
//! named by a [`PosixError`] ([`check_find_regex`] for find's dialects).
//!
//! ```
//! use trawl_matcher::{Matcher, MatcherBuilder};
//! let m = MatcherBuilder::new().build(&["fo+".into()]).unwrap();
//! let hit = m.find_at(b"one\nfoo two\n", 0).unwrap().unwrap();
//! assert_eq!((hit.start, hit.end), (4, 7));
//! ```
#![deny(missing_docs)]

mod any;
mod budget;
mod builder;
mod check;
mod dialect;
mod error;
mod factor;
mod fixed;
mod fold;
mod fold_set;
mod follow;
mod literal;
mod matcher;
mod options;
mod pattern_text;
mod pcre;
mod pcre_info;
mod posix_error;
mod quads;
mod regcomp;
mod rust;
mod shift;
mod shift_or;
pub mod simd;
mod slots;
mod tokens;
mod wide_pairs;
mod windows;

pub use crate::any::AnyMatcher;
pub use crate::builder::MatcherBuilder;
pub use crate::dialect::{to_perl, Dialect, Flavor};
pub use crate::error::{BadPattern, Error, ErrorKind};
pub use crate::fixed::FixedMatcher;
pub use crate::matcher::{LineStream, Match, Matcher};
pub use crate::options::{Engine, LineTerminator, Syntax, Text};
pub use crate::pattern_text::pattern_has_uppercase_letter;
pub use crate::pcre::PcreMatcher;
pub use crate::posix_error::PosixError;
pub use crate::regcomp::check_find_regex;
pub use crate::rust::RustMatcher;

#[cfg(test)]
mod tests;
