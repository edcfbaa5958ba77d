//! The stdio transport: newline-delimited JSON-RPC, stdout carrying nothing else.
//!
//! rmcp's own `AsyncRwTransport` drops an oversized line silently and answers a well-formed but
//! invalid request with an id-less error; a client then waits forever. This transport keeps
//! rmcp's policy for input that is not JSON at all (logged on stderr and skipped, as the other
//! official SDKs do, so an echoing peer cannot start an error storm) and adds: a message larger
//! than `--max-message-bytes` is dropped without ever being buffered whole, and if its `id` can
//! be read from its first bytes the client gets a JSON-RPC error under that id; a JSON object
//! with an id that is not a valid request gets an error under its id too. The id scanner of
//! oversized messages is its own file, `id_scan.rs`.

use std::sync::Arc;

use rmcp::{
    RoleServer,
    model::{ClientRequest, JsonRpcMessage},
    service::{RxJsonRpcMessage, TxJsonRpcMessage},
    transport::Transport,
};
use serde_json::{Value, json};

use super::id_scan::scan_request_id;
use tokio::{
    io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader},
    sync::Mutex,
};

/// How many leading bytes of an oversized message are kept to look for its `id`.
const ID_SCAN_PREFIX: usize = 64 * 1024;

/// JSON-RPC's "Invalid Request" code.
const INVALID_REQUEST: i64 = -32600;

/// A server-side stdio transport over any reader and writer (stdin/stdout in production,
/// in-memory pipes in tests).
pub struct StdioTransport<R, W> {
    reader: BufReader<R>,
    line: Vec<u8>,
    /// While dropping an oversized line: its first bytes (to find the id) and its length so far.
    /// Kept here, not in `read_line`, because rmcp polls `receive` inside a `select!` and a
    /// cancelled read must resume the discard where it stopped.
    oversized: Option<(Vec<u8>, usize)>,
    max_message_bytes: usize,
    writer: Arc<Mutex<Option<W>>>,
    /// Whether an `initialize` request went through. Before it, rmcp's handshake ends the
    /// session on any message that is not a request, so such messages are dropped here.
    initialize_seen: bool,
}

enum LineRead {
    Line,
    /// The line exceeded the limit; `id` is its request id if it could be read.
    Oversized {
        id: Option<Value>,
        bytes: usize,
    },
    Eof,
}

impl<R, W> StdioTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// A transport reading `reader` and writing `writer`, refusing messages over `max_message_bytes`.
    pub fn new(reader: R, writer: W, max_message_bytes: usize) -> Self {
        StdioTransport {
            reader: BufReader::with_capacity(64 * 1024, reader),
            line: Vec::new(),
            oversized: None,
            max_message_bytes: max_message_bytes.max(1),
            writer: Arc::new(Mutex::new(Some(writer))),
            initialize_seen: false,
        }
    }

    /// Reads one line into `self.line` without letting it grow past the limit.
    ///
    /// Cancellation-safe: `fill_buf` consumes nothing when dropped, and the copy and `consume`
    /// are synchronous, so a cancelled read leaves the partial line (or the state of the
    /// discard of an oversized one) for the next call. (rmcp polls `receive` inside a `select!`.)
    async fn read_line(&mut self) -> std::io::Result<LineRead> {
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                return Ok(LineRead::Eof);
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            match &mut self.oversized {
                Some((prefix, bytes)) => {
                    if prefix.len() < ID_SCAN_PREFIX {
                        let room = ID_SCAN_PREFIX - prefix.len();
                        prefix.extend_from_slice(&available[..take.min(room)]);
                    }
                    *bytes += take;
                }
                None if self.line.len().saturating_add(take) > self.max_message_bytes => {
                    let bytes = self.line.len() + take;
                    let mut prefix = std::mem::take(&mut self.line);
                    prefix.truncate(ID_SCAN_PREFIX);
                    if prefix.len() < ID_SCAN_PREFIX {
                        let room = ID_SCAN_PREFIX - prefix.len();
                        prefix.extend_from_slice(&available[..take.min(room)]);
                    }
                    self.oversized = Some((prefix, bytes));
                }
                None => self.line.extend_from_slice(&available[..take]),
            }
            self.reader.consume(take);
            if newline.is_some() {
                return Ok(match self.oversized.take() {
                    Some((prefix, bytes)) => LineRead::Oversized { id: scan_request_id(&prefix), bytes },
                    None => LineRead::Line,
                });
            }
        }
    }
}

/// Writes one JSON-RPC error response (for requests rmcp never sees).
async fn send_error<W: AsyncWrite + Unpin>(writer: &Mutex<Option<W>>, id: Value, code: i64, message: String) {
    let response = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    if let Err(error) = write_line(writer, response.to_string().into_bytes()).await {
        tracing::error!(%error, "could not write an error response");
    }
}

async fn write_line<W: AsyncWrite + Unpin>(writer: &Mutex<Option<W>>, mut bytes: Vec<u8>) -> std::io::Result<()> {
    bytes.push(b'\n');
    let mut guard = writer.lock().await;
    let Some(w) = guard.as_mut() else {
        return Err(std::io::Error::new(std::io::ErrorKind::NotConnected, "transport closed"));
    };
    w.write_all(&bytes).await?;
    w.flush().await
}

impl<R, W> Transport<RoleServer> for StdioTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let writer = self.writer.clone();
        async move {
            let bytes = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            write_line(&writer, bytes).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Ok(LineRead::Line) => {}
                Ok(LineRead::Eof) => return None,
                Ok(LineRead::Oversized { id, bytes }) => {
                    tracing::warn!(
                        bytes,
                        limit = self.max_message_bytes,
                        "dropped an incoming message larger than --max-message-bytes"
                    );
                    if let Some(id) = id {
                        let limit = self.max_message_bytes;
                        send_error(
                            &self.writer,
                            id,
                            INVALID_REQUEST,
                            format!(
                                "Message too large: it exceeds this server's limit of {limit} bytes (--max-message-bytes), so it was not processed. Send smaller arguments, e.g. create a large file in several steps."
                            ),
                        )
                        .await;
                    }
                    continue;
                }
                Err(error) => {
                    tracing::error!(%error, "error reading stdin");
                    return None;
                }
            }
            let mut line: &[u8] = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
            line = line.strip_suffix(b"\r").unwrap_or(line);
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
            if line.iter().all(u8::is_ascii_whitespace) {
                self.line.clear();
                continue;
            }
            let parsed = serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line);
            let outcome = match parsed {
                Ok(message) => Ok(message),
                Err(error) => Err(classify_invalid(line, &error)),
            };
            self.line.clear();
            match outcome {
                Ok(message) => {
                    if !self.initialize_seen {
                        match &message {
                            JsonRpcMessage::Request(request) => {
                                if matches!(request.request, ClientRequest::InitializeRequest(_)) {
                                    self.initialize_seen = true;
                                }
                            }
                            _ => {
                                tracing::debug!("ignored a notification or response sent before initialize");
                                continue;
                            }
                        }
                    }
                    return Some(message);
                }
                Err(Invalid::NotJson(error)) => {
                    tracing::warn!(%error, "skipped a line that is not valid JSON");
                }
                Err(Invalid::Ignored(why)) => tracing::debug!("ignored an incoming message: {why}"),
                Err(Invalid::Answer { id, message }) => {
                    tracing::warn!(%message, "refused an invalid request");
                    send_error(&self.writer, id, INVALID_REQUEST, message).await;
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let mut guard = self.writer.lock().await;
        if let Some(mut w) = guard.take() {
            let _ = w.flush().await;
        }
        Ok(())
    }
}

enum Invalid {
    NotJson(serde_json::Error),
    Ignored(String),
    Answer { id: Value, message: String },
}

/// Decides what to do with a line rmcp's message type did not accept.
fn classify_invalid(line: &[u8], error: &serde_json::Error) -> Invalid {
    use serde_json::error::Category;
    if matches!(error.classify(), Category::Syntax | Category::Eof) {
        return Invalid::NotJson(serde_json::Error::io(std::io::Error::other(error.to_string())));
    }
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return Invalid::Ignored(error.to_string());
    };
    let Some(object) = value.as_object() else {
        return Invalid::Ignored(format!("not a JSON-RPC object: {error}"));
    };
    let method = object.get("method").and_then(Value::as_str);
    match (object.get("id"), method) {
        // A notification we do not know (e.g. an LSP message, a newer MCP notification): skip.
        (None, _) => Invalid::Ignored(format!("notification {method:?}: {error}")),
        (Some(id @ (Value::Number(_) | Value::String(_))), Some(method)) => Invalid::Answer {
            id: id.clone(),
            message: format!("Invalid request `{method}`: {error}. Check the method's params against the MCP schema."),
        },
        (Some(id @ (Value::Number(_) | Value::String(_))), None)
            if !object.contains_key("result") && !object.contains_key("error") =>
        {
            Invalid::Answer { id: id.clone(), message: "Invalid request: no `method`.".into() }
        }
        _ => Invalid::Ignored(format!("unusable message: {error}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn roundtrip(input: Vec<u8>, max: usize) -> (Vec<Option<String>>, String) {
        let (client_out, server_in) = tokio::io::duplex(1 << 20);
        let (server_out, mut client_in) = tokio::io::duplex(1 << 20);
        let mut transport = StdioTransport::new(server_in, server_out, max);
        let mut client_out = client_out;
        client_out.write_all(&input).await.unwrap();
        drop(client_out);
        let mut received = Vec::new();
        while let Some(message) = transport.receive().await {
            let v = serde_json::to_value(&message).unwrap();
            received.push(v.get("method").and_then(|m| m.as_str()).map(str::to_owned));
        }
        transport.close().await.unwrap();
        drop(transport);
        let mut written = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut client_in, &mut written).await.unwrap();
        (received, written)
    }

    #[tokio::test]
    async fn skips_malformed_json_and_keeps_reading() {
        let input = b"{not json\n\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n".to_vec();
        let (received, written) = roundtrip(input, 1024).await;
        assert_eq!(received, vec![Some("ping".to_owned())]);
        assert_eq!(written, "", "no reply to input that is not JSON");
    }

    #[tokio::test]
    async fn answers_an_oversized_request_under_its_id_and_keeps_reading() {
        let mut input =
            br#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"x","arguments":{"a":""#.to_vec();
        input.extend(std::iter::repeat_n(b'a', 5000));
        input.extend_from_slice(b"\"}}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
        let (received, written) = roundtrip(input, 1000).await;
        assert_eq!(received, vec![Some("ping".to_owned())]);
        let reply: Value = serde_json::from_str(written.trim()).unwrap();
        assert_eq!(reply["id"], 42);
        assert_eq!(reply["error"]["code"], -32600);
        assert!(reply["error"]["message"].as_str().unwrap().contains("1000 bytes"));
    }

    #[tokio::test]
    async fn oversized_message_without_a_readable_id_is_dropped() {
        let mut input = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"a":""#.to_vec();
        input.extend(std::iter::repeat_n(b'a', ID_SCAN_PREFIX + 10));
        input.extend_from_slice(b"\"},\"id\":5}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
        let (received, written) = roundtrip(input, 1000).await;
        assert_eq!(received, vec![Some("ping".to_owned())]);
        assert_eq!(written, "");
    }

    #[tokio::test]
    async fn finds_an_id_written_after_a_long_param_within_the_scan_window() {
        let mut input = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"a":""#.to_vec();
        input.extend(std::iter::repeat_n(b'a', 5000));
        input.extend_from_slice(b"\"},\"id\":5}\n");
        let (_, written) = roundtrip(input, 1000).await;
        let reply: Value = serde_json::from_str(written.trim()).unwrap();
        assert_eq!(reply["id"], 5);
    }

    #[tokio::test]
    async fn answers_a_well_formed_invalid_request_under_its_id() {
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":5}\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/unknown\"}\n".to_vec();
        let (received, written) = roundtrip(input, 1 << 16).await;
        assert!(received.is_empty() || received.iter().all(|m| m.as_deref() != Some("tools/call")));
        let reply: Value = serde_json::from_str(written.lines().next().unwrap()).unwrap();
        assert_eq!(reply["id"], 3);
        assert_eq!(reply["error"]["code"], -32600);
    }
}
