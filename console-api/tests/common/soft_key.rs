//! A software authenticator for tests: it holds a P-256 or Ed25519 key and
//! makes the answers a browser passes on from a real one. Shared by the
//! WebAuthn unit tests (`src/webauthn.rs`) and the API tests.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ciborium::Value;
use ring::digest::{SHA256, digest};
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, Ed25519KeyPair, KeyPair};

/// Authenticator data flags: the person was present, and verified.
pub const USER_PRESENT: u8 = 0x01;
pub const USER_VERIFIED: u8 = 0x04;

/// A software authenticator holding one P-256 or Ed25519 key: it makes
/// the answers a browser would pass on.
/// A credential id: 16 random bytes, as authenticators make them.
fn random_id() -> Vec<u8> {
    use ring::rand::SecureRandom;
    let mut id = vec![0u8; 16];
    SystemRandom::new().fill(&mut id).expect("random");
    id
}

pub struct SoftKey {
    pub id: Vec<u8>,
    cose: Vec<u8>,
    signer: Signer,
}

enum Signer {
    P256(EcdsaKeyPair),
    Ed25519(Ed25519KeyPair),
}

fn cbor(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    ciborium::ser::into_writer(value, &mut out).expect("CBOR");
    out
}

impl SoftKey {
    pub fn p256() -> Self {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_ASN1_SIGNING, &rng)
            .expect("key");
        let pair = EcdsaKeyPair::from_pkcs8(
            &signature::ECDSA_P256_SHA256_ASN1_SIGNING,
            pkcs8.as_ref(),
            &rng,
        )
        .expect("key");
        let point = pair.public_key().as_ref().to_vec();
        let cose = cbor(&Value::Map(vec![
            (1.into(), 2.into()),
            (3.into(), (-7).into()),
            ((-1).into(), 1.into()),
            ((-2).into(), Value::Bytes(point[1..33].to_vec())),
            ((-3).into(), Value::Bytes(point[33..].to_vec())),
        ]));
        Self {
            id: random_id(),
            cose,
            signer: Signer::P256(pair),
        }
    }

    pub fn ed25519() -> Self {
        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).expect("key");
        let pair = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).expect("key");
        let cose = cbor(&Value::Map(vec![
            (1.into(), 1.into()),
            (3.into(), (-8).into()),
            ((-1).into(), 6.into()),
            (
                (-2).into(),
                Value::Bytes(pair.public_key().as_ref().to_vec()),
            ),
        ]));
        Self {
            id: random_id(),
            cose,
            signer: Signer::Ed25519(pair),
        }
    }

    pub fn auth_data(&self, rp_id: &str, flags: u8, count: u32, attest: bool) -> Vec<u8> {
        let mut data = digest(&SHA256, rp_id.as_bytes()).as_ref().to_vec();
        data.push(flags | if attest { 0x40 } else { 0 });
        data.extend(count.to_be_bytes());
        if attest {
            data.extend([0u8; 16]);
            data.extend(u16::try_from(self.id.len()).expect("id").to_be_bytes());
            data.extend(&self.id);
            data.extend(&self.cose);
        }
        data
    }

    pub fn attestation(&self, rp_id: &str, flags: u8) -> Vec<u8> {
        cbor(&Value::Map(vec![
            ("fmt".into(), "none".into()),
            ("attStmt".into(), Value::Map(vec![])),
            (
                "authData".into(),
                Value::Bytes(self.auth_data(rp_id, flags, 0, true)),
            ),
        ]))
    }

    /// Authenticator data and its signature over it and the client data.
    pub fn assert(&self, rp_id: &str, flags: u8, count: u32, client: &[u8]) -> (Vec<u8>, Vec<u8>) {
        let data = self.auth_data(rp_id, flags, count, false);
        let signed = [&data[..], digest(&SHA256, client).as_ref()].concat();
        let signature = match &self.signer {
            Signer::P256(pair) => pair
                .sign(&SystemRandom::new(), &signed)
                .expect("sign")
                .as_ref()
                .to_vec(),
            Signer::Ed25519(pair) => pair.sign(&signed).as_ref().to_vec(),
        };
        (data, signature)
    }
}

pub fn client_data(kind: &str, challenge: &[u8], origin: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "type": kind, "challenge": URL_SAFE_NO_PAD.encode(challenge), "origin": origin, "crossOrigin": false
    }))
    .expect("JSON")
}
