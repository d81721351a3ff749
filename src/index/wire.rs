//! On-disk form of a [`KeywordIndex`] (it is stored inside each workspace tree file as JSON).
//!
//! Node ids in each term's postings are delta-encoded (first id, then gaps) and the offset table
//! is stored as per-term document frequencies, so most numbers are one or two digits. Decoding
//! checks that the arrays agree and fails with [`IndexDecodeError`] otherwise.

use serde::{Deserialize, Serialize};

use super::KeywordIndex;

/// Why a stored keyword index could not be decoded (the tree file is damaged).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IndexDecodeError {
    /// Array lengths disagree.
    #[error("keyword index is inconsistent: {0}")]
    Inconsistent(String),
}

/// Serialized shape of a [`KeywordIndex`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Wire {
    /// Sorted, unique terms.
    terms: Vec<String>,
    /// Postings per term.
    df: Vec<u32>,
    /// Per term: first node id, then gaps to the next.
    node_gaps: Vec<u32>,
    /// Title-weighted term frequencies, parallel to `node_gaps`.
    tfs: Vec<u32>,
    /// Weighted node lengths.
    lengths: Vec<u32>,
    /// Reading-order rank of each node.
    ranks: Vec<u32>,
}

impl From<KeywordIndex> for Wire {
    fn from(index: KeywordIndex) -> Wire {
        let mut df = Vec::with_capacity(index.terms.len());
        let mut node_gaps = Vec::with_capacity(index.nodes.len());
        for w in index.offsets.windows(2) {
            let (start, end) = (w[0] as usize, w[1] as usize);
            df.push(w[1].saturating_sub(w[0]));
            let mut prev = 0;
            for &node in index.nodes.get(start..end).unwrap_or_default() {
                node_gaps.push(node.wrapping_sub(prev));
                prev = node;
            }
        }
        Wire {
            terms: index.terms,
            df,
            node_gaps,
            tfs: index.tfs,
            lengths: index.lengths,
            ranks: index.ranks,
        }
    }
}

impl TryFrom<Wire> for KeywordIndex {
    type Error = IndexDecodeError;

    fn try_from(wire: Wire) -> Result<KeywordIndex, IndexDecodeError> {
        let bad = |what: String| Err(IndexDecodeError::Inconsistent(what));
        if wire.df.len() != wire.terms.len() {
            return bad(format!(
                "{} terms but {} df entries",
                wire.terms.len(),
                wire.df.len()
            ));
        }
        let postings: u64 = wire.df.iter().map(|&d| u64::from(d)).sum();
        if postings != wire.node_gaps.len() as u64 || postings != wire.tfs.len() as u64 {
            return bad(format!(
                "df sums to {postings}, {} node gaps, {} tfs",
                wire.node_gaps.len(),
                wire.tfs.len()
            ));
        }
        if let Some(w) = wire.terms.windows(2).find(|w| w[0] >= w[1]) {
            return bad(format!("terms not sorted at {:?}, {:?}", w[0], w[1]));
        }
        if wire.ranks.len() != wire.lengths.len() {
            return bad(format!(
                "{} lengths but {} ranks",
                wire.lengths.len(),
                wire.ranks.len()
            ));
        }
        let mut offsets = Vec::with_capacity(wire.df.len() + 1);
        let mut nodes = Vec::with_capacity(wire.node_gaps.len());
        offsets.push(0u32);
        let mut gaps = wire.node_gaps.iter();
        for &df in &wire.df {
            let mut node = 0u32;
            for (k, &gap) in gaps.by_ref().take(df as usize).enumerate() {
                node = node.wrapping_add(gap);
                if node as usize >= wire.lengths.len() || (k > 0 && gap == 0) {
                    return bad(format!("posting node {node} out of order or range"));
                }
                nodes.push(node);
            }
            offsets.push(u32::try_from(nodes.len()).unwrap_or(u32::MAX));
        }
        Ok(KeywordIndex {
            terms: wire.terms,
            offsets,
            nodes,
            tfs: wire.tfs,
            total_length: wire.lengths.iter().map(|&l| u64::from(l)).sum(),
            lengths: wire.lengths,
            ranks: wire.ranks,
        })
    }
}
