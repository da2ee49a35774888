//! User and group names (`-user`, `-group`, `-ls`, `-printf %u %g`),
//! through the uzers crate: the reentrant libc calls, retried with a larger
//! buffer when an entry does not fit (ERANGE), names kept as bytes.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

/// The uid of a user name.
pub fn uid_by_name(name: &[u8]) -> Option<u32> {
    uzers::get_user_by_name(OsStr::from_bytes(name)).map(|u| u.uid())
}

/// The gid of a group name.
pub fn gid_by_name(name: &[u8]) -> Option<u32> {
    uzers::get_group_by_name(OsStr::from_bytes(name)).map(|g| g.gid())
}

fn user_name(uid: u32) -> Option<Vec<u8>> {
    uzers::get_user_by_uid(uid).map(|u| u.name().as_bytes().to_vec())
}

fn group_name(gid: u32) -> Option<Vec<u8>> {
    uzers::get_group_by_gid(gid).map(|g| g.name().as_bytes().to_vec())
}

/// Per-thread caches of id → name.
#[derive(Default, Debug)]
pub struct Names {
    users: HashMap<u32, Option<Vec<u8>>>,
    groups: HashMap<u32, Option<Vec<u8>>>,
}

impl Names {
    /// The user's name, if it has one.
    pub fn user(&mut self, uid: u32) -> Option<&[u8]> {
        self.users.entry(uid).or_insert_with(|| user_name(uid)).as_deref()
    }

    /// The group's name, if it has one.
    pub fn group(&mut self, gid: u32) -> Option<&[u8]> {
        self.groups.entry(gid).or_insert_with(|| group_name(gid)).as_deref()
    }
}
