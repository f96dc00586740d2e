//! The file import graph of one crate, and the import circles in it.
//!
//! The nodes are the crate's source files (found from the crate root through its `mod name;`
//! declarations); an edge `a -> b` means a path in `a` names an item of `b`: a `use` tree
//! (`use crate::x::Y`, `use super::Y`, `use child::Y`) or a qualified path in code
//! (`crate::x::f()`, `super::f()`, `alias::f()` after `use crate::x as alias`). The rules:
//!
//! - **the crate root is the front door, not a node of the graph**: its own imports and
//!   re-exports are not edges, and a path through a name it re-exports (`crate::Name`) is an
//!   edge to the file that defines `Name` (the root re-exports everything, so counting it
//!   would put every file on one circle);
//! - **test code is left out**: `#[cfg(test)]` items (a `mod tests { use super::*; }` in the
//!   file, or a `#[cfg(test)] mod tests;` file) and any item under `#[cfg(test)]`;
//! - **a child is part of its parent**: a path from a module up to one of its ancestors
//!   (`super::Item` in `parent/child.rs`, or `crate::parent::Item`) is no edge. A parent
//!   splits its file into children that see its private items; `parent.rs` using
//!   `child::Item` while the child uses `super::Other` is one module in several files, not
//!   a circle. A path from a child to a sibling, or to anything outside its parent, is an
//!   edge like any other, and so is the parent's path down to its child (the parent's
//!   `mod child;` declaration alone is none);
//! - inline modules (`mod inner { .. }`) belong to their file, `mod` declarations are no
//!   edges, and a path the graph cannot place (another crate, a local name) is no edge.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

/// A module path inside the crate: `["config", "suggest"]` for `crate::config::suggest`.
type ModPath = Vec<String>;

/// The import graph of one crate: its files and the edges between them.
#[derive(Debug, Default)]
pub(crate) struct Graph {
    /// Each file, by its name (its path relative to the workspace).
    files: Vec<String>,
    /// The edges, as indices into `files`.
    edges: BTreeMap<usize, BTreeSet<usize>>,
}

/// One parsed file: its module path, the modules it declares, its use trees and paths.
struct Parsed {
    /// Every module of the file (the file's own and its inline ones).
    modules: Vec<ModPath>,
    /// The `mod name;` declarations, each with the module path of the new child.
    children: Vec<ModPath>,
    /// Every path used, with the module it is used in (whole use trees flattened).
    uses: Vec<(ModPath, Vec<String>, Option<String>)>,
    /// Every qualified path in code (not in a use tree), with the module it is in.
    paths: Vec<(ModPath, Vec<String>)>,
}

impl Graph {
    /// The graph of the crate whose root file is `root` (`src/lib.rs`, `src/main.rs`), with
    /// files named relative to `base`.
    pub(crate) fn of_crate(root: &Path, base: &Path) -> Graph {
        let mut sources = Vec::new();
        let mut queue = vec![(root.to_path_buf(), Vec::new())];
        while let Some((path, module)) = queue.pop() {
            let Ok(text) = fs::read_to_string(&path) else { continue };
            let parsed = parse(&text, &module);
            for child in &parsed.children {
                if let Some(file) = child_file(&path, module.is_empty(), child) {
                    queue.push((file, child.clone()));
                }
            }
            let name = path.strip_prefix(base).unwrap_or(&path).display().to_string();
            sources.push((name, parsed));
        }
        Graph::build(sources)
    }

    /// The graph of in-memory files: `(file name, module path, text)`, the root first
    /// (its module path empty). The test helper behind [`Graph::of_crate`]'s rules.
    #[cfg(test)]
    fn of_texts(files: &[(&str, &[&str], &str)]) -> Graph {
        let sources = files
            .iter()
            .map(|(name, module, text)| {
                let module: ModPath = module.iter().map(|s| (*s).to_owned()).collect();
                ((*name).to_owned(), parse(text, &module))
            })
            .collect();
        Graph::build(sources)
    }

    fn build(sources: Vec<(String, Parsed)>) -> Graph {
        let mut owner: HashMap<ModPath, usize> = HashMap::new();
        for (index, (_, parsed)) in sources.iter().enumerate() {
            for module in &parsed.modules {
                owner.insert(module.clone(), index);
            }
        }
        let root = sources.iter().position(|(_, p)| p.modules.first().is_some_and(Vec::is_empty));
        let root_aliases = root.map(|r| aliases(&sources[r].1)).unwrap_or_default();
        let mut graph = Graph {
            files: sources.iter().map(|(name, _)| name.clone()).collect(),
            edges: BTreeMap::new(),
        };
        for (index, (_, parsed)) in sources.iter().enumerate() {
            if Some(index) == root {
                continue;
            }
            let file_aliases = aliases(parsed);
            let own = &parsed.modules[0];
            let resolver = Resolver { owner: &owner, root_aliases: &root_aliases };
            let uses = parsed.uses.iter().map(|(m, p, _)| (m, p));
            for (module, path) in uses.chain(parsed.paths.iter().map(|(m, p)| (m, p))) {
                let Some(target) = resolver.file_of(module, path, &file_aliases) else { continue };
                let up = sources[target].1.modules.first().is_some_and(|m| own.starts_with(m));
                if target != index && !up {
                    if std::env::var_os("IMPORTS_DEBUG").is_some() {
                        eprintln!(
                            "EDGE {} -> {} via {}",
                            sources[index].0,
                            sources[target].0,
                            path.join("::")
                        );
                    }
                    graph.edges.entry(index).or_default().insert(target);
                }
            }
        }
        graph
    }

    /// Every circle, each as the file names along it (the smallest file first, the
    /// circle closed by an edge back to it); one circle per strongly connected set.
    pub(crate) fn cycles(&self) -> Vec<Vec<String>> {
        let mut circles = Vec::new();
        for component in self.components() {
            let start = component[0];
            let cycle = if component.len() == 1 {
                if !self.edges.get(&start).is_some_and(|e| e.contains(&start)) {
                    continue;
                }
                vec![start]
            } else {
                self.path_back(start, &component)
            };
            circles.push(cycle.iter().map(|&i| self.files[i].clone()).collect());
        }
        circles
    }

    /// The strongly connected sets of more than one file (Tarjan), each sorted.
    fn components(&self) -> Vec<Vec<usize>> {
        struct State {
            index: Vec<Option<usize>>,
            low: Vec<usize>,
            on_stack: Vec<bool>,
            stack: Vec<usize>,
            next: usize,
            out: Vec<Vec<usize>>,
        }
        fn visit(graph: &Graph, v: usize, s: &mut State) {
            s.index[v] = Some(s.next);
            s.low[v] = s.next;
            s.next += 1;
            s.stack.push(v);
            s.on_stack[v] = true;
            for &w in graph.edges.get(&v).into_iter().flatten() {
                match s.index[w] {
                    None => {
                        visit(graph, w, s);
                        s.low[v] = s.low[v].min(s.low[w]);
                    }
                    Some(i) if s.on_stack[w] => s.low[v] = s.low[v].min(i),
                    Some(_) => {}
                }
            }
            if Some(s.low[v]) == s.index[v] {
                let mut component = Vec::new();
                while let Some(w) = s.stack.pop() {
                    s.on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort_by(|a, b| graph.files[*a].cmp(&graph.files[*b]));
                    s.out.push(component);
                }
            }
        }
        let n = self.files.len();
        let mut state = State {
            index: vec![None; n],
            low: vec![0; n],
            on_stack: vec![false; n],
            stack: Vec::new(),
            next: 0,
            out: Vec::new(),
        };
        for v in 0..n {
            if state.index[v].is_none() {
                visit(self, v, &mut state);
            }
        }
        state.out.sort();
        state.out
    }

    /// A shortest circle through `start` inside `component` (breadth first).
    fn path_back(&self, start: usize, component: &[usize]) -> Vec<usize> {
        let mut previous: HashMap<usize, usize> = HashMap::new();
        let mut frontier = vec![start];
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for &v in &frontier {
                for &w in self.edges.get(&v).into_iter().flatten() {
                    if !component.contains(&w) {
                        continue;
                    }
                    if w == start {
                        let mut cycle = vec![v];
                        while let Some(&p) = previous.get(cycle.last().unwrap_or(&start)) {
                            cycle.push(p);
                        }
                        cycle.reverse();
                        return cycle;
                    }
                    if w != start && !previous.contains_key(&w) {
                        previous.insert(w, v);
                        next.push(w);
                    }
                }
            }
            frontier = next;
        }
        vec![start]
    }
}

/// Where the paths of one file lead: which file owns each module, and the root's names.
struct Resolver<'a> {
    owner: &'a HashMap<ModPath, usize>,
    root_aliases: &'a HashMap<String, ModPath>,
}

impl Resolver<'_> {
    /// The file that defines what `path`, used in `module`, names; `None` outside the crate.
    fn file_of(
        &self,
        module: &ModPath,
        path: &[String],
        aliases: &HashMap<String, ModPath>,
    ) -> Option<usize> {
        let mut absolute = self.absolute(module, path, aliases)?;
        // A name the root re-exports leads to the file it comes from (a few hops at most).
        for _ in 0..4 {
            let Some(first) = absolute.first() else { break };
            if self.owner.contains_key(&absolute[..1].to_vec()) {
                break;
            }
            let Some(target) = self.root_aliases.get(first) else { break };
            absolute = target.iter().chain(&absolute[1..]).cloned().collect();
        }
        (0..=absolute.len()).rev().find_map(|n| self.owner.get(&absolute[..n].to_vec()).copied())
    }

    fn absolute(
        &self,
        module: &ModPath,
        path: &[String],
        aliases: &HashMap<String, ModPath>,
    ) -> Option<ModPath> {
        let first = path.first()?;
        match first.as_str() {
            "crate" => Some(path[1..].to_vec()),
            "self" => Some(module.iter().chain(&path[1..]).cloned().collect()),
            "super" => {
                let ups = path.iter().take_while(|s| *s == "super").count();
                let base = module.len().checked_sub(ups)?;
                Some(module[..base].iter().chain(&path[ups..]).cloned().collect())
            }
            _ => {
                let mut child = module.clone();
                child.push(first.clone());
                if self.owner.contains_key(&child) {
                    Some(module.iter().chain(path).cloned().collect())
                } else {
                    let target = aliases.get(first)?;
                    Some(target.iter().chain(&path[1..]).cloned().collect())
                }
            }
        }
    }
}

/// The names a file's use trees bring into scope, each with the path it stands for
/// (relative paths as written; resolved when used). `use x::*` brings no name.
fn aliases(parsed: &Parsed) -> HashMap<String, ModPath> {
    let mut names = HashMap::new();
    for (module, path, rename) in &parsed.uses {
        let Some(last) = path.last() else { continue };
        if last == "*" {
            continue;
        }
        let name = rename.clone().unwrap_or_else(|| last.clone());
        let absolute: ModPath = match path[0].as_str() {
            "crate" => path[1..].to_vec(),
            "self" => module.iter().chain(&path[1..]).cloned().collect(),
            "super" => {
                let ups = path.iter().take_while(|s| *s == "super").count();
                let Some(base) = module.len().checked_sub(ups) else { continue };
                module[..base].iter().chain(&path[ups..]).cloned().collect()
            }
            // A relative use (`use child::Item`): the child of the module it is in.
            _ if module.is_empty() => path.clone(),
            _ => module.iter().chain(path).cloned().collect(),
        };
        names.insert(name, absolute);
    }
    names
}

/// The file a `mod name;` declaration in `parent` loads: `dir/name.rs` or `dir/name/mod.rs`,
/// `dir` being the parent's folder for a crate root or `mod.rs`, else the parent's stem.
fn child_file(parent: &Path, parent_is_root: bool, child: &ModPath) -> Option<PathBuf> {
    let dir = parent.parent()?;
    let is_mod_rs = parent.file_name().is_some_and(|n| n == "mod.rs");
    let dir =
        if parent_is_root || is_mod_rs { dir.to_path_buf() } else { dir.join(parent.file_stem()?) };
    let name = child.last()?;
    [dir.join(format!("{name}.rs")), dir.join(name).join("mod.rs")]
        .into_iter()
        .find(|p| p.is_file())
}

/// The names a crate root file exports: each name a `pub use` brings in (its rename, if
/// any; a glob counts once, as `*`) and each `pub mod`, in order. `pub(crate)` items are
/// not exports; `#[cfg]`-gated ones are (the check counts every configuration).
pub(crate) fn root_exports(text: &str) -> Vec<String> {
    let tokens = tokens(text);
    let mut names = Vec::new();
    let word = |i: usize, w: &str| matches!(tokens.get(i), Some(Token::Ident(s)) if s == w);
    let mut i = 0;
    while i < tokens.len() {
        if !word(i, "pub") {
            i += 1;
            continue;
        }
        if word(i + 1, "mod") {
            if let Some(Token::Ident(name)) = tokens.get(i + 2) {
                names.push(name.clone());
            }
        } else if word(i + 1, "use") {
            let end = tokens[i..]
                .iter()
                .position(|t| *t == Token::Punct(';'))
                .map_or(tokens.len(), |p| i + p);
            let mut flat = Vec::new();
            use_tree(&tokens[i + 2..end], &mut Vec::new(), &mut flat);
            for (path, rename) in flat {
                names.extend(rename.or_else(|| path.last().cloned()));
            }
            i = end;
        }
        i += 1;
    }
    names
}

/// A token of Rust source, comments and literals removed.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    /// `::`
    Path,
    Punct(char),
}

/// The tokens of `text` that matter for paths: identifiers, `::` and punctuation. Comments,
/// string, byte-string, raw-string and char literals are dropped.
fn tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            i = skip_string(&chars, i + 1);
        } else if (c == 'r' || c == 'b') && raw_string_start(&chars, i).is_some() {
            let (hashes, open) = raw_string_start(&chars, i).unwrap_or((0, i));
            i = skip_raw_string(&chars, open + 1, hashes);
        } else if c == 'b' && at(i + 1) == '"' {
            i = skip_string(&chars, i + 2);
        } else if c == '\'' {
            // A char literal (`'a'`, `'\n'`) or a lifetime (`'a`): a lifetime keeps its name.
            if at(i + 1) == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            if word == "r" && at(i) == '#' && (at(i + 1).is_alphabetic() || at(i + 1) == '_') {
                continue; // a raw identifier: the name follows
            }
            out.push(Token::Ident(word));
        } else if c == ':' && at(i + 1) == ':' {
            out.push(Token::Path);
            i += 2;
        } else if c.is_whitespace() || c.is_numeric() {
            i += 1;
        } else {
            out.push(Token::Punct(c));
            i += 1;
        }
    }
    out
}

fn skip_string(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// At `r"`, `r#"`, `br"`, `br#"`: the number of `#` and the index of the opening quote.
fn raw_string_start(chars: &[char], i: usize) -> Option<(usize, usize)> {
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    if i > 0 && chars.get(i - 1).is_some_and(|c| c.is_alphanumeric() || *c == '_') {
        return None;
    }
    j += 1;
    let hashes = chars[j.min(chars.len())..].iter().take_while(|c| **c == '#').count();
    (chars.get(j + hashes) == Some(&'"')).then_some((hashes, j + hashes))
}

fn skip_raw_string(chars: &[char], mut i: usize, hashes: usize) -> usize {
    while i < chars.len() {
        if chars[i] == '"'
            && chars[i + 1..].iter().take(hashes).filter(|c| **c == '#').count() == hashes
        {
            return i + 1 + hashes;
        }
        i += 1;
    }
    i
}

/// Parses one file whose module path is `module`.
fn parse(text: &str, module: &ModPath) -> Parsed {
    let tokens = strip_test_items(tokens(text));
    let mut parsed = Parsed {
        modules: vec![module.clone()],
        children: Vec::new(),
        uses: Vec::new(),
        paths: Vec::new(),
    };
    // The module each `{` depth belongs to: inline `mod name {` opens a new one.
    let mut scopes: Vec<(usize, ModPath)> = vec![(0, module.clone())];
    let mut depth = 0usize;
    let mut i = 0;
    let ident = |i: usize| match tokens.get(i) {
        Some(Token::Ident(s)) => Some(s.as_str()),
        _ => None,
    };
    while i < tokens.len() {
        let current = scopes.last().map(|(_, m)| m.clone()).unwrap_or_default();
        match &tokens[i] {
            Token::Punct('{') => depth += 1,
            Token::Punct('}') => {
                if scopes.len() > 1 && scopes.last().is_some_and(|(d, _)| *d == depth) {
                    scopes.pop();
                }
                depth = depth.saturating_sub(1);
            }
            Token::Ident(word) if word == "mod" && ident(i + 1).is_some() => {
                let mut child = current.clone();
                child.push(ident(i + 1).unwrap_or_default().to_owned());
                match tokens.get(i + 2) {
                    Some(Token::Punct(';')) => parsed.children.push(child),
                    Some(Token::Punct('{')) => {
                        depth += 1;
                        scopes.push((depth, child.clone()));
                        parsed.modules.push(child);
                        i += 3;
                        continue;
                    }
                    _ => {}
                }
                i += 2;
                continue;
            }
            Token::Ident(word) if word == "use" => {
                let end = tokens[i..]
                    .iter()
                    .position(|t| *t == Token::Punct(';'))
                    .map_or(tokens.len(), |p| i + p);
                let mut flat = Vec::new();
                use_tree(&tokens[i + 1..end], &mut Vec::new(), &mut flat);
                for (path, rename) in flat {
                    parsed.uses.push((current.clone(), path, rename));
                }
                i = end;
                continue;
            }
            Token::Ident(first) if tokens.get(i + 1) == Some(&Token::Path) => {
                let after_path = i > 0 && tokens[i - 1] == Token::Path;
                let after_dollar = i > 0 && tokens[i - 1] == Token::Punct('$');
                let mut path = vec![first.clone()];
                let mut j = i + 1;
                while tokens.get(j) == Some(&Token::Path) {
                    let Some(next) = ident(j + 1) else { break };
                    path.push(next.to_owned());
                    j += 2;
                }
                if !after_path && !after_dollar {
                    parsed.paths.push((current, path));
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    parsed
}

/// Flattens a use tree (`a::{b, c::{d as e, *}}`) into paths, each with its rename.
fn use_tree(
    tokens: &[Token],
    prefix: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    // Split the top level at commas (outside braces).
    let mut depth = 0;
    let mut start = 0;
    for (k, token) in tokens.iter().enumerate() {
        match token {
            Token::Punct('{') => depth += 1,
            Token::Punct('}') => depth -= 1,
            Token::Punct(',') if depth == 0 => {
                use_item(&tokens[start..k], prefix, out);
                start = k + 1;
            }
            _ => {}
        }
    }
    use_item(&tokens[start..], prefix, out);
}

fn use_item(
    tokens: &[Token],
    prefix: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let base = prefix.len();
    let mut k = 0;
    while k < tokens.len() {
        match &tokens[k] {
            Token::Ident(s) if s == "as" => {
                let rename = match tokens.get(k + 1) {
                    Some(Token::Ident(r)) if r != "_" => Some(r.clone()),
                    _ => None,
                };
                if !prefix.is_empty() {
                    out.push((prefix.clone(), rename.or_else(|| Some("_".to_owned()))));
                }
                prefix.truncate(base);
                return;
            }
            Token::Ident(s) => prefix.push(s.clone()),
            Token::Punct('*') => prefix.push("*".to_owned()),
            Token::Punct('{') => {
                let close =
                    tokens.iter().rposition(|t| *t == Token::Punct('}')).unwrap_or(tokens.len());
                use_tree(&tokens[k + 1..close], prefix, out);
                prefix.truncate(base);
                return;
            }
            _ => {}
        }
        k += 1;
    }
    if prefix.len() > base || !prefix.is_empty() && !tokens.is_empty() {
        // `self` inside braces (`a::{self, b}`) names the prefix itself.
        if prefix.last().is_some_and(|s| s == "self") && prefix.len() > 1 {
            prefix.pop();
        }
        out.push((prefix.clone(), None));
    }
    prefix.truncate(base);
}

/// The tokens without the items under `#[cfg(test)]` (a test module, a test-only function or
/// import): the attribute, any attributes after it, and the item up to its `;` or its block.
fn strip_test_items(tokens: Vec<Token>) -> Vec<Token> {
    let cfg_test = [
        Token::Punct('#'),
        Token::Punct('['),
        Token::Ident("cfg".to_owned()),
        Token::Punct('('),
        Token::Ident("test".to_owned()),
        Token::Punct(')'),
        Token::Punct(']'),
    ];
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        if !tokens[i..].starts_with(&cfg_test) {
            out.push(tokens[i].clone());
            i += 1;
            continue;
        }
        i += cfg_test.len();
        // The item: up to its `;` at depth 0, or the end of its first block.
        let mut depth = 0usize;
        let mut brackets = 0usize;
        while i < tokens.len() {
            match tokens[i] {
                Token::Punct('[') => brackets += 1,
                Token::Punct(']') => brackets = brackets.saturating_sub(1),
                Token::Punct('{') => depth += 1,
                Token::Punct('}') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                Token::Punct(';') if depth == 0 && brackets == 0 => {
                    i += 1;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::Graph;

    fn circles(files: &[(&str, &[&str], &str)]) -> Vec<Vec<String>> {
        Graph::of_texts(files).cycles()
    }

    #[test]
    fn root_exports_are_each_name_and_public_module() {
        let text = "//! Doc.\npub mod a;\nmod b;\npub(crate) mod c;\n#[cfg(feature = \"x\")]\n\
                    pub mod d;\npub use a::{One, two::{Three, Four as Five}};\n\
                    pub use b::Six; // pub use b::Seven;\npub(crate) use c::Eight;\n\
                    use c::Nine;\npub use e::*;\n";
        assert_eq!(
            super::root_exports(text),
            ["a", "d", "One", "Three", "Five", "Six", "*"].map(str::to_owned)
        );
    }

    #[test]
    fn a_circle_is_found_with_its_files() {
        let found = circles(&[
            ("lib.rs", &[], "mod a; mod b; mod c;"),
            ("a.rs", &["a"], "use crate::b::B;"),
            ("b.rs", &["b"], "pub fn f() { crate::c::g() }"),
            ("c.rs", &["c"], "use crate::a::{A, other as o};"),
        ]);
        assert_eq!(found, [["a.rs", "b.rs", "c.rs"]]);
    }

    #[test]
    fn a_graph_without_circles_passes() {
        let found = circles(&[
            ("lib.rs", &[], "mod a; mod b; mod c; pub use a::A; pub use c::C;"),
            ("a.rs", &["a"], "use crate::{b::B, c::C};"),
            ("b.rs", &["b"], "use crate::C; fn f() -> crate::c::D { todo!() }"),
            // Literals and comments name nothing; other crates are not nodes.
            ("c.rs", &["c"], "// use crate::a::A;\nconst S: &str = \"crate::a::A\"; use std::fs;"),
        ]);
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn a_name_the_root_re_exports_leads_to_its_file() {
        let found = circles(&[
            ("lib.rs", &[], "mod a; mod b; pub use a::A; pub use b::B;"),
            ("a.rs", &["a"], "use crate::B;"),
            ("b.rs", &["b"], "fn f(_: crate::A) {}"),
        ]);
        assert_eq!(found, [["a.rs", "b.rs"]]);
    }

    #[test]
    fn a_child_importing_its_parent_is_part_of_it() {
        let found = circles(&[
            ("lib.rs", &[], "mod config; mod event;"),
            ("config.rs", &["config"], "mod suggest; use suggest::nearest; pub struct Key;"),
            ("config/suggest.rs", &["config", "suggest"], "use super::Key; use crate::config::K;"),
        ]);
        assert!(found.is_empty(), "{found:?}");
        // A loop through another file still counts, the child's edges to others too.
        let found = circles(&[
            ("lib.rs", &[], "mod config; mod event;"),
            ("config.rs", &["config"], "mod suggest; use crate::event::Event;"),
            ("config/suggest.rs", &["config", "suggest"], "pub fn nearest() {}"),
            ("event.rs", &["event"], "use crate::config::suggest::nearest;"),
        ]);
        assert!(found.is_empty(), "{found:?}");
        let found = circles(&[
            ("lib.rs", &[], "mod config; mod event;"),
            ("config.rs", &["config"], "mod suggest; use crate::event::Event;"),
            ("config/suggest.rs", &["config", "suggest"], "use crate::event::Event;"),
            ("event.rs", &["event"], "use crate::config::suggest::nearest;"),
        ]);
        assert_eq!(found, [["config/suggest.rs", "event.rs"]]);
    }

    #[test]
    fn a_module_and_its_tests_are_no_circle() {
        let found = circles(&[
            ("lib.rs", &[], "mod a; mod b;"),
            (
                "a.rs",
                &["a"],
                "pub fn f() {}\n#[cfg(test)]\nmod tests {\n    use super::*;\n    \
                 use crate::b::helper;\n}\n#[cfg(test)]\nmod more;\n",
            ),
            ("b.rs", &["b"], "use crate::a::f; mod inner { use super::super::a::f; }"),
        ]);
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn inline_modules_belong_to_their_file() {
        let found = circles(&[
            ("lib.rs", &[], "mod a; mod b;"),
            ("a.rs", &["a"], "mod inner { use super::super::b::B; } pub struct A;"),
            ("b.rs", &["b"], "use crate::a::A;"),
        ]);
        assert_eq!(found, [["a.rs", "b.rs"]]);
    }
}
