//! The index's question for a search: from the patterns, as the matcher
//! reads them, to the trigrams every matching line holds (or every file,
//! when a pattern gives no grams, or with `-v`). Searches do not ask it
//! yet; the test below holds it to the matcher's answers.

use trawl_index::Query;
use trawl_matcher::MatcherBuilder;

/// The query whose candidates hold every file a search with `builder` and
/// `patterns` selects a line in.
pub fn query(builder: &MatcherBuilder, patterns: &[Vec<u8>], invert: bool) -> Query {
    if invert {
        return Query::All;
    }
    match builder.syntax_trees(patterns) {
        Some(trees) => trees.iter().fold(Query::Nothing, |q, hir| q.or(trawl_index::plan(hir))),
        None => Query::All,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use trawl_index::build::{build, Progress};
    use trawl_index::segment::{self, EntryType, Segment};
    use trawl_matcher::{Matcher, Syntax};

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
            let admitted = trawl_index::query::candidates(&q, &seg).unwrap();
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
