//! trawl's index of a tree: what a search can reuse from the searches
//! before it (the walk's directory list, each file's kind, the trigrams of
//! its text), so that a repeated search reads only the files that can
//! match, and never answers from stale data.
//!
//! The front door, all a caller sees:
//! - [`Indexes`]: where indexes live (under trawl's cache directory);
//!   [`Index`]: one root's, to [`Index::refresh`] (update or build, write,
//!   publish), [`Index::check`], [`Index::watch`] or [`Index::remove`];
//! - serving a search from an index: [`ContentSearch`] for grep (the files
//!   that may match, what changed, the members of big archives to read)
//!   and [`Indexes::serve_names`] for find, both handing the walk its
//!   directories as [`trawl_walk::ListedDir`]s; [`serves`] says whether an
//!   index can serve a search at all; [`question`] makes a search's
//!   [`Query`] from its patterns' syntax trees;
//! - [`Texts`]: how the caller hands a build the text it extracts.
//!
//! Inside (private): the query planner (`plan.rs`: from a pattern's
//! syntax tree to the trigrams a matching line must hold), the trigrams of
//! a text (`grams.rs`), the filter of a text that looks random
//! (`filter.rs`), the index file (`segment/`: its model, layout, writer and
//! reader), where indexes live and how a new one replaces the old
//! (`store.rs`), the parallel build over trawl-walk (`build/`, spilling to
//! `spill.rs`) and the update (`update.rs`), the check that the index is
//! still true (`fresh.rs`), the watcher that can answer it instead
//! (`watch.rs`), the candidates of a query (`query.rs`) and what a search
//! served by the index visits (`visit.rs`); the front door is `indexes.rs`,
//! `refresh.rs`, `serve.rs`, `eligible.rs` and `texts.rs`.
#![deny(missing_docs)]

mod build;
mod eligible;
mod filter;
mod fresh;
mod grams;
mod indexes;
mod plan;
mod query;
mod refresh;
mod segment;
mod serve;
mod spill;
mod store;
mod texts;
mod update;
mod visit;
mod watch;

pub use build::{Progress, Unreadable};
pub use eligible::{serves, Order, Search, SearchKind};
pub use indexes::{Checked, Index, Indexes, Kept, OpenError, WatchError};
pub use plan::{question, Query, Selects};
pub use refresh::{Anew, Done, Estimate, Mode, Note, Refresh, RefreshError};
pub use segment::reader::Refused;
pub use serve::{ContentSearch, Unusable};
pub use texts::{Extraction, StreamKind, TextSink, Texts};
pub use update::Failed;
pub use visit::{BinaryFiles, Counts};
