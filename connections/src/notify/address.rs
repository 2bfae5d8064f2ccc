//! A notification URL (shoutrrr's form, as playbooks' `notification.url`
//! and Mission Control's notifications write it) read into the fields of a
//! connection, so it is sent by the same channels. E-mail (`smtp://`) and
//! generic webhooks (`generic://`, `generic+https://`, or a plain `http(s)://`
//! address) are read; other schemes fail saying so.

use percent_encoding::percent_decode_str;
use url::Url;

use super::SendError;
use crate::Resolved;

/// The connection a notification URL describes.
pub fn from_url(address: &str) -> Result<Resolved, SendError> {
    let url = Url::parse(address.trim())
        .map_err(|e| SendError::invalid("url", format!("not a URL: {e}")))?;
    match url.scheme() {
        "smtp" => email(&url),
        "generic" | "generic+http" | "generic+https" | "http" | "https" => generic(url),
        other => Err(SendError::Unsupported(format!(
            "notification URLs of scheme {other}:// are not supported yet (smtp, generic, http and https are); use a connection"
        ))),
    }
}

fn decoded(text: &str) -> String {
    percent_decode_str(text).decode_utf8_lossy().into_owned()
}

/// `smtp://user:password@host:port/?from=...&to=...&fromName=...&encryption=...&auth=...`
/// (shoutrrr's `fromAddress` and `toAddresses` too).
fn email(url: &Url) -> Result<Resolved, SendError> {
    let host = url
        .host_str()
        .filter(|h| !h.is_empty())
        .ok_or_else(|| SendError::invalid("url", "an smtp:// URL needs a host"))?;
    let mut resolved = Resolved {
        kind: "email".into(),
        name: format!("smtp://{host}"),
        username: Some(decoded(url.username())).filter(|u| !u.is_empty()),
        password: url.password().map(decoded),
        ..Resolved::default()
    };
    let properties = &mut resolved.properties;
    properties.insert("host".into(), host.trim_matches(['[', ']']).to_owned());
    properties.insert("port".into(), url.port().unwrap_or(25).to_string());
    for (key, value) in url.query_pairs() {
        let key = match key.to_ascii_lowercase().as_str() {
            "from" | "fromaddress" => "from",
            "to" | "toaddresses" => "to",
            "fromname" => "fromName",
            "encryption" => "encryption",
            "auth" => "auth",
            _ => continue,
        };
        let value = match key {
            "encryption" => canonical(&value, &["None", "ExplicitTLS", "ImplicitTLS", "Auto"]),
            "auth" => canonical(&value, &["None", "Plain", "CRAMMD5", "Unknown", "OAuth2"]),
            _ => value.into_owned(),
        };
        properties.insert(key.into(), value);
    }
    Ok(resolved)
}

/// `value` written as one of `names` when it is one of them in another case.
fn canonical(value: &str, names: &[&str]) -> String {
    names
        .iter()
        .find(|n| n.eq_ignore_ascii_case(value))
        .map_or_else(|| value.to_owned(), |n| (*n).to_owned())
}

/// A generic webhook. `generic://` is HTTPS unless `disabletls=yes`;
/// shoutrrr's own parameters (`contenttype`, `method`/`requestmethod`,
/// `messagekey`, `titlekey`, `disabletls`, `template`) configure the
/// webhook, and every other one stays in the address.
fn generic(mut url: Url) -> Result<Resolved, SendError> {
    let mut resolved = Resolved {
        kind: "generic_webhook".into(),
        ..Resolved::default()
    };
    let mut insecure = false;
    let mut kept = Vec::new();
    for (key, value) in url.query_pairs() {
        let property = match key.to_ascii_lowercase().as_str() {
            "contenttype" => "contentType",
            "method" | "requestmethod" => "method",
            "messagekey" => "messageKey",
            "titlekey" => "titleKey",
            "disabletls" => {
                insecure = matches!(value.to_ascii_lowercase().as_str(), "yes" | "true" | "1");
                continue;
            }
            "template" => continue,
            _ => {
                kept.push((key.into_owned(), value.into_owned()));
                continue;
            }
        };
        resolved
            .properties
            .insert(property.into(), value.into_owned());
    }
    let scheme = match url.scheme() {
        "generic" if insecure => "http",
        "generic" => "https",
        "generic+http" | "http" => "http",
        _ => "https",
    };
    let mut address = format!("{scheme}{}", &url[url::Position::AfterScheme..]);
    if let Some(at) = address.find(['?', '#']) {
        address.truncate(at);
    }
    url = Url::parse(&address).map_err(|e| SendError::invalid("url", format!("not a URL: {e}")))?;
    if !kept.is_empty() {
        url.query_pairs_mut().extend_pairs(kept);
    }
    resolved.name = format!(
        "{scheme}://{}",
        url.host_str().unwrap_or_default().to_owned()
    );
    resolved.url = Some(url.to_string());
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smtp_urls_become_email_fields() {
        let c = from_url(
            "smtp://qd%40example.com:p%40ss@127.0.0.1:2525/?from=qd@example.com&toAddresses=a@x.org,b@x.org&encryption=explicittls&auth=plain&fromName=Quarterdeck",
        )
        .unwrap();
        assert_eq!(c.kind, "email");
        assert_eq!(c.username.as_deref(), Some("qd@example.com"));
        assert_eq!(c.password.as_deref(), Some("p@ss"));
        assert_eq!(c.property("host"), Some("127.0.0.1"));
        assert_eq!(c.property("port"), Some("2525"));
        assert_eq!(c.property("from"), Some("qd@example.com"));
        assert_eq!(c.property("to"), Some("a@x.org,b@x.org"));
        assert_eq!(c.property("encryption"), Some("ExplicitTLS"));
        assert_eq!(c.property("auth"), Some("Plain"));
        assert_eq!(c.property("fromName"), Some("Quarterdeck"));
        assert_eq!(c.name, "smtp://127.0.0.1");
    }

    #[test]
    fn generic_urls_become_webhooks() {
        let c = from_url(
            "generic://hooks.example.com/in/1?contenttype=text/plain&messagekey=text&token=abc",
        )
        .unwrap();
        assert_eq!(c.kind, "generic_webhook");
        assert_eq!(
            c.url.as_deref(),
            Some("https://hooks.example.com/in/1?token=abc")
        );
        assert_eq!(c.property("contentType"), Some("text/plain"));
        assert_eq!(c.property("messageKey"), Some("text"));
        let c = from_url("generic://127.0.0.1:8080/hook?disabletls=yes&method=GET").unwrap();
        assert_eq!(c.url.as_deref(), Some("http://127.0.0.1:8080/hook"));
        assert_eq!(c.property("method"), Some("GET"));
        let c = from_url("generic+http://127.0.0.1:8080/hook").unwrap();
        assert_eq!(c.url.as_deref(), Some("http://127.0.0.1:8080/hook"));
        let c = from_url("http://127.0.0.1:8080/hook?x=1").unwrap();
        assert_eq!(c.url.as_deref(), Some("http://127.0.0.1:8080/hook?x=1"));
    }

    #[test]
    fn other_schemes_say_they_are_not_supported() {
        let error = from_url("slack://token@channel").unwrap_err().to_string();
        assert!(error.contains("slack:// are not supported yet"), "{error}");
        assert!(from_url("not a url").is_err());
    }
}
