//! What both ends of the bridge's WebSocket do the same way: the keep-alive (a ping every
//! interval, a peer silent for two intervals is dead) and the writer's batching (every message
//! already queued goes out in one flush).

use std::time::Duration;

use futures::{Sink, SinkExt};
use tokio::time::{Instant, Interval, MissedTickBehavior};
use tokio_tungstenite::tungstenite::Message;

/// The ping interval of both ends (the host's `--ping-interval` default).
pub const PING_INTERVAL: Duration = Duration::from_secs(15);

/// The keep-alive of one connection.
#[derive(Debug)]
pub struct KeepAlive {
    ticker: Interval,
    last_seen: Instant,
    interval: Duration,
}

/// What a [`KeepAlive`] tick asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tick {
    /// Send a ping.
    Ping,
    /// The peer sent nothing for two intervals: drop the connection.
    Dead,
}

impl KeepAlive {
    /// A keep-alive pinging every `interval`, the first tick one interval from now.
    pub fn new(interval: Duration) -> KeepAlive {
        let mut ticker = tokio::time::interval_at(Instant::now() + interval, interval);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        KeepAlive { ticker, last_seen: Instant::now(), interval }
    }

    /// The peer sent something (any frame).
    pub fn seen(&mut self) {
        self.last_seen = Instant::now();
    }

    /// Waits for the next tick.
    pub async fn tick(&mut self) -> Tick {
        self.ticker.tick().await;
        if self.last_seen.elapsed() > self.interval * 2 { Tick::Dead } else { Tick::Ping }
    }
}

/// Feeds `first` and every message `more` still has queued into `sink`, then flushes once.
pub async fn write_batch<S>(
    sink: &mut S,
    first: Message,
    mut more: impl FnMut() -> Option<Message>,
) -> Result<(), S::Error>
where
    S: Sink<Message> + Unpin,
{
    sink.feed(first).await?;
    while let Some(next) = more() {
        sink.feed(next).await?;
    }
    sink.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_silent_peer_is_dead_after_two_intervals() {
        let mut keep = KeepAlive::new(Duration::from_secs(10));
        assert_eq!(keep.tick().await, Tick::Ping);
        keep.seen();
        assert_eq!(keep.tick().await, Tick::Ping);
        assert_eq!(keep.tick().await, Tick::Ping);
        assert_eq!(keep.tick().await, Tick::Dead);
    }
}
