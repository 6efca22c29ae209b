//! docs/adding-a-measure.md quotes crates/lmbias-runs/examples/cosine_gap.rs, which `cargo test`
//! compiles and runs: every Rust block of the guide must be in that file word for word, so the
//! guide cannot show code that does not compile (issue #48).

fn rust_blocks(guide: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut lines = guide.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "```rust" {
            let indent = line.len() - line.trim_start().len();
            let body: Vec<&str> = lines
                .by_ref()
                .take_while(|l| l.trim() != "```")
                .map(|l| l.get(indent..).unwrap_or(""))
                .collect();
            blocks.push(body.join("\n"));
        }
    }
    blocks
}

/// `text` with each line's leading spaces removed: a block may sit deeper in the guide's list
/// than in the file's module.
fn dedent(text: &str) -> String {
    text.lines()
        .map(str::trim_start)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_block_of_the_guide_is_in_the_example_that_compiles() {
    let root = lmbias_testing::repo_root();
    let guide = std::fs::read_to_string(root.join("docs/adding-a-measure.md")).unwrap();
    let example =
        std::fs::read_to_string(root.join("crates/lmbias-runs/examples/cosine_gap.rs")).unwrap();
    let blocks = rust_blocks(&guide);
    assert!(
        blocks.len() >= 4,
        "the guide shows the layers: {}",
        blocks.len()
    );
    let example = dedent(&example);
    for block in &blocks {
        assert!(
            example.contains(&dedent(block)),
            "docs/adding-a-measure.md shows code the example does not hold:\n{block}"
        );
    }
    // The test can fail: a changed line is caught.
    let changed = dedent(&blocks[0]).replace("sum::<f64>()", "sum::<f32>()");
    assert!(!example.contains(&changed));
}

/// Every file the guide's table names for an existing crate is a place that crate has, so the
/// list cannot name a file that moved.
#[test]
fn the_guides_file_list_names_files_that_exist() {
    let root = lmbias_testing::repo_root();
    let guide = std::fs::read_to_string(root.join("docs/adding-a-measure.md")).unwrap();
    let table = guide
        .split("## The files a measure touches")
        .nth(1)
        .expect("the guide lists the files");
    let mut checked = 0;
    for row in table.lines().filter(|l| l.starts_with("| lmbias-")) {
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        let krate = root.join("crates").join(cells[0]);
        for file in cells[1].split('`').skip(1).step_by(2) {
            let is_path = [".rs", ".py", ".pyi"].iter().any(|e| file.ends_with(e));
            if file.contains("NAME") || file.contains(' ') || !is_path {
                continue;
            }
            assert!(krate.join(file).is_file(), "{}: no {file}", cells[0]);
            checked += 1;
        }
    }
    assert!(checked >= 8, "{checked} files checked");
}
