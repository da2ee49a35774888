//! The merge: every shard's stream read at once (stream.rs), one copy of
//! each shard chosen, the roots written in the order one trawl with
//! `--sort path` would walk them (each stream comes in that order: a shard
//! walks its roots sorted, so the next root to write is the least of the
//! streams' next ones), their chunks through the printer's [`Output`] (its
//! [`trawl_printer::Separators`] decide what goes between files, as in one
//! run), the totals summed and the exit status decided.

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::os::fd::AsFd;
use std::sync::Arc;

use trawl_printer::{Chunk, ExtractionStats, IndexStats, Output, Stats};

use crate::record::Format;
use crate::request::Command;
use crate::stream::{self, Finish, Piece, Role, Shared, Stream};

/// Chunk bytes written in one batch, at most (unless one chunk is more).
const BATCH_BYTES: usize = 4 * crate::RECORD_BYTES;

/// Says a message (a line, with its newline) on standard error; shared by
/// the threads that read the streams.
pub type Say = Arc<dyn Fn(&[u8]) + Send + Sync>;

/// What the merge made of the streams.
#[derive(Debug, Default)]
pub struct Merged {
    /// The exit status one trawl would give.
    pub status: u8,
    /// The chosen shards' totals, summed.
    pub stats: Stats,
    /// What became of their documents, summed.
    pub extraction: ExtractionStats,
    /// How their workers' indexes served them, summed (None: none did).
    pub index: Option<IndexStats>,
    /// How their output was joined (what ends it).
    pub format: Format,
}

/// Merges the streams at `inputs` (`-`: standard input) of a run of
/// `command`: writes their roots' chunks to the output `open` makes for
/// their [`Format`], says messages (the shards', then the merge's own)
/// through `say`, and returns the totals and the exit status. The output's
/// own write errors are returned.
pub fn merge<O: Output>(
    inputs: &[OsString],
    command: Command,
    open: impl FnOnce(&Format) -> O,
    say: Say,
) -> io::Result<(Merged, O)> {
    let mut streams = Vec::new();
    let mut files = Vec::new();
    let mut unreadable = false;
    for input in inputs {
        let label = input.to_string_lossy().into_owned();
        let opened = match input.to_str() {
            Some("-") => io::stdin().as_fd().try_clone_to_owned().map(File::from),
            _ => File::open(input),
        };
        match opened {
            Ok(f) => {
                let mut s = Stream::new(label);
                s.known_complete = stream::ends_complete(&f);
                streams.push(s);
                files.push(f);
            }
            Err(e) => {
                say(&trawl_diag::said(
                    format!("{label}: {}", trawl_diag::io_message(&e)).as_bytes(),
                ));
                unreadable = true;
            }
        }
    }
    let shared = Arc::new(Shared::new(streams));
    for (i, f) in files.into_iter().enumerate() {
        let (shared, say) = (shared.clone(), say.clone());
        // Not joined: a dropped copy's writer may never close its FIFO.
        std::thread::spawn(move || stream::read(&shared, i, f, &*say));
    }
    let format = choose(&shared);
    let mut out = open(&format);
    let stopped = write_roots(&shared, &format, &mut out)?;
    out.flush()?;
    let mut merged = Merged { format, ..Merged::default() };
    let st = shared.lock();
    let chosen = || st.iter().filter(|s| s.role == Role::Chosen);
    let mut failed = unreadable;
    let mut matched = false;
    for s in chosen() {
        if let Some(end) = &s.end {
            merged.stats.add(&(&end.stats).into());
            merged.extraction.add(&(&end.extraction).into());
            if let Some(index) = &end.index {
                index.add_to(&mut merged.index);
            }
            matched |= end.status == 0;
            failed |= end.status != 0 && (command == Command::Find || end.status != 1);
        }
        if stopped {
            continue;
        }
        let said = match (&s.refused, s.finish.as_ref()) {
            (Some(reason), _) => format!("shard {}: refused: {reason}", s.name()),
            (None, Some(Finish::Complete)) => continue,
            (None, Some(Finish::Truncated) | None) => {
                format!("shard {}: incomplete (no end record)", s.name())
            }
            (None, Some(Finish::Damaged { line, why })) => format!(
                "shard {}: {}: line {line}: not a record of the shard protocol ({why})",
                s.name(),
                s.label
            ),
            (None, Some(Finish::Unreadable(why))) => format!("{}: {why}", s.label),
        };
        say(&trawl_diag::said(said.as_bytes()));
        failed = true;
    }
    merged.status = match command {
        Command::Find => failed as u8,
        Command::Grep if merged.format.quiet && matched => 0,
        Command::Grep | Command::Index if failed => 2,
        Command::Grep if matched => 0,
        Command::Index => 0,
        Command::Grep => 1,
    };
    drop(st);
    Ok((merged, out))
}

/// Waits for every stream's first record, then chooses one copy of each
/// shard: the first known complete, else the first. Returns how the
/// chosen shards' output joins (the first one's that says).
fn choose(shared: &Shared) -> Format {
    let mut st = shared.lock();
    while st.iter().any(|s| s.shard.is_none() && s.finish.is_none()) {
        st = shared.wait(st);
    }
    for i in 0..st.len() {
        if st[i].role != Role::Undecided {
            continue;
        }
        let copies: Vec<usize> = match &st[i].shard {
            Some(name) => (i..st.len()).filter(|&j| st[j].shard.as_ref() == Some(name)).collect(),
            None => vec![i],
        };
        let pick = copies.iter().copied().find(|&j| st[j].known_complete).unwrap_or(i);
        for j in copies {
            st[j].role = if j == pick { Role::Chosen } else { Role::Dropped };
        }
    }
    shared.changed.notify_all();
    // The format comes right after the first record, the same in every
    // shard: the first one known will do.
    let chosen = |s: &&Stream| s.role == Role::Chosen;
    while !st.iter().filter(chosen).any(|s| s.format.is_some())
        && st.iter().filter(chosen).any(|s| s.finish.is_none())
    {
        st = shared.wait(st);
    }
    st.iter().filter(|s| s.role == Role::Chosen).find_map(|s| s.format.clone()).unwrap_or_default()
}

/// Writes the chosen streams' roots in order; true when it stopped early
/// (`-q`: a shard selected a line, and nothing else is to be said).
fn write_roots<O: Output>(shared: &Shared, format: &Format, out: &mut O) -> io::Result<bool> {
    let stops_early = format.quiet && format.ending == crate::record::Ending::None;
    let selected = |st: &[Stream]| {
        st.iter().any(|s| s.role == Role::Chosen && s.end.is_some_and(|e| e.status == 0))
    };
    let mut st = shared.lock();
    loop {
        if stops_early && selected(&st) {
            return Ok(true);
        }
        let chosen = st.iter().enumerate().filter(|(_, s)| s.role == Role::Chosen);
        // The least next root, once every stream that may still begin one
        // has said its next.
        let mut next: Option<usize> = None;
        let mut waiting = false;
        for (i, s) in chosen {
            match s.units.front() {
                Some(u) if next.is_none_or(|n| u.key < st[n].units[0].key) => next = Some(i),
                Some(_) => {}
                None => waiting |= s.finish.is_none(),
            }
        }
        let Some(i) = next.filter(|_| !waiting) else {
            if !waiting {
                return Ok(false);
            }
            st = shared.wait(st);
            continue;
        };
        // That root's chunks, as they come, a few MiB at a time (read back
        // from the spill file, a batch is all the merge holds of them).
        loop {
            let unit = st[i].units.front_mut().expect("a root to write");
            let mut pieces: Vec<Piece> = Vec::new();
            let mut batch_bytes = 0;
            while let Some(p) = unit.pieces.front() {
                if !pieces.is_empty() && batch_bytes + p.len() > BATCH_BYTES {
                    break;
                }
                batch_bytes += p.len();
                pieces.extend(unit.pieces.pop_front());
            }
            let closed = unit.closed && unit.pieces.is_empty();
            if pieces.is_empty() && !closed {
                st = shared.wait(st);
                if stops_early && selected(&st) {
                    return Ok(true);
                }
                continue;
            }
            let spill = st[i].spill.clone();
            drop(st);
            let mut batch: Vec<(Chunk, Vec<u8>)> = Vec::with_capacity(pieces.len());
            for p in pieces {
                let kind = p.kind;
                batch.push((kind, shared.bytes(p, spill.as_deref())?));
            }
            let slices: Vec<(Chunk, &[u8])> = batch.iter().map(|(k, b)| (*k, &b[..])).collect();
            out.write_in_order(&slices)?;
            st = shared.lock();
            if closed {
                st[i].units.pop_front();
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::sync::Mutex;

    use trawl_printer::Separators;

    use crate::record::Ending;
    use crate::ShardWriter;

    /// Output into memory, separated as the format says.
    struct Collect {
        separators: Mutex<Separators>,
        bytes: Mutex<Vec<u8>>,
    }

    impl Output for Collect {
        fn write(&self, bytes: &[u8], chunk: Chunk) -> io::Result<()> {
            let mut out = self.bytes.lock().unwrap();
            if let Some(sep) = self.separators.lock().unwrap().before(chunk, bytes) {
                out.extend_from_slice(sep);
            }
            out.extend_from_slice(bytes);
            Ok(())
        }
    }

    /// A stream: roots (operand, display, chunks), then the end (status)
    /// or not.
    fn stream(shard: &str, roots: &[(u64, &str, &[&str])], end: Option<u8>) -> Vec<u8> {
        let w = ShardWriter::new(Vec::new());
        w.begin(shard, "host", "0.1.0").unwrap();
        let format = Format {
            separator: Some(crate::Bytes(b"--\n".to_vec())),
            messages: true,
            ..Format::default()
        };
        w.format(&format).unwrap();
        for (operand, display, chunks) in roots {
            w.root(*operand, display.as_bytes()).unwrap();
            for c in *chunks {
                w.write(c.as_bytes(), Chunk::Lines).unwrap();
            }
        }
        let stats = Stats { matches: 1, files_searched: roots.len() as u64, ..Stats::default() };
        if let Some(status) = end {
            w.end(status, &stats, &ExtractionStats::default()).unwrap();
        }
        w.into_inner()
    }

    /// Merges `streams` (written to files): the output, the messages, the
    /// outcome.
    fn run(streams: &[Vec<u8>], command: Command) -> (String, String, Merged) {
        let dir = tempfile::tempdir().unwrap();
        let mut inputs = Vec::new();
        for (i, s) in streams.iter().enumerate() {
            let p = dir.path().join(format!("s{i}"));
            std::fs::File::create(&p).unwrap().write_all(s).unwrap();
            inputs.push(p.into_os_string());
        }
        let said = Arc::new(Mutex::new(Vec::new()));
        let to = said.clone();
        let say = Arc::new(move |m: &[u8]| to.lock().unwrap().extend_from_slice(m));
        let open = |f: &Format| Collect {
            separators: Mutex::new(Separators::with_text(f.separator.clone().map(|b| b.0))),
            bytes: Mutex::new(Vec::new()),
        };
        let (merged, out) = merge(&inputs, command, open, say).unwrap();
        let out = String::from_utf8(out.bytes.into_inner().unwrap()).unwrap();
        let said = String::from_utf8(said.lock().unwrap().clone()).unwrap();
        (out, said, merged)
    }

    #[test]
    fn roots_are_written_in_operand_then_path_order_with_separators() {
        let a = stream("a", &[(0, "w1:/p/b", &["b1\n"]), (2, "w1:/z", &["z1\n", "z2\n"])], Some(0));
        let b = stream("b", &[(0, "w2:/p/a", &["a1\n"]), (1, "w2:/y", &[])], Some(1));
        let (out, said, merged) = run(&[a, b], Command::Grep);
        assert_eq!(out, "a1\n--\nb1\n--\nz1\n--\nz2\n");
        assert_eq!(said, "");
        assert_eq!((merged.status, merged.stats.matches, merged.stats.files_searched), (0, 2, 4));
    }

    #[test]
    fn a_shard_seen_twice_counts_once_the_complete_copy() {
        let cut = stream("a", &[(0, "w1:/a", &["a1\n"])], None);
        let whole = stream("a", &[(0, "w1:/a", &["a1\n", "a2\n"])], Some(0));
        let other = stream("b", &[(1, "w2:/b", &["b1\n"])], Some(0));
        let (out, said, merged) = run(&[cut, other, whole], Command::Grep);
        assert_eq!(out, "a1\n--\na2\n--\nb1\n");
        assert_eq!(said, "");
        assert_eq!((merged.status, merged.stats.matches), (0, 2));
    }

    #[test]
    fn a_truncated_shard_is_named_and_fails_the_run() {
        let mut cut = stream("fs2:/b", &[(1, "fs2:/b", &["b1\n", "b2\n"])], None);
        // Killed mid-record.
        cut.extend_from_slice(br#"{"type":"chunk","data":{"ki"#);
        let a = stream("fs1:/a", &[(0, "fs1:/a", &["a1\n"])], Some(0));
        let (out, said, merged) = run(&[a, cut], Command::Grep);
        assert_eq!(out, "a1\n--\nb1\n--\nb2\n");
        assert_eq!(said, "trawl: shard fs2:/b: incomplete (no end record)\n");
        assert_eq!(merged.status, 2);
        let (_, _, find) = run(&[stream("x", &[], None)], Command::Find);
        assert_eq!(find.status, 1);
    }

    #[test]
    fn a_refused_shard_and_a_damaged_stream_are_named() {
        let w = ShardWriter::new(Vec::new());
        w.begin("fs3:/c", "host", "0.2.0").unwrap();
        w.refused("trawl 0.1.0 asked, this is trawl 0.2.0").unwrap();
        w.end(2, &Stats::default(), &ExtractionStats::default()).unwrap();
        let refused = w.into_inner();
        let mut damaged = stream("fs4:/d", &[(3, "fs4:/d", &["d\n"])], Some(1));
        damaged.splice(0..0, b"not json\n".iter().copied());
        let (out, said, merged) = run(&[refused, damaged], Command::Grep);
        assert_eq!(out, "");
        let lines: Vec<&str> = said.lines().collect();
        assert_eq!(
            lines[0],
            "trawl: shard fs3:/c: refused: trawl 0.1.0 asked, this is trawl 0.2.0"
        );
        assert!(lines[1].contains(": line 1: not a record of the shard protocol"), "{said}");
        assert_eq!(merged.status, 2);
    }

    #[test]
    fn shards_messages_are_said_and_quiet_stops_at_a_match() {
        let w = ShardWriter::new(Vec::new());
        w.begin("q", "host", "0.1.0").unwrap();
        w.format(&Format { quiet: true, ending: Ending::None, ..Format::default() }).unwrap();
        w.error(b"trawl: q:/x: Permission denied").unwrap();
        w.end(0, &Stats::default(), &ExtractionStats::default()).unwrap();
        let quiet = w.into_inner();
        // Another shard still running (its FIFO stays open): the merge
        // does not wait for it.
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("slow");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let q = dir.path().join("q");
        std::fs::write(&q, quiet).unwrap();
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let writer_path = fifo.clone();
        let writer = std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new().write(true).open(writer_path).unwrap();
            let w = ShardWriter::new(Vec::new());
            w.begin("slow", "host", "0.1.0").unwrap();
            w.format(&Format { quiet: true, ..Format::default() }).unwrap();
            w.root(1, b"s:/b").unwrap();
            f.write_all(&w.into_inner()).unwrap();
            // Held open until the merge has ended.
            rx.recv().unwrap();
        });
        let said = Arc::new(Mutex::new(Vec::new()));
        let to = said.clone();
        let say = Arc::new(move |m: &[u8]| to.lock().unwrap().extend_from_slice(m));
        let open = |_: &Format| Collect {
            separators: Mutex::new(Separators::none()),
            bytes: Mutex::new(Vec::new()),
        };
        let inputs = [q.into_os_string(), fifo.into_os_string()];
        let (merged, out) = merge(&inputs, Command::Grep, open, say).unwrap();
        tx.send(()).unwrap();
        writer.join().unwrap();
        assert_eq!(merged.status, 0);
        assert!(out.bytes.into_inner().unwrap().is_empty());
        assert_eq!(&said.lock().unwrap()[..], b"trawl: q:/x: Permission denied\n");
    }
}
