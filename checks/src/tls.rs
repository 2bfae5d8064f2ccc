//! TLS client settings shared by the checks that connect over TLS, and reading
//! a certificate's expiry.

use chrono::{DateTime, NaiveDateTime, Utc};
use quarterdeck_connections::tls;
use quarterdeck_crds::common::EnvVar;
use quarterdeck_crds::schema::JsonObject;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use rustls::{ClientConfig, RootCertStore};
use serde_json::Value;

use crate::error::CheckError;
use crate::secrets::Resolver;

/// `tlsConfig` of a check: `insecureSkipVerify` and `ca` (PEM, inline or an `EnvVar`).
#[derive(Debug, Default)]
pub(crate) struct TlsOptions {
    pub insecure: bool,
    pub ca: Option<String>,
}

impl TlsOptions {
    pub(crate) async fn from_spec(
        spec: Option<&JsonObject>,
        resolver: &Resolver,
    ) -> Result<Self, CheckError> {
        let Some(spec) = spec else {
            return Ok(Self::default());
        };
        let insecure = spec
            .get("insecureSkipVerify")
            .or_else(|| spec.get("insecure"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let ca = match spec.get("ca") {
            None | Some(Value::Null) => None,
            Some(Value::String(pem)) => Some(pem.clone()),
            Some(other) => {
                let var: EnvVar = serde_json::from_value(other.clone())
                    .map_err(|e| CheckError::new(format!("tlsConfig.ca: {e}")))?;
                Some(resolver.value(&var).await?)
            }
        }
        .filter(|pem| !pem.trim().is_empty());
        Ok(Self { insecure, ca })
    }

    /// A rustls configuration using ring: no verification when `insecure`, only
    /// the given CA when there is one, the platform's roots otherwise.
    pub(crate) fn client_config(&self, alpn: &[&[u8]]) -> Result<ClientConfig, CheckError> {
        let config = match &self.ca {
            Some(pem) if !self.insecure => tls::client_config_trusting(roots(pem)?),
            _ => tls::client_config(self.insecure),
        };
        let mut config = config.map_err(|e| CheckError::new(format!("TLS setup: {e}")))?;
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        Ok(config)
    }
}

/// The certificates of a `tlsConfig.ca` PEM bundle.
fn roots(pem: &str) -> Result<RootCertStore, CheckError> {
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(pem.as_bytes()) {
        let cert = cert.map_err(|e| CheckError::new(format!("tlsConfig.ca: {e}")))?;
        roots
            .add(cert)
            .map_err(|e| CheckError::new(format!("tlsConfig.ca: {e}")))?;
    }
    if roots.is_empty() {
        return Err(CheckError::new("tlsConfig.ca holds no PEM certificate"));
    }
    Ok(roots)
}

/// `notAfter` of a DER certificate.
///
/// A small DER walk (Certificate → TBSCertificate → Validity) rather than an
/// X.509 crate: this is the only field any check needs.
pub(crate) fn not_after(der: &[u8]) -> Option<DateTime<Utc>> {
    let (certificate, _) = element(der, 0x30)?;
    let (tbs, _) = element(certificate, 0x30)?;
    let mut rest = tbs;
    let (tag, _, after) = tlv(rest)?;
    if tag == 0xA0 {
        rest = after; // explicit version
    }
    for _ in 0..3 {
        // serialNumber, signature, issuer
        rest = tlv(rest)?.2;
    }
    let (validity, _) = element(rest, 0x30)?;
    let not_before_rest = tlv(validity)?.2;
    let (tag, time, _) = tlv(not_before_rest)?;
    let text = std::str::from_utf8(time).ok()?;
    let full = match tag {
        0x17 => {
            // UTCTime: YY < 50 is 20YY (RFC 5280 4.1.2.5.1).
            let year: u32 = text.get(..2)?.parse().ok()?;
            format!("{}{text}", if year < 50 { "20" } else { "19" })
        }
        0x18 => text.to_owned(),
        _ => return None,
    };
    let naive = NaiveDateTime::parse_from_str(&full, "%Y%m%d%H%M%SZ").ok()?;
    Some(naive.and_utc())
}

/// The element at the start of `input` if its tag is `want`: (content, what follows).
fn element(input: &[u8], want: u8) -> Option<(&[u8], &[u8])> {
    let (tag, content, rest) = tlv(input)?;
    (tag == want).then_some((content, rest))
}

/// One DER element: (tag, content, what follows).
fn tlv(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, input) = input.split_first()?;
    let (&first, mut input) = input.split_first()?;
    let len = if first < 0x80 {
        usize::from(first)
    } else {
        let count = usize::from(first & 0x7f);
        if count == 0 || count > 4 {
            return None;
        }
        let (bytes, rest) = input.split_at_checked(count)?;
        input = rest;
        bytes.iter().fold(0usize, |n, b| (n << 8) | usize::from(*b))
    };
    let (content, rest) = input.split_at_checked(len)?;
    Some((tag, content, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_not_after_of_a_generated_certificate() {
        let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
        params.not_after = rcgen::date_time_ymd(2031, 3, 4);
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = params.self_signed(&key).unwrap();
        let expiry = not_after(cert.der()).unwrap();
        assert_eq!(expiry.to_rfc3339(), "2031-03-04T00:00:00+00:00");
        // GeneralizedTime is used from 2050 on.
        params.not_after = rcgen::date_time_ymd(2051, 1, 2);
        let cert = params.self_signed(&key).unwrap();
        assert_eq!(
            not_after(cert.der()).unwrap().to_rfc3339(),
            "2051-01-02T00:00:00+00:00"
        );
    }

    #[test]
    fn garbage_is_none() {
        assert_eq!(not_after(b""), None);
        assert_eq!(not_after(&[0x30, 0x82, 0xff]), None);
    }
}
