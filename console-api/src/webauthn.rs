//! The relying party's side of WebAuthn: checking what a browser answers to
//! a registration (`navigator.credentials.create`) and to a sign-in
//! (`navigator.credentials.get`). Keys are ES256, EdDSA (Ed25519) or RS256.
//! Attestation is asked as `none` and its statement not checked: any
//! authenticator the person holds may be registered (decision 101.2).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ciborium::Value;
use ring::digest::{SHA256, digest};
use ring::signature::{self, RsaPublicKeyComponents, UnparsedPublicKey};
use serde::Deserialize;
use url::{Host, Url};

/// COSE algorithm numbers of the keys accepted, in the order offered.
pub const ES256: i32 = -7;
pub const EDDSA: i32 = -8;
pub const RS256: i32 = -257;
pub const ALGORITHMS: [i32; 3] = [ES256, EDDSA, RS256];

/// Authenticator data flags.
const USER_PRESENT: u8 = 0x01;
const USER_VERIFIED: u8 = 0x04;
const ATTESTED_DATA: u8 = 0x40;

/// Who the credentials are for: the RP ID (a domain) and the one origin
/// allowed to ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelyingParty {
    pub id: String,
    pub origin: String,
}

impl RelyingParty {
    /// The relying party of pages at `origin`; why there is none when
    /// browsers would refuse WebAuthn there.
    pub fn of_origin(origin: &str) -> Result<Self, String> {
        let url = Url::parse(origin).map_err(|e| format!("{origin:?} is not a URL: {e}"))?;
        let Some(Host::Domain(domain)) = url.host() else {
            return Err(format!(
                "security keys need the console at a domain name, and {origin} is an IP address: \
                 set --webauthn-origin (for example http://localhost:8080)"
            ));
        };
        let local = domain == "localhost" || domain.ends_with(".localhost");
        if url.scheme() != "https" && !(url.scheme() == "http" && local) {
            return Err(format!(
                "security keys need https (or http://localhost), and {origin} is neither"
            ));
        }
        Ok(Self {
            id: domain.to_owned(),
            origin: url.origin().ascii_serialization(),
        })
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum WebauthnError {
    #[error("the browser's answer is malformed: {0}")]
    Malformed(&'static str),
    #[error("the answer is for another ceremony ({0})")]
    WrongCeremony(String),
    #[error("the answer is for another challenge")]
    Challenge,
    #[error("the answer comes from {0}, not this console's origin")]
    Origin(String),
    #[error("the answer was made in a frame of another site")]
    CrossOrigin,
    #[error("the key signed for another site")]
    RpId,
    #[error("the key did not see the person present")]
    NotPresent,
    #[error("the key did not verify the person (a PIN or biometric)")]
    NotVerified,
    #[error("the key's algorithm is not supported: only ES256, EdDSA and RS256 are")]
    Algorithm,
    #[error("the signature is not valid")]
    Signature,
}

fn malformed(what: &'static str) -> WebauthnError {
    WebauthnError::Malformed(what)
}

/// Base64url as browsers send it (padding tolerated).
pub fn decode(text: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(text.trim_end_matches('=')).ok()
}

pub fn encode(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

#[derive(Deserialize)]
struct ClientData {
    #[serde(rename = "type")]
    kind: String,
    challenge: String,
    origin: String,
    #[serde(rename = "crossOrigin", default)]
    cross_origin: bool,
}

fn check_client_data(
    rp: &RelyingParty,
    json: &[u8],
    ceremony: &str,
    challenge: &[u8],
) -> Result<(), WebauthnError> {
    let data: ClientData =
        serde_json::from_slice(json).map_err(|_| malformed("clientDataJSON is not its JSON"))?;
    if data.kind != ceremony {
        return Err(WebauthnError::WrongCeremony(data.kind));
    }
    if decode(&data.challenge).as_deref() != Some(challenge) {
        return Err(WebauthnError::Challenge);
    }
    if data.origin != rp.origin {
        return Err(WebauthnError::Origin(data.origin));
    }
    if data.cross_origin {
        return Err(WebauthnError::CrossOrigin);
    }
    Ok(())
}

/// The authenticator data's fixed part, and the credential it attests (on
/// registration): its id and COSE public key.
struct AuthData {
    rp_id_hash: [u8; 32],
    flags: u8,
    sign_count: u32,
    attested: Option<(Vec<u8>, Vec<u8>)>,
}

fn parse_auth_data(bytes: &[u8]) -> Result<AuthData, WebauthnError> {
    let fixed = bytes
        .get(..37)
        .ok_or_else(|| malformed("authenticator data is too short"))?;
    let mut rp_id_hash = [0u8; 32];
    rp_id_hash.copy_from_slice(&fixed[..32]);
    let flags = fixed[32];
    let sign_count = u32::from_be_bytes([fixed[33], fixed[34], fixed[35], fixed[36]]);
    let attested = if flags & ATTESTED_DATA != 0 {
        // AAGUID (16 bytes), the id's length (2), the id, then the COSE key.
        let rest = &bytes[37..];
        let length = rest
            .get(16..18)
            .map(|l| usize::from(u16::from_be_bytes([l[0], l[1]])))
            .ok_or_else(|| malformed("attested credential data is too short"))?;
        let id = rest
            .get(18..18 + length)
            .ok_or_else(|| malformed("the credential id is cut short"))?;
        let key = &rest[18 + length..];
        let mut reader = std::io::Cursor::new(key);
        let _: Value = ciborium::de::from_reader(&mut reader)
            .map_err(|_| malformed("the credential public key is not CBOR"))?;
        let used = usize::try_from(reader.position()).unwrap_or(key.len());
        Some((id.to_vec(), key[..used].to_vec()))
    } else {
        None
    };
    Ok(AuthData {
        rp_id_hash,
        flags,
        sign_count,
        attested,
    })
}

fn check_auth_data(
    rp: &RelyingParty,
    data: &AuthData,
    user_verification: bool,
) -> Result<(), WebauthnError> {
    if data.rp_id_hash[..] != *digest(&SHA256, rp.id.as_bytes()).as_ref() {
        return Err(WebauthnError::RpId);
    }
    if data.flags & USER_PRESENT == 0 {
        return Err(WebauthnError::NotPresent);
    }
    if user_verification && data.flags & USER_VERIFIED == 0 {
        return Err(WebauthnError::NotVerified);
    }
    Ok(())
}

/// A public key from its COSE form (RFC 9053).
#[derive(Debug)]
enum PublicKey {
    /// The uncompressed P-256 point.
    Es256(Vec<u8>),
    Ed25519(Vec<u8>),
    Rs256 {
        n: Vec<u8>,
        e: Vec<u8>,
    },
}

impl PublicKey {
    fn from_cose(bytes: &[u8]) -> Result<(Self, i32), WebauthnError> {
        let value: Value =
            ciborium::de::from_reader(bytes).map_err(|_| malformed("the COSE key is not CBOR"))?;
        let map = value
            .as_map()
            .ok_or_else(|| malformed("the COSE key is not a map"))?;
        let field = |label: i64| {
            map.iter()
                .find(|(k, _)| k.as_integer() == Some(label.into()))
                .map(|(_, v)| v)
        };
        let int = |label| {
            field(label)
                .and_then(Value::as_integer)
                .and_then(|i| i64::try_from(i).ok())
        };
        let bytes_of = |label| field(label).and_then(Value::as_bytes).cloned();
        let (kty, alg) = (int(1), int(3));
        let alg = alg
            .and_then(|a| i32::try_from(a).ok())
            .ok_or(WebauthnError::Algorithm)?;
        let key = match (kty, alg) {
            // EC2 on P-256 (crv 1).
            (Some(2), ES256) if int(-1) == Some(1) => {
                let (x, y) = bytes_of(-2)
                    .zip(bytes_of(-3))
                    .ok_or_else(|| malformed("the P-256 key lacks its coordinates"))?;
                if x.len() != 32 || y.len() != 32 {
                    return Err(malformed("the P-256 key's coordinates are not 32 bytes"));
                }
                PublicKey::Es256([&[0x04][..], &x, &y].concat())
            }
            // OKP on Ed25519 (crv 6).
            (Some(1), EDDSA) if int(-1) == Some(6) => {
                let x = bytes_of(-2).filter(|x| x.len() == 32);
                PublicKey::Ed25519(x.ok_or_else(|| malformed("the Ed25519 key is not 32 bytes"))?)
            }
            (Some(3), RS256) => {
                let (n, e) = bytes_of(-1)
                    .zip(bytes_of(-2))
                    .ok_or_else(|| malformed("the RSA key lacks n or e"))?;
                PublicKey::Rs256 { n, e }
            }
            _ => return Err(WebauthnError::Algorithm),
        };
        Ok((key, alg))
    }

    fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
        match self {
            PublicKey::Es256(point) => {
                UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_ASN1, point)
                    .verify(message, signature)
                    .is_ok()
            }
            PublicKey::Ed25519(key) => UnparsedPublicKey::new(&signature::ED25519, key)
                .verify(message, signature)
                .is_ok(),
            PublicKey::Rs256 { n, e } => RsaPublicKeyComponents { n, e }
                .verify(&signature::RSA_PKCS1_2048_8192_SHA256, message, signature)
                .is_ok(),
        }
    }
}

/// A registration that checked out: what to keep of the new credential.
#[derive(Debug)]
pub struct Registered {
    pub credential_id: Vec<u8>,
    /// The COSE key, kept as the authenticator gave it.
    pub public_key: Vec<u8>,
    pub algorithm: i32,
    pub sign_count: u32,
}

/// Checks a registration's `clientDataJSON` and `attestationObject` against
/// the challenge handed out; `user_verification` when a PIN or biometric
/// must have been shown (a passkey).
pub fn verify_registration(
    rp: &RelyingParty,
    challenge: &[u8],
    client_data_json: &[u8],
    attestation_object: &[u8],
    user_verification: bool,
) -> Result<Registered, WebauthnError> {
    check_client_data(rp, client_data_json, "webauthn.create", challenge)?;
    let object: Value = ciborium::de::from_reader(attestation_object)
        .map_err(|_| malformed("the attestation object is not CBOR"))?;
    let auth_data = object
        .as_map()
        .and_then(|m| {
            m.iter()
                .find(|(k, _)| k.as_text() == Some("authData"))
                .and_then(|(_, v)| v.as_bytes())
        })
        .ok_or_else(|| malformed("the attestation object has no authData"))?;
    let data = parse_auth_data(auth_data)?;
    check_auth_data(rp, &data, user_verification)?;
    let (credential_id, public_key) = data
        .attested
        .ok_or_else(|| malformed("the authenticator data attests no credential"))?;
    let (_, algorithm) = PublicKey::from_cose(&public_key)?;
    Ok(Registered {
        credential_id,
        public_key,
        algorithm,
        sign_count: data.sign_count,
    })
}

/// Checks a sign-in's answer against the challenge and the stored COSE key;
/// answers the key's new signature counter.
pub fn verify_assertion(
    rp: &RelyingParty,
    challenge: &[u8],
    client_data_json: &[u8],
    authenticator_data: &[u8],
    signature: &[u8],
    public_key: &[u8],
    user_verification: bool,
) -> Result<u32, WebauthnError> {
    check_client_data(rp, client_data_json, "webauthn.get", challenge)?;
    let data = parse_auth_data(authenticator_data)?;
    check_auth_data(rp, &data, user_verification)?;
    let (key, _) = PublicKey::from_cose(public_key)?;
    let signed = [
        authenticator_data,
        digest(&SHA256, client_data_json).as_ref(),
    ]
    .concat();
    if !key.verify(&signed, signature) {
        return Err(WebauthnError::Signature);
    }
    Ok(data.sign_count)
}

/// Whether a use with signature counter `count` may follow one that left
/// `stored`: counters only grow, except on keys that keep none (always 0).
pub fn counter_moves_on(stored: i64, count: u32) -> bool {
    (stored == 0 && count == 0) || i64::from(count) > stored
}

#[cfg(test)]
#[allow(dead_code)]
#[path = "../tests/common/soft_key.rs"]
mod soft_key;

#[cfg(test)]
mod tests {
    use super::*;

    use super::soft_key::{SoftKey, client_data};

    fn cbor(value: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        ciborium::ser::into_writer(value, &mut out).expect("CBOR");
        out
    }

    fn rp() -> RelyingParty {
        RelyingParty::of_origin("https://console.example.com").expect("rp")
    }

    const UP_UV: u8 = USER_PRESENT | USER_VERIFIED;

    #[test]
    fn the_relying_party_is_a_domain_in_a_secure_context() {
        assert_eq!(
            RelyingParty::of_origin("http://localhost:8080/x").expect("rp"),
            RelyingParty {
                id: "localhost".into(),
                origin: "http://localhost:8080".into()
            }
        );
        assert!(RelyingParty::of_origin("http://127.0.0.1:8080").is_err());
        assert!(RelyingParty::of_origin("https://[::1]").is_err());
        assert!(RelyingParty::of_origin("http://console.example.com").is_err());
    }

    #[test]
    fn a_registration_and_a_sign_in_with_each_kind_of_key() {
        let rp = rp();
        for key in [SoftKey::p256(), SoftKey::ed25519()] {
            let challenge = b"registration challenge";
            let client = client_data("webauthn.create", challenge, &rp.origin);
            let registered = verify_registration(
                &rp,
                challenge,
                &client,
                &key.attestation(&rp.id, UP_UV),
                true,
            )
            .expect("registered");
            assert_eq!(registered.credential_id, key.id);
            let client = client_data("webauthn.get", b"sign-in", &rp.origin);
            let (data, signature) = key.assert(&rp.id, UP_UV, 7, &client);
            let count = verify_assertion(
                &rp,
                b"sign-in",
                &client,
                &data,
                &signature,
                &registered.public_key,
                true,
            );
            assert_eq!(count, Ok(7));
            let mut forged = signature.clone();
            let last = forged.len() - 1;
            forged[last] ^= 1;
            let forged = verify_assertion(
                &rp,
                b"sign-in",
                &client,
                &data,
                &forged,
                &registered.public_key,
                true,
            );
            assert_eq!(forged, Err(WebauthnError::Signature));
        }
    }

    #[test]
    fn answers_for_another_challenge_origin_site_or_ceremony_are_refused() {
        let rp = rp();
        let key = SoftKey::p256();
        let attestation = key.attestation(&rp.id, UP_UV);
        let register = |client: Vec<u8>, attestation: &[u8], uv| {
            verify_registration(&rp, b"c", &client, attestation, uv).map(|_| ())
        };
        assert_eq!(
            register(
                client_data("webauthn.create", b"other", &rp.origin),
                &attestation,
                false
            ),
            Err(WebauthnError::Challenge)
        );
        assert_eq!(
            register(
                client_data("webauthn.create", b"c", "https://evil.example"),
                &attestation,
                false
            ),
            Err(WebauthnError::Origin("https://evil.example".into()))
        );
        assert_eq!(
            register(
                client_data("webauthn.get", b"c", &rp.origin),
                &attestation,
                false
            ),
            Err(WebauthnError::WrongCeremony("webauthn.get".into()))
        );
        let client = client_data("webauthn.create", b"c", &rp.origin);
        assert_eq!(
            register(
                client.clone(),
                &key.attestation("evil.example", UP_UV),
                false
            ),
            Err(WebauthnError::RpId)
        );
        assert_eq!(
            register(client.clone(), &key.attestation(&rp.id, USER_PRESENT), true),
            Err(WebauthnError::NotVerified)
        );
        assert_eq!(
            register(
                client.clone(),
                &key.attestation(&rp.id, USER_VERIFIED),
                false
            ),
            Err(WebauthnError::NotPresent)
        );
        assert!(register(client, &key.attestation(&rp.id, USER_PRESENT), false).is_ok());
    }

    #[test]
    fn an_rs256_signature_verifies() {
        // A 2048-bit key and its PKCS#1 v1.5 SHA-256 signature of MESSAGE,
        // made once with `openssl dgst -sha256 -sign`.
        const MESSAGE: &[u8] = b"quarterdeck webauthn rs256";
        let hex = |s: &str| {
            (0..s.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
                .collect::<Vec<u8>>()
        };
        let n = hex(concat!(
            "c0ad5257fc7cc8049200166f587433d65cac716e88435d0cfb8ba81850963f46",
            "d56995054f10ee9c80a673b93a666bbbdbb0f5de5635907385c0d245a1a57ba9",
            "065e0dd2b1a13d45cd645623b2b04e81efd03a5e33d333fd837d839062f6d4ab",
            "cfc342ff46b6872f2b4072898861b2d083002640871d59507f02a6f55bd07909",
            "02bf624c56f14dfffc9e7a9e8ada3049ddff3e9c8eecc32b1ae0d147a4768478",
            "50f98e27441ed493282f91cf36b9bad48ba4634950f6925443d20008669c5db8",
            "751369d9e5afd763fe3eb50745463f92b8324d2b8ebf27d396fdf0d464ad81ff",
            "7ede2b86d6ba6eeb007c61a8dc6ced838da3f1b27e92923dfac1d64ace9a6817",
        ));
        let signature = hex(concat!(
            "67898335d811f9c79d4cd614c16e7aefe9a16cd5d77ae7e1aab413fb36b9445b",
            "299e88a82b1728fa9b68e753d7730661eb7c3667d7ea059f643829d9a7701570",
            "d8848e01f7cb44b39a8da326dfd399b6b2a6f6e8fb85746917d6471b78cfbefa",
            "15b845e983ad42aaee5c8e66a4143ec18b596830441dfa19fa97c17cb0a955c9",
            "13b80c3f1a2bf117840bc7526f2cb61e8316914dfcb6c56035754dc0f568db5d",
            "55c53177eb65228998a383e65cf27ae2cebcf928db51d985f7ef2bef16af8045",
            "1bd4f1a5be88e064b2d577747900870c60e32f3b97d5e8dc620631fda2092e63",
            "7534073a5dde37ed273e65e556afac554f7ccdbdff4495e0ed24aa9409879a47",
        ));
        let cose = cbor(&Value::Map(vec![
            (1.into(), 3.into()),
            (3.into(), (-257).into()),
            ((-1).into(), Value::Bytes(n)),
            ((-2).into(), Value::Bytes(vec![1, 0, 1])),
        ]));
        let (key, alg) = PublicKey::from_cose(&cose).expect("key");
        assert_eq!(alg, RS256);
        assert!(key.verify(MESSAGE, &signature));
        assert!(!key.verify(b"another message", &signature));
    }

    #[test]
    fn counters_only_grow_unless_the_key_keeps_none() {
        assert!(counter_moves_on(0, 0));
        assert!(counter_moves_on(0, 1));
        assert!(counter_moves_on(4, 5));
        assert!(!counter_moves_on(5, 5));
        assert!(!counter_moves_on(5, 0));
    }
}
