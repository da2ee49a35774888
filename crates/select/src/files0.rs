//! `-files0-from FILE`: the starting points, NUL-separated, read from FILE
//! (`-` for standard input) instead of the command line, as GNU find reads
//! them: a last name without its NUL counts, an empty name is an error
//! (`FILE:N: invalid zero-length file name`) and the others are walked,
//! no name at all walks nothing (not `.`). With `-ok` or `-okdir`, whose
//! answers come from standard input, the list may not come from it.

use std::io::Read;
use std::os::unix::fs::MetadataExt;

use crate::error::{Error, ErrorKind};

/// The starting points in `file`, and the errors met reading them; Err
/// when the list cannot be read at all (the run does not start).
pub(crate) fn read(file: &[u8], asks: bool) -> Result<(Vec<Vec<u8>>, Vec<Error>), Error> {
    let stdin = file == b"-";
    if stdin && asks {
        return Err(ErrorKind::Files0FromStdinWithOk.into());
    }
    let mut errors = Vec::new();
    let mut bytes = Vec::new();
    let read = if stdin {
        std::io::stdin().lock().read_to_end(&mut bytes)
    } else {
        use std::os::unix::ffi::OsStrExt;
        let mut f = std::fs::File::open(std::ffi::OsStr::from_bytes(file))
            .map_err(|error| ErrorKind::Files0Open { file: file.to_vec(), error })?;
        if asks {
            // SAFETY: an all-zero stat is valid; fstat fills it in.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            // SAFETY: fstat of descriptor 0 with a valid out-pointer.
            let stdin_ok = unsafe { libc::fstat(0, &mut st) } == 0;
            if let (Ok(a), true) = (f.metadata(), stdin_ok) {
                if a.dev() == st.st_dev && a.ino() == st.st_ino {
                    return Err(ErrorKind::Files0IsStdinWithOk { file: file.to_vec() }.into());
                }
            }
        }
        f.read_to_end(&mut bytes)
    };
    if let Err(error) = read {
        errors.push(ErrorKind::Files0Read { file: file.to_vec(), error }.into());
    }
    let mut paths = Vec::new();
    let names = bytes.strip_suffix(b"\0").unwrap_or(&bytes);
    if !names.is_empty() || bytes.len() == 1 {
        for (n, name) in names.split(|&b| b == 0).enumerate() {
            if name.is_empty() {
                errors
                    .push(ErrorKind::Files0EmptyName { file: file.to_vec(), number: n + 1 }.into());
            } else {
                paths.push(name.to_vec());
            }
        }
    }
    Ok((paths, errors))
}
