//! The cache of text that extractor processes made: a run that meets a
//! document it has seen starts no process.
//!
//! SQLite (rusqlite, bundled) rather than redb: several trawl processes
//! may share the cache at once (WAL, a busy timeout), which redb's
//! single-process lock refuses.
//!
//! Never stale: a document is found by its file's identity — device,
//! inode, size, mtime and ctime in nanoseconds (any write, `touch -d`,
//! rename over or replacement changes one of them) — plus the extractor's
//! identity (its executable's inode, size and mtime, and its arguments),
//! or else by the BLAKE3 hash of its bytes, so copies, moved files and
//! archive members hit too. Texts are stored zstd-compressed with the frame
//! checksum on: a damaged entry fails to decode and counts as a miss.
//! Failures are stored as well (a broken PDF costs its timeout once). Past
//! the size limit the least recently used entries go. A database that
//! cannot be opened or read is reported once, removed and made again.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension};

/// What the cache holds for a document: the text the extractor made
/// (zstd-compressed, checked by its BLAKE3 hash before it is read), and
/// its failure, if it failed after that text, so a cached answer repeats
/// the first one exactly.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct Entry {
    compressed: Vec<u8>,
    /// Why the extractor failed, if it did.
    pub failure: Option<String>,
    /// The document's name when it was stored (an absolute path, with its
    /// `{member}` parts), for `trawl cache failures`; None from a trawl
    /// that did not keep it.
    pub name: Option<Vec<u8>>,
}

impl Entry {
    /// This entry, naming the document `name` (made absolute against the
    /// working directory).
    pub fn named(self, name: &[u8]) -> Entry {
        let absolute = match name.first() {
            Some(b'/') => name.to_vec(),
            _ => {
                use std::os::unix::ffi::OsStrExt;
                let mut path = std::env::current_dir()
                    .map_or_else(|_| Vec::new(), |d| d.as_os_str().as_bytes().to_vec());
                path.push(b'/');
                path.extend_from_slice(name.strip_prefix(b"./").unwrap_or(name));
                path
            }
        };
        Entry { name: Some(absolute), ..self }
    }

    /// The text, decoded as it is read.
    pub fn text(&self) -> impl Read + '_ {
        // The frame was written by `Recorder`; a failure to start decoding
        // reads as an error.
        zstd::stream::read::Decoder::with_buffer(&self.compressed[..]).map_or_else(
            |e| Box::new(ErrReader(Some(e))) as Box<dyn Read>,
            |d| Box::new(d) as Box<dyn Read>,
        )
    }
}

/// A reader that fails once.
struct ErrReader(Option<io::Error>);

impl Read for ErrReader {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        Err(self.0.take().unwrap_or_else(|| io::Error::other("unreadable cache entry")))
    }
}

/// Compresses text for the cache as it streams by (memory: the compressed
/// size), up to a limit past which nothing is kept.
pub struct Recorder {
    enc: Option<zstd::stream::Encoder<'static, Vec<u8>>>,
    written: u64,
    limit: u64,
}

impl Recorder {
    /// A recorder keeping at most `limit` bytes of text.
    pub fn new(limit: u64) -> Recorder {
        let enc = zstd::stream::Encoder::new(Vec::new(), 3)
            .and_then(|mut e| e.include_checksum(true).map(|()| e))
            .ok();
        Recorder { enc, written: 0, limit }
    }

    /// Adds text; past the limit (or a failure) the recording is dropped.
    pub fn add(&mut self, text: &[u8]) {
        self.written += text.len() as u64;
        if self.written > self.limit {
            self.enc = None;
        }
        if let Some(enc) = &mut self.enc {
            if enc.write_all(text).is_err() {
                self.enc = None;
            }
        }
    }

    /// Gives up the recording (the text was not seen to its end).
    pub fn abandon(&mut self) {
        self.enc = None;
    }

    /// The entry, if all the text was recorded.
    pub fn finish(self, failure: Option<String>) -> Option<Entry> {
        let compressed = self.enc?.finish().ok()?;
        Some(Entry { compressed, failure, name: None })
    }
}

/// A row of a pack, to be stored (see [`crate::pack`]).
pub(crate) struct PackRow {
    /// What it is.
    pub(crate) meta: Vec<u8>,
    /// A member's text (numbered among them), not a message.
    pub(crate) member: bool,
    /// A search gives it whatever members it reads.
    pub(crate) replay: bool,
    /// A member's text, compressed.
    pub(crate) frame: Vec<u8>,
}

/// A row of a pack, as read: its place, what it is, its frame.
pub(crate) type StoredPackRow = (i64, Vec<u8>, Vec<u8>);

/// A row of `texts`: key, failure, compressed text, its hash, last use,
/// the document's name.
type StoredRow = (Vec<u8>, Option<String>, Vec<u8>, Vec<u8>, i64, Option<Vec<u8>>);

/// The default size limit of the stored (compressed) texts.
pub const DEFAULT_LIMIT: u64 = 4 << 30;

/// Bumped when the layout of the database or of its keys changes.
const SCHEMA: i64 = 3;

/// The extraction cache (see the module documentation).
#[derive(Debug)]
pub struct Cache {
    path: PathBuf,
    conn: Mutex<Connection>,
    limit: u64,
}

/// `$XDG_CACHE_HOME/trawl`, else `~/.cache/trawl`.
pub fn default_dir() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_CACHE_HOME").filter(|d| Path::new(d).is_absolute());
    let base = xdg
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))?;
    Some(base.join("trawl"))
}

impl Cache {
    /// Opens (or makes) the cache in `dir`. A database that is not one, or
    /// is damaged, is removed and made again; the note says so.
    pub fn open(dir: &Path, limit: u64) -> io::Result<(Cache, Option<String>)> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join("extracted.sqlite3");
        match Cache::open_at(&path, limit) {
            Ok(cache) => Ok((cache, None)),
            Err(e) => {
                let note = format!("{}: {e}; made again", path.display());
                remove_database(&path);
                let cache = Cache::open_at(&path, limit).map_err(sql_io)?;
                Ok((cache, Some(note)))
            }
        }
    }

    fn open_at(path: &Path, limit: u64) -> rusqlite::Result<Cache> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
             CREATE TABLE IF NOT EXISTS texts (
                 key BLOB PRIMARY KEY,
                 failure TEXT,
                 data BLOB NOT NULL,
                 hash BLOB NOT NULL,
                 size INTEGER NOT NULL,
                 used INTEGER NOT NULL,
                 name BLOB);
             CREATE INDEX IF NOT EXISTS texts_used ON texts (used);
             -- The total size is summed at every store: from this index, not
             -- from the rows, whose size column sits after the text's
             -- overflow pages (a scan of them made a first run quadratic).
             CREATE INDEX IF NOT EXISTS texts_size ON texts (size);
             CREATE TABLE IF NOT EXISTS aliases (key BLOB PRIMARY KEY, target BLOB NOT NULL);
             -- Packs (see crate::pack): an archive's members' texts, each
             -- a zstd frame in a row of its own (a read at an offset into
             -- one big value would walk its overflow pages from the start).
             -- A row is a member's text (its place among the members with
             -- text: ordinal) or a message (ordinal NULL), k their order;
             -- replay: a message, or a text whose reading failed (a search
             -- gives it whether it may match or not).
             CREATE TABLE IF NOT EXISTS packs (
                 key BLOB PRIMARY KEY,
                 count INTEGER NOT NULL,
                 size INTEGER NOT NULL,
                 used INTEGER NOT NULL);
             CREATE TABLE IF NOT EXISTS pack_rows (
                 pack INTEGER NOT NULL,
                 k INTEGER NOT NULL,
                 ordinal INTEGER,
                 replay INTEGER NOT NULL,
                 meta BLOB NOT NULL,
                 data BLOB NOT NULL,
                 PRIMARY KEY (pack, k));
             CREATE INDEX IF NOT EXISTS pack_ordinals ON pack_rows (pack, ordinal);
             CREATE INDEX IF NOT EXISTS pack_replays ON pack_rows (pack, replay);
             CREATE INDEX IF NOT EXISTS packs_used ON packs (used);
             CREATE INDEX IF NOT EXISTS packs_size ON packs (size);",
        )?;
        // The name column came later: a database made before it gets it
        // (its rows name nothing), and earlier trawls ignore it.
        let named: i64 = conn.query_row(
            "SELECT COUNT(*) FROM pragma_table_info('texts') WHERE name = 'name'",
            [],
            |r| r.get(0),
        )?;
        if named == 0 {
            conn.execute_batch("ALTER TABLE texts ADD COLUMN name BLOB")?;
        }
        let schema: Option<i64> = conn
            .query_row("SELECT value FROM meta WHERE name = 'schema'", [], |r| r.get(0))
            .optional()?;
        match schema {
            Some(SCHEMA) => {}
            None => {
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?1)", [SCHEMA])?;
            }
            Some(other) => {
                return Err(rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_MISMATCH),
                    Some(format!(
                        "written by another version of trawl (layout {other}, not {SCHEMA})"
                    )),
                ));
            }
        }
        Ok(Cache { path: path.to_owned(), conn: Mutex::new(conn), limit })
    }

    /// Where the database is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The entry stored under `key` (or under the content key it is an
    /// alias of). An entry whose bytes do not match their hash is removed
    /// and reads as a miss.
    pub fn get(&self, key: &[u8]) -> rusqlite::Result<Option<Entry>> {
        let conn = self.conn();
        // Asked for every document a search meets: prepared once.
        let row: Option<StoredRow> = conn
            .prepare_cached(
                "SELECT t.key, t.failure, t.data, t.hash, t.used, t.name FROM texts t
                 WHERE t.key = ?1 OR t.key = (SELECT target FROM aliases WHERE key = ?1)
                 LIMIT 1",
            )?
            .query_row([key], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))
            })
            .optional()?;
        let Some((stored_key, failure, compressed, hash, used, name)) = row else {
            return Ok(None);
        };
        let now = now();
        if now - used > 3600 {
            conn.execute("UPDATE texts SET used = ?1 WHERE key = ?2", params![now, stored_key])?;
        }
        drop(conn);
        if blake3::hash(&compressed).as_bytes()[..] != hash[..] {
            self.conn().execute("DELETE FROM texts WHERE key = ?1", [&stored_key])?;
            return Ok(None);
        }
        Ok(Some(Entry { compressed, failure, name }))
    }

    /// Stores `entry` under `key`, and makes each of `aliases` find it.
    pub fn put(&self, key: &[u8], aliases: &[&[u8]], entry: &Entry) -> rusqlite::Result<()> {
        let hash = blake3::hash(&entry.compressed);
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        tx.execute(
            "INSERT OR REPLACE INTO texts (key, failure, data, hash, size, used, name)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                key,
                entry.failure,
                entry.compressed,
                &hash.as_bytes()[..],
                entry.compressed.len() as i64,
                now(),
                entry.name
            ],
        )?;
        for alias in aliases {
            tx.execute(
                "INSERT OR REPLACE INTO aliases (key, target) VALUES (?1, ?2)",
                params![alias, key],
            )?;
        }
        tx.commit()?;
        self.evict(&mut conn)
    }

    /// Stores a pack (see [`crate::pack`]) under `key`: each row's
    /// description, whether it is a member's text, whether a search
    /// always replays it, and its frame, in order.
    pub(crate) fn put_pack(
        &self,
        key: &[u8],
        rows: impl Iterator<Item = io::Result<PackRow>>,
    ) -> rusqlite::Result<()> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        if let Some(old) = tx
            .query_row("SELECT rowid FROM packs WHERE key = ?1", [key], |r| r.get::<_, i64>(0))
            .optional()?
        {
            tx.execute("DELETE FROM pack_rows WHERE pack = ?1", [old])?;
            tx.execute("DELETE FROM packs WHERE rowid = ?1", [old])?;
        }
        tx.execute(
            "INSERT INTO packs (key, count, size, used) VALUES (?1, 0, 0, ?2)",
            params![key, now()],
        )?;
        let pack = tx.last_insert_rowid();
        let (mut k, mut count, mut size) = (0i64, 0i64, 0i64);
        {
            let mut insert = tx.prepare(
                "INSERT INTO pack_rows (pack, k, ordinal, replay, meta, data)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for row in rows {
                let PackRow { meta, member, replay, frame } = row.map_err(io_sql)?;
                let ordinal = member.then_some(count);
                insert.execute(params![pack, k, ordinal, replay, meta, frame])?;
                k += 1;
                count += i64::from(member);
                size += (meta.len() + frame.len()) as i64;
            }
        }
        tx.execute(
            "UPDATE packs SET count = ?1, size = ?2 WHERE rowid = ?3",
            params![count, size, pack],
        )?;
        tx.commit()?;
        self.evict(&mut conn)
    }

    /// The row and member count of the pack stored under `key`.
    pub(crate) fn pack(&self, key: &[u8]) -> rusqlite::Result<Option<(i64, u32)>> {
        let conn = self.conn();
        let row: Option<(i64, i64, i64)> = conn
            .query_row("SELECT rowid, count, used FROM packs WHERE key = ?1", [key], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .optional()?;
        let Some((row, count, used)) = row else { return Ok(None) };
        let now = now();
        if now - used > 3600 {
            conn.execute("UPDATE packs SET used = ?1 WHERE rowid = ?2", params![now, row])?;
        }
        Ok(Some((row, count as u32)))
    }

    /// The place, description and frame of the member with text numbered
    /// `ordinal` of the pack in `row`.
    pub(crate) fn pack_member(
        &self,
        row: i64,
        ordinal: u32,
    ) -> rusqlite::Result<Option<StoredPackRow>> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT k, meta, data FROM pack_rows INDEXED BY pack_ordinals
             WHERE pack = ?1 AND ordinal = ?2",
        )?;
        stmt.query_row(params![row, ordinal], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).optional()
    }

    /// The place, description and frame of every row of the pack in
    /// `row` that a search always replays (messages, texts whose reading
    /// failed).
    pub(crate) fn pack_replays(&self, row: i64) -> rusqlite::Result<Vec<StoredPackRow>> {
        let conn = self.conn();
        // By their own index (ordered by k, SQLite would read every row of
        // the pack).
        let mut stmt = conn.prepare_cached(
            "SELECT k, meta, data FROM pack_rows INDEXED BY pack_replays
             WHERE pack = ?1 AND replay = 1",
        )?;
        let rows = stmt.query_map([row], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        rows.collect()
    }

    /// Removes the least recently used texts and packs while the total is
    /// over the limit (down to nine tenths of it).
    fn evict(&self, conn: &mut Connection) -> rusqlite::Result<()> {
        let total: i64 = conn.query_row(
            "SELECT (SELECT COALESCE(SUM(size), 0) FROM texts)
                  + (SELECT COALESCE(SUM(size), 0) FROM packs)",
            [],
            |r| r.get(0),
        )?;
        if (total as u64) <= self.limit {
            return Ok(());
        }
        let mut excess = total - (self.limit / 10 * 9) as i64;
        let tx = conn.transaction()?;
        {
            let mut oldest = tx.prepare(
                "SELECT 0, key, size, used FROM texts
                 UNION ALL SELECT 1, key, size, used FROM packs
                 ORDER BY 4 LIMIT 256",
            )?;
            let mut pack_of = tx.prepare("SELECT rowid FROM packs WHERE key = ?1")?;
            let victims: Vec<(i64, Vec<u8>, i64)> = oldest
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<Result<_, _>>()?;
            for (table, key, size) in victims {
                if excess <= 0 {
                    break;
                }
                if table == 0 {
                    tx.execute("DELETE FROM texts WHERE key = ?1", [&key])?;
                    tx.execute("DELETE FROM aliases WHERE target = ?1", [&key])?;
                } else {
                    let row: i64 = pack_of.query_row([&key], |r| r.get(0))?;
                    tx.execute("DELETE FROM pack_rows WHERE pack = ?1", [row])?;
                    tx.execute("DELETE FROM packs WHERE rowid = ?1", [row])?;
                }
                excess -= size;
            }
        }
        tx.commit()
    }

    /// Entries and stored bytes.
    pub fn stats(&self) -> rusqlite::Result<(u64, u64, u64)> {
        let conn = self.conn();
        let (n, failed, bytes): (i64, i64, i64) = conn.query_row(
            "SELECT COUNT(*) + (SELECT COUNT(*) FROM packs), COUNT(failure),
                    COALESCE(SUM(size), 0) + (SELECT COALESCE(SUM(size), 0) FROM packs)
             FROM texts",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        Ok((n as u64, failed as u64, bytes as u64))
    }

    /// The failures remembered: each document's name (None when an
    /// earlier trawl stored it) and its extractor's message, by name.
    pub fn failures(&self) -> rusqlite::Result<Vec<(Option<Vec<u8>>, String)>> {
        let conn = self.conn();
        let mut rows = conn.prepare(
            "SELECT name, failure FROM texts WHERE failure IS NOT NULL ORDER BY name, failure",
        )?;
        let failures = rows.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect();
        failures
    }

    /// Forgets the failures remembered (the next search runs their
    /// extractors again); returns how many.
    pub fn clear_failures(&self) -> rusqlite::Result<usize> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        tx.execute(
            "DELETE FROM aliases WHERE target IN (SELECT key FROM texts WHERE failure IS NOT NULL)",
            [],
        )?;
        let n = tx.execute("DELETE FROM texts WHERE failure IS NOT NULL", [])?;
        tx.commit()?;
        Ok(n)
    }

    /// Removes every entry.
    pub fn clear(&self) -> rusqlite::Result<()> {
        let conn = self.conn();
        conn.execute_batch(
            "DELETE FROM texts; DELETE FROM aliases; DELETE FROM packs; DELETE FROM pack_rows;
             VACUUM;",
        )
    }
}

/// Removes a database and its WAL files.
fn remove_database(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(p);
    }
}

fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// An I/O error as an SQLite error.
fn io_sql(e: io::Error) -> rusqlite::Error {
    rusqlite::Error::ToSqlConversionFailure(Box::new(e))
}

/// An SQLite error as an I/O error.
pub fn sql_io(e: rusqlite::Error) -> io::Error {
    io::Error::other(e.to_string())
}

/// The key of an open file's current contents: device, inode, size, mtime
/// and ctime (ns), then `tool`.
pub fn stat_key(file: &File, tool: &[u8]) -> io::Result<Vec<u8>> {
    let md = file.metadata()?;
    let mut key = Vec::with_capacity(64 + tool.len());
    key.push(b'S');
    for v in [md.dev(), md.ino(), md.size()] {
        key.extend_from_slice(&v.to_le_bytes());
    }
    for (s, ns) in [(md.mtime(), md.mtime_nsec()), (md.ctime(), md.ctime_nsec())] {
        key.extend_from_slice(&s.to_le_bytes());
        key.extend_from_slice(&ns.to_le_bytes());
    }
    key.extend_from_slice(tool);
    Ok(key)
}

/// The key of some bytes whatever file holds them: their BLAKE3 hash, then
/// `tool`. Reads `r` to its end.
pub fn content_key(mut r: impl Read, tool: &[u8]) -> io::Result<Vec<u8>> {
    let mut hasher = blake3::Hasher::new();
    hasher.update_reader(&mut r)?;
    let mut key = Vec::with_capacity(33 + tool.len());
    key.push(b'C');
    key.extend_from_slice(hasher.finalize().as_bytes());
    key.extend_from_slice(tool);
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::Cache;

    /// The total that every store sums is read from the size index, never
    /// from the rows (whose size column follows the text's overflow pages).
    #[test]
    fn the_total_size_is_summed_from_the_index() {
        let dir = tempfile::tempdir().unwrap();
        let (cache, _) = Cache::open(dir.path(), 1 << 30).unwrap();
        let conn = cache.conn();
        let plan: Vec<String> = conn
            .prepare("EXPLAIN QUERY PLAN SELECT COALESCE(SUM(size), 0) FROM texts")
            .unwrap()
            .query_map([], |r| r.get::<_, String>(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(plan.iter().any(|p| p.contains("COVERING INDEX texts_size")), "{plan:?}");
    }
}
