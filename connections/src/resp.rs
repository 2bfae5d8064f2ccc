//! The few RESP (Redis protocol) commands the redis check and the redis
//! connection test send, spoken directly rather than through a Redis client.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

/// Why a command failed. `Server` carries the server's own error reply.
#[derive(Debug, thiserror::Error)]
pub enum RespError {
    #[error("redis {command}: {source}")]
    Io {
        command: String,
        source: std::io::Error,
    },
    #[error("redis {command}: the server closed the connection")]
    Closed { command: String },
    #[error("redis {command}: {message}")]
    Server { command: String, message: String },
    #[error("redis {command}: unexpected reply {reply:?}")]
    Unexpected { command: String, reply: String },
}

/// One connection to a Redis server.
pub struct Resp<S> {
    conn: BufReader<S>,
}

impl<S: AsyncRead + AsyncWrite + Unpin> Resp<S> {
    pub fn new(stream: S) -> Self {
        Self {
            conn: BufReader::new(stream),
        }
    }

    /// Sends one command and reads a simple, integer or bulk reply (an empty
    /// string for a null bulk); an error reply is `RespError::Server`.
    pub async fn command(&mut self, args: &[&str]) -> Result<String, RespError> {
        let name = args.first().copied().unwrap_or_default().to_owned();
        let io = |source| RespError::Io {
            command: name.clone(),
            source,
        };
        let mut frame = format!("*{}\r\n", args.len());
        for arg in args {
            frame.push_str(&format!("${}\r\n{arg}\r\n", arg.len()));
        }
        let stream = self.conn.get_mut();
        stream.write_all(frame.as_bytes()).await.map_err(io)?;
        stream.flush().await.map_err(io)?;
        let mut line = String::new();
        if self.conn.read_line(&mut line).await.map_err(io)? == 0 {
            return Err(RespError::Closed { command: name });
        }
        let line = line.trim_end_matches(['\r', '\n']);
        match line.split_at_checked(1) {
            Some(("+", text)) | Some((":", text)) => Ok(text.to_owned()),
            Some(("-", message)) => Err(RespError::Server {
                command: name,
                message: message.to_owned(),
            }),
            Some(("$", len)) => {
                let Ok(len) = usize::try_from(len.parse::<i64>().unwrap_or(-1)) else {
                    return Ok(String::new());
                };
                let mut value = vec![0; len + 2];
                self.conn.read_exact(&mut value).await.map_err(io)?;
                value.truncate(len);
                Ok(String::from_utf8_lossy(&value).into_owned())
            }
            _ => Err(RespError::Unexpected {
                command: name,
                reply: line.to_owned(),
            }),
        }
    }
}
