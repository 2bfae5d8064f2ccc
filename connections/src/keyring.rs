//! Secret values at rest: the keys that encrypt connection fields in the
//! database, and where they come from.
//!
//! A stored secret is `enc:v1:<key id>:<base64(nonce || ciphertext)>`,
//! XChaCha20-Poly1305 under a 32-byte key whose id is the first 8 hex digits
//! of its SHA-256. A keyring holds one current key (encrypts and decrypts)
//! and any previous keys (decrypt only), so values written before a rotation
//! still read. The key file lists the keys one per line, base64, the current
//! one first; `#` lines and blank lines are ignored.

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use rand::RngCore;
use sha2::{Digest, Sha256};

const PREFIX: &str = "enc:v1:";
const NONCE_LEN: usize = 24;
const KEY_LEN: usize = 32;

/// Where this process finds its connection keys.
#[derive(Clone, clap::Args)]
pub struct KeyArgs {
    /// The key that encrypts connections' secret values in the database:
    /// base64 of 32 bytes. Several keys separated by commas: the first
    /// encrypts, the others only decrypt (values written before a rotation).
    /// When set, the key file is not read.
    #[arg(
        long = "connection-key",
        env = "QUARTERDECK_CONNECTION_KEY",
        hide_env_values = true
    )]
    pub connection_key: Option<String>,

    /// The file holding the connection keys, one per line, the current one
    /// first. Created with a new key (mode 0600) when missing. Default:
    /// `connection-key` beside the embedded database's data directory
    /// (`.quarterdeck/connection-key`).
    #[arg(long = "connection-key-file", env = "QUARTERDECK_CONNECTION_KEY_FILE")]
    pub connection_key_file: Option<PathBuf>,
}

impl fmt::Debug for KeyArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyArgs")
            .field(
                "connection_key",
                &self.connection_key.as_ref().map(|_| "***"),
            )
            .field("connection_key_file", &self.connection_key_file)
            .finish()
    }
}

impl KeyArgs {
    /// These settings with the key file, when not given, beside the embedded
    /// database's data directory `embedded_db_dir`.
    pub fn beside(mut self, embedded_db_dir: &Path) -> Self {
        if self.connection_key_file.is_none() {
            let dir = embedded_db_dir.parent().unwrap_or(Path::new(""));
            self.connection_key_file = Some(dir.join("connection-key"));
        }
        self
    }

    /// The key file this process reads (and creates when missing).
    pub fn key_file(&self) -> PathBuf {
        self.connection_key_file
            .clone()
            .unwrap_or_else(|| PathBuf::from(".quarterdeck/connection-key"))
    }

    /// The keyring: from `--connection-key` when given, else from the key
    /// file, which is created with a new key when it does not exist.
    pub fn load(&self) -> Result<Keyring, KeyError> {
        if let Some(keys) = self.connection_key.as_deref() {
            return Keyring::parse(keys, "--connection-key");
        }
        let path = &self.key_file();
        match fs::read_to_string(path) {
            Ok(text) => Keyring::from_file(path, &text),
            Err(e) if e.kind() == io::ErrorKind::NotFound => create_key_file(path),
            Err(source) => Err(KeyError::Io {
                path: path.clone(),
                source,
            }),
        }
    }
}

/// Writes a new key file at `path` unless another process got there first,
/// in which case that process's key is used: the file appears whole (hard
/// link of a finished temporary file), so the loser never reads half a key.
fn create_key_file(path: &Path) -> Result<Keyring, KeyError> {
    let io_error = |source| KeyError::Io {
        path: path.to_owned(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(io_error)?;
    }
    let text = format!("{}\n", Keyring::generate_key());
    let temporary = write_temporary(path, &text).map_err(io_error)?;
    let linked = fs::hard_link(&temporary, path);
    let _ = fs::remove_file(&temporary);
    match linked {
        Ok(()) => {
            let keyring = Keyring::from_file(path, &text)?;
            tracing::info!(
                path = %path.display(),
                key_id = %keyring.current_key_id(),
                "created a new connection key file: keep it (or set --connection-key); \
                 without it the secret values stored in connections cannot be read"
            );
            Ok(keyring)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            let text = fs::read_to_string(path).map_err(io_error)?;
            Keyring::from_file(path, &text)
        }
        Err(e) => Err(io_error(e)),
    }
}

/// A file next to `path`, mode 0600, holding `text`, flushed to disk.
fn write_temporary(path: &Path, text: &str) -> io::Result<PathBuf> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(
        ".{}.{:08x}.tmp",
        std::process::id(),
        rand::random::<u32>()
    ));
    let temporary = path.with_file_name(name);
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temporary)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    Ok(temporary)
}

#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("connection key file {}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error("connection key {origin}: {reason}")]
    Invalid { origin: String, reason: String },
    #[error("{origin} holds no connection key")]
    NoKey { origin: String },
    #[error(
        "the value was encrypted with connection key {id}, which this process does not have \
         (it has {known}); start it with that key among its keys"
    )]
    UnknownKey { id: String, known: String },
    #[error("not an encrypted value (expected enc:v1:<key id>:<base64>)")]
    Malformed,
    #[error(
        "the value encrypted with connection key {id} does not decrypt: it was altered or is corrupt"
    )]
    Tampered { id: String },
    #[error("the value encrypted with connection key {id} is not UTF-8 text")]
    NotText { id: String },
}

struct Key {
    id: String,
    /// The key as configured (base64), for writing the key file.
    encoded: String,
    cipher: XChaCha20Poly1305,
}

impl Key {
    fn parse(encoded: &str, origin: &str) -> Result<Self, KeyError> {
        let invalid = |reason: &str| KeyError::Invalid {
            origin: origin.to_owned(),
            reason: reason.to_owned(),
        };
        let bytes = BASE64.decode(encoded).map_err(|_| invalid("not base64"))?;
        let bytes: [u8; KEY_LEN] = bytes
            .try_into()
            .map_err(|_| invalid("must be 32 bytes (base64 of 32 random bytes)"))?;
        let digest = Sha256::digest(bytes);
        let id = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
        Ok(Self {
            id,
            encoded: encoded.to_owned(),
            cipher: XChaCha20Poly1305::new(&bytes.into()),
        })
    }
}

/// The keys of this process. Cheap to clone (shared).
#[derive(Clone)]
pub struct Keyring {
    inner: Arc<Inner>,
}

struct Inner {
    /// The current key first, then previous keys.
    keys: RwLock<Arc<Vec<Key>>>,
    /// The key file these keys came from, re-read when a value names a key
    /// this process does not have (another process rotated the keys).
    file: Option<PathBuf>,
}

impl fmt::Debug for Keyring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Keyring")
            .field("key_ids", &self.key_ids())
            .field("file", &self.inner.file)
            .finish()
    }
}

impl Keyring {
    /// Keys separated by commas, newlines or spaces, the current one first;
    /// `origin` names where they came from in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Self, KeyError> {
        Ok(Self::new(parse_keys(text, origin)?, None))
    }

    fn from_file(path: &Path, text: &str) -> Result<Self, KeyError> {
        let origin = path.display().to_string();
        Ok(Self::new(parse_keys(text, &origin)?, Some(path.to_owned())))
    }

    fn new(keys: Vec<Key>, file: Option<PathBuf>) -> Self {
        Self {
            inner: Arc::new(Inner {
                keys: RwLock::new(Arc::new(keys)),
                file,
            }),
        }
    }

    /// A fixed key, for tests only.
    pub fn for_tests() -> Self {
        Self::parse(&BASE64.encode([7u8; KEY_LEN]), "the test key").unwrap_or_else(|e| {
            unreachable!("a 32-byte key always parses: {e}");
        })
    }

    /// A new random key, base64.
    pub fn generate_key() -> String {
        let mut bytes = [0u8; KEY_LEN];
        rand::rng().fill_bytes(&mut bytes);
        BASE64.encode(bytes)
    }

    fn keys(&self) -> Arc<Vec<Key>> {
        match self.inner.keys.read() {
            Ok(keys) => keys.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// The id of the key that encrypts.
    pub fn current_key_id(&self) -> String {
        self.keys()
            .first()
            .map(|k| k.id.clone())
            .unwrap_or_default()
    }

    /// Every key's id, the current one first.
    pub fn key_ids(&self) -> Vec<String> {
        self.keys().iter().map(|k| k.id.clone()).collect()
    }

    /// The key file these keys came from, if any.
    pub fn file(&self) -> Option<&Path> {
        self.inner.file.as_deref()
    }

    /// Whether `stored` is an encrypted value (whatever its key).
    pub fn is_encrypted(stored: &str) -> bool {
        stored.starts_with(PREFIX)
    }

    /// The id of the key `stored` was encrypted with.
    pub fn key_id_of(stored: &str) -> Option<&str> {
        stored
            .strip_prefix(PREFIX)?
            .split_once(':')
            .map(|(id, _)| id)
    }

    /// `plain` encrypted with the current key, in the stored form.
    pub fn encrypt(&self, plain: &str) -> String {
        let keys = self.keys();
        let Some(key) = keys.first() else {
            unreachable!("a keyring is never built without a key");
        };
        let mut nonce = [0u8; NONCE_LEN];
        rand::rng().fill_bytes(&mut nonce);
        // XChaCha20-Poly1305 refuses only plaintexts over 256 GiB.
        let Ok(sealed) = key
            .cipher
            .encrypt(XNonce::from_slice(&nonce), plain.as_bytes())
        else {
            unreachable!("a connection value over 256 GiB");
        };
        let mut data = nonce.to_vec();
        data.extend_from_slice(&sealed);
        format!("{PREFIX}{}:{}", key.id, BASE64.encode(data))
    }

    /// The plain text of a stored value made by [`Keyring::encrypt`] with
    /// any of this keyring's keys.
    pub fn decrypt(&self, stored: &str) -> Result<String, KeyError> {
        let (id, data) = stored
            .strip_prefix(PREFIX)
            .and_then(|rest| rest.split_once(':'))
            .ok_or(KeyError::Malformed)?;
        let data = BASE64.decode(data).map_err(|_| KeyError::Malformed)?;
        if data.len() < NONCE_LEN {
            return Err(KeyError::Malformed);
        }
        let (nonce, sealed) = data.split_at(NONCE_LEN);
        let keys = match self.find(id) {
            Some(keys) => keys,
            None => self
                .reload()?
                .find(id)
                .ok_or_else(|| KeyError::UnknownKey {
                    id: id.to_owned(),
                    known: self.key_ids().join(", "),
                })?,
        };
        let key = keys
            .iter()
            .find(|k| k.id == id)
            .ok_or(KeyError::Malformed)?;
        let plain = key
            .cipher
            .decrypt(XNonce::from_slice(nonce), sealed)
            .map_err(|_| KeyError::Tampered { id: id.to_owned() })?;
        String::from_utf8(plain).map_err(|_| KeyError::NotText { id: id.to_owned() })
    }

    /// The keys, when one of them has id `id`.
    fn find(&self, id: &str) -> Option<Arc<Vec<Key>>> {
        let keys = self.keys();
        keys.iter().any(|k| k.id == id).then_some(keys)
    }

    /// Re-reads the key file, if the keys came from one.
    fn reload(&self) -> Result<&Self, KeyError> {
        let Some(path) = &self.inner.file else {
            return Ok(self);
        };
        let text = fs::read_to_string(path).map_err(|source| KeyError::Io {
            path: path.clone(),
            source,
        })?;
        let keys = parse_keys(&text, &path.display().to_string())?;
        tracing::info!(path = %path.display(), "re-read the connection key file");
        match self.inner.keys.write() {
            Ok(mut current) => *current = Arc::new(keys),
            Err(poisoned) => *poisoned.into_inner() = Arc::new(keys),
        }
        Ok(self)
    }

    /// A keyring whose current key is `new_key` (base64) and whose previous
    /// keys are all of this one's, from the same key file.
    pub fn rotated(&self, new_key: &str) -> Result<Self, KeyError> {
        let mut keys = vec![Key::parse(new_key.trim(), "the new key")?];
        for key in self.keys().iter() {
            if keys.iter().all(|k| k.id != key.id) {
                keys.push(Key::parse(&key.encoded, "a previous key")?);
            }
        }
        Ok(Self::new(keys, self.inner.file.clone()))
    }

    /// A keyring of the current key alone, from the same key file: what is
    /// left once no stored value needs a previous key.
    pub fn pruned(&self) -> Result<Self, KeyError> {
        let keys = self.keys();
        let Some(current) = keys.first() else {
            unreachable!("a keyring is never built without a key");
        };
        let key = Key::parse(&current.encoded, "the current key")?;
        Ok(Self::new(vec![key], self.inner.file.clone()))
    }

    /// The keys as a key file holds them: one per line, the current first.
    pub fn to_key_file(&self) -> String {
        let mut text = String::from(
            "# Quarterdeck connection keys: the first encrypts, the others only decrypt.\n",
        );
        for key in self.keys().iter() {
            text.push_str(&key.encoded);
            text.push('\n');
        }
        text
    }

    /// Replaces the key file with this keyring's keys (a whole-file rename,
    /// mode 0600). Does nothing for keys that did not come from a file.
    pub fn save(&self) -> Result<(), KeyError> {
        let Some(path) = &self.inner.file else {
            return Ok(());
        };
        let io_error = |source| KeyError::Io {
            path: path.clone(),
            source,
        };
        let temporary = write_temporary(path, &self.to_key_file()).map_err(io_error)?;
        fs::rename(&temporary, path).map_err(|e| {
            let _ = fs::remove_file(&temporary);
            io_error(e)
        })
    }
}

fn parse_keys(text: &str, origin: &str) -> Result<Vec<Key>, KeyError> {
    let mut keys = Vec::new();
    let entries = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.starts_with('#'))
        .flat_map(|line| line.split([',', ' ', '\t']))
        .filter(|entry| !entry.is_empty());
    for (n, entry) in entries.enumerate() {
        let key = Key::parse(entry, &format!("{origin} (key {})", n + 1))?;
        if keys.iter().all(|k: &Key| k.id != key.id) {
            keys.push(key);
        }
    }
    if keys.is_empty() {
        return Err(KeyError::NoKey {
            origin: origin.to_owned(),
        });
    }
    Ok(keys)
}
