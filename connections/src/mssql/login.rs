//! LOGIN7 and the server's answer to it.

use super::session::{PACKET_SIZE, Session};
use super::tokens;
use super::{Error, SignedIn, Target};

/// TDS 7.4 as LOGIN7 carries it (little-endian 0x74000004).
const TDS_7_4: u32 = 0x7400_0004;

/// TDS's password obfuscation: each byte of the UTF-16LE text has its
/// nibbles swapped, then is XORed with 0xA5.
fn scramble(password: &str) -> Vec<u8> {
    utf16(password)
        .into_iter()
        .map(|b| b.rotate_left(4) ^ 0xA5)
        .collect()
}

fn utf16(text: &str) -> Vec<u8> {
    text.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

/// The LOGIN7 record: the fixed part, the offset/length table, then the
/// UTF-16 strings.
pub(super) fn login7(username: &str, password: &str, target: &Target) -> Vec<u8> {
    const FIXED: usize = 94;
    let database = target.database.as_deref().unwrap_or_default();
    // Host name, user, password, application, server, (unused), library, language, database.
    let text = |s: &str| (utf16(s), s.encode_utf16().count());
    let strings: [(Vec<u8>, usize); 9] = [
        text("quarterdeck"),
        text(username),
        (scramble(password), password.encode_utf16().count()),
        text("Quarterdeck"),
        text(&target.host),
        text(""),
        text("quarterdeck"),
        text(""),
        text(database),
    ];
    let total = FIXED + strings.iter().map(|(bytes, _)| bytes.len()).sum::<usize>();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&TDS_7_4.to_le_bytes());
    out.extend_from_slice(&(PACKET_SIZE as u32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes()); // client program version
    out.extend_from_slice(&std::process::id().to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes()); // connection id
    // USE_DB_ON | INIT_DB_FATAL | SET_LANG_ON; INIT_LANG_FATAL | ODBC_ON; SQL_DFLT; none.
    out.extend_from_slice(&[0xE0, 0x03, 0x00, 0x00]);
    out.extend_from_slice(&0i32.to_le_bytes()); // time zone
    out.extend_from_slice(&0x0409u32.to_le_bytes()); // LCID en-US
    let mut offset = FIXED;
    for (bytes, chars) in &strings {
        out.extend_from_slice(&(offset as u16).to_le_bytes());
        out.extend_from_slice(&(*chars as u16).to_le_bytes());
        offset += bytes.len();
    }
    out.extend_from_slice(&[0; 6]); // client id (MAC address)
    out.extend_from_slice(&(offset as u16).to_le_bytes()); // SSPI
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&(offset as u16).to_le_bytes()); // attach DB file
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&(offset as u16).to_le_bytes()); // change password
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes()); // long SSPI length
    for (bytes, _) in &strings {
        out.extend_from_slice(bytes);
    }
    out
}

/// LOGINACK means signed in; an ERROR is the server's refusal.
pub(super) async fn read_reply(session: &mut Session) -> Result<SignedIn, Error> {
    let reply = tokens::read(&mut session.reply()).await?;
    let (program, version) = reply.signed_in.ok_or_else(|| {
        Error::Refused("the server ended the login without accepting or refusing it".into())
    })?;
    Ok(SignedIn {
        program,
        version,
        database: reply.database,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrambles_a_password_as_tds_does() {
        // "a" is 0x61 0x00 in UTF-16LE: swapped 0x16 0x00, XOR 0xA5 gives 0xB3 0xA5.
        assert_eq!(scramble("a"), [0xB3, 0xA5]);
        // Worked by hand from MS-TDS 2.2.6.4: J=0x4A→0x01, x=0x78→0x22, V=0x56→0xC0, …
        assert_eq!(
            scramble("JaxView"),
            [
                0x01, 0xA5, 0xB3, 0xA5, 0x22, 0xA5, 0xC0, 0xA5, 0x33, 0xA5, 0xF3, 0xA5, 0xD2, 0xA5
            ]
        );
        // é is U+00E9: 0xE9→0x3B; a character above U+00FF scrambles both bytes (€ = 0x20AC).
        assert_eq!(scramble("é€"), [0x3B, 0xA5, 0x6F, 0xA7]);
    }
}
