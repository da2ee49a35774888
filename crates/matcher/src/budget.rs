//! How many false candidates a filtered search may check before it counts
//! as flooded and hands the rest of its haystack to a search that is
//! linear whatever the text (Teddy or an Aho-Corasick automaton of the
//! whole strings).
//!
//! Every filter of this crate (the pair scans of wide_pairs.rs and fold.rs,
//! the four-byte windows of quads.rs, the shared part of factor.rs) finds
//! candidates cheaply and confirms each one at some cost; on text where the
//! filter's bytes are common the confirmations dominate. One rule bounds
//! them all: a few free misses, then one per so many bytes scanned. Each
//! user picks the two numbers from what its confirmation costs against
//! what its fallback costs per byte.

/// How many false candidates a search may check: more than `free`, plus
/// one per `bytes` scanned from `base`, and it is flooded.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MissBudget {
    /// Where the search started.
    pub(crate) base: usize,
    /// Misses allowed before any rate applies.
    pub(crate) free: usize,
    /// Bytes scanned per miss allowed past the free ones.
    pub(crate) bytes: usize,
}

impl MissBudget {
    /// Whether `misses` are past the budget of a search that got to `at`.
    pub(crate) fn spent(self, misses: usize, at: usize) -> bool {
        misses > self.free + at.saturating_sub(self.base) / self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::MissBudget;

    #[test]
    fn the_free_misses_are_spent_first_then_one_per_stretch_of_bytes() {
        let budget = MissBudget { base: 100, free: 16, bytes: 256 };
        assert!(!budget.spent(16, 100));
        assert!(budget.spent(17, 100));
        assert!(budget.spent(17, 355), "255 bytes scanned: no miss earned yet");
        assert!(!budget.spent(17, 356));
        assert!(!budget.spent(20, 100 + 4 * 256));
        assert!(budget.spent(21, 100 + 4 * 256));
    }

    #[test]
    fn bytes_before_the_search_earn_nothing() {
        let budget = MissBudget { base: 1000, free: 4, bytes: 16 };
        assert!(budget.spent(5, 0), "a position before the base counts as the base");
        assert!(budget.spent(5, 1000));
    }
}
