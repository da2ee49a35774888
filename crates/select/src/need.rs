//! What a name must be for an expression to do anything: an entry whose
//! name fails it is known, from its name alone, to print nothing, run
//! nothing and report nothing. A search served by an index hands the walk
//! only the entries that pass (`trawl find -name X` then visits a handful
//! of the tree's entries instead of all of them).

use crate::expr::{Expr, Test};
use crate::glob::Glob;

/// A condition on a base name.
#[derive(Debug)]
pub enum NameNeed<'e> {
    /// Any name.
    Always,
    /// No name.
    Never,
    /// `-name`/`-iname`'s pattern.
    Glob(&'e Glob),
    /// Both.
    All(Box<NameNeed<'e>>, Box<NameNeed<'e>>),
    /// Either.
    Any(Box<NameNeed<'e>>, Box<NameNeed<'e>>),
}

impl NameNeed<'_> {
    /// Whether `name` passes.
    pub fn is_match(&self, name: &[u8]) -> bool {
        match self {
            NameNeed::Always => true,
            NameNeed::Never => false,
            NameNeed::Glob(g) => g.is_match(name),
            NameNeed::All(a, b) => a.is_match(name) && b.is_match(name),
            NameNeed::Any(a, b) => a.is_match(name) || b.is_match(name),
        }
    }

    fn all<'e>(a: NameNeed<'e>, b: NameNeed<'e>) -> NameNeed<'e> {
        match (a, b) {
            (NameNeed::Never, _) | (_, NameNeed::Never) => NameNeed::Never,
            (NameNeed::Always, x) | (x, NameNeed::Always) => x,
            (a, b) => NameNeed::All(Box::new(a), Box::new(b)),
        }
    }

    fn any<'e>(a: NameNeed<'e>, b: NameNeed<'e>) -> NameNeed<'e> {
        match (a, b) {
            (NameNeed::Always, _) | (_, NameNeed::Always) => NameNeed::Always,
            (NameNeed::Never, x) | (x, NameNeed::Never) => x,
            (a, b) => NameNeed::Any(Box::new(a), Box::new(b)),
        }
    }
}

impl Expr {
    /// What an entry's base name must be for evaluating the expression on
    /// it to have any effect; None when any name may.
    pub fn name_needed_for_effect(&self) -> Option<NameNeed<'_>> {
        match effect(self) {
            NameNeed::Always => None,
            need => Some(need),
        }
    }
}

/// Tests that read nothing but the entry's path and type (which the walk
/// knows before the visit) and never fail, so never report anything.
fn silent(t: &Test) -> bool {
    matches!(t, Test::Const(_) | Test::Name(_) | Test::Path(_) | Test::Regex(_) | Test::Type(_))
}

/// A condition every name of an entry on which `e` has an effect meets.
fn effect(e: &Expr) -> NameNeed<'_> {
    match e {
        // B runs only when A is true.
        Expr::And(a, b) => NameNeed::any(effect(a), NameNeed::all(truth(a), effect(b))),
        Expr::Or(a, b) | Expr::Comma(a, b) => NameNeed::any(effect(a), effect(b)),
        Expr::Not(a) => effect(a),
        Expr::Test(t) if silent(t) => NameNeed::Never,
        Expr::Test(_) | Expr::Action(_) => NameNeed::Always,
    }
}

/// A condition every name of an entry on which `e` is true meets.
fn truth(e: &Expr) -> NameNeed<'_> {
    match e {
        Expr::And(a, b) => NameNeed::all(truth(a), truth(b)),
        Expr::Or(a, b) => NameNeed::any(truth(a), truth(b)),
        Expr::Comma(_, b) => truth(b),
        Expr::Test(Test::Name(g)) => NameNeed::Glob(g),
        Expr::Test(Test::Const(false)) => NameNeed::Never,
        Expr::Not(_) | Expr::Test(_) | Expr::Action(_) => NameNeed::Always,
    }
}

#[cfg(test)]
mod tests {
    fn cmd(args: &[&str]) -> crate::FindCommand {
        let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        crate::parse(&args).unwrap_or_else(|e| panic!("{args:?}: {e}"))
    }

    /// Which of `names` pass the need of `find . ARGS` (all: no need).
    fn passing(args: &[&str], names: &[&str]) -> Vec<String> {
        let c = cmd(args);
        let need = c.expr.name_needed_for_effect();
        let pass = |n: &&&str| need.as_ref().is_none_or(|need| need.is_match(n.as_bytes()));
        names.iter().filter(pass).map(|n| n.to_string()).collect()
    }

    const NAMES: [&str; 4] = ["main.c", "Main.C", "x.h", "README"];

    #[test]
    fn a_name_test_that_must_hold_for_output_filters_names() {
        assert_eq!(passing(&[".", "-name", "main.c"], &NAMES), ["main.c"]);
        assert_eq!(passing(&[".", "-iname", "MAIN.c"], &NAMES), ["main.c", "Main.C"]);
        assert_eq!(passing(&[".", "-type", "f", "-name", "*.h"], &NAMES), ["x.h"]);
        assert_eq!(
            passing(&[".", "-name", "*.c", "-o", "-name", "*.h"], &NAMES),
            ["main.c", "x.h"]
        );
        assert_eq!(passing(&[".", "-name", "*.c", "-print0"], &NAMES), ["main.c"]);
        assert_eq!(passing(&[".", "-false", "-print"], &NAMES), Vec::<String>::new());
    }

    #[test]
    fn anything_that_may_act_or_report_whatever_the_name_keeps_every_name() {
        // Printing everything, negation, a test that stats (and may report
        // an error) before the name, an action before it, alternatives.
        for args in [
            &[".", "-print"][..],
            &["."],
            &[".", "!", "-name", "main.c"],
            &[".", "-size", "+1k", "-name", "main.c"],
            &[".", "-print", "-name", "main.c"],
            &[".", "-name", "main.c", "-o", "-print"],
            &[".", "-name", "main.c", "-o", "-size", "0"],
            &[".", "-name", "*.c", ",", "-print"],
        ] {
            assert_eq!(passing(args, &NAMES), NAMES, "{args:?}");
        }
    }
}
