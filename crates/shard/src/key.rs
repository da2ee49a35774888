//! Where a root's output goes in the merged output: one trawl with `--sort
//! path` walks its operands in order, each depth first with a directory's
//! entries by name bytes, so roots are ordered by operand, then by the
//! components of their path (the display without its `WORKER:`): an
//! operand's part `shared:/proj/b` sorts where `b` sorts in the walk of
//! `shared:/proj`, before `b.txt`.

/// A root's place in the merged output.
#[derive(Clone, Debug, Eq, Ord, PartialEq, PartialOrd)]
pub struct RootKey {
    operand: u64,
    components: Vec<Vec<u8>>,
}

impl RootKey {
    /// The place of the root of operand number `operand` shown as `display`
    /// (`WORKER:PATH`: its path's place, whichever worker walks it).
    pub fn new(operand: u64, display: &[u8]) -> RootKey {
        let path = match memchr_colon(display) {
            Some(i) => &display[i + 1..],
            None => display,
        };
        let components =
            path.split(|&b| b == b'/').filter(|c| !c.is_empty()).map(<[u8]>::to_vec).collect();
        RootKey { operand, components }
    }
}

/// Where the worker's name ends in a display.
fn memchr_colon(display: &[u8]) -> Option<usize> {
    display.iter().position(|&b| b == b':')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_sort_as_a_sorted_walk_meets_them() {
        let mut keys = vec![
            RootKey::new(1, b"fs2:/b"),
            RootKey::new(0, b"shared:/proj/b.txt"),
            RootKey::new(0, b"shared:/proj/b/"),
            RootKey::new(0, b"shared:/proj/B"),
            RootKey::new(0, b"shared:/proj/b-c"),
        ];
        keys.push(RootKey::new(0, b"other:/proj/a"));
        keys.sort();
        let want = [
            RootKey::new(0, b"shared:/proj/B"),
            RootKey::new(0, b"w2:/proj/a"),
            RootKey::new(0, b"shared:/proj/b"),
            RootKey::new(0, b"shared:/proj/b-c"),
            RootKey::new(0, b"shared:/proj/b.txt"),
            RootKey::new(1, b"fs2:/b"),
        ];
        assert_eq!(keys, want);
    }
}
