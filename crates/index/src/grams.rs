//! The trigrams of a text (bytes as they are), collected into a set that is reused
//! from file to file (a bit per possible gram, cleared by what was set).

use crate::plan::Gram;

/// The distinct grams of one text.
pub struct GramSet {
    /// 2^24 bits: one per possible gram.
    bits: Vec<u64>,
    /// The grams set, in the order met (cleared with them).
    found: Vec<u32>,
    /// The last two bytes of the text added so far (grams cross calls).
    tail: u32,
    /// Bytes added so far, up to 2 (no gram before the third).
    seen: u8,
}

impl Default for GramSet {
    fn default() -> Self {
        GramSet { bits: vec![0; (1 << 24) / 64], found: Vec::new(), tail: 0, seen: 0 }
    }
}

/// A gram as a number (its bytes big-endian).
pub fn gram_id(g: Gram) -> u32 {
    u32::from(g[0]) << 16 | u32::from(g[1]) << 8 | u32::from(g[2])
}

/// The gram of a number made by [`gram_id`].
#[cfg(test)]
pub fn gram_of(id: u32) -> Gram {
    [(id >> 16) as u8, (id >> 8) as u8, id as u8]
}

impl GramSet {
    /// Adds the grams of `text`, which follows what was added before
    /// (a text may come in pieces).
    pub fn add(&mut self, text: &[u8]) {
        for &b in text {
            let b = u32::from(b);
            self.tail = (self.tail << 8 | b) & 0xff_ffff;
            if self.seen < 2 {
                self.seen += 1;
                continue;
            }
            let id = self.tail;
            let (word, bit) = ((id >> 6) as usize, 1u64 << (id & 63));
            if self.bits[word] & bit == 0 {
                self.bits[word] |= bit;
                self.found.push(id);
            }
        }
    }

    /// Whether the text holds `g`.
    #[cfg(test)]
    pub fn contains(&self, g: Gram) -> bool {
        let id = gram_id(g);
        self.bits[(id >> 6) as usize] & (1u64 << (id & 63)) != 0
    }

    /// The grams found, sorted; the set is then empty for the next text.
    pub fn take_sorted(&mut self) -> Vec<u32> {
        for &id in &self.found {
            self.bits[(id >> 6) as usize] = 0;
        }
        let mut found = std::mem::take(&mut self.found);
        found.sort_unstable();
        self.tail = 0;
        self.seen = 0;
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grams_keep_their_case_are_distinct_and_cross_pieces() {
        let mut set = GramSet::default();
        set.add(b"AbCa");
        set.add(b"bCa");
        assert!(set.contains(*b"AbC") && set.contains(*b"Cab") && !set.contains(*b"abc"));
        let ids = set.take_sorted();
        let grams: Vec<Gram> = ids.iter().map(|&i| gram_of(i)).collect();
        assert_eq!(grams, [*b"AbC", *b"Cab", *b"abC", *b"bCa"]);
        assert!(!set.contains(*b"abc"), "taken: the set is empty again");
        set.add(b"xy");
        assert!(set.take_sorted().is_empty());
    }
}
