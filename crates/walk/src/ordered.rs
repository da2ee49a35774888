//! The sorted walk: depth first, each directory's entries in name-byte order,
//! visited in parallel and written in that order.
//!
//! The walk keeps a tree shaped like the part of the file tree it has read:
//! one node per directory read, holding one slot per work item in walk order
//! (a directory, or a batch of consecutive non-directories); the top node
//! holds the roots. An item's position is the list of slot indices that
//! lead to it, so comparing positions compares walk order.
//!
//! - Which item a worker takes depends on how much finished output waits to
//!   be written. With little, each worker goes on depth first in its own
//!   region (the nearest directory on its path with pending work, else the
//!   first pending item of the shallowest such directory: another subtree),
//!   as an unsorted walk would: threads in one directory slow each other
//!   down in the kernel (shared reference counts on the directory, its
//!   metadata in other CPUs' caches). Past half the limit, workers take the
//!   earliest pending item, converging on the write cursor. On one thread
//!   the visits happen in walk order exactly.
//! - A finished item leaves in its slot the output its visitor handed over
//!   ([`Visitor::take_output`]) and, for a directory, the node of its
//!   children. The write cursor moves through finished slots in order,
//!   entering a directory's node after the directory's own slot and freeing
//!   each node it leaves; the thread that finishes the item under the cursor
//!   writes ([`Visitor::write_output`]) until it meets an unfinished slot.
//! - Memory: once the output of finished, unwritten slots passes the limit,
//!   workers wait, except to take the item under the cursor. That item is
//!   then either running (its end moves the cursor and frees output) or
//!   pending and allowed, so the walk cannot deadlock; what is held stays
//!   under the limit plus the output of the items in flight.
//! - The turn ([`crate::Turn`]): the item under the cursor, once everything
//!   before it was written, may write its output as it makes it (a file
//!   printing megabytes is then not held whole). The walk gives the turn to
//!   its visitor, if it takes one, when the cursor reaches the running item
//!   (or the item is taken under the cursor), and counts it as the thread
//!   writing until the item ends; its output handed over then is written
//!   after what it wrote. Not in post order.
//! - Listed directories ([`WalkBuilder::add_listed`], from an index): a
//!   listed root that is the listed entry of another is taken where that
//!   entry comes (its entries sorted into a node, as if read); the others
//!   are roots. Not in post order.
//! - Post order (`find -depth`): a node counts its unfinished slots (a
//!   directory's slot finishes when its node does); the thread that finishes
//!   the last one visits the directory again, and that output is written
//!   after the node's slots.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::builder::WalkBuilder;
use crate::dir::{join_path, DirReader};
use crate::open_dir::{Child, DirTask, OpenDir};
use crate::parallel::FILE_BATCH;
use crate::roots::Descent;
use crate::threads::{run_threads, Growth};
use crate::visitor::{Visitor, WalkState};

mod tree;

use tree::{Done, Node, OrderTree, Output, Place, PlacedTask, SortedTask};

/// The most files one item visits. A run of files in a directory is split
/// into about one item per thread, of at least [`FILE_BATCH`] files: larger
/// items than the unsorted walk's batches, as each costs a turn on the
/// shared lock, and threads sharing a directory slow each other down.
const MAX_FILE_BATCH: usize = 256;

struct Shared {
    state: Mutex<OrderTree>,
    wake: Condvar,
    /// Threads started (more join when the walk grows).
    threads: AtomicUsize,
    limit: usize,
    post_order: bool,
    /// The listed roots taken as the contents of another's listed entry,
    /// by their displays.
    nested: HashMap<Vec<u8>, usize>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, OrderTree> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn wake_waiters(&self, st: &OrderTree) {
        if st.waiting > 0 {
            self.wake.notify_all();
        }
    }
}

pub(crate) fn walk<V, F>(
    config: &WalkBuilder,
    threads: usize,
    growth: Growth<'_>,
    make_visitor: &F,
) -> Vec<V>
where
    V: Visitor,
    F: Fn(usize) -> V + Sync,
{
    let nested = if config.post_order { HashMap::new() } else { nested_listed(config) };
    let top_roots = (0..config.roots.len())
        .filter(|i| !nested.values().any(|j| j == i))
        .map(SortedTask::Root)
        .collect();
    let mut state = OrderTree::new();
    let top = state.add_node(Node::new(Arc::from([]), top_roots, None));
    debug_assert_eq!(top, 0);
    let shared = Shared {
        state: Mutex::new(state),
        wake: Condvar::new(),
        threads: AtomicUsize::new(0),
        limit: config.reorder_buffer,
        post_order: config.post_order,
        nested,
    };
    let shared = &shared;
    run_threads(threads, growth, |i| {
        move || {
            shared.threads.fetch_add(1, AtomicOrdering::Relaxed);
            let mut v = make_visitor(i);
            let reader = DirReader::new(config);
            Worker { config, shared, reader, children: Vec::new(), at: None }.run(&mut v);
            v
        }
    })
}

/// The listed roots that are the listed entry of another listed root (their
/// display that entry's path), by display.
fn nested_listed(config: &WalkBuilder) -> HashMap<Vec<u8>, usize> {
    let listed = || config.roots.iter().enumerate().filter(|(_, r)| r.listed.is_some());
    let by_display: HashMap<&[u8], usize> = listed().map(|(i, r)| (&r.display[..], i)).collect();
    let mut nested = HashMap::new();
    let mut path = Vec::new();
    for (_, root) in listed() {
        let children = root.listed.as_deref().map_or(&[][..], |l| &l.children[..]);
        for (name, _, descent) in children {
            if *descent != Descent::Listed {
                continue;
            }
            join_path(&mut path, &root.display, name.to_bytes());
            if let Some(&j) = by_display.get(&path[..]) {
                nested.insert(path.clone(), j);
            }
        }
    }
    nested
}

struct Worker<'w> {
    config: &'w WalkBuilder,
    shared: &'w Shared,
    reader: DirReader<'w>,
    /// The entries of the directory being read (kept for its capacity).
    children: Vec<Child>,
    /// The node this worker took its last item from, or read last: where
    /// it goes on.
    at: Option<Place>,
}

impl<'w> Worker<'w> {
    /// Takes items until the walk is over. Finishing an item, moving the
    /// write cursor and taking the next item share one lock; the lock is
    /// let go to visit, and to write output.
    fn run<V: Visitor>(&mut self, v: &mut V) {
        let shared = self.shared;
        let turn = if shared.post_order { None } else { v.turn() };
        let mut st = shared.lock();
        loop {
            let item;
            (st, item) = self.claim(st);
            let Some(PlacedTask { key, node, slot, work }) = item else { return };
            let generation = st.node(node).generation;
            self.at = Some(Place { node: (node, generation), key: key.clone() });
            if let Some(turn) = &turn {
                st.runs_with((node, slot), turn);
            }
            drop(st);
            let done = self.process(&key, slot, work, v);
            let quit = done.state == WalkState::Quit;
            st = shared.lock();
            if turn.as_ref().is_some_and(|t| t.take_back()) {
                // What the item still hands over is written next (below).
                st.writing = false;
            }
            let mut due = None;
            if !quit {
                let child;
                (child, due) = st.finish_item((node, slot), done, shared.post_order);
                if let Some(child) = child {
                    let key = st.node(child.0).key.clone();
                    self.at = Some(Place { node: child, key });
                }
            }
            shared.wake_waiters(&st);
            if let Some(id) = due {
                drop(st);
                let state = self.post_visits(id, v);
                st = shared.lock();
                if state == WalkState::Quit {
                    return self.quit(st);
                }
            }
            if quit {
                return self.quit(st);
            }
            st = match self.write_ready(st, v) {
                Ok(st) => st,
                Err(st) => return self.quit(st),
            };
        }
    }

    fn quit(&self, mut st: MutexGuard<'w, OrderTree>) {
        st.quit = true;
        self.shared.wake.notify_all();
    }

    /// Takes an item: with little output held, the next one in this worker's
    /// region; past half the limit, the earliest; past the limit, only the
    /// one under the write cursor. Waits while there is none (work in
    /// flight may add some); None when the walk is over.
    fn claim(
        &self,
        mut st: MutexGuard<'w, OrderTree>,
    ) -> (MutexGuard<'w, OrderTree>, Option<PlacedTask>) {
        let limit = self.shared.limit;
        loop {
            if st.quit {
                return (st, None);
            }
            let item = if st.held > limit {
                st.claim_at_cursor()
            } else if st.held > limit / 2 {
                st.claim_earliest()
            } else {
                st.claim_near(self.at.as_ref())
            };
            if item.is_some() {
                st.running += 1;
                return (st, item);
            }
            if st.pending.is_empty() && st.running == 0 {
                self.shared.wake_waiters(&st);
                return (st, None);
            }
            st.waiting += 1;
            st = self.shared.wake.wait(st).unwrap_or_else(|p| p.into_inner());
            st.waiting -= 1;
        }
    }

    /// Visits the entries of an item (at `key ++ [slot]`) and reads the
    /// directory it may be.
    fn process<V: Visitor>(&mut self, key: &[u32], slot: u32, work: SortedTask, v: &mut V) -> Done {
        let mut done = Done { out: Output::default(), read: None, state: WalkState::Continue };
        let task = match work {
            SortedTask::Root(i) if self.config.roots[i].listed.is_some() => {
                // Not for post order (see add_listed).
                if !self.shared.post_order {
                    self.take_listed(i, key, slot, v, &mut done);
                }
                None
            }
            SortedTask::Listed(parent, child, root) => {
                let pin = parent.fd.pin();
                let (state, _) = self.reader.visit_child(&parent, &child, v);
                drop(pin);
                done.state = state;
                if let (WalkState::Continue, Some(i)) = (state, root) {
                    self.take_listed(i, key, slot, v, &mut done);
                }
                None
            }
            SortedTask::Root(i) => {
                let (state, task) = self.reader.visit_root(&self.config.roots[i], v);
                done.state = state;
                task
            }
            SortedTask::Dir(parent, child) => {
                let _pin = parent.fd.pin();
                let (state, task) = self.reader.visit_child(&parent, &child, v);
                done.state = state;
                task
            }
            SortedTask::Files(parent, files) => {
                let _pin = parent.fd.pin();
                for child in &files {
                    let (state, _) = self.reader.visit_child(&parent, child, v);
                    if state == WalkState::Quit {
                        done.state = state;
                        break;
                    }
                }
                None
            }
        };
        if let Some(task) = task.filter(|_| done.state != WalkState::Quit) {
            let key: Arc<[u32]> = key.iter().copied().chain([slot]).collect();
            self.read_dir(task, key, v, &mut done);
        }
        // The item's output, taken once at its end: until then the visitor
        // holds all of it, so that a turn given in the middle finds nothing
        // of the item here, ahead of what the visitor writes.
        done.out.take_from(v);
        done
    }

    /// Opens and reads the directory at `key`: its entries sorted, grouped
    /// into items of a new node.
    fn read_dir<V: Visitor>(&mut self, task: DirTask, key: Arc<[u32]>, v: &mut V, done: &mut Done) {
        let dir = match self.reader.open_dir(task, v) {
            Ok(dir) => Arc::new(dir),
            Err(task) => {
                done.state = self.reader.post_visit_task(&task, v);
                return;
            }
        };
        let mut children = std::mem::take(&mut self.children);
        let pin = dir.fd.pin();
        let read = self.reader.read_children(&dir, v, &mut children);
        drop(pin);
        if read == WalkState::Quit {
            done.state = WalkState::Quit;
            self.children = children;
            return;
        }
        done.read = Some(self.node_of(dir, key, &mut children));
        self.children = children;
    }

    /// Takes listed root `i` (see [`WalkBuilder::add_listed`]) as the
    /// directory at `key ++ [slot]`: its listed entries, as if read.
    fn take_listed<V: Visitor>(
        &mut self,
        i: usize,
        key: &[u32],
        slot: u32,
        v: &mut V,
        done: &mut Done,
    ) {
        let root = &self.config.roots[i];
        let (state, dir) = self.reader.listed_root(root, v);
        done.state = state;
        let Some(dir) = dir.filter(|_| state == WalkState::Continue) else { return };
        let dir = Arc::new(dir);
        let mut children = std::mem::take(&mut self.children);
        let pin = dir.fd.pin();
        let read = self.reader.known_children(&dir, root, v, &mut children);
        drop(pin);
        if read == WalkState::Quit {
            done.state = WalkState::Quit;
            self.children = children;
            return;
        }
        let key: Arc<[u32]> = key.iter().copied().chain([slot]).collect();
        done.read = Some(self.node_of(dir, key, &mut children));
        self.children = children;
    }

    /// The node of directory `dir` (at `key`) with entries `children`:
    /// sorted, grouped into items.
    fn node_of(&self, dir: Arc<OpenDir>, key: Arc<[u32]>, children: &mut Vec<Child>) -> Node {
        children.sort_unstable_by(|a, b| a.name.to_bytes().cmp(b.name.to_bytes()));
        let mut work = Vec::new();
        let threads = self.shared.threads.load(AtomicOrdering::Relaxed).max(1);
        let mut rest = children.drain(..).peekable();
        let mut path = Vec::new();
        while let Some(child) = rest.next() {
            if child.file_type.is_dir() && child.descent == Descent::Listed {
                join_path(&mut path, &dir.path, child.name.to_bytes());
                let root = self.shared.nested.get(&path).copied();
                work.push(SortedTask::Listed(dir.clone(), Box::new(child), root));
                continue;
            }
            if child.file_type.is_dir() {
                work.push(SortedTask::Dir(dir.clone(), Box::new(child)));
                continue;
            }
            // A run of files: about one batch per thread, so that a large
            // directory is still shared by all.
            let mut run = vec![child];
            while let Some(file) = rest.next_if(|c| !c.file_type.is_dir()) {
                run.push(file);
            }
            let size = run.len().div_ceil(threads).clamp(FILE_BATCH, MAX_FILE_BATCH);
            let mut run = run.into_iter().peekable();
            while run.peek().is_some() {
                work.push(SortedTask::Files(dir.clone(), run.by_ref().take(size).collect()));
            }
        }
        let post = self.shared.post_order.then(|| dir.clone());
        Node::new(key, work, post)
    }

    /// Post order: visits directory `id` again, and each ancestor whose
    /// last slot that finishes.
    fn post_visits<V: Visitor>(&mut self, mut id: usize, v: &mut V) -> WalkState {
        loop {
            let dir = self.shared.lock().node(id).dir.take().expect("a directory to end");
            let state = self.reader.post_visit_dir(&dir, v);
            drop(dir);
            let mut out = Output::default();
            out.take_from(v);
            if state == WalkState::Quit {
                return state;
            }
            let mut st = self.shared.lock();
            st.held += out.cost();
            let n = st.node(id);
            n.post = Some(out);
            let (parent, _) = n.parent.expect("only directories end");
            if !st.finish_slot(parent) {
                return WalkState::Continue;
            }
            id = parent;
        }
    }

    /// Writes finished output under the cursor, unless another thread is
    /// writing (it looks again before it stops). Err when a write says Quit.
    fn write_ready<V: Visitor>(
        &mut self,
        mut st: MutexGuard<'w, OrderTree>,
        v: &mut V,
    ) -> Result<MutexGuard<'w, OrderTree>, MutexGuard<'w, OrderTree>> {
        if st.writing {
            return Ok(st);
        }
        let mut ready = Vec::new();
        loop {
            st.take_ready(&mut ready, self.shared.post_order);
            if ready.is_empty() {
                st.writing = false;
                // The cursor stopped at an item running: its turn.
                st.give_turn();
                self.shared.wake_waiters(&st);
                return Ok(st);
            }
            st.writing = true;
            drop(st);
            let mut pieces = Vec::new();
            for out in &ready {
                out.entries(&mut pieces);
            }
            let state = v.write_output(&pieces);
            drop(pieces);
            let cost = ready.drain(..).map(|out| out.cost()).sum::<usize>();
            st = self.shared.lock();
            st.held -= cost;
            if state == WalkState::Quit {
                st.writing = false;
                return Err(st);
            }
        }
    }
}
