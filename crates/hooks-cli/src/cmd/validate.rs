//! `hooks validate [FILE...]`: checks hook files and reports each problem as a source-span
//! report (file:line:column, the line, a caret, the reason).
//!
//! Without files, every discovered layer is checked: the project file (trusted or not:
//! checking runs nothing), the user file and the `--plugin-dir` documents. The files are
//! compiled together as a snapshot, so matcher errors are found too.
//!
//! Exit 1 when any error-level problem exists. A bad matcher (`invalid_matcher`,
//! `unsupported_matcher`) drops its group, so validation counts it as an error even though
//! a session reports it as a warning.

use hooks_core::{
    ConfigKind, Diagnostic, Layer, LayerDocument, PluginInfo, Severity, Snapshot, SnapshotOptions,
    codes, parse_config,
};
use serde_json::json;

use crate::cli::{FileKind, ValidateArgs};
use crate::context::Ctx;
use crate::layers::{Setup, SourceFile, absolute};
use crate::report;

/// Validates the files and prints the reports.
pub(crate) fn run(cx: &mut Ctx<'_>, args: &ValidateArgs) -> anyhow::Result<i32> {
    let (files, mut diagnostics) = if args.files.is_empty() {
        Setup::new(cx.global, cx.env)?.discovered_files()
    } else {
        explicit_files(cx, args)
    };
    diagnostics.extend(check(&files));
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = diagnostics.len() - errors;
    if cx.global.json {
        let value = json!({
            "files": files.iter().map(|f| json!({
                "path": f.path.display().to_string(),
                "layer": f.layer.label(),
            })).collect::<Vec<_>>(),
            "diagnostics": diagnostics,
            "errors": errors,
            "warnings": warnings,
        });
        writeln!(cx.out, "{}", serde_json::to_string_pretty(&value)?)?;
        return Ok(i32::from(errors > 0));
    }
    for d in &diagnostics {
        let text = d
            .source
            .as_deref()
            .and_then(|s| files.iter().find(|f| f.path.display().to_string() == s))
            .map(|f| f.bytes.as_slice());
        writeln!(cx.out, "{}", report::render(d, text, cx.out_style))?;
    }
    if files.is_empty() && diagnostics.is_empty() {
        writeln!(cx.out, "no hook files found")?;
        return Ok(0);
    }
    let summary = format!(
        "{} {}: {errors} {}, {warnings} {}",
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
fn explicit_files(cx: &Ctx<'_>, args: &ValidateArgs) -> (Vec<SourceFile>, Vec<Diagnostic>) {
    let (kind, layer) = match args.kind {
        FileKind::Project => (ConfigKind::Project, Layer::Project),
        FileKind::User => (ConfigKind::User, Layer::User),
        FileKind::Plugin => (ConfigKind::Plugin, Layer::User),
    };
    let mut files = Vec::new();
    let mut diagnostics = Vec::new();
    for (i, name) in args.files.iter().enumerate() {
        let shown = name.display().to_string();
        match std::fs::read(absolute(name, &cx.env.cwd)) {
            Ok(bytes) => {
                let layer = if kind == ConfigKind::Plugin {
                    // Each plugin document its own plugin, so files do not merge.
                    Layer::Plugin(PluginInfo {
                        id: format!("{i:04}@validate"),
                        version: None,
                        root: String::new(),
                        data_dir: String::new(),
                        digest: None,
                    })
                } else {
                    layer.clone()
                };
                files.push(SourceFile { path: name.clone(), kind, layer, bytes });
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

/// Every problem in `files`: parse diagnostics and matcher rejections, in file order.
pub(crate) fn check(files: &[SourceFile]) -> Vec<Diagnostic> {
    let docs: Vec<LayerDocument> = files
        .iter()
        .map(|f| {
            let source = f.path.display().to_string();
            LayerDocument::new(
                f.layer.clone(),
                source.clone(),
                parse_config(&f.bytes, &source, f.kind),
            )
        })
        .collect();
    let snapshot = Snapshot::build(docs, &SnapshotOptions::default());
    let mut out: Vec<Diagnostic> = snapshot.diagnostics().to_vec();
    for d in &mut out {
        if d.code == codes::INVALID_MATCHER || d.code == codes::UNSUPPORTED_MATCHER {
            d.severity = Severity::Error;
        }
    }
    // File order (the snapshot orders by layer); stable within one file.
    let rank = |d: &Diagnostic| {
        files
            .iter()
            .position(|f| d.source.as_deref() == Some(&f.path.display().to_string()))
            .unwrap_or(usize::MAX)
    };
    out.sort_by_key(|d| (rank(d), d.line.unwrap_or(0), d.column.unwrap_or(0)));
    out
}
