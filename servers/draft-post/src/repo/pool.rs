//! Running a scan's system calls on several threads: the first scan of a repository opens and
//! reads every article, and a full revalidation `stat`s every one.
//!
//! This is rayon's work-stealing pool. A hand-written one (scoped threads each taking the next
//! unit from a shared counter) did no better: opening and reading the head of 10,000 articles
//! took the same time with both (0.96x to 1.13x over three runs of `examples/choices.rs`, see the
//! README), so the crate won.

use rayon::prelude::*;

/// From this many directories to list or articles to read or `stat`, the work runs on several
/// threads (below it, handing it to the pool costs more than it saves).
pub const PARALLEL_MIN: usize = 64;

/// `f` over `items`, on several threads when there are at least [`PARALLEL_MIN`] of them; the
/// results in the order of `items`. A panic of `f` is the caller's (the server turns it into
/// `INTERNAL_ERROR`).
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    if items.len() < PARALLEL_MIN {
        return items.iter().map(f).collect();
    }
    items.par_iter().map(f).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn par_map_keeps_the_order() {
        for n in [0, 5, PARALLEL_MIN, 1000] {
            let items: Vec<usize> = (0..n).collect();
            assert_eq!(par_map(&items, |i| i * 2), items.iter().map(|i| i * 2).collect::<Vec<_>>());
        }
    }
}
