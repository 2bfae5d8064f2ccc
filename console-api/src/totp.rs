//! RFC 6238 time-based codes (SHA-1, 6 digits, 30 s steps, one step of skew
//! either way) for authenticator apps, and what enrolment shows: the
//! `otpauth://` URI and its QR code.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use qrcode::QrCode;
use qrcode::render::svg;
use rand::RngCore;
use totp_rs::{Builder, Secret, Totp};

/// The issuer authenticator apps show beside the account.
const ISSUER: &str = "Quarterdeck";

/// Why a stored secret cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TotpError {
    #[error("the stored TOTP secret is not base32")]
    Secret,
    #[error("TOTP: {0}")]
    Totp(#[from] totp_rs::TotpError),
    #[error("the otpauth URI does not fit a QR code: {0}")]
    Qr(#[from] qrcode::types::QrError),
}

/// A new shared secret: 160 random bits (RFC 4226's recommendation), base32.
pub fn new_secret() -> String {
    let mut bytes = [0u8; 20];
    rand::rng().fill_bytes(&mut bytes);
    Secret::from(bytes.to_vec()).to_base32()
}

fn totp(secret_base32: &str, account: &str) -> Result<Totp, TotpError> {
    let secret = Secret::try_from_base32(secret_base32).map_err(|_| TotpError::Secret)?;
    // The URI's label may not hold a colon.
    let account = account.replace(':', "_");
    Ok(Builder::new()
        .with_secret(secret)
        .with_issuer(Some(ISSUER))
        .with_account_name(account)
        .build()?)
}

/// The `otpauth://` URI and the QR code of it as an SVG data URL.
pub fn enrolment(secret_base32: &str, account: &str) -> Result<(String, String), TotpError> {
    let uri = totp(secret_base32, account)?.to_url()?;
    let svg = QrCode::new(uri.as_bytes())?
        .render::<svg::Color>()
        .min_dimensions(200, 200)
        .build();
    let qr = format!("data:image/svg+xml;base64,{}", STANDARD.encode(svg));
    Ok((uri, qr))
}

/// The time step `code` is valid for at `unix_time`, within one step either way.
pub fn matching_step(
    secret_base32: &str,
    code: &str,
    unix_time: u64,
) -> Result<Option<u64>, TotpError> {
    let code: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    Ok(totp(secret_base32, "-")?.check(&code, unix_time))
}

/// Seconds since the epoch now.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238 appendix B's SHA-1 vectors (8 digits there; the last 6 here).
    #[test]
    fn rfc_6238_vectors() {
        let secret = Secret::from(b"12345678901234567890".to_vec()).to_base32();
        for (time, code) in [
            (59, "287082"),
            (1_111_111_109, "081804"),
            (1_111_111_111, "050471"),
            (1_234_567_890, "005924"),
            (2_000_000_000, "279037"),
        ] {
            assert_eq!(
                matching_step(&secret, code, time).unwrap(),
                Some(time / 30),
                "{time}"
            );
        }
        // One step of skew either way, no more (59 s is step 1).
        assert_eq!(matching_step(&secret, "287082", 89).unwrap(), Some(1));
        assert_eq!(matching_step(&secret, "287082", 119).unwrap(), None);
    }

    #[test]
    fn enrolment_shows_a_uri_and_a_qr_code() {
        let secret = new_secret();
        let (uri, qr) = enrolment(&secret, "ada@example.com").unwrap();
        assert!(
            uri.starts_with("otpauth://totp/Quarterdeck:ada%40example.com?"),
            "{uri}"
        );
        assert!(uri.contains(&format!("secret={secret}")), "{uri}");
        assert!(qr.starts_with("data:image/svg+xml;base64,"));
    }
}
