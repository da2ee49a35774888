//! What a run does first: the [`Setup`] steps reading the expression
//! asked for, in order: warnings said, and the files of `-fprint` & co.
//! opened, one stream per file however many names it is given under (a
//! hard link, a symbolic link: GNU find tells files by device and inode).

use std::ffi::OsStr;
use std::fs::File;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::command::Setup;
use crate::error::{Error, ErrorKind};
use crate::parse::ParseError;

/// A file `-fprint` & co. write to.
#[derive(Debug)]
pub(crate) struct OutFile {
    /// The name it was first given (for messages).
    pub(crate) name: Vec<u8>,
    /// The stream.
    file: Mutex<File>,
    /// A write failed (reported once).
    failed: AtomicBool,
}

impl OutFile {
    /// Writes `bytes`; the first failure is returned, later ones are not
    /// (GNU find reports a file's write error once).
    pub(crate) fn write(&self, bytes: &[u8]) -> Option<std::io::Error> {
        use std::io::Write;
        let r = self.file.lock().unwrap_or_else(|p| p.into_inner()).write_all(bytes);
        match r {
            Err(e) if !self.failed.swap(true, Ordering::Relaxed) => Some(e),
            _ => None,
        }
    }
}

/// Does `steps` in order; returns the output files, one for each `Open`
/// step (the same stream for the same file), or the first that could not
/// be opened.
pub(crate) fn perform(steps: &[Setup]) -> Result<Vec<Arc<OutFile>>, Error> {
    let mut files: Vec<((u64, u64), Arc<OutFile>)> = Vec::new();
    let mut outputs = Vec::new();
    for step in steps {
        match step {
            Setup::Warn(w) => trawl_diag::error(w),
            Setup::Open(path) => {
                let file = open(path, &mut files)?;
                outputs.push(file);
            }
        }
    }
    Ok(outputs)
}

/// The stream of `path`: one already open under this name or another, or
/// a new one.
fn open(path: &[u8], files: &mut Vec<((u64, u64), Arc<OutFile>)>) -> Result<Arc<OutFile>, Error> {
    let open_error = |error| ErrorKind::CreateOutput { path: path.to_vec(), error };
    if let Ok(m) = std::fs::metadata(OsStr::from_bytes(path)) {
        if let Some((_, f)) = files.iter().find(|(k, _)| *k == (m.dev(), m.ino())) {
            return Ok(f.clone());
        }
    }
    let file = File::create(OsStr::from_bytes(path)).map_err(open_error)?;
    let key = file.metadata().map(|m| (m.dev(), m.ino())).map_err(open_error)?;
    let name = path.to_vec();
    let out = Arc::new(OutFile { name, file: Mutex::new(file), failed: AtomicBool::new(false) });
    files.push((key, out.clone()));
    Ok(out)
}

/// After a mistake in the command line: does what GNU find did while it
/// read the arguments before it (their warnings said, their `-fprint` &
/// co. files created) and returns what to say: the first of those files
/// that could not be opened, else the mistake.
pub fn after_mistake(err: ParseError) -> Error {
    match perform(&err.setup) {
        Ok(_) => err.error,
        Err(open) => open,
    }
}
