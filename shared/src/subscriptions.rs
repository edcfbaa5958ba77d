//! `resources/subscribe` and `resources/unsubscribe` for a session: one task per subscribed URI
//! forwards the [`ServerExtension::resource_updates`](crate::ServerExtension::resource_updates)
//! naming it to the client as `notifications/resources/updated`, until the client unsubscribes or
//! the session ends (the first notification that cannot be sent ends the task).
//!
//! Sessions are told apart by their client's `initialize` params (one `Arc` per session, as in
//! [`crate::client_roots`]). At most [`MAX_SUBSCRIPTIONS`] are held at once across sessions; one
//! more is refused with a clear error, so no client can grow the server without bound.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, MutexGuard, PoisonError},
};

use futures::{StreamExt, stream::BoxStream};
use rmcp::{ErrorData as McpError, Peer, RoleServer, model::ResourceUpdatedNotificationParam};
use tokio_util::sync::CancellationToken;

/// The most subscriptions held at once, across sessions.
pub const MAX_SUBSCRIPTIONS: usize = 1024;

/// Which session (its client's `initialize` params, by address) subscribed to which URI.
type Key = (usize, String);

/// The subscriptions of every session.
#[derive(Default)]
pub struct Subscriptions {
    held: Mutex<HashMap<Key, (u64, CancellationToken)>>,
    next: std::sync::atomic::AtomicU64,
}

fn session_of(peer: &Peer<RoleServer>) -> usize {
    peer.peer_info().map_or(0, |info| Arc::as_ptr(&info) as usize)
}

impl Subscriptions {
    /// Subscribes `peer`'s session to `uri`: each item of `updates` equal to `uri` is sent to it.
    /// Subscribing twice is one subscription.
    pub fn subscribe(
        self: &Arc<Self>,
        peer: Peer<RoleServer>,
        uri: String,
        mut updates: BoxStream<'static, String>,
    ) -> Result<(), McpError> {
        let key = (session_of(&peer), uri.clone());
        let token = {
            let mut held = self.lock();
            if held.contains_key(&key) {
                return Ok(());
            }
            if held.len() >= MAX_SUBSCRIPTIONS {
                return Err(McpError::invalid_request(
                    format!(
                        "The server holds its maximum of {MAX_SUBSCRIPTIONS} resource subscriptions; unsubscribe from one first."
                    ),
                    None,
                ));
            }
            let token = CancellationToken::new();
            let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            held.insert(key.clone(), (id, token.clone()));
            (id, token)
        };
        let (id, token) = token;
        let this = Arc::clone(self);
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = token.cancelled() => break,
                    update = updates.next() => match update {
                        None => break,
                        Some(changed) if changed == uri => {
                            let sent = peer
                                .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri.clone()))
                                .await;
                            if sent.is_err() {
                                break;
                            }
                        }
                        Some(_) => {}
                    },
                }
            }
            // The session is gone (or unsubscribed): forget this subscription, not a newer one.
            let mut held = this.lock();
            if held.get(&key).is_some_and(|(held_id, _)| *held_id == id) {
                held.remove(&key);
            }
        });
        Ok(())
    }

    /// Ends `peer`'s session's subscription to `uri` (none: nothing to do).
    pub fn unsubscribe(&self, peer: &Peer<RoleServer>, uri: &str) {
        if let Some((_, token)) = self.lock().remove(&(session_of(peer), uri.to_owned())) {
            token.cancel();
        }
    }

    /// How many subscriptions are held.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<Key, (u64, CancellationToken)>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
