//! A build's (gram, entry) pairs, spilled to disk in sorted runs and
//! merged gram by gram as the index file is written, so a build's memory
//! does not grow with the tree (the postings of the Linux tree's 1.3 GB
//! held as bitmaps took 370 MB; zoekt and others run out of memory
//! merging). Each thread writes its runs to its own unnamed temporary
//! file, which disappears with the process, even after `kill -9`.
//!
//! A run is a sequence of groups, by growing gram: the gram's distance
//! from the previous one, the number of entries, then the entries (the
//! first, then each one's distance from the one before), all as LEB128
//! varints. Within a run a gram's entries grow (a thread numbers its
//! directories' entries in growing blocks), so the distances are small.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

use roaring::RoaringBitmap;

fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push(n as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Bytes a build sets aside until the index file is written (the filters
/// of texts that look random), in one unnamed temporary file shared by
/// the build's threads: memory does not grow with them.
pub struct Blobs {
    file: std::sync::Mutex<(File, u64)>,
}

impl Blobs {
    /// An empty store whose file lives (unnamed) in `dir`.
    pub fn new(dir: &Path) -> io::Result<Blobs> {
        Ok(Blobs { file: std::sync::Mutex::new((tempfile::tempfile_in(dir)?, 0)) })
    }

    /// Keeps `bytes`; their offset and length.
    pub fn put(&self, bytes: &[u8]) -> io::Result<(u64, u32)> {
        let len = u32::try_from(bytes.len()).map_err(|_| io::Error::other("blob too large"))?;
        let mut f = self.file.lock().unwrap_or_else(|p| p.into_inner());
        let at = f.1;
        f.0.write_all_at(bytes, at)?;
        f.1 += u64::from(len);
        Ok((at, len))
    }

    /// The bytes kept at `at`.
    pub fn read(&self, at: u64, len: u32) -> io::Result<Vec<u8>> {
        let mut out = vec![0; len as usize];
        let f = self.file.lock().unwrap_or_else(|p| p.into_inner());
        f.0.read_exact_at(&mut out, at)?;
        Ok(out)
    }
}

/// One thread's runs, in one temporary file.
pub struct RunWriter {
    file: File,
    end: u64,
    runs: Vec<(u64, u64)>,
    buf: Vec<u8>,
}

impl RunWriter {
    /// A writer whose file lives (unnamed) in `dir`.
    pub fn new(dir: &Path) -> io::Result<RunWriter> {
        Ok(RunWriter {
            file: tempfile::tempfile_in(dir)?,
            end: 0,
            runs: Vec::new(),
            buf: Vec::new(),
        })
    }

    /// Writes a run of pairs `gram << 32 | entry`, sorted by gram and, for
    /// each gram, by entry.
    pub fn write_run(&mut self, pairs: &[u64]) -> io::Result<()> {
        if pairs.is_empty() {
            return Ok(());
        }
        self.buf.clear();
        let mut prev_gram = 0u64;
        for group in pairs.chunk_by(|a, b| a >> 32 == b >> 32) {
            let gram = group[0] >> 32;
            put_varint(&mut self.buf, gram - prev_gram);
            prev_gram = gram;
            put_varint(&mut self.buf, group.len() as u64);
            let mut prev = 0u64;
            for &p in group {
                let id = p & 0xffff_ffff;
                if id < prev {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "a run's entries must grow within a gram",
                    ));
                }
                put_varint(&mut self.buf, id - prev);
                prev = id;
            }
        }
        self.file.write_all_at(&self.buf, self.end)?;
        self.runs.push((self.end, self.buf.len() as u64));
        self.end += self.buf.len() as u64;
        Ok(())
    }
}

/// A run being read back.
struct RunReader {
    file: Arc<File>,
    pos: u64,
    end: u64,
    buf: Vec<u8>,
    at: usize,
    gram: u64,
}

const READ_BUF: usize = 64 << 10;

impl RunReader {
    fn byte(&mut self) -> io::Result<u8> {
        if self.at == self.buf.len() {
            let want = (self.end - self.pos).min(READ_BUF as u64) as usize;
            if want == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "a spilled run ends early",
                ));
            }
            self.buf.resize(want, 0);
            self.file.read_exact_at(&mut self.buf, self.pos)?;
            self.pos += want as u64;
            self.at = 0;
        }
        let b = self.buf[self.at];
        self.at += 1;
        Ok(b)
    }

    fn varint(&mut self) -> io::Result<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(n);
            }
        }
        Err(io::Error::new(io::ErrorKind::InvalidData, "a spilled varint is too long"))
    }

    fn at_end(&self) -> bool {
        self.at == self.buf.len() && self.pos == self.end
    }

    /// Reads the next group's gram; false at the end of the run.
    fn next_gram(&mut self) -> io::Result<bool> {
        if self.at_end() {
            return Ok(false);
        }
        self.gram += self.varint()?;
        Ok(true)
    }

    /// Appends the current group's entries to `ids`.
    fn read_ids(&mut self, ids: &mut Vec<u32>) -> io::Result<()> {
        let n = self.varint()?;
        let mut id = 0u64;
        for _ in 0..n {
            id += self.varint()?;
            ids.push(u32::try_from(id).map_err(|_| {
                io::Error::new(io::ErrorKind::InvalidData, "a spilled entry number is too large")
            })?);
        }
        Ok(())
    }
}

/// Every thread's runs merged: each gram (in growing order) with its
/// entries. An error reading the runs back ends it with that error.
pub struct Merge {
    readers: Vec<RunReader>,
    heap: BinaryHeap<Reverse<(u64, usize)>>,
    ids: Vec<u32>,
    failed: bool,
}

impl Merge {
    /// Merges the runs of `writers`.
    pub fn new(writers: Vec<RunWriter>) -> io::Result<Merge> {
        let mut readers = Vec::new();
        for w in writers {
            let file = Arc::new(w.file);
            for (pos, len) in w.runs {
                let reader = RunReader {
                    file: file.clone(),
                    pos,
                    end: pos + len,
                    buf: Vec::new(),
                    at: 0,
                    gram: 0,
                };
                readers.push(reader);
            }
        }
        let mut heap = BinaryHeap::new();
        for (i, r) in readers.iter_mut().enumerate() {
            if r.next_gram()? {
                heap.push(Reverse((r.gram, i)));
            }
        }
        Ok(Merge { readers, heap, ids: Vec::new(), failed: false })
    }

    /// An empty merge.
    #[cfg(test)]
    pub fn empty() -> Merge {
        Merge { readers: Vec::new(), heap: BinaryHeap::new(), ids: Vec::new(), failed: false }
    }

    fn step(&mut self) -> io::Result<Option<(u32, RoaringBitmap)>> {
        let Some(Reverse((gram, _))) = self.heap.peek().copied() else { return Ok(None) };
        self.ids.clear();
        while let Some(&Reverse((g, i))) = self.heap.peek() {
            if g != gram {
                break;
            }
            self.heap.pop();
            let r = &mut self.readers[i];
            r.read_ids(&mut self.ids)?;
            if r.next_gram()? {
                self.heap.push(Reverse((r.gram, i)));
            } else {
                // Its buffer is no longer needed.
                r.buf = Vec::new();
            }
        }
        // Runs of different threads interleave their numbers.
        self.ids.sort_unstable();
        let bitmap = RoaringBitmap::from_sorted_iter(self.ids.iter().copied())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "an entry spilled twice"))?;
        let gram = u32::try_from(gram).map_err(|_| {
            io::Error::new(io::ErrorKind::InvalidData, "a spilled gram is too large")
        })?;
        Ok(Some((gram, bitmap)))
    }
}

impl Iterator for Merge {
    type Item = io::Result<(u32, RoaringBitmap)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.step() {
            Ok(item) => item.map(Ok),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn runs_of_several_writers_merge_into_each_grams_entries() {
        let dir = tempfile::tempdir().unwrap();
        let mut want: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        let mut writers = Vec::new();
        let mut seed = 7u64;
        for w in 0..3u32 {
            let mut writer = RunWriter::new(dir.path()).unwrap();
            for run in 0..4u32 {
                let mut pairs = Vec::new();
                for k in 0..500u32 {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let gram = (seed >> 40) as u32 % 3000 * 5591;
                    let id = w * 100_000 + run * 1000 + k;
                    pairs.push(u64::from(gram) << 32 | u64::from(id));
                }
                pairs.sort_unstable();
                pairs.dedup_by(|a, b| *a >> 32 == *b >> 32 && *a == *b);
                for &p in &pairs {
                    want.entry((p >> 32) as u32).or_default().push(p as u32);
                }
                writer.write_run(&pairs).unwrap();
            }
            writer.write_run(&[]).unwrap();
            writers.push(writer);
        }
        // A gram at the top of the range, entries far apart.
        let mut last = RunWriter::new(dir.path()).unwrap();
        last.write_run(&[
            u64::from(0xff_ffffu32) << 32 | 3,
            u64::from(0xff_ffffu32) << 32 | 4_000_000,
        ])
        .unwrap();
        want.entry(0xff_ffff).or_default().extend([3, 4_000_000]);
        writers.push(last);
        let merged: Vec<(u32, Vec<u32>)> = Merge::new(writers)
            .unwrap()
            .map(|item| {
                let (g, b) = item.unwrap();
                (g, b.iter().collect())
            })
            .collect();
        let want: Vec<(u32, Vec<u32>)> = want
            .into_iter()
            .map(|(g, mut ids)| {
                ids.sort_unstable();
                (g, ids)
            })
            .collect();
        assert_eq!(merged, want);
        assert_eq!(Merge::empty().count(), 0);
    }
}
