//! `cargo xtask tidy`: repository rules checked as a test.
//!
//! - every Rust source file under `crates/` and `xtask/` starts with a `//!` doc comment;
//! - `hooks-core` depends only on its allow-list and uses no I/O APIs;
//! - no crate re-exports a glob (no `pub use module::*` in any source file), so every public
//!   API is exactly the list written in its files;
//! - `hooks-core`'s root exports at most [`CORE_ROOT_LIMIT`] names (each `pub use` name and
//!   each `pub mod`): the front door of ARCHITECTURE.md, the rest through the modules;
//! - no crate has an import circle: files that import each other in a loop (the graph and
//!   its rules are in [`imports`]);
//! - no file git tracks is over [`TRACKED_FILE_LIMIT`]: build outputs (an extension module
//!   `maturin develop` leaves beside the Python package, a binary) are made again, never
//!   committed;
//! - Rust sources under `crates/`, `xtask/` and `tests/` cite the repository's own pages:
//!   no document outside the repository by name ([`OUTSIDE_DOCS`]), and every
//!   page of `docs/` they cite (`spec.md#spec-7.5`) exists and has that anchor (an
//!   `id="..."` or a heading's slug).

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::Path;

mod imports;

/// Dependencies hooks-core may have (normal, non-dev). `url` is the WHATWG parser the HTTP
/// client uses: the http policy reads URLs with it (no I/O). `strsim`: the edit distance of
/// "did you mean" hints.
const CORE_ALLOWED: &[&str] =
    &["serde", "serde_json", "regex", "sha2", "thiserror", "schemars", "url", "strsim"];

/// APIs hooks-core must not use.
const CORE_FORBIDDEN: &[&str] =
    &["std::fs", "std::env", "std::process", "std::net", "tokio", "std::io::stdin", "println!"];

/// Names of documents that are not in the repository, which a comment must not cite (a
/// reader cannot follow them): the contract lives in `docs/spec.md` and
/// `docs/claude-code-contract.md`. Split with `concat!` so this file does not cite them.
const OUTSIDE_DOCS: &[&str] = &[
    concat!("SP", "EC"),
    concat!("CLAUDE-", "CODE"),
    concat!("DIA", "LECTS"),
    concat!("../", "shared"),
];

/// The most names (`pub use` names and `pub mod`s) `hooks-core`'s `lib.rs` may export.
const CORE_ROOT_LIMIT: usize = 35;

/// The largest file the repository may track, in bytes.
const TRACKED_FILE_LIMIT: u64 = 1024 * 1024;

/// Runs every check and reports all failures at once.
pub(crate) fn run(root: &Path) -> Result<(), String> {
    let mut problems = Vec::new();
    for dir in ["crates", "xtask"] {
        walk(&root.join(dir), &mut |path| {
            if path.extension().is_some_and(|e| e == "rs") && !is_test_file(path) {
                check_module_doc(path, &mut problems);
            }
        });
    }
    check_core_deps(&root.join("crates/hooks-core/Cargo.toml"), &mut problems);
    walk(&root.join("crates/hooks-core/src"), &mut |path| {
        if path.extension().is_some_and(|e| e == "rs") {
            check_core_io(path, &mut problems);
        }
    });
    for dir in ["crates", "xtask"] {
        walk(&root.join(dir), &mut |path| {
            if path.extension().is_some_and(|e| e == "rs") && !is_test_file(path) {
                check_explicit_exports(path, &mut problems);
            }
        });
    }
    check_core_root(&root.join("crates/hooks-core/src/lib.rs"), &mut problems);
    check_import_cycles(root, &mut problems);
    check_tracked_sizes(root, &mut problems);
    check_citations(root, &mut problems);
    if problems.is_empty() { Ok(()) } else { Err(problems.join("\n")) }
}

/// The crate roots whose file import graph must have no circle: every library and binary
/// root of the workspace's crates.
fn crate_roots(root: &Path) -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<_> = fs::read_dir(root.join("crates"))
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    dirs.sort();
    dirs.push(root.join("xtask"));
    dirs.push(root.join("tests"));
    let files = ["src/lib.rs", "src/main.rs"];
    dirs.iter().flat_map(|dir| files.map(|f| dir.join(f))).filter(|p| p.is_file()).collect()
}

/// Each crate's file import graph has no circle; a circle is named by its files in order.
fn check_import_cycles(root: &Path, problems: &mut Vec<String>) {
    for crate_root in crate_roots(root) {
        for circle in imports::Graph::of_crate(&crate_root, root).cycles() {
            problems.push(format!(
                "import circle: {} -> {}; move what they share into the lower file or a leaf \
                 module",
                circle.join(" -> "),
                circle[0]
            ));
        }
    }
}

/// Every file `git ls-files` lists is at most [`TRACKED_FILE_LIMIT`] bytes (outside a git
/// checkout there is nothing to check).
fn check_tracked_sizes(root: &Path, problems: &mut Vec<String>) {
    let Ok(out) =
        std::process::Command::new("git").arg("-C").arg(root).args(["ls-files", "-z"]).output()
    else {
        return;
    };
    if !out.status.success() {
        return;
    }
    for name in out.stdout.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(name);
        let Ok(meta) = fs::metadata(root.join(name.as_ref())) else { continue };
        if meta.len() > TRACKED_FILE_LIMIT {
            problems.push(format!(
                "{name}: {} bytes is over the {TRACKED_FILE_LIMIT} a tracked file may have; \
                 build outputs are made again, not committed",
                meta.len()
            ));
        }
    }
}

fn is_test_file(path: &Path) -> bool {
    path.components()
        .any(|c| matches!(c.as_os_str().to_str(), Some("tests" | "benches" | "target")))
}

fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.file_name().is_some_and(|n| n == "target") {
            continue;
        }
        if path.is_dir() { walk(&path, f) } else { f(&path) }
    }
}

fn check_module_doc(path: &Path, problems: &mut Vec<String>) {
    let Ok(text) = fs::read_to_string(path) else { return };
    if !text.trim_start().starts_with("//!") {
        problems.push(format!("{}: must start with a `//!` module doc", path.display()));
    }
}

fn check_core_deps(manifest: &Path, problems: &mut Vec<String>) {
    let Ok(text) = fs::read_to_string(manifest) else {
        problems.push(format!("{}: unreadable", manifest.display()));
        return;
    };
    let mut in_deps = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if !in_deps || line.is_empty() || line.starts_with('#') {
            continue;
        }
        let name = line.split(['=', '.', ' ']).next().unwrap_or("").trim();
        if !CORE_ALLOWED.contains(&name) {
            problems.push(format!(
                "{}: dependency `{name}` is not on hooks-core's allow-list {CORE_ALLOWED:?}",
                manifest.display()
            ));
        }
    }
}

fn check_core_io(path: &Path, problems: &mut Vec<String>) {
    let Ok(text) = fs::read_to_string(path) else { return };
    // Test modules may print; everything before `#[cfg(test)]` is library code.
    let lib = text.split("#[cfg(test)]").next().unwrap_or("");
    for (n, line) in lib.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for api in CORE_FORBIDDEN {
            if code.contains(api) {
                problems.push(format!(
                    "{}:{}: hooks-core does no I/O; `{api}` is not allowed",
                    path.display(),
                    n + 1
                ));
            }
        }
    }
}

/// `hooks-core`'s crate root exports at most [`CORE_ROOT_LIMIT`] names.
fn check_core_root(path: &Path, problems: &mut Vec<String>) {
    let Ok(text) = fs::read_to_string(path) else {
        problems.push(format!("{}: unreadable", path.display()));
        return;
    };
    problems.extend(core_root_problem(&text).map(|p| format!("{}: {p}", path.display())));
}

/// The problem with a crate root exporting more than [`CORE_ROOT_LIMIT`] names, if it does.
fn core_root_problem(text: &str) -> Option<String> {
    let names = imports::root_exports(text);
    (names.len() > CORE_ROOT_LIMIT).then(|| {
        format!(
            "{} names at the crate root (`pub use` names and `pub mod`s), at most \
             {CORE_ROOT_LIMIT}: keep what a host needs most there, reach the rest through its \
             module ({})",
            names.len(),
            names.join(", ")
        )
    })
}

fn check_explicit_exports(path: &Path, problems: &mut Vec<String>) {
    let Ok(text) = fs::read_to_string(path) else {
        problems.push(format!("{}: unreadable", path.display()));
        return;
    };
    // Test modules (after `#[cfg(test)]`) re-export nothing; their texts may spell one.
    let lib = text.split("#[cfg(test)]").next().unwrap_or("");
    for line in glob_reexports(lib) {
        problems.push(format!(
            "{}:{line}: glob re-export; list the names hosts use (`pub use module::{{A, b}}`)",
            path.display()
        ));
    }
}

/// The 1-based lines where a `pub use` statement that re-exports a glob starts: `pub use
/// a::*;`, `pub use a::{b, c::*};` (`use` and `pub(crate) use` are not re-exports).
fn glob_reexports(text: &str) -> Vec<usize> {
    // Comments removed, line breaks kept, so offsets still give line numbers.
    let code: String = text
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut lines = Vec::new();
    let mut rest = code.as_str();
    let mut offset = 0;
    while let Some(at) = rest.find("pub use ") {
        let start = offset + at;
        let statement = &code[start..];
        let end = statement.find(';').unwrap_or(statement.len());
        if statement[..end].contains('*') {
            lines.push(code[..start].matches('\n').count() + 1);
        }
        offset = start + end.max(1);
        rest = &code[offset..];
    }
    lines
}

/// Every `.rs` file under `crates/`, `xtask/` and `tests/` (test files included) cites no
/// document outside the repository, and only `docs/` pages and anchors that exist.
fn check_citations(root: &Path, problems: &mut Vec<String>) {
    let mut pages: HashMap<String, Option<HashSet<String>>> = HashMap::new();
    for dir in ["crates", "xtask", "tests"] {
        walk(&root.join(dir), &mut |path| {
            if path.extension().is_none_or(|e| e != "rs") {
                return;
            }
            let Ok(text) = fs::read_to_string(path) else { return };
            let shown = path.strip_prefix(root).unwrap_or(path).display();
            for (line, name) in outside_citations(&text) {
                problems.push(format!(
                    "{shown}:{line}: cites `{name}`, which is not in the repository; cite \
                     the pages of docs/ (spec.md#spec-7.5, claude-code-contract.md#cc-6.5)"
                ));
            }
            for link in doc_links(&text) {
                let anchors = pages.entry(link.page.clone()).or_insert_with(|| {
                    fs::read_to_string(root.join("docs").join(&link.page))
                        .ok()
                        .map(|page| page_anchors(&page))
                });
                let line = link.line;
                match (anchors, &link.anchor) {
                    (None, _) => problems.push(format!(
                        "{shown}:{line}: cites docs/{}, which does not exist",
                        link.page
                    )),
                    (Some(ids), Some(anchor)) if !ids.contains(anchor) => problems.push(format!(
                        "{shown}:{line}: cites docs/{}#{anchor}, an anchor that page lacks",
                        link.page
                    )),
                    _ => {}
                }
            }
        });
    }
}

/// The 1-based lines citing a document of [`OUTSIDE_DOCS`], with the name: as a whole word
/// (alone or with `.md`, not inside an identifier such as `APP_…IFIC_PASSWORD` or an
/// environment variable with `_`), and the path to the folder beside the repository anywhere.
fn outside_citations(text: &str) -> Vec<(usize, &'static str)> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for name in OUTSIDE_DOCS {
            let whole_word = name.chars().all(|c| is_word(c) || c == '-');
            let hit = line.match_indices(name).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                let after = line[at + name.len()..].chars().next();
                !whole_word
                    || (!before.is_some_and(|c| is_word(c) || c == '-')
                        && !after.is_some_and(|c| is_word(c) || c == '-'))
            });
            if hit {
                found.push((n + 1, *name));
            }
        }
    }
    found
}

/// One page of `docs/` (and its anchor, when given) a source file cites.
#[derive(Debug, PartialEq)]
struct DocLink {
    line: usize,
    page: String,
    anchor: Option<String>,
}

/// Every `docs/` page cited in `text`, with its `#anchor` when given (a page name of letters,
/// digits, `-` and `_`; an anchor of those and `.`, without a sentence's final `.`).
fn doc_links(text: &str) -> Vec<DocLink> {
    let name_char = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let mut links = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for (at, _) in line.match_indices("docs/") {
            if line[..at].ends_with(|c: char| name_char(c) || c == '/' || c == '.') {
                continue;
            }
            let rest = &line[at + "docs/".len()..];
            let name_len = rest.find(|c: char| !name_char(c)).unwrap_or(rest.len());
            let Some(after) = rest[name_len..].strip_prefix(".md") else { continue };
            if name_len == 0 || after.starts_with(|c: char| c.is_ascii_alphanumeric()) {
                continue;
            }
            let anchor = after.strip_prefix('#').map(|a| {
                let len = a.find(|c: char| !name_char(c) && c != '.').unwrap_or(a.len());
                a[..len].trim_end_matches('.').to_owned()
            });
            let page = format!("{}.md", &rest[..name_len]);
            links.push(DocLink { line: n + 1, page, anchor: anchor.filter(|a| !a.is_empty()) });
        }
    }
    links
}

/// The anchors of a Markdown page: every `id="..."` (an `<a id>` before a rule) and the
/// GitHub slug of every heading.
fn page_anchors(markdown: &str) -> HashSet<String> {
    let mut ids = HashSet::new();
    let mut rest = markdown;
    while let Some(at) = rest.find("id=\"") {
        rest = &rest[at + 4..];
        let Some(end) = rest.find('"') else { break };
        ids.insert(rest[..end].to_owned());
        rest = &rest[end..];
    }
    let mut fenced = false;
    for line in markdown.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            ids.insert(heading_slug(line.trim_start_matches('#')));
        }
    }
    ids
}

/// GitHub's anchor for a heading: HTML tags dropped, lower-cased, every character but
/// letters, digits, `-`, `_` and spaces removed, spaces turned into `-`.
fn heading_slug(heading: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in heading.trim().chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{
        CORE_ROOT_LIMIT, DocLink, OUTSIDE_DOCS, core_root_problem, doc_links, glob_reexports,
        heading_slug, outside_citations, page_anchors,
    };

    #[test]
    fn a_root_over_the_limit_is_refused() {
        let names: Vec<String> = (0..CORE_ROOT_LIMIT).map(|n| format!("N{n}")).collect();
        let at_limit = format!("pub use a::{{{}}};\n", names.join(", "));
        assert_eq!(core_root_problem(&at_limit), None);
        let over = format!("{at_limit}pub mod one_more;\n");
        let problem = core_root_problem(&over).unwrap_or_default();
        assert!(problem.starts_with("36 names at the crate root"), "{problem}");
    }

    #[test]
    fn glob_reexports_are_found_with_their_lines() {
        let text = "//! Doc.\n\
                    mod a;\n\
                    pub use a::*;\n\
                    pub use b::{One, Two};\n\
                    // pub use commented::*;\n\
                    pub use c::{\n    Three,\n    d::*,\n};\n\
                    use e::*;\n\
                    pub(crate) use g::*;\n\
                    pub use f::Four; // not * here\n";
        assert_eq!(glob_reexports(text), [3, 6]);
        assert_eq!(glob_reexports("pub use a::{A, B};\npub use b::C;\n"), Vec::<usize>::new());
    }

    #[test]
    fn outside_documents_are_found_by_whole_name() {
        let [spec, cc, dialects, shared] = OUTSIDE_DOCS else { panic!("four names") };
        let text = format!(
            "//! Doc.\n\
             // as {spec} 4.2 says\n\
             // ({cc}.md 6.5 rule 8)\n\
             let x = APP_{spec}IFIC_PASSWORD; // {spec}S and {spec}_X are not it\n\
             // CLAUDE_CODE_SESSION_ID is a variable\n\
             // see {dialects}.md\n\
             // read ../../{shared}/x\n\
             // {spec}.md\n"
        );
        assert_eq!(
            outside_citations(&text),
            [(2, *spec), (3, *cc), (6, *dialects), (7, *shared), (8, *spec)]
        );
        assert!(outside_citations("// docs/spec.md#spec-7.5\n").is_empty());
    }

    #[test]
    fn doc_links_are_read_with_their_anchors() {
        let text = "// see docs/spec.md#spec-7.5.\n\
                    // (docs/claude-code-contract.md#cc-6.5-8, docs/claude-code.md)\n\
                    // docs/claude-code-contract.md#cc-F53's row; not mydocs/x.md nor docs/x.mdx\n\
                    // crates/docs/y.md is not a page either; docs/serve.md#\n";
        let link = |line, page: &str, anchor: Option<&str>| DocLink {
            line,
            page: page.to_owned(),
            anchor: anchor.map(str::to_owned),
        };
        assert_eq!(
            doc_links(text),
            [
                link(1, "spec.md", Some("spec-7.5")),
                link(2, "claude-code-contract.md", Some("cc-6.5-8")),
                link(2, "claude-code.md", None),
                link(3, "claude-code-contract.md", Some("cc-F53")),
                link(4, "serve.md", None),
            ]
        );
    }

    #[test]
    fn page_anchors_are_ids_and_heading_slugs() {
        let page = "# The claude-code profile\n\
                    ## <a id=\"cc-6\"></a>6. Command handlers\n\
                    <a id=\"cc-6.5\"></a>6.5 **Exit codes**\n\
                    ```\n# not a heading\n```\n\
                    ### `CLAUDE_ENV_FILE`, the env file\n";
        let ids = page_anchors(page);
        for id in ["cc-6", "cc-6.5", "the-claude-code-profile", "6-command-handlers"] {
            assert!(ids.contains(id), "{id} in {ids:?}");
        }
        assert!(ids.contains("claude_env_file-the-env-file"), "{ids:?}");
        assert!(!ids.contains("not-a-heading"));
        assert_eq!(heading_slug(" Events (1.2, 4.1) "), "events-12-41");
    }
}
