//! A planned [`Query`] answered from an index: the files that may match.

use roaring::RoaringBitmap;

use crate::grams::gram_id;
use crate::plan::Query;
use crate::segment::{Refused, Segment};

/// The entries that may match `query`; None when every file may.
pub fn candidates(query: &Query, segment: &Segment) -> Result<Option<RoaringBitmap>, Refused> {
    Ok(match query {
        Query::All => None,
        Query::Nothing => Some(RoaringBitmap::new()),
        Query::Gram(g) => Some(segment.postings(gram_id(*g))?.unwrap_or_default()),
        Query::And(parts) => {
            let mut acc: Option<RoaringBitmap> = None;
            for q in parts {
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
