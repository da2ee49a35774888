//! Fixed strings grouped by a hashed slot, longest first within a slot: the
//! table shift.rs and shift_or.rs look a candidate's strings up in, where
//! the first string that matches at a place is the longest there (grep
//! -F's leftmost-longest rule, once places are tried in order).

/// Per slot, its entries (one per string), longest string first.
#[derive(Clone, Debug)]
pub(crate) struct Slots<T> {
    /// Slot `s`'s entries are `entries[bucket[s]..bucket[s + 1]]`.
    bucket: Box<[u32]>,
    entries: Box<[T]>,
}

impl<T: Copy> Slots<T> {
    /// `slots` slots; string `i` goes to `slot_of(i)` as `entry(i)`.
    pub(crate) fn new(
        patterns: &[Box<[u8]>],
        slots: usize,
        slot_of: impl Fn(usize) -> usize,
        entry: impl Fn(usize) -> T,
    ) -> Slots<T> {
        let mut bucket = vec![0u32; slots + 1];
        for i in 0..patterns.len() {
            bucket[slot_of(i) + 1] += 1;
        }
        for s in 0..slots {
            bucket[s + 1] += bucket[s];
        }
        let mut next = bucket.clone();
        let mut order: Vec<usize> = (0..patterns.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(patterns[i].len()));
        let mut entries: Vec<Option<T>> = vec![None; patterns.len()];
        for i in order {
            let s = slot_of(i);
            entries[next[s] as usize] = Some(entry(i));
            next[s] += 1;
        }
        let entries = entries.into_iter().map(|e| e.expect("every place filled")).collect();
        Slots { bucket: bucket.into_boxed_slice(), entries }
    }

    /// Slot `s`'s entries, longest string first.
    #[inline(always)]
    pub(crate) fn get(&self, s: usize) -> &[T] {
        &self.entries[self.bucket[s] as usize..self.bucket[s + 1] as usize]
    }
}
