//! `resources/subscribe` and `resources/unsubscribe` for a session: one task per subscribed URI
//! forwards the [`ServerExtension::resource_updates`](crate::ServerExtension::resource_updates)
//! naming it to the client as `notifications/resources/updated`, until the client unsubscribes or
//! the session ends (the first notification that cannot be sent ends the task).
//!
//! Sessions are told apart by their client's `initialize` params (one `Arc` per session, as in
//! [`crate::client_roots`]). At most [`MAX_SUBSCRIPTIONS`] are held at once across sessions, and
//! [`MAX_PER_SESSION`] per session; one more is refused with a clear error, so no client can grow
//! the server without bound. A session that ends (an HTTP `DELETE`, a client gone) frees its
//! slots: its tasks notice within [`SWEEP_EVERY`] even when nothing changes, and a subscribe that
//! finds the server full first sweeps the ended sessions' subscriptions.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, MutexGuard, PoisonError},
};

use futures::{StreamExt, stream::BoxStream};
use rmcp::{ErrorData as McpError, Peer, RoleServer, model::ResourceUpdatedNotificationParam};
use tokio_util::sync::CancellationToken;

/// The most subscriptions held at once, across sessions.
pub const MAX_SUBSCRIPTIONS: usize = 1024;

/// The most subscriptions one session holds.
pub const MAX_PER_SESSION: usize = 64;

/// How often a subscription's task looks whether its session has ended.
pub const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// Which session (its client's `initialize` params, by address) subscribed to which URI.
type Key = (usize, String);

/// The subscriptions of every session.
#[derive(Default)]
pub struct Subscriptions {
    held: Mutex<HashMap<Key, Held>>,
    next: std::sync::atomic::AtomicU64,
}

/// One subscription: its id (to tell it from a newer one of the same key), what ends its task,
/// and its session's peer (to see whether the session has ended).
struct Held {
    id: u64,
    token: CancellationToken,
    peer: Peer<RoleServer>,
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
            if let Some(h) = held.get(&key) {
                if !h.peer.is_transport_closed() {
                    return Ok(());
                }
                // An ended session's, whose `initialize` params' address a new session now has.
                h.token.cancel();
                held.remove(&key);
            }
            if held.len() >= MAX_SUBSCRIPTIONS {
                // Sessions that ended since (their tasks look only now and then).
                held.retain(|_, h| {
                    let open = !h.peer.is_transport_closed();
                    if !open {
                        h.token.cancel();
                    }
                    open
                });
            }
            if held.len() >= MAX_SUBSCRIPTIONS {
                return Err(McpError::invalid_request(
                    format!(
                        "The server holds its maximum of {MAX_SUBSCRIPTIONS} resource subscriptions; unsubscribe from one first."
                    ),
                    None,
                ));
            }
            let mine =
                held.iter().filter(|((session, _), h)| *session == key.0 && !h.peer.is_transport_closed()).count();
            if mine >= MAX_PER_SESSION {
                return Err(McpError::invalid_request(
                    format!(
                        "This session holds its maximum of {MAX_PER_SESSION} resource subscriptions; unsubscribe from one first."
                    ),
                    None,
                ));
            }
            let token = CancellationToken::new();
            let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            held.insert(key.clone(), Held { id, token: token.clone(), peer: peer.clone() });
            (id, token)
        };
        let (id, token) = token;
        let this = Arc::clone(self);
        tokio::spawn(async move {
            let mut sweep = tokio::time::interval(SWEEP_EVERY);
            sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    () = token.cancelled() => break,
                    _ = sweep.tick() => if peer.is_transport_closed() {
                        break;
                    },
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
            if held.get(&key).is_some_and(|h| h.id == id) {
                held.remove(&key);
            }
        });
        Ok(())
    }

    /// Ends `peer`'s session's subscription to `uri` (none: nothing to do).
    pub fn unsubscribe(&self, peer: &Peer<RoleServer>, uri: &str) {
        if let Some(held) = self.lock().remove(&(session_of(peer), uri.to_owned())) {
            held.token.cancel();
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<Key, Held>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
