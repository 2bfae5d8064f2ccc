//! The built web console, served from the same origin as the API: hashed
//! assets cached for a year, every other path answered with `index.html`
//! so client-side routes work on reload.

use std::path::Path;

use axum::Router;
use axum::http::{HeaderValue, header};
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::AppState;

pub fn router(dir: &Path) -> Router<AppState> {
    let index = ServeFile::new(dir.join("index.html"));
    let assets = Router::new()
        .nest_service("/assets", ServeDir::new(dir.join("assets")))
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=31536000, immutable"),
        ));
    let app = Router::new()
        .fallback_service(ServeDir::new(dir).fallback(index))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-cache"),
        ));
    assets.merge(app)
}
