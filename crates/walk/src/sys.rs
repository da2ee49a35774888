//! System calls the walk makes, wrapped: errors as io::Error, stat and
//! statfs results as Rust values.

use std::ffi::CStr;
use std::io;
use std::os::fd::RawFd;

pub(crate) fn cvt(ret: libc::c_int) -> io::Result<RawFd> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// Whether the file system holding the directory `fd` returns a short read
/// of a regular file only at its end: the kernel's page-cache read loops
/// until the request is filled or the end is reached on these (ext2-4, XFS,
/// Btrfs, F2FS, tmpfs, and overlayfs, which reads from such a layer). FUSE,
/// network and pseudo file systems may return less before the end.
pub(crate) fn reads_to_the_end(fd: RawFd) -> bool {
    const LOCAL: [u64; 6] = [
        0xEF53,      // ext2, ext3, ext4
        0x5846_5342, // XFS
        0x9123_683E, // Btrfs
        0xF2F5_2010, // F2FS
        0x0102_1994, // tmpfs
        0x794C_7630, // overlayfs
    ];
    // SAFETY: an all-zero statfs is a valid value; fstatfs fills it in.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is an open descriptor and `st` a valid out-pointer.
    if unsafe { libc::fstatfs(fd, &mut st) } != 0 {
        return false;
    }
    LOCAL.contains(&(st.f_type as u64))
}

pub(crate) fn fstat(fd: RawFd) -> io::Result<libc::stat> {
    // SAFETY: an all-zero stat is a valid value; fstat fills it in.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `st` is a valid out-pointer.
    cvt(unsafe { libc::fstat(fd, &mut st) })?;
    Ok(st)
}

pub(crate) fn fstatat(dir: RawFd, name: &CStr, follow: bool) -> io::Result<libc::stat> {
    // SAFETY: as in `fstat`.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    let flags = if follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
    // SAFETY: `name` is NUL-terminated and `st` a valid out-pointer.
    cvt(unsafe { libc::fstatat(dir, name.as_ptr(), &mut st, flags) })?;
    Ok(st)
}
