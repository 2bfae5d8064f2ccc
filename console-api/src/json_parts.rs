//! A JSON response body of a few parts sent as they are, so a large part
//! kept for reuse (the health summary's rows) goes out without being copied
//! into one buffer. Its length is known, so it is sent with one.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Bytes;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use http_body::{Frame, SizeHint};

#[derive(Clone, Default)]
pub struct JsonParts(VecDeque<Bytes>);

impl JsonParts {
    pub fn push(&mut self, part: impl Into<Bytes>) {
        self.0.push_back(part.into());
    }
}

impl http_body::Body for JsonParts {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(self.0.pop_front().map(|part| Ok(Frame::data(part))))
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.0.iter().map(|part| part.len() as u64).sum())
    }
}

impl IntoResponse for JsonParts {
    fn into_response(self) -> Response {
        (
            [(header::CONTENT_TYPE, "application/json")],
            axum::body::Body::new(self),
        )
            .into_response()
    }
}
