//! Paths a playbook names inside a directory the engine works in (a clone,
//! a script's working directory): relative, never out of it (through `..`,
//! an absolute path or a symbolic link) and never into git's own `.git`,
//! whose hooks and configuration would run commands.

use std::path::{Component, Path, PathBuf};

/// `written` as a clean relative path, refused when it is empty, absolute,
/// climbs with `..` or starts in `.git`.
pub(crate) fn relative(written: &str) -> Result<PathBuf, String> {
    let mut clean = PathBuf::new();
    for component in Path::new(written.trim()).components() {
        match component {
            Component::Normal(part) => clean.push(part),
            Component::CurDir => {}
            _ => {
                return Err(format!(
                    "{written:?} must be a relative path that stays inside the directory (no '..', not absolute)"
                ));
            }
        }
    }
    match clean.components().next() {
        None => Err("the path is empty".into()),
        Some(first) if first.as_os_str().eq_ignore_ascii_case(".git") => {
            Err(format!("{written:?} is inside .git"))
        }
        Some(_) => Ok(clean),
    }
}

/// Where `path` (which exists) really is, refused when a symbolic link takes
/// it out of `root` or into its `.git`.
pub(crate) fn resolved(root: &Path, path: &Path) -> Result<PathBuf, String> {
    let root = root
        .canonicalize()
        .map_err(|e| format!("reading {}: {e}", root.display()))?;
    let real = path
        .canonicalize()
        .map_err(|e| format!("reading {}: {e}", shown(&root, path)))?;
    if !real.starts_with(&root) || real.starts_with(root.join(".git")) {
        return Err(format!(
            "{} leads out of the directory through a symbolic link",
            shown(&root, path)
        ));
    }
    Ok(real)
}

/// The regular files under `root` that the glob `pattern` (relative; `*`,
/// `?`, `[...]`, `**` for any depth) matches, sorted, as (path relative to
/// `root`, real path). What a symbolic link takes out of `root` (or into
/// its `.git`) is left out.
pub(crate) fn glob(root: &Path, pattern: &str) -> Result<Vec<(String, PathBuf)>, String> {
    relative(pattern)?;
    let full = format!(
        "{}/{}",
        glob::Pattern::escape(&root.to_string_lossy()),
        pattern.trim().trim_start_matches("./")
    );
    let entries = glob::glob(&full).map_err(|e| format!("invalid pattern {pattern:?}: {e}"))?;
    let mut found = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| format!("reading {}: {e}", shown(root, e.path())))?;
        if let Ok(real) = resolved(root, &path)
            && real.is_file()
        {
            found.push((shown(root, &path), real));
        }
    }
    found.sort();
    Ok(found)
}

/// `path` relative to `root`, for messages and names.
pub(crate) fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside() {
        assert_eq!(relative("./a/b.yaml"), Ok(PathBuf::from("a/b.yaml")));
        assert!(relative("../etc/passwd").is_err());
        assert!(relative("/etc/passwd").is_err());
        assert!(relative(".git/hooks/pre-commit").is_err());
        assert!(relative(" ").is_err());
    }

    #[test]
    fn a_link_out_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("in.txt"), "x").unwrap();
        std::os::unix::fs::symlink("/etc", dir.path().join("out")).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/deep.txt"), "y").unwrap();
        let found: Vec<String> = glob(dir.path(), "**/*.txt")
            .unwrap()
            .into_iter()
            .map(|(shown, _)| shown)
            .collect();
        assert_eq!(found, ["in.txt", "sub/deep.txt"]);
        assert!(glob(dir.path(), "out/passwd").unwrap().is_empty());
        let out = resolved(dir.path(), &dir.path().join("out/passwd"));
        assert!(out.unwrap_err().contains("symbolic link"));
    }
}
