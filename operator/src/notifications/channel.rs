//! A connection named by a notification or a playbook, resolved into a
//! channel `quarterdeck_connections::notify` sends through.

use quarterdeck_connections::Resolved;
use quarterdeck_connections::notify;

/// The notification connection `reference` names (`connection://namespace/name`,
/// `namespace/name`, or a name in `namespace`); `field` names it in errors.
pub(crate) async fn named(
    lookup: &dyn quarterdeck_checks::Lookup,
    reference: &str,
    namespace: &str,
    field: &str,
) -> Result<Resolved, String> {
    let name = reference
        .strip_prefix("connection://")
        .unwrap_or(reference)
        .trim_matches('/');
    let (namespace, name) = name.split_once('/').unwrap_or((namespace, name));
    let found = lookup
        .connection(namespace, name)
        .await
        .map_err(|e| format!("{field}: {e}"))?;
    if !notify::is_notification_type(&found.kind) {
        return Err(format!(
            "{field}: {namespace}/{name} is a {} connection, not a notification channel",
            if found.kind.is_empty() {
                "typeless"
            } else {
                found.kind.as_str()
            }
        ));
    }
    Ok(Resolved {
        kind: found.kind,
        name: format!("{namespace}/{name}"),
        url: found.url,
        username: found.username,
        password: found.password,
        certificate: found.certificate,
        insecure_tls: found.insecure_tls,
        properties: found.properties,
    })
}
