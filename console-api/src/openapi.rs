//! The OpenAPI document of the console API, served at `/api/openapi.json`
//! and committed as `console-api/openapi.json` (a test fails on drift; the
//! web client is generated from the committed copy). Its paths and schemas
//! come from the handlers the router registers ([`crate::routes::api`]);
//! this module adds the document's title, and the answer every operation
//! that reads the database may give while it is away.

use std::sync::LazyLock;

use axum::http::header;
use axum::response::IntoResponse;
use utoipa::OpenApi;

#[derive(OpenApi)]
#[openapi(info(
    title = "Quarterdeck console API",
    description = "The HTTP API of the Quarterdeck console. A JSON body holding a NUL character (\\u0000) anywhere, in a key or a string, is refused with 400 naming the field: stored text cannot hold one."
))]
pub(crate) struct Info;

/// The document as committed: pretty JSON with a final newline.
static DOCUMENT: LazyLock<String> = LazyLock::new(|| {
    let (_, mut openapi) = crate::routes::api().split_for_parts();
    document_unavailable(&mut openapi);
    let mut text = openapi.to_pretty_json().unwrap_or_default();
    text.push('\n');
    text
});

/// This document.
#[utoipa::path(get, path = "/api/openapi.json", tag = "meta",
    responses((status = 200, description = "The OpenAPI document", content_type = "application/json", body = Object)))]
#[tracing::instrument]
pub(crate) async fn openapi_json() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/json")],
        DOCUMENT.as_str(),
    )
}

/// The document as committed.
pub fn document() -> String {
    DOCUMENT.clone()
}

/// Operations that never touch the database.
const WITHOUT_DATABASE: &[&str] = &["/livez", "/api/openapi.json"];

/// Adds the 503 a database away answers (decision 105.3) to every operation
/// that does not document its own: the body is the operation's own error
/// shape (the data API's for its relations), with `Retry-After`.
fn document_unavailable(openapi: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    use utoipa::openapi::{ContentBuilder, HeaderBuilder, Ref, RefOr, ResponseBuilder};
    for (path, item) in openapi.paths.paths.iter_mut() {
        if WITHOUT_DATABASE.contains(&path.as_str()) {
            continue;
        }
        let operations = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
        ];
        for operation in operations.into_iter().flatten() {
            let responses = &mut operation.responses.responses;
            if responses.contains_key("503") {
                continue;
            }
            let error_shape =
                ["401", "400"]
                    .iter()
                    .find_map(|code| match responses.get(*code) {
                        Some(RefOr::T(response)) => response
                            .content
                            .get("application/json")
                            .and_then(|content| match content {
                                RefOr::T(content) => content.schema.clone(),
                                RefOr::Ref(_) => None,
                            }),
                        _ => None,
                    })
                    .unwrap_or_else(|| RefOr::Ref(Ref::from_schema_name("ErrorBody")));
            let response = ResponseBuilder::new()
                .description(format!(
                    "The database is unavailable (EUNAVAILABLE, or PGRST001 from the data API): retry after `Retry-After` seconds ({})",
                    quarterdeck_store::RETRY_AFTER_SECONDS
                ))
                .header(
                    "Retry-After",
                    HeaderBuilder::new()
                        .schema(Some(ObjectBuilder::new().schema_type(Type::Integer)))
                        .description(Some("Seconds to wait before retrying"))
                        .build(),
                )
                .content(
                    "application/json",
                    ContentBuilder::new().schema(Some(error_shape)).build(),
                )
                .build();
            responses.insert("503".into(), RefOr::T(response));
        }
    }
}
