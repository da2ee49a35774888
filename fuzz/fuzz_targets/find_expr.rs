//! The find-expression parser: NUL-separated arguments; parsing may fail
//! with a message, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let args: Vec<Vec<u8>> = data.split(|&b| b == 0).map(<[u8]>::to_vec).collect();
    // Never create files while fuzzing: drop expressions that would.
    if args.iter().any(|a| a.starts_with(b"-f") || a == b"-delete" || a.starts_with(b"-exec")) {
        return;
    }
    let _ = trawl_select::parse(&args);
});
