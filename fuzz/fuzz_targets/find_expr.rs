//! The find-expression parser: NUL-separated arguments; parsing may fail
//! with a message, never panic. An argument starting with byte 0xFF is a
//! word of find's language chosen by the next byte (every predicate,
//! operator, -regextype name and date word), so that the fuzzer builds
//! expressions GNU find's users write (`-newermt '2 days ago'`, `-used 3`,
//! `-regextype posix-awk -regex ...`) rather than random bytes alone.
#![no_main]

use libfuzzer_sys::fuzz_target;

const WORDS: &[&str] = &[
    // Operators.
    "(",
    ")",
    "!",
    "-not",
    "-a",
    "-and",
    "-o",
    "-or",
    ",",
    // Options.
    "-maxdepth",
    "-mindepth",
    "-depth",
    "-d",
    "-xdev",
    "-mount",
    "-daystart",
    "-follow",
    "-ignore_readdir_race",
    "-noignore_readdir_race",
    "-noleaf",
    "-warn",
    "-nowarn",
    "-regextype",
    "-search-zip",
    "-docs",
    // Tests.
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-lname",
    "-ilname",
    "-regex",
    "-iregex",
    "-type",
    "-xtype",
    "-fstype",
    "-size",
    "-empty",
    "-newer",
    "-anewer",
    "-cnewer",
    "-newerat",
    "-newerBt",
    "-newerct",
    "-newermt",
    "-newerma",
    "-newerBm",
    "-newercB",
    "-newermm",
    "-newertm",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-used",
    "-perm",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-nouser",
    "-nogroup",
    "-links",
    "-inum",
    "-samefile",
    "-readable",
    "-writable",
    "-executable",
    "-true",
    "-false",
    "-text",
    "-binary",
    "-contains",
    "-kind",
    // Actions that create nothing while parsing.
    "-print",
    "-print0",
    "-printf",
    "-ls",
    "-prune",
    "-quit",
    "-delete",
    "-exec",
    "-execdir",
    "-ok",
    "-okdir",
    "{}",
    ";",
    "+",
    // -regextype names.
    "emacs",
    "findutils-default",
    "posix-basic",
    "posix-extended",
    "posix-egrep",
    "egrep",
    "awk",
    "posix-awk",
    "gnu-awk",
    "grep",
    "ed",
    "sed",
    "posix-minimal-basic",
    // Dates and numbers as GNU date and find read them.
    "@0",
    "@-1.5",
    "now",
    "today",
    "yesterday",
    "tomorrow",
    "2024-01-01",
    "2024-01-01 12:00",
    "2024-01-01T12:00:00Z",
    "12:00 UTC",
    "1 day ago",
    "-3 weeks",
    "next monday",
    "last fri",
    "+1",
    "-1",
    "0",
    "1k",
    "-+2",
    "18446744073709551616",
    "1.5",
    "u=X",
    "/u=x",
    "-g+w",
    "%p %Tc %A+ %-10s %#m %+03d\\n",
    ".",
    "*.c",
    "[a-",
    "\\",
    ".*/\\(a\\)\\1",
    "*.*/{l",
];

fuzz_target!(|data: &[u8]| {
    let args: Vec<Vec<u8>> = data
        .split(|&b| b == 0)
        .map(|a| match a {
            [0xFF, i, rest @ ..] => {
                let mut w = WORDS[usize::from(*i) % WORDS.len()].as_bytes().to_vec();
                w.extend_from_slice(rest);
                w
            }
            _ => a.to_vec(),
        })
        .collect();
    // Never create files (-fprint, -fls) or read them (-files0-from, or
    // standard input with -) while fuzzing.
    if args
        .iter()
        .any(|a| a.starts_with(b"-fprint") || a.starts_with(b"-fls") || a.starts_with(b"-files0"))
    {
        return;
    }
    let _ = trawl_select::parse(&args);
});
