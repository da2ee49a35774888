//! Reading directories: a [`DirReader`] opens a directory task (loops,
//! other file systems and ignore files handled there), reads its children
//! with getdents64 (or takes those its caller listed), and turns them into
//! entries and visits.

use std::ffi::{CStr, CString};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::builder::WalkBuilder;
use crate::dirent::{self, FileType};
use crate::entry::{DirRead, Entry};
use crate::error::{WalkError, WalkErrorKind};
use crate::fds::{self, DirFd};
use crate::ignore_files::{IgnoreStack, Unusable};
use crate::name::Name;
use crate::open_dir::{open_dir_path, Ancestor, Child, DirTask, OpenDir, Origin, PostInfo};
use crate::roots::{Descent, Itself, Opening, Root};
use crate::sys::{fstat, fstatat, reads_to_the_end};
use crate::visitor::{Visitor, WalkState};

/// Calls [`Visitor::visit_dir_end`] for the directory `name` in `parent`
/// (followed or not, with its metadata if known), printed as `path`.
pub(crate) fn dir_end<V: Visitor>(
    v: &mut V,
    (parent, name, followed, stat): (Option<&OpenDir>, &CStr, bool, Option<&libc::stat>),
    path: &[u8],
    depth: usize,
) -> WalkState {
    let path: &[u8] = if path.is_empty() { b"." } else { path };
    let _pin = parent.map(|p| p.fd.pin());
    let entry = Entry {
        parent,
        name,
        path,
        depth,
        file_type: FileType::Dir,
        followed,
        stat,
        link_error: None,
        short_read_is_end: false,
    };
    v.visit_dir_end(&entry)
}

/// Appends `name` to a directory path the way entries are printed.
pub(crate) fn join_path(out: &mut Vec<u8>, dir: &[u8], name: &[u8]) {
    out.clear();
    out.extend_from_slice(dir);
    if !dir.is_empty() && !dir.ends_with(b"/") {
        out.push(b'/');
    }
    out.extend_from_slice(name);
}

/// Shared state of one walk's directory handling, used by both orders.
pub(crate) struct DirReader<'w> {
    pub(crate) config: &'w WalkBuilder,
    pub(crate) buf: dirent::DentBuf,
    pub(crate) path: Vec<u8>,
}

impl<'w> DirReader<'w> {
    pub(crate) fn new(config: &'w WalkBuilder) -> DirReader<'w> {
        DirReader { config, buf: dirent::DentBuf::new(), path: Vec::new() }
    }

    /// The post-order visit of a directory that could not be read.
    pub(crate) fn post_visit_task<V: Visitor>(&mut self, task: &DirTask, v: &mut V) -> WalkState {
        if !self.config.post_order {
            return WalkState::Continue;
        }
        let at = (task.parent.as_deref(), task.name.as_c_str(), task.followed, task.stat.as_ref());
        dir_end(v, at, &task.path, task.depth)
    }

    /// The post-order visit of a directory whose contents are all done.
    pub(crate) fn post_visit_dir<V: Visitor>(&mut self, dir: &OpenDir, v: &mut V) -> WalkState {
        let Some(post) = &dir.post else { return WalkState::Continue };
        let at = (post.parent.as_deref(), post.name.as_c_str(), post.followed, post.stat.as_ref());
        dir_end(v, at, &dir.path, dir.depth)
    }

    /// Marks one work item of `dir` finished; for each directory whose
    /// contents are then all done, runs its post-order visit and moves up.
    pub(crate) fn finish_item<V: Visitor>(&mut self, dir: &Arc<OpenDir>, v: &mut V) -> WalkState {
        if !self.config.post_order {
            return WalkState::Continue;
        }
        let mut cur = dir.clone();
        loop {
            if cur.outstanding.fetch_sub(1, Ordering::AcqRel) != 1 {
                return WalkState::Continue;
            }
            if self.post_visit_dir(&cur, v) == WalkState::Quit {
                return WalkState::Quit;
            }
            match cur.post.as_ref().and_then(|p| p.parent.clone()) {
                Some(parent) => cur = parent,
                None => return WalkState::Continue,
            }
        }
    }

    /// Opens a directory task; reports errors and loops to the visitor.
    pub(crate) fn open_dir<V: Visitor>(
        &mut self,
        task: DirTask,
        v: &mut V,
    ) -> Result<OpenDir, Box<DirTask>> {
        let c = self.config;
        let fd = match &task.parent {
            None => open_dir_path(&task.name),
            Some(parent) => {
                let mut flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;
                if !task.followed {
                    flags |= libc::O_NOFOLLOW;
                }
                let _pin = parent.fd.pin();
                // The parent's descriptor stays open while pinned.
                parent.raw_fd().and_then(|at| fds::open_at(at, &task.name, flags))
            }
        };
        let fd = match fd {
            Ok(fd) => fd,
            Err(e) => {
                v.error(WalkError { path: task.path.clone(), kind: WalkErrorKind::Io(e) });
                return Err(Box::new(task));
            }
        };
        let parent = task.parent.as_deref();
        let mut ancestors = None;
        let mut root_dev = parent.and_then(|p| p.root_dev);
        let mut stat = None;
        if c.follow_links || c.same_file_system {
            let st = match fstat(fd.as_raw_fd()) {
                Ok(st) => st,
                Err(e) => {
                    v.error(WalkError { path: task.path.clone(), kind: WalkErrorKind::Io(e) });
                    return Err(Box::new(task));
                }
            };
            let (dev, ino) = (st.st_dev, st.st_ino);
            if c.same_file_system {
                match root_dev {
                    None => root_dev = Some(dev),
                    Some(d) if d != dev => return Err(Box::new(task)),
                    Some(_) => {}
                }
            }
            if c.follow_links {
                let up = parent.and_then(|p| p.ancestors.clone());
                if let Some(ancestor) = up.as_ref().and_then(|a| a.find(dev, ino)) {
                    let kind = WalkErrorKind::Loop { ancestor: ancestor.to_vec() };
                    v.error(WalkError { path: task.path.clone(), kind });
                    return Err(Box::new(task));
                }
                let path = if task.path.is_empty() { b".".to_vec() } else { task.path.clone() };
                ancestors = Some(Arc::new(Ancestor { dev, ino, path, parent: up }));
            }
            stat = Some(Box::new(st));
        }
        let ignore = if c.ignore_files {
            let mut unused = Vec::new();
            let parent_rules = match parent {
                Some(p) => p.ignore.clone(),
                None => crate::ignore_files::rules_above(&task.path),
            };
            let stack = IgnoreStack::enter(
                parent_rules,
                std::os::fd::AsFd::as_fd(&fd),
                &task.path,
                &mut unused,
            );
            for (name, why) in unused {
                let mut path = Vec::new();
                join_path(&mut path, &task.path, name);
                let kind = match why {
                    Unusable::NotRegular => WalkErrorKind::IgnoreFileNotRegular,
                    Unusable::Unreadable(e) => WalkErrorKind::IgnoreFileUnreadable(e),
                };
                v.error(WalkError { path, kind });
            }
            Some(stack)
        } else {
            None
        };
        let post = c.post_order.then(|| PostInfo {
            parent: task.parent.clone(),
            name: task.name.clone(),
            stat: task.stat,
            followed: task.followed,
        });
        let short_read_is_end = c.file_systems && reads_to_the_end(fd.as_raw_fd());
        let origin = match parent {
            Some(p) => p.origin.clone(),
            None => Arc::new(Origin { open: task.name.clone(), display_len: task.path.len() }),
        };
        Ok(OpenDir {
            fd: DirFd::open(fd),
            origin,
            path: task.path,
            depth: task.depth,
            ancestors,
            root_dev,
            ignore,
            outstanding: AtomicUsize::new(1),
            post,
            short_read_is_end,
            stat,
        })
    }

    /// Reads all children of `dir` (pinned by the caller), resolving
    /// unknown types and followed links.
    pub(crate) fn read_children<V: Visitor>(
        &mut self,
        dir: &OpenDir,
        v: &mut V,
        out: &mut Vec<Child>,
    ) -> WalkState {
        out.clear();
        let c = self.config;
        let raw = match dir.raw_fd() {
            Ok(raw) => raw,
            Err(e) => {
                let err = WalkError { path: dir.path.clone(), kind: WalkErrorKind::Io(e) };
                return v.error(err);
            }
        };
        let mut result = Ok(());
        self.buf
            .read_all(raw, |name, d_type, ino| {
                let mut file_type = FileType::from_d_type(d_type);
                let mut stat = None;
                let mut followed = false;
                if file_type == FileType::Unknown || (c.follow_links && file_type.is_symlink()) {
                    let follow = c.follow_links;
                    match fstatat(raw, name, follow) {
                        Ok(st) => {
                            followed = follow && file_type != FileType::Unknown;
                            file_type = FileType::from_mode(st.st_mode);
                            stat = Some(Box::new(st));
                        }
                        Err(e) => {
                            if follow {
                                // A link that cannot be followed (dangling, or
                                // through a file: ENOTDIR) is an entry of its
                                // own, with why (find reports all but dangling
                                // links; grep all); a link loop (ELOOP) is an
                                // error, as in grep and find.
                                if let Ok(st) = fstatat(raw, name, false) {
                                    file_type = FileType::from_mode(st.st_mode);
                                    let looped = e.raw_os_error() == Some(libc::ELOOP);
                                    if file_type.is_symlink() && !looped {
                                        out.push(Child {
                                            name: Name::from(name),
                                            file_type,
                                            stat: Some(Box::new(st)),
                                            followed: false,
                                            link_error: e.raw_os_error(),
                                            ino,
                                            descent: Descent::Walked,
                                        });
                                        return;
                                    }
                                }
                            }
                            join_path(&mut self.path, &dir.path, name.to_bytes());
                            let err =
                                WalkError { path: self.path.clone(), kind: WalkErrorKind::Io(e) };
                            if v.error(err) == WalkState::Quit {
                                result = Err(());
                            }
                            return;
                        }
                    }
                }
                out.push(Child {
                    name: Name::from(name),
                    file_type,
                    stat,
                    followed,
                    link_error: None,
                    ino,
                    descent: Descent::Walked,
                });
            })
            .unwrap_or_else(|e| {
                if v.error(WalkError { path: dir.path.clone(), kind: WalkErrorKind::Io(e) })
                    == WalkState::Quit
                {
                    result = Err(());
                }
            });
        if let Some(ig) = &dir.ignore {
            let keep = c.keep_ignored.as_ref();
            out.retain(|ch| {
                join_path(&mut self.path, &dir.path, ch.name.to_bytes());
                let is_dir = ch.file_type.is_dir();
                !ig.is_ignored(&self.path, ch.name.to_bytes(), is_dir)
                    || keep.is_some_and(|k| (k.0)(&self.path, dir.depth + 1, is_dir))
            });
        }
        if result.is_err() {
            return WalkState::Quit;
        }
        let read =
            DirRead { path: &dir.path, depth: dir.depth, stat: dir.stat.as_deref(), children: out };
        match v.dir_read(&read) {
            WalkState::Continue => WalkState::Continue,
            WalkState::Skip => {
                out.clear();
                WalkState::Continue
            }
            WalkState::Quit => WalkState::Quit,
        }
    }

    /// A listed root's directory (see [`WalkBuilder::add_listed`]), opened
    /// now or when first needed (then never failing here); None when it
    /// cannot be opened (reported) or is not to be descended into.
    pub(crate) fn listed_root<V: Visitor>(
        &mut self,
        root: &Root,
        v: &mut V,
    ) -> (WalkState, Option<OpenDir>) {
        let listed = root.listed.as_deref().expect("a listed root");
        let task = if listed.itself == Itself::Visited {
            match self.visit_root(root, v) {
                (WalkState::Continue, Some(task)) => task,
                (state, _) => return (state, None),
            }
        } else {
            DirTask {
                parent: None,
                name: root.open.clone(),
                path: root.display.clone(),
                depth: listed.depth,
                followed: true,
                stat: None,
            }
        };
        if listed.opening == Opening::WhenNeeded && listed.itself == Itself::NotVisited {
            let origin = Arc::new(Origin { open: task.name, display_len: task.path.len() });
            let dir = OpenDir {
                fd: DirFd::closed(),
                origin,
                path: task.path,
                depth: task.depth,
                ancestors: None,
                root_dev: None,
                ignore: None,
                outstanding: AtomicUsize::new(1),
                post: None,
                short_read_is_end: false,
                stat: None,
            };
            return (WalkState::Continue, Some(dir));
        }
        match self.open_dir(task, v) {
            Ok(dir) => (WalkState::Continue, Some(dir)),
            Err(_) => (WalkState::Continue, None),
        }
    }

    /// The children of `dir` (pinned by the caller) its caller knows
    /// (instead of reading it): those of unknown type are stat'd, as
    /// [`DirReader::read_children`] does for an unknown `d_type`.
    pub(crate) fn known_children<V: Visitor>(
        &mut self,
        dir: &OpenDir,
        root: &Root,
        v: &mut V,
        out: &mut Vec<Child>,
    ) -> WalkState {
        out.clear();
        let known = root.listed.as_deref().map_or(&[][..], |l| &l.children[..]);
        for (name, file_type, descent) in known {
            let mut child = Child {
                name: Name::from(name.as_c_str()),
                file_type: *file_type,
                stat: None,
                followed: false,
                link_error: None,
                ino: 0,
                descent: *descent,
            };
            if child.file_type == FileType::Unknown {
                match dir.raw_fd().and_then(|at| fstatat(at, name, false)) {
                    Ok(st) => {
                        child.file_type = FileType::from_mode(st.st_mode);
                        child.ino = st.st_ino;
                        child.stat = Some(Box::new(st));
                    }
                    Err(e) => {
                        join_path(&mut self.path, &dir.path, name.to_bytes());
                        let err = WalkError { path: self.path.clone(), kind: WalkErrorKind::Io(e) };
                        if v.error(err) == WalkState::Quit {
                            return WalkState::Quit;
                        }
                        continue;
                    }
                }
            }
            out.push(child);
        }
        WalkState::Continue
    }

    /// Visits one child of `dir` (pinned by the caller); returns the task
    /// for it if it is a directory to descend into.
    pub(crate) fn visit_child<V: Visitor>(
        &mut self,
        dir: &Arc<OpenDir>,
        child: &Child,
        v: &mut V,
    ) -> (WalkState, Option<DirTask>) {
        join_path(&mut self.path, &dir.path, child.name.to_bytes());
        if let (true, Some(up)) = (child.file_type.is_dir(), &dir.ancestors) {
            // Back to an ancestor: report the loop instead of the entry (as
            // GNU find -L does; grep -R only warns). A real subdirectory is on
            // its parent's device, so its d_ino says enough.
            let (dev, ino) = match &child.stat {
                Some(st) => (st.st_dev, st.st_ino),
                None => (up.dev, child.ino),
            };
            if let Some(ancestor) = up.find(dev, ino) {
                let kind = WalkErrorKind::Loop { ancestor: ancestor.to_vec() };
                let err = WalkError { path: self.path.clone(), kind };
                return (v.error(err), None);
            }
        }
        let entry = Entry {
            parent: Some(dir),
            name: &child.name,
            path: &self.path,
            depth: dir.depth + 1,
            file_type: child.file_type,
            followed: child.followed,
            stat: child.stat.as_deref(),
            link_error: child.link_error,
            short_read_is_end: dir.short_read_is_end,
        };
        let state = v.visit(&entry);
        if child.file_type.is_dir() {
            if state == WalkState::Continue
                && child.descent == Descent::Walked
                && self.config.max_depth.is_none_or(|m| dir.depth + 1 < m)
            {
                let task = DirTask {
                    parent: Some(dir.clone()),
                    name: CString::from(&*child.name),
                    path: self.path.clone(),
                    depth: dir.depth + 1,
                    followed: child.followed,
                    stat: child.stat.as_deref().copied(),
                };
                return (state, Some(task));
            }
            if self.config.post_order && state != WalkState::Quit {
                // Not descended into: its contents are done already.
                return (v.visit_dir_end(&entry), None);
            }
        }
        (state, None)
    }

    /// Visits a root; returns the task to read it if it is a directory.
    pub(crate) fn visit_root<V: Visitor>(
        &mut self,
        root: &Root,
        v: &mut V,
    ) -> (WalkState, Option<DirTask>) {
        // Roots follow symlinks (grep -r, find -H and -L), unless told not to (find -P).
        let mut follow = self.config.follow_roots;
        let st = match fstatat(libc::AT_FDCWD, &root.open, follow) {
            Ok(st) => st,
            // A dangling link named as a root is that link (find -H/-L); opening
            // it still fails for grep, which reports that.
            Err(e) if follow && e.raw_os_error() == Some(libc::ENOENT) => {
                match fstatat(libc::AT_FDCWD, &root.open, false) {
                    Ok(st) if FileType::from_mode(st.st_mode).is_symlink() => {
                        follow = false;
                        st
                    }
                    _ => {
                        let path = root.open.to_bytes().to_vec();
                        return (v.error(WalkError { path, kind: WalkErrorKind::Io(e) }), None);
                    }
                }
            }
            Err(e) => {
                let path = root.open.to_bytes().to_vec();
                return (v.error(WalkError { path, kind: WalkErrorKind::Io(e) }), None);
            }
        };
        let file_type = FileType::from_mode(st.st_mode);
        let display: &[u8] = if root.display.is_empty() { b"." } else { &root.display };
        let entry = Entry {
            parent: None,
            name: &root.open,
            path: display,
            depth: 0,
            file_type,
            followed: follow,
            stat: Some(&st),
            link_error: None,
            short_read_is_end: false,
        };
        let state = v.visit(&entry);
        if file_type.is_dir() {
            if state == WalkState::Continue && self.config.max_depth != Some(0) {
                let task = DirTask {
                    parent: None,
                    name: root.open.clone(),
                    path: root.display.clone(),
                    depth: 0,
                    followed: true,
                    stat: Some(st),
                };
                return (state, Some(task));
            }
            if self.config.post_order && state != WalkState::Quit {
                return (v.visit_dir_end(&entry), None);
            }
        }
        (state, None)
    }
}
