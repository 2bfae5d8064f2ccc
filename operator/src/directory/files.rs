//! The YAML files of a manifest folder and their documents.
//!
//! Symbolic links are followed; a folder or file reached a second time
//! (a link loop such as `loop -> .`, or two links to one place) is read
//! once and named once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value as Json;

use super::Error;

/// A YAML document and where it comes from (`path#index`, from 1).
pub type Document = (String, Json);

/// What a folder holds.
#[derive(Debug, Default)]
pub struct Folder {
    /// Every file that parsed, with its text, in path order. Its documents
    /// are parsed again one at a time by [`documents`]: all of them at once
    /// take some twenty times the memory of the text.
    pub files: Vec<(PathBuf, String)>,
    /// Files that could not be parsed, each with the reason.
    pub unparsable: Vec<String>,
    /// Folders and files reached a second time through a symbolic link.
    pub links: Vec<String>,
}

/// The YAML files under a folder, and the places reached twice.
#[derive(Debug, Default)]
pub struct Files {
    pub paths: Vec<PathBuf>,
    pub links: Vec<String>,
}

pub fn read(dir: &Path) -> Result<Folder, Error> {
    let files = yaml_files(dir)?;
    let mut folder = Folder {
        links: files.links,
        ..Folder::default()
    };
    for path in files.paths {
        let text = std::fs::read_to_string(&path).map_err(|source| Error::Read {
            path: path.clone(),
            source,
        })?;
        let problem = documents(&path, &text).find_map(Result::err);
        match problem {
            Some(problem) => folder.unparsable.push(problem),
            None => folder.files.push((path, text)),
        }
    }
    Ok(folder)
}

/// The documents of the files, parsed one at a time on a blocking thread
/// while the receiver works on the ones before; the thread ends when the
/// receiver is dropped. The handle says whether it read everything.
pub fn parse(
    files: Vec<(PathBuf, String)>,
    buffer: usize,
) -> (
    tokio::sync::mpsc::Receiver<Result<Document, String>>,
    tokio::task::JoinHandle<()>,
) {
    let (sender, receiver) = tokio::sync::mpsc::channel(buffer);
    let parsing = tokio::task::spawn_blocking(move || {
        for (path, text) in &files {
            for document in documents(path, text) {
                if sender.blocking_send(document).is_err() {
                    return;
                }
            }
        }
    });
    (receiver, parsing)
}

/// The documents of a file's text, empty ones left out; an error names the
/// file and ends them.
fn documents<'a>(
    path: &'a Path,
    text: &'a str,
) -> impl Iterator<Item = Result<Document, String>> + 'a {
    yaml_serde::Deserializer::from_str(text)
        .enumerate()
        .map(move |(index, document)| match Json::deserialize(document) {
            Ok(doc) => Ok((format!("{}#{}", path.display(), index + 1), doc)),
            Err(e) => Err(format!("{}: {e}", path.display())),
        })
        .scan(false, |failed, document| {
            if *failed {
                return None;
            }
            *failed = document.is_err();
            Some(document)
        })
        .filter(|document| !matches!(document, Ok((_, Json::Null))))
}

/// Every `.yaml`/`.yml` file under `dir`, skipping hidden entries, in path
/// order (depth first, entries sorted by name).
pub fn yaml_files(dir: &Path) -> Result<Files, Error> {
    let mut walk = Walk::default();
    let root = canonical(dir)?;
    walk.seen.insert(root, dir.to_path_buf());
    walk.folder(dir)?;
    Ok(walk.files)
}

#[derive(Default)]
struct Walk {
    files: Files,
    /// Canonical path of every folder and file met, and the path it was first met by.
    seen: HashMap<PathBuf, PathBuf>,
}

impl Walk {
    fn folder(&mut self, dir: &Path) -> Result<(), Error> {
        let read = |source| Error::Read {
            path: dir.to_path_buf(),
            source,
        };
        let mut entries = std::fs::read_dir(dir)
            .map_err(read)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(read)?;
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let path = entry.path();
            let is_dir = path.is_dir();
            let yaml = matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml")
            );
            if !is_dir && !yaml {
                continue;
            }
            if !self.first_visit(&path)? {
                continue;
            }
            if is_dir {
                self.folder(&path)?;
            } else {
                self.files.paths.push(path);
            }
        }
        Ok(())
    }

    /// Whether `path` leads somewhere not met before; names it otherwise.
    fn first_visit(&mut self, path: &Path) -> Result<bool, Error> {
        let canonical = canonical(path)?;
        let Some(first) = self.seen.get(&canonical) else {
            self.seen.insert(canonical, path.to_path_buf());
            return Ok(true);
        };
        let how = if path.starts_with(first) {
            "a symbolic link loop"
        } else {
            "through a symbolic link"
        };
        self.files.links.push(format!(
            "{}: the same as {} ({how}), read once",
            path.display(),
            first.display()
        ));
        Ok(false)
    }
}

fn canonical(path: &Path) -> Result<PathBuf, Error> {
    std::fs::canonicalize(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loops_and_second_links_are_read_once_and_named_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("a")).unwrap();
        std::fs::write(root.join("a/one.yaml"), "x: 1\n").unwrap();
        std::fs::write(root.join("top.yml"), "x: 2\n").unwrap();
        std::fs::write(root.join("notes.txt"), "").unwrap();
        std::fs::write(root.join(".hidden.yaml"), "").unwrap();
        std::os::unix::fs::symlink(".", root.join("loop")).unwrap();
        std::os::unix::fs::symlink("a", root.join("b")).unwrap();
        std::os::unix::fs::symlink("top.yml", root.join("z.yaml")).unwrap();

        let files = yaml_files(root).unwrap();
        assert_eq!(files.paths, [root.join("a/one.yaml"), root.join("top.yml")]);
        assert_eq!(files.links.len(), 3, "{:?}", files.links);
        assert!(files.links[0].starts_with(&format!(
            "{}: the same as {}",
            root.join("b").display(),
            root.join("a").display()
        )));
        assert!(
            files.links[0].contains("through a symbolic link"),
            "{:?}",
            files.links
        );
        assert!(
            files.links[1].contains("loop: the same as")
                && files.links[1].contains("a symbolic link loop"),
            "{:?}",
            files.links
        );
        assert!(
            files.links[2].contains("z.yaml: the same as"),
            "{:?}",
            files.links
        );
    }
}
