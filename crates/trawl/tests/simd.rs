//! Every vector path of the matcher on this CPU, and the ones below it
//! (`TRAWL_SIMD=avx2`: no AVX-512; `sse2`: no AVX2 either), against GNU
//! grep: fixed strings and sets of every shape the matcher treats apart
//! (one string, a case-blind pair, 2-16 case-blind strings, 9-64 strings,
//! hundreds sharing prefixes), with and without -i, compared exactly.

use crate::util::{Cmd, Tree};

/// A small deterministic generator (xorshift64).
fn next(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

/// Identifier-like words: mixed case, shared prefixes (`AB8…`, `ACP…`),
/// digits and underscores, 2 to 24 bytes.
fn word(s: &mut u64) -> String {
    const PREFIXES: [&str; 6] = ["AB8", "AC1", "ACP", "pm_", "Dev", ""];
    const BYTES: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
    let mut w = PREFIXES[(next(s) % 6) as usize].to_string();
    let len = 2 + (next(s) % 20) as usize;
    while w.len() < len {
        w.push(BYTES[(next(s) % BYTES.len() as u64) as usize] as char);
    }
    w
}

/// A text of lines of words, some upper-cased, some of them in `pool`.
fn text(s: &mut u64, pool: &[String]) -> String {
    let mut out = String::new();
    for _ in 0..4000 {
        let n = 1 + next(s) % 12;
        for i in 0..n {
            let w = match next(s) % 5 {
                0 => pool[(next(s) % pool.len() as u64) as usize].clone(),
                _ => word(s),
            };
            let w = if next(s).is_multiple_of(7) { w.to_ascii_uppercase() } else { w };
            out.push_str(if i == 0 { "" } else { " " });
            out.push_str(&w);
        }
        out.push('\n');
    }
    out
}

#[test]
fn every_vector_level_finds_what_gnu_grep_finds_for_fixed_strings_and_sets() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let pool: Vec<String> = (0..3000).map(|_| word(&mut seed)).collect();
    let tree = Tree::new();
    tree.file("hay.txt", text(&mut seed, &pool));
    // Sets of every size the matcher treats apart; sorted sets share long
    // prefixes in large groups.
    let mut sets: Vec<Vec<String>> = Vec::new();
    for size in [1usize, 2, 5, 12, 16, 40, 64, 200, 1000] {
        let mut set: Vec<String> = (0..size)
            .map(|_| pool[(next(&mut seed) % pool.len() as u64) as usize].clone())
            .collect();
        sets.push(set.clone());
        set.sort();
        sets.push(set);
    }
    for (n, set) in sets.iter().enumerate() {
        let file = format!("set{n}");
        tree.file(&file, set.join("\n") + "\n");
        for case in [&[][..], &["-i"][..]] {
            let args: Vec<&str> =
                [&["-n", "-o", "-F", "-f", &file][..], case, &["hay.txt"]].concat();
            let want = Cmd::grep(tree.path()).env("LC_ALL", "C").args(&args).run();
            for level in ["", "avx2", "sse2"] {
                let got = Cmd::trawl(tree.path())
                    .env("LC_ALL", "C")
                    .env("TRAWL_SIMD", level)
                    .args(&args)
                    .run();
                assert_eq!(
                    (got.code, &got.stdout),
                    (want.code, &want.stdout),
                    "TRAWL_SIMD={level:?} {args:?} ({} strings)",
                    set.len()
                );
            }
        }
    }
}
