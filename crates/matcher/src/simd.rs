//! Which vector instructions the matcher's own paths may use: what the CPU
//! has, capped by the environment variable `TRAWL_SIMD` (read once):
//! `avx2` turns the AVX-512 paths off (as on a CPU without AVX-512), `sse2`
//! the AVX2 ones too; unset, empty or any other value leaves what the CPU
//! has. The tests and bench/run use it to run every path on one machine;
//! the engines of the regex, memchr and aho-corasick crates choose their
//! own.

use std::sync::OnceLock;

/// A level of vector instructions, in order.
#[derive(Clone, Copy, Debug, Eq, Ord, PartialEq, PartialOrd)]
pub enum Level {
    /// SSE2 (every x86-64 CPU).
    Sse2,
    /// AVX2.
    Avx2,
    /// AVX-512 (BW, and VBMI where a path needs it).
    Avx512,
}

/// The highest level `TRAWL_SIMD` allows.
pub fn cap() -> Level {
    static CAP: OnceLock<Level> = OnceLock::new();
    *CAP.get_or_init(|| cap_of(std::env::var_os("TRAWL_SIMD").as_deref()))
}

/// The cap a value of `TRAWL_SIMD` names.
fn cap_of(value: Option<&std::ffi::OsStr>) -> Level {
    match value.and_then(|v| v.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("sse2") => Level::Sse2,
        Some("avx2") => Level::Avx2,
        _ => Level::Avx512,
    }
}

/// Whether AVX2 may be used: the CPU has it and the cap allows it.
pub(crate) fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    return cap() >= Level::Avx2 && std::arch::is_x86_feature_detected!("avx2");
    #[allow(unreachable_code)]
    false
}

/// Whether AVX-512 BW may be used.
pub(crate) fn avx512bw() -> bool {
    #[cfg(target_arch = "x86_64")]
    return cap() >= Level::Avx512 && std::arch::is_x86_feature_detected!("avx512bw");
    #[allow(unreachable_code)]
    false
}

/// Whether AVX-512 BW and VBMI may be used.
pub(crate) fn avx512vbmi() -> bool {
    #[cfg(target_arch = "x86_64")]
    return avx512bw() && std::arch::is_x86_feature_detected!("avx512vbmi");
    #[allow(unreachable_code)]
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn trawl_simd_caps_the_level_and_anything_else_leaves_it() {
        assert_eq!(cap_of(Some(OsStr::new("avx2"))), Level::Avx2);
        assert_eq!(cap_of(Some(OsStr::new("SSE2"))), Level::Sse2);
        assert_eq!(cap_of(Some(OsStr::new("avx512"))), Level::Avx512);
        assert_eq!(cap_of(Some(OsStr::new(""))), Level::Avx512);
        assert_eq!(cap_of(None), Level::Avx512);
    }
}
