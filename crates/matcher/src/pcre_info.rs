//! What PCRE2 knows of a compiled pattern that the `pcre2` crate does not
//! expose: the byte every match must contain. The crate keeps its compiled
//! code private, so the pattern is compiled once more here, without JIT
//! (microseconds), and freed at once.

use pcre2_sys::{
    pcre2_code_free_8, pcre2_compile_8, pcre2_pattern_info_8, PCRE2_CASELESS,
    PCRE2_INFO_FIRSTCODETYPE, PCRE2_INFO_LASTCODETYPE, PCRE2_INFO_LASTCODEUNIT, PCRE2_MULTILINE,
};

/// A byte that every match of `pattern` contains (PCRE2's "last code unit":
/// the rightmost literal byte required other than at the match's start),
/// when the pattern has no known first byte, so that PCRE2's own start
/// search cannot skip ahead. Both cases of a letter count, as PCRE2 may
/// have folded it. None when PCRE2 knows no such byte or the pattern does
/// not compile.
pub(crate) fn required_byte(pattern: &str, caseless: bool, multi_line: bool) -> Option<u8> {
    let mut options = 0;
    if caseless {
        options |= PCRE2_CASELESS;
    }
    if multi_line {
        options |= PCRE2_MULTILINE;
    }
    let mut error = 0;
    let mut offset = 0usize;
    // SAFETY: the pointer and length describe `pattern`'s bytes, which
    // PCRE2 reads during the call only; the out-parameters are locals; a
    // null context means PCRE2's defaults.
    let code = unsafe {
        pcre2_compile_8(
            pattern.as_ptr(),
            pattern.len(),
            options,
            &mut error,
            &mut offset,
            std::ptr::null_mut(),
        )
    };
    if code.is_null() {
        return None;
    }
    let info = |what: u32| -> Option<u32> {
        let mut value: u32 = 0;
        // SAFETY: `code` is a live compiled pattern (freed below, after the
        // last call); these three items are documented to write a uint32_t.
        let rc = unsafe { pcre2_pattern_info_8(code, what, (&mut value as *mut u32).cast()) };
        (rc == 0).then_some(value)
    };
    let first_type = info(PCRE2_INFO_FIRSTCODETYPE);
    let last_type = info(PCRE2_INFO_LASTCODETYPE);
    let last = info(PCRE2_INFO_LASTCODEUNIT);
    // SAFETY: `code` came from pcre2_compile_8 and is not used again.
    unsafe { pcre2_code_free_8(code) };
    match (first_type?, last_type?, last?) {
        (0, 1, byte) => u8::try_from(byte).ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::required_byte;

    #[test]
    fn a_required_byte_is_known_only_without_a_first_byte() {
        assert_eq!(required_byte(r"(\w+)\s*=\s*\1\b", false, true), Some(b'='));
        // A first byte of its own: PCRE2's start search already skips ahead.
        assert_eq!(required_byte(r"x(\w+)=", false, true), None);
        assert_eq!(required_byte(r"\w+", false, true), None);
        assert_eq!(required_byte(r"(", false, true), None);
    }
}
