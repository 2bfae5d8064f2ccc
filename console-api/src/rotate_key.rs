//! `quarterdeck-api rotate-connection-key`: a new connection key, every
//! stored secret value (connections', authenticator apps' and single
//! sign-on client secrets) re-encrypted under it in one transaction, and
//! previous keys dropped once nothing uses them.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::PathBuf;

use quarterdeck_connections::keyring::{KeyError, Keyring};
use quarterdeck_store::{Database, connection_keys};

use crate::Config;

/// The subcommands of `quarterdeck-api`; without one it serves.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum Command {
    /// Encrypt every connection's secret values, authenticator apps' secrets
    /// and single sign-on client secrets under a new connection key.
    /// The new key is written first in the key file, before the previous
    /// ones, so running processes keep decrypting; with --connection-key the
    /// new key list is printed instead, to set and restart with.
    RotateConnectionKey(RotateArgs),
}

#[derive(Debug, Clone, clap::Args)]
pub struct RotateArgs {
    /// A file holding the new key (base64 of 32 random bytes, the first key
    /// line counts); a new random key when unset.
    #[arg(
        long,
        env = "QUARTERDECK_NEW_CONNECTION_KEY_FILE",
        conflicts_with_all = ["reencrypt", "prune"]
    )]
    pub new_key_file: Option<PathBuf>,

    /// No new key: re-encrypt the values still under previous keys with the
    /// current one (values a process wrote before it learnt of a rotation).
    #[arg(long, conflicts_with = "prune")]
    pub reencrypt: bool,

    /// Drop the previous keys, keeping the current one only; refused while
    /// any stored value is encrypted with a previous key.
    #[arg(long)]
    pub prune: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum RotateError {
    #[error(
        "connection key file {} does not exist: there is no key to rotate \
         (quarterdeck-api creates it on first start)", path.display()
    )]
    NoKeyFile { path: PathBuf },
    #[error("the new key file {}: {source}", path.display())]
    NewKeyFile { path: PathBuf, source: io::Error },
    #[error(transparent)]
    Key(#[from] KeyError),
    #[error("connection {connection}: {reason}; nothing was changed")]
    Decrypt {
        connection: String,
        reason: KeyError,
    },
    #[error("{owner}: {reason}; nothing was changed")]
    DecryptSealed { owner: String, reason: KeyError },
    #[error(
        "previous connection keys are still in use ({in_use}); nothing was pruned: \
         run rotate-connection-key --reencrypt first"
    )]
    StillInUse { in_use: String },
    #[error(transparent)]
    Store(#[from] quarterdeck_store::Error),
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("writing the result: {0}")]
    Output(io::Error),
}

/// Runs the subcommand, reporting on `out`.
pub async fn run(
    config: &Config,
    command: &Command,
    out: &mut dyn Write,
) -> Result<(), RotateError> {
    let Command::RotateConnectionKey(args) = command;
    let keys = &config
        .connection_keys
        .clone()
        .beside(&config.database.embedded_db_dir);
    let by_flag = keys.connection_key.is_some();
    if !by_flag && !keys.key_file().exists() {
        return Err(RotateError::NoKeyFile {
            path: keys.key_file(),
        });
    }
    let keyring = keys.load()?;
    let database =
        Database::open(&config.database, "quarterdeck-api rotate-connection-key").await?;
    let result = if args.prune {
        prune(&database, &keyring, by_flag, out).await
    } else {
        let target = match (&args.new_key_file, args.reencrypt) {
            (_, true) => keyring.clone(),
            (Some(path), false) => keyring.rotated(&read_new_key(path)?)?,
            (None, false) => keyring.rotated(&Keyring::generate_key())?,
        };
        reencrypt(&database, &keyring, &target, by_flag, out).await
    };
    database.close().await?;
    result
}

fn read_new_key(path: &PathBuf) -> Result<String, RotateError> {
    let text = std::fs::read_to_string(path).map_err(|source| RotateError::NewKeyFile {
        path: path.clone(),
        source,
    })?;
    Ok(text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with('#'))
        .unwrap_or_default()
        .to_owned())
}

/// Re-encrypts every value not under `target`'s current key, in one
/// transaction. The new keys reach the key file (or `out`) before the
/// transaction commits, so no committed value is under a key nobody has.
async fn reencrypt(
    database: &Database,
    keyring: &Keyring,
    target: &Keyring,
    by_flag: bool,
    out: &mut dyn Write,
) -> Result<(), RotateError> {
    let current = target.current_key_id();
    let mut tx = database.pool.begin().await?;
    let mut rows_changed = 0;
    let mut values_changed = 0;
    for mut row in connection_keys::lock_all(&mut tx).await? {
        // Decrypted with the keys as they are: `target` would re-read the
        // key file, which does not hold the new key yet.
        let sealed = crate::plaintext_secrets::encrypt_row(&mut row, target);
        let changed = sealed
            + row
                .map_values(|value| match Keyring::key_id_of(value) {
                    Some(id) if id != current => keyring
                        .decrypt(value)
                        .map(|plain| Some(target.encrypt(&plain))),
                    _ => Ok(None),
                })
                .map_err(|reason| RotateError::Decrypt {
                    connection: format!("{}/{}", row.namespace, row.name),
                    reason,
                })?;
        if changed > 0 {
            connection_keys::write(&mut tx, &row).await?;
            rows_changed += 1;
            values_changed += changed;
        }
    }
    let mut sealed_changed = 0;
    for mut sealed in connection_keys::lock_sealed(&mut tx).await? {
        if Keyring::key_id_of(&sealed.value).is_some_and(|id| id != current) {
            let plain =
                keyring
                    .decrypt(&sealed.value)
                    .map_err(|reason| RotateError::DecryptSealed {
                        owner: sealed.owner.clone(),
                        reason,
                    })?;
            sealed.value = target.encrypt(&plain);
            connection_keys::write_sealed(&mut tx, &sealed).await?;
            sealed_changed += 1;
        }
    }
    let ids = target.key_ids().join(", ");
    if by_flag {
        let key_file = target.to_key_file();
        let list: Vec<&str> = key_file.lines().filter(|l| !l.starts_with('#')).collect();
        writeln!(
            out,
            "The connection keys come from --connection-key (QUARTERDECK_CONNECTION_KEY), which this \
             command cannot change. Set it (for instance the Secret it is read from) to this list, \
             the new key first, and restart quarterdeck-api and the operator: until they restart \
             they cannot read the values re-encrypted now.\n{}",
            list.join(",")
        )
        .map_err(RotateError::Output)?;
        out.flush().map_err(RotateError::Output)?;
    } else if target.key_ids() != keyring.key_ids() {
        target.save()?;
    }
    tx.commit().await?;
    tracing::info!(rows = rows_changed, values = values_changed, sign_in_secrets = sealed_changed, key_id = %current, "re-encrypted connection values");
    writeln!(
        out,
        "re-encrypted {values_changed} values in {rows_changed} connections under connection key {current}"
    )
    .map_err(RotateError::Output)?;
    if sealed_changed > 0 {
        writeln!(
            out,
            "re-encrypted {sealed_changed} sign-in secrets (authenticator apps, single sign-on providers)"
        )
        .map_err(RotateError::Output)?;
    }
    if let Some(path) = target.file().filter(|_| !by_flag) {
        writeln!(
            out,
            "key file {}: keys {ids} (the first encrypts)",
            path.display()
        )
        .map_err(RotateError::Output)?;
    }
    if target.key_ids().len() > 1 {
        writeln!(
            out,
            "previous keys still decrypt; once every process runs with the new key (restarted, or \
             having re-read its key file), drop them with rotate-connection-key --prune"
        )
        .map_err(RotateError::Output)?;
    }
    Ok(())
}

/// Keeps only the current key, when no stored value needs another.
async fn prune(
    database: &Database,
    keyring: &Keyring,
    by_flag: bool,
    out: &mut dyn Write,
) -> Result<(), RotateError> {
    let current = keyring.current_key_id();
    let mut tx = database.pool.begin().await?;
    let mut in_use: BTreeMap<String, usize> = BTreeMap::new();
    let rows = connection_keys::lock_all(&mut tx).await?;
    let sealed = connection_keys::lock_sealed(&mut tx).await?;
    let values = rows
        .iter()
        .flat_map(|row| row.values())
        .chain(sealed.iter().map(|s| s.value.as_str()));
    for id in values.filter_map(Keyring::key_id_of) {
        if id != current {
            *in_use.entry(id.to_owned()).or_default() += 1;
        }
    }
    if !in_use.is_empty() {
        let in_use = in_use
            .iter()
            .map(|(id, n)| format!("key {id}: {n} values"))
            .collect::<Vec<_>>()
            .join(", ");
        return Err(RotateError::StillInUse { in_use });
    }
    let dropped = keyring.key_ids().len() - 1;
    if by_flag {
        writeln!(
            out,
            "no stored value needs a previous key: set --connection-key (QUARTERDECK_CONNECTION_KEY) \
             to its first key alone (id {current}) and restart"
        )
        .map_err(RotateError::Output)?;
    } else if dropped > 0 {
        keyring.pruned()?.save()?;
    }
    tx.commit().await?;
    if !by_flag {
        writeln!(
            out,
            "dropped {dropped} previous keys; connection key {current} remains"
        )
        .map_err(RotateError::Output)?;
    }
    Ok(())
}
