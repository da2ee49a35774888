//! The sorted walk: depth first, each directory's entries in name-byte order.

use std::sync::Arc;

use crate::{Child, DirReader, DirTask, Visitor, WalkBuilder, WalkState};

pub(crate) fn walk<V: Visitor>(config: &WalkBuilder, v: &mut V) {
    let mut reader = DirReader::new(config);
    for root in &config.roots {
        let (state, task) = reader.visit_root(root, v);
        if state == WalkState::Quit {
            return;
        }
        if let Some(task) = task {
            if walk_tree(&mut reader, task, v) == WalkState::Quit {
                return;
            }
        }
    }
}

/// Walks the tree under `task` with an explicit stack (trees may be deeper
/// than any thread stack allows recursion for).
fn walk_tree<V: Visitor>(reader: &mut DirReader<'_>, task: DirTask, v: &mut V) -> WalkState {
    let mut stack = Vec::new();
    match enter(reader, task, v) {
        Some(Ok(level)) => stack.push(level),
        Some(Err(q)) => return q,
        None => {}
    }
    while let Some((dir, children)) = stack.last_mut() {
        let Some(child) = children.next() else {
            let (dir, _) = stack.pop().expect("a level is on the stack");
            if reader.post_visit_dir(&dir, v) == WalkState::Quit {
                return WalkState::Quit;
            }
            continue;
        };
        let dir = dir.clone();
        let (state, task) = reader.visit_child(&dir, &child, v);
        if state == WalkState::Quit {
            return state;
        }
        if let Some(task) = task {
            if let Some(level) = enter(reader, task, v) {
                match level {
                    Ok(level) => stack.push(level),
                    Err(q) => return q,
                }
            }
        }
    }
    WalkState::Continue
}

type Level = (Arc<crate::OpenDir>, std::vec::IntoIter<Child>);

fn enter<V: Visitor>(
    reader: &mut DirReader<'_>,
    task: DirTask,
    v: &mut V,
) -> Option<Result<Level, WalkState>> {
    let dir = match reader.open_dir(task, v) {
        Ok(dir) => Arc::new(dir),
        Err(task) => {
            return match reader.post_visit_task(&task, v) {
                WalkState::Quit => Some(Err(WalkState::Quit)),
                _ => None,
            };
        }
    };
    let mut children = Vec::new();
    if reader.read_children(&dir, v, &mut children) == WalkState::Quit {
        return Some(Err(WalkState::Quit));
    }
    children.sort_unstable_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    Some(Ok((dir, children.into_iter())))
}
