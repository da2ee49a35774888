//! `-files0-from FILE`: the starting points, NUL-separated, read from FILE
//! (`-` for standard input) instead of the command line, as GNU find reads
//! them: a last name without its NUL counts, an empty name is an error
//! (`FILE:N: invalid zero-length file name`) and the others are walked,
//! no name at all walks nothing (not `.`). With `-ok` or `-okdir`, whose
//! answers come from standard input, the list may not come from it.

use std::io::Read;
use std::os::unix::fs::MetadataExt;

use crate::report::show;

/// The starting points in `file`, and the errors met reading them; Err
/// when the list cannot be read at all (the run does not start).
pub(crate) fn read(file: &[u8], asks: bool) -> Result<(Vec<Vec<u8>>, Vec<String>), String> {
    let stdin = file == b"-";
    let quoted = if stdin { "'(standard input)'".to_string() } else { format!("'{}'", show(file)) };
    if stdin && asks {
        return Err(
            "option -files0-from reading from standard input cannot be combined with -ok, -okdir\n"
                .into(),
        );
    }
    let mut errors = Vec::new();
    let mut bytes = Vec::new();
    let read = if stdin {
        std::io::stdin().lock().read_to_end(&mut bytes)
    } else {
        use std::os::unix::ffi::OsStrExt;
        let mut f = std::fs::File::open(std::ffi::OsStr::from_bytes(file)).map_err(|e| {
            format!("cannot open {quoted} for reading: {}", trawl_diag::io_message(&e))
        })?;
        if asks {
            // SAFETY: an all-zero stat is valid; fstat fills it in.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            // SAFETY: fstat of descriptor 0 with a valid out-pointer.
            let stdin_ok = unsafe { libc::fstat(0, &mut st) } == 0;
            if let (Ok(a), true) = (f.metadata(), stdin_ok) {
                if a.dev() == st.st_dev && a.ino() == st.st_ino {
                    return Err(format!("option -files0-from: standard input must not refer to the same file when combined with -ok, -okdir: {quoted}\n"));
                }
            }
        }
        f.read_to_end(&mut bytes)
    };
    if let Err(e) = read {
        errors.push(format!("{quoted}: read error: {}", trawl_diag::io_message(&e)));
    }
    let mut paths = Vec::new();
    let names = bytes.strip_suffix(b"\0").unwrap_or(&bytes);
    if !names.is_empty() || bytes.len() == 1 {
        for (n, name) in names.split(|&b| b == 0).enumerate() {
            if name.is_empty() {
                errors.push(format!("{quoted}:{}: invalid zero-length file name", n + 1));
            } else {
                paths.push(name.to_vec());
            }
        }
    }
    Ok((paths, errors))
}
