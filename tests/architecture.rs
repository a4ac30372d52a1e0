//! Architecture rules of the source tree, checked on every CI run (`build-aux/test.sh`,
//! stage `architecture`). The rules are stated in `docs/decisions/0006-module-graph.md`:
//!
//! 1. **No import cycle among the files of `src/`.** Each `.rs` file is a node. Every
//!    `crate::`, `super::` and `self::` path outside `#[cfg(test)]` items — in `use` lines,
//!    inline in code and types, and inside macro invocations — is an edge to the file
//!    that defines the module it names (a path to an item of module `m` points at `m`'s
//!    file). A `use` path that starts with a child module's name (`pub use pane::Pane` in
//!    a `mod.rs`) is an edge too. `mod` declarations are not edges.
//! 2. **The owner module is imported only by the daemon's start-up** (`service/daemon.rs`).
//! 3. **No file over 800 lines** in `src/` or `crates/*/src/` (inline tests included).
//! 4. **Self-contained docs:** no citation of documents outside the repository or of
//!    work-tracking numbers in `src/`, `crates/`, `docs/`, `specs/` or the README.
//! 5. **One test binary per CI stage:** `tests/` holds no test file of its own but this
//!    one; every other test is a module of a stage's binary `tests/<stage>/main.rs`,
//!    declared there (a file nobody declares would never be built), and
//!    `build-aux/test.sh` runs each of those binaries.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit::Visit;

/// Longest file the tree may hold, in lines.
const MAX_LINES: usize = 800;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The module path of a library file: `src/a/b.rs` → `[a, b]`, `src/a/mod.rs` → `[a]`,
/// `src/lib.rs` → `[]`. `None` for binary roots (`main.rs`, `src/bin/`).
fn module_of(src: &Path, file: &Path) -> Option<Vec<String>> {
    let rel = file.strip_prefix(src).ok()?;
    let parts: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    if parts.first().map(String::as_str) == Some("bin") || parts == ["main.rs"] {
        return None;
    }
    if parts == ["lib.rs"] {
        return Some(Vec::new());
    }
    let mut m = parts;
    let last = m.pop()?;
    if last != "mod.rs" {
        m.push(last.trim_end_matches(".rs").to_string());
    }
    Some(m)
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && {
            let t = a.meta.to_token_stream().to_string();
            t.split(|c: char| !c.is_alphanumeric() && c != '_')
                .any(|w| w == "test")
                && !t.contains("not")
        }
    })
}

/// One `crate::`/`super::`/`self::`/child-module path found in a file.
struct Ref {
    /// The module the path is written in (file module plus inline modules).
    at: Vec<String>,
    segments: Vec<String>,
    line: usize,
}

/// Collects the paths of one file, skipping `#[cfg(test)]` items.
struct Collector {
    at: Vec<String>,
    refs: Vec<Ref>,
    /// Child modules declared `#[cfg(test)] mod x;` (their files are test-only).
    test_children: Vec<Vec<String>>,
}

impl Collector {
    fn push(&mut self, segments: Vec<String>, line: usize) {
        if segments.len() >= 2 {
            self.refs.push(Ref {
                at: self.at.clone(),
                segments,
                line,
            });
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree, line: usize) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree, line);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut s = prefix.clone();
                s.push(n.ident.to_string());
                self.push(s, line);
            }
            syn::UseTree::Rename(r) => {
                let mut s = prefix.clone();
                s.push(r.ident.to_string());
                self.push(s, line);
            }
            syn::UseTree::Glob(_) => {
                let mut s = prefix.clone();
                s.push("*".into());
                self.push(s, line);
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t, line);
                }
            }
        }
    }

    /// Paths inside macro tokens: `ident (:: ident)*` runs starting at crate/super/self.
    fn tokens(&mut self, ts: TokenStream) {
        let toks: Vec<TokenTree> = ts.into_iter().collect();
        let mut i = 0;
        while i < toks.len() {
            match &toks[i] {
                TokenTree::Group(g) => {
                    self.tokens(g.stream());
                    i += 1;
                }
                TokenTree::Ident(id)
                    if matches!(id.to_string().as_str(), "crate" | "super" | "self") =>
                {
                    let line = id.span().start().line;
                    let mut segs = vec![id.to_string()];
                    let mut j = i + 1;
                    while let (
                        Some(TokenTree::Punct(a)),
                        Some(TokenTree::Punct(b)),
                        Some(TokenTree::Ident(n)),
                    ) = (toks.get(j), toks.get(j + 1), toks.get(j + 2))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        segs.push(n.to_string());
                        j += 3;
                    }
                    self.push(segs, line);
                    i = j.max(i + 1);
                }
                _ => i += 1,
            }
        }
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Const(i) => &i.attrs,
            syn::Item::Enum(i) => &i.attrs,
            syn::Item::ExternCrate(i) => &i.attrs,
            syn::Item::Fn(i) => &i.attrs,
            syn::Item::ForeignMod(i) => &i.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Macro(i) => &i.attrs,
            syn::Item::Mod(i) => &i.attrs,
            syn::Item::Static(i) => &i.attrs,
            syn::Item::Struct(i) => &i.attrs,
            syn::Item::Trait(i) => &i.attrs,
            syn::Item::TraitAlias(i) => &i.attrs,
            syn::Item::Type(i) => &i.attrs,
            syn::Item::Union(i) => &i.attrs,
            syn::Item::Use(i) => &i.attrs,
            _ => &[],
        };
        if is_cfg_test(attrs) {
            if let syn::Item::Mod(m) = item {
                if m.content.is_none() {
                    let mut c = self.at.clone();
                    c.push(m.ident.to_string());
                    self.test_children.push(c);
                }
            }
            return;
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if let Some((_, items)) = &m.content {
            self.at.push(m.ident.to_string());
            for it in items {
                self.visit_item(it);
            }
            self.at.pop();
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_cfg_test(&f.attrs) {
            syn::visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let line = u.use_token.span.start().line;
        self.use_tree(&mut Vec::new(), &u.tree, line);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if let Some(first) = p.segments.first() {
            self.push(segs, first.ident.span().start().line);
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.tokens(m.tokens.clone());
        syn::visit::visit_macro(self, m);
    }
}

/// The file graph of one crate source tree: file → (target file → first line).
struct Graph {
    files: BTreeMap<PathBuf, Vec<String>>,
    edges: BTreeMap<PathBuf, BTreeMap<PathBuf, usize>>,
}

fn graph(src: &Path) -> Graph {
    let mut files = BTreeMap::new();
    let mut by_module: HashMap<Vec<String>, PathBuf> = HashMap::new();
    for f in rust_files(src) {
        if let Some(m) = module_of(src, &f) {
            by_module.insert(m.clone(), f.clone());
            files.insert(f, m);
        }
    }
    let mut test_only: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut parsed = Vec::new();
    for (f, m) in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let mut c = Collector {
            at: m.clone(),
            refs: Vec::new(),
            test_children: Vec::new(),
        };
        c.visit_file(&ast);
        test_only.extend(c.test_children.iter().cloned());
        parsed.push((f.clone(), m.clone(), c.refs));
    }
    let is_test_only = |m: &[String]| (1..=m.len()).any(|k| test_only.contains(&m[..k]));
    let mut edges: BTreeMap<PathBuf, BTreeMap<PathBuf, usize>> = BTreeMap::new();
    for (f, m, refs) in parsed {
        if is_test_only(&m) {
            continue;
        }
        for r in refs {
            let mut base: Vec<String>;
            let mut rest = r.segments.as_slice();
            match rest[0].as_str() {
                "crate" => {
                    base = Vec::new();
                    rest = &rest[1..];
                }
                "self" => {
                    base = r.at.clone();
                    rest = &rest[1..];
                }
                "super" => {
                    base = r.at.clone();
                    while rest.first().map(String::as_str) == Some("super") {
                        base.pop();
                        rest = &rest[1..];
                    }
                }
                first => {
                    // A path starting with a child module of the current module.
                    let mut child = r.at.clone();
                    child.push(first.to_string());
                    if !by_module.contains_key(&child) {
                        continue;
                    }
                    base = r.at.clone();
                }
            }
            let mut full = base;
            full.extend(rest.iter().filter(|s| *s != "*").cloned());
            let target = (0..=full.len())
                .rev()
                .find_map(|k| by_module.get(&full[..k]));
            if let Some(t) = target {
                if *t != f && !is_test_only(&files[t]) {
                    edges
                        .entry(f.clone())
                        .or_default()
                        .entry(t.clone())
                        .or_insert(r.line);
                }
            }
        }
    }
    Graph { files, edges }
}

/// Strongly connected components with more than one file (Tarjan).
fn cycles(g: &Graph) -> Vec<Vec<PathBuf>> {
    struct St<'a> {
        g: &'a Graph,
        index: HashMap<&'a PathBuf, usize>,
        low: HashMap<&'a PathBuf, usize>,
        on: BTreeSet<&'a PathBuf>,
        stack: Vec<&'a PathBuf>,
        next: usize,
        out: Vec<Vec<PathBuf>>,
    }
    fn visit<'a>(s: &mut St<'a>, v: &'a PathBuf) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on.insert(v);
        if let Some(ts) = s.g.edges.get(v) {
            for w in ts.keys() {
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let l = s.low[w].min(s.low[v]);
                    s.low.insert(v, l);
                } else if s.on.contains(w) {
                    let l = s.index[w].min(s.low[v]);
                    s.low.insert(v, l);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on.remove(w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = St {
        g,
        index: HashMap::new(),
        low: HashMap::new(),
        on: BTreeSet::new(),
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for f in g.files.keys() {
        if !s.index.contains_key(f) {
            visit(&mut s, f);
        }
    }
    s.out
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

#[test]
fn no_import_cycle_among_the_files_of_src() {
    let g = graph(&root().join("src"));
    assert!(g.files.len() > 50, "found only {} files", g.files.len());
    let comps = cycles(&g);
    let mut report = String::new();
    for comp in &comps {
        report.push_str(&format!("cycle of {} files:\n", comp.len()));
        let set: BTreeSet<&PathBuf> = comp.iter().collect();
        for f in comp {
            for (t, line) in g.edges.get(f).into_iter().flatten() {
                if set.contains(t) {
                    report.push_str(&format!("  {}:{line} -> {}\n", rel(f), rel(t)));
                }
            }
        }
    }
    assert!(comps.is_empty(), "{report}");
}

#[test]
fn the_owner_module_is_imported_only_by_the_daemon_start_up() {
    let src = root().join("src");
    let g = graph(&src);
    let owner = |p: &Path| {
        let r = p.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
        r == "service/owner.rs" || r.starts_with("service/owner/")
    };
    assert!(
        g.files.keys().any(|f| owner(f)),
        "no src/service/owner module"
    );
    let mut bad = Vec::new();
    for (f, ts) in &g.edges {
        if owner(f) || f.strip_prefix(&src).unwrap() == Path::new("service/daemon.rs") {
            continue;
        }
        for (t, line) in ts {
            if owner(t) {
                bad.push(format!("{}:{line} -> {}", rel(f), rel(t)));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "owner imported outside the daemon's start-up:\n{}",
        bad.join("\n")
    );
}

/// Only the per-pane machine writes a pane's state (`docs/architecture.md#the-per-pane-machine`):
/// outside `src/engine/` no code takes a world's pane mutably or puts one in, the
/// machine gives its pane out read-only (`Deref`, no `DerefMut`), its one escape for
/// the world's own bookkeeping (`edit`) is not public, and the world's map of machines is
/// visible to the engine only.
#[test]
fn only_the_per_pane_machine_writes_pane_state() {
    let mutates = regex::Regex::new(
        r"world\s*\.\s*panes\s*\.\s*(insert|get_mut|values_mut|iter_mut|entry|remove|clear|retain|append)\b",
    )
    .unwrap();
    let engine = root().join("src/engine");
    let mut bad = Vec::new();
    for f in rust_files(&root().join("src")) {
        let text = std::fs::read_to_string(&f).unwrap();
        if !f.starts_with(&engine) {
            for (n, line) in text.lines().enumerate() {
                if mutates.is_match(line) && !line.trim_start().starts_with("//") {
                    bad.push(format!("{}:{}: {}", rel(&f), n + 1, line.trim()));
                }
            }
        }
        if text.contains("impl DerefMut for PaneMachine")
            || text.contains("impl std::ops::DerefMut for PaneMachine")
        {
            bad.push(format!("{}: DerefMut for PaneMachine", rel(&f)));
        }
    }
    let machine = std::fs::read_to_string(engine.join("machine.rs")).unwrap();
    let world = std::fs::read_to_string(engine.join("world.rs")).unwrap();
    if machine.contains("pub fn edit")
        || machine.contains("pub fn pane_mut")
        || world.contains("pub fn edit_pane")
    {
        bad.push("src/engine/machine.rs: a public way to write the pane".into());
    }
    // The world's machines are a field only the engine sees: the compiler refuses a write
    // from anywhere else.
    if !world.contains("pub(super) panes: BTreeMap<PaneId, PaneMachine>") {
        bad.push("src/engine/world.rs: the world's panes are not private to the engine".into());
    }
    assert!(
        bad.is_empty(),
        "pane state written outside the per-pane machine:\n{}",
        bad.join("\n")
    );
}

/// The clients reach the daemon only over D-Bus (`docs/decisions/0005-one-service-thin-clients.md`):
/// outside tests, no file of `src/cli`, `src/panel`, `src/client`, `src/system` or
/// `src/settings` imports a module of `src/service`. The commands that run the daemon's
/// code are dispatched by one entry module (`src/entry.rs`), which the CLI does not import.
#[test]
fn clients_import_no_daemon_module() {
    let src = root().join("src");
    let g = graph(&src);
    let under = |p: &Path, dir: &str| p.strip_prefix(&src).unwrap().starts_with(dir);
    let clients = ["cli", "panel", "client", "system", "settings"];
    assert!(
        g.files.keys().any(|f| under(f, "cli")) && g.files.keys().any(|f| under(f, "client")),
        "no src/cli or src/client"
    );
    let mut bad = Vec::new();
    for (f, ts) in &g.edges {
        if !clients.iter().any(|c| under(f, c)) {
            continue;
        }
        for (t, line) in ts {
            if under(t, "service") || under(t, "entry.rs") {
                bad.push(format!("{}:{line} -> {}", rel(f), rel(t)));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "a client imports the daemon's code:\n{}",
        bad.join("\n")
    );
}

#[test]
fn no_source_file_is_over_800_lines() {
    let mut files = rust_files(&root().join("src"));
    if let Ok(crates) = std::fs::read_dir(root().join("crates")) {
        for c in crates.flatten() {
            files.extend(rust_files(&c.path().join("src")));
        }
    }
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).unwrap().lines().count();
            (n > MAX_LINES).then(|| format!("{}: {n} lines", rel(f)))
        })
        .collect();
    assert!(
        long.is_empty(),
        "over {MAX_LINES} lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn docs_and_code_cite_only_what_the_repository_holds() {
    let pattern = regex::Regex::new(
        r"CONTRACT|seed[- ]?00[014]|[Ii]ssue [0-9]+|/shared/|AGENTS-REFERENCE|DESIGN\.md|DESIGN ",
    )
    .unwrap();
    let r = root();
    let mut files = Vec::new();
    for dir in [
        "src",
        "crates",
        "docs",
        "specs",
        "tests",
        "benches",
        "build-aux",
        "data",
        ".ci",
    ] {
        let mut stack = vec![r.join(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    files.push(p);
                }
            }
        }
    }
    files.push(r.join("README.md"));
    let mut hits = Vec::new();
    for f in files {
        if f.ends_with("tests/architecture.rs") {
            continue; // this test states the pattern
        }
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue; // binary (screenshots)
        };
        for (i, line) in text.lines().enumerate() {
            if pattern.is_match(line) {
                hits.push(format!("{}:{}: {}", rel(&f), i + 1, line.trim()));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "{} citations of documents outside the repository or of issue numbers \
         (cite docs/ or an ADR in docs/decisions/ instead):\n{}",
        hits.len(),
        hits.join("\n")
    );
}

#[test]
fn every_test_file_is_a_module_of_a_stage_binary_that_ci_runs() {
    let tests = root().join("tests");
    let script = std::fs::read_to_string(root().join("build-aux/test.sh")).unwrap();
    let mut problems = Vec::new();
    for e in std::fs::read_dir(&tests).unwrap().flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_file() && name.ends_with(".rs") && name != "architecture.rs" {
            problems.push(format!(
                "{}: a test binary of its own (make it a module of a stage's tests/<stage>/main.rs)",
                rel(&p)
            ));
        }
        let main = p.join("main.rs");
        if !main.is_file() {
            continue;
        }
        if !script.contains(&format!("--test {name}")) {
            problems.push(format!(
                "{}: build-aux/test.sh never runs `--test {name}`",
                rel(&main)
            ));
        }
        let text = std::fs::read_to_string(&main).unwrap();
        for f in std::fs::read_dir(&p).unwrap().flatten() {
            let file = f.file_name().to_string_lossy().into_owned();
            let Some(module) = file.strip_suffix(".rs").filter(|m| *m != "main") else {
                continue;
            };
            if !text.lines().any(|l| l.trim() == format!("mod {module};")) {
                problems.push(format!(
                    "{}: not declared in {} (never built)",
                    rel(&f.path()),
                    rel(&main)
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
