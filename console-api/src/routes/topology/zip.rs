//! A zip archive of stored (uncompressed) entries, enough for a snapshot
//! of JSON files: no compression, no ZIP64 (each entry and the whole
//! archive stay under 4 GiB, at most 65,535 entries).

use chrono::{DateTime, Datelike, Timelike, Utc};

/// Why an archive could not be written.
#[derive(Debug, thiserror::Error)]
#[error("the archive is too large for a zip without ZIP64")]
pub(crate) struct TooLarge;

/// Writes `files` (name, contents) as one archive, each entry dated `at`.
pub(crate) fn write(files: &[(&str, Vec<u8>)], at: DateTime<Utc>) -> Result<Vec<u8>, TooLarge> {
    let (time, date) = dos_time(at);
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in files {
        let offset = u32::try_from(out.len()).map_err(|_| TooLarge)?;
        let size = u32::try_from(data.len()).map_err(|_| TooLarge)?;
        let name_len = u16::try_from(name.len()).map_err(|_| TooLarge)?;
        let crc = crc32(data);
        // Version 2.0, UTF-8 names (bit 11), stored.
        let common = |buf: &mut Vec<u8>| {
            put16(buf, 20);
            put16(buf, 0x0800);
            put16(buf, 0);
            put16(buf, time);
            put16(buf, date);
            put32(buf, crc);
            put32(buf, size);
            put32(buf, size);
            put16(buf, name_len);
            put16(buf, 0);
        };
        put32(&mut out, 0x0403_4b50);
        common(&mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);

        put32(&mut central, 0x0201_4b50);
        put16(&mut central, 20);
        common(&mut central);
        put16(&mut central, 0); // comment
        put16(&mut central, 0); // disk
        put16(&mut central, 0); // internal attributes
        put32(&mut central, 0); // external attributes
        put32(&mut central, offset);
        central.extend_from_slice(name.as_bytes());
    }
    let entries = u16::try_from(files.len()).map_err(|_| TooLarge)?;
    let central_offset = u32::try_from(out.len()).map_err(|_| TooLarge)?;
    let central_size = u32::try_from(central.len()).map_err(|_| TooLarge)?;
    out.extend_from_slice(&central);
    u32::try_from(out.len()).map_err(|_| TooLarge)?;
    put32(&mut out, 0x0605_4b50);
    put16(&mut out, 0);
    put16(&mut out, 0);
    put16(&mut out, entries);
    put16(&mut out, entries);
    put32(&mut out, central_size);
    put32(&mut out, central_offset);
    put16(&mut out, 0);
    Ok(out)
}

fn put16(buf: &mut Vec<u8>, n: u16) {
    buf.extend_from_slice(&n.to_le_bytes());
}

fn put32(buf: &mut Vec<u8>, n: u32) {
    buf.extend_from_slice(&n.to_le_bytes());
}

/// MS-DOS time and date (2-second steps, years from 1980).
fn dos_time(at: DateTime<Utc>) -> (u16, u16) {
    let year = at.year().clamp(1980, 2107) as u32 - 1980;
    let time = (at.hour() << 11) | (at.minute() << 5) | (at.second() / 2);
    let date = (year << 9) | (at.month() << 5) | at.day();
    (time as u16, date as u16)
}

const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
};

/// CRC-32 (IEEE), as zip entries carry it.
fn crc32(data: &[u8]) -> u32 {
    !data.iter().fold(!0u32, |c, &b| {
        CRC_TABLE[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_of_the_check_string() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn python_reads_the_archive_back() {
        let at = "2024-05-06T07:08:10Z".parse().expect("time");
        let archive = write(
            &[
                ("components.json", br#"[{"name": "shop"}]"#.to_vec()),
                ("empty.json", Vec::new()),
                ("ünïcode.json", b"[]".to_vec()),
            ],
            at,
        )
        .expect("written");
        let dir = std::env::temp_dir().join(format!("qd-zip-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("a.zip");
        std::fs::write(&path, &archive).expect("write");
        let script = "import sys, zipfile\n\
                      z = zipfile.ZipFile(sys.argv[1])\n\
                      assert z.testzip() is None\n\
                      for i in z.infolist(): print(i.filename, i.date_time, z.read(i).decode())";
        let out = std::process::Command::new("python3")
            .args(["-c", script])
            .arg(&path)
            .output()
            .expect("python3 runs");
        std::fs::remove_dir_all(&dir).ok();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "components.json (2024, 5, 6, 7, 8, 10) [{\"name\": \"shop\"}]\n\
             empty.json (2024, 5, 6, 7, 8, 10) \n\
             ünïcode.json (2024, 5, 6, 7, 8, 10) []\n"
        );
    }
}
