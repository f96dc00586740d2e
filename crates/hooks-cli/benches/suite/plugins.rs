//! Section 7: a plugin of many files, packed and published in a signed marketplace served
//! from 127.0.0.1; install against `curl` + `sha256sum` + `tar`, verify against
//! `sha256sum` over the installed files, a session's load (`hooks list`, which checks the
//! plugin's whole file set: by file metadata where it matches the record of the last hash)
//! with that plugin and with a catalogue of 20 small plugins, against the same load
//! without plugins. Also the `sha256sum` and `curl` floors.
//!
//! The fixture is built with the tool itself: `hooks marketplace keygen`, `hooks plugin
//! pack`, `hooks marketplace build`; each round registers the marketplace in a fresh home
//! (`hooks marketplace add --key`, not timed) and times `hooks plugin install --yes`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::stats::{Row, Target, Unit};
use crate::{Bench, floors, run_quiet, spawn_wait, thousands, time};
use hooks_tests::http::Server;

const ID: &str = "bench@market";

/// The section's rows.
pub(crate) fn rows(bench: &Bench) -> Vec<Row> {
    let plan = &bench.plan;
    let mib = plan.plugin_bytes as f64 / f64::from(1 << 20);
    let size = format!("{} files, {mib:.0} MB", thousands(plan.plugin_files));
    let verify_label = format!("7 `hooks plugin verify`, {size}");
    let install_label = format!("7 `hooks plugin install` from 127.0.0.1, {size}");
    let load_label = format!("7 `hooks list` (a session's load), one plugin of {size}");
    let catalog_label = format!(
        "7 `hooks list` (a session's load), {CATALOG_PLUGINS} small plugins ({:.1} MB)",
        (CATALOG_PLUGINS * CATALOG_FILES * CATALOG_FILE_BYTES) as f64 / 1e6
    );
    let fixture = match Fixture::build(bench) {
        Ok(f) => f,
        Err(e) => {
            return vec![
                Row::failed(floors::SHA, &e),
                Row::failed(verify_label, &e),
                Row::failed(LOAD_FLOOR, &e),
                Row::failed(load_label, &e),
                Row::failed(catalog_label, &e),
                Row::failed(install_label, e),
            ];
        }
    };
    let mut rows = Vec::new();
    let has_curl = Command::new("curl").arg("--version").output().is_ok_and(|o| o.status.success());

    // curl alone.
    if has_curl {
        let dest = bench.scratch.join("curl.tar.gz");
        let times: Result<Vec<f64>, String> = (0..plan.plugin_rounds.max(3))
            .map(|_| {
                let (t, r) =
                    time(|| spawn_wait(&["curl", "-sSf", "-o", path(&dest), &fixture.archive_url]));
                r.map(|()| t)
            })
            .collect();
        rows.push(match times {
            Ok(t) => Row::new(floors::CURL, Unit::Seconds, t, Target::Floor),
            Err(e) => Row::failed(floors::CURL, e),
        });
    }

    // Install, fresh home each round, paired with curl + sha256sum + tar.
    let mut ours = Vec::new();
    let mut floor = Vec::new();
    let mut last_home = None;
    let installs = (|| {
        for round in 0..plan.plugin_rounds {
            let home = bench.scratch.join(format!("plugin-home-{round}"));
            fixture.add_marketplace(bench, &home)?;
            let (t, r) = time(|| fixture.install(bench, &home));
            r?;
            ours.push(t);
            if has_curl {
                let dest = bench.scratch.join(format!("floor-{round}"));
                fs::create_dir_all(&dest).map_err(|e| e.to_string())?;
                let archive = dest.join("a.tar.gz");
                let (t, r) = time(|| {
                    spawn_wait(&["curl", "-sSf", "-o", path(&archive), &fixture.archive_url])?;
                    run_quiet(sha256sum(std::slice::from_ref(&archive)), &[0])?;
                    spawn_wait(&["tar", "-xzf", path(&archive), "-C", path(&dest)])
                });
                r?;
                floor.push(t);
                let _ = fs::remove_dir_all(&dest);
            }
            if let Some(old) = last_home.replace(home) {
                let _ = fs::remove_dir_all(old);
            }
        }
        Ok::<_, String>(())
    })();
    if has_curl {
        rows.push(match &installs {
            Ok(()) => Row::new(floors::CURL_SHA_TAR, Unit::Seconds, floor, Target::Floor),
            Err(e) => Row::failed(floors::CURL_SHA_TAR, e),
        });
    }
    rows.push(match installs {
        Ok(()) => Row::new(
            install_label,
            Unit::Seconds,
            ours,
            Target::Slower { floor: floors::CURL_SHA_TAR.into(), max: 1.5 },
        ),
        Err(e) => Row::failed(install_label, e),
    });

    // Verify the last install, paired with sha256sum over the same files.
    let verified = (|| {
        let home = last_home.as_ref().ok_or("nothing installed")?;
        let files = files_under(&home.join("plugins"))?;
        if files.len() < plan.plugin_files {
            return Err(format!("{} installed files, expected {}", files.len(), plan.plugin_files));
        }
        let mut ours = Vec::new();
        let mut floor = Vec::new();
        for _ in 0..plan.plugin_rounds {
            let (t, r) = time(|| run_quiet(sha256sum(&files), &[0]));
            r?;
            floor.push(t);
            let (t, r) = time(|| fixture.verify(bench, home));
            r?;
            ours.push(t);
        }
        Ok::<_, String>((ours, floor))
    })();
    match verified {
        Ok((ours, floor)) => {
            rows.push(Row::new(floors::SHA, Unit::Seconds, floor, Target::Floor));
            rows.push(Row::new(
                verify_label,
                Unit::Seconds,
                ours,
                Target::Throughput { floor: floors::SHA.into(), min: 0.8 },
            ));
        }
        Err(e) => {
            rows.push(Row::failed(floors::SHA, &e));
            rows.push(Row::failed(verify_label, e));
        }
    }

    // A session's load with the big plugin installed, and with the small catalogue
    // installed (each file checked against the manifest: by its metadata when it matches
    // the record made when it was last hashed), round by round with the same load in a
    // home without plugins.
    let loads = (|| {
        let home = last_home.as_ref().ok_or("nothing installed")?;
        let empty = bench.scratch.join("plugin-home-empty");
        fs::create_dir_all(&empty).map_err(|e| e.to_string())?;
        let catalog = bench.scratch.join("plugin-home-catalog");
        fixture.add_marketplace(bench, &catalog)?;
        for i in 0..CATALOG_PLUGINS {
            let mut cmd = Command::new(&bench.hooks);
            cmd.arg("--home").arg(&catalog);
            cmd.args(["plugin", "install", &format!("small{i:02}@market"), "--yes"]);
            run_quiet(cmd, &[0])?;
        }
        // Warm the page cache of both homes alike.
        fixture.list(bench, home)?;
        fixture.list(bench, &catalog)?;
        let mut big = Vec::new();
        let mut small = Vec::new();
        let mut floor = Vec::new();
        for _ in 0..plan.plugin_rounds * 3 {
            let (t, r) = time(|| fixture.list(bench, &empty));
            r?;
            floor.push(t);
            let (t, r) = time(|| fixture.list(bench, &catalog));
            r?;
            small.push(t);
            let (t, r) = time(|| fixture.list(bench, home));
            r?;
            big.push(t);
        }
        // The same homes through the session engine (docs/engine.md): the catalogue is
        // loaded and verified once, by the engine, not per event.
        let engine = engine_rounds(bench, &catalog, &empty)?;
        Ok::<_, String>((big, small, floor, engine))
    })();
    match loads {
        Ok((big, small, floor, (engine, engine_floor))) => {
            rows.push(Row::new(ENGINE_FLOOR, Unit::Seconds, engine_floor.clone(), Target::Floor));
            rows.push(
                Row::new(
                    ENGINE_CATALOG,
                    Unit::Seconds,
                    engine,
                    Target::Slower { floor: ENGINE_FLOOR.into(), max: 1.1 },
                )
                .paired_with(engine_floor),
            );
            rows.push(Row::new(LOAD_FLOOR, Unit::Seconds, floor.clone(), Target::Floor));
            rows.push(Row::new(load_label, Unit::Seconds, big, Target::Below { max: 0.030 }));
            rows.push(
                Row::new(
                    catalog_label,
                    Unit::Seconds,
                    small,
                    Target::Slower { floor: LOAD_FLOOR.into(), max: 1.3 },
                )
                .paired_with(floor),
            );
        }
        Err(e) => {
            rows.push(Row::failed(ENGINE_FLOOR, &e));
            rows.push(Row::failed(ENGINE_CATALOG, &e));
            rows.push(Row::failed(LOAD_FLOOR, &e));
            rows.push(Row::failed(load_label, &e));
            rows.push(Row::failed(catalog_label, e));
        }
    }
    if let Some(home) = last_home {
        let _ = fs::remove_dir_all(home);
    }
    rows
}

/// The floor of the engine row: `hooks run --engine` in a home without plugins.
const ENGINE_FLOOR: &str = "7 floor: `hooks run --engine`, no plugin installed";
/// `hooks run --engine` with the 20-plugin catalogue installed.
const ENGINE_CATALOG: &str = "7 `hooks run --engine`, the 20-plugin catalogue installed";

/// `hooks run --engine` of one `/bin/true` handler in `catalog` and in `empty`, round by
/// round (a session each, its engine started by the warm-up and ended by removing its
/// socket).
fn engine_rounds(
    bench: &Bench,
    catalog: &Path,
    empty: &Path,
) -> Result<(Vec<f64>, Vec<f64>), String> {
    let handler = br#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "true", "argv": ["/bin/true"]}]}]}}"#;
    let mut runs = Vec::new();
    for (i, home) in [catalog, empty].into_iter().enumerate() {
        fs::write(home.join("hooks.json"), handler).map_err(|e| e.to_string())?;
        let payload = home.join("engine-payload.json");
        let body = format!(
            r#"{{"session_id": "bench-engine-{i}", "tool_name": "Bash", "tool_input": {{"command": "ls"}}, "tool_use_id": "t1"}}"#
        );
        fs::write(&payload, body).map_err(|e| e.to_string())?;
        let socket = home.join(format!(".state/sessions/bench-engine-{i}/engine.sock"));
        runs.push((home.to_path_buf(), payload, socket));
    }
    let run = |home: &Path, payload: &Path| {
        let mut cmd = Command::new(&bench.hooks);
        cmd.arg("--home").arg(home).arg("--project").arg(&bench.scratch);
        cmd.current_dir(&bench.scratch).args(["run", "PreToolUse", "--engine", "--payload"]);
        cmd.arg(payload);
        run_quiet(cmd, &[0])
    };
    for (home, payload, socket) in &runs {
        run(home, payload)?;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !socket.exists() {
            if std::time::Instant::now() > deadline {
                return Err("the session engine did not start".into());
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    let (catalog_run, empty_run) = (&runs[0], &runs[1]);
    let result = Bench::pair(
        bench.plan.run_rounds,
        || run(&catalog_run.0, &catalog_run.1),
        || run(&empty_run.0, &empty_run.1),
    );
    for (_, _, socket) in &runs {
        let _ = fs::remove_file(socket);
    }
    result
}

/// The floor of the load rows: the same command in a home without plugins.
const LOAD_FLOOR: &str = "7 floor: `hooks list`, no plugin installed";

/// The small catalogue: plugins, files of each besides its metadata and hooks, bytes per
/// file (20 plugins of about 110 kB, 2.2 MB in all, as the public catalogue the load goal
/// was set on).
const CATALOG_PLUGINS: usize = 20;
const CATALOG_FILES: usize = 10;
const CATALOG_FILE_BYTES: usize = 11_000;

fn path(p: &Path) -> &str {
    p.to_str().unwrap_or_default()
}

fn sha256sum(files: &[PathBuf]) -> Command {
    let mut cmd = Command::new("sha256sum");
    cmd.args(files);
    cmd
}

/// Every regular file under `dir`, sorted.
fn files_under(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))? {
            let entry = entry.map_err(|e| e.to_string())?;
            let kind = entry.file_type().map_err(|e| e.to_string())?;
            if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file() {
                out.push(entry.path());
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The published plugin.
struct Fixture {
    /// The public key file to pin.
    public_key: PathBuf,
    /// `index.json` on the server.
    index_url: String,
    /// The archive on the server.
    archive_url: String,
}

impl Fixture {
    fn build(bench: &Bench) -> Result<Fixture, String> {
        let plan = &bench.plan;
        let plugin = bench.scratch.join("src").join("bench");
        let market = bench.scratch.join("market");
        fs::create_dir_all(plugin.join("hooks")).map_err(|e| e.to_string())?;
        fs::create_dir_all(&market).map_err(|e| e.to_string())?;
        let write = |p: PathBuf, bytes: &[u8]| {
            fs::write(&p, bytes).map_err(|e| format!("{}: {e}", p.display()))
        };
        write(plugin.join("plugin.json"), br#"{"name": "bench", "version": "1.0.0"}"#)?;
        write(
            plugin.join("hooks").join("hooks.json"),
            br#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        )?;
        // Incompressible data, so the archive is as large as the files.
        let per = plan.plugin_bytes / plan.plugin_files;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..plan.plugin_files {
            let dir = plugin.join(format!("d{:02}", i % 32));
            fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            let mut data = vec![0u8; per];
            for chunk in data.chunks_mut(8) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                chunk.copy_from_slice(&seed.to_le_bytes()[..chunk.len()]);
            }
            write(dir.join(format!("f{i:04}.bin")), &data)?;
        }
        for i in 0..CATALOG_PLUGINS {
            let name = format!("small{i:02}");
            let root = bench.scratch.join("src").join(&name);
            fs::create_dir_all(root.join("hooks")).map_err(|e| e.to_string())?;
            fs::create_dir_all(root.join("lib")).map_err(|e| e.to_string())?;
            write(
                root.join("plugin.json"),
                format!(r#"{{"name": "{name}", "version": "1.0.0"}}"#).as_bytes(),
            )?;
            write(
                root.join("hooks").join("hooks.json"),
                br#"{"hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
            )?;
            for f in 0..CATALOG_FILES {
                let line = format!("// {name} module {f}: helper code of a small plugin\n");
                let text = line.repeat(CATALOG_FILE_BYTES / line.len() + 1);
                write(
                    root.join("lib").join(format!("m{f}.js")),
                    &text.as_bytes()[..CATALOG_FILE_BYTES],
                )?;
            }
        }
        let keys = bench.scratch.join("keys");
        let hooks = |args: &[&std::ffi::OsStr]| {
            let mut cmd = Command::new(&bench.hooks);
            cmd.args(args).current_dir(&bench.scratch);
            run_quiet(cmd, &[0])
        };
        hooks(&["marketplace".as_ref(), "keygen".as_ref(), keys.as_os_str()])?;
        for name in std::iter::once("bench".to_owned())
            .chain((0..CATALOG_PLUGINS).map(|i| format!("small{i:02}")))
        {
            let src = bench.scratch.join("src").join(name);
            hooks(&[
                "plugin".as_ref(),
                "pack".as_ref(),
                src.as_os_str(),
                "--out".as_ref(),
                market.as_os_str(),
            ])?;
        }
        let secret = keys.join("hooks-marketplace.key");
        hooks(&[
            "marketplace".as_ref(),
            "build".as_ref(),
            market.as_os_str(),
            "--key".as_ref(),
            secret.as_os_str(),
        ])?;
        let server = Server::start(&market).map_err(|e| e.to_string())?;
        let fixture = Fixture {
            public_key: keys.join("hooks-marketplace.pub"),
            index_url: server.url("index.json"),
            archive_url: server.url("bench-1.0.0.tar.gz"),
        };
        Ok(fixture)
    }

    /// Registers the marketplace in a fresh `home`, key pinned.
    fn add_marketplace(&self, bench: &Bench, home: &Path) -> Result<(), String> {
        fs::create_dir_all(home).map_err(|e| e.to_string())?;
        let mut cmd = Command::new(&bench.hooks);
        cmd.arg("--home").arg(home).args(["marketplace", "add", "market", &self.index_url]);
        cmd.arg("--key").arg(&self.public_key);
        run_quiet(cmd, &[0])
    }

    fn install(&self, bench: &Bench, home: &Path) -> Result<(), String> {
        let mut cmd = Command::new(&bench.hooks);
        cmd.arg("--home").arg(home).args(["plugin", "install", ID, "--yes"]);
        run_quiet(cmd, &[0])
    }

    /// `hooks list`: a session's load (the plugin layer re-verifies every plugin).
    fn list(&self, bench: &Bench, home: &Path) -> Result<(), String> {
        let mut cmd = Command::new(&bench.hooks);
        cmd.arg("--home").arg(home).arg("list").current_dir(&bench.scratch);
        run_quiet(cmd, &[0])
    }

    fn verify(&self, bench: &Bench, home: &Path) -> Result<(), String> {
        let mut cmd = Command::new(&bench.hooks);
        cmd.arg("--home").arg(home).args(["plugin", "verify", ID]);
        run_quiet(cmd, &[0])
    }
}
