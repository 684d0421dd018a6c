//! The layout of src/search/: its modules import one another without a circle, and no file
//! grows past what one reader can hold. The graph is read from the source: every path that
//! starts `super::` or `crate::search::` outside a `#[cfg(test)]` module is an import of the
//! module it names, or of the facade (mod.rs) when it names an item; mod.rs imports every
//! module it declares. (A unit test may drive the whole search: its imports are not counted.)

use std::collections::BTreeMap;

/// Longest a file in src/search/ may be, unit tests included.
const MAX_LINES: usize = 700;

type Graph = BTreeMap<String, Vec<String>>;

/// The source files of src/search/, by module name (`mod` for mod.rs).
fn search_files() -> BTreeMap<String, String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/search");
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let name = path.file_stem().unwrap().to_str().unwrap().to_string();
            files.insert(name, std::fs::read_to_string(&path).unwrap());
        }
    }
    files
}

/// The code without comments and without `#[cfg(test)]` items (a brace-balanced block, or an
/// item ending with `;`).
fn production_code(source: &str) -> String {
    let code: String = source
        .lines()
        .map(|l| l.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = String::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let (brace, semi) = (item.find('{'), item.find(';'));
        let end = match (brace, semi) {
            (Some(b), s) if s.is_none_or(|s| b < s) => {
                let mut depth = 0;
                let mut end = item.len();
                for (i, c) in item.char_indices().skip(b) {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = i + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (_, Some(s)) => s + 1,
            _ => item.len(),
        };
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

fn identifier(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The first names of the paths in `use …::{a, b::c, …}` (nested groups included in their
/// first name only).
fn group_heads(group: &str) -> Vec<&str> {
    let mut heads = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                heads.push(identifier(group[start..i].trim()));
                start = i + 1;
            }
            _ => {}
        }
    }
    heads.push(identifier(group[start..].trim()));
    heads.into_iter().filter(|h| !h.is_empty()).collect()
}

/// Which modules each module imports, from the files' text (`mod` is mod.rs).
fn module_graph(files: &BTreeMap<String, String>) -> Graph {
    let mut graph = Graph::new();
    for (name, source) in files {
        let code = production_code(source);
        let mut targets: Vec<String> = Vec::new();
        if name == "mod" {
            for line in code.lines() {
                let line = line.trim().trim_start_matches("pub ");
                if let Some(declared) = line.strip_prefix("mod ") {
                    targets.push(identifier(declared).to_string());
                }
            }
        }
        for prefix in ["super::", "crate::search::"] {
            for (at, _) in code.match_indices(prefix) {
                let after = &code[at + prefix.len()..];
                let heads = match after.strip_prefix('{') {
                    Some(group) => group_heads(&group[..group.find('}').unwrap_or(group.len())]),
                    None => vec![identifier(after)],
                };
                for head in heads {
                    let target = if files.contains_key(head) && head != "mod" {
                        head
                    } else {
                        "mod"
                    };
                    targets.push(target.to_string());
                }
            }
        }
        targets.retain(|t| t != name);
        targets.sort();
        targets.dedup();
        graph.insert(name.clone(), targets);
    }
    graph
}

/// A circle in the graph, as the modules along it (the first one repeated at the end).
fn find_circle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &Graph,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(node) {
            Some(2) => return None,
            Some(1) => {
                let from = path.iter().position(|n| n == node).unwrap();
                let mut circle = path[from..].to_vec();
                circle.push(node.to_string());
                return Some(circle);
            }
            _ => {}
        }
        state.insert(node.to_string(), 1);
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(circle) = visit(next, graph, state, path) {
                return Some(circle);
            }
        }
        path.pop();
        state.insert(node.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut state, &mut Vec::new()))
}

#[test]
fn search_modules_import_one_another_without_a_circle() {
    let graph = module_graph(&search_files());
    // The reading finds the imports it must (else an empty graph would pass).
    let imports = |from: &str, to: &str| graph[from].iter().any(|t| t == to);
    assert!(
        imports("iterate", "secondary") && imports("smp", "iterate"),
        "{graph:#?}"
    );
    assert!(
        imports("worker", "control") && imports("mod", "types"),
        "{graph:#?}"
    );
    if let Some(circle) = find_circle(&graph) {
        panic!("import circle in src/search: {}", circle.join(" → "));
    }
}

#[test]
fn no_search_file_is_longer_than_the_limit() {
    for (name, source) in search_files() {
        let lines = source.lines().count();
        assert!(
            lines <= MAX_LINES,
            "src/search/{name}.rs has {lines} lines (at most {MAX_LINES})"
        );
    }
}

fn files(list: &[(&str, &str)]) -> BTreeMap<String, String> {
    list.iter()
        .map(|(n, s)| (n.to_string(), s.to_string()))
        .collect()
}

#[test]
fn the_check_finds_circles_through_uses_paths_and_the_facade() {
    // a → b by `use`, b → c by a path in code, c → a inside a group.
    let circle = files(&[
        ("a", "use super::b::Thing;"),
        ("b", "fn f() { super::c::g() }"),
        ("c", "use super::{d, a::Other};"),
        ("d", ""),
    ]);
    let found = find_circle(&module_graph(&circle)).expect("a circle");
    assert_eq!(found.len(), 4, "{found:?}");
    // A module that imports an item through mod.rs closes a circle with it.
    let facade = files(&[
        ("mod", "mod a;\npub mod b;\npub use b::Limits;"),
        ("a", "use crate::search::Limits;"),
        ("b", ""),
    ]);
    assert!(find_circle(&module_graph(&facade)).is_some());
    // Imports in comments and unit tests are not counted; a chain is no circle.
    let chain = files(&[
        ("a", "use super::b::Thing; // super::c\n"),
        (
            "b",
            "#[cfg(test)]\nmod tests {\n    use super::super::a::X;\n}\n",
        ),
        ("c", "#[cfg(test)]\nuse crate::search::a;\nfn f() {}"),
    ]);
    let graph = module_graph(&chain);
    assert_eq!(graph["a"], ["b"]);
    assert!(graph["b"].is_empty() && graph["c"].is_empty(), "{graph:?}");
    assert_eq!(find_circle(&graph), None);
}
