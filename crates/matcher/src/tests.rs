//! The matcher's unit tests: each engine's line semantics, the automatic
//! choice, and property tests against a line-by-line reference.

use super::*;

fn find_all(m: &AnyMatcher, hay: &[u8]) -> Vec<(usize, usize)> {
    let mut out = vec![];
    let mut at = 0;
    while at <= hay.len() {
        match m.find_at(hay, at).unwrap() {
            None => break,
            Some(x) => {
                out.push((x.start, x.end));
                at = if x.end > x.start { x.end } else { x.end + 1 };
            }
        }
    }
    out
}

fn both(pat: &str) -> (AnyMatcher, AnyMatcher) {
    let p = vec![pat.as_bytes().to_vec()];
    let a = MatcherBuilder::new().build(&p).unwrap();
    let b = MatcherBuilder::new().engine(Engine::Pcre2).build(&p).unwrap();
    (a, b)
}

#[test]
fn whitespace_class_never_crosses_a_newline() {
    let (a, b) = both(r"a\s+b");
    for m in [&a, &b] {
        assert_eq!(find_all(m, b"a\nb\na  b\n"), vec![(4, 8)]);
    }
}

#[test]
fn negated_class_never_crosses_a_newline() {
    let (a, b) = both(r"x[^y]*z");
    for m in [&a, &b] {
        assert_eq!(find_all(m, b"x\nz\nxaz\n"), vec![(4, 7)]);
    }
}

#[test]
fn anchors_are_line_anchors() {
    let (a, b) = both(r"^b$");
    for m in [&a, &b] {
        assert_eq!(find_all(m, b"a\nb\nbb\nb"), vec![(2, 3), (7, 8)]);
    }
    let (a, b) = both(r"\Ab");
    for m in [&a, &b] {
        assert_eq!(find_all(m, b"a\nb\nab\n"), vec![(2, 3)]);
    }
}

#[test]
fn lookbehind_does_not_see_the_previous_line() {
    let p = vec![br"(?<!a)^b".to_vec()];
    let m = MatcherBuilder::new().build(&p).unwrap();
    assert_eq!(find_all(&m, b"a\nb\n"), vec![(2, 3)]);
    let p = vec![br"(?<=\n)b".to_vec()];
    let m = MatcherBuilder::new().build(&p).unwrap();
    assert_eq!(find_all(&m, b"a\nb\n"), vec![]);
}

#[test]
fn possessive_quantifier_stays_in_the_line() {
    let p = vec![br"o\s*+$".to_vec()];
    let m = MatcherBuilder::new().build(&p).unwrap();
    assert_eq!(find_all(&m, b"foo \n  x\n"), vec![(2, 4)]);
}

#[test]
fn backreference_needs_pcre() {
    let p = vec![br"(\w+) \1".to_vec()];
    let m = MatcherBuilder::new().build(&p).unwrap();
    assert_eq!(m.engine_name(), "pcre2");
    assert_eq!(find_all(&m, b"ab\nab ab\n"), vec![(3, 8)]);
}

/// `a{8000}` took the Rust engine 18 s per 8 KiB file in a debug
/// build (0.6 s optimized) and made the suite fail on a busy machine;
/// large counted repetitions go to PCRE2, small ones stay.
#[test]
fn large_counted_repetitions_go_to_pcre() {
    let line = [b"0".as_slice(), &[b'a'; 8191], b"\n"].concat();
    for (pat, engine, hits) in [
        ("a{8000}", "pcre2", vec![(1, 8001)]),
        ("(?:ab|a){3000}", "pcre2", vec![(1, 3001), (3001, 6001)]),
        ("[a-z]{2,4000}", "pcre2", vec![(1, 4001), (4001, 8001), (8001, 8192)]),
        ("a{400}", "rust-regex", (0..20).map(|i| (1 + 400 * i, 401 + 400 * i)).collect()),
    ] {
        let m = MatcherBuilder::new().build(&[pat.as_bytes().to_vec()]).unwrap();
        assert_eq!(m.engine_name(), engine, "{pat}");
        assert_eq!(find_all(&m, &line), hits, "{pat}");
    }
}

#[test]
fn word_option_uses_half_boundaries_like_grep_p() {
    // grep -P -w wraps as (?<!\w)(?:P)(?!\w): "-foo" in "a-foo" is not a word match.
    for engine in [Engine::Auto, Engine::Pcre2] {
        let m = MatcherBuilder::new()
            .engine(engine)
            .word(true)
            .build(&[b"-foo".to_vec(), b"bar".to_vec()])
            .unwrap();
        assert_eq!(find_all(&m, b"a-foo\n -foo\nbars bar\n"), vec![(7, 11), (17, 20)]);
    }
}

#[test]
fn line_option_and_alternation() {
    for engine in [Engine::Auto, Engine::Pcre2] {
        let m = MatcherBuilder::new().engine(engine).line(true).build(&[b"a|ab".to_vec()]).unwrap();
        assert_eq!(find_all(&m, b"ab\nabc\na\n"), vec![(0, 2), (7, 8)]);
    }
}

#[test]
fn smart_case_ignores_escapes() {
    let m = MatcherBuilder::new().smart_case(true).build(&[br"\Sfoo".to_vec()]).unwrap();
    assert_eq!(find_all(&m, b"xFOO\n"), vec![(0, 4)]);
    let m = MatcherBuilder::new().smart_case(true).build(&[br"Foo".to_vec()]).unwrap();
    assert_eq!(find_all(&m, b"foo\n"), vec![]);
}

#[test]
fn fixed_strings_prefer_the_longest_at_a_position() {
    let pats = vec![b"ab".to_vec(), b"abc".to_vec(), b".".to_vec()];
    let m = MatcherBuilder::new().syntax(Syntax::Fixed).build(&pats).unwrap();
    assert_eq!(find_all(&m, b"abcd.\n"), vec![(0, 3), (4, 5)]);
    let m = MatcherBuilder::new().syntax(Syntax::Fixed).word(true).build(&pats).unwrap();
    assert_eq!(find_all(&m, b"abc\nabcd\n"), vec![(0, 3)]);
}

#[test]
fn newline_in_a_pattern_separates_patterns() {
    let m = MatcherBuilder::new().build(&[b"foo\nbar".to_vec()]).unwrap();
    assert_eq!(find_all(&m, b"bar\nfoo\n"), vec![(0, 3), (4, 7)]);
}

#[test]
fn class_set_operations_keep_pcre_meaning() {
    // In PCRE "[a&&b]" is a class of 'a', '&', 'b'; Rust reads it as an intersection.
    let m = MatcherBuilder::new().build(&[b"[a&&b]".to_vec()]).unwrap();
    assert_eq!(find_all(&m, b"&\n"), vec![(0, 1)]);
}

#[test]
fn invalid_pattern_names_the_position() {
    let err = MatcherBuilder::new().line(true).build(&[b"a(b".to_vec()]).unwrap_err();
    // The offset is in the pattern, not in the -x wrapper around it.
    let want =
        BadPattern { index: 0, offset: Some(3), reason: "missing closing parenthesis".into() };
    assert_eq!(err.bad_patterns(), [want]);
}

#[test]
fn each_pattern_is_checked_alone() {
    // Joined, "[" and "]" would make the class "[)|(?:]".
    let err = MatcherBuilder::new().build(&[b"[".to_vec(), b"ok".to_vec(), b"]".to_vec()]);
    let bad: Vec<_> = err.unwrap_err().bad_patterns().iter().map(|b| (b.index, b.offset)).collect();
    assert_eq!(bad, [(0, Some(1))]);
    let err = MatcherBuilder::new().build(&[b"(a".to_vec(), b"b)".to_vec()]).unwrap_err();
    let bad: Vec<_> = err.bad_patterns().iter().map(|b| b.index).collect();
    assert_eq!(bad, [0, 1]);
    // A pattern holding newlines is one pattern per line.
    let err = MatcherBuilder::new().build(&[b"a\n(".to_vec()]).unwrap_err();
    assert_eq!(err.bad_patterns()[0].index, 1);
    let err = MatcherBuilder::new()
        .syntax(Syntax::Basic)
        .build(&[b"a\\(.\\)".to_vec(), b"b\\1".to_vec()])
        .unwrap_err();
    let want = BadPattern { index: 1, offset: None, reason: "Invalid back reference".into() };
    assert_eq!(err.bad_patterns(), [want]);
}

#[test]
fn patterns_keep_their_own_group_numbers() {
    for engine in [Engine::Auto, Engine::Pcre2] {
        let m = MatcherBuilder::new()
            .engine(engine)
            .build(&[
                br"(a)\1".to_vec(),
                br"(b)\1".to_vec(),
                br"(?<x>c)\k<x>".to_vec(),
                br"(?<x>d)\k<x>".to_vec(),
            ])
            .unwrap();
        assert_eq!(find_all(&m, b"ab\nbb\ncc\nxdd aa\n"), vec![(3, 5), (6, 8), (10, 12), (13, 15)]);
        // On a tie the earlier pattern wins, as in an alternation.
        let m = MatcherBuilder::new()
            .engine(engine)
            .build(&[br"(x)\1?".to_vec(), br"(x)\1y".to_vec()])
            .unwrap();
        assert_eq!(find_all(&m, b"xxy\n"), vec![(0, 2)]);
    }
}

#[test]
fn invalid_utf8_pattern_bytes_match_themselves() {
    let m = MatcherBuilder::new().build(&[b"a\xffb".to_vec()]).unwrap();
    assert_eq!(find_all(&m, b"xa\xffb\n"), vec![(1, 4)]);
}

#[test]
fn line_stream_agrees_with_whole_line_search() {
    for pat in [r"b+c", r"^ab", r"c$", r"\bword\b", r"x{3}", r"[^a]z"] {
        let m = MatcherBuilder::new().build(&[pat.as_bytes().to_vec()]).unwrap();
        for line in [&b"abbbc"[..], b"ab", b"zzc", b"a word!", b"xxxx", b"az", b"bz", b""] {
            let whole = m.find_at(line, 0).unwrap().is_some();
            // Feed in pieces of every size.
            for piece in 1..=line.len().max(1) {
                let mut s = m.line_stream().expect("the Rust engine streams");
                let mut early = false;
                for chunk in line.chunks(piece) {
                    if s.feed(chunk).unwrap() {
                        early = true;
                        break;
                    }
                }
                let got = early || s.finish().unwrap();
                assert_eq!(
                    got,
                    whole,
                    "{pat} on {:?} in pieces of {piece}",
                    String::from_utf8_lossy(line)
                );
            }
        }
    }
}

#[test]
fn loops_over_empty_matches_go_to_pcre() {
    // PCRE2 stops iterating on an empty iteration where the Rust engine
    // goes on: "(?:[^a]??)+" matches "bb" in "bb " with -w, not "bb ".
    let m = MatcherBuilder::new().word(true).build(&[b"(?:(?:[^a])??)+".to_vec()]).unwrap();
    assert_eq!(m.engine_name(), "pcre2");
    assert_eq!(find_all(&m, b"bb "), vec![(0, 2), (3, 3)]);
}

#[test]
fn min_len_is_known_for_the_rust_engine() {
    let m = MatcherBuilder::new().build(&[b"PM_RESUME".to_vec()]).unwrap();
    assert_eq!(m.min_len(), 9);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn pattern() -> impl Strategy<Value = String> {
        let leaf = prop::sample::select(vec![
            "a", "b", " ", "_", "1", r"\s", r"\w", r"\W", r"\d", "[ab]", "[^a]", ".", "[a-z_]",
        ])
        .prop_map(String::from);
        leaf.prop_recursive(3, 16, 3, |inner| {
            prop_oneof![
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a}{b}")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("(?:{a}|{b})")),
                inner.clone().prop_map(|a| format!("(?:{a})*")),
                inner.clone().prop_map(|a| format!("(?:{a})+")),
                inner.clone().prop_map(|a| format!("(?:{a})??")),
                inner.clone().prop_map(|a| format!("(?:{a}){{1,2}}")),
                inner.clone().prop_map(|a| format!("^{a}")),
                inner.clone().prop_map(|a| format!("{a}$")),
                inner.clone().prop_map(|a| format!(r"\b{a}")),
                inner.prop_map(|a| format!(r"({a})")),
            ]
        })
    }

    /// Every match the searcher would use: a match at the very end of a
    /// buffer that ends with a newline belongs to no line and is ignored.
    fn all_matches(m: &AnyMatcher, hay: &[u8]) -> Vec<(usize, usize)> {
        let mut out = vec![];
        let mut at = 0;
        while at <= hay.len() {
            match m.find_at(hay, at).unwrap() {
                None => break,
                Some(x) if x.start == hay.len() && (hay.is_empty() || hay.ends_with(b"\n")) => {
                    break
                }
                Some(x) => {
                    out.push((x.start, x.end));
                    at = if x.end > x.start { x.end } else { x.end + 1 };
                }
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        /// The Rust engine and PCRE2 find the same matches, with grep's line
        /// semantics, for patterns both support.
        #[test]
        fn engines_agree(
            pat in pattern(),
            hay in prop::collection::vec(prop::sample::select(b"ab _1\n".to_vec()), 0..60),
            ignore_case in any::<bool>(),
            word in any::<bool>(),
            line in any::<bool>(),
        ) {
            let p = vec![pat.as_bytes().to_vec()];
            let build = |engine| {
                MatcherBuilder::new()
                    .engine(engine)
                    .ignore_case(ignore_case)
                    .word(word)
                    .line(line)
                    .build(&p)
                    .unwrap()
            };
            let rust = build(Engine::Rust);
            let pcre = build(Engine::Pcre2);
            prop_assert_eq!(rust.engine_name(), "rust-regex");
            // The automatic choice leaves loops over empty-matching parts
            // to PCRE2, whose extents for them differ from the Rust engine's.
            let AnyMatcher::Rust(r) = &rust else { unreachable!() };
            prop_assume!(!r.has_nullable_loop());
            prop_assert_eq!(all_matches(&rust, &hay), all_matches(&pcre, &hay), "pattern {}", pat);
        }

        /// Alternations of literals holding capitals and digits (found by
        /// their rare byte pairs, windows.rs) match as PCRE2 matches them,
        /// with -w and -x too.
        #[test]
        fn literal_alternations_agree_with_pcre2(
            lits in prop::collection::vec(
                prop::collection::vec(prop::sample::select(b"ABQ1_a".to_vec()), 2..7), 2..7),
            hay in prop::collection::vec(prop::sample::select(b"ABQ1_a \n".to_vec()), 0..400),
            word in any::<bool>(),
            line in any::<bool>(),
        ) {
            let pat: Vec<u8> = lits.join(&b'|');
            let p = vec![pat.clone()];
            let build = |engine| {
                MatcherBuilder::new().engine(engine).word(word).line(line).build(&p).unwrap()
            };
            let rust = build(Engine::Rust);
            let pcre = build(Engine::Pcre2);
            prop_assert_eq!(all_matches(&rust, &hay), all_matches(&pcre, &hay),
                "pattern {}", String::from_utf8_lossy(&pat));
        }
    }
}
