//! Bounded work per page: a hostile PDF can hold a content stream that inflates a few
//! hundred kilobytes into hundreds of megabytes of operators (a decompression bomb). Every page
//! is read under a [`PageBudget`]: the bytes its content streams and form XObjects decompress to
//! and the operators interpreted are counted, and the page stops with [`OverBudget`] as soon as
//! either passes its bound — before the rest is inflated or parsed, so time and memory stay
//! proportional to the bound, not to the stream.
//!
//! Sizing, measured over the 16 corpus PDFs (`/work/shared/corpus/pdf`, 4,479 pages): the largest
//! page content is 218,419 bytes decompressed (fhs-3.0, a page of tables) with 9,331 operators;
//! the largest form XObject 376,167 bytes (GS9_Color_Management). The default bound,
//! [`DEFAULT_MAX_PAGE_MIB`] = 16 MiB and 65,536 operators per MiB (1,048,576), is ~75× and ~110×
//! those maxima: room for heavy vector drawings, while a content stream that inflates to
//! hundreds of megabytes is refused after inflating 16 MiB.

use std::fmt;

/// Default bound on one page's decompressed content (content streams and forms run), in MiB.
pub const DEFAULT_MAX_PAGE_MIB: u32 = 16;

/// Operators allowed per MiB of the content bound (the operator bound scales with it).
pub const OPERATORS_PER_MIB: usize = 65_536;

/// The work allowed for one page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageBudget {
    /// Decompressed bytes of content (page streams plus every form XObject each time it runs).
    pub max_bytes: usize,
    /// Content-stream operators interpreted (forms included).
    pub max_operators: usize,
}

impl PageBudget {
    /// The bound for `mib` MiB of content (at least 1 MiB) and 65,536 (`OPERATORS_PER_MIB`)
    /// operators per MiB.
    pub fn from_mib(mib: u32) -> PageBudget {
        let mib = usize::try_from(mib.max(1)).unwrap_or(usize::MAX);
        PageBudget {
            max_bytes: mib.saturating_mul(1 << 20),
            max_operators: mib.saturating_mul(OPERATORS_PER_MIB),
        }
    }
}

impl Default for PageBudget {
    fn default() -> Self {
        PageBudget::from_mib(DEFAULT_MAX_PAGE_MIB)
    }
}

/// A page passed its [`PageBudget`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OverBudget {
    /// Its content inflates past `limit` bytes.
    Bytes {
        /// The bound, bytes.
        limit: usize,
    },
    /// It runs more than `limit` operators.
    Operators {
        /// The bound, operators.
        limit: usize,
    },
}

impl fmt::Display for OverBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OverBudget::Bytes { limit } => write!(
                f,
                "its content inflates past {} MiB (a decompression bomb?)",
                limit >> 20
            ),
            OverBudget::Operators { limit } => {
                write!(f, "its content runs past {limit} operators")
            }
        }
    }
}

/// What one page has spent so far.
#[derive(Debug)]
pub struct Meter {
    budget: PageBudget,
    bytes: usize,
    operators: usize,
}

impl Meter {
    /// A fresh meter for one page.
    pub fn new(budget: PageBudget) -> Meter {
        Meter {
            budget,
            bytes: 0,
            operators: 0,
        }
    }

    /// Bytes still allowed.
    pub fn bytes_left(&self) -> usize {
        self.budget.max_bytes.saturating_sub(self.bytes)
    }

    /// The error for inflating past the byte bound.
    pub fn bytes_exceeded(&self) -> OverBudget {
        OverBudget::Bytes {
            limit: self.budget.max_bytes,
        }
    }

    /// Charge `n` decompressed bytes. Errors when the bound is passed.
    pub fn charge_bytes(&mut self, n: usize) -> Result<(), OverBudget> {
        self.bytes = self.bytes.saturating_add(n);
        if self.bytes > self.budget.max_bytes {
            return Err(self.bytes_exceeded());
        }
        Ok(())
    }

    /// Charge one operator. Errors when the bound is passed.
    pub fn charge_operator(&mut self) -> Result<(), OverBudget> {
        self.operators += 1;
        if self.operators > self.budget.max_operators {
            return Err(OverBudget::Operators {
                limit: self.budget.max_operators,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meter_stops_at_either_bound() {
        let budget = PageBudget {
            max_bytes: 10,
            max_operators: 2,
        };
        let mut m = Meter::new(budget);
        m.charge_bytes(10).unwrap();
        assert_eq!(m.bytes_left(), 0);
        assert_eq!(m.charge_bytes(1), Err(OverBudget::Bytes { limit: 10 }));
        let mut m = Meter::new(budget);
        m.charge_operator().unwrap();
        m.charge_operator().unwrap();
        assert_eq!(m.charge_operator(), Err(OverBudget::Operators { limit: 2 }));
        assert_eq!(PageBudget::from_mib(0).max_bytes, 1 << 20);
        assert_eq!(PageBudget::default().max_operators, 16 * OPERATORS_PER_MIB);
    }
}
