//! The plugin folders a workspace's workspaceOpen handlers named (cursor `pluginPaths`,
//! docs/cursor.md "Plugins"): kept in the home's state by the fire that got them, loaded as
//! plugin folders by the sessions that start after it.
//!
//! `{home}/.state/workspace_plugins.json` is `{"version": 1, "workspaces": {ROOT: [PATH,
//! ...]}}`, one entry per project root, 0600. Each workspaceOpen replaces its workspace's
//! entry with what its handlers named, so a folder no handler names any more stops loading;
//! one that names none removes the entry.

use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::Home;

/// The record's format version.
const VERSION: u64 = 1;

/// The folders kept for the workspace at `project_root`, in the order named; none when the
/// record is missing, unreadable or of another version.
pub fn folders(home: &Home, project_root: &Path) -> Vec<PathBuf> {
    let workspaces = read(home);
    let Some(Value::Array(paths)) = workspaces.get(&key(project_root)) else {
        return Vec::new();
    };
    paths.iter().filter_map(Value::as_str).map(PathBuf::from).filter(|p| p.is_absolute()).collect()
}

/// Replaces the workspace's entry with `paths` (removes it when `paths` is empty).
pub(crate) fn keep(home: &Home, project_root: &Path, paths: &[String]) -> io::Result<()> {
    let mut workspaces = read(home);
    let key = key(project_root);
    if paths.is_empty() {
        if workspaces.remove(&key).is_none() {
            return Ok(());
        }
    } else {
        workspaces.insert(key, json!(paths));
    }
    let file = home.workspace_plugins_file();
    crate::fs::create_state_dirs(home.root(), &home.state_dir(), 0o700)?;
    let bytes = json!({"version": VERSION, "workspaces": workspaces}).to_string();
    crate::fs::write_atomic(&file, bytes.as_bytes(), Some(0o600))
}

/// The record's entries; none when it is missing, unreadable or of another version.
fn read(home: &Home) -> Map<String, Value> {
    let Ok(bytes) = crate::fs::read_regular(&home.workspace_plugins_file()) else {
        return Map::new();
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(mut record)) if record.get("version") == Some(&json!(VERSION)) => {
            match record.remove("workspaces") {
                Some(Value::Object(workspaces)) => workspaces,
                _ => Map::new(),
            }
        }
        _ => Map::new(),
    }
}

fn key(project_root: &Path) -> String {
    project_root.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_workspace_keeps_what_it_last_named() {
        let dir = std::env::temp_dir().join(format!("hooks-wsp-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let home = Home::new(dir.clone());
        let (a, b) = (Path::new("/w/a"), Path::new("/w/b"));
        assert!(folders(&home, a).is_empty());
        keep(&home, a, &["/opt/p".into(), "/opt/q".into()]).unwrap();
        keep(&home, b, &["/opt/r".into()]).unwrap();
        assert_eq!(folders(&home, a), [PathBuf::from("/opt/p"), PathBuf::from("/opt/q")]);
        keep(&home, a, &["/opt/q".into()]).unwrap();
        assert_eq!(folders(&home, a), [PathBuf::from("/opt/q")]);
        keep(&home, a, &[]).unwrap();
        assert!(folders(&home, a).is_empty());
        assert_eq!(folders(&home, b), [PathBuf::from("/opt/r")]);
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(home.workspace_plugins_file()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        // A record of another version is not read, and a corrupt one is no folders.
        std::fs::write(
            home.workspace_plugins_file(),
            r#"{"version":2,"workspaces":{"/w/b":["/x"]}}"#,
        )
        .unwrap();
        assert!(folders(&home, b).is_empty());
        std::fs::write(home.workspace_plugins_file(), "{").unwrap();
        assert!(folders(&home, b).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
