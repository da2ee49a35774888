//! User and group names, looked up with the reentrant libc calls.

use std::collections::HashMap;
use std::ffi::{CStr, CString};

/// The uid of a user name.
pub fn uid_by_name(name: &[u8]) -> Option<u32> {
    let c = CString::new(name).ok()?;
    let mut buf = vec![0 as libc::c_char; 16384];
    // SAFETY: zeroed passwd is a valid out-value for getpwnam_r.
    let mut pw: libc::passwd = unsafe { std::mem::zeroed() };
    let mut out = std::ptr::null_mut();
    // SAFETY: valid pointers and buffer length.
    let r = unsafe { libc::getpwnam_r(c.as_ptr(), &mut pw, buf.as_mut_ptr(), buf.len(), &mut out) };
    (r == 0 && !out.is_null()).then_some(pw.pw_uid)
}

/// The gid of a group name.
pub fn gid_by_name(name: &[u8]) -> Option<u32> {
    let c = CString::new(name).ok()?;
    let mut buf = vec![0 as libc::c_char; 16384];
    // SAFETY: zeroed group is a valid out-value for getgrnam_r.
    let mut gr: libc::group = unsafe { std::mem::zeroed() };
    let mut out = std::ptr::null_mut();
    // SAFETY: valid pointers and buffer length.
    let r = unsafe { libc::getgrnam_r(c.as_ptr(), &mut gr, buf.as_mut_ptr(), buf.len(), &mut out) };
    (r == 0 && !out.is_null()).then_some(gr.gr_gid)
}

fn user_name(uid: u32) -> Option<Vec<u8>> {
    let mut buf = vec![0 as libc::c_char; 16384];
    // SAFETY: as above.
    let mut pw: libc::passwd = unsafe { std::mem::zeroed() };
    let mut out = std::ptr::null_mut();
    // SAFETY: valid pointers and buffer length.
    let r = unsafe { libc::getpwuid_r(uid, &mut pw, buf.as_mut_ptr(), buf.len(), &mut out) };
    // SAFETY: on success pw_name points into `buf`, NUL-terminated.
    (r == 0 && !out.is_null()).then(|| unsafe { CStr::from_ptr(pw.pw_name) }.to_bytes().to_vec())
}

fn group_name(gid: u32) -> Option<Vec<u8>> {
    let mut buf = vec![0 as libc::c_char; 16384];
    // SAFETY: as above.
    let mut gr: libc::group = unsafe { std::mem::zeroed() };
    let mut out = std::ptr::null_mut();
    // SAFETY: valid pointers and buffer length.
    let r = unsafe { libc::getgrgid_r(gid, &mut gr, buf.as_mut_ptr(), buf.len(), &mut out) };
    // SAFETY: on success gr_name points into `buf`, NUL-terminated.
    (r == 0 && !out.is_null()).then(|| unsafe { CStr::from_ptr(gr.gr_name) }.to_bytes().to_vec())
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
