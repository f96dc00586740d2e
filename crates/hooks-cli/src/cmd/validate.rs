//! `hooks validate [FILE...]`: checks hook files and reports each problem as a source-span
//! report (file:line:column, the line, a caret, the reason).
//!
//! Without files, every source the one loader finds (`Setup::sources`, the same a session
//! loads) is checked, whether it loads or not (checking runs nothing): the project file
//! (trusted or not), the user file, the installed plugins' and the `--plugin-dir`
//! documents. The loader's and the plugin host's diagnostics are reported as they are
//! (so an untrusted project file comes with its `project_untrusted` warning), and each file
//! that does not load is named with the reason. The files are compiled together as a
//! snapshot, so matcher errors are found too.
//!
//! Exit 1 when any error-level problem exists. Severities are the engine's, the same in
//! `run`, `serve` and `list`: whatever does not load (an unreadable file, a dropped entry,
//! a group rejected for its matcher) is an error; a warning loads anyway.

use hooks_core::snapshot::sha256_hex;
use hooks_core::{
    ConfigKind, Diagnostic, LayerDocument,
    config::parse_config_for,
    diag::{Severity, codes},
    snapshot::{Layer, PluginInfo},
};
use hooks_exec::{Source, check_sources};
use serde_json::json;

use crate::cli::{FileKind, ValidateArgs};
use crate::context::Ctx;
use crate::layers::{Setup, absolute};
use crate::report;

/// Validates the files and prints the reports.
pub(crate) fn run(cx: &mut Ctx<'_>, args: &ValidateArgs) -> anyhow::Result<i32> {
    let profile = crate::layers::profile(cx.global, cx.env)?;
    let (files, mut diagnostics) = if args.files.is_empty() {
        let loaded = Setup::new(cx.global, cx.env)?.sources(cx.global);
        let mut diagnostics = loaded.diagnostics;
        diagnostics.extend(loaded.plugin_diagnostics);
        (loaded.sources, diagnostics)
    } else {
        explicit_files(cx, args, profile)
    };
    diagnostics.extend(check_sources(&files, profile).diagnostics().iter().cloned());
    // File order (the snapshot orders by layer); stable within one file.
    let rank = |d: &Diagnostic| {
        files
            .iter()
            .position(|f| d.source.as_deref() == Some(&f.document.source))
            .unwrap_or(usize::MAX)
    };
    diagnostics.sort_by_key(|d| (rank(d), d.line.unwrap_or(0), d.column.unwrap_or(0)));
    let count = |s: Severity| diagnostics.iter().filter(|d| d.severity == s).count();
    let (errors, warnings, infos) =
        (count(Severity::Error), count(Severity::Warning), count(Severity::Info));
    if cx.global.json {
        let value = json!({
            "files": files.iter().map(|f| json!({
                "path": f.path.display().to_string(),
                "layer": f.document.layer.label(),
                "loads": f.loads(),
                "reason": f.document.inactive.as_ref().map(|(_, why)| why),
            })).collect::<Vec<_>>(),
            "diagnostics": crate::hints::diagnostics_json(&diagnostics),
            "errors": errors,
            "warnings": warnings,
            "infos": infos,
        });
        writeln!(cx.out, "{}", crate::cmd::json::pretty(&value)?)?;
        return Ok(i32::from(errors > 0));
    }
    for d in &diagnostics {
        let file = d.source.as_deref().and_then(|s| files.iter().find(|f| f.document.source == s));
        // Documents a host passed in parsed (plugins) are read again only to show the line.
        let shown =
            file.map(|f| f.bytes.clone().or_else(|| hooks_exec::fs::read_regular(&f.path).ok()));
        writeln!(cx.out, "{}", report::render(d, shown.flatten().as_deref(), cx.out_style))?;
    }
    if files.is_empty() && diagnostics.is_empty() {
        writeln!(cx.out, "no hook files found")?;
        return Ok(0);
    }
    for f in files.iter().filter(|f| !f.loads()) {
        let why = f.document.inactive.as_ref().map_or("", |(_, why)| why.as_str());
        let path = hooks_core::text::escape_control(&f.path.display().to_string());
        writeln!(cx.out, "not loaded: {path} ({})", hooks_core::text::escape_control(why))?;
    }
    let summary = format!(
        "{} {}: {errors} {}, {warnings} {}, {infos} info",
        files.len(),
        plural(files.len(), "file", "files"),
        plural(errors, "error", "errors"),
        plural(warnings, "warning", "warnings"),
    );
    let summary =
        if errors > 0 { cx.out_style.red_bold(&summary) } else { cx.out_style.green(&summary) };
    writeln!(cx.out, "checked {summary}")?;
    Ok(i32::from(errors > 0))
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// Reads the files named on the command line; an unreadable one is an error diagnostic.
/// The files named on the command line, each parsed as the profile's files are (cursor's
/// flat schema under `--profile cursor`).
fn explicit_files(
    cx: &Ctx<'_>,
    args: &ValidateArgs,
    profile: hooks_core::Profile,
) -> (Vec<Source>, Vec<Diagnostic>) {
    let (kind, layer) = match args.kind {
        FileKind::Project => (ConfigKind::Project, Layer::Project),
        FileKind::User => (ConfigKind::User, Layer::User),
        FileKind::Plugin => (ConfigKind::Plugin, Layer::User),
    };
    let mut files = Vec::new();
    let mut diagnostics = Vec::new();
    for (i, name) in args.files.iter().enumerate() {
        let shown = name.display().to_string();
        // A regular file of at most 16 MiB: a FIFO or a device is an error at once.
        match hooks_exec::fs::read_regular(&absolute(name, &cx.env.cwd)) {
            Ok(bytes) => {
                let layer = if kind == ConfigKind::Plugin {
                    // Each plugin document its own plugin, so files do not merge.
                    Layer::Plugin(PluginInfo {
                        id: format!("{i:04}@validate"),
                        version: None,
                        root: String::new(),
                        data_dir: String::new(),
                        digest: None,
                        ..Default::default()
                    })
                } else {
                    layer.clone()
                };
                let parsed = parse_config_for(&bytes, &shown, kind, profile);
                files.push(Source {
                    path: name.clone(),
                    sha256: Some(sha256_hex(&bytes)),
                    bytes: Some(bytes),
                    document: LayerDocument::new(layer, shown, parsed),
                    settings: None,
                });
            }
            Err(e) => diagnostics.push(
                Diagnostic::error(
                    codes::CONFIG_READ_FAILED,
                    format!("Failed to read hooks config at {shown}: {e}"),
                )
                .with_source(shown),
            ),
        }
    }
    (files, diagnostics)
}
