//! The client's request ids, kept exactly, and the batches waiting for their answers.
//!
//! rmcp reads an `id` into an `i64` or a string: `18446744073709551616` does not fit, `1.0`
//! would come back as `1`, and two requests in flight under one id share rmcp's bookkeeping
//! (one answer for two). So the stdio transport gives every request rmcp sees a fresh id of its
//! own and writes the answer under the bytes the client sent, refusing a second request under
//! an id that is still in flight. A batch (protocol 2025-03-26) is answered as one array once
//! every request in it is answered.

use std::collections::{HashMap, hash_map::Entry};

/// An id as the client wrote it: the exact JSON text of a string or a number.
pub type RawId = Box<str>;

/// A batch whose answers are being collected.
#[derive(Debug, Default)]
struct Batch {
    /// Requests of the batch not yet answered.
    waiting: usize,
    /// The answers so far, each one JSON object.
    answers: Vec<Vec<u8>>,
}

/// The in-flight requests of one stdio session.
#[derive(Debug, Default)]
pub struct IdMap {
    /// Our id → the client's id, and the batch the request came in.
    in_flight: HashMap<i64, (RawId, Option<u64>)>,
    /// The client's id → ours, for requests in flight.
    by_client: HashMap<RawId, i64>,
    next: i64,
    batches: HashMap<u64, Batch>,
    next_batch: u64,
}

/// Where an answer goes once its id is translated back.
#[derive(Debug, PartialEq, Eq)]
pub enum Route {
    /// Written alone, under this id.
    Single(RawId),
    /// Part of a batch that still waits for other answers: nothing to write yet.
    Held,
    /// The last answer of a batch: write the whole array.
    BatchDone(Vec<Vec<u8>>),
    /// Not an id we gave out: written as rmcp made it.
    Unknown,
}

impl IdMap {
    /// Registers a request under the client's `raw` id; returns our id, or `None` if a request
    /// with that id is still in flight (the new one must be refused, never merged).
    pub fn admit(&mut self, raw: &str, batch: Option<u64>) -> Option<i64> {
        match self.by_client.entry(raw.into()) {
            Entry::Occupied(_) => None,
            Entry::Vacant(slot) => {
                self.next += 1;
                let ours = self.next;
                slot.insert(ours);
                self.in_flight.insert(ours, (raw.into(), batch));
                if let Some(b) = batch.and_then(|b| self.batches.get_mut(&b)) {
                    b.waiting += 1;
                }
                Some(ours)
            }
        }
    }

    /// The client's id (its exact JSON text) for our id `ours`, while that request is in flight.
    pub fn theirs(&self, ours: i64) -> Option<&str> {
        self.in_flight.get(&ours).map(|(raw, _)| &**raw)
    }

    /// Our id for a request the client names (a cancellation), if it is in flight.
    pub fn ours(&self, raw: &str) -> Option<i64> {
        self.by_client.get(raw).copied()
    }

    /// Takes back an [`admit`](Self::admit) of a request the transport refused itself.
    pub fn withdraw(&mut self, ours: i64) {
        if let Some((raw, batch)) = self.in_flight.remove(&ours) {
            self.by_client.remove(&raw);
            if let Some(b) = batch.and_then(|b| self.batches.get_mut(&b)) {
                b.waiting = b.waiting.saturating_sub(1);
            }
        }
    }

    /// Forgets a request that will not be answered (cancelled: rmcp drops its answer).
    pub fn forget(&mut self, ours: i64) {
        if let Some((raw, batch)) = self.in_flight.remove(&ours) {
            self.by_client.remove(&raw);
            if let Some(b) = batch {
                self.settle(b, None);
            }
        }
    }

    /// Opens a batch; its requests are [`admit`](Self::admit)ted with the returned tag.
    pub fn open_batch(&mut self) -> u64 {
        self.next_batch += 1;
        self.batches.insert(self.next_batch, Batch::default());
        self.next_batch
    }

    /// Adds an answer the transport made itself (a refused element) to a batch.
    pub fn add_to_batch(&mut self, batch: u64, answer: Vec<u8>) {
        if let Some(b) = self.batches.get_mut(&batch) {
            b.answers.push(answer);
        }
    }

    /// Ends the reading of a batch: the array, if nothing in it is left to wait for (`Some(empty)`
    /// for a batch of notifications only, which gets no answer).
    pub fn close_batch(&mut self, batch: u64) -> Option<Vec<Vec<u8>>> {
        if self.batches.get(&batch).is_some_and(|b| b.waiting == 0) {
            return self.batches.remove(&batch).map(|b| b.answers);
        }
        None
    }

    /// Translates the id of an answer rmcp wrote; `render` builds the answer under the client's id.
    pub fn answer(&mut self, ours: i64, render: impl FnOnce(&str) -> Vec<u8>) -> (Route, Option<Vec<u8>>) {
        let Some((raw, batch)) = self.in_flight.remove(&ours) else {
            return (Route::Unknown, None);
        };
        self.by_client.remove(&raw);
        let bytes = render(&raw);
        match batch {
            None => (Route::Single(raw), Some(bytes)),
            Some(b) => (self.settle(b, Some(bytes)).map_or(Route::Held, Route::BatchDone), None),
        }
    }

    /// One request of batch `b` is done (answered with `answer`, or cancelled); the whole
    /// array when it was the last one.
    fn settle(&mut self, b: u64, answer: Option<Vec<u8>>) -> Option<Vec<Vec<u8>>> {
        let batch = self.batches.get_mut(&b)?;
        batch.waiting = batch.waiting.saturating_sub(1);
        batch.answers.extend(answer);
        if batch.waiting == 0 { self.batches.remove(&b).map(|b| b.answers) } else { None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_in_flight_cannot_be_used_twice_until_answered() {
        let mut ids = IdMap::default();
        let a = ids.admit("7", None).unwrap();
        assert_eq!(ids.admit("7", None), None);
        let b = ids.admit("\"7\"", None).unwrap();
        assert_ne!(a, b, "a string id and a number id are different ids");
        let (route, bytes) = ids.answer(a, |raw| raw.as_bytes().to_vec());
        assert_eq!(route, Route::Single("7".into()));
        assert_eq!(bytes.unwrap(), b"7");
        assert!(ids.admit("7", None).is_some(), "free again once answered");
        assert_eq!(ids.answer(999, |_| Vec::new()).0, Route::Unknown);
    }

    #[test]
    fn a_batch_is_written_once_every_request_in_it_is_answered() {
        let mut ids = IdMap::default();
        let batch = ids.open_batch();
        let a = ids.admit("1", Some(batch)).unwrap();
        let b = ids.admit("2", Some(batch)).unwrap();
        let c = ids.admit("3", Some(batch)).unwrap();
        ids.add_to_batch(batch, b"refused".to_vec());
        assert_eq!(ids.close_batch(batch), None);
        assert_eq!(ids.answer(b, |raw| raw.as_bytes().to_vec()).0, Route::Held);
        ids.forget(c);
        let (route, _) = ids.answer(a, |raw| raw.as_bytes().to_vec());
        assert_eq!(route, Route::BatchDone(vec![b"refused".to_vec(), b"2".to_vec(), b"1".to_vec()]));
        let only_notifications = ids.open_batch();
        assert_eq!(ids.close_batch(only_notifications), Some(vec![]));
    }
}
