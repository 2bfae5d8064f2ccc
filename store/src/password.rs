//! Password hashing (argon2id with a random salt) and random secrets.

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use rand::distr::{Alphanumeric, SampleString};

use crate::Error;

/// Hashes a password with argon2id; CPU-heavy, so async callers should use
/// `spawn_blocking`.
pub fn hash(password: &str) -> Result<String, Error> {
    let mut bytes = [0u8; 16];
    rand::Rng::fill(&mut rand::rng(), &mut bytes);
    let salt = SaltString::encode_b64(&bytes).map_err(|e| Error::PasswordHash(e.to_string()))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| Error::PasswordHash(e.to_string()))
}

/// [`hash`] on the blocking pool, for async callers.
pub async fn hash_blocking(password: &str) -> Result<String, Error> {
    let password = password.to_owned();
    tokio::task::spawn_blocking(move || hash(&password))
        .await
        .map_err(|e| Error::PasswordHash(e.to_string()))?
}

/// Checks a password against a stored PHC hash string. A malformed hash is
/// a failed match, never a panic.
pub fn verify(password: &str, stored: &str) -> bool {
    PasswordHash::new(stored)
        .map(|parsed| {
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
        .unwrap_or(false)
}

/// A random alphanumeric secret of `len` characters from the OS-seeded RNG.
pub fn random_secret(len: usize) -> String {
    Alphanumeric.sample_string(&mut rand::rng(), len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_then_verify() {
        let h = hash("correct horse").unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(verify("correct horse", &h));
        assert!(!verify("wrong horse", &h));
    }

    #[test]
    fn malformed_hash_never_matches() {
        assert!(!verify("x", "not-a-hash"));
        assert!(!verify("", ""));
    }

    #[test]
    fn secrets_are_random_and_sized() {
        let a = random_secret(24);
        assert_eq!(a.len(), 24);
        assert_ne!(a, random_secret(24));
    }
}
