//! The stdio transport with JSON-RPC's parse errors: rmcp drops a line that is not JSON without a
//! word, so a client that sent one waits for nothing. Here every line from stdin is checked
//! first: JSON goes on to rmcp, anything else (not JSON, not UTF-8) is answered at once with the
//! JSON-RPC 2.0 parse error (`-32700`, `id` null; JSON-RPC 2.0 §5.1). rmcp's replies and those
//! errors reach stdout whole lines at a time, never interleaved.

use tokio::io::{AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

/// Bytes buffered between stdin/stdout and rmcp.
const PIPE_BYTES: usize = 1 << 16;

/// Parse errors waiting for stdout; past them, reading stdin waits for the client to read.
const PARSE_ERRORS_HELD: usize = 64;

/// The JSON-RPC parse error for an unparsable line, as one line of JSON.
pub fn parse_error(reason: &str) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": -32700, "message": format!("Parse error: {reason}")}
    })
    .to_string()
}

/// rmcp's ends of the transport: what it reads (checked lines from stdin) and what it writes (to
/// stdout). Two tasks pump the real stdin and stdout until stdin ends.
pub fn checked_stdio() -> (DuplexStream, DuplexStream) {
    let (mut to_rmcp, rmcp_reads) = tokio::io::duplex(PIPE_BYTES);
    let (rmcp_writes, from_rmcp) = tokio::io::duplex(PIPE_BYTES);
    let (errors_tx, mut errors_rx) = mpsc::channel::<String>(PARSE_ERRORS_HELD);
    tokio::spawn(async move {
        let mut stdin = BufReader::new(tokio::io::stdin());
        let mut line = Vec::new();
        loop {
            line.clear();
            match stdin.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<serde_json::Value>(&line) {
                Ok(_) => {
                    if !line.ends_with(b"\n") {
                        line.push(b'\n');
                    }
                    if to_rmcp.write_all(&line).await.is_err() {
                        break;
                    }
                }
                Err(e) => {
                    if errors_tx.send(parse_error(&e.to_string())).await.is_err() {
                        break;
                    }
                }
            }
        }
        // Dropping `to_rmcp` ends rmcp's input: the server stops, as when the client closes.
    });
    tokio::spawn(async move {
        let mut replies = BufReader::new(from_rmcp).lines();
        let mut stdout = tokio::io::stdout();
        let mut errors_open = true;
        loop {
            // Parse errors first: each was queued when its line was read, before any line after
            // it reached rmcp, so a reply to a later request never overtakes it.
            let line = tokio::select! {
                biased;
                error = errors_rx.recv(), if errors_open => match error {
                    Some(l) => l,
                    None => { errors_open = false; continue; }
                },
                reply = replies.next_line() => match reply {
                    Ok(Some(l)) => l,
                    _ => break,
                },
            };
            if write_line(&mut stdout, &line).await.is_err() {
                break;
            }
        }
    });
    (rmcp_reads, rmcp_writes)
}

async fn write_line<W: AsyncWrite + Unpin>(out: &mut W, line: &str) -> std::io::Result<()> {
    out.write_all(line.as_bytes()).await?;
    out.write_all(b"\n").await?;
    out.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parse_error_names_no_request() {
        let v: serde_json::Value =
            serde_json::from_str(&parse_error("expected value")).unwrap_or_default();
        assert_eq!(v["id"], serde_json::Value::Null);
        assert_eq!(v["error"]["code"], -32700);
        assert_eq!(v["error"]["message"], "Parse error: expected value");
    }
}
