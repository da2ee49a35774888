//! From a pattern's syntax tree to a boolean query over trigrams: the
//! grams that every line the pattern matches must hold (Russ Cox's
//! codesearch approach: exact strings, prefixes and suffixes carried up
//! the tree, AND across a concatenation, OR across an alternation).
//!
//! Grams keep their case: a case-blind pattern's tree spells out each
//! letter's cases (`(?i)k` is `[Kk\u{212A}]`), which become an OR over the
//! spellings, so one index serves case-sensitive and `-i` searches alike,
//! and a case-sensitive one reads only files with its exact grams (on the
//! Linux tree, 253 files hold `PM_RESUME`'s grams against 2,950 holding
//! them in any case). A query may only ever be a superset of the truth:
//! the matcher has the last word.

use std::collections::BTreeSet;

use regex_syntax::hir::{Class, Hir, HirKind};

/// A trigram.
pub type Gram = [u8; 3];

/// A boolean query over trigrams.
#[derive(Clone, Debug, Eq, PartialEq, Ord, PartialOrd)]
pub enum Query {
    /// Every file may match.
    All,
    /// No file can match.
    Nothing,
    /// A file must hold this gram.
    Gram(Gram),
    /// A file must satisfy each.
    And(Vec<Query>),
    /// A file must satisfy one.
    Or(Vec<Query>),
}

/// AND or OR: the two ways queries join.
#[derive(Clone, Copy, Eq, PartialEq)]
enum Op {
    And,
    Or,
}

impl Query {
    /// `self AND other`, simplified.
    pub fn and(self, other: Query) -> Query {
        match (self, other) {
            (Query::All, q) | (q, Query::All) => q,
            (Query::Nothing, _) | (_, Query::Nothing) => Query::Nothing,
            (a, b) => join(Op::And, a, b),
        }
    }

    /// `self OR other`, simplified.
    pub fn or(self, other: Query) -> Query {
        match (self, other) {
            (Query::Nothing, q) | (q, Query::Nothing) => q,
            (Query::All, _) | (_, Query::All) => Query::All,
            (a, b) => join(Op::Or, a, b),
        }
    }

    /// Whether a file whose grams `has` tells may match.
    pub fn admits(&self, has: &impl Fn(Gram) -> bool) -> bool {
        match self {
            Query::All => true,
            Query::Nothing => false,
            Query::Gram(g) => has(*g),
            Query::And(v) => v.iter().all(|q| q.admits(has)),
            Query::Or(v) => v.iter().any(|q| q.admits(has)),
        }
    }
}

/// `a OP b` for two queries that are neither All nor Nothing: nested joins
/// of the same kind flattened, duplicates dropped, and absorption applied
/// (A and (A or B) is A; A or (A and B) is A).
fn join(op: Op, a: Query, b: Query) -> Query {
    let mut parts = BTreeSet::new();
    for q in [a, b] {
        match (op, q) {
            (Op::And, Query::And(v)) | (Op::Or, Query::Or(v)) => parts.extend(v),
            (_, q) => {
                parts.insert(q);
            }
        }
    }
    let absorbed: Vec<Query> = parts
        .iter()
        .filter(|q| match (op, q) {
            (Op::And, Query::Or(v)) | (Op::Or, Query::And(v)) => {
                !v.iter().any(|x| parts.contains(x))
            }
            _ => true,
        })
        .cloned()
        .collect();
    match (absorbed.len(), op) {
        (1, _) => absorbed.into_iter().next().unwrap(),
        (_, Op::And) => Query::And(absorbed),
        (_, Op::Or) => Query::Or(absorbed),
    }
}

/// An exact set larger than this becomes grams, prefixes and suffixes.
const MAX_EXACT: usize = 7;
/// Prefix and suffix sets are cut to this size (beyond: no constraint).
const MAX_SET: usize = 20;
/// A class of at most this many bytes or characters is a set of strings.
const MAX_CLASS: usize = 10;

type Set = BTreeSet<Vec<u8>>;

/// What is known of the strings a node matches.
#[derive(Clone, Debug)]
struct Info {
    /// It may match the empty string.
    can_empty: bool,
    /// Every string it matches, when few (then `prefix`/`suffix` are unused).
    exact: Option<Set>,
    /// Every match starts with one of these.
    prefix: Set,
    /// Every match ends with one of these.
    suffix: Set,
    /// What a match's text holds.
    query: Query,
}

/// The query for a pattern: a line it matches holds these grams.
pub fn plan(hir: &Hir) -> Query {
    let mut info = analyze(hir);
    simplify(&mut info, true);
    if let Some(exact) = info.exact.take() {
        info.query = info.query.and(grams_of_set(&exact));
    }
    info.query
}

/// The lines a search selects.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Selects {
    /// Those its patterns match.
    Matching,
    /// Those they do not match (`-v`): any file may hold one.
    NotMatching,
}

/// The index's question for a search whose patterns' syntax trees are
/// `trees` (as the matcher parses them; None when a pattern has none, such
/// as PCRE-only syntax: every file may match): a query whose candidates
/// hold every file it selects a line in.
pub fn question(trees: Option<&[Hir]>, selects: Selects) -> Query {
    match (selects, trees) {
        (Selects::Matching, Some(trees)) => {
            trees.iter().fold(Query::Nothing, |q, hir| q.or(plan(hir)))
        }
        (Selects::NotMatching, _) | (_, None) => Query::All,
    }
}

fn set_of<I: IntoIterator<Item = Vec<u8>>>(items: I) -> Set {
    items.into_iter().collect()
}

fn empty_string() -> Info {
    Info {
        can_empty: true,
        exact: Some(set_of([Vec::new()])),
        prefix: Set::new(),
        suffix: Set::new(),
        query: Query::All,
    }
}

fn any_char() -> Info {
    Info {
        can_empty: false,
        exact: None,
        prefix: set_of([Vec::new()]),
        suffix: set_of([Vec::new()]),
        query: Query::All,
    }
}

fn any_match() -> Info {
    Info { can_empty: true, ..any_char() }
}

fn no_match() -> Info {
    Info {
        can_empty: false,
        exact: None,
        prefix: Set::new(),
        suffix: Set::new(),
        query: Query::Nothing,
    }
}

fn analyze(hir: &Hir) -> Info {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => empty_string(),
        HirKind::Literal(lit) => Info {
            exact: Some(set_of([lit.0.to_vec()])),
            can_empty: lit.0.is_empty(),
            ..empty_string()
        },
        HirKind::Class(class) => class_info(class),
        HirKind::Capture(cap) => analyze(&cap.sub),
        HirKind::Repetition(rep) => {
            let sub = analyze(&rep.sub);
            match (rep.min, rep.max) {
                (0, Some(0)) => empty_string(),
                (0, _) => {
                    // x? is (x|); x* matches anything x's parts make.
                    if rep.max == Some(1) {
                        alternate(sub, empty_string())
                    } else {
                        any_match()
                    }
                }
                (_, Some(1)) => sub,
                _ => {
                    // x+ (and x{n,m}, n >= 1): x, then anything.
                    let mut once = sub;
                    simplify(&mut once, false);
                    concat(once, any_match())
                }
            }
        }
        HirKind::Concat(subs) => {
            let mut info = empty_string();
            for sub in subs {
                info = concat(info, analyze(sub));
            }
            info
        }
        HirKind::Alternation(subs) => {
            let mut iter = subs.iter();
            let Some(first) = iter.next() else { return no_match() };
            let mut info = analyze(first);
            for sub in iter {
                info = alternate(info, analyze(sub));
            }
            info
        }
    }
}

/// A class of few members is a set of strings; more is any char.
fn class_info(class: &Class) -> Info {
    let mut strings = Set::new();
    match class {
        Class::Bytes(bytes) => {
            let n: usize =
                bytes.ranges().iter().map(|r| usize::from(r.end() - r.start()) + 1).sum();
            if n == 0 {
                return no_match();
            }
            if n > MAX_CLASS {
                return any_char();
            }
            for r in bytes.ranges() {
                for b in r.start()..=r.end() {
                    strings.insert(vec![b]);
                }
            }
        }
        Class::Unicode(chars) => {
            let n: u64 =
                chars.ranges().iter().map(|r| u64::from(r.end()) - u64::from(r.start()) + 1).sum();
            if n == 0 {
                return no_match();
            }
            if n > MAX_CLASS as u64 {
                return any_char();
            }
            for r in chars.ranges() {
                for c in r.start()..=r.end() {
                    let mut buf = [0u8; 4];
                    strings.insert(c.encode_utf8(&mut buf).as_bytes().to_vec());
                }
            }
        }
    }
    Info { can_empty: false, exact: Some(strings), ..empty_string() }
}

fn cross(a: &Set, b: &Set) -> Set {
    let mut out = Set::new();
    for x in a {
        for y in b {
            let mut s = x.clone();
            s.extend_from_slice(y);
            out.insert(s);
        }
    }
    out
}

fn min_len(s: &Set) -> usize {
    s.iter().map(Vec::len).min().unwrap_or(0)
}

fn concat(x: Info, y: Info) -> Info {
    let can_empty = x.can_empty && y.can_empty;
    let mut query = x.query.clone().and(y.query.clone());
    let (mut exact, mut prefix, mut suffix) = (None, Set::new(), Set::new());
    match (&x.exact, &y.exact) {
        (Some(a), Some(b)) if a.len() * b.len() <= MAX_SET * MAX_SET => exact = Some(cross(a, b)),
        _ => {
            let xe = x.exact.as_ref();
            let ye = y.exact.as_ref();
            prefix = match xe {
                Some(a) => cross(a, ye.unwrap_or(&y.prefix)),
                None => {
                    let mut p = x.prefix.clone();
                    if x.can_empty {
                        p.extend(ye.unwrap_or(&y.prefix).iter().cloned());
                    }
                    p
                }
            };
            suffix = match ye {
                Some(b) => cross(xe.unwrap_or(&x.suffix), b),
                None => {
                    let mut s = y.suffix.clone();
                    if y.can_empty {
                        s.extend(xe.unwrap_or(&x.suffix).iter().cloned());
                    }
                    s
                }
            };
            // A match holds some suffix of x followed by some prefix of y.
            if xe.is_none()
                && ye.is_none()
                && x.suffix.len() <= MAX_SET
                && y.prefix.len() <= MAX_SET
                && min_len(&x.suffix) + min_len(&y.prefix) >= 3
            {
                query = query.and(grams_of_set(&cross(&x.suffix, &y.prefix)));
            }
        }
    }
    let mut info = Info { can_empty, exact, prefix, suffix, query };
    simplify(&mut info, false);
    info
}

fn alternate(mut x: Info, mut y: Info) -> Info {
    let can_empty = x.can_empty || y.can_empty;
    let (mut exact, mut prefix, mut suffix) = (None, Set::new(), Set::new());
    match (x.exact.take(), y.exact.take()) {
        (Some(a), Some(b)) => exact = Some(a.union(&b).cloned().collect()),
        (Some(a), None) => {
            prefix = a.union(&y.prefix).cloned().collect();
            suffix = a.union(&y.suffix).cloned().collect();
            x.query = x.query.and(grams_of_set(&a));
        }
        (None, Some(b)) => {
            prefix = x.prefix.union(&b).cloned().collect();
            suffix = x.suffix.union(&b).cloned().collect();
            y.query = y.query.and(grams_of_set(&b));
        }
        (None, None) => {
            prefix = x.prefix.union(&y.prefix).cloned().collect();
            suffix = x.suffix.union(&y.suffix).cloned().collect();
        }
    }
    let query = x.query.or(y.query);
    let mut info = Info { can_empty, exact, prefix, suffix, query };
    simplify(&mut info, false);
    info
}

/// Turns an exact set grown too large (or long enough, when `force`) into
/// grams, prefixes and suffixes; keeps prefix and suffix sets small.
fn simplify(info: &mut Info, force: bool) {
    if let Some(exact) = &info.exact {
        let min = min_len(exact);
        if exact.len() > MAX_EXACT || (min >= 3 && force) || min >= 4 {
            let exact = info.exact.take().unwrap();
            info.query = info.query.clone().and(grams_of_set(&exact));
            for s in &exact {
                info.prefix.insert(s[..s.len().min(2)].to_vec());
                info.suffix.insert(s[s.len().saturating_sub(2)..].to_vec());
            }
        }
    }
    if info.exact.is_none() {
        info.query = info.query.clone().and(grams_of_set(&info.prefix));
        info.query = info.query.clone().and(grams_of_set(&info.suffix));
        info.prefix = trim(&info.prefix, Side::Prefix);
        info.suffix = trim(&info.suffix, Side::Suffix);
    }
}

#[derive(Clone, Copy)]
enum Side {
    Prefix,
    Suffix,
}

/// Each string cut to its first (or last) two bytes, the set deduplicated;
/// past [`MAX_SET`] it says nothing (the empty string).
fn trim(set: &Set, side: Side) -> Set {
    let cut: Set = set
        .iter()
        .map(|s| match side {
            Side::Prefix => s[..s.len().min(2)].to_vec(),
            Side::Suffix => s[s.len().saturating_sub(2)..].to_vec(),
        })
        .collect();
    if cut.len() > MAX_SET {
        set_of([Vec::new()])
    } else {
        cut
    }
}

/// OR over the strings of AND over each one's grams; a string shorter than
/// a gram makes it say nothing.
fn grams_of_set(set: &Set) -> Query {
    if set.is_empty() || min_len(set) < 3 {
        return if set.is_empty() { Query::Nothing } else { Query::All };
    }
    let mut q = Query::Nothing;
    for s in set {
        let mut and = Query::All;
        for w in s.windows(3) {
            and = and.and(Query::Gram([w[0], w[1], w[2]]));
        }
        q = q.or(and);
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(pattern: &str) -> Query {
        let hir = regex_syntax::ParserBuilder::new()
            .unicode(false)
            .utf8(false)
            .build()
            .parse(pattern)
            .unwrap();
        plan(&hir)
    }

    fn g(s: &str) -> Query {
        let b = s.as_bytes();
        Query::Gram([b[0], b[1], b[2]])
    }

    fn and(v: &[&str]) -> Query {
        v.iter().fold(Query::All, |q, s| q.and(g(s)))
    }

    #[test]
    fn a_literal_needs_all_its_grams_in_its_case() {
        assert_eq!(q("PM_RESUME"), and(&["PM_", "M_R", "_RE", "RES", "ESU", "SUM", "UME"]));
        let spellings = ["abc", "abC", "aBc", "aBC", "Abc", "AbC", "ABc", "ABC"];
        assert_eq!(q("(?i)abc"), spellings.iter().fold(Query::Nothing, |o, s| o.or(g(s))));
        assert_eq!(q("ab"), Query::All);
    }

    #[test]
    fn alternation_is_or_and_concatenation_is_and() {
        assert_eq!(q("abcd|wxyz"), and(&["abc", "bcd"]).or(and(&["wxy", "xyz"])));
        assert_eq!(q("abc.*xyz"), and(&["abc", "xyz"]));
        assert_eq!(q("(abc|abd)e"), g("abc").and(g("bce")).or(g("abd").and(g("bde"))));
    }

    #[test]
    fn patterns_without_grams_admit_every_file() {
        for p in [".", r"\w+", "a*", "[a-z]+", "(ab|c)", "", "^$", "x?yz"] {
            assert_eq!(q(p), Query::All, "{p}");
        }
    }

    #[test]
    fn small_classes_and_repetitions_keep_their_grams() {
        assert_eq!(q("ab[cd]"), g("abc").or(g("abd")));
        assert_eq!(q("(abc)+"), g("abc"));
        assert_eq!(q("x(abc)*y"), Query::All);
        assert_eq!(q("foo(bar)?baz"), {
            let with = and(&["foo", "oob", "oba", "bar", "arb", "rba", "baz"]);
            let without = and(&["foo", "oob", "oba", "baz"]);
            with.or(without)
        });
    }

    #[test]
    fn the_query_admits_every_line_the_pattern_matches() {
        // Whatever the pattern, a line it matches satisfies its query.
        let cases = [
            ("PM_(RESUME|SUSPEND)", "x = PM_SUSPEND;"),
            ("(?i)linus", "LiNuS Torvalds"),
            ("[A-Za-z0-9._-]+@[A-Za-z0-9.-]+\\.(org|com|net|de)", "mail ewd@cs.example.org now"),
            ("a.c|xyz[0-9]", "xyz7"),
            ("^static int [a-z_]+\\(void\\)", "static int foo_bar(void)"),
            ("(foo|ba+r)baz", "baaaarbaz"),
        ];
        for (pattern, line) in cases {
            let has = |gram: Gram| line.as_bytes().windows(3).any(|w| w == gram);
            assert!(q(pattern).admits(&has), "{pattern} on {line}: {:?}", q(pattern));
        }
    }

    /// A pattern over a small alphabet, so that matches are common.
    fn pattern() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            "[abcAB]{1,5}",
            Just(".".to_string()),
            Just("[ab]".to_string()),
            Just("[a-c]".to_string()),
            Just("(?i:ab)".to_string()),
        ];
        leaf.prop_recursive(4, 24, 3, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 1..4).prop_map(|v| v.concat()),
                proptest::collection::vec(inner.clone(), 2..4)
                    .prop_map(|v| format!("({})", v.join("|"))),
                inner.clone().prop_map(|p| format!("({p})*")),
                inner.clone().prop_map(|p| format!("({p})+")),
                inner.clone().prop_map(|p| format!("({p})?")),
                inner.prop_map(|p| format!("({p}){{2,3}}")),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        #[test]
        fn no_line_the_pattern_matches_is_refused(p in pattern(), line in "[abcAB .]{0,24}") {
            let re = regex_automata::meta::Regex::new(&p).unwrap();
            if re.is_match(line.as_bytes()) {
                let has = |gram: Gram| line.as_bytes().windows(3).any(|w| w == gram);
                proptest::prop_assert!(q(&p).admits(&has), "{} on {:?}: {:?}", p, line, q(&p));
            }
        }
    }
}
