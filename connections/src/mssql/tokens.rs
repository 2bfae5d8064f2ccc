//! The tokens of a reply: LOGINACK and ENVCHANGE after a login, COLMETADATA
//! and its rows after a batch, DONE, INFO and ERROR after either.

use super::session::{Reply, Session};
use super::types::{self, Column};
use super::{Error, Row};

const COLMETADATA: u8 = 0x81;
const ROW: u8 = 0xD1;
const NBCROW: u8 = 0xD2;
const ERROR: u8 = 0xAA;
const INFO: u8 = 0xAB;
const LOGINACK: u8 = 0xAD;
const ENVCHANGE: u8 = 0xE3;
const RETURNSTATUS: u8 = 0x79;
/// Tokens with a 2-byte length this client has no use for: ORDER, TABNAME, COLINFO, SSPI.
const SKIPPED: [u8; 4] = [0xA9, 0xA4, 0xA5, 0xED];
/// DONE, DONEPROC, DONEINPROC: status, command, row count.
const DONE: [u8; 3] = [0xFD, 0xFE, 0xFF];
/// ENVCHANGE's type for the database.
const ENV_DATABASE: u8 = 1;

/// What one reply said.
#[derive(Default)]
pub(super) struct Replied {
    pub(super) signed_in: Option<(String, String)>,
    pub(super) database: Option<String>,
    pub(super) rows: Vec<Row>,
}

/// The rows of the reply to a batch.
pub(super) async fn read_rows(session: &mut Session) -> Result<Vec<Row>, Error> {
    Ok(read(&mut session.reply()).await?.rows)
}

/// Reads the whole reply, so the next request starts on a clean stream; the
/// first ERROR is the answer.
pub(super) async fn read(reply: &mut Reply<'_>) -> Result<Replied, Error> {
    let mut replied = Replied::default();
    let mut columns: Vec<Column> = Vec::new();
    let mut error = None;
    while !reply.at_end().await? {
        match reply.u8().await? {
            COLMETADATA => columns = column_metadata(reply).await?,
            ROW => {
                let mut row = Row::new();
                for column in &columns {
                    row.insert(column.name.clone(), types::value(reply, column).await?);
                }
                replied.rows.push(row);
            }
            NBCROW => {
                let bitmap = reply.take(columns.len().div_ceil(8)).await?.to_vec();
                let mut row = Row::new();
                for (i, column) in columns.iter().enumerate() {
                    let value = if bitmap[i / 8] & (1 << (i % 8)) != 0 {
                        serde_json::Value::Null
                    } else {
                        types::value(reply, column).await?
                    };
                    row.insert(column.name.clone(), value);
                }
                replied.rows.push(row);
            }
            ERROR => {
                let body = reply.sized().await?;
                if error.is_none() {
                    error = Some(server_error(&body).ok_or_else(|| malformed(reply))?);
                }
            }
            LOGINACK => {
                // Interface, TDS version, program name, version.
                let body = reply.sized().await?;
                let ack = body.get(5..).and_then(login_ack);
                replied.signed_in = Some(ack.ok_or_else(|| malformed(reply))?);
            }
            ENVCHANGE => {
                let body = reply.sized().await?;
                if body.first() == Some(&ENV_DATABASE) {
                    replied.database = b_varchar(&body[1..]);
                }
            }
            INFO => drop(reply.sized().await?),
            token if SKIPPED.contains(&token) => drop(reply.sized().await?),
            token if DONE.contains(&token) => drop(reply.take(12).await?),
            RETURNSTATUS => drop(reply.take(4).await?),
            other => {
                return Err(Error::Refused(format!(
                    "{} sent a TDS token {other:#04x} this client does not read",
                    reply.address()
                )));
            }
        }
    }
    match error {
        Some(error) => Err(error),
        None => Ok(replied),
    }
}

async fn column_metadata(reply: &mut Reply<'_>) -> Result<Vec<Column>, Error> {
    let count = reply.u16().await?;
    if count == 0xFFFF {
        // "No metadata": a statement without a result set.
        return Ok(Vec::new());
    }
    let mut columns = Vec::with_capacity(usize::from(count));
    for index in 0..usize::from(count) {
        columns.push(types::column(reply, index).await?);
    }
    Ok(columns)
}

fn malformed(reply: &Reply<'_>) -> Error {
    Error::Refused(format!("{}'s reply is malformed", reply.address()))
}

/// ERROR: number, state, class, message, server, procedure, line.
fn server_error(body: &[u8]) -> Option<Error> {
    let number = u32::from_le_bytes(body.get(..4)?.try_into().ok()?);
    let chars = usize::from(u16::from_le_bytes(body.get(6..8)?.try_into().ok()?));
    let message = super::session::utf16(body.get(8..8 + chars * 2)?);
    Some(Error::Server { number, message })
}

/// LOGINACK after interface and TDS version: program name, then major, minor, build.
fn login_ack(body: &[u8]) -> Option<(String, String)> {
    let program = b_varchar(body)?;
    let at = 1 + usize::from(*body.first()?) * 2;
    let v = body.get(at..at + 4)?;
    Some((
        program,
        format!("{}.{}.{}", v[0], v[1], u16::from_be_bytes([v[2], v[3]])),
    ))
}

fn b_varchar(body: &[u8]) -> Option<String> {
    let chars = usize::from(*body.first()?);
    Some(super::session::utf16(body.get(1..1 + chars * 2)?))
}
