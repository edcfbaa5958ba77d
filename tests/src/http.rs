//! A minimal blocking HTTP/1.1 client for MCP's Streamable HTTP transport, for the HTTP load
//! benchmark (`mcp-http-load`) and tests: one keep-alive connection, one MCP session on it
//! (`initialize` → `Mcp-Session-Id`, `notifications/initialized`), then `tools/call` after
//! `tools/call` on the same socket.
//!
//! Hand-written on `std::net::TcpStream` on purpose: no runtime and no HTTP stack of its own to
//! measure, `TCP_NODELAY` set like any latency-minded client, and it reads exactly what a server
//! sends (a JSON body or a `text/event-stream` one; `Content-Length` or chunked).

use std::{
    io::{self, BufRead, BufReader, Write},
    net::{TcpStream, ToSocketAddrs},
    time::Duration,
};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};

use crate::PROTOCOL_VERSION;

/// One HTTP response, its headers lower-cased.
#[derive(Debug, Clone)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked.
    pub body: Vec<u8>,
}

impl Response {
    /// The first value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC messages of the body: the body itself when it is JSON, else every `data:`
    /// line of an event stream that parses as JSON.
    pub fn messages(&self) -> Vec<Value> {
        let text = String::from_utf8_lossy(&self.body);
        if let Ok(value) = serde_json::from_str::<Value>(&text) {
            return match value {
                Value::Array(items) => items,
                other => vec![other],
            };
        }
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect()
    }
}

/// A keep-alive connection to an MCP endpoint, with the session it opened (if the server keeps
/// sessions).
pub struct HttpSession {
    host: String,
    path: String,
    token: Option<String>,
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    /// The `Mcp-Session-Id` the server gave, `None` for a stateless server.
    pub session: Option<String>,
    next_id: u64,
}

impl HttpSession {
    /// Connects to `url` (`http://HOST:PORT/PATH`) and opens an MCP session (`initialize`,
    /// `notifications/initialized`).
    pub fn open(url: &str, token: Option<&str>, timeout: Duration) -> Result<HttpSession> {
        let mut session = HttpSession::connect(url, token, timeout)?;
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "mcp-http-load", "version": env!("CARGO_PKG_VERSION")},
        });
        let response = session.post(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}))?;
        if response.status != 200 {
            bail!("initialize: HTTP {} {}", response.status, String::from_utf8_lossy(&response.body));
        }
        session.session = response.header("mcp-session-id").map(str::to_owned);
        let answer = response.messages().into_iter().find(|m| m["id"] == 0);
        if answer.as_ref().and_then(|m| m.get("result")).is_none() {
            bail!("initialize: no result in {}", String::from_utf8_lossy(&response.body));
        }
        let response = session.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        if !(200..300).contains(&response.status) {
            bail!("notifications/initialized: HTTP {}", response.status);
        }
        Ok(session)
    }

    /// A connection without a session yet.
    pub fn connect(url: &str, token: Option<&str>, timeout: Duration) -> Result<HttpSession> {
        let rest = url.strip_prefix("http://").ok_or_else(|| anyhow!("`{url}` is not an http:// URL"))?;
        let (host, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let addr = host.to_socket_addrs()?.next().ok_or_else(|| anyhow!("`{host}` resolves to nothing"))?;
        let stream = TcpStream::connect_timeout(&addr, timeout).with_context(|| format!("connecting to {host}"))?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(timeout))?;
        stream.set_write_timeout(Some(timeout))?;
        Ok(HttpSession {
            host: host.to_owned(),
            path: path.to_owned(),
            token: token.map(str::to_owned),
            reader: BufReader::new(stream.try_clone()?),
            writer: stream,
            session: None,
            next_id: 1,
        })
    }

    /// Calls tool `name` with `arguments`; the JSON-RPC response message.
    pub fn call_tool(&mut self, name: &str, arguments: &Value) -> Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}});
        let response = self.post(&request)?;
        if response.status != 200 {
            bail!("tools/call: HTTP {} {}", response.status, String::from_utf8_lossy(&response.body));
        }
        response.messages().into_iter().find(|m| m["id"] == id).ok_or_else(|| {
            anyhow!("tools/call: no response with id {id} in {}", String::from_utf8_lossy(&response.body))
        })
    }

    /// Ends the session (`DELETE` with its `Mcp-Session-Id`); the response.
    pub fn delete(&mut self) -> Result<Response> {
        let mut head = format!("DELETE {} HTTP/1.1\r\nHost: {}\r\nContent-Length: 0\r\n", self.path, self.host);
        if let Some(session) = &self.session {
            head.push_str(&format!("Mcp-Session-Id: {session}\r\n"));
        }
        if let Some(token) = &self.token {
            head.push_str(&format!("Authorization: Bearer {token}\r\n"));
        }
        head.push_str("\r\n");
        self.writer.write_all(head.as_bytes())?;
        read_response(&mut self.reader)
    }

    /// POSTs one JSON-RPC message and reads the whole response.
    pub fn post(&mut self, message: &Value) -> Result<Response> {
        self.post_with(message, &[("MCP-Protocol-Version", PROTOCOL_VERSION)])
    }

    /// POSTs one JSON-RPC message with `headers` (e.g. a 2026-07-28 request's
    /// `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`) and reads the whole response.
    pub fn post_with(&mut self, message: &Value, headers: &[(&str, &str)]) -> Result<Response> {
        let body = serde_json::to_vec(message)?;
        let mut head = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
            self.path,
            self.host,
            body.len()
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        if let Some(session) = &self.session {
            head.push_str(&format!("Mcp-Session-Id: {session}\r\n"));
        }
        if let Some(token) = &self.token {
            head.push_str(&format!("Authorization: Bearer {token}\r\n"));
        }
        head.push_str("\r\n");
        let mut request = head.into_bytes();
        request.extend_from_slice(&body);
        self.writer.write_all(&request)?;
        read_response(&mut self.reader)
    }
}

/// Reads one HTTP/1.1 response (status line, headers, body by `Content-Length`, chunked, or to
/// the end of the connection).
pub fn read_response(reader: &mut impl BufRead) -> Result<Response> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        bail!("the server closed the connection");
    }
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| anyhow!("not an HTTP status line: {line:?}"))?;
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let trimmed = line.trim_end();
        if trimmed.is_empty() {
            break;
        }
        if let Some((name, value)) = trimmed.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let find = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    let mut body = Vec::new();
    if find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            line.clear();
            reader.read_line(&mut line)?;
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .map_err(|_| anyhow!("bad chunk size {line:?}"))?;
            if size == 0 {
                // trailers, up to the empty line
                loop {
                    line.clear();
                    if reader.read_line(&mut line)? == 0 || line.trim_end().is_empty() {
                        break;
                    }
                }
                break;
            }
            let start = body.len();
            body.resize(start + size, 0);
            reader.read_exact(&mut body[start..])?;
            line.clear();
            reader.read_line(&mut line)?;
        }
    } else if let Some(length) = find("content-length") {
        let length: usize = length.parse().map_err(|_| anyhow!("bad Content-Length {length:?}"))?;
        body.resize(length, 0);
        reader.read_exact(&mut body)?;
    } else if status != 204 && status != 304 && !(100..200).contains(&status) {
        match reader.read_to_end(&mut body) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock || e.kind() == io::ErrorKind::TimedOut => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(Response { status, headers, body })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_chunked_event_streams_and_json_bodies() {
        let raw = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n\
                    1c\r\ndata: {\"id\":1,\"result\":{}}\n\n\r\n0\r\n\r\n\
                    HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n\
                    HTTP/1.1 200 OK\r\nContent-Length: 16\r\n\r\n{\"id\":2,\"x\":[1]}";
        let mut reader = BufReader::new(&raw[..]);
        let first = read_response(&mut reader).unwrap();
        assert_eq!(first.status, 200);
        assert_eq!(first.messages(), vec![json!({"id": 1, "result": {}})]);
        let second = read_response(&mut reader).unwrap();
        assert_eq!((second.status, second.body.len()), (202, 0));
        let third = read_response(&mut reader).unwrap();
        assert_eq!(third.header("content-length"), Some("16"));
        assert_eq!(third.messages(), vec![json!({"id": 2, "x": [1]})]);
        assert!(read_response(&mut reader).is_err(), "the end of the stream is an error");
    }
}
