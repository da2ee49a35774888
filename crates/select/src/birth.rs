//! A file's birth (creation) time, from statx(2): the one time stat(2)
//! does not give. Not every file system keeps it (NFS, FAT, old tmpfs);
//! then there is none. (Entries of a walk: trawl_walk's Entry::birth_time.)

use std::ffi::CString;
use std::io;

/// The birth time of the file at `path` (`lstat`'s view unless `follow`):
/// Ok(None) when its file system does not keep one.
pub fn of_path(path: &[u8], follow: bool) -> io::Result<Option<(i64, i64)>> {
    let c =
        CString::new(path.to_vec()).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: an all-zero statx is valid; the call fills it in.
    let mut stx: libc::statx = unsafe { std::mem::zeroed() };
    let flags = if follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
    // SAFETY: a NUL-terminated path, a valid out-pointer.
    let r = unsafe { libc::statx(libc::AT_FDCWD, c.as_ptr(), flags, libc::STATX_BTIME, &mut stx) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((stx.stx_mask & libc::STATX_BTIME != 0)
        .then(|| (stx.stx_btime.tv_sec, i64::from(stx.stx_btime.tv_nsec))))
}
