//! Long random secrets (session ids, access tokens, one-time links) and the
//! digests stored in their place.

use sha2::{Digest, Sha256};

/// A new secret: the prefix (which says what it is when it leaks into a
/// log or a paste) and 40 random alphanumerics (about 238 bits).
pub fn generate(prefix: &str) -> String {
    format!("{prefix}{}", crate::password::random_secret(40))
}

/// The SHA-256 digest, hex-encoded, that the database keeps for a secret.
/// Secrets are random, so no salt or slow hash is needed.
pub fn digest(secret: &str) -> String {
    format!("{:x}", Sha256::digest(secret.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_prefixed_random_and_digested_stably() {
        let a = generate("qds_");
        assert!(a.starts_with("qds_") && a.len() == 44);
        assert_ne!(a, generate("qds_"));
        assert_eq!(digest(&a), digest(&a));
        assert_eq!(digest(&a).len(), 64);
        assert_ne!(digest(&a), a);
    }
}
