//! `initialize` answered before the async runtime exists: [`early_initialize`] reads and answers
//! the first line on the main thread, [`after_early_start`] builds the transport that goes on
//! from there. A child of the stdio transport, whose own `take` and `translate` it reuses so
//! that the early answer is the transport's answer, byte for byte.

use rmcp::{
    ServerHandler,
    model::{ClientRequest, JsonRpcMessage, ServerJsonRpcMessage, ServerResult},
};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, Chain};

use super::{StdioTransport, Taken, message_text, translate};

/// What [`early_initialize`] read from stdin, and the answer it wrote, for the transport that
/// takes over ([`after_early_start`]).
#[derive(Debug, Default)]
pub struct EarlyStart {
    /// Every byte read from stdin, which the transport reads again before stdin.
    pub read: Vec<u8>,
    /// The answer to `initialize` written to stdout (without its newline), if one was.
    pub answered: Option<Vec<u8>>,
}

/// The most [`early_initialize`] reads while looking for the end of the first line.
const EARLY_READ_LIMIT: usize = 64 * 1024;

/// The most each of its reads asks for.
const EARLY_READ_CHUNK: usize = 16 * 1024;

/// What [`early_initialize`] reads from.
pub trait EarlyInput {
    /// Appends what one read gives to `buf` (`chunk` bytes at most, or what is left of the room
    /// `buf` had beyond its length if that is more); `Ok(0)` at end of input.
    fn read_appending(&mut self, buf: &mut Vec<u8>, chunk: usize) -> std::io::Result<usize>;
}

/// Any reader, into a zeroed chunk of `buf`.
impl<R: std::io::Read> EarlyInput for R {
    fn read_appending(&mut self, buf: &mut Vec<u8>, chunk: usize) -> std::io::Result<usize> {
        let start = buf.len();
        buf.resize(start + chunk, 0);
        let read = self.read(&mut buf[start..]);
        buf.truncate(start + *read.as_ref().unwrap_or(&0));
        read
    }
}

/// This process's standard input, as [`crate::platform::read_stdin_appending`] reads it:
/// nothing held back from the async pipes that read stdin afterwards, and (on Unix) no page of
/// the buffer written but by the kernel's copy.
pub struct Stdin;

impl EarlyInput for Stdin {
    fn read_appending(&mut self, buf: &mut Vec<u8>, chunk: usize) -> std::io::Result<usize> {
        crate::platform::read_stdin_appending(buf, chunk)
    }
}

/// Answers the client's `initialize` before the async runtime exists.
///
/// A client waits for this answer before it sends anything else, and the answer needs nothing
/// of the runtime, of rmcp's serve loop or of the pipes: only the flags and the handler's
/// `get_info`. So a start reads stdin (blocking) to the end of the first line; when that line
/// is an `initialize` that this transport hands to rmcp, and rmcp's handler accepts it, the
/// answer is rendered by the transport's own code (the client's id byte for byte, the version
/// negotiation of rmcp's `negotiate_initialize`) and written at once; the runtime, rmcp and the
/// pipes start while the client reads it. Anything else (a `ping`, a 2026-07-28 request, text
/// that is not JSON, a batch, an `initialize` rmcp refuses, a first line over 64 KiB or over
/// `--max-message-bytes`, end of input) is answered as before, once the runtime runs. Either
/// way every byte read goes on to the transport, which takes the line exactly as it would have
/// (rmcp records the client's capabilities, the session its revision) and does not write
/// rmcp's answer to it a second time.
pub fn early_initialize<S: ServerHandler>(
    server: &S,
    max_message_bytes: usize,
    input: &mut impl EarlyInput,
    output: &mut impl std::io::Write,
) -> EarlyStart {
    let mut start = EarlyStart::default();
    let mut searched = 0;
    let line_end = loop {
        if let Some(i) = start.read[searched..].iter().position(|b| *b == b'\n') {
            break searched + i + 1;
        }
        searched = start.read.len();
        if searched >= EARLY_READ_LIMIT {
            return start;
        }
        match input.read_appending(&mut start.read, EARLY_READ_CHUNK) {
            Ok(0) => return start,
            Ok(_) => {}
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => {
                tracing::debug!(%error, "reading stdin before the runtime; the transport reads on");
                return start;
            }
        }
    };
    if line_end > max_message_bytes.max(1) {
        return start;
    }
    let Some(answer) = early_answer(server, max_message_bytes, message_text(&start.read[..line_end])) else {
        return start;
    };
    let mut line = answer.clone();
    line.push(b'\n');
    match output.write_all(&line).and_then(|()| output.flush()) {
        Ok(()) => {
            tracing::debug!("answered initialize before the runtime started");
            start.answered = Some(answer);
        }
        // Nothing reaches a client whose stdout is gone; rmcp's own write will fail the same way.
        Err(error) => tracing::debug!(%error, "could not write the early initialize answer"),
    }
    start
}

/// The answer the transport and rmcp would give to `text` if it is an `initialize` they accept.
fn early_answer<S: ServerHandler>(server: &S, max_message_bytes: usize, text: &[u8]) -> Option<Vec<u8>> {
    if text.is_empty() || text.first() == Some(&b'[') {
        return None;
    }
    // The transport's own decision on the line, and its own rendering of the answer.
    let mut probe = StdioTransport::new(tokio::io::empty(), tokio::io::sink(), max_message_bytes);
    let Taken::Message(message) = probe.take(text, None) else {
        return None;
    };
    let JsonRpcMessage::Request(request) = *message else {
        return None;
    };
    let ClientRequest::InitializeRequest(initialize) = &request.request else {
        return None;
    };
    let result = server.negotiate_initialize(&initialize.params).ok()?;
    let answer = ServerJsonRpcMessage::response(ServerResult::InitializeResult(result), request.id);
    translate(&probe.session, &answer).ok().flatten()
}

/// The transport that takes over from [`early_initialize`]: it reads what that read before it
/// reads `reader`, and does not write rmcp's answer to `initialize` when it was written already.
pub fn after_early_start<R, W>(
    reader: R,
    writer: W,
    max_message_bytes: usize,
    early: EarlyStart,
) -> StdioTransport<Chain<std::io::Cursor<Vec<u8>>, R>, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let mut transport = StdioTransport::new(std::io::Cursor::new(early.read).chain(reader), writer, max_message_bytes);
    transport.early_answer = early.answered;
    transport
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    /// A reader that gives at most `chunk` bytes a read, as a pipe may.
    struct Chunked<'a> {
        data: &'a [u8],
        chunk: usize,
    }

    impl std::io::Read for Chunked<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.chunk.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn early_server() -> crate::McpServer {
        let identity = crate::ServerIdentity {
            name: "early".into(),
            version: "1.2.3".into(),
            title: Some("Early".into()),
            website_url: Some("https://example.com/early".into()),
            instructions: "Use it \"early\" — ünïcode".into(),
        };
        crate::McpServer::new(identity, crate::ToolRegistry::new())
    }

    /// What a client reads from a server given `input` (then end of input), each line; with
    /// `early`, from a start that answers `initialize` before serving, reading `chunk` bytes at
    /// a time. Also whether the early answer was written.
    async fn transcript(input: &[u8], early: bool, chunk: usize, max: usize) -> (Vec<String>, bool) {
        use rmcp::ServiceExt as _;
        let server = early_server();
        let mut written = Vec::new();
        let mut reader = Chunked { data: input, chunk };
        let start =
            if early { early_initialize(&server, max, &mut reader, &mut written) } else { EarlyStart::default() };
        let answered = start.answered.is_some();
        if let Some(answer) = &start.answered {
            let mut line = answer.clone();
            line.push(b'\n');
            assert_eq!(written, line, "what was written is the answer recorded");
        } else {
            assert!(written.is_empty(), "nothing is written without an early answer");
        }
        let (server_out, client_in) = tokio::io::duplex(1 << 20);
        let transport = after_early_start(std::io::Cursor::new(reader.data.to_vec()), server_out, max, start);
        let collect = tokio::spawn(async move {
            let mut out = Vec::new();
            let mut client_in = client_in;
            tokio::io::AsyncReadExt::read_to_end(&mut client_in, &mut out).await.unwrap();
            out
        });
        if let Ok(running) = server.serve(transport).await {
            let _ = running.waiting().await;
        }
        written.extend(collect.await.unwrap());
        let text = String::from_utf8(written).unwrap();
        (text.lines().map(str::to_owned).collect(), answered)
    }

    fn initialize_line(id: &str, version: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{"roots":{{"listChanged":true}}}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
        )
    }

    #[tokio::test]
    async fn the_early_answer_is_the_answer_rmcp_gives_and_comes_once() {
        let rest = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}\n";
        let batch = "[{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}]\n";
        let mut cases: Vec<(String, bool)> = Vec::new();
        for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "1999-01-01"] {
            for id in ["0", "\"s-1\"", "18446744073709551616", "-3", "\"\\u00e9\""] {
                cases.push((format!("{}\n{rest}{batch}", initialize_line(id, version)), true));
            }
        }
        let init = initialize_line("1", "2025-11-25");
        // What the transport takes the same way, with its line end, byte order mark and blanks.
        cases.push((format!("\u{feff}  {init} \r\n{rest}"), true));
        // A last line without its newline is answered, but only once the runtime runs: the early
        // read waits for a newline.
        cases.push((init.clone(), false));
        // Not an `initialize` the transport hands to rmcp: answered once the runtime runs.
        let not_early = [
            format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}}\n{init}\n{rest}"),
            format!("\n{init}\n{rest}"),
            format!("[{init}]\n{init}\n{rest}"),
            format!("{{not json\n{init}\n{rest}"),
            format!("{}\n{init}\n{rest}", init.replace("\"id\":1", "\"id\":null")),
            format!("{}\n{init}\n{rest}", init.replace("\"id\":1", "\"id\":true")),
            format!("{}\n{rest}", init.replace("\"clientInfo\"", "\"clientInfoo\"")),
            format!("{}\n{rest}", init.replace("\"jsonrpc\":\"2.0\"", "\"jsonrpc\":\"1.0\"")),
            format!("{}\n{rest}", init.replace("\"protocolVersion\":\"2025-11-25\"", "\"protocolVersion\":5")),
            format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}}\n{init}\n{rest}"),
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{{\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{{}},\"io.modelcontextprotocol/clientInfo\":{{\"name\":\"c\",\"version\":\"1\"}}}}}}}}\n{rest}"
            ),
            format!("{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}\n{init}\n{rest}"),
            // Cut short by the end of input.
            init[..init.len() - 3].to_owned(),
            String::new(),
        ];
        cases.extend(not_early.into_iter().map(|input| (input, false)));
        for (input, early) in cases {
            let (plain, answered) = transcript(input.as_bytes(), false, usize::MAX, 1 << 20).await;
            assert!(!answered);
            for chunk in [1, 7, usize::MAX] {
                let (fast, answered) = transcript(input.as_bytes(), true, chunk, 1 << 20).await;
                assert_eq!(answered, early, "early answer for {input:?}\n{fast:#?}");
                assert_eq!(fast, plain, "the same transcript for {input:?}");
            }
            if early {
                let first: Value = serde_json::from_str(&plain[0]).unwrap();
                assert_eq!(first["result"]["serverInfo"]["name"], "early", "{input:?}: {first}");
                assert_eq!(plain.iter().filter(|l| l.contains("\"serverInfo\"")).count(), 1, "{plain:#?}");
            }
        }
    }

    #[tokio::test]
    async fn a_first_line_over_the_limits_is_left_to_the_transport() {
        let init = initialize_line("1", "2025-11-25");
        // Over --max-message-bytes: the transport's refusal, once the runtime runs.
        let input = format!("{init}\n");
        let (plain, _) = transcript(input.as_bytes(), false, usize::MAX, 64).await;
        let (fast, answered) = transcript(input.as_bytes(), true, usize::MAX, 64).await;
        assert!(!answered);
        assert_eq!(fast, plain);
        assert!(plain[0].contains("--max-message-bytes"), "{plain:?}");
        // A first line longer than the early read's limit, within --max-message-bytes.
        let long = init.replace("\"c\"", &format!("\"{}\"", "c".repeat(EARLY_READ_LIMIT)));
        let input = format!("{long}\n");
        let (plain, _) = transcript(input.as_bytes(), false, usize::MAX, 1 << 20).await;
        let (fast, answered) = transcript(input.as_bytes(), true, 4096, 1 << 20).await;
        assert!(!answered);
        assert_eq!(fast, plain);
        assert!(plain[0].contains("\"serverInfo\""), "{plain:?}");
    }
}
