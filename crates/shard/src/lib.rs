//! trawl's shard protocol (docs/DISTRIBUTED.md): a tree spread over many
//! hosts is searched as one by running trawl next to each part of it (a
//! shard) and merging what the shards print, in the order one trawl would
//! print it.
//!
//! - request.rs: the [`Request`] a shard runs (its command, arguments,
//!   roots and displays, the version and extractors expected), and
//!   whether to refuse it.
//! - record.rs: the records of a shard's stream, JSON Lines; bytes.rs:
//!   byte strings in them (text, or base64 when not UTF-8).
//! - writer.rs: [`ShardWriter`], a shard's stream, an [`Output`] of the
//!   printer: each piece a printer hands over becomes a `chunk` record of
//!   its [`Chunk`] kind (a large one, records of at most [`RECORD_BYTES`]).
//! - merge.rs: [`merge`], many streams into one output through the
//!   printer's own separators; stream.rs: each stream read on its own
//!   thread, chunks queued (spilled to a temporary file past a memory
//!   budget); key.rs: the order roots are written in.
//!
//! The binary holds the command lines (`trawl shard`, `trawl merge`) and
//! runs the searches; this crate knows the protocol and the printer, not
//! how to search.
//!
//! [`Output`]: trawl_printer::Output
//! [`Chunk`]: trawl_printer::Chunk
#![deny(missing_docs)]

mod bytes;
mod key;
mod merge;
mod record;
mod request;
mod stream;
mod writer;

pub use crate::bytes::{Bytes, BytesRef};
pub use crate::key::RootKey;
pub use crate::merge::{merge, Merged, Say};
pub use crate::record::{Ending, Extraction, Format, Indexed, Kind, Totals};
pub use crate::request::{identity_of, Command, Request, Root};
pub use crate::writer::{ShardWriter, RECORD_BYTES};

/// The protocol's version, in requests and in each stream's first record.
pub const PROTOCOL: u32 = 1;
