//! Per-file serialisation: calls on the same file wait for each other, calls on different
//! files run in parallel.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{Arc, Mutex, Weak},
};

use tokio::sync::OwnedMutexGuard;

/// Past this many entries, the map drops those no call holds any more.
const PRUNE_AT: usize = 256;

/// One async mutex per file, created on first use and dropped when no call holds it.
#[derive(Debug, Default)]
pub struct FileLocks {
    map: Mutex<HashMap<PathBuf, Weak<tokio::sync::Mutex<()>>>>,
}

impl FileLocks {
    /// No locks yet.
    pub fn new() -> FileLocks {
        FileLocks::default()
    }

    /// Waits until no other call holds `key`, then holds it until the guard is dropped.
    pub async fn lock(&self, key: &Path) -> OwnedMutexGuard<()> {
        let mutex = self.mutex(key);
        mutex.lock_owned().await
    }

    fn mutex(&self, key: &Path) -> Arc<tokio::sync::Mutex<()>> {
        let mut map = match self.map.lock() {
            Ok(map) => map,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(existing) = map.get(key).and_then(Weak::upgrade) {
            return existing;
        }
        if map.len() >= PRUNE_AT {
            map.retain(|_, weak| weak.strong_count() > 0);
        }
        let mutex = Arc::new(tokio::sync::Mutex::new(()));
        map.insert(key.to_path_buf(), Arc::downgrade(&mutex));
        mutex
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn same_file_waits_other_file_does_not() {
        let locks = Arc::new(FileLocks::new());
        let held = locks.lock(Path::new("/r/a")).await;
        // another file: immediately available
        let other = tokio::time::timeout(Duration::from_secs(5), locks.lock(Path::new("/r/b"))).await;
        assert!(other.is_ok());
        // the same file: not available while held
        let locks2 = Arc::clone(&locks);
        let waiter = tokio::spawn(async move { locks2.lock(Path::new("/r/a")).await });
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        drop(held);
        assert!(waiter.await.is_ok());
    }
}
