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
