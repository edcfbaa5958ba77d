//! `mcp-floor-http`: the floor of an MCP server over HTTP, for `bench/floor.sh`.
//!
//! A bare hyper 1 server on a multi-threaded tokio runtime (one worker per core, as `--http`):
//! each connection gets `TCP_NODELAY`, each `POST` body is read whole and parsed with
//! serde_json, and the answer is a fixed `tools/call` result (`{"value":3}`, as sample-tool's
//! `hoge` gives for `x: 1, y: 2`) under the request's `id`. Nothing else: no MCP, no sessions, no
//! checks. What it serves per second is what any Rust server on this stack could at best.
//!
//!     mcp-floor-http 127.0.0.1:8090

use std::{convert::Infallible, net::SocketAddr};

use http_body_util::{BodyExt as _, Full};
use hyper::{Request, Response, body::Bytes, server::conn::http1, service::service_fn};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

async fn answer(request: Request<hyper::body::Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = request.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let id = serde_json::from_slice::<Value>(&body).ok().and_then(|v| v.get("id").cloned()).unwrap_or(Value::Null);
    let reply = json!({"jsonrpc": "2.0", "id": id, "result": {
        "content": [{"type": "text", "text": "{\"value\":3}"}],
        "structuredContent": {"value": 3},
        "isError": false,
    }});
    let mut response = Response::new(Full::new(Bytes::from(reply.to_string())));
    response
        .headers_mut()
        .insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("application/json"));
    Ok(response)
}

/// The floor of an MCP server over HTTP (bench/floor.sh): a bare hyper server answering every
/// POST with a fixed tools/call result.
#[derive(clap::Parser)]
#[command(name = "mcp-floor-http", version)]
struct Cli {
    /// The address to listen on, e.g. 127.0.0.1:8090.
    addr: SocketAddr,
}

fn main() -> anyhow::Result<()> {
    let Cli { addr } = clap::Parser::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        loop {
            let (stream, _) = listener.accept().await?;
            stream.set_nodelay(true)?;
            tokio::spawn(async move {
                let _ = http1::Builder::new()
                    .keep_alive(true)
                    .serve_connection(TokioIo::new(stream), service_fn(answer))
                    .await;
            });
        }
    })
}
