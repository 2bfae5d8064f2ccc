//! Secret values at rest: encryption, key files, and keys kept across a rotation.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use quarterdeck_connections::keyring::{KeyArgs, KeyError, Keyring};

fn from_file(path: &Path) -> KeyArgs {
    KeyArgs {
        connection_key: None,
        connection_key_file: Some(path.to_owned()),
    }
}

fn from_flag(keys: &str) -> KeyArgs {
    KeyArgs {
        connection_key: Some(keys.to_owned()),
        connection_key_file: Some("/nonexistent/never-read".into()),
    }
}

#[test]
fn a_value_round_trips_and_its_stored_form_names_the_key() {
    let keyring = Keyring::for_tests();
    let stored = keyring.encrypt("hunter2");
    assert!(Keyring::is_encrypted(&stored));
    assert!(!stored.contains("hunter2"));
    let id = keyring.current_key_id();
    assert_eq!(id.len(), 8);
    assert!(stored.starts_with(&format!("enc:v1:{id}:")), "{stored}");
    assert_eq!(Keyring::key_id_of(&stored), Some(id.as_str()));
    assert_eq!(keyring.decrypt(&stored).unwrap(), "hunter2");
    // A fresh nonce every time.
    assert_ne!(keyring.encrypt("hunter2"), stored);
    assert_eq!(keyring.decrypt(&keyring.encrypt("")).unwrap(), "");
    assert!(!Keyring::is_encrypted("secret://db/password"));
}

#[test]
fn a_tampered_value_is_refused() {
    let keyring = Keyring::for_tests();
    let stored = keyring.encrypt("hunter2");
    let (head, data) = stored.rsplit_once(':').unwrap();
    let mut bytes = data.as_bytes().to_vec();
    let last = bytes.len() - 3;
    bytes[last] = if bytes[last] == b'A' { b'B' } else { b'A' };
    let tampered = format!("{head}:{}", String::from_utf8(bytes).unwrap());
    let err = keyring.decrypt(&tampered).unwrap_err();
    assert!(matches!(err, KeyError::Tampered { .. }), "{err}");
    assert!(err.to_string().contains(&keyring.current_key_id()));
    assert!(matches!(
        keyring.decrypt("enc:v1:nonsense").unwrap_err(),
        KeyError::Malformed
    ));
    assert!(matches!(
        keyring.decrypt("plain text").unwrap_err(),
        KeyError::Malformed
    ));
}

#[test]
fn a_value_under_an_unknown_key_names_that_key() {
    let other = Keyring::parse(&Keyring::generate_key(), "test").unwrap();
    let stored = other.encrypt("hunter2");
    let err = Keyring::for_tests().decrypt(&stored).unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, KeyError::UnknownKey { .. }), "{message}");
    assert!(message.contains(&other.current_key_id()), "{message}");
    assert!(!message.contains("hunter2"));
}

#[test]
fn the_flag_wins_and_bad_keys_are_named_without_their_value() {
    let key = Keyring::generate_key();
    let keyring = from_flag(&key).load().unwrap();
    assert_eq!(keyring.key_ids().len(), 1);
    assert!(keyring.file().is_none());

    let err = from_flag("c2hvcnQ=").load().unwrap_err().to_string();
    assert!(
        err.contains("--connection-key") && err.contains("32 bytes"),
        "{err}"
    );
    assert!(!err.contains("c2hvcnQ="), "{err}");
    let err = from_flag(" , ").load().unwrap_err().to_string();
    assert!(err.contains("no connection key"), "{err}");
}

#[test]
fn the_key_file_is_created_private_and_reused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".quarterdeck/connection-key");
    let first = from_file(&path).load().unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "mode {mode:o}");
    assert_eq!(first.file(), Some(path.as_path()));

    let second = from_file(&path).load().unwrap();
    assert_eq!(second.key_ids(), first.key_ids());
    let stored = first.encrypt("hunter2");
    assert_eq!(second.decrypt(&stored).unwrap(), "hunter2");
    // No temporary files left behind.
    let names: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
    assert_eq!(names.len(), 1);
}

#[test]
fn processes_starting_together_agree_on_one_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("connection-key");
    let loads: Vec<_> = (0..8)
        .map(|_| {
            let args = from_file(&path);
            std::thread::spawn(move || args.load().unwrap().current_key_id())
        })
        .collect();
    let ids: Vec<String> = loads.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(ids.iter().all(|id| id == &ids[0]), "{ids:?}");
}

#[test]
fn previous_keys_only_decrypt_and_a_running_process_rereads_the_file_after_a_rotation() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("connection-key");
    let running = from_file(&path).load().unwrap();
    let old_value = running.encrypt("before");
    let old_id = running.current_key_id();

    let rotated = running.rotated(&Keyring::generate_key()).unwrap();
    assert_ne!(rotated.current_key_id(), old_id);
    assert_eq!(rotated.key_ids()[1], old_id);
    rotated.save().unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);

    // The new key encrypts, the old one still decrypts.
    let new_value = rotated.encrypt("after");
    assert_eq!(
        Keyring::key_id_of(&new_value),
        Some(rotated.current_key_id().as_str())
    );
    assert_eq!(rotated.decrypt(&old_value).unwrap(), "before");

    // The process started before the rotation meets a value under the new key:
    // it re-reads the key file and from then on encrypts with the new key.
    assert_eq!(running.decrypt(&new_value).unwrap(), "after");
    assert_eq!(running.current_key_id(), rotated.current_key_id());

    // A process given only the new key cannot read old values.
    let only_new = Keyring::parse(
        std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .nth(1)
            .unwrap(),
        "test",
    )
    .unwrap();
    assert!(matches!(
        only_new.decrypt(&old_value).unwrap_err(),
        KeyError::UnknownKey { .. }
    ));

    // Several keys on the flag: the first encrypts.
    let text = std::fs::read_to_string(&path).unwrap();
    let keys: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    let flag = from_flag(&keys.join(",")).load().unwrap();
    assert_eq!(flag.key_ids(), rotated.key_ids());
    assert_eq!(flag.decrypt(&old_value).unwrap(), "before");
}
