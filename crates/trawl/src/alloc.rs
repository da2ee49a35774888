//! The process's allocator: the system's (glibc's malloc), with blocks of
//! 64 KiB and more starting on a cache line.
//!
//! A search reads each file into a 256 KiB buffer; glibc serves a block that
//! large with its own mapping and returns it 16 bytes past the page's start,
//! and the kernel's copy into a destination 16 bytes off a 64-byte boundary
//! is slower: reading the 78,579 files of the Linux sources from the page
//! cache on one core took 520 ms of system time into such a buffer, 493 ms
//! into one on a 64-byte boundary (rounds interleaved, AMD Zen 4).
//!
//! Such a block is asked of malloc, calloc or realloc 64 bytes larger; the
//! address handed out is the first 64-byte boundary at least 8 bytes in, and
//! the 8 bytes before it hold the block's own address (for free and
//! realloc). calloc keeps its fresh mappings untouched until written, and
//! realloc its moving of mappings without a copy (a buffer grown for a long
//! line is not held twice). Other requests go to the system's allocator as
//! they are, so no block changes hands between the two ways.

use std::alloc::{GlobalAlloc, Layout, System};
use std::ptr;

/// The allocator ([`std::alloc::System`] with large blocks on a cache line).
pub struct LineAligned;

/// Size from which blocks start on a cache line.
const LARGE: usize = 64 * 1024;

/// The boundary, and the slack asked for to reach it.
const LINE: usize = 64;

/// The alignment malloc guarantees on x86-64 and aarch64 glibc; requests for
/// more go to [`System`], which serves them another way.
const MALLOC_ALIGN: usize = 16;

/// Whether a block of this layout is one of the large ones served here.
fn ours(size: usize, align: usize) -> bool {
    size >= LARGE && align <= MALLOC_ALIGN
}

/// How far into a block at address `raw` the bytes handed out start: the
/// first cache-line boundary at least 8 bytes in (16 to 64 bytes, `raw`
/// being 16-aligned).
fn offset_in(raw: *mut u8) -> usize {
    let addr = raw as usize;
    ((addr + 8 + LINE - 1) & !(LINE - 1)) - addr
}

/// Writes the block's address before the bytes handed out, and returns them.
///
/// # Safety
/// `raw` is a malloc'd block of at least `LINE` + the caller's size bytes.
unsafe fn publish(raw: *mut u8) -> *mut u8 {
    // SAFETY: the offset is at most LINE, inside the block; the 8 bytes
    // before it are inside the block too (the offset is at least 16), and
    // `data` is 8-aligned.
    unsafe {
        let data = raw.add(offset_in(raw));
        (data as *mut *mut u8).sub(1).write(raw);
        data
    }
}

/// The block's own address, as [`publish`] wrote it.
///
/// # Safety
/// `data` came from [`publish`].
unsafe fn block_of(data: *mut u8) -> *mut u8 {
    // SAFETY: publish wrote the address in the 8 bytes before `data`.
    unsafe { (data as *mut *mut u8).sub(1).read() }
}

// SAFETY: every block handed out is at least the layout's size, aligned to
// at least its alignment (a cache line for ours, the system's guarantee for
// the rest), and each is returned to the way that made it: `ours` depends
// only on the layout, which the caller passes unchanged to dealloc and
// realloc.
unsafe impl GlobalAlloc for LineAligned {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !ours(layout.size(), layout.align()) {
            // SAFETY: the caller's contract, passed on.
            return unsafe { System.alloc(layout) };
        }
        // SAFETY: malloc of a nonzero size; `publish` gets LINE bytes of slack.
        unsafe {
            let raw = libc::malloc(layout.size() + LINE) as *mut u8;
            if raw.is_null() {
                return raw;
            }
            publish(raw)
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !ours(layout.size(), layout.align()) {
            // SAFETY: the caller's contract, passed on.
            return unsafe { System.alloc_zeroed(layout) };
        }
        // SAFETY: as in alloc; calloc's block is zeroed, and publish writes
        // only before the bytes handed out.
        unsafe {
            let raw = libc::calloc(layout.size() + LINE, 1) as *mut u8;
            if raw.is_null() {
                return raw;
            }
            publish(raw)
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if !ours(layout.size(), layout.align()) {
            // SAFETY: the caller's contract: `ptr` came from System with this layout.
            return unsafe { System.dealloc(ptr, layout) };
        }
        // SAFETY: `ptr` came from alloc, alloc_zeroed or realloc here, so
        // from publish over a malloc'd block.
        unsafe { libc::free(block_of(ptr) as *mut libc::c_void) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let (old_ours, new_ours) =
            (ours(layout.size(), layout.align()), ours(new_size, layout.align()));
        if !old_ours && !new_ours {
            // SAFETY: the caller's contract, passed on.
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        let keep = layout.size().min(new_size);
        // SAFETY: a block of one of the two ways is grown or shrunk with
        // realloc (a System block of alignment at most MALLOC_ALIGN is a
        // malloc'd one); the kept bytes are moved to where the new way puts
        // them with an overlapping copy inside the new block, which is
        // large enough for both places.
        unsafe {
            let (raw, old_off) = if old_ours {
                let raw = block_of(ptr);
                (raw, ptr as usize - raw as usize)
            } else {
                (ptr, 0)
            };
            if !new_ours {
                // (So the old block was ours.) Down to a plain block: move the bytes to its start first
                // (realloc may cut the end).
                ptr::copy(raw.add(old_off), raw, keep);
                let shrunk = libc::realloc(raw as *mut libc::c_void, new_size) as *mut u8;
                if shrunk.is_null() {
                    // The old block stays the caller's: put it back as it was.
                    ptr::copy(raw, raw.add(old_off), keep);
                    publish(raw);
                }
                return shrunk;
            }
            let grown = libc::realloc(raw as *mut libc::c_void, new_size + LINE) as *mut u8;
            if grown.is_null() {
                return grown;
            }
            // The bytes are where the old way had them; the header goes
            // in front of the new place only once they are there.
            let data = grown.add(old_off);
            let moved = grown.add(offset_in(grown));
            if moved != data {
                ptr::copy(data, moved, keep);
            }
            publish(grown)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Bytes that tell their place apart.
    fn pattern(len: usize, seed: u8) -> Vec<u8> {
        (0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
    }

    #[test]
    fn large_blocks_start_on_a_cache_line_and_small_ones_as_malloc_gives_them() {
        // The process runs on this allocator (main.rs), so these are its blocks.
        for len in [LARGE, 256 * 1024, 1 << 20, 3 * LARGE + 5] {
            let zeroed = vec![0u8; len];
            assert_eq!(zeroed.as_ptr() as usize % LINE, 0, "zeroed {len}");
            assert!(zeroed.iter().all(|&b| b == 0));
            let mut filled: Vec<u8> = Vec::with_capacity(len);
            assert_eq!(filled.as_ptr() as usize % LINE, 0, "with_capacity {len}");
            filled.extend(pattern(len, 7));
            assert_eq!(filled, pattern(len, 7));
        }
        let small: Vec<u8> = Vec::with_capacity(100);
        assert_eq!(small.as_ptr() as usize % MALLOC_ALIGN, 0);
    }

    #[test]
    fn a_vector_grown_past_the_threshold_and_shrunk_back_keeps_its_bytes() {
        let mut v: Vec<u8> = Vec::new();
        let mut want: Vec<u8> = Vec::new();
        for step in 0..40u8 {
            let more = pattern(7919 * usize::from(step % 13 + 1), step);
            v.extend_from_slice(&more);
            want.extend_from_slice(&more);
            assert_eq!(v, want);
            if v.capacity() >= LARGE {
                assert_eq!(v.as_ptr() as usize % LINE, 0);
            }
        }
        for keep in [300_000, LARGE, LARGE - 1, 1000, 0] {
            v.truncate(keep);
            v.shrink_to_fit();
            assert_eq!(v[..], want[..keep.min(want.len())]);
        }
    }

    #[test]
    fn alignments_beyond_mallocs_go_to_the_system_allocator() {
        let layout = Layout::from_size_align(128 * 1024, 4096).unwrap();
        // SAFETY: a nonzero layout, freed with the same layout.
        unsafe {
            let p = LineAligned.alloc(layout);
            assert!(!p.is_null());
            assert_eq!(p as usize % 4096, 0);
            p.write_bytes(0xa5, layout.size());
            let q = LineAligned.realloc(p, layout, 300 * 1024);
            assert_eq!(q as usize % 4096, 0);
            assert!(std::slice::from_raw_parts(q, layout.size()).iter().all(|&b| b == 0xa5));
            LineAligned.dealloc(q, Layout::from_size_align(300 * 1024, 4096).unwrap());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Any run of reallocs, across the threshold either way, keeps the
        /// bytes both sizes hold, and large blocks stay on a cache line.
        #[test]
        fn reallocs_keep_the_bytes(sizes in proptest::collection::vec(1usize..300_000, 1..8)) {
            // SAFETY: each block is used within its size, reallocated and
            // freed with the layout it was last given.
            unsafe {
                let mut layout = Layout::from_size_align(sizes[0], 1).unwrap();
                let mut p = LineAligned.alloc(layout);
                prop_assert!(!p.is_null());
                let mut want = pattern(sizes[0], 3);
                std::ptr::copy_nonoverlapping(want.as_ptr(), p, want.len());
                for (i, &size) in sizes.iter().enumerate().skip(1) {
                    p = LineAligned.realloc(p, layout, size);
                    prop_assert!(!p.is_null());
                    layout = Layout::from_size_align(size, 1).unwrap();
                    want.truncate(size);
                    prop_assert_eq!(std::slice::from_raw_parts(p, want.len()), &want[..]);
                    if size >= LARGE {
                        prop_assert_eq!(p as usize % LINE, 0);
                    }
                    want = pattern(size, i as u8);
                    std::ptr::copy_nonoverlapping(want.as_ptr(), p, size);
                }
                LineAligned.dealloc(p, layout);
            }
        }
    }
}
