//! Running a configured walk: on the calling thread when it is one entry,
//! else on the walk's threads, in directory order (parallel.rs) or in
//! sorted order (ordered.rs), with more threads once reads wait on the
//! disk when asked.

use crate::builder::WalkBuilder;
use crate::threads::{Growth, GrowthSignal};
use crate::visitor::Visitor;
use crate::{fds, ordered, parallel};

impl WalkBuilder {
    /// Walks every root, calling a visitor made by `make_visitor(thread index)`
    /// on each thread; returns the visitors when the walk ends.
    pub fn run<V, F>(&self, make_visitor: F) -> Vec<V>
    where
        V: Visitor,
        F: Fn(usize) -> V + Sync,
    {
        if self.is_one_entry() {
            return self.run_one_entry(make_visitor);
        }
        self.walk(self.thread_count(), None, &make_visitor)
    }

    /// Walks a walk known to be one entry ([`WalkBuilder::is_one_entry`],
    /// asked by the caller) on the calling thread.
    pub fn run_one_entry<V, F>(&self, make_visitor: F) -> Vec<V>
    where
        V: Visitor,
        F: Fn(usize) -> V + Sync,
    {
        self.walk(1, None, &make_visitor)
    }

    fn walk<V, F>(&self, threads: usize, growth: Growth<'_>, make_visitor: &F) -> Vec<V>
    where
        V: Visitor,
        F: Fn(usize) -> V + Sync,
    {
        if self.sorted {
            ordered::walk(self, threads, growth, make_visitor)
        } else {
            parallel::walk(self, threads, growth, make_visitor)
        }
    }

    /// Like [`WalkBuilder::run`], but up to `max_threads` threads work once
    /// `blocked` is set (by visitors that see reads wait on the disk): a
    /// cold cache gets more requests in flight, a warm run stays at one
    /// thread per CPU. (A caller that would rather run a one-entry walk on
    /// its own thread asks [`WalkBuilder::is_one_entry`] first.)
    pub fn run_growing<V, F>(
        &self,
        max_threads: usize,
        blocked: &GrowthSignal,
        make_visitor: F,
    ) -> Vec<V>
    where
        V: Visitor,
        F: Fn(usize) -> V + Sync,
    {
        let max_threads = max_threads.min(fds::threads_within_limit(self.visit_descriptors));
        self.walk(self.thread_count(), Some((max_threads, blocked)), &make_visitor)
    }
}
