//! Reading directory entries with getdents64.

use std::ffi::CStr;
use std::io;
use std::os::fd::RawFd;

/// The type of a directory entry.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum FileType {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (not followed).
    Symlink,
    /// A named pipe.
    Fifo,
    /// A Unix socket.
    Socket,
    /// A block device.
    BlockDevice,
    /// A character device.
    CharDevice,
    /// The file system did not say, and nobody asked.
    Unknown,
}

impl FileType {
    pub(crate) fn from_d_type(t: u8) -> FileType {
        match t {
            libc::DT_REG => FileType::File,
            libc::DT_DIR => FileType::Dir,
            libc::DT_LNK => FileType::Symlink,
            libc::DT_FIFO => FileType::Fifo,
            libc::DT_SOCK => FileType::Socket,
            libc::DT_BLK => FileType::BlockDevice,
            libc::DT_CHR => FileType::CharDevice,
            _ => FileType::Unknown,
        }
    }

    /// The type encoded in a `st_mode`.
    pub fn from_mode(mode: libc::mode_t) -> FileType {
        match mode & libc::S_IFMT {
            libc::S_IFREG => FileType::File,
            libc::S_IFDIR => FileType::Dir,
            libc::S_IFLNK => FileType::Symlink,
            libc::S_IFIFO => FileType::Fifo,
            libc::S_IFSOCK => FileType::Socket,
            libc::S_IFBLK => FileType::BlockDevice,
            libc::S_IFCHR => FileType::CharDevice,
            _ => FileType::Unknown,
        }
    }

    /// A regular file.
    pub fn is_file(self) -> bool {
        self == FileType::File
    }

    /// A directory.
    pub fn is_dir(self) -> bool {
        self == FileType::Dir
    }

    /// A symbolic link.
    pub fn is_symlink(self) -> bool {
        self == FileType::Symlink
    }
}

/// Size of the getdents64 buffer: large enough for most directories in one call.
const DENT_BUF_SIZE: usize = 128 * 1024;

/// A reusable, 8-byte-aligned buffer for getdents64, allocated by the
/// first directory read (a walk of one file never needs it).
pub(crate) struct DentBuf {
    buf: Vec<u64>,
}

impl DentBuf {
    pub(crate) fn new() -> DentBuf {
        DentBuf { buf: Vec::new() }
    }

    /// Calls `f(name, d_type, d_ino)` for every entry of the open directory `fd`
    /// except `.` and `..`.
    pub(crate) fn read_all(
        &mut self,
        fd: RawFd,
        mut f: impl FnMut(&CStr, u8, u64),
    ) -> io::Result<()> {
        if self.buf.is_empty() {
            self.buf = vec![0u64; DENT_BUF_SIZE / 8];
        }
        loop {
            // SAFETY: the buffer is valid for writes of its whole length.
            let n = unsafe {
                libc::syscall(
                    libc::SYS_getdents64,
                    fd,
                    self.buf.as_mut_ptr().cast::<u8>(),
                    DENT_BUF_SIZE,
                )
            };
            if n < 0 {
                return Err(io::Error::last_os_error());
            }
            if n == 0 {
                return Ok(());
            }
            let n = n as usize;
            // SAFETY: the kernel wrote `n` initialized bytes at the start of the buffer.
            let bytes = unsafe { std::slice::from_raw_parts(self.buf.as_ptr().cast::<u8>(), n) };
            let mut off = 0;
            while off < n {
                // linux_dirent64: u64 d_ino, i64 d_off, u16 d_reclen, u8 d_type, name.
                let ino = u64::from_ne_bytes(bytes[off..off + 8].try_into().expect("8 bytes"));
                let reclen = u16::from_ne_bytes([bytes[off + 16], bytes[off + 17]]) as usize;
                let d_type = bytes[off + 18];
                let name_bytes = &bytes[off + 19..off + reclen];
                let name = CStr::from_bytes_until_nul(name_bytes)
                    .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "bad dirent"))?;
                off += reclen;
                let nb = name.to_bytes();
                if nb == b"." || nb == b".." {
                    continue;
                }
                f(name, d_type, ino);
            }
        }
    }
}

/// Whether the open directory `fd` has an entry other than `.` and `..`.
pub(crate) fn has_entries(fd: RawFd) -> io::Result<bool> {
    let mut buf = [0u64; 512];
    loop {
        // SAFETY: the buffer is valid for writes of its whole length.
        let n =
            unsafe { libc::syscall(libc::SYS_getdents64, fd, buf.as_mut_ptr().cast::<u8>(), 4096) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        if n == 0 {
            return Ok(false);
        }
        // SAFETY: the kernel wrote `n` initialized bytes.
        let bytes = unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), n as usize) };
        let mut off = 0;
        while off < bytes.len() {
            let reclen = u16::from_ne_bytes([bytes[off + 16], bytes[off + 17]]) as usize;
            let name = &bytes[off + 19..off + reclen];
            let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())];
            if name != b"." && name != b".." {
                return Ok(true);
            }
            off += reclen;
        }
    }
}
