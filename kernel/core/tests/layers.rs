//! The kernel's layer order, checked: docs/architecture.md lists the
//! top-level modules of kernel/src in a ```layers block, lowest layer
//! first, one layer per line. A module may use (`crate::x`) modules of its
//! own layer or of layers below it; this test fails when one uses a module
//! above it, when a module is missing from the list (or listed but gone),
//! or when modules form an import cycle; kernel/core/src's top-level
//! modules (folders mirroring kernel/src's) may form no cycle either. It reads the sources as text
//! (comments removed), so it needs no kernel build, and counts what a
//! macro expands to: `println!` names `$crate::console`, so a file that
//! prints uses console.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Largest import cycle allowed: none (a module reaches only itself).
const MAX_CYCLE: usize = 1;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The ```layers block of `doc`: each line's module names, lowest first.
fn parse_layers(doc: &str) -> Vec<Vec<String>> {
    let start = doc.find("```layers\n").expect("docs/architecture.md has no ```layers block");
    let body = &doc[start + "```layers\n".len()..];
    let body = &body[..body.find("```").expect("unterminated ```layers block")];
    body.lines()
        .map(|l| l.split('#').next().unwrap_or("").split_whitespace().map(String::from).collect::<Vec<_>>())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Drops `//` comments (line and doc comments alike).
fn strip_comments(text: &str) -> String {
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// The first path segments named after `crate::` in `text`, including
/// those inside one level of `use crate::{a, b::c}`.
fn crate_refs(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().last();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // e.g. gometal_crate::
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let first = item.trim().split("::").next().unwrap_or("").trim();
                if !first.is_empty() {
                    out.insert(first.to_string());
                }
            }
        } else {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

/// `text` without its tests: a `*_tests.rs` file is all test, and a
/// file's `#[cfg(test)] mod` is its end by convention (a `#[cfg(test)]`
/// on anything else is kept). A test may use
/// any module (core's page-table tests walk each architecture's format).
fn without_tests(path: &Path, text: &str) -> String {
    if path.file_stem().is_some_and(|s| s.to_string_lossy().ends_with("_tests")) {
        return String::new();
    }
    let mut at = 0;
    while let Some(i) = text[at..].find("#[cfg(test)]") {
        let start = at + i;
        let rest = text[start + "#[cfg(test)]".len()..].trim_start();
        if rest.starts_with("mod ") || rest.starts_with("#[path") {
            return text[..start].to_string();
        }
        at = start + 1;
    }
    text.to_string()
}

/// Each `macro_rules!` of `text` and the modules its body names through
/// `$crate::x`.
fn macro_refs(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    let mut rest = text;
    while let Some(i) = rest.find("macro_rules!") {
        rest = &rest[i + "macro_rules!".len()..];
        let name: String = rest.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let Some(open) = rest.find('{') else { break };
        let mut depth = 0usize;
        let mut end = rest.len();
        for (j, c) in rest[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + j;
                        break;
                    }
                }
                _ => {}
            }
        }
        let body = rest[open..end].replace("$crate::", "crate::");
        out.insert(name, crate_refs(&body));
        rest = &rest[end..];
    }
    out
}

/// The macros `text` invokes (`name!(`, `name![`, `name!{`) among `known`.
fn macro_uses<'a>(text: &str, known: &'a BTreeMap<String, BTreeSet<String>>) -> impl Iterator<Item = &'a BTreeSet<String>> {
    let text = text.to_string();
    known.iter().filter(move |(name, _)| ["(", "[", "{"].iter().any(|b| text.contains(&format!("{name}!{b}")))).map(|(_, refs)| refs)
}

fn rust_files(src: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![src.to_path_buf()];
    while let Some(p) = todo.pop() {
        if p.is_dir() {
            todo.extend(fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
    out
}

/// Every top-level module of `src` and, for each, the modules it uses
/// (directly or through a macro) and one file that uses each.
fn module_graph(src: &Path) -> (BTreeSet<String>, BTreeMap<String, BTreeMap<String, PathBuf>>) {
    let mut modules = BTreeSet::new();
    for entry in fs::read_dir(src).expect("kernel/src") {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let name = name.strip_suffix(".rs").unwrap_or(&name).to_string();
        if name != "main" && name != "lib" {
            modules.insert(name);
        }
    }
    let mut edges: BTreeMap<String, BTreeMap<String, PathBuf>> = BTreeMap::new();
    let files = rust_files(src);
    let texts: Vec<String> = files.iter().map(|p| strip_comments(&without_tests(p, &fs::read_to_string(p).unwrap()))).collect();
    let macros: BTreeMap<String, BTreeSet<String>> = texts.iter().flat_map(|t| macro_refs(t)).collect();
    for (p, text) in files.iter().zip(&texts) {
        let rel = p.strip_prefix(src).unwrap();
        let top = rel.components().next().unwrap().as_os_str().to_string_lossy();
        let top = top.strip_suffix(".rs").unwrap_or(&top).to_string();
        if !modules.contains(&top) {
            continue;
        }
        let mut used_all = crate_refs(text);
        for refs in macro_uses(text, &macros) {
            used_all.extend(refs.iter().cloned());
        }
        for used in used_all {
            if modules.contains(&used) && used != top {
                edges.entry(top.clone()).or_default().entry(used).or_insert_with(|| rel.to_path_buf());
            }
        }
    }
    (modules, edges)
}

/// Problems with `layers` for this graph: upward uses and unlisted modules.
fn upward_uses(layers: &[Vec<String>], modules: &BTreeSet<String>, edges: &BTreeMap<String, BTreeMap<String, PathBuf>>) -> Vec<String> {
    let mut rank = BTreeMap::new();
    let mut problems = Vec::new();
    for (i, layer) in layers.iter().enumerate() {
        for m in layer {
            if rank.insert(m.clone(), i).is_some() {
                problems.push(format!("{m} is listed twice"));
            }
            if !modules.contains(m) {
                problems.push(format!("{m} is listed but kernel/src has no such module"));
            }
        }
    }
    for m in modules.iter().filter(|m| !rank.contains_key(*m)) {
        problems.push(format!("{m} is not in the layer list: add it to docs/architecture.md"));
    }
    for (from, uses) in edges {
        for (to, file) in uses {
            if let (Some(a), Some(b)) = (rank.get(from), rank.get(to)) {
                if b > a {
                    problems.push(format!("{from} (layer {a}) uses {to} (layer {b}, above it) in kernel/src/{}", file.display()));
                }
            }
        }
    }
    problems
}

/// The largest set of modules that all reach one another (Floyd–Warshall
/// closure: the graph has a few dozen nodes).
fn largest_cycle(edges: &BTreeMap<String, BTreeMap<String, PathBuf>>, modules: &BTreeSet<String>) -> Vec<String> {
    let names: Vec<&String> = modules.iter().collect();
    let n = names.len();
    let mut reach = vec![vec![false; n]; n];
    for (i, a) in names.iter().enumerate() {
        for (j, b) in names.iter().enumerate() {
            reach[i][j] = edges.get(*a).is_some_and(|u| u.contains_key(*b));
        }
    }
    for k in 0..n {
        for i in 0..n {
            for j in 0..n {
                reach[i][j] = reach[i][j] || (reach[i][k] && reach[k][j]);
            }
        }
    }
    (0..n)
        .map(|i| (0..n).filter(|&j| i == j || (reach[i][j] && reach[j][i])).map(|j| names[j].clone()).collect::<Vec<_>>())
        .max_by_key(|c| c.len())
        .unwrap_or_default()
}

#[test]
fn kernel_modules_use_only_their_layer_and_below() {
    let doc = fs::read_to_string(root().join("docs/architecture.md")).expect("docs/architecture.md");
    let layers = parse_layers(&doc);
    let (modules, edges) = module_graph(&root().join("kernel/src"));
    assert!(modules.len() > 10, "found only {modules:?} in kernel/src");
    let problems = upward_uses(&layers, &modules, &edges);
    assert!(problems.is_empty(), "layer order broken:\n  {}", problems.join("\n  "));
    let cycle = largest_cycle(&edges, &modules);
    assert!(cycle.len() <= MAX_CYCLE, "import cycle of {} modules: {}", cycle.len(), cycle.join(" "));
}

#[test]
fn core_modules_form_no_cycle() {
    let (modules, edges) = module_graph(&root().join("kernel/core/src"));
    assert!(modules.len() > 5, "found only {modules:?} in kernel/core/src");
    let cycle = largest_cycle(&edges, &modules);
    assert!(cycle.len() <= MAX_CYCLE, "import cycle in kernel/core/src of {} modules: {}", cycle.len(), cycle.join(" "));
}

#[test]
fn an_upward_use_and_a_missing_module_are_found() {
    let layers = parse_layers("x\n```layers\nsync  # lowest\nmm\nfs net\n```\n");
    assert_eq!(layers, vec![vec!["sync"], vec!["mm"], vec!["fs", "net"]]);
    let modules: BTreeSet<String> = ["sync", "mm", "fs", "net", "new"].map(String::from).into();
    let mut edges: BTreeMap<String, BTreeMap<String, PathBuf>> = BTreeMap::new();
    edges.entry("mm".into()).or_default().insert("fs".into(), "mm/filemap.rs".into());
    edges.entry("fs".into()).or_default().insert("net".into(), "fs/a.rs".into());
    let problems = upward_uses(&layers, &modules, &edges);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains("new is not in the layer list"));
    assert!(problems[1].contains("mm (layer 1) uses fs (layer 2, above it) in kernel/src/mm/filemap.rs"));
    edges.entry("net".into()).or_default().insert("fs".into(), "net/b.rs".into());
    assert_eq!(largest_cycle(&edges, &modules), vec!["fs", "net"]);
}

#[test]
fn a_macro_is_a_use_of_what_its_body_names() {
    let defs = macro_refs("#[macro_export]\nmacro_rules! println {\n () => { $crate::print!(\"\\n\") };\n ($($a:tt)*) => { $crate::console::print_fmt(format_args!($($a)*)) };\n}\nfn f() {}");
    assert_eq!(defs.get("println"), Some(&["console", "print"].map(String::from).into()));
    let uses: Vec<_> = macro_uses("fn g() { crate::println!(\"x\"); }", &defs).collect();
    assert_eq!(uses.len(), 1);
    assert!(macro_uses("fn g() { let println = 1; }", &defs).next().is_none());
}

#[test]
fn tests_do_not_count_as_uses() {
    let text = "use crate::a;\n#[cfg(test)]\nconst ALL: u8 = 1;\nuse crate::b;\n#[cfg(test)]\nmod tests { use crate::c; }";
    let kept = without_tests(Path::new("x.rs"), text);
    assert_eq!(crate_refs(&kept), ["a", "b"].map(String::from).into());
    assert_eq!(without_tests(Path::new("x_tests.rs"), text), "");
}

#[test]
fn references_are_read_from_paths_and_use_groups() {
    let refs = crate_refs(&strip_comments("use crate::{fs::file::File, mm};\n// crate::net\nlet x = crate::sched::now(); gometal_crate::x"));
    assert_eq!(refs, ["fs", "mm", "sched"].map(String::from).into());
}
