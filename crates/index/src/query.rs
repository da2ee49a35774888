//! A planned [`Query`] answered from an index: the files that may match.

use roaring::RoaringBitmap;

use crate::grams::gram_id;
use crate::plan::Query;
use crate::segment::{Refused, Segment, FILTERED, STREAM};

/// The members of an archive indexed member by member
/// ([`crate::segment::Extracted::Streams`]) that a search reads: the others
/// cannot match.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct Members {
    /// How many members with text it has.
    pub count: u32,
    /// The places of those that may match, growing (0 for the first member
    /// a search visits).
    pub wanted: Vec<u32>,
}

/// What a query admits in an index: the numbers its postings give, and
/// the texts (that look random) whose filters admit it.
pub struct Candidates<'q, 's> {
    /// The posted numbers that may match (None: every number).
    posted: Option<RoaringBitmap>,
    query: &'q Query,
    segment: &'s Segment,
}

impl<'q, 's> Candidates<'q, 's> {
    /// The candidates of `query` in `segment`.
    pub fn new(query: &'q Query, segment: &'s Segment) -> Result<Self, Refused> {
        Ok(Candidates { posted: candidates(query, segment)?, query, segment })
    }

    /// Whether the text posted under `number` may match.
    pub fn posted(&self, number: u32) -> bool {
        self.posted.as_ref().is_none_or(|c| c.contains(number))
    }

    /// Whether the text filtered under `number` (see [`crate::filter`])
    /// may match; one without a filter, or whose filter is damaged, may.
    pub fn filtered(&self, number: u32) -> bool {
        match self.segment.filter(number) {
            Ok(Some(f)) => f.admits(self.query).unwrap_or(true),
            Ok(None) | Err(_) => true,
        }
    }

    /// For the archive numbered `number` (with
    /// [`crate::segment::EXTRACTED`]) whose members are indexed one by
    /// one: how many members it has and which may match (their places, in
    /// the order a search visits them); None when its list cannot be read
    /// (every member may match).
    pub fn members(&self, number: u32) -> Option<Members> {
        let list = self.segment.streams(number).ok().flatten()?;
        let may = |n: u32| match n & FILTERED {
            0 => self.posted(STREAM | n),
            _ => self.filtered(STREAM | (n & !FILTERED)),
        };
        let wanted = (0u32..).zip(&list).filter(|&(_, &n)| may(n)).map(|(k, _)| k).collect();
        Some(Members { count: list.len() as u32, wanted })
    }
}

/// The entries that may match `query`; None when every file may.
pub fn candidates(query: &Query, segment: &Segment) -> Result<Option<RoaringBitmap>, Refused> {
    Ok(match query {
        Query::All => None,
        Query::Nothing => Some(RoaringBitmap::new()),
        Query::Gram(g) => Some(segment.postings(gram_id(*g))?.unwrap_or_default()),
        Query::And(parts) => {
            // The rarest grams first: the intersection shrinks soonest, and
            // stops at the first empty one.
            let mut order: Vec<&Query> = parts.iter().collect();
            order.sort_by_key(|q| match q {
                Query::Gram(g) => segment.postings_size(gram_id(*g)),
                _ => u64::MAX,
            });
            let mut acc: Option<RoaringBitmap> = None;
            for q in order {
                if let Some(b) = candidates(q, segment)? {
                    acc = Some(match acc {
                        Some(a) => a & b,
                        None => b,
                    });
                    if acc.as_ref().is_some_and(RoaringBitmap::is_empty) {
                        break;
                    }
                }
            }
            acc
        }
        Query::Or(parts) => {
            let mut acc = RoaringBitmap::new();
            for q in parts {
                match candidates(q, segment)? {
                    Some(b) => acc |= b,
                    None => return Ok(None),
                }
            }
            Some(acc)
        }
    })
}
