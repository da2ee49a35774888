//! A planned [`Query`] answered from an index: the files that may match.

use roaring::RoaringBitmap;

use crate::grams::gram_id;
use crate::plan::Query;
use crate::segment::{Refused, Segment, FILTERED, STREAM};

/// The members of an archive indexed member by member
/// ([`crate::segment::Extracted::Streams`]) that a search reads: the others
/// cannot match.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct Members {
    /// How many members with text it has.
    pub count: u32,
    /// The places of those that may match, growing (0 for the first member
    /// a search visits).
    pub wanted: Vec<u32>,
}

/// What a query admits in an index: the numbers its postings give, and
/// the texts (that look random) whose filters admit it.
pub struct Candidates<'q, 's> {
    /// The posted numbers that may match (None: every number).
    posted: Option<RoaringBitmap>,
    query: &'q Query,
    segment: &'s Segment,
}

impl<'q, 's> Candidates<'q, 's> {
    /// The candidates of `query` in `segment`.
    pub fn new(query: &'q Query, segment: &'s Segment) -> Result<Self, Refused> {
        Ok(Candidates { posted: candidates(query, segment)?, query, segment })
    }

    /// Whether the text posted under `number` may match.
    pub fn posted(&self, number: u32) -> bool {
        self.posted.as_ref().is_none_or(|c| c.contains(number))
    }

    /// Whether the text filtered under `number` (see [`crate::filter`])
    /// may match; one without a filter, or whose filter is damaged, may.
    pub fn filtered(&self, number: u32) -> bool {
        match self.segment.filter(number) {
            Ok(Some(f)) => f.admits(self.query).unwrap_or(true),
            Ok(None) | Err(_) => true,
        }
    }

    /// For the archive numbered `number` (with
    /// [`crate::segment::EXTRACTED`]) whose members are indexed one by
    /// one: how many members it has and which may match (their places, in
    /// the order a search visits them); None when its list cannot be read
    /// (every member may match).
    pub fn members(&self, number: u32) -> Option<Members> {
        let list = self.segment.streams(number).ok().flatten()?;
        let may = |n: u32| match n & FILTERED {
            0 => self.posted(STREAM | n),
            _ => self.filtered(STREAM | (n & !FILTERED)),
        };
        let wanted = (0u32..).zip(&list).filter(|&(_, &n)| may(n)).map(|(k, _)| k).collect();
        Some(Members { count: list.len() as u32, wanted })
    }
}

/// The entries that may match `query`; None when every file may.
pub fn candidates(query: &Query, segment: &Segment) -> Result<Option<RoaringBitmap>, Refused> {
    Ok(match query {
        Query::All => None,
        Query::Nothing => Some(RoaringBitmap::new()),
        Query::Gram(g) => Some(segment.postings(gram_id(*g))?.unwrap_or_default()),
        Query::And(parts) => {
            // The rarest grams first: the intersection shrinks soonest, and
            // stops at the first empty one.
            let mut order: Vec<&Query> = parts.iter().collect();
            order.sort_by_key(|q| match q {
                Query::Gram(g) => segment.postings_size(gram_id(*g)),
                _ => u64::MAX,
            });
            let mut acc: Option<RoaringBitmap> = None;
            for q in order {
                if let Some(b) = candidates(q, segment)? {
                    acc = Some(match acc {
                        Some(a) => a & b,
                        None => b,
                    });
                    if acc.as_ref().is_some_and(RoaringBitmap::is_empty) {
                        break;
                    }
                }
            }
            acc
        }
        Query::Or(parts) => {
            let mut acc = RoaringBitmap::new();
            for q in parts {
                match candidates(q, segment)? {
                    Some(b) => acc |= b,
                    None => return Ok(None),
                }
            }
            Some(acc)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::{build, Progress};
    use crate::plan::{question, Selects};
    use crate::segment::{self, EntryType, Segment};
    use std::fs;
    use trawl_matcher::{Matcher, MatcherBuilder, Syntax};

    /// The question of a search with `builder` and `patterns`, as the
    /// binary asks it.
    fn query(builder: &MatcherBuilder, patterns: &[Vec<u8>], invert: bool) -> Query {
        let selects = if invert { Selects::NotMatching } else { Selects::Matching };
        question(builder.syntax_trees(patterns).as_deref(), selects)
    }

    /// Files with words, identifiers, mixed case, mail addresses, a binary.
    fn tree() -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        let words = [
            "static",
            "int",
            "PM_RESUME",
            "pm_suspend",
            "linus",
            "Linus",
            "TORVALDS",
            "foo_bar",
            "ewd@cs.example.org",
            "x+y=z",
            "naïve",
            "(void)",
            "return",
            "abc",
            "abd",
            "xyz7",
        ];
        for i in 0..120usize {
            let mut text = String::new();
            for l in 0..(i % 9 + 1) {
                let w: Vec<&str> =
                    (0..5).map(|k| words[(i * 7 + l * 3 + k * k) % words.len()]).collect();
                text.push_str(&w.join(" "));
                text.push('\n');
            }
            let path = root.path().join(format!("d{}/f{i}.c", i % 4));
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        fs::write(root.path().join("bin.o"), b"\x00\x7fELF PM_RESUME\x00static\n").unwrap();
        root
    }

    #[test]
    fn the_candidates_hold_every_file_the_matcher_selects_a_line_in() {
        let root = tree();
        let spill = tempfile::tempdir().unwrap();
        let built = build(root.path(), spill.path(), 2, &Progress::default(), None).unwrap();
        let mut file = tempfile::tempfile().unwrap();
        let dirs = built.segment.dirs.clone();
        segment::write(&mut file, b"root", b"", built.segment).unwrap();
        let seg = Segment::open(&file).unwrap();
        let mut files = Vec::new();
        for d in &dirs {
            for e in d.entries.iter() {
                let path = root
                    .path()
                    .join(std::str::from_utf8(&d.path).unwrap())
                    .join(std::str::from_utf8(&e.name).unwrap());
                files.push((e.kind == EntryType::File).then(|| fs::read(path).unwrap()));
            }
        }
        let cases: &[(Syntax, bool, bool, &[&str])] = &[
            (Syntax::Perl, false, false, &["PM_RESUME"]),
            (Syntax::Perl, true, false, &["pm_resume"]),
            (Syntax::Perl, false, false, &["linus"]),
            (Syntax::Perl, true, false, &["LINUS"]),
            (Syntax::Perl, false, false, &["PM_(RESUME|SUSPEND)"]),
            (Syntax::Perl, true, false, &["pm_(resume|suspend)"]),
            (Syntax::Perl, false, false, &["static int"]),
            (Syntax::Perl, false, false, &["^static"]),
            (Syntax::Perl, false, false, &["return$"]),
            (Syntax::Perl, false, false, &[r"\bfoo_bar\b"]),
            (Syntax::Perl, false, false, &[r"[A-Za-z0-9._-]+@[A-Za-z0-9.-]+\.(org|com|net|de)"]),
            (Syntax::Perl, false, false, &["ab[cd]"]),
            (Syntax::Perl, false, false, &["xyz[0-9]"]),
            (Syntax::Perl, false, false, &[r"x\+y"]),
            (Syntax::Perl, false, false, &[r"\(void\)"]),
            (Syntax::Perl, false, false, &["na.ve"]),
            (Syntax::Perl, false, false, &["naïve"]),
            (Syntax::Perl, true, false, &["NAÏVE"]),
            (Syntax::Perl, false, false, &["s.a.i.c"]),
            (Syntax::Perl, false, false, &["(?=static)stat"]),
            (Syntax::Perl, false, false, &[r"(\w+) \1"]),
            (Syntax::Perl, false, false, &["foobardoesnotexist"]),
            (Syntax::Perl, false, false, &["ELF"]),
            (Syntax::Perl, false, false, &["int", "TORVALDS"]),
            (Syntax::Perl, false, false, &["."]),
            (Syntax::Perl, false, false, &[r"\w+"]),
            (Syntax::Perl, false, true, &["static"]),
            (Syntax::Fixed, false, false, &["x+y=z"]),
            (Syntax::Fixed, true, false, &["Pm_Resume", "(VOID)"]),
            (Syntax::Fixed, false, false, &["ab"]),
            (Syntax::Basic, false, false, &[r"PM_\(RESUME\|SUSPEND\)"]),
            (Syntax::Basic, false, false, &["foo_bar*"]),
            (Syntax::Basic, false, false, &[r"\<linus\>"]),
            (Syntax::Basic, true, false, &["torvalds"]),
            (Syntax::Perl, false, false, &["abc|xyz7"]),
            (Syntax::Perl, false, false, &["(abc)+d"]),
            (Syntax::Perl, false, false, &["ret(urn)?"]),
            (Syntax::Perl, false, false, &["[[:upper:]]{3}_"]),
            (Syntax::Perl, true, false, &["[p]m_re"]),
            (Syntax::Perl, false, false, &["static.*return"]),
        ];
        assert!(cases.len() >= 40);
        let total = files.iter().filter(|f| f.is_some()).count() as u64;
        let mut narrowed = 0;
        for &(syntax, ignore_case, invert, patterns) in cases {
            let patterns: Vec<Vec<u8>> = patterns.iter().map(|p| p.as_bytes().to_vec()).collect();
            let mut builder = MatcherBuilder::new();
            builder.syntax(syntax).ignore_case(ignore_case);
            let matcher = builder.build(&patterns).unwrap();
            let q = query(&builder, &patterns, invert);
            let admitted = candidates(&q, &seg).unwrap();
            if admitted.as_ref().is_some_and(|a| a.len() < total) {
                narrowed += 1;
            }
            let mut selected = 0;
            for (id, text) in files.iter().enumerate() {
                let Some(text) = text else { continue };
                let selects = text
                    .split(|&b| b == b'\n')
                    .any(|line| matcher.find_at(line, 0).unwrap().is_some() != invert);
                if selects {
                    selected += 1;
                    let ok = admitted.as_ref().is_none_or(|a| a.contains(id as u32));
                    assert!(ok, "{patterns:?} ({syntax:?}, -i {ignore_case}): file {id} selected but not a candidate; {q:?}");
                }
            }
            // The index narrows where it can: a literal that no file holds
            // leaves no candidate at all.
            if patterns == [b"foobardoesnotexist".to_vec()] {
                assert_eq!(selected, 0);
                assert!(admitted.is_some_and(|a| a.is_empty()));
            }
        }
        // Most of these patterns let the index skip files.
        assert!(narrowed >= 25, "only {narrowed} patterns narrowed the candidates");
    }
}
