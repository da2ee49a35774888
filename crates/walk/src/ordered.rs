//! The sorted walk: depth first, each directory's entries in name-byte order,
//! visited in parallel and written in that order.
//!
//! The walk keeps a tree shaped like the part of the file tree it has read:
//! one node per directory read, holding one slot per work item in walk order
//! (a directory, or a batch of consecutive non-directories); the top node
//! holds the roots. An item's position is the list of slot indices that
//! lead to it, so comparing positions compares walk order.
//!
//! - Workers take the earliest pending item (a heap keyed by position): the
//!   items in flight stay next to each other in walk order, and on one thread
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
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::parallel::FILE_BATCH;
use crate::{Child, DirReader, DirTask, OpenDir, Visitor, WalkBuilder, WalkState};

/// The most files one item visits. A run of files in a directory is split
/// into about one item per thread, of at least [`FILE_BATCH`] files: items
/// are larger than the unsorted walk's batches because each costs a turn on
/// the shared lock, and threads in one directory slow each other down
/// (Linux tree, 2 threads: 16 files per item 321 ms, 64 310 ms, 256 304 ms).
const MAX_FILE_BATCH: usize = 256;

/// Counted against the limit for each finished, unwritten slot, so that a
/// long stretch of finished slots without output is bounded too.
const SLOT_COST: usize = std::mem::size_of::<Slot>();

/// What a work item does.
enum Work {
    /// Visit root number N, and read it if it is a directory.
    Root(usize),
    /// Visit a directory found in a read directory, and read it (boxed:
    /// items move around the heap).
    Dir(Arc<OpenDir>, Box<Child>),
    /// Visit consecutive non-directories of a read directory.
    Files(Arc<OpenDir>, Vec<Child>),
}

/// A work item and its place in the walk.
struct Item {
    /// The position of the node holding its slot.
    key: Arc<[u32]>,
    node: usize,
    slot: u32,
    work: Work,
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

impl PartialEq for Item {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Item {}

impl PartialOrd for Item {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Item {
    /// Reversed: the heap's greatest item is the earliest in walk order (a
    /// directory's position is a prefix of its entries', so it comes first).
    fn cmp(&self, other: &Self) -> Ordering {
        cmp_positions(&other.key, other.slot, &self.key, self.slot)
    }
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

    /// Hands each entry's output to `v`; stops at Quit.
    fn write<V: Visitor>(&self, v: &mut V) -> WalkState {
        let mut start = 0;
        for &end in &self.ends {
            if v.write_output(&self.bytes[start..end]) == WalkState::Quit {
                return WalkState::Quit;
            }
            start = end;
        }
        WalkState::Continue
    }
}

#[derive(Default)]
struct Slot {
    done: bool,
    out: Output,
    /// For a directory that was read: the node of its entries.
    child: Option<usize>,
}

/// A directory that was read (or the top, holding the roots).
struct Node {
    slots: Vec<Slot>,
    /// The slot this directory fills in its parent (None for the top).
    parent: Option<(usize, u32)>,
    /// Post order: slots not finished (with everything below them).
    unfinished: usize,
    /// Post order: the directory, to visit again once `unfinished` is 0.
    dir: Option<Arc<OpenDir>>,
    /// Post order: the output of that visit, once made.
    post: Option<Output>,
    /// Threads visiting a batch of this directory's files.
    busy: u32,
}

struct State {
    queue: BinaryHeap<Item>,
    /// The tree, by index; freed nodes are None and reused.
    nodes: Vec<Option<Node>>,
    free: Vec<usize>,
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
    state: Mutex<State>,
    wake: Condvar,
    /// Threads started (more join when the walk grows).
    threads: AtomicUsize,
    limit: usize,
    post_order: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn wake_waiters(&self, st: &State) {
        if st.waiting > 0 {
            self.wake.notify_all();
        }
    }
}

impl State {
    fn add_node(&mut self, node: Node) -> usize {
        match self.free.pop() {
            Some(id) => {
                self.nodes[id] = Some(node);
                id
            }
            None => {
                self.nodes.push(Some(node));
                self.nodes.len() - 1
            }
        }
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
                if let Some(child) = child {
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

    /// Pops the earliest item that is not a batch of files in a directory
    /// where another thread visits files, among the next few; else the
    /// earliest.
    fn take_apart(&mut self) -> Option<Item> {
        const LOOK_AHEAD: usize = 4;
        let mut passed = Vec::new();
        let mut found = None;
        while let Some(item) = self.queue.pop() {
            let shared_dir = matches!(item.work, Work::Files(..)) && self.node(item.node).busy > 0;
            if !shared_dir {
                found = Some(item);
                break;
            }
            passed.push(item);
            if passed.len() == LOOK_AHEAD {
                break;
            }
        }
        let mut passed = passed.into_iter();
        let found = found.or_else(|| passed.next());
        self.queue.extend(passed);
        found
    }

    /// Puts an item's result in its slot and queues the work of a
    /// directory it read. Returns the directory whose post-order visit is
    /// now due, if any.
    fn finish_item(
        &mut self,
        (node, slot): (usize, u32),
        done: Done,
        post_order: bool,
    ) -> Option<usize> {
        let mut due = None;
        self.running -= 1;
        self.held += done.out.cost();
        if done.files {
            self.node(node).busy -= 1;
        }
        let child = done.read.map(|(mut child, items)| {
            child.parent = Some((node, slot));
            let post_due = post_order && child.unfinished == 0;
            let id = self.add_node(child);
            self.queue.extend(items.into_iter().map(|item| Item { node: id, ..item }));
            if post_due {
                due = Some(id);
            }
            id
        });
        let s = &mut self.node(node).slots[slot as usize];
        s.done = true;
        s.out = done.out;
        s.child = child;
        if post_order && child.is_none() && self.finish_slot(node) {
            due = Some(node);
        }
        due
    }
}

/// What processing an item produced.
struct Done {
    out: Output,
    /// The item was a batch of files.
    files: bool,
    /// A directory that was read: its node (without its place in the
    /// tree) and the items of its entries (without their node).
    read: Option<(Node, Vec<Item>)>,
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
    let top = Node {
        slots: (0..roots).map(|_| Slot::default()).collect(),
        parent: None,
        unfinished: roots,
        dir: None,
        post: None,
        busy: 0,
    };
    let key: Arc<[u32]> = Arc::from([]);
    let queue = (0..roots)
        .map(|i| Item { key: key.clone(), node: 0, slot: i as u32, work: Work::Root(i) })
        .collect();
    let shared = Shared {
        state: Mutex::new(State {
            queue,
            nodes: vec![Some(top)],
            free: Vec::new(),
            cursor: vec![(0, 0)],
            held: 0,
            running: 0,
            writing: false,
            waiting: 0,
            quit: false,
        }),
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
            Worker { config, shared, reader: DirReader::new(config), children: Vec::new() }
                .run(&mut v);
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
            let Some(Item { key, node, slot, work }) = item else { return };
            drop(st);
            let done = self.process(&key, slot, work, v);
            let quit = done.state == WalkState::Quit;
            st = shared.lock();
            let due =
                if quit { None } else { st.finish_item((node, slot), done, shared.post_order) };
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

    fn quit(&self, mut st: MutexGuard<'w, State>) {
        st.quit = true;
        self.shared.wake.notify_all();
    }

    /// Takes the earliest pending item, waiting while output is over the
    /// limit (unless the item is under the write cursor) or while items in
    /// flight may still add work. None when the walk is over.
    ///
    /// A batch of files in a directory where another thread visits files is
    /// passed over for one of the next few items, if there is one: opening
    /// files in one directory from two threads makes them share the kernel's
    /// reference counts on it (the parent dentry, the directory's open file),
    /// which costs more than the lock does.
    fn claim(&self, mut st: MutexGuard<'w, State>) -> (MutexGuard<'w, State>, Option<Item>) {
        loop {
            if st.quit {
                return (st, None);
            }
            match st.queue.peek() {
                Some(top) => {
                    let at_cursor = st.cursor.last() == Some(&(top.node, top.slot));
                    if st.held <= self.shared.limit || at_cursor {
                        st.running += 1;
                        let item = if at_cursor { st.queue.pop() } else { st.take_apart() };
                        if let Some(Item { node, work: Work::Files(..), .. }) = &item {
                            st.node(*node).busy += 1;
                        }
                        return (st, item);
                    }
                }
                None if st.running == 0 => {
                    self.shared.wake_waiters(&st);
                    return (st, None);
                }
                None => {}
            }
            st.waiting += 1;
            st = self.shared.wake.wait(st).unwrap_or_else(|p| p.into_inner());
            st.waiting -= 1;
        }
    }

    /// Visits the entries of an item (at `key ++ [slot]`) and reads the
    /// directory it may be.
    fn process<V: Visitor>(&mut self, key: &[u32], slot: u32, work: Work, v: &mut V) -> Done {
        let files = matches!(work, Work::Files(..));
        let mut done =
            Done { out: Output::default(), files, read: None, state: WalkState::Continue };
        let task = match work {
            Work::Root(i) => {
                let (state, task) = self.reader.visit_root(&self.config.roots[i], v);
                done.out.take_from(v);
                done.state = state;
                task
            }
            Work::Dir(parent, child) => {
                let (state, task) = self.reader.visit_child(&parent, &child, v);
                done.out.take_from(v);
                done.state = state;
                task
            }
            Work::Files(parent, files) => {
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
        let mut items = Vec::new();
        let mut push = |work| {
            let slot = items.len() as u32;
            items.push(Item { key: key.clone(), node: usize::MAX, slot, work });
        };
        let threads = self.shared.threads.load(AtomicOrdering::Relaxed).max(1);
        let mut rest = children.drain(..).peekable();
        while let Some(child) = rest.next() {
            if child.file_type.is_dir() {
                push(Work::Dir(dir.clone(), Box::new(child)));
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
                push(Work::Files(dir.clone(), run.by_ref().take(size).collect()));
            }
        }
        drop(rest);
        self.children = children;
        let n = items.len();
        let node = Node {
            slots: (0..n).map(|_| Slot::default()).collect(),
            parent: None,
            unfinished: n,
            dir: self.shared.post_order.then_some(dir),
            post: None,
            busy: 0,
        };
        done.read = Some((node, items));
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
        mut st: MutexGuard<'w, State>,
        v: &mut V,
    ) -> Result<MutexGuard<'w, State>, MutexGuard<'w, State>> {
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
            let mut state = WalkState::Continue;
            let mut cost = 0;
            for out in ready.drain(..) {
                cost += out.cost();
                if state == WalkState::Continue {
                    state = out.write(v);
                }
            }
            st = self.shared.lock();
            st.held -= cost;
            if state == WalkState::Quit {
                st.writing = false;
                return Err(st);
            }
        }
    }
}
