//! The crate map of docs/architecture.md ("Floors") checked against `cargo metadata`: every
//! workspace crate is on the map, and each depends (normal or build) only on crates of lower
//! floors, so no arrow goes up or sideways and the map cannot drift from the code (issue #48).
//! A test may also use a crate of its own floor (lmbias-fetch's tests use lmbias-testing's hub
//! server), never one above.

use std::collections::BTreeMap;

/// The floors of docs/architecture.md's "Floors" table: crate → floor.
fn map() -> BTreeMap<String, u32> {
    let text =
        std::fs::read_to_string(lmbias_testing::repo_root().join("docs/architecture.md")).unwrap();
    let section = text
        .split("\n## Floors\n")
        .nth(1)
        .expect("docs/architecture.md has a \"## Floors\" section");
    let section = section.split("\n## ").next().unwrap();
    let mut floors = BTreeMap::new();
    for row in section.lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        let Ok(floor) = cells[0].parse::<u32>() else {
            continue; // the header and its rule
        };
        for name in cells[1].split(',') {
            let name = name.trim().trim_matches('`');
            assert!(
                floors.insert(name.to_owned(), floor).is_none(),
                "{name} is on two floors"
            );
        }
    }
    floors
}

/// A dependency: the crate, and whether only tests use it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Dep {
    name: String,
    dev: bool,
}

/// The workspace's crates and, for each, the other workspace crates it depends on.
fn graph() -> BTreeMap<String, Vec<Dep>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(lmbias_testing::repo_root())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let packages = metadata["packages"].as_array().unwrap();
    let ours: Vec<&str> = packages
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    packages
        .iter()
        .map(|p| {
            let me = p["name"].as_str().unwrap();
            let mut deps: Vec<Dep> = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| ours.contains(&d["name"].as_str().unwrap()) && d["name"] != me)
                .map(|d| Dep {
                    name: d["name"].as_str().unwrap().to_owned(),
                    dev: d["kind"] == "dev",
                })
                .collect();
            deps.sort();
            deps.dedup();
            (me.to_owned(), deps)
        })
        .collect()
}

/// Every crate the map leaves out, every arrow that does not go down, and every crate the map
/// names that the workspace does not have.
fn against_the_map(map: &BTreeMap<String, u32>, graph: &BTreeMap<String, Vec<Dep>>) -> Vec<String> {
    let mut faults = Vec::new();
    for (name, deps) in graph {
        let Some(&floor) = map.get(name) else {
            faults.push(format!("{name} is not on the map"));
            continue;
        };
        for dep in deps {
            match map.get(&dep.name) {
                Some(&below) if below < floor || (dep.dev && below == floor) => {}
                Some(&other) => faults.push(format!(
                    "{name} (floor {floor}) depends on {} (floor {other}){}: arrows go down",
                    dep.name,
                    if dep.dev { " in its tests" } else { "" }
                )),
                None => {} // said once, as a crate of its own
            }
        }
    }
    faults.extend(
        map.keys()
            .filter(|name| !graph.contains_key(*name))
            .map(|name| format!("the map names {name}, which the workspace does not have")),
    );
    faults
}

#[test]
fn every_crate_is_on_the_map_and_depends_only_downward() {
    let (map, graph) = (map(), graph());
    assert_eq!(against_the_map(&map, &graph), Vec::<String>::new());
    // The check has teeth: an arrow added against the map, or a crate left off it, is named.
    let arrow = |name: &str, dev| Dep {
        name: name.into(),
        dev,
    };
    let mut upward = graph.clone();
    upward
        .get_mut("lmbias-data")
        .unwrap()
        .push(arrow("lmbias-studies", true));
    assert_eq!(
        against_the_map(&map, &upward),
        ["lmbias-data (floor 1) depends on lmbias-studies (floor 2) in its tests: arrows go down"]
    );
    let mut sideways = graph.clone();
    sideways
        .get_mut("lmbias-metrics")
        .unwrap()
        .push(arrow("lmbias-data", false));
    assert_eq!(
        against_the_map(&map, &sideways),
        ["lmbias-metrics (floor 1) depends on lmbias-data (floor 1): arrows go down"]
    );
    let mut unlisted = graph;
    unlisted.insert("lmbias-new".into(), vec![]);
    assert_eq!(
        against_the_map(&map, &unlisted),
        ["lmbias-new is not on the map"]
    );
}

/// A file's module path in its crate: `src/a/b.rs` and `src/a/b/mod.rs` are `a::b`, the root
/// (`lib.rs`, `main.rs`) is empty.
fn module_of(src: &std::path::Path, file: &std::path::Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The paths a file names through `crate::` or `super::`, its tests left out (their `super`
/// is the file itself), each as the segments that follow.
fn paths_named(text: &str, module: &[String]) -> Vec<Vec<String>> {
    let code: String = text
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = Vec::new();
    for (prefix, base) in [
        ("crate::", Vec::new()),
        ("super::", {
            let mut parent = module.to_vec();
            parent.pop();
            parent
        }),
    ] {
        for (at, _) in code.match_indices(prefix) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // `$crate::`, `pub(crate)::`-like text inside a longer name
            }
            let mut path = base.clone();
            let mut rest = &code[at + prefix.len()..];
            while let Some(len) = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|&n| n > 0)
            {
                path.push(rest[..len].to_owned());
                match rest[len..].strip_prefix("::") {
                    Some(after) => rest = after,
                    None => break,
                }
            }
            out.push(path);
        }
    }
    out
}

/// Pairs of files of one crate that import each other (the crate root aside: every module is
/// declared there). Comments and tests are not read; a path named without `crate::` or
/// `super::` (a parent's `child::Item`) is not seen, so a circle through one is missed, never
/// invented.
fn import_circles(src: &std::path::Path) -> Vec<String> {
    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut all = Vec::new();
    files(src, &mut all);
    let modules: BTreeMap<Vec<String>, std::path::PathBuf> =
        all.iter().map(|f| (module_of(src, f), f.clone())).collect();
    let mut edges = std::collections::BTreeSet::new();
    for (module, file) in &modules {
        if module.is_empty() {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        for mut path in paths_named(&text, module) {
            // The longest prefix that is a module of its own file.
            while !path.is_empty() && !modules.contains_key(&path) {
                path.pop();
            }
            if !path.is_empty() && path != *module {
                edges.insert((module.clone(), path));
            }
        }
    }
    edges
        .iter()
        .filter(|(a, b)| a < b && edges.contains(&(b.clone(), a.clone())))
        .map(|(a, b)| format!("{} <-> {}", a.join("::"), b.join("::")))
        .collect()
}

/// No two files of a crate import each other (issue #48 found four such circles: bf16's
/// avx512/pack, model's bert config/variant, checkpoint/sentence_transformers and
/// compute/device/error): a file can be read with what it imports, never with itself.
#[test]
fn no_two_files_of_a_crate_import_each_other() {
    let root = lmbias_testing::repo_root();
    let mut circles = Vec::new();
    // Every crate of the workspace, xtask among them.
    for dir in std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .chain([root.join("xtask")])
    {
        for circle in import_circles(&dir.join("src")) {
            circles.push(format!(
                "{}: {circle}",
                dir.file_name().unwrap().to_string_lossy()
            ));
        }
    }
    assert_eq!(circles, Vec::<String>::new());
    // The check has teeth: two files that name each other are found.
    let scratch = std::env::temp_dir().join(format!("lmbias-circles-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(scratch.join("src/a")).unwrap();
    std::fs::write(scratch.join("src/lib.rs"), "mod a;\nmod b;\n").unwrap();
    std::fs::write(scratch.join("src/a/mod.rs"), "mod c;\nuse crate::b::B;\n").unwrap();
    std::fs::write(scratch.join("src/a/c.rs"), "pub struct C;\n").unwrap();
    std::fs::write(
        scratch.join("src/b.rs"),
        "use crate::a::c::C;\nuse crate::a::A;\n",
    )
    .unwrap();
    assert_eq!(import_circles(&scratch.join("src")), ["a <-> b"]);
    std::fs::write(scratch.join("src/b.rs"), "use crate::a::c::C;\n").unwrap();
    assert_eq!(import_circles(&scratch.join("src")), Vec::<String>::new());
    std::fs::remove_dir_all(&scratch).unwrap();
}

/// The arrows of docs/architecture.md's map ("## The map", lines `FLOOR  A, B ──> C, D`):
/// crate → the crates it depends on.
fn drawn_arrows() -> BTreeMap<String, Vec<String>> {
    let text =
        std::fs::read_to_string(lmbias_testing::repo_root().join("docs/architecture.md")).unwrap();
    let section = text
        .split("\n## The map\n")
        .nth(1)
        .expect("docs/architecture.md has a \"## The map\" section");
    let block = section
        .split("```")
        .nth(1)
        .expect("the map is a code block");
    let mut arrows = BTreeMap::new();
    for line in block.lines().filter(|l| l.contains('─')) {
        let line = line.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ');
        let (from, to) = line.split_once("──>").unwrap();
        let to: Vec<String> = to
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .collect();
        for name in from.split(',').map(str::trim) {
            assert!(
                arrows.insert(name.to_owned(), to.clone()).is_none(),
                "{name} is drawn twice"
            );
        }
    }
    arrows
}

/// What the map draws and `cargo metadata` has differ in: each crate whose drawn arrows are not
/// its normal and build dependencies.
fn map_against_metadata(
    drawn: &BTreeMap<String, Vec<String>>,
    graph: &BTreeMap<String, Vec<Dep>>,
) -> Vec<String> {
    let mut faults = Vec::new();
    for (name, deps) in graph {
        let mut real: Vec<&str> = deps
            .iter()
            .filter(|d| !d.dev)
            .map(|d| d.name.as_str())
            .collect();
        real.sort_unstable();
        real.dedup();
        match drawn.get(name) {
            None => faults.push(format!("the map does not draw {name}")),
            Some(to) => {
                let mut to: Vec<&str> = to.iter().map(String::as_str).collect();
                to.sort_unstable();
                if to != real {
                    faults.push(format!(
                        "{name}: the map draws {to:?}, cargo metadata has {real:?}"
                    ));
                }
            }
        }
    }
    faults.extend(
        drawn
            .keys()
            .filter(|n| !graph.contains_key(*n))
            .map(|n| format!("the map draws {n}, which the workspace does not have")),
    );
    faults
}

#[test]
fn the_map_draws_every_arrow_and_no_other() {
    let (drawn, graph) = (drawn_arrows(), graph());
    assert_eq!(map_against_metadata(&drawn, &graph), Vec::<String>::new());
    // An arrow the code gains, or one the map keeps after the code dropped it, is named.
    let mut gained = graph.clone();
    gained.get_mut("lmbias-text").unwrap().push(Dep {
        name: "lmbias-linear".into(),
        dev: false,
    });
    assert_eq!(
        map_against_metadata(&drawn, &gained),
        [
            r#"lmbias-text: the map draws ["lmbias-core"], cargo metadata has ["lmbias-core", "lmbias-linear"]"#
        ]
    );
}
