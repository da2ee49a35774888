//! Large files searched in parts by several threads: the output must be
//! GNU grep's, byte for byte, whatever falls on a part edge.

use crate::util::{clip, engine_flags, lines, Tree};

/// A file over the size searched in parts (16 MiB): lines of varied length,
/// "needleN" on some, a 3 MB line crossing a part edge, runs of empty lines,
/// no newline at the end; again with small files beside it under tree/;
/// and a copy with a NUL after 17 MiB.
fn huge() -> Tree {
    let t = Tree::new();
    let mut data = Vec::with_capacity(21 << 20);
    let mut x: u64 = 7;
    let mut i = 0u64;
    while data.len() < 20 << 20 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let r = x >> 33;
        match r % 97 {
            0 => data.extend_from_slice(format!("needle{i} at the start\n").as_bytes()),
            1 => data.extend_from_slice(b"\n\n\n"),
            2 if i.is_multiple_of(50) => data.extend_from_slice(
                format!("x{} needle{i}\n", "y".repeat((r % 9000) as usize)).as_bytes(),
            ),
            _ => data.extend_from_slice(
                format!("filler line {i} {}\n", "z".repeat((r % 120) as usize)).as_bytes(),
            ),
        }
        if data.len() > 9 << 20 && data.len() < (9 << 20) + 200 {
            data.extend(std::iter::repeat_n(b'q', 3 << 20));
            data.extend_from_slice(b" needle in the long line\n");
        }
        i += 1;
    }
    data.extend_from_slice(b"last needle without newline");
    t.file("huge.txt", &data);
    t.file("tree/huge.txt", &data);
    t.file("tree/small/a.txt", "needle small\nnot\n").file("tree/small/b.txt", "nothing\n");
    let mut late = data[..17 << 20].to_vec();
    late.extend_from_slice(b"a NUL \0 here needle\n");
    late.extend_from_slice(&data[..1 << 20]);
    t.file("late_nul.bin", &late);
    t
}

engines!(huge_file_lines_and_numbers, |e| {
    let t = huge();
    t.parity(e).args(["-n", "needle\\d+", "huge.txt"]).exact().check();
    t.parity(e).args(["-b", "-n", "needle", "huge.txt"]).exact().check();
});
engines!(huge_file_counts, |e| {
    let t = huge();
    t.parity(e).args(["-c", "needle", "huge.txt"]).exact().check();
    t.parity(e).args(["-c", "-v", "needle", "huge.txt"]).exact().check();
    t.parity(e).args(["-c", "^$", "huge.txt"]).exact().check();
});
engines!(huge_file_context_across_parts, |e| {
    let t = huge();
    t.parity(e).args(["-n", "-C", "3", "needle", "huge.txt"]).exact().check();
    t.parity(e).args(["-n", "-B", "5", "needle1\\d", "huge.txt"]).exact().check();
});
engines!(huge_file_max_count_only_matching, |e| {
    let t = huge();
    t.parity(e).args(["-n", "-m", "700", "-A", "2", "needle", "huge.txt"]).exact().check();
    t.parity(e).args(["-c", "-m", "5000", "filler", "huge.txt"]).exact().check();
    t.parity(e).args(["-o", "-b", "needle\\d+", "huge.txt"]).exact().check();
});
engines!(huge_file_among_small_ones, |e| {
    let t = huge();
    // Found by recursion: the walk gives no size, the first read tells.
    t.parity(e).args(["-n", "needle", "tree"]).check();
    t.parity(e).args(["-l", "needle", "tree"]).check();
    t.parity(e).args(["-L", "needle1234567", "tree"]).check();
    t.parity(e).trawl_args(["-j", "4"]).args(["-c", "needle", "tree"]).check();
});
engines!(huge_file_with_a_late_nul, |e| {
    let t = huge();
    t.parity(e).args(["-c", "needle", "late_nul.bin"]).exact().check();
    t.parity(e).args(["-l", "NUL", "late_nul.bin"]).exact().check();
    t.parity(e).args(["-c", "-a", "needle", "late_nul.bin"]).exact().check();
});
engines!(huge_files_output_stays_together_while_streamed, |e| {
    // Four files printing ~20 MB each: each is written in pieces as it is
    // found, with standard output held, while the others wait (without the
    // hold, pieces of different files interleave in every run of a release
    // build; the unit test in output.rs checks the hold itself).
    let t = Tree::new();
    let mut data = Vec::with_capacity(21 << 20);
    for i in 0.. {
        if data.len() >= 20 << 20 {
            break;
        }
        data.extend_from_slice(format!("filler line {i} {}\n", "z".repeat(i % 120)).as_bytes());
    }
    for k in 0..4 {
        t.file(format!("tree/huge{k}.txt"), &data);
    }
    for i in 0..100 {
        t.file(format!("tree/many/{i}.txt"), format!("filler {i}\nother\n"));
    }
    t.parity(e).trawl_args(["-j", "4"]).args(["-n", "filler", "tree"]).check();
    for args in [&["-n", "filler", "tree"][..], &["-C", "1", "line 7", "tree"]] {
        for _ in 0..2 {
            let r = t.trawl().args(engine_flags(e)).args(["-j", "4"]).args(args).run();
            r.assert_code(0).assert_no_stderr();
            // Each file's lines (and the `--` inside its groups) form one
            // run; a file's name never comes back after another's.
            let mut seen = std::collections::HashSet::new();
            let mut last: &[u8] = b"";
            for l in lines(&r.stdout).into_iter().filter(|l| *l != b"--") {
                let name = &l[..l.iter().position(|&b| b == b':' || b == b'-').unwrap_or(l.len())];
                if name != last {
                    assert!(seen.insert(name.to_vec()), "{} interleaved ({args:?})", clip(name));
                    last = name;
                }
            }
        }
    }
});
engines!(huge_file_read_instead_of_mapped, |e| {
    let t = huge();
    t.parity(e)
        .trawl_args(["--no-mmap"])
        .args(["-n", "-C", "2", "needle", "huge.txt"])
        .exact()
        .check();
    t.parity(e).trawl_args(["--no-mmap"]).args(["-c", "needle", "late_nul.bin"]).exact().check();
});
engines!(huge_file_with_nul_ended_lines, |e| {
    // The same lines ended by NUL, with newlines inside them: parts and
    // line numbers follow the NULs (-z).
    let t = huge();
    let data = std::fs::read(t.path().join("huge.txt")).unwrap();
    let swapped: Vec<u8> = data
        .iter()
        .map(|&b| match b {
            b'\n' => 0,
            b'z' => b'\n',
            b => b,
        })
        .collect();
    t.file("nul.txt", &swapped);
    t.parity(e).args(["-z", "-n", "needle\\d+", "nul.txt"]).records(0).exact().check();
    t.parity(e).args(["-z", "-c", "needle", "nul.txt"]).exact().check();
    t.parity(e).args(["-z", "-n", "-C", "2", "needle1\\d", "nul.txt"]).records(0).exact().check();
    t.parity(e).args(["-z", "-o", "-b", "4\\s+\\d", "nul.txt"]).records(0).exact().check();
});
