//! Running a scan's system calls on several threads: the first scan of a repository opens and
//! reads every article, and a full revalidation `stat`s every one.

/// From this many directories to list or articles to read or `stat`, the work runs on several
/// threads.
pub const PARALLEL_MIN: usize = 64;

/// `f` over `items` on several threads that each take the next item when done (items of
/// uneven cost balance out); the results in the order of `items`.
pub fn par_queue<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 8).min(items.len().max(1));
    let next = AtomicUsize::new(0);
    let (f, next) = (&f, &next);
    let mut slots: Vec<Option<R>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(move || {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        done.push((i, f(item)));
                    }
                    done
                })
            })
            .collect();
        let mut slots: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
        for handle in handles {
            match handle.join() {
                Ok(done) => {
                    for (i, r) in done {
                        slots[i] = Some(r);
                    }
                }
                // A worker's panic is the caller's (the server turns it into INTERNAL_ERROR).
                Err(payload) => std::panic::resume_unwind(payload),
            }
        }
        slots
    });
    slots.drain(..).flatten().collect()
}

/// `f` over `items`, on several threads when there are at least [`PARALLEL_MIN`] of them.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    if items.len() < PARALLEL_MIN {
        return items.iter().map(&f).collect();
    }
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 8);
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> =
            items.chunks(chunk).map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<R>>())).collect();
        let mut out = Vec::with_capacity(items.len());
        for handle in handles {
            match handle.join() {
                Ok(part) => out.extend(part),
                // A worker's panic is the caller's (the server turns it into INTERNAL_ERROR).
                Err(payload) => std::panic::resume_unwind(payload),
            }
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub fn par_queue_keeps_the_order() {
        let items: Vec<usize> = (0..1000).collect();
        assert_eq!(par_queue(&items, |i| i * 2), items.iter().map(|i| i * 2).collect::<Vec<_>>());
        assert!(par_queue(&[] as &[usize], |i| *i).is_empty());
    }
}
