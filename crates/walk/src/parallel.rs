//! The parallel walk: one deque per thread, work stealing, no producer thread.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crossbeam_deque::{Injector, Steal, Stealer, Worker};

use crate::builder::WalkBuilder;
use crate::dir::DirReader;
use crate::open_dir::{Child, DirTask, OpenDir};
use crate::roots::Root;
use crate::threads::{run_threads, Growth};
use crate::visitor::{Visitor, WalkState};

/// Files of one directory handed out together: small enough to balance a
/// huge directory across threads, large enough to keep the deques cheap.
pub(crate) const FILE_BATCH: usize = 16;

/// A unit of work on a thread's deque.
enum Task {
    Root(usize),
    Dir(DirTask),
    Files(Arc<OpenDir>, Vec<Child>),
    /// A subdirectory to visit and then read (a walk in directory order).
    Subdir(Arc<OpenDir>, Child),
}

struct Shared {
    injector: Injector<Task>,
    stealers: Vec<Stealer<Task>>,
    /// Work items pushed and not yet finished; the walk ends at zero.
    pending: AtomicUsize,
    quit: AtomicBool,
    /// Starting points in order ([`WalkBuilder::operands_in_order`]).
    order: Option<Order>,
}

/// The walk of starting points one after another: the roots of the next
/// one are handed out once every work item of the current one is done and
/// every thread that took part in it was told ([`Visitor::operand_finished`]).
struct Order {
    /// The first root not handed out yet.
    next_root: std::sync::Mutex<usize>,
    /// Per thread: it did work of the current starting point.
    took_part: Vec<AtomicBool>,
    /// How many threads did.
    taking_part: AtomicUsize,
}

impl Order {
    /// Hands out the roots of the next starting point; false when there
    /// is none.
    fn next_operand(
        &self,
        roots: &[Root],
        shared_pending: &AtomicUsize,
        injector: &Injector<Task>,
    ) -> bool {
        let mut next = self.next_root.lock().unwrap_or_else(|p| p.into_inner());
        let start = *next;
        let Some(first) = roots.get(start) else { return false };
        let end = roots[start..]
            .iter()
            .position(|r| r.operand != first.operand)
            .map_or(roots.len(), |n| start + n);
        shared_pending.fetch_add(end - start, Ordering::AcqRel);
        for i in start..end {
            injector.push(Task::Root(i));
        }
        *next = end;
        true
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
    // With growth, deques exist for every thread that may join; the ones not
    // started stay empty, so stealing from them finds nothing.
    let max = growth.map_or(threads, |(max, _)| max.max(threads)).max(1);
    let workers: Vec<Worker<Task>> = (0..max).map(|_| Worker::new_lifo()).collect();
    let in_order = config.in_order && !config.roots.is_empty();
    let shared = Shared {
        injector: Injector::new(),
        stealers: workers.iter().map(Worker::stealer).collect(),
        pending: AtomicUsize::new(if in_order { 0 } else { config.roots.len() }),
        quit: AtomicBool::new(false),
        order: in_order.then(|| Order {
            next_root: std::sync::Mutex::new(0),
            took_part: (0..max).map(|_| AtomicBool::new(false)).collect(),
            taking_part: AtomicUsize::new(0),
        }),
    };
    match &shared.order {
        Some(order) => {
            order.next_operand(&config.roots, &shared.pending, &shared.injector);
        }
        None => {
            for i in 0..config.roots.len() {
                shared.injector.push(Task::Root(i));
            }
        }
    }
    let shared = &shared;
    let mut workers = workers.into_iter();
    run_threads(threads, growth, |i| {
        let local = workers.next().expect("a deque per thread");
        move || {
            let mut v = make_visitor(i);
            // On one thread, entries come in directory order, each
            // subdirectory walked where it is met (as GNU find's fts).
            let in_dir_order = threads == 1 && growth.is_none();
            let reader = DirReader::new(config);
            Thread { config, shared, local, reader, index: i, in_dir_order }.run(&mut v);
            v
        }
    })
}

struct Thread<'w> {
    config: &'w WalkBuilder,
    shared: &'w Shared,
    local: Worker<Task>,
    reader: DirReader<'w>,
    /// Which thread this is.
    index: usize,
    /// Visit in directory order (see [`Thread::schedule_in_order`]).
    in_dir_order: bool,
}

impl Thread<'_> {
    fn run<V: Visitor>(&mut self, v: &mut V) {
        let mut idle = 0u32;
        let mut children = Vec::new();
        loop {
            if self.shared.quit.load(Ordering::Relaxed) {
                return;
            }
            match self.find_work() {
                Some(work) => {
                    idle = 0;
                    if let Some(order) = &self.shared.order {
                        if !order.took_part[self.index].swap(true, Ordering::AcqRel) {
                            order.taking_part.fetch_add(1, Ordering::AcqRel);
                        }
                    }
                    if self.process(work, v, &mut children) == WalkState::Quit {
                        self.shared.quit.store(true, Ordering::Relaxed);
                        return;
                    }
                    self.shared.pending.fetch_sub(1, Ordering::AcqRel);
                }
                None => {
                    if self.shared.pending.load(Ordering::Acquire) == 0 {
                        let Some(order) = &self.shared.order else { return };
                        // A starting point is done: this thread lets go of
                        // what it holds of it; the last one to do so hands
                        // out the next starting point.
                        if order.took_part[self.index].swap(false, Ordering::AcqRel) {
                            v.operand_finished();
                            if order.taking_part.fetch_sub(1, Ordering::AcqRel) == 1
                                && !order.next_operand(
                                    &self.config.roots,
                                    &self.shared.pending,
                                    &self.shared.injector,
                                )
                            {
                                return;
                            }
                            continue;
                        }
                        if order.taking_part.load(Ordering::Acquire) == 0
                            && *order.next_root.lock().unwrap_or_else(|p| p.into_inner())
                                == self.config.roots.len()
                        {
                            return;
                        }
                    }
                    idle += 1;
                    if idle < 16 {
                        std::hint::spin_loop();
                    } else if idle < 64 {
                        std::thread::yield_now();
                    } else {
                        std::thread::sleep(Duration::from_micros(200));
                    }
                }
            }
        }
    }

    fn find_work(&self) -> Option<Task> {
        if let Some(w) = self.local.pop() {
            return Some(w);
        }
        loop {
            let mut retry = false;
            match self.shared.injector.steal_batch_and_pop(&self.local) {
                Steal::Success(w) => return Some(w),
                Steal::Retry => retry = true,
                Steal::Empty => {}
            }
            for s in &self.shared.stealers {
                match s.steal() {
                    Steal::Success(w) => return Some(w),
                    Steal::Retry => retry = true,
                    Steal::Empty => {}
                }
            }
            if !retry {
                return None;
            }
        }
    }

    fn push(&self, work: Task) {
        self.shared.pending.fetch_add(1, Ordering::AcqRel);
        self.local.push(work);
    }

    fn process<V: Visitor>(
        &mut self,
        work: Task,
        v: &mut V,
        children: &mut Vec<Child>,
    ) -> WalkState {
        match work {
            Task::Root(i) if self.config.roots[i].listed.is_some() => {
                let root = &self.config.roots[i];
                let dir = match self.reader.listed_root(root, v) {
                    (WalkState::Continue, Some(dir)) => Arc::new(dir),
                    (state, _) => return state,
                };
                let _pin = dir.fd.pin();
                if self.reader.known_children(&dir, root, v, children) == WalkState::Quit {
                    return WalkState::Quit;
                }
                self.schedule(dir, v, children)
            }
            Task::Root(i) => {
                let (state, task) = self.reader.visit_root(&self.config.roots[i], v);
                match task {
                    Some(task) if state != WalkState::Quit => self.read_dir(task, v, children),
                    _ => state,
                }
            }
            Task::Dir(task) => self.read_dir(task, v, children),
            Task::Files(dir, files) => {
                let _pin = dir.fd.pin();
                for child in &files {
                    if self.reader.visit_child(&dir, child, v).0 == WalkState::Quit {
                        return WalkState::Quit;
                    }
                }
                self.reader.finish_item(&dir, v)
            }
            Task::Subdir(dir, child) => {
                let pin = dir.fd.pin();
                let (state, task) = self.reader.visit_child(&dir, &child, v);
                drop(pin);
                match task {
                    _ if state == WalkState::Quit => WalkState::Quit,
                    Some(task) => self.read_dir(task, v, children),
                    None => self.reader.finish_item(&dir, v),
                }
            }
        }
    }

    fn read_dir<V: Visitor>(
        &mut self,
        task: DirTask,
        v: &mut V,
        children: &mut Vec<Child>,
    ) -> WalkState {
        let dir = match self.reader.open_dir(task, v) {
            Ok(dir) => Arc::new(dir),
            Err(task) => {
                // Unreadable: it is done, and so is its parent's item for it.
                if self.reader.post_visit_task(&task, v) == WalkState::Quit {
                    return WalkState::Quit;
                }
                return match &task.parent {
                    Some(parent) => self.reader.finish_item(parent, v),
                    None => WalkState::Continue,
                };
            }
        };
        let _pin = dir.fd.pin();
        if self.reader.read_children(&dir, v, children) == WalkState::Quit {
            return WalkState::Quit;
        }
        self.schedule(dir, v, children)
    }

    /// Visits the subdirectories among `children` (pushing the walks of
    /// those to descend into) and pushes the rest in batches.
    fn schedule<V: Visitor>(
        &mut self,
        dir: Arc<OpenDir>,
        v: &mut V,
        children: &mut Vec<Child>,
    ) -> WalkState {
        if self.in_dir_order {
            return self.schedule_in_order(dir, v, children);
        }
        let post_order = self.config.post_order;
        let mut batch = Vec::new();
        for child in children.drain(..) {
            if child.file_type.is_dir() {
                let (state, task) = self.reader.visit_child(&dir, &child, v);
                if state == WalkState::Quit {
                    return state;
                }
                if let Some(task) = task {
                    if post_order {
                        dir.outstanding.fetch_add(1, Ordering::AcqRel);
                    }
                    self.push(Task::Dir(task));
                }
            } else {
                batch.push(child);
                if batch.len() == FILE_BATCH {
                    if post_order {
                        dir.outstanding.fetch_add(1, Ordering::AcqRel);
                    }
                    self.push(Task::Files(dir.clone(), std::mem::take(&mut batch)));
                }
            }
        }
        if !batch.is_empty() {
            if post_order {
                dir.outstanding.fetch_add(1, Ordering::AcqRel);
            }
            self.push(Task::Files(dir.clone(), batch));
        }
        // The reading itself is done.
        self.reader.finish_item(&dir, v)
    }
}

impl Thread<'_> {
    /// On one thread: pushes the children of `dir` so that they are popped
    /// in directory order, runs of files in batches and each subdirectory
    /// visited, then read, before the entries after it.
    fn schedule_in_order<V: Visitor>(
        &mut self,
        dir: Arc<OpenDir>,
        v: &mut V,
        children: &mut Vec<Child>,
    ) -> WalkState {
        let mut items = Vec::new();
        let mut batch = Vec::new();
        for child in children.drain(..) {
            if child.file_type.is_dir() {
                if !batch.is_empty() {
                    items.push(Task::Files(dir.clone(), std::mem::take(&mut batch)));
                }
                items.push(Task::Subdir(dir.clone(), child));
            } else {
                batch.push(child);
                if batch.len() == FILE_BATCH {
                    items.push(Task::Files(dir.clone(), std::mem::take(&mut batch)));
                }
            }
        }
        if !batch.is_empty() {
            items.push(Task::Files(dir.clone(), batch));
        }
        if self.config.post_order {
            dir.outstanding.fetch_add(items.len(), Ordering::AcqRel);
        }
        for item in items.into_iter().rev() {
            self.push(item);
        }
        self.reader.finish_item(&dir, v)
    }
}
