//! A walking thread's (gram, number) pairs not yet spilled: buffered,
//! sorted (a radix sort) and written as one run ([`crate::spill`]) each
//! time the buffer fills, so a build's memory does not grow with the tree.

use std::io;
use std::path::Path;

use crate::spill::RunWriter;

/// Pairs buffered per thread before they are spilled as a run (8 MB, and
/// as much again to sort them); small in tests, so there are many runs.
const BATCH: usize = if cfg!(test) { 4096 } else { 1 << 20 };

/// One thread's pairs `gram << 32 | number`, and its runs.
pub(crate) struct Pending {
    pairs: Vec<u64>,
    /// Where each number's pairs are in `pairs` (each number is added
    /// once, its grams together).
    added: Vec<(u32, std::ops::Range<usize>)>,
    scratch: Vec<u64>,
    /// Its runs (None: the spill file could not be made; see `error`).
    runs: Option<RunWriter>,
    /// The first failure to spill (the build fails).
    error: Option<io::Error>,
}

impl Pending {
    /// Pairs spilled to an unnamed file in `spill_dir`.
    pub(crate) fn new(spill_dir: &Path) -> Pending {
        let (runs, error) = match RunWriter::new(spill_dir) {
            Ok(w) => (Some(w), None),
            Err(e) => (None, Some(e)),
        };
        Pending { pairs: Vec::new(), added: Vec::new(), scratch: Vec::new(), runs, error }
    }

    /// Posts `number` under each of `grams`.
    pub(crate) fn add(&mut self, number: u32, grams: &[u32]) {
        let start = self.pairs.len();
        self.pairs.extend(grams.iter().map(|&g| u64::from(g) << 32 | u64::from(number)));
        self.added.push((number, start..self.pairs.len()));
        if self.pairs.len() >= BATCH {
            self.flush();
        }
    }

    /// The runs, everything spilled; or the first failure to spill.
    pub(crate) fn finish(mut self) -> io::Result<RunWriter> {
        self.flush();
        match (self.error, self.runs) {
            (Some(e), _) => Err(e),
            (None, Some(runs)) => Ok(runs),
            (None, None) => Err(io::Error::other("no spill file")),
        }
    }

    /// Sorts the pairs by gram and, for each gram, by number, and spills
    /// them as a run.
    fn flush(&mut self) {
        if self.pairs.is_empty() {
            return;
        }
        // A least significant digit radix sort on the gram's three bytes,
        // stable, whose first pass takes the numbers in growing order (a
        // thread reads the files of many directories, in any order, so
        // its numbers do not come growing): each gram's numbers come out
        // growing. A byte that is the same in every pair is not sorted on.
        self.added.sort_unstable_by_key(|(number, _)| *number);
        self.scratch.resize(self.pairs.len(), 0);
        let mut in_number_order = false;
        for shift in [32, 40, 48] {
            let mut counts = [0usize; 257];
            for &p in &self.pairs {
                counts[((p >> shift) & 0xff) as usize + 1] += 1;
            }
            if counts.contains(&self.pairs.len()) && in_number_order {
                continue;
            }
            for i in 1..257 {
                counts[i] += counts[i - 1];
            }
            let mut place = |p: u64| {
                let digit = ((p >> shift) & 0xff) as usize;
                self.scratch[counts[digit]] = p;
                counts[digit] += 1;
            };
            match in_number_order {
                true => self.pairs.iter().for_each(|&p| place(p)),
                false => {
                    for (_, span) in &self.added {
                        self.pairs[span.clone()].iter().for_each(|&p| place(p));
                    }
                }
            }
            std::mem::swap(&mut self.pairs, &mut self.scratch);
            in_number_order = true;
        }
        if let Some(runs) = &mut self.runs {
            if let Err(e) = runs.write_run(&self.pairs) {
                self.error.get_or_insert(e);
            }
        }
        self.pairs.clear();
        self.added.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_added_in_any_order_are_spilled_sorted_by_gram_then_number() {
        let dir = tempfile::tempdir().unwrap();
        let mut pending = Pending::new(dir.path());
        let mut want = Vec::new();
        let mut seed = 11u64;
        // More than a batch: several runs, each sorted.
        for _ in 0..3 * BATCH / 4 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let number = (seed >> 33) as u32 | if seed & 1 == 0 { 1 << 31 } else { 0 };
            let grams = [(seed >> 8) as u32 % 5000, 7_000_000 + (seed >> 20) as u32 % 3];
            pending.add(number, &grams);
            want.extend(grams.map(|g| (g, number)));
        }
        let merged = crate::spill::Merge::new(vec![pending.finish().unwrap()]).unwrap();
        let mut got = Vec::new();
        for item in merged {
            let (gram, numbers) = item.unwrap();
            got.extend(numbers.iter().map(|n| (gram, n)));
        }
        want.sort_unstable();
        want.dedup();
        assert_eq!(got, want);
    }
}
