//! File system types for `-fstype` and `%F`: from the mount table
//! (`/proc/self/mountinfo`), as GNU find reads it: the type of the last
//! mount whose device is the entry's (a file system mounted twice, or a
//! mount over another, is named by the last one); "unknown" when none is.

use std::sync::OnceLock;

/// A mount: its device (as stat gives st_dev) and file system type.
#[derive(Debug, Eq, PartialEq)]
struct Mount {
    dev: u64,
    fstype: Vec<u8>,
}

fn table() -> &'static [Mount] {
    static TABLE: OnceLock<Vec<Mount>> = OnceLock::new();
    TABLE.get_or_init(|| {
        std::fs::read("/proc/self/mountinfo").map(|t| parse(&t)).unwrap_or_default()
    })
}

/// The mounts of a mountinfo text, in order.
fn parse(text: &[u8]) -> Vec<Mount> {
    let mut out = Vec::new();
    for line in text.split(|&b| b == b'\n') {
        // ID PARENT MAJOR:MINOR ROOT POINT OPTIONS [TAGS...] - TYPE SOURCE SUPER
        let fields: Vec<&[u8]> = line.split(|&b| b == b' ').collect();
        let Some(dash) = fields.iter().position(|f| *f == b"-") else { continue };
        let (Some(devno), Some(fstype)) = (fields.get(2), fields.get(dash + 1)) else { continue };
        let Some((major, minor)) = std::str::from_utf8(devno).ok().and_then(|d| d.split_once(':'))
        else {
            continue;
        };
        let (Ok(major), Ok(minor)) = (major.parse::<u32>(), minor.parse::<u32>()) else {
            continue;
        };
        out.push(Mount { dev: libc::makedev(major, minor), fstype: fstype.to_vec() });
    }
    out
}

/// The type of the file system of the device `dev`.
pub fn fstype_of(dev: u64) -> &'static [u8] {
    table().iter().rev().find(|m| m.dev == dev).map_or(b"unknown", |m| &m.fstype)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_mount_of_a_device_names_its_type() {
        let text = b"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n\
            30 22 0:26 / /dev/shm rw,nosuid - tmpfs tmpfs rw\n\
            31 22 8:1 /srv /mnt rw - ext4 /dev/sda1 rw\n\
            32 22 0:26 / /other rw master:3 - devtmpfs other rw\n";
        let t = parse(text);
        assert_eq!(t.len(), 4);
        let last = |dev| t.iter().rev().find(|m| m.dev == dev).map(|m| m.fstype.clone());
        assert_eq!(last(libc::makedev(8, 1)), Some(b"ext4".to_vec()));
        assert_eq!(last(libc::makedev(0, 26)), Some(b"devtmpfs".to_vec()));
        // This machine's root file system has a type.
        let root = std::fs::metadata("/").map(|m| std::os::unix::fs::MetadataExt::dev(&m));
        assert_ne!(fstype_of(root.unwrap()), b"unknown");
    }
}
