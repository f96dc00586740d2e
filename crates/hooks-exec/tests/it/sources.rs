//! The one loader (`Sources::load`) and the trust review built on it.

use std::path::Path;
use std::time::SystemTime;

use hooks_core::snapshot::sha256_hex;
use hooks_core::{
    ConfigKind, Diagnostic, LayerDocument, parse_config,
    snapshot::{InactiveStatus, Layer, PluginInfo},
};
use hooks_exec::{
    AppNames, LoadRequest, Paths, ProjectGrant, Sources, TrustState, TrustStore, TrustSubject,
};

use crate::support::TempDir;

const BAD_TIMEOUT: &str =
    r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "timeout": "5"}]}]}}"#;
const ONE: &str = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "one"}]}]}}"#;
const TWO: &str = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "two"}]}]}}"#;

fn setup(project: Option<&str>, user: Option<&str>) -> (TempDir, Paths) {
    let tmp = TempDir::new();
    std::fs::create_dir_all(tmp.path().join("p/.git")).unwrap();
    let root = std::fs::canonicalize(tmp.path().join("p")).unwrap();
    let paths = Paths::new(root, tmp.path().join("home"), &AppNames::default());
    if let Some(text) = project {
        write(&paths.project_file, text);
    }
    if let Some(text) = user {
        write(&paths.home.user_file(), text);
    }
    (tmp, paths)
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn codes(diagnostics: &[Diagnostic]) -> Vec<&str> {
    diagnostics.iter().map(|d| d.code.as_str()).collect()
}

#[test]
fn untrusted_project_is_a_source_that_does_not_load() {
    let (_tmp, paths) = setup(Some(BAD_TIMEOUT), Some(BAD_TIMEOUT));
    let sources = Sources::load(&paths, LoadRequest::default());
    assert_eq!(codes(&sources.diagnostics), ["project_untrusted"]);
    assert_eq!(sources.diagnostics[0].subject.as_deref(), paths.project_root.to_str());
    let project = sources.project().unwrap();
    assert!(!project.loads());
    assert!(matches!(project.document.inactive, Some((InactiveStatus::Untrusted, _))));
    assert_eq!(project.bytes.as_deref(), Some(BAD_TIMEOUT.as_bytes()));
    assert_eq!(project.sha256.as_deref(), Some(sha256_hex(BAD_TIMEOUT.as_bytes()).as_str()));
    assert!(sources.sources[1].loads());
    assert_eq!(sources.sources[1].document.layer, Layer::User);

    // Validation checks both files; a session reports the loaded file's problem only.
    let checked = sources.check();
    assert_eq!(codes(checked.diagnostics()), ["invalid_config", "invalid_config"]);
    let (snapshot, diagnostics) = sources.into_snapshot(Vec::new());
    assert_eq!(codes(&diagnostics), ["project_untrusted", "invalid_config"]);
    assert_eq!(diagnostics[1].source.as_deref(), paths.home.user_file().to_str());
    assert!(snapshot.handlers().iter().all(|h| !h.is_active()));
}

#[test]
fn headless_grant_loads_the_project_file_read_by_the_host() {
    let (_tmp, paths) = setup(Some(ONE), None);
    let read = hooks_exec::read_layer_file(&paths.project_file);
    // The file changes after the host read it: the bytes read are the bytes loaded.
    write(&paths.project_file, TWO);
    let request = LoadRequest {
        grant: ProjectGrant::BytesAtStart,
        project_file: Some(read),
        ..LoadRequest::default()
    };
    let sources = Sources::load(&paths, request);
    assert!(sources.diagnostics.is_empty(), "{:?}", sources.diagnostics);
    let project = sources.project().unwrap();
    assert!(project.loads());
    assert_eq!(project.bytes.as_deref(), Some(ONE.as_bytes()));
}

#[test]
fn plugin_documents_and_diagnostics_pass_through_once() {
    let (_tmp, paths) = setup(None, None);
    let info = PluginInfo {
        id: "lint@m".into(),
        version: None,
        root: "/plug".into(),
        data_dir: String::new(),
        digest: None,
        ..Default::default()
    };
    let parsed = parse_config(BAD_TIMEOUT.as_bytes(), "/plug/hooks/hooks.json", ConfigKind::Plugin);
    let mut disabled = LayerDocument::new(
        Layer::Plugin(PluginInfo { id: "off@m".into(), ..info.clone() }),
        "/off/hooks/hooks.json",
        parse_config(BAD_TIMEOUT.as_bytes(), "/off/hooks/hooks.json", ConfigKind::Plugin),
    );
    disabled.inactive = Some((InactiveStatus::Disabled, "plugin off@m is disabled".into()));
    let request = LoadRequest {
        plugin_documents: vec![
            LayerDocument::new(Layer::Plugin(info), "/plug/hooks/hooks.json", parsed),
            disabled,
        ],
        plugin_diagnostics: vec![Diagnostic::warning("plugin_unverified", "not verified")],
        ..LoadRequest::default()
    };
    let sources = Sources::load(&paths, request);
    assert_eq!(sources.sources.len(), 2);
    assert_eq!(codes(sources.check().diagnostics()), ["invalid_config", "invalid_config"]);
    let (_, diagnostics) = sources.into_snapshot(Vec::new());
    assert_eq!(codes(&diagnostics), ["plugin_unverified", "invalid_config"]);
    assert_eq!(diagnostics[1].source.as_deref(), Some("/plug/hooks/hooks.json"));
}

#[test]
fn trust_review_shows_changes_since_the_trusted_contents() {
    let (_tmp, paths) = setup(Some(ONE), None);
    let label = ".deepagents/hooks.json";
    let TrustSubject::Review(review) =
        TrustSubject::of(&Sources::load(&paths, LoadRequest::default()), label)
    else {
        panic!("expected a review");
    };
    assert_eq!(review.state, TrustState::Untrusted);
    assert!(review.changes.is_none());
    assert_eq!(review.snapshot.handlers().len(), 1);
    assert_eq!(review.snapshot.handlers()[0].id.as_deref(), Some("Stop:0:0"));
    assert!(!review.is_trusted());
    let digest = review.grant(SystemTime::now()).unwrap();
    assert_eq!(digest, review.sha256);

    let sources = Sources::load(&paths, LoadRequest::default());
    assert!(sources.project().unwrap().loads());
    let TrustSubject::Review(review) = TrustSubject::of(&sources, label) else { panic!() };
    assert!(review.is_trusted());

    write(&paths.project_file, TWO);
    let TrustSubject::Review(review) =
        TrustSubject::of(&Sources::load(&paths, LoadRequest::default()), label)
    else {
        panic!("expected a review");
    };
    assert!(matches!(review.state, TrustState::Changed { trusted_sha256: Some(_), .. }));
    let diff = review.changes.as_ref().unwrap();
    let shown = |hooks: &[hooks_core::diff::HookSummary]| {
        hooks.iter().map(|h| h.to_string()).collect::<Vec<_>>()
    };
    assert_eq!(shown(&diff.added), ["Stop command \"two\" (.deepagents/hooks.json)"]);
    assert_eq!(shown(&diff.removed), ["Stop command \"one\" (.deepagents/hooks.json)"]);
    assert_eq!(review.bytes, TWO.as_bytes());
    // The grant trusts the reviewed bytes.
    review.grant(SystemTime::now()).unwrap();
    let store = TrustStore::open(&paths.home.state_dir()).unwrap();
    assert!(matches!(
        store.check(&paths.project_root, &sha256_hex(TWO.as_bytes())),
        TrustState::Trusted { .. }
    ));
}

#[test]
fn trust_subjects_without_a_review() {
    let (_tmp, paths) = setup(None, None);
    assert!(matches!(
        TrustSubject::of(&Sources::load(&paths, LoadRequest::default()), "x"),
        TrustSubject::NoFile
    ));
    let tmp = TempDir::new();
    let home = tmp.path().join("u/.deepagents");
    write(&home.join("hooks.json"), ONE);
    let paths = Paths::new(tmp.path().join("u"), home, &AppNames::default());
    assert!(matches!(
        TrustSubject::of(&Sources::load(&paths, LoadRequest::default()), "x"),
        TrustSubject::UserFile
    ));
}
