//! `subscriptions/listen` (2026-07-28): one stream per request, forwarding the server
//! extension's list changes and resource updates the client asked for, until it cancels.

use std::sync::Arc;

use futures::StreamExt;
use rmcp::{ErrorData as McpError, service::SubscriptionContext};

use super::{MAX_LISTENS, McpServer};

impl McpServer {
    /// The stream of one `subscriptions/listen`, at most [`MAX_LISTENS`] open at once.
    pub(super) async fn listen_until_cancelled(&self, context: SubscriptionContext) -> Result<(), McpError> {
        // Held while the stream is open.
        let Ok(_open) = Arc::clone(&self.listens).try_acquire_owned() else {
            return Err(McpError::invalid_request(
                format!(
                    "The server has its maximum of {MAX_LISTENS} subscriptions/listen streams open; close one (cancel its request) first."
                ),
                None,
            ));
        };
        let mut changes = self.extension.changes();
        let mut updates = self.extension.resource_updates();
        let (mut changes_open, mut updates_open) = (true, true);
        let sink = context.sink().clone();
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                update = updates.next(), if updates_open => {
                    let Some(uri) = update else {
                        updates_open = false;
                        continue;
                    };
                    let wanted = sink.accepted().resource_subscriptions.as_ref().is_some_and(|u| u.contains(&uri));
                    if wanted && let Err(error) = sink.notify_resource_updated(uri).await {
                        tracing::debug!(%error, "a subscription ended");
                        return Ok(());
                    }
                }
                change = changes.next(), if changes_open => {
                    if change.is_none() {
                        changes_open = false;
                        continue;
                    }
                    let accepted = sink.accepted();
                    let tools = accepted.tools_list_changed == Some(true);
                    let resources = accepted.resources_list_changed == Some(true);
                    let sent = async {
                        if tools {
                            sink.notify_tool_list_changed().await?;
                        }
                        if resources {
                            sink.notify_resource_list_changed().await?;
                        }
                        Ok::<(), rmcp::service::SubscriptionSendError>(())
                    };
                    if let Err(error) = sent.await {
                        tracing::debug!(%error, "a subscription ended");
                        return Ok(());
                    }
                }
            }
        }
    }
}
