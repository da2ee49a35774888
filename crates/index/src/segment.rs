//! The index file: one immutable segment, written whole and then renamed
//! into place (see [`crate::store`]), read through a memory map. What it
//! holds ([`model`]), how its bytes are laid out ([`layout`]), its writer
//! ([`writer`]: a build's or an update's [`NewSegment`]) and its reader
//! ([`reader`]: the checked [`Segment`]).

mod layout;
pub(crate) mod model;
pub(crate) mod reader;
pub(crate) mod writer;

pub(crate) use model::*;
pub(crate) use reader::{Refused, Segment};
pub(crate) use writer::{write, NewSegment, Postings};
