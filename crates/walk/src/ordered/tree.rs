//! The sorted walk's bookkeeping: a tree of the directories read, in walk
//! order, with each slot's pending work or finished output, the write
//! cursor, and which item a worker takes next.

use std::cmp::Ordering;
use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;

use crate::open_dir::{Child, OpenDir};
use crate::pieces::{Piece, Pieces};
use crate::turn::Turn;
use crate::visitor::{Visitor, WalkState};

/// Counted against the limit for each finished, unwritten slot, so that a
/// long stretch of finished slots without output is bounded too.
pub(super) const SLOT_COST: usize = std::mem::size_of::<Slot>();

/// What a work item does.
pub(super) enum SortedTask {
    /// Visit root number N, and read it if it is a directory.
    Root(usize),
    /// Visit a directory found in a read directory, and read it.
    Dir(Arc<OpenDir>, Box<Child>),
    /// Visit consecutive non-directories of a read directory.
    Files(Arc<OpenDir>, Vec<Child>),
    /// Visit a directory among a listed directory's entries whose own
    /// entries are listed too, then take them from the listed root of that
    /// number (see [`crate::WalkBuilder::add_listed`]), if any.
    Listed(Arc<OpenDir>, Box<Child>, Option<usize>),
}

/// A work item taken from its node, and its place in the walk.
pub(super) struct PlacedTask {
    /// The position of the node holding its slot.
    pub(super) key: Arc<[u32]>,
    pub(super) node: usize,
    pub(super) slot: u32,
    pub(super) work: SortedTask,
}

/// Where a worker works: a node (index and generation) and its position.
pub(super) struct Place {
    pub(super) node: (usize, u64),
    pub(super) key: Arc<[u32]>,
}

/// Compares the walk positions `a ++ [a_slot]` and `b ++ [b_slot]`.
pub(super) fn cmp_positions(a: &[u32], a_slot: u32, b: &[u32], b_slot: u32) -> Ordering {
    let n = a.len().min(b.len());
    a[..n].cmp(&b[..n]).then_with(|| match a.len().cmp(&b.len()) {
        Ordering::Equal => a_slot.cmp(&b_slot),
        // `a ++ [a_slot]` is a prefix of `b`, or differs at b[n].
        Ordering::Less => a_slot.cmp(&b[n]).then(Ordering::Less),
        Ordering::Greater => a[n].cmp(&b_slot).then(Ordering::Greater),
    })
}

/// The output of one item: its entries' pieces, one after the other.
#[derive(Default)]
pub(super) struct Output {
    pub(super) pieces: Pieces,
}

impl Output {
    /// Appends what the visitor produced for the entry it just visited.
    pub(super) fn take_from<V: Visitor>(&mut self, v: &mut V) {
        v.take_output(&mut self.pieces);
    }

    /// What holding this costs against the limit.
    pub(super) fn cost(&self) -> usize {
        self.pieces.len() + SLOT_COST
    }

    /// Adds each piece to `into`.
    pub(super) fn entries<'a>(&'a self, into: &mut Vec<Piece<'a>>) {
        self.pieces.pieces(into);
    }
}

#[derive(Default)]
pub(super) struct Slot {
    pub(super) done: bool,
    pub(super) out: Output,
    /// For a directory that was read: the node of its entries (index and
    /// generation).
    pub(super) child: Option<(usize, u64)>,
    /// While its item runs: the visitor's turn to write, if it takes one.
    pub(super) runner: Option<Turn>,
}

/// A directory that was read (or the top, holding the roots).
pub(super) struct Node {
    /// Its position (the slot indices that lead to it; empty for the top).
    pub(super) key: Arc<[u32]>,
    /// Tells a reused index apart from the node a worker remembers.
    pub(super) generation: u64,
    pub(super) slots: Vec<Slot>,
    /// Work not taken yet, by slot, in walk order.
    pub(super) pending: VecDeque<(u32, SortedTask)>,
    /// The slot this directory fills in its parent (None for the top).
    pub(super) parent: Option<(usize, u32)>,
    /// Post order: slots not finished (with everything below them).
    pub(super) unfinished: usize,
    /// Post order: the directory, to visit again once `unfinished` is 0.
    pub(super) dir: Option<Arc<OpenDir>>,
    /// Post order: the output of that visit, once made.
    pub(super) post: Option<Output>,
}

impl Node {
    pub(super) fn new(key: Arc<[u32]>, work: Vec<SortedTask>, dir: Option<Arc<OpenDir>>) -> Node {
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
pub(super) struct OrderTree {
    /// The tree, by index; freed nodes are None and reused.
    pub(super) nodes: Vec<Option<Node>>,
    pub(super) free: Vec<usize>,
    pub(super) generations: u64,
    /// Nodes with pending work, by (depth, index): shallowest first.
    pub(super) pending: BTreeSet<(usize, usize)>,
    /// The write cursor: in each node entered (innermost last), the next
    /// slot to write. Empty once everything was written.
    pub(super) cursor: Vec<(usize, u32)>,
    /// Cost of finished slots whose output is not written yet.
    pub(super) held: usize,
    /// Items taken and not finished.
    pub(super) running: usize,
    /// A thread is writing (one at a time, so writes stay in order): the
    /// one writing what is ready, or the one whose item has the turn.
    pub(super) writing: bool,
    /// Threads waiting on the condition variable.
    pub(super) waiting: usize,
    pub(super) quit: bool,
}

/// What processing an item produced.
pub(super) struct Done {
    pub(super) out: Output,
    /// A directory that was read: its node (not in the tree yet).
    pub(super) read: Option<Node>,
    pub(super) state: WalkState,
}

impl OrderTree {
    /// A tree without nodes, its cursor before the top node's first slot.
    pub(super) fn new() -> Self {
        OrderTree {
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
        }
    }

    pub(super) fn add_node(&mut self, mut node: Node) -> usize {
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

    pub(super) fn node(&mut self, id: usize) -> &mut Node {
        self.nodes[id].as_mut().expect("a live node")
    }

    /// Post order: marks a slot of `id` finished; whether the directory is
    /// now due for its second visit.
    pub(super) fn finish_slot(&mut self, id: usize) -> bool {
        let node = self.node(id);
        node.unfinished -= 1;
        node.unfinished == 0 && node.parent.is_some()
    }

    /// Moves the cursor over finished slots, collecting the output to write
    /// (the cost of empty output is released at once) and freeing the nodes
    /// it leaves.
    pub(super) fn take_ready(&mut self, into: &mut Vec<Output>, post_order: bool) {
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
            if out.pieces.is_empty() {
                self.held -= out.cost();
            } else {
                into.push(out);
            }
        }
    }

    /// The item at `(node, slot)` runs with the visitor's `turn`: given at
    /// once when it is under the write cursor and no thread writes.
    pub(super) fn runs_with(&mut self, (node, slot): (usize, u32), turn: &Turn) {
        self.node(node).slots[slot as usize].runner = Some(turn.clone());
        self.give_turn();
    }

    /// Gives the turn to write to the item under the write cursor, when it
    /// runs with one and no thread writes; the writing is then its own
    /// until it ends.
    pub(super) fn give_turn(&mut self) {
        if self.writing {
            return;
        }
        let Some(&(id, at)) = self.cursor.last() else { return };
        let Some(slot) = self.node(id).slots.get(at as usize) else { return };
        if let (false, Some(turn)) = (slot.done, &slot.runner) {
            turn.give();
            self.writing = true;
        }
    }

    /// Takes the next pending item of node `id`.
    pub(super) fn take(&mut self, id: usize) -> PlacedTask {
        let node = self.node(id);
        let (slot, work) = node.pending.pop_front().expect("pending work");
        let key = node.key.clone();
        if node.pending.is_empty() {
            self.pending.remove(&(key.len(), id));
        }
        PlacedTask { key, node: id, slot, work }
    }

    /// Whether node `id` is still the one of that generation.
    pub(super) fn is_live(&self, (id, generation): (usize, u64)) -> bool {
        self.nodes[id].as_ref().is_some_and(|n| n.generation == generation)
    }

    /// The deepest node still in the tree on the path to position `key`.
    pub(super) fn deepest_on(&self, key: &[u32]) -> Option<usize> {
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
    pub(super) fn claim_near(&mut self, at: Option<&Place>) -> Option<PlacedTask> {
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
    pub(super) fn claim_earliest(&mut self) -> Option<PlacedTask> {
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
    pub(super) fn claim_at_cursor(&mut self) -> Option<PlacedTask> {
        let &(id, slot) = self.cursor.last()?;
        let node = self.nodes[id].as_ref()?;
        (node.pending.front()?.0 == slot).then(|| self.take(id))
    }

    /// Puts an item's result in its slot and adds the node of a directory
    /// it read. Returns that node, and the directory whose post-order visit
    /// is now due, if any.
    pub(super) fn finish_item(
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
        s.runner = None;
        if post_order && child.is_none() && self.finish_slot(node) {
            due = Some(node);
        }
        (child, due)
    }
}
