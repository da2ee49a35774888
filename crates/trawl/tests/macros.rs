//! `engines!` runs a test body once per regex engine.
//!
//! ```ignore
//! engines!(finds_literal, |e| basic().parity(e).args(["foo", "."]).check());
//! engines!(pcre: backreference, |e| ...);
//! ```
//!
//! makes a module `finds_literal` with the tests `engine_rust` (trawl gets
//! `--engine rust`) and `engine_pcre2` (trawl gets `-P`). With `pcre:` the
//! pattern needs PCRE2 (backreferences, look-around): the first half becomes
//! `engine_auto` and runs trawl without an engine option, so the automatic
//! choice must pick PCRE2.

macro_rules! engines {
    (pcre: $name:ident, $body:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[test]
            fn engine_auto() {
                let f: fn($crate::util::Engine) = $body;
                f($crate::util::Engine::Auto);
            }

            #[test]
            fn engine_pcre2() {
                let f: fn($crate::util::Engine) = $body;
                f($crate::util::Engine::Pcre2);
            }
        }
    };
    ($name:ident, $body:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[test]
            fn engine_rust() {
                let f: fn($crate::util::Engine) = $body;
                f($crate::util::Engine::Rust);
            }

            #[test]
            fn engine_pcre2() {
                let f: fn($crate::util::Engine) = $body;
                f($crate::util::Engine::Pcre2);
            }
        }
    };
}

/// `parity!(name, fixture, [args...])`: a differential test over the whole
/// tree made by `fixture`, under both engines (`parity!(pcre: ...)` for
/// patterns that need PCRE2).
macro_rules! parity {
    (pcre: $name:ident, $fixture:expr, [$($arg:expr),* $(,)?]) => {
        engines!(pcre: $name, |e| {
            let t = $fixture();
            t.parity(e).args([$($arg),*]).check();
        });
    };
    ($name:ident, $fixture:expr, [$($arg:expr),* $(,)?]) => {
        engines!($name, |e| {
            let t = $fixture();
            t.parity(e).args([$($arg),*]).check();
        });
    };
}
