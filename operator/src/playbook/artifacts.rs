//! `exec.artifacts`: after the script, the files its `path` globs match in
//! its working directory (`/dev/stdout` and `/dev/stderr` are its output,
//! named `stdout` and `stderr`, as in Mission Control), kept with the run
//! action. One file may hold at most [`MAX_FILE`] and an action's files
//! together [`MAX_ACTION`]: more fails the action, naming the file.

use std::path::Path;

use quarterdeck_checks::script::Finished;
use quarterdeck_crds::common::Artifact;
use quarterdeck_store::artifacts::NewArtifact;

use super::workdir;

/// The most one artifact holds.
pub(crate) const MAX_FILE: usize = 10 * 1024 * 1024;
/// The most one action's artifacts hold together.
pub(crate) const MAX_ACTION: usize = 25 * 1024 * 1024;

const TEXT: &str = "text/plain; charset=utf-8";

pub(crate) fn collect(
    wanted: &[Artifact],
    dir: &Path,
    finished: &Finished,
) -> Result<Vec<NewArtifact>, String> {
    let mut files: Vec<NewArtifact> = Vec::new();
    let mut total = 0;
    for (i, artifact) in wanted.iter().enumerate() {
        let field = format!("exec.artifacts[{i}].path");
        let found = match artifact.path.trim() {
            "/dev/stdout" => vec![("stdout".to_owned(), finished.stdout.clone().into_bytes())],
            "/dev/stderr" => vec![("stderr".to_owned(), finished.stderr.clone().into_bytes())],
            pattern => {
                let mut read = Vec::new();
                for (shown, path) in
                    workdir::glob(dir, pattern).map_err(|e| format!("{field}: {e}"))?
                {
                    let size = std::fs::metadata(&path)
                        .map_err(|e| format!("{field}: {shown}: {e}"))?
                        .len();
                    check(
                        &field,
                        &shown,
                        usize::try_from(size).unwrap_or(usize::MAX),
                        total,
                    )?;
                    let content = std::fs::read(&path)
                        .map_err(|e| format!("{field}: reading {shown}: {e}"))?;
                    read.push((shown, content));
                }
                read
            }
        };
        for (path, content) in found {
            if files.iter().any(|f| f.path == path) {
                continue;
            }
            check(&field, &path, content.len(), total)?;
            total += content.len();
            files.push(NewArtifact {
                content_type: content_type(&path, &content),
                path,
                content,
            });
        }
    }
    Ok(files)
}

fn check(field: &str, path: &str, size: usize, total: usize) -> Result<(), String> {
    if size > MAX_FILE {
        return Err(format!(
            "{field}: {path} holds {} bytes, more than the {MAX_FILE} bytes an artifact may hold",
            size
        ));
    }
    if total + size > MAX_ACTION {
        return Err(format!(
            "{field}: with {path}, the action's artifacts would hold more than the {MAX_ACTION} bytes an action's artifacts may hold"
        ));
    }
    Ok(())
}

/// By the file's extension, else text when it is UTF-8, else bytes.
fn content_type(path: &str, content: &[u8]) -> String {
    if matches!(path, "stdout" | "stderr") {
        return TEXT.into();
    }
    match mime_guess::from_path(path).first() {
        Some(mime) if mime.type_() == mime_guess::mime::TEXT => format!("{mime}; charset=utf-8"),
        Some(mime) => mime.to_string(),
        None if std::str::from_utf8(content).is_ok() => TEXT.into(),
        None => "application/octet-stream".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_come_from_the_name_then_the_bytes() {
        assert_eq!(content_type("report.json", b"{}"), "application/json");
        assert_eq!(content_type("out/log.txt", b"x"), TEXT);
        assert_eq!(content_type("notes", b"hello"), TEXT);
        assert_eq!(
            content_type("blob", &[0xff, 0xfe, 0x00]),
            "application/octet-stream"
        );
    }
}
