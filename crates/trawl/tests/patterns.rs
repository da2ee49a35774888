//! Pattern semantics against `LC_ALL=C grep -P -r` over the basic tree,
//! under both engines.

use crate::fixtures::{basic, folded, literal};
use crate::util::{ErrorsTo::Terminal, Tree};

parity!(literal_matches_in_every_file_of_the_tree, basic, ["foo", "."]);
parity!(literal_with_line_numbers, basic, ["-n", "foo", "."]);
parity!(ignore_case_matches_ascii_case_variants, basic, ["-i", "Foo", "."]);
parity!(ignore_case_does_not_fold_non_ascii_in_c_locale, basic, ["-i", "-n", "caf\u{c9}", "."]);
parity!(inline_case_insensitive_flag, basic, ["-n", "(?i)fOO", "."]);
parity!(word_boundary_then_word_chars, basic, ["-n", r"\bword\w*", "."]);
parity!(word_boundary_only_matching, basic, ["-o", r"\bword\w*", "."]);
parity!(non_word_boundary, basic, ["-o", r"\Bfoo", "."]);
parity!(empty_line_anchors_match_empty_lines_only, basic, ["-n", "^$", "."]);
parity!(whitespace_only_lines, basic, ["-n", r"^\s*$", "."]);
parity!(whitespace_class_never_crosses_a_newline, basic, ["-n", r"a\s+b", "."]);
parity!(whitespace_class_never_crosses_a_newline_with_o, basic, ["-o", r"a\s+b", "."]);
parity!(negated_class_with_only_matching_stays_in_line, basic, ["-o", "-n", "[^x]+", "."]);
parity!(negated_class_count_stays_in_line, basic, ["-c", "^[^x]*$", "."]);
parity!(empty_matches_print_nothing_with_only_matching, basic, ["-o", "x*", "."]);
parity!(empty_matches_select_every_line, basic, ["-c", "x*", "."]);
parity!(empty_pattern_matches_every_line, basic, ["-n", "", "."]);
parity!(dot_matches_one_byte_in_c_locale, basic, ["-o", "w..rld|caf.", "."]);
parity!(word_class_is_ascii_only, basic, ["-o", r"\w+", "utf8.txt", "invalid_utf8.txt"]);
parity!(hex_escape_matches_a_raw_byte, basic, ["-n", r"\xff\xfe", "."]);
parity!(dot_does_not_match_newline, basic, ["-c", "foo.bar", "."]);
parity!(dollar_does_not_match_before_cr, basic, ["-n", "foo$", "."]);
parity!(carriage_return_is_an_ordinary_byte, basic, ["-c", r"\r$", "."]);
parity!(caret_anchors_only_at_line_start_with_o, basic, ["-o", r"^\w", "."]);
parity!(dollar_anchors_at_line_end_with_o, basic, ["-o", r"\w+$", "."]);
parity!(alternation, basic, ["-n", "foo|bar|end", "."]);
parity!(counted_repetition, basic, ["-o", "x{2,}", "."]);
parity!(leftmost_first_alternation_with_o, basic, ["-o", "wor|word|wordy", "."]);
parity!(greedy_and_lazy_quantifiers, basic, ["-o", "w.*?d|s.*d", "."]);
parity!(character_class_ranges_and_escapes, basic, ["-o", r"[A-Z][a-z]+|\d+", "."]);
parity!(escaped_metacharacters, basic, ["-n", r"\{ x: i32 \}|\(void\)", "."]);
parity!(last_line_without_newline, basic, ["-n", "foo", "no_newline.txt"]);
parity!(invert_selects_non_matching_lines, basic, ["-v", "-n", "foo", "."]);

parity!(pcre: backreference, basic, ["-n", r"(\w+)\s*=\s*\1\b", "."]);
parity!(pcre: backreference_only_matching, basic, ["-o", r"(\w+)\s*=\s*\1\b", "."]);
parity!(pcre: lookbehind, basic, ["-o", r"(?<=struct )\w+", "."]);
parity!(pcre: negative_lookahead, basic, ["-n", "foo(?!bar)", "."]);
parity!(pcre: negative_lookahead_only_matching, basic, ["-o", "-b", "foo(?!bar)", "."]);
parity!(pcre: lookahead_cannot_see_the_next_line, basic, ["-n", r"^a(?=\n)", "."]);
parity!(pcre: lookbehind_cannot_see_the_previous_line, basic, ["-n", r"(?<=a\n) b", "."]);
parity!(pcre: atomic_group, basic, ["-n", "(?>fo+)bar", "."]);
parity!(pcre: keep_out, basic, ["-o", r"struct\s+\K\w+", "."]);

// -w means (?<!\w)(?:P)(?!\w) in grep -P.
parity!(word_regexp_literal, basic, ["-w", "-n", "foo", "."]);
parity!(word_regexp_pattern_starting_with_dash, basic, ["-w", "-n", "-e", "-foo", "."]);
parity!(
    word_regexp_alternation_applies_to_every_branch,
    basic,
    ["-w", "-o", "word|wor|sword", "."]
);
parity!(word_regexp_only_matching, basic, ["-w", "-o", r"\w+o\w*", "."]);
parity!(word_regexp_with_ignore_case, basic, ["-w", "-i", "-c", "foo", "."]);
parity!(line_regexp, basic, ["-x", "-n", "foo", "."]);
parity!(line_regexp_alternation_applies_to_every_branch, basic, ["-x", "-n", "a|foo|end|x", "."]);
parity!(line_regexp_invert, basic, ["-x", "-v", "-c", "foo|a", "."]);

// Several patterns: grep -P refuses more than one, so grep -E is the oracle.
engines!(several_patterns_match_any, |e| {
    basic()
        .parity(e)
        .args(["-n", "-e", "foo", "-e", "word", "-e", "^end$", "."])
        .grep_syntax("-E")
        .check();
});
engines!(several_patterns_only_matching, |e| {
    basic().parity(e).args(["-o", "-e", "wor", "-e", "struct", "."]).grep_syntax("-E").check();
});
engines!(several_patterns_with_word_regexp, |e| {
    basic().parity(e).args(["-w", "-n", "-e", "foo", "-e", "words", "."]).grep_syntax("-E").check();
});
engines!(several_patterns_with_line_regexp, |e| {
    basic().parity(e).args(["-x", "-n", "-e", "foo", "-e", "a b", "."]).grep_syntax("-E").check();
});
engines!(several_patterns_inverted_count, |e| {
    basic().parity(e).args(["-v", "-c", "-e", "foo", "-e", "a", "."]).grep_syntax("-E").check();
});
engines!(pattern_file_patterns_match_any, |e| {
    let t = basic();
    t.file("pats", "foo\nword\n^end$\n");
    t.parity(e).args(["-n", "-f", "pats", "."]).grep_syntax("-E").check();
});
engines!(pattern_file_combined_with_e, |e| {
    let t = basic();
    t.file("pats", "struct\n");
    t.parity(e).args(["-c", "-f", "pats", "-e", "foo", "."]).grep_syntax("-E").check();
});
engines!(empty_pattern_file_matches_nothing, |e| {
    let t = basic();
    t.file("empty.pat", "");
    let c = t.parity(e).args(["-f", "empty.pat", "."]).grep_syntax("-E").check();
    c.trawl.assert_code(1).assert_stdout("");
});
engines!(pattern_file_with_an_empty_line_matches_everything, |e| {
    let t = basic();
    t.file("pats", "zzzz\n\n");
    t.parity(e).args(["-c", "-f", "pats", "."]).grep_syntax("-E").check();
});
engines!(extended_syntax_flag, |e| {
    basic().parity(e).syntax("-E").args(["-n", "fo+|ba[rz]$", "."]).check();
});

// -F: fixed strings, Aho-Corasick; compared with grep -F.
engines!(fixed_strings_take_metacharacters_literally, |e| {
    literal()
        .parity(e)
        .syntax("-F")
        .args(["-n", "-e", "a.b", "-e", "(x)", "-e", "[abc]", "."])
        .check();
});
engines!(fixed_strings_several_overlapping, |e| {
    literal()
        .parity(e)
        .syntax("-F")
        .args(["-o", "-e", "foo", "-e", "foofoo", "-e", "oof", "."])
        .check();
});
engines!(fixed_strings_ignore_case, |e| {
    literal().parity(e).syntax("-F").args(["-i", "-n", "-e", "foo", "-e", "AB+", "."]).check();
});
engines!(fixed_strings_word_and_line, |e| {
    literal().parity(e).syntax("-F").args(["-w", "-n", "-e", "foo", "-e", "ab", "."]).check();
    literal().parity(e).syntax("-F").args(["-x", "-n", "-e", "foo", "-e", "a.b", "."]).check();
});
// GNU grep with several patterns and `-o -w` looks for the next match from
// where the last one ended and takes that place for a word's start, printing
// ` ` after `A` in `.A  b`; grep -P -w never prints a match a word character
// precedes, and neither does trawl (docs/OPTIONS.md).
engines!(several_fixed_strings_with_o_and_w_print_only_words_of_their_line, |e| {
    let text = ".A  b\nxa a_ a\n  A. A\nA A  A\n";
    let t = Tree::new();
    t.parity(e)
        .syntax("-F")
        .grep_syntax("-P")
        .stdin(text)
        .args(["-o", "-w", "-b", "-e", "A", "-e", " ", "-e", "a"])
        .grep_args(["-o", "-w", "-b", r"A|\x20|a"])
        .exact()
        .check();
});
engines!(fixed_strings_backslash_and_anchors_literal, |e| {
    literal()
        .parity(e)
        .syntax("-F")
        .args(["-n", "-e", r"\d+", "-e", "^start", "-e", "$end", "."])
        .check();
});
// Several fixed strings go to one of five searches by their number, their
// case and their lengths (the regex engine's alternation, the shift table,
// windows of four bytes, the shift-or filter, Aho-Corasick), the shift-or
// filter only around a part all strings hold when they share one (`many`:
// `ident_0`; `many_suffix`: `_tl`); each must give grep -F's
// leftmost-longest matches.
engines!(many_fixed_strings_agree_with_grep_in_every_search, |e| {
    let t = Tree::new();
    // Overlapping strings, one the prefix of another, shared blocks of three
    // bytes, strings at line ends and starts, case variants.
    let mut text = String::new();
    for i in 0..300 {
        text.push_str(&format!(
            "line {i}: pm_resume pm_resumed PM_Suspend x_pm_suspend_late abcdabcde{}\n",
            if i % 7 == 0 { " ABCDABCDE" } else { "" }
        ));
        // Strings of the large sets: whole, cut short, one running into
        // the next, one the prefix of another, at the line's end.
        text.push_str(&format!(
            "ident_{i:04}_x ident_{:04}_ ident_{:04}_xident_{:04}_x ident_{:04}_xy_z\n",
            i + 1,
            i * 3 % 1000,
            i * 7 % 1000,
            i * 11 % 1000
        ));
        text.push_str("suspend_resume_pm abcd abcdab cdabcdab\n");
        // Strings of a set sharing a suffix: whole, with too few or too
        // many leading bytes, one holding the suffix twice.
        let (j, k) = (i % 80, (i * 7 + 3) % 80);
        text.push_str(&format!(
            "_tl.ab_tlcdefgh {}{j}_tl_tl x_tl_tl p{k}_t _tl {}{k}_tl p{j}_tl\n",
            "p".repeat(j % 9 + 1),
            "p".repeat(i % 11),
        ));
        // A longer string at the same start, whose rarest bytes (`QJQJ`)
        // come after the shorter one's.
        text.push_str("x pm_resume_QJQJ y\n");
    }
    t.file("k.txt", &text).file("sub/empty.txt", "");
    t.file("two", "pm_resume\npm_resumed\n");
    t.file("six", "pm_resume\npm_suspend\nabcdabcde\nabcdab\ncdab_x\nresume_pm\n");
    t.file("short", "pm_resume\nab\ncdabcd\n");
    t.file("short6", "pm_resume\nab\ncdabcd\nsuspend\nresume_\ncdabcdab\n");
    let more: String = (0..18).map(|i| format!("word{i}_\n")).collect();
    t.file("short20", format!("{more}ab\nPM_RESUMED\n"));
    let ids: String = (0..1000).map(|i| format!("ident_{i:04}_x\n")).collect();
    t.file("many", format!("{ids}pm_suspend\nabcdabc\n"));
    let prefixes: String = (0..200).map(|i| format!("ident_{i:04}_xy\n")).collect();
    t.file("many_prefixes", format!("{ids}{prefixes}"));
    t.file("many_short", format!("{ids}abc\ndab\n_x \nume\n"));
    // More than 64 strings that all hold `_tl` (factor.rs), most at their
    // end: a match may start before the first `_tl` and hold a later one,
    // and end past where one holding the first could (`ab_tlcdefgh`, found
    // before `_tlcd` in `_tl.ab_tlcdefgh`).
    let suffixed: String = (0..80).map(|j| format!("{}{j}_tl\n", "p".repeat(j % 9 + 1))).collect();
    t.file("many_suffix", format!("{suffixed}x_tl_tl\nab_tlcdefgh\n_tlcd\n"));
    // 9 to 64 strings of four bytes or more: windows of four bytes at
    // different offsets, strings that overlap or hold one another.
    let some: String = (0..30).map(|i| format!("ident_{:04}_x\n", i * 33)).collect();
    t.file(
        "some",
        format!(
            "{some}pm_suspend\nabcdabc\ncdabcdab\n_pm_suspend_late\nsuspend_resume\n\
             suspend_resume_pm\npm_suspend_la\nPM_Susp\npm_resume_QJQJ\npm_resume\n"
        ),
    );
    // Case-blind: 2-4 strings the regex engine, 5-16 the pair filter, more
    // the shift table, or Aho-Corasick when one is under four bytes;
    // case-sensitive, 9 to 64 windows of four bytes (AVX-512 VBMI), more
    // than 64 the shift-or filter.
    for pats in [
        "two",
        "six",
        "short",
        "short6",
        "short20",
        "some",
        "many",
        "many_prefixes",
        "many_short",
        "many_suffix",
    ] {
        for case in [None, Some("-i")] {
            for out in [["-o", "-b"], ["-c", "-H"], ["-n", "-H"]] {
                let mut args: Vec<&str> = case.into_iter().collect();
                args.extend(out);
                args.extend(["-f", pats, "k.txt"]);
                t.parity(e).syntax("-F").args(&args).check();
            }
        }
    }
});
// PCRE-only patterns with a byte every match holds and no first byte:
// only lines holding the byte are searched, each alone.
engines!(pcre: pcre_patterns_with_a_required_byte_match_as_grep, |e| {
    let t = Tree::new();
    t.file(
        "r.txt",
        "x = x;\nfoo=foo\nfoo =\n foo\nbar = baz\nAA x\naaX\nabba=abba\n=\nq=q=q\nzz X\n",
    );
    for args in [
        ["-n", r"(\w+)\s*=\s*\1\b"],
        ["-o", r"(\w+)\s*=\s*\1\b"],
        ["-c", r"(\w)\1x"],
        ["-in", r"(\w)\1x"],
        ["-on", r"(?i)(\w)\1\s*X"],
        ["-n", r"(\w+)=(?=\1)"],
    ] {
        t.parity(e).args(args.iter().copied().chain(["r.txt"])).check();
    }
});
engines!(fixed_strings_from_pattern_file, |e| {
    let t = literal();
    t.file("pats", "a.b\n(ab)\n");
    t.parity(e).syntax("-F").args(["-c", "-f", "pats", "."]).check();
});

// -G: basic regular expressions, compared with grep -G.
engines!(basic_regexp_interval, |e| {
    literal().parity(e).syntax("-G").args(["-n", r"a\{2\}", "."]).check();
});
engines!(basic_regexp_braces_and_plus_are_literal_without_backslash, |e| {
    literal()
        .parity(e)
        .syntax("-G")
        .args(["-n", "-e", "a{2}", "-e", "ab+", "-e", "a|b", "."])
        .check();
});
engines!(basic_regexp_escaped_plus_and_alternation, |e| {
    literal().parity(e).syntax("-G").args(["-n", r"ab\+\|x", "."]).check();
});
engines!(basic_regexp_group_and_star, |e| {
    literal().parity(e).syntax("-G").args(["-x", r"\(ab\)*", "."]).check();
});
engines!(basic_regexp_parentheses_are_literal, |e| {
    literal().parity(e).syntax("-G").args(["-n", "(ab)", "."]).check();
});
engines!(basic_regexp_leading_star_is_literal, |e| {
    let t = literal();
    t.file("star.txt", "*star\nstar\n");
    t.parity(e).syntax("-G").args(["-n", "*star", "."]).check();
});
engines!(basic_regexp_anchors_and_classes, |e| {
    literal().parity(e).syntax("-G").args(["-o", "^[a-c][a-c]*$", "."]).check();
});
engines!(pcre: basic_regexp_backreference, |e| {
    literal().parity(e).syntax("-G").args(["-n", r"\(ab\)\1", "."]).check();
});

// More byte-level and edge semantics.
parity!(empty_alternative_matches_every_line, basic, ["-c", "foo|", "."]);
parity!(line_regexp_with_empty_pattern_matches_empty_lines, basic, ["-x", "-n", "", "."]);
parity!(invert_empty_pattern_selects_nothing, basic, ["-v", "", "."]);
parity!(word_regexp_with_empty_matches, basic, ["-w", "-c", "x*", "."]);
parity!(word_regexp_only_matching_empty_matches, basic, ["-w", "-o", "-n", "x*", "."]);
parity!(ignore_case_class_ranges, basic, ["-i", "-o", "[a-c]+r", "."]);
parity!(posix_class_inside_brackets, basic, ["-o", "[[:upper:]][[:alpha:]]+", "."]);
parity!(dot_matches_invalid_utf8_bytes, basic, ["-o", "bad ..", "."]);
parity!(digit_and_space_classes, basic, ["-o", r"\d+|\s{2,}", "."]);
parity!(only_matching_with_ignore_case_and_word, basic, ["-o", "-i", "-w", "foo|word", "."]);
parity!(pcre: horizontal_space_escape, basic, ["-n", r"a\h+b", "."]);
parity!(pcre: possessive_quantifier, basic, ["-c", "x++x", "."]);
engines!(newline_in_a_pattern_separates_patterns, |e| {
    basic().parity(e).args(["-n", "-e", "zzz\nword", "."]).grep_syntax("-E").check();
});

// Case-blind literals go through trawl's own finder (-i, and -F -i with one string).
parity!(folded_literal_in_every_case, folded, ["-n", "-i", "pm_resume", "."]);
parity!(folded_literal_only_matching, folded, ["-o", "-b", "-i", "PM_resume", "."]);
parity!(folded_literal_count, folded, ["-c", "-i", "pm_resume", "."]);
parity!(folded_literal_as_a_word, folded, ["-n", "-w", "-i", "pm_resume", "."]);
parity!(folded_literal_as_a_whole_line, folded, ["-n", "-x", "-i", "pm_resume", "."]);
parity!(folded_literal_inside_a_regex, folded, ["-o", "-i", r"\w*m_res\w+", "."]);
parity!(folded_literal_part_of_the_pattern, folded, ["-o", "-n", "(?i:pm_)RES|pm_(?i)resume", "."]);
parity!(folded_pattern_without_letters, folded, ["-o", "-i", "_1", "."]);
engines!(fixed_folded_literal, |e| {
    folded().parity(e).syntax("-F").args(["-o", "-n", "-i", "Pm_ResumE", "."]).check();
});
engines!(fixed_folded_literal_inverted, |e| {
    folded().parity(e).syntax("-F").args(["-v", "-c", "-i", "pm_resume", "."]).check();
});

// Issue 13 #11: a bracket inside \Q...\E is a literal, so the lookahead after
// it keeps PCRE2 confirming each line (the buffer-wide mode missed the match).
#[test]
fn quoted_bracket_does_not_hide_a_lookahead() {
    let t = basic();
    for input in ["a[\nx\n", "a[ x\nb[\n", "[\n"] {
        let c =
            t.parity(crate::util::Engine::Auto).stdin(input).args(["-n", r"\Q[\E(?!\s*x)"]).check();
        assert_eq!(c.trawl.code, c.grep.code);
    }
}

// Issue 13 #9 and #10: an unknown POSIX class name, and POSIX class syntax
// outside brackets, are errors (exit 2), as grep -P says; well-formed
// classes still match.
engines!(posix_class_names_are_checked, |e| {
    let t = basic();
    for p in ["[[:notdef:]]", "[[:alph:]]", "[[:alphabet:]]", "[:space:]", "a[:digit:]b"] {
        let c = t
            .parity(e)
            .stdin("n\npace\na1b\n")
            .args(["-e", p])
            .errors_expected()
            .worded_differently("the engines' own syntax messages (issue 13, item 8)")
            .check();
        c.trawl.assert_code(2);
        // --engine rust refuses what it reads differently; PCRE2 says why.
        let reason = match (e, p.starts_with("[[")) {
            (crate::util::Engine::Rust, _) => "reads this pattern differently",
            (_, true) => "unknown POSIX class name",
            (_, false) => "only within a class",
        };
        assert!(c.trawl.stderr_str().contains(reason), "{p}: {}", c.trawl.stderr_str());
    }
    for p in ["[[:space:]]x", "[[:^digit:]]", "[[:word:]]+", "[[:alpha:][:digit:]]"] {
        t.parity(e).stdin("n\npace\na1b\n x\n").args(["-n", "-e", p]).exact().check();
    }
});

// Issue 13 #14 and #16: -G intervals and brackets are checked as GNU grep
// checks them, with its messages: unmatched \( \) \{ [, bad interval
// contents, intervals over 32767, backward ranges; \{,n\} is {0,n}.
engines!(basic_regex_errors_are_gnu_greps, |e| {
    let t = basic();
    for p in [
        r"\)",
        r"\(",
        r"a\{1",
        r"a\{1a\}",
        r"a\{1,x\}",
        r"a\{\}",
        r"a\{2,1\}",
        r"a\{32768\}",
        r"[b-a]",
        r"[a",
    ] {
        let c = t.parity(e).syntax("-G").stdin("xyz\n").args(["-e", p]).errors_expected().check();
        c.trawl.assert_code(2);
    }
    for p in [r"xa\{,\}y", r"a\{,2\}z", r"x\{1,2\}", r"[]-a]", r"\{1"] {
        t.parity(e).syntax("-G").stdin("xyz\nxaaz\n{1\n").args(["-n", "-e", p]).exact().check();
    }
});

// Issue 13 #13: bytes that are not UTF-8 in a -G pattern match those bytes
// (they were dropped: the translated \xHH lost its backslash).
engines!(basic_regex_with_bytes_that_are_not_utf8, |e| {
    let t = basic();
    for (p, input) in [
        (&b"caf\xe9"[..], &b"caf\xe9\ncafe\n"[..]),
        (b"[\x81]", b"\x81\nx\n"),
        (b"\\(\xe9\\)\\{2\\}", b"\xe9\xe9\n\xe9\n"),
    ] {
        use std::os::unix::ffi::OsStrExt;
        let p = std::ffi::OsStr::from_bytes(p);
        let args = [std::ffi::OsStr::new("-a"), std::ffi::OsStr::new("-e"), p];
        t.parity(e).syntax("-G").stdin(input).args(args).exact().check();
    }
});

/// The messages of a run's standard error, each without its prefix: the
/// lines that start with `trawl: ` or `grep: ` (not the pattern and caret
/// lines under them).
fn messages(stderr: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter_map(|l| l.strip_prefix("trawl: ").or_else(|| l.strip_prefix("grep: ")))
        .map(str::to_string)
        .collect()
}

// Issue 13 #7: several -e/-f patterns are each checked alone (joined, `[`
// and `]` made one class), every bad one is reported, and one from a file is
// named FILE:LINE as grep names it. -G against grep -G word for word; the
// Perl dialect against grep -P run on each pattern alone (grep -P takes one
// pattern only).
engines!(each_pattern_is_checked_alone, |e| {
    let t = basic();
    t.file("g", "1\n2[[\n3\n4[[\n");
    for args in [&["-e", r"a\(.\)", "-e", r"b\1"][..], &["-f", "g"]] {
        let c = t.parity(e).syntax("-G").stdin("a|b\n1\n").args(args).errors_expected().check();
        c.trawl.assert_code(2);
    }
    // GNU grep joins the patterns with a newline first and reports the
    // class `[\n]` as "Invalid regular expression"; the issue wants the
    // first pattern's own error.
    let c = t
        .parity(e)
        .syntax("-G")
        .stdin("a|b\n")
        .args(["-e", "[", "-e", "]"])
        .errors_expected()
        .worded_differently("grep reports the joined patterns")
        .check();
    assert_eq!(messages(&c.trawl.stderr), ["Unmatched [, [^, [:, [., or [="]);
    for (args, bad) in [
        (&["-e", "[", "-e", "]"][..], &[("", "[")][..]),
        (&["-e", "(a", "-e", "b)"], &[("", "(a"), ("", "b)")]),
        (&["-f", "g", "-e", "x("], &[("g:2: ", "2[["), ("g:4: ", "4[["), ("", "x(")]),
        (&["-e", "x(", "-f", "g"], &[("", "x("), ("g:2: ", "2[["), ("g:4: ", "4[[")]),
    ] {
        let mut cmd = vec![];
        cmd.extend(crate::util::engine_flags(e));
        cmd.extend(args);
        // Through a pipe, grep's words alone; on a terminal, the offset
        // too (and the pattern with a caret, on lines of their own).
        let run = t.trawl().args(&cmd).stdin("a|b\n1\n").run();
        run.assert_code(2).assert_stdout("");
        let got = messages(&run.stderr);
        assert_eq!(got.len(), bad.len(), "{cmd:?}: {}", run.stderr_str());
        let on_terminal = t.trawl().args(&cmd).stdin("a|b\n1\n").errors_to(Terminal).run();
        on_terminal.assert_code(2).assert_stdout("");
        let shown = messages(&on_terminal.stderr);
        assert_eq!(shown.len(), bad.len(), "{cmd:?}: {}", on_terminal.stderr_str());
        for (((prefix, p), line), shown) in bad.iter().zip(&got).zip(&shown) {
            assert!(line.starts_with(prefix), "{cmd:?}: {line}");
            if e != crate::util::Engine::Rust {
                let grep = t.grep().args(["-P", "-e", p]).stdin("").run();
                let want = messages(&grep.stderr);
                assert_eq!(line, &format!("{prefix}{}", want[0]), "{cmd:?}");
                let (reason, at) = shown.split_once(" (at offset ").expect("an offset");
                assert_eq!(reason, line, "{cmd:?}");
                assert!(at.ends_with(&format!(" in '{p}')")), "{shown}");
            }
        }
    }
});

// Issue 42: GNU grep drops a pattern given twice before compiling it, so an
// erroneous one is named once, at its first place (in two -f files, or -e
// and -f); -G word for word against grep -G.
engines!(a_bad_pattern_given_twice_is_named_once_at_its_first_place, |e| {
    let t = basic();
    t.file("g", "1[[\n").file("h", "x\n1[[\n").file("a.txt", "1\n");
    for (args, want) in [
        (&["-f", "g", "-f", "h"][..], &["g:1: "][..]),
        (&["-f", "h", "-f", "g"], &["h:2: "]),
        (&["-e", "1[[", "-f", "g"], &[""]),
        (&["-f", "g", "-e", "1[[", "-e", "2[["], &["g:1: ", ""]),
    ] {
        let c =
            t.parity(e).syntax("-G").args(args.iter().chain(&["a.txt"])).errors_expected().check();
        c.trawl.assert_code(2).assert_stdout("");
        let got = messages(&c.trawl.stderr);
        assert_eq!(got, messages(&c.grep.stderr), "{args:?}");
        assert_eq!(got.len(), want.len(), "{args:?}: {got:?}");
        for (line, prefix) in got.iter().zip(want) {
            assert!(line.starts_with(prefix), "{args:?}: {line}");
        }
    }
    // The Perl dialect: the same rule (grep -P takes one pattern only).
    let run =
        t.trawl().args(crate::util::engine_flags(e)).args(["-f", "g", "-f", "h", "a.txt"]).run();
    run.assert_code(2);
    let got = messages(&run.stderr);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0].starts_with("g:1: "), "{got:?}");
});

// Patterns that refer to their own groups keep their meaning beside other
// patterns (joined, `(b)\1` referred to the first pattern's group).
engines!(pcre: patterns_keep_their_own_groups, |e| {
    let t = basic();
    let args = ["-n", "-e", r"(a)\1", "-e", r"(b)\1", "-e", r"(x)\1?y"];
    let c = t.parity(e).syntax("-E").stdin("ab\nbb\naa\nxy\nyx\n").args(args).exact().check();
    c.trawl.assert_code(0);
});

// Issue 13 #8: a syntax error names the pattern, not the engine: the reason
// as grep -P gives it (no "PCRE2", no offset inside the -x wrapper), and
// where in the pattern, on one line; then (issue 18) the pattern with a
// caret under that place, as rg shows it. The backtracking limit is grep's
// message.
#[test]
fn errors_speak_of_the_pattern() {
    let t = basic();
    for (flags, p, at) in [
        (&["-x"][..], r"(.)\2", 4),
        (&["-w"], "a)", 1),
        (&[], "(?z)", 2),
        (&["-P", "-x"], "x{2,1}", 5),
    ] {
        let grep = t.grep().args(["-P", "-e", p]).stdin("").run();
        // Issue 42: through a pipe, grep's one line, which scripts read.
        let run = t.trawl().args(flags).args(["-e", p]).stdin("aa\n").run();
        run.assert_code(2);
        assert_eq!(run.stderr_str(), format!("trawl: {}\n", messages(&grep.stderr)[0]));
        let run = t.trawl().args(flags).args(["-e", p]).stdin("aa\n").errors_to(Terminal).run();
        run.assert_code(2);
        let err = run.stderr_str();
        assert!(!err.contains("PCRE2"), "{err}");
        let caret = format!("    {p}\n    {}^\n", " ".repeat(at));
        let want =
            format!("trawl: {} (at offset {at} in '{p}')\n{caret}", messages(&grep.stderr)[0]);
        assert_eq!(err, want);
    }
    t.file("bt.txt", format!("{}b\n", "a".repeat(40)));
    let c =
        t.parity(crate::util::Engine::Pcre2).args(["(a|aa)+$", "bt.txt"]).errors_expected().check();
    c.trawl.assert_code(2);
    // grep stops at the first such file; trawl goes on with the others.
    let run = t.trawl().args(["-P", "(a|aa)+$", "bt.txt", "a.txt"]).run();
    run.assert_code(2).assert_stdout("a.txt:a\n");
}

// Issue 13 #15: -G collating elements and equivalence classes of one
// character are that character (the C locale); longer ones are GNU's error.
engines!(basic_collating_elements_and_equivalence_classes, |e| {
    let t = basic();
    let input = "a\n-\n \nb\n]\n[\nc\n^\n\\\nd\n";
    for p in [
        "[[.a.]]",
        "[[=a=]]",
        "[[.-.]]",
        "[[.].]]",
        "[[.[.]]",
        "[[.a.]-c]",
        "[a-[.c.]]",
        "[[.^.]]",
        "[^[.a.]]",
        r"[[.\.]]",
        r"[[=\=]]",
        "[x[.-.]z]",
    ] {
        t.parity(e).syntax("-G").stdin(input).args(["-n", "-e", p]).exact().check();
    }
    for p in ["[[.ab.]]", "[[=ab=]]", "[[.space.]]", "[[=].]]", "[c-[.a.]]"] {
        let c = t.parity(e).syntax("-G").stdin(input).args(["-e", p]).errors_expected().check();
        c.trawl.assert_code(2);
    }
});

// Issue 42: a back-reference may name any group closed before it, however
// deeply nested (`a\(\([bc]\)\2\)*d`: group 2 closes before `\2`), and only
// such a group: GNU grep refuses one still open or missing with "Invalid
// back reference" under -G and -E alike.
#[test]
fn back_references_to_closed_nested_groups_are_taken() {
    let t = basic();
    for (syntax, p, input) in [
        ("-G", r"a\(\([bc]\)\2\)*d", "abbccd\nabcd\n"),
        ("-G", r"a\(\(b\)*\2\)*d", "abbbd\nad\n"),
        ("-E", r"a(([bc])\2)*d", "abbccd\nabcd\n"),
        ("-E", r"(a\1)", "aa\n"),
        ("-E", r"(a)\2", "aa\n"),
        ("-G", r"\(a\1\)", "aa\n"),
    ] {
        t.parity(crate::util::Engine::Auto)
            .syntax(syntax)
            .args(["-e", p])
            .stdin(input)
            .errors_expected()
            .exact()
            .check();
    }
}

/// A small deterministic generator (xorshift64*), so that a failing case
/// can be run again.
struct Random(u64);

impl Random {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) % n
    }

    /// A pattern of nested groups, back-references (sometimes to a group
    /// still open or missing), `[bc]` and letters, with at most two stars
    /// and none on a group holding one (GNU's matcher is exponential on
    /// stars nested around back-references).
    fn pattern(&mut self, depth: u32, groups: &mut u64, extended: bool, stars: &mut u32) -> String {
        let mut out = String::new();
        for _ in 0..=self.below(3) {
            let r = self.below(10);
            if r < 3 && depth < 3 {
                *groups += 1;
                let mut inner_stars = 0;
                let inner = self.pattern(depth + 1, groups, extended, &mut inner_stars);
                out += &match extended {
                    true => format!("({inner})"),
                    false => format!("\\({inner}\\)"),
                };
                *stars += inner_stars;
                if inner_stars == 0 && *stars < 2 && self.below(10) < 4 {
                    out.push('*');
                    *stars += 1;
                }
                continue;
            }
            if r < 5 && *groups > 0 {
                let most = if self.below(5) == 0 { *groups + 1 } else { *groups };
                out += &format!("\\{}", 1 + self.below(most.min(9)));
            } else if r < 6 {
                out += "[bc]";
            } else {
                out.push(['a', 'b', 'c'][self.below(3) as usize]);
            }
            if *stars < 2 && self.below(10) < 3 {
                out.push('*');
                *stars += 1;
            }
        }
        out
    }
}

// Issue 42: a few hundred random nested-group patterns with back-references
// under -G and -E against GNU grep: the same exit status (an invalid
// back-reference is 2 for both) and the same lines.
#[test]
fn random_nested_group_patterns_agree_with_gnu_grep() {
    let t = Tree::new();
    let mut rng = Random(0x42_0000_0001);
    let lines: Vec<String> = (0..60)
        .map(|_| {
            let n = rng.below(8);
            (0..n).map(|_| ['a', 'b', 'c'][rng.below(3) as usize]).collect()
        })
        .collect();
    t.file("in.txt", lines.join("\n") + "\n");
    let mut refused = 0;
    for i in 0..300 {
        let extended = i % 2 == 1;
        let p = rng.pattern(0, &mut 0, extended, &mut 0);
        let syntax = if extended { "-E" } else { "-G" };
        let grep = t.grep().env("LC_ALL", "C").args([syntax, "-e", &p, "in.txt"]).run();
        let trawl = t.trawl().args([syntax, "-e", &p, "in.txt"]).run();
        assert_eq!(
            (trawl.code, trawl.stdout_str()),
            (grep.code, grep.stdout_str()),
            "{syntax} {p:?}: {}",
            trawl.stderr_str()
        );
        if grep.code == 2 {
            assert_eq!(trawl.stderr_str(), grep.stderr_str().replacen("grep:", "trawl:", 1));
            refused += 1;
        }
    }
    // The generator reaches both outcomes.
    assert!((10..290).contains(&refused), "{refused} of 300 refused");
}

// Issue 42: a bracket expression that looks like a class without its own
// brackets (`[:space:]` for `[[:space:]]`) is GNU grep's error under -G and
// -E, word for word, and other brackets that start with `:` are plain ones
// (`[:a-z:]`, `[::]`); the default engine words PCRE2's refusal of such a
// class as GNU grep does, and -P keeps PCRE2's words, as grep -P.
#[test]
fn a_misplaced_class_is_refused_in_gnu_grep_words() {
    let t = basic();
    let input = "a: b\nx y\n:\nz=\n";
    for p in [
        "[:space:]",
        "x[^:alpha:]",
        "[:a:]",
        "[:.:]",
        "[::]",
        "[:a]",
        "[:a-z:]",
        "[:[:alpha:]:]",
        "[[:space:]]",
        "[=a=]",
        "y[.]",
    ] {
        for syntax in ["-G", "-E"] {
            t.parity(crate::util::Engine::Auto)
                .syntax(syntax)
                .args(["-e", p])
                .stdin(input)
                .errors_expected()
                .exact()
                .check();
        }
    }
    for p in ["[:space:]", "[:a:]"] {
        let r = t.trawl().args(["-e", p]).stdin(input).run();
        r.assert_code(2).assert_stdout("");
        assert_eq!(r.stderr_str(), "trawl: character class syntax is [[:space:]], not [:space:]\n");
        let r = t.trawl().args(["-P", "-e", p]).stdin(input).run();
        let grep = t.grep().args(["-P", "-e", p]).stdin(input).run();
        r.assert_code(2);
        assert_eq!(r.stderr_str(), grep.stderr_str().replacen("grep:", "trawl:", 1));
    }
}
