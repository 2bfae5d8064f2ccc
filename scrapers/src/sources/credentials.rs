//! Credentials of sources: `EnvVar` values and named connections, resolved
//! through the context's lookup as checks resolve them, and kept out of errors.

use quarterdeck_checks::Connection;
use quarterdeck_crds::common::EnvVar;

use crate::model::ScrapeError;
use crate::run::Context;

/// The connection `reference` names: `connection://namespace/name`,
/// `namespace/name`, or a name in the scraper's namespace.
pub(crate) async fn connection(ctx: &Context, reference: &str) -> Result<Connection, ScrapeError> {
    let name = reference
        .strip_prefix("connection://")
        .unwrap_or(reference)
        .trim_matches('/');
    let (namespace, name) = name
        .split_once('/')
        .unwrap_or((ctx.namespace.as_str(), name));
    if name.is_empty() {
        return Err(ScrapeError::Spec {
            field: "connection".into(),
            message: format!("{reference:?} names no connection"),
        });
    }
    ctx.lookup
        .connection(namespace, name)
        .await
        .map_err(|e| ScrapeError::Source(format!("connection {namespace}/{name}: {e}")))
}

/// The value of `var` in the scraper's namespace.
pub(crate) async fn env_var(ctx: &Context, var: &EnvVar) -> Result<String, ScrapeError> {
    ctx.lookup
        .env_var(&ctx.namespace, var)
        .await
        .map_err(|e| ScrapeError::Source(e.to_string()))
}

/// `text` with every secret value replaced by `***`.
pub(crate) fn scrub<'a>(text: &str, secrets: impl IntoIterator<Item = &'a str>) -> String {
    secrets
        .into_iter()
        .filter(|s| !s.is_empty())
        .fold(text.to_owned(), |text, secret| text.replace(secret, "***"))
}
