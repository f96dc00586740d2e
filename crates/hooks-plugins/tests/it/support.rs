//! Test support: plugin and marketplace builders (served by `hooks_tests`' HTTP server on
//! 127.0.0.1), raw tar crafting, and state snapshots.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use hooks_plugins::*;
use serde_json::Value;

pub(crate) use hooks_tests::http::{Route, Server};

/// Writes a plugin folder: metadata, one hook document running `bin/run.sh`, the script.
pub(crate) fn make_plugin(dir: &Path, name: &str, version: &str, message: &str) -> PathBuf {
    let root = dir.join(format!("src-{name}-{version}"));
    fs::create_dir_all(root.join(".claude-plugin")).unwrap();
    fs::create_dir_all(root.join("hooks")).unwrap();
    fs::create_dir_all(root.join("bin")).unwrap();
    fs::write(
        root.join(".claude-plugin/plugin.json"),
        format!(r#"{{"name":"{name}","version":"{version}","description":"test plugin"}}"#),
    )
    .unwrap();
    fs::write(
        root.join("hooks/hooks.json"),
        format!(
            r#"{{"hooks":{{"PreToolUse":[{{"matcher":"Bash","hooks":[{{"type":"command","command":"${{CLAUDE_PLUGIN_ROOT}}/bin/run.sh {message}"}}]}}]}}}}"#
        ),
    )
    .unwrap();
    fs::write(root.join("bin/run.sh"), format!("#!/bin/sh\necho {message}\n")).unwrap();
    fs::set_permissions(root.join("bin/run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    root
}

/// A signed marketplace served over HTTP from a temp folder.
pub(crate) struct Market {
    pub dir: tempfile::TempDir,
    pub server: Server,
    pub keys: GeneratedKeypair,
    pub key_file: PathBuf,
}

impl Market {
    pub(crate) fn new() -> Market {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("m")).unwrap();
        let keys = generate_keypair().unwrap();
        let key_file = dir.path().join("secret.key");
        fs::write(&key_file, &keys.secret_key_file).unwrap();
        let server = Server::start(&dir.path().join("m")).unwrap();
        Market { dir, server, keys, key_file }
    }

    pub(crate) fn root(&self) -> PathBuf {
        self.dir.path().join("m")
    }

    pub(crate) fn index_url(&self) -> String {
        self.server.url("index.json")
    }

    /// Packs a plugin into the marketplace and rebuilds the signed index.
    pub(crate) fn publish(&self, name: &str, version: &str, message: &str) -> BuildReport {
        let src = make_plugin(self.dir.path(), name, version, message);
        pack(&src, Some(&self.root())).unwrap();
        self.build()
    }

    pub(crate) fn build(&self) -> BuildReport {
        let mut o = BuildOptions::new(&self.key_file);
        o.name = Some("market".into());
        marketplace_build(&self.root(), &o).unwrap()
    }

    pub(crate) fn index(&self) -> Value {
        serde_json::from_slice(&fs::read(self.root().join("index.json")).unwrap()).unwrap()
    }

    /// Rewrites the index with `edit` and signs it with `key` (default: the market key).
    pub(crate) fn resign_with(&self, key: Option<&str>, edit: impl FnOnce(&mut Value)) {
        let mut v = self.index();
        edit(&mut v);
        let bytes = serde_json::to_vec_pretty(&v).unwrap();
        fs::write(self.root().join("index.json"), &bytes).unwrap();
        let sk_text = key.unwrap_or(&self.keys.secret_key_file);
        let sk = minisign::SecretKey::from_unencrypted_box(
            minisign::SecretKeyBox::from_string(sk_text).unwrap(),
        )
        .unwrap();
        let sig = minisign::sign(None, &sk, bytes.as_slice(), None, None).unwrap();
        fs::write(self.root().join("index.json.minisig"), sig.into_string()).unwrap();
    }

    pub(crate) fn resign(&self, edit: impl FnOnce(&mut Value)) {
        self.resign_with(None, edit)
    }

    /// Registers this marketplace as `market` in `home`, key pinned.
    pub(crate) fn add_to(&self, home: &Home) -> MarketplaceReport {
        marketplace_add(
            home,
            &AddMarketplace {
                name: "market".into(),
                source: self.index_url(),
                public_key: Some(self.keys.public_key.clone()),
                require_signed: true,
                ..Default::default()
            },
        )
        .unwrap()
    }

    /// Adds a crafted archive to the index as `name` `version`, signed. `unpacked`
    /// overrides the computed decompressed size.
    pub(crate) fn add_archive(&self, file: &str, name: &str, version: &str, unpacked: Option<u64>) {
        let path = self.root().join(file);
        let bytes = fs::read(&path).unwrap();
        let sha = sha256(&bytes);
        let real_unpacked = unpacked_size(&path).unwrap_or(1 << 30);
        self.resign(|v| {
            v["version"] = Value::from(v["version"].as_u64().unwrap() + 1);
            v["plugins"][name]["versions"][version] = serde_json::json!({
                "url": file, "sha256": sha, "size": bytes.len(), "unpacked": unpacked.unwrap_or(real_unpacked)
            });
        });
    }
}

pub(crate) fn sha256(b: &[u8]) -> String {
    hooks_core::snapshot::sha256_hex(b)
}

/// A temporary home.
pub(crate) fn home() -> (tempfile::TempDir, Home) {
    let d = tempfile::tempdir().unwrap();
    let h = Home::new(d.path().join("home"));
    fs::create_dir_all(h.root()).unwrap();
    (d, h)
}

/// Every file under the home (except caches and the lock file) with its content, so a
/// failed operation can be shown to leave the state byte-identical.
pub(crate) fn state_snapshot(home: &Home) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(rd) = fs::read_dir(dir) else { return };
        for e in rd {
            let e = e.unwrap();
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            if rel.starts_with("plugins/cache") || rel.ends_with(".lck") {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                out.insert(format!("{rel}/"), Vec::new());
                walk(root, &p, out);
            } else {
                out.insert(rel, fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(home.root(), home.root(), &mut out);
    // An empty store folder left behind is not state.
    out.retain(|k, _| k != "plugins/store/");
    out
}

pub(crate) fn yes() -> impl FnMut(&InstallPlan) -> bool {
    |_| true
}

pub(crate) fn opts() -> InstallOptions {
    InstallOptions { yes: true, ..Default::default() }
}

/// A raw tar entry, written without the tar crate's path checks.
pub(crate) struct RawEntry {
    pub path: Vec<u8>,
    pub kind: tar::EntryType,
    pub mode: u32,
    pub data: Vec<u8>,
    pub link: Option<Vec<u8>>,
}

impl RawEntry {
    pub(crate) fn file(path: &str, data: &[u8]) -> RawEntry {
        RawEntry {
            path: path.into(),
            kind: tar::EntryType::Regular,
            mode: 0o644,
            data: data.to_vec(),
            link: None,
        }
    }
}

/// Writes a `.tar.gz` of raw entries, with a manifest entry listing `manifest_files`
/// (path, content, executable) first.
pub(crate) fn craft_archive(
    out: &Path,
    name: &str,
    version: &str,
    manifest_files: &[(&str, &[u8])],
    entries: &[RawEntry],
) {
    let mut files = serde_json::Map::new();
    for (p, data) in manifest_files {
        files.insert(
            (*p).into(),
            serde_json::json!({"sha256": sha256(data), "size": data.len(), "executable": false}),
        );
    }
    let manifest = serde_json::json!({"name": name, "version": version, "files": files});
    let mbytes = serde_json::to_vec_pretty(&manifest).unwrap();
    let mut all = vec![RawEntry::file(MANIFEST_FILE, &mbytes)];
    all.extend(entries.iter().map(|e| RawEntry {
        path: e.path.clone(),
        kind: e.kind,
        mode: e.mode,
        data: e.data.clone(),
        link: e.link.clone(),
    }));
    write_tar(out, &all);
}

/// Writes `entries` as a `.tar.gz` at `out`, headers as given (no path checks: the tests
/// craft hostile archives with it).
pub(crate) fn write_tar(out: &Path, entries: &[RawEntry]) {
    let f = fs::File::create(out).unwrap();
    let gz = flate2::write::GzEncoder::new(f, flate2::Compression::fast());
    let mut b = tar::Builder::new(gz);
    for e in entries {
        let mut h = tar::Header::new_old();
        h.as_old_mut().name[..e.path.len()].copy_from_slice(&e.path);
        if let Some(l) = &e.link {
            h.as_old_mut().linkname[..l.len()].copy_from_slice(l);
        }
        h.set_entry_type(e.kind);
        h.set_mode(e.mode);
        h.set_size(e.data.len() as u64);
        h.set_mtime(0);
        h.set_cksum();
        b.append(&h, e.data.as_slice()).unwrap();
    }
    b.into_inner().unwrap().finish().unwrap();
}

/// Hook document used in crafted archives.
pub(crate) const HOOKS: &[u8] =
    br#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"echo hi"}]}]}}"#;
