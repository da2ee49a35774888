//! A directory entry's name as the walk keeps it between reading the
//! directory and visiting the entry: inline when short, as nearly all are.
//!
//! Each child read used to be a `CString` of its own: a heap block per
//! file, allocated by the thread that read the directory and freed by the
//! one that searched the file. 93% of the Linux sources' names and all of
//! the 400k-file tree's fit in [`INLINE`] bytes.

use std::ffi::{CStr, CString};
use std::ops::Deref;

/// Bytes a name keeps inline, its NUL included.
const INLINE: usize = 32;

/// A NUL-terminated name, inline when it fits.
#[derive(Clone)]
pub(crate) enum Name {
    /// `bytes[..len]` holds no NUL; `bytes[len]` is the NUL.
    Inline {
        len: u8,
        bytes: [u8; INLINE],
    },
    Heap(CString),
}

impl From<&CStr> for Name {
    fn from(name: &CStr) -> Name {
        let with_nul = name.to_bytes_with_nul();
        if with_nul.len() > INLINE {
            return Name::Heap(name.to_owned());
        }
        let mut bytes = [0; INLINE];
        bytes[..with_nul.len()].copy_from_slice(with_nul);
        Name::Inline { len: (with_nul.len() - 1) as u8, bytes }
    }
}

impl Deref for Name {
    type Target = CStr;

    fn deref(&self) -> &CStr {
        match self {
            Name::Inline { len, bytes } => {
                let with_nul = &bytes[..=usize::from(*len)];
                // SAFETY: built from a CStr by `from`: the bytes before
                // `len` hold no NUL and the byte at `len` is the NUL.
                unsafe { CStr::from_bytes_with_nul_unchecked(with_nul) }
            }
            Name::Heap(name) => name,
        }
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::{Name, INLINE};
    use std::ffi::CString;

    #[test]
    fn a_name_reads_back_the_same_inline_or_not() {
        for len in [0, 1, INLINE - 2, INLINE - 1, INLINE, INLINE + 1, 300] {
            let text: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            let c = CString::new(text.clone()).unwrap();
            let name = Name::from(c.as_c_str());
            assert_eq!(name.to_bytes(), &text[..], "{len}");
            assert_eq!(&*name, c.as_c_str());
            assert_eq!(matches!(name, Name::Inline { .. }), len < INLINE, "{len}");
        }
    }

    #[test]
    fn names_not_utf8_are_kept_byte_for_byte() {
        let c = CString::new(vec![0xff, b'x', 0xc3, 0x28]).unwrap();
        assert_eq!(Name::from(c.as_c_str()).to_bytes(), &[0xff, b'x', 0xc3, 0x28]);
    }
}
