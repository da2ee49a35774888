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
//! - Post order (`find -depth`): a node counts its unfinished slots (a
//!   directory's slot finishes when its node does); the thread that finishes
//!   the last one visits the directory again, and that output is written
//!   after the node's slots.

use std::cmp::Ordering;
use std::collections::{BTreeSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::parallel::FILE_BATCH;
use crate::{Child, DirReader, DirTask, OpenDir, Visitor, WalkBuilder, WalkState};

/// The most files one item visits. A run of files in a directory is split
/// into about one item per thread, of at least [`FILE_BATCH`] files: larger
/// items than the unsorted walk's batches, as each costs a turn on the
/// shared lock, and threads sharing a directory slow each other down.
const MAX_FILE_BATCH: usize = 256;

/// Counted against the limit for each finished, unwritten slot, so that a
/// long stretch of finished slots without output is bounded too.
const SLOT_COST: usize = std::mem::size_of::<Slot>();

/// What a work item does.
enum SortedTask {
    /// Visit root number N, and read it if it is a directory.
    Root(usize),
    /// Visit a directory found in a read directory, and read it.
    Dir(Arc<OpenDir>, Box<Child>),
    /// Visit consecutive non-directories of a read directory.
    Files(Arc<OpenDir>, Vec<Child>),
}

/// A work item taken from its node, and its place in the walk.
struct PlacedTask {
    /// The position of the node holding its slot.
    key: Arc<[u32]>,
    node: usize,
    slot: u32,
    work: SortedTask,
}

/// Where a worker works: a node (index and generation) and its position.
struct Place {
    node: (usize, u64),
    key: Arc<[u32]>,
}

/// Compares the walk positions `a ++ [a_slot]` and `b ++ [b_slot]`.
fn cmp_positions(a: &[u32], a_slot: u32, b: &[u32], b_slot: u32) -> Ordering {
    let n = a.len().min(b.len());
    a[..n].cmp(&b[..n]).then_with(|| match a.len().cmp(&b.len()) {
        Ordering::Equal => a_slot.cmp(&b_slot),
        // `a ++ [a_slot]` is a prefix of `b`, or differs at b[n].
        Ordering::Less => a_slot.cmp(&b[n]).then(Ordering::Less),
        Ordering::Greater => a[n].cmp(&b_slot).then(Ordering::Greater),
    })
}

/// The output of one item: its entries' outputs, one after the other.
#[derive(Default)]
struct Output {
    bytes: Vec<u8>,
    /// Where each entry's output ends (entries without output are left out).
    ends: Vec<usize>,
}

impl Output {
    /// Appends what the visitor produced for the entry it just visited.
    fn take_from<V: Visitor>(&mut self, v: &mut V) {
        let start = self.bytes.len();
        v.take_output(&mut self.bytes);
        if self.bytes.len() > start {
            self.ends.push(self.bytes.len());
        }
    }

    /// What holding this costs against the limit.
    fn cost(&self) -> usize {
        self.bytes.len() + SLOT_COST
    }

    /// Adds each entry's output to `entries`.
    fn entries<'a>(&'a self, entries: &mut Vec<&'a [u8]>) {
        let mut start = 0;
        for &end in &self.ends {
            entries.push(&self.bytes[start..end]);
            start = end;
        }
    }
}

#[derive(Default)]
struct Slot {
    done: bool,
    out: Output,
    /// For a directory that was read: the node of its entries (index and
    /// generation).
    child: Option<(usize, u64)>,
}

/// A directory that was read (or the top, holding the roots).
struct Node {
    /// Its position (the slot indices that lead to it; empty for the top).
    key: Arc<[u32]>,
    /// Tells a reused index apart from the node a worker remembers.
    generation: u64,
    slots: Vec<Slot>,
    /// Work not taken yet, by slot, in walk order.
    pending: VecDeque<(u32, SortedTask)>,
    /// The slot this directory fills in its parent (None for the top).
    parent: Option<(usize, u32)>,
    /// Post order: slots not finished (with everything below them).
    unfinished: usize,
    /// Post order: the directory, to visit again once `unfinished` is 0.
    dir: Option<Arc<OpenDir>>,
    /// Post order: the output of that visit, once made.
    post: Option<Output>,
}

impl Node {
    fn new(key: Arc<[u32]>, work: Vec<SortedTask>, dir: Option<Arc<OpenDir>>) -> Node {
        let n = work.len();
        Node {
            key,
            generation: 0,
            slots: (0..n).map(|_| Slot::default()).collect(),
            pending: (0..n as u32).zip(work).collect(),
            parent: None,
            unfinished: n,
            dir,
            post: None,
        }
    }
}

/// The walk's tree of nodes in walk order, its pending work and where the
/// ordered output has got to.
struct OrderTree {
    /// The tree, by index; freed nodes are None and reused.
    nodes: Vec<Option<Node>>,
    free: Vec<usize>,
    generations: u64,
    /// Nodes with pending work, by (depth, index): shallowest first.
    pending: BTreeSet<(usize, usize)>,
    /// The write cursor: in each node entered (innermost last), the next
    /// slot to write. Empty once everything was written.
    cursor: Vec<(usize, u32)>,
    /// Cost of finished slots whose output is not written yet.
    held: usize,
    /// Items taken and not finished.
    running: usize,
    /// A thread is writing (one at a time, so writes stay in order).
    writing: bool,
    /// Threads waiting on the condition variable.
    waiting: usize,
    quit: bool,
}

struct Shared {
    state: Mutex<OrderTree>,
    wake: Condvar,
    /// Threads started (more join when the walk grows).
    threads: AtomicUsize,
    limit: usize,
    post_order: bool,
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

impl OrderTree {
    fn add_node(&mut self, mut node: Node) -> usize {
        self.generations += 1;
        node.generation = self.generations;
        let depth = node.key.len();
        let has_work = !node.pending.is_empty();
        let id = match self.free.pop() {
            Some(id) => {
                self.nodes[id] = Some(node);
                id
            }
            None => {
                self.nodes.push(Some(node));
                self.nodes.len() - 1
            }
        };
        if has_work {
            self.pending.insert((depth, id));
        }
        id
    }

    fn node(&mut self, id: usize) -> &mut Node {
        self.nodes[id].as_mut().expect("a live node")
    }

    /// Post order: marks a slot of `id` finished; whether the directory is
    /// now due for its second visit.
    fn finish_slot(&mut self, id: usize) -> bool {
        let node = self.node(id);
        node.unfinished -= 1;
        node.unfinished == 0 && node.parent.is_some()
    }

    /// Moves the cursor over finished slots, collecting the output to write
    /// (the cost of empty output is released at once) and freeing the nodes
    /// it leaves.
    fn take_ready(&mut self, into: &mut Vec<Output>, post_order: bool) {
        while let Some(&(id, at)) = self.cursor.last() {
            let node = self.node(id);
            let out = if let Some(slot) = node.slots.get_mut(at as usize) {
                if !slot.done {
                    return;
                }
                let out = std::mem::take(&mut slot.out);
                let child = slot.child;
                self.cursor.last_mut().expect("a cursor").1 += 1;
                if let Some((child, _)) = child {
                    self.cursor.push((child, 0));
                }
                out
            } else {
                let post = if post_order && node.parent.is_some() {
                    match node.post.take() {
                        Some(out) => Some(out),
                        None => return,
                    }
                } else {
                    None
                };
                self.cursor.pop();
                self.nodes[id] = None;
                self.free.push(id);
                match post {
                    Some(out) => out,
                    None => continue,
                }
            };
            if out.ends.is_empty() {
                self.held -= out.cost();
            } else {
                into.push(out);
            }
        }
    }

    /// Takes the next pending item of node `id`.
    fn take(&mut self, id: usize) -> PlacedTask {
        let node = self.node(id);
        let (slot, work) = node.pending.pop_front().expect("pending work");
        let key = node.key.clone();
        if node.pending.is_empty() {
            self.pending.remove(&(key.len(), id));
        }
        PlacedTask { key, node: id, slot, work }
    }

    /// Whether node `id` is still the one of that generation.
    fn is_live(&self, (id, generation): (usize, u64)) -> bool {
        self.nodes[id].as_ref().is_some_and(|n| n.generation == generation)
    }

    /// The deepest node still in the tree on the path to position `key`.
    fn deepest_on(&self, key: &[u32]) -> Option<usize> {
        let mut id = 0;
        let mut node = self.nodes[id].as_ref()?;
        for &k in key {
            match node.slots.get(k as usize).and_then(|s| s.child) {
                Some(child) if self.is_live(child) => {
                    id = child.0;
                    node = self.nodes[id].as_ref().expect("a live node");
                }
                _ => break,
            }
        }
        Some(id)
    }

    /// Depth first in a worker's own region: the next item of the nearest
    /// node with pending work on the path up from `at` (the node it worked
    /// in last); else the next item of the shallowest node with pending
    /// work.
    fn claim_near(&mut self, at: Option<&Place>) -> Option<PlacedTask> {
        // The node itself, or (once written and freed) its deepest
        // ancestor left; ancestors outlive their descendants.
        let mut up = at.and_then(|p| {
            if self.is_live(p.node) {
                Some(p.node.0)
            } else {
                self.deepest_on(&p.key)
            }
        });
        while let Some(id) = up {
            let node = self.node(id);
            if !node.pending.is_empty() {
                return Some(self.take(id));
            }
            up = node.parent.map(|(parent, _)| parent);
        }
        let &(_, id) = self.pending.first()?;
        Some(self.take(id))
    }

    /// The earliest pending item in walk order.
    fn claim_earliest(&mut self) -> Option<PlacedTask> {
        let first = |id: usize| {
            let n = self.nodes[id].as_ref().expect("a live node");
            (&n.key[..], n.pending.front().expect("pending work").0)
        };
        let id = self.pending.iter().map(|&(_, id)| id).min_by(|&a, &b| {
            let ((ka, sa), (kb, sb)) = (first(a), first(b));
            cmp_positions(ka, sa, kb, sb)
        })?;
        Some(self.take(id))
    }

    /// The item under the write cursor, if it is pending.
    fn claim_at_cursor(&mut self) -> Option<PlacedTask> {
        let &(id, slot) = self.cursor.last()?;
        let node = self.nodes[id].as_ref()?;
        (node.pending.front()?.0 == slot).then(|| self.take(id))
    }

    /// Puts an item's result in its slot and adds the node of a directory
    /// it read. Returns that node, and the directory whose post-order visit
    /// is now due, if any.
    fn finish_item(
        &mut self,
        (node, slot): (usize, u32),
        done: Done,
        post_order: bool,
    ) -> (Option<(usize, u64)>, Option<usize>) {
        let mut due = None;
        self.running -= 1;
        self.held += done.out.cost();
        let child = done.read.map(|mut child| {
            child.parent = Some((node, slot));
            let post_due = post_order && child.unfinished == 0;
            let id = self.add_node(child);
            if post_due {
                due = Some(id);
            }
            (id, self.generations)
        });
        let s = &mut self.node(node).slots[slot as usize];
        s.done = true;
        s.out = done.out;
        s.child = child;
        if post_order && child.is_none() && self.finish_slot(node) {
            due = Some(node);
        }
        (child, due)
    }
}

/// What processing an item produced.
struct Done {
    out: Output,
    /// A directory that was read: its node (not in the tree yet).
    read: Option<Node>,
    state: WalkState,
}

pub(crate) fn walk<V, F>(
    config: &WalkBuilder,
    threads: usize,
    growth: Option<(usize, &AtomicBool)>,
    make_visitor: &F,
) -> Vec<V>
where
    V: Visitor,
    F: Fn(usize) -> V + Sync,
{
    let roots = config.roots.len();
    let mut state = OrderTree {
        nodes: Vec::new(),
        free: Vec::new(),
        generations: 0,
        pending: BTreeSet::new(),
        cursor: vec![(0, 0)],
        held: 0,
        running: 0,
        writing: false,
        waiting: 0,
        quit: false,
    };
    let top =
        state.add_node(Node::new(Arc::from([]), (0..roots).map(SortedTask::Root).collect(), None));
    debug_assert_eq!(top, 0);
    let shared = Shared {
        state: Mutex::new(state),
        wake: Condvar::new(),
        threads: AtomicUsize::new(0),
        limit: config.reorder_buffer,
        post_order: config.post_order,
    };
    let shared = &shared;
    crate::run_threads(threads, growth, |i| {
        move || {
            shared.threads.fetch_add(1, AtomicOrdering::Relaxed);
            let mut v = make_visitor(i);
            let reader = DirReader::new(config);
            Worker { config, shared, reader, children: Vec::new(), at: None }.run(&mut v);
            v
        }
    })
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
        let mut st = shared.lock();
        loop {
            let item;
            (st, item) = self.claim(st);
            let Some(PlacedTask { key, node, slot, work }) = item else { return };
            let generation = st.node(node).generation;
            self.at = Some(Place { node: (node, generation), key: key.clone() });
            drop(st);
            let done = self.process(&key, slot, work, v);
            let quit = done.state == WalkState::Quit;
            st = shared.lock();
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
            SortedTask::Root(i) => {
                let (state, task) = self.reader.visit_root(&self.config.roots[i], v);
                done.out.take_from(v);
                done.state = state;
                task
            }
            SortedTask::Dir(parent, child) => {
                let (state, task) = self.reader.visit_child(&parent, &child, v);
                done.out.take_from(v);
                done.state = state;
                task
            }
            SortedTask::Files(parent, files) => {
                for child in &files {
                    let (state, _) = self.reader.visit_child(&parent, child, v);
                    done.out.take_from(v);
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
        done
    }

    /// Opens and reads the directory at `key`: its entries sorted, grouped
    /// into items of a new node.
    fn read_dir<V: Visitor>(&mut self, task: DirTask, key: Arc<[u32]>, v: &mut V, done: &mut Done) {
        let dir = match self.reader.open_dir(task, v) {
            Ok(dir) => Arc::new(dir),
            Err(task) => {
                done.state = self.reader.post_visit_task(&task, v);
                done.out.take_from(v);
                return;
            }
        };
        let mut children = std::mem::take(&mut self.children);
        if self.reader.read_children(&dir, v, &mut children) == WalkState::Quit {
            done.state = WalkState::Quit;
            return;
        }
        children.sort_unstable_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
        let mut work = Vec::new();
        let threads = self.shared.threads.load(AtomicOrdering::Relaxed).max(1);
        let mut rest = children.drain(..).peekable();
        while let Some(child) = rest.next() {
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
        drop(rest);
        self.children = children;
        let post = self.shared.post_order.then(|| dir.clone());
        done.read = Some(Node::new(key, work, post));
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
                self.shared.wake_waiters(&st);
                return Ok(st);
            }
            st.writing = true;
            drop(st);
            let mut entries = Vec::new();
            for out in &ready {
                out.entries(&mut entries);
            }
            let state = v.write_output(&entries);
            drop(entries);
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
