//! Reads tried again while the database is away: after a restart or a
//! failover the pool's first statement on each connection that died with
//! the old server fails, and a read that fails that way is safe to repeat.

use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::Response;

/// Set on a response that failed only because the database was away
/// (decision 105.3), so that a read may be tried again.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DatabaseAway;

/// Pauses before each further try of a read.
const PAUSES: [Duration; 2] = [Duration::from_millis(200), Duration::from_millis(400)];

/// Runs a GET or HEAD again, up to twice, when its answer says the database
/// was away; other methods are answered as they are (the 503 says to retry).
pub(crate) async fn reads_again(request: Request, next: Next) -> Response {
    let bodiless = !request.headers().contains_key(header::TRANSFER_ENCODING)
        && request
            .headers()
            .get(header::CONTENT_LENGTH)
            .is_none_or(|length| length == "0");
    if !matches!(*request.method(), Method::GET | Method::HEAD) || !bodiless {
        return next.run(request).await;
    }
    let (parts, _) = request.into_parts();
    let mut response = next
        .clone()
        .run(Request::from_parts(parts.clone(), Body::empty()))
        .await;
    for pause in PAUSES {
        if response.extensions().get::<DatabaseAway>().is_none() {
            break;
        }
        tokio::time::sleep(pause).await;
        tracing::debug!(uri = %parts.uri, "the database was away; reading again");
        response = next
            .clone()
            .run(Request::from_parts(parts.clone(), Body::empty()))
            .await;
    }
    response
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use axum::Router;
    use axum::http::StatusCode;
    use axum::routing::get;
    use tower::ServiceExt;

    use super::*;
    use crate::ApiError;

    /// A route whose first `away` answers say the database is away; the
    /// counter counts its calls.
    fn flaky(away: usize) -> (Router, Arc<AtomicUsize>) {
        let calls = Arc::new(AtomicUsize::new(0));
        let counted = calls.clone();
        let handler = move || {
            let calls = counted.clone();
            async move {
                if calls.fetch_add(1, Ordering::SeqCst) < away {
                    Err(ApiError::DatabaseAway)
                } else {
                    Ok("read")
                }
            }
        };
        let app = Router::new()
            .route("/r", get(handler.clone()).post(handler))
            .layer(axum::middleware::from_fn(reads_again));
        (app, calls)
    }

    fn request(method: Method) -> Request {
        Request::builder()
            .method(method)
            .uri("/r")
            .body(Body::empty())
            .unwrap()
    }

    #[tokio::test]
    async fn a_read_is_tried_again_while_the_database_is_away() {
        let (app, calls) = flaky(2);
        let response = app.oneshot(request(Method::GET)).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn a_read_gives_up_after_two_more_tries() {
        let (app, calls) = flaky(usize::MAX);
        let response = app.oneshot(request(Method::GET)).await.unwrap();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(response.headers().contains_key(header::RETRY_AFTER));
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn a_write_is_answered_unavailable_at_once() {
        let (app, calls) = flaky(1);
        let response = app.oneshot(request(Method::POST)).await.unwrap();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }
}
