//! lmbias-model's `hub` feature against a hub served on loopback (this machine reaches
//! no real hub): the files land in the HF cache layout, `refs/main` names the commit the
//! server reported, the cache then resolves without the network, and failures are one line.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use lmbias_model::hub::{cached_snapshot, download, is_hub_id};
use lmbias_model::{Architecture, Checkpoint, ModelError};

/// Serves `GET /org/tiny/resolve/main/FILE` from the tiny BERT fixture (404 for
/// anything else), closing each connection; returns the endpoint URL.
fn serve_fixture() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let root = lmbias_tests::fixtures().join("models/tiny-bert-mlm");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request = String::new();
            if reader.read_line(&mut request).is_err() {
                continue;
            }
            // Drain the headers.
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let path = request.split_whitespace().nth(1).unwrap_or("");
            let file = path
                .strip_prefix("/org/tiny/resolve/main/")
                .map(|f| root.join(f));
            let _ = match file.filter(|f| f.is_file()) {
                Some(f) => {
                    let body = std::fs::read(f).unwrap();
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nX-Repo-Commit: 0f1e2d3c\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    stream
                        .write_all(head.as_bytes())
                        .and_then(|()| stream.write_all(&body))
                }
                None => stream.write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                ),
            };
        }
    });
    endpoint
}

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lmbias-hub-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn same_bytes(a: &Path, b: &Path) -> bool {
    std::fs::read(a).unwrap() == std::fs::read(b).unwrap()
}

#[test]
fn a_download_lands_in_the_hf_cache_layout_and_resolves_offline_afterwards() {
    let endpoint = serve_fixture();
    let cache = scratch("ok");
    let snapshot = download("org/tiny", &endpoint, &cache).unwrap();
    assert_eq!(snapshot, cache.join("models--org--tiny/snapshots/0f1e2d3c"));
    let fixture = lmbias_tests::fixtures().join("models/tiny-bert-mlm");
    for file in [
        "config.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "vocab.txt",
        "model.safetensors",
    ] {
        assert!(
            same_bytes(&snapshot.join(file), &fixture.join(file)),
            "{file} differs"
        );
    }
    // Files the model does not have are not invented, and no partial file is left.
    assert!(!snapshot.join("spiece.model").exists());
    assert!(!snapshot.join("pytorch_model.bin").exists());
    assert!(
        std::fs::read_dir(&snapshot)
            .unwrap()
            .all(|e| { e.unwrap().path().extension().is_none_or(|x| x != "partial") })
    );
    assert_eq!(
        std::fs::read_to_string(cache.join("models--org--tiny/refs/main")).unwrap(),
        "0f1e2d3c"
    );
    // Next time the cache answers, without the network.
    assert_eq!(cached_snapshot(&cache, "org/tiny"), Some(snapshot.clone()));
    let checkpoint = Checkpoint::from_dir("org/tiny", &snapshot).unwrap();
    assert_eq!(checkpoint.architecture(), Architecture::BertMaskedLm);
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn a_model_the_hub_does_not_have_is_a_one_line_error() {
    let endpoint = serve_fixture();
    let cache = scratch("missing");
    let err = download("org/absent", &endpoint, &cache).unwrap_err();
    assert!(matches!(err, ModelError::Hub { .. }), "{err:?}");
    let message = err.to_string();
    assert!(!message.contains('\n'), "{message}");
    assert!(
        message.contains("org/absent")
            && message.contains("config.json")
            && message.contains("404"),
        "{message}"
    );
    // Nothing half-made is left to be mistaken for a cached model.
    assert_eq!(cached_snapshot(&cache, "org/absent"), None);
}

#[test]
fn only_hub_ids_go_to_the_hub() {
    for id in [
        "bert-base-uncased",
        "google/mt5-base",
        "emanjavacas/MacBERTh",
    ] {
        assert!(is_hub_id(id), "{id}");
    }
    for path in ["./models/x", "/abs/model", "~/m", "a/b/c", ""] {
        assert!(!is_hub_id(path), "{path}");
    }
}
