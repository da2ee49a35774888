//! Files whose codec decodes slowly (xz, bzip2: about 100 and 40 MB/s,
//! against zstd's 1 GB/s and more) have their decoded bytes cached,
//! recompressed with zstd, when a cache is in use: a tarball searched again
//! is read at zstd's speed. Fast codecs are decoded every time (measured:
//! caching them costs more than it saves).

use std::fs::File;
use std::io;

use crate::by_tool::Tee;
use crate::cache::{stat_key, Recorder};
use crate::kind::Codec;
use crate::{decode, Extractor, Flow, Origin, Visit};

/// Files smaller than this are decoded every time.
const MIN_CACHED: u64 = 256 << 10;

/// Decoded streams larger than this are not cached.
const MAX_CACHED: u64 = 4 << 30;

/// Whether `codec` decodes slowly enough to cache.
pub(crate) fn is_slow(codec: Codec) -> bool {
    matches!(codec, Codec::Xz | Codec::Bzip2)
}

impl Extractor {
    /// Visits the decoded stream of `file`, from the cache when a run
    /// before decoded it; None when there is no cache or the file is
    /// small (the caller decodes it).
    pub(crate) fn slow_decoded(
        &self,
        name: &[u8],
        file: &File,
        codec: Codec,
        visit: &mut dyn Visit,
    ) -> Option<Flow> {
        self.cache_dir.as_ref()?;
        if file.metadata().ok()?.len() < MIN_CACHED {
            return None;
        }
        let cache = self.cache_for(visit)?;
        let tool = format!("decoded {} 1", codec.name());
        let key = stat_key(file, tool.as_bytes()).ok()?;
        if let Ok(Some(entry)) = cache.get(&key) {
            if entry.failure.is_none() {
                let at = (1, Some(file));
                return Some(self.stream_from(name, &mut entry.text(), at, Origin::Whole, visit));
            }
        }
        let mut recorder = Recorder::new(MAX_CACHED);
        let mut decoded = match decode::guarded(codec, file, self.limits.bombs) {
            Ok(d) => d,
            Err(e) => {
                visit.error(name, &e);
                return Some(Flow::Continue);
            }
        };
        let mut tee = Tee { inner: &mut decoded, recorder: &mut recorder, eof: false };
        let flow = self.stream_from(name, &mut tee, (1, Some(file)), Origin::Whole, visit);
        if flow == Flow::Continue && !tee.eof {
            // An archive ends before its stream does (padding): the rest is
            // read for the cache.
            let _ = io::copy(&mut tee, &mut io::sink());
        }
        if flow == Flow::Continue && tee.eof {
            if let Some(entry) = recorder.finish(None) {
                if let Err(e) = cache.put(&key, &[], &entry) {
                    let e =
                        io::Error::other(format!("extraction cache: {}", crate::cache::sql_io(e)));
                    visit.warning(name, &e);
                }
            }
        }
        Some(flow)
    }
}
