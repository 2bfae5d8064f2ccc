//! Waking an engine at once through PostgreSQL's LISTEN/NOTIFY (Run Now,
//! Scrape now); an engine that cannot listen still polls on its schedule.

use sqlx::PgPool;
use sqlx::postgres::PgListener;

/// A listener on `channel`, or `None` (logged, naming `what`) when the
/// database refuses one.
pub(crate) async fn listen(pool: &PgPool, channel: &str, what: &str) -> Option<PgListener> {
    let mut listener = match PgListener::connect_with(pool).await {
        Ok(l) => l,
        Err(e) => {
            tracing::warn!(error = %e, "cannot listen for {what}; polling only");
            return None;
        }
    };
    match listener.listen(channel).await {
        Ok(()) => Some(listener),
        Err(e) => {
            tracing::warn!(error = %e, "cannot listen for {what}; polling only");
            None
        }
    }
}

/// Waits for a notification; false when the listener is gone.
pub(crate) async fn recv(listener: &mut Option<PgListener>) -> bool {
    match listener {
        Some(l) => l.recv().await.is_ok(),
        None => std::future::pending().await,
    }
}
