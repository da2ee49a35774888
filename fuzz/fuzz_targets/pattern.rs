//! The pattern front end: any bytes as a pattern, under every dialect and
//! option; building may fail, but nothing panics, and a built matcher runs
//! on a haystack made of the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_matcher::{Engine, Matcher, MatcherBuilder, Syntax};

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else { return };
    let split = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
    let (pattern, hay) = rest.split_at(split);
    let mut b = MatcherBuilder::new();
    b.syntax(match flags & 3 {
        0 => Syntax::Perl,
        1 => Syntax::Basic,
        _ => Syntax::Fixed,
    })
    .engine(match (flags >> 2) & 3 {
        0 => Engine::Auto,
        1 => Engine::Rust,
        _ => Engine::Pcre2,
    })
    .ignore_case(flags & 16 != 0)
    .smart_case(flags & 32 != 0)
    .word(flags & 64 != 0)
    .line(flags & 128 != 0);
    if let Ok(m) = b.build(&[pattern.to_vec()]) {
        let mut at = 0;
        while at <= hay.len() {
            match m.find_at(hay, at) {
                Ok(Some(x)) => {
                    assert!(x.start <= x.end && x.end <= hay.len() && x.start >= at);
                    assert!(!hay[x.start..x.end].contains(&b'\n'), "a match crossed a line");
                    at = if x.end > x.start { x.end } else { x.end + 1 };
                }
                _ => break,
            }
        }
    }
});
