//! Downloading from a hub served on loopback (lmbias-testing's `hub_server`; these
//! machines reach no real hub): huggingface_hub's cache layout, LFS redirects to
//! another host, resumed transfers, checksums, progress, gated models, offline mode, and a
//! hub that cannot be reached. What resolution makes of a download (a checkpoint, its
//! origin, a snapshot to complete) is lmbias-model's to test.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use std::sync::Mutex;

use lmbias_fetch::hub::{
    DownloadError, HubError, HubFiles, HubMiss, HubSettings, Stall, cached_snapshot, is_hub_id,
};
use lmbias_testing::error_chain;
use lmbias_testing::hub_server::{
    COMMIT, Host, HubRepo, HubServer, TRICKLE_BYTES, TRICKLE_EVERY, closing_endpoint,
    garbage_endpoint, scratch_cache,
};

/// The files lmbias-model names (its `HUB_FILES`), which this crate cannot depend on.
const FILES: HubFiles = HubFiles {
    marker: "config.json",
    one_of: &[
        &["tokenizer.json", "vocab.txt", "spm.model", "spiece.model"],
        &["model.safetensors", "pytorch_model.bin"],
    ],
    optional: &["tokenizer_config.json", "special_tokens_map.json"],
};

fn download(model: &str, hub: &HubSettings) -> Result<PathBuf, DownloadError> {
    lmbias_fetch::hub::download(model, &FILES, hub)
}

/// The hub's reason for a failed download ([`DownloadError::Failed`]'s source).
fn hub_error(err: &DownloadError) -> &HubError {
    match err {
        DownloadError::Failed { source, .. } => source,
        other => panic!("not a hub error: {other:?}"),
    }
}

fn settings(server: &HubServer, cache: &Path) -> HubSettings {
    HubSettings::new(server.endpoint(), cache)
}

fn weights_size() -> u64 {
    std::fs::metadata(lmbias_testing::model_dir("tiny-bert-mlm").join("model.safetensors"))
        .unwrap()
        .len()
}

/// Every file under `dir`, relative to it.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let path = e.unwrap().path();
            if path.is_dir() && !path.is_symlink() {
                stack.push(path);
            } else {
                out.push(path.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_download_lands_in_huggingface_hubs_cache_layout() {
    let repo = HubRepo::tiny("org/tiny");
    let weights_sha = repo.sha256("model.safetensors");
    let server = HubServer::start(vec![repo]);
    let cache = scratch_cache("layout");
    let snapshot = download("org/tiny", &settings(&server, &cache)).unwrap();
    let root = cache.join("models--org--tiny");
    assert_eq!(snapshot, root.join("snapshots").join(COMMIT));
    assert_eq!(
        std::fs::read_to_string(root.join("refs/main")).unwrap(),
        COMMIT
    );
    let fixture = lmbias_testing::model_dir("tiny-bert-mlm");
    // tokenizer.json is there, so vocab.txt (its fallback) is not fetched.
    for file in [
        "config.json",
        "model.safetensors",
        "tokenizer.json",
        "tokenizer_config.json",
    ] {
        let link = std::fs::read_link(snapshot.join(file)).unwrap();
        assert!(link.starts_with("../../blobs"), "{file} -> {link:?}");
        assert_eq!(
            std::fs::read(snapshot.join(file)).unwrap(),
            std::fs::read(fixture.join(file)).unwrap(),
            "{file} differs"
        );
    }
    // The weights' blob is named by its sha256 (the LFS etag).
    assert_eq!(
        std::fs::read_link(snapshot.join("model.safetensors")).unwrap(),
        Path::new("../../blobs").join(&weights_sha)
    );
    let mut snapshot_files = files_under(&snapshot);
    snapshot_files.sort();
    assert_eq!(
        snapshot_files,
        [
            "config.json",
            "model.safetensors",
            "tokenizer.json",
            "tokenizer_config.json"
        ]
    );
    assert!(
        files_under(&root.join("blobs"))
            .iter()
            .all(|f| !f.ends_with(".incomplete")),
        "a temporary file is left"
    );

    let requests = server.requests();
    // config.json at main; everything after it at the commit config.json came from.
    assert_eq!(requests[0].method, "HEAD");
    assert_eq!(requests[0].path, "/org/tiny/resolve/main/config.json");
    assert!(
        requests
            .iter()
            .filter(|r| r.host == Host::Hub && !r.path.ends_with("/config.json"))
            .all(|r| r.path.starts_with(&format!("/org/tiny/resolve/{COMMIT}/"))),
        "{requests:?}"
    );
    // The weights came from the other host the hub redirected to.
    let cdn: Vec<_> = requests.iter().filter(|r| r.host == Host::Cdn).collect();
    assert_eq!(cdn.len(), 1, "{cdn:?}");
    assert!(cdn[0].path.contains(&weights_sha), "{cdn:?}");

    // The cache's lookup finds it; an offline download asks nothing.
    assert_eq!(cached_snapshot(&cache, "org/tiny"), Some(snapshot));
    let offline = HubSettings {
        offline: true,
        ..settings(&server, &cache)
    };
    let before = server.requests().len();
    let err = download("org/tiny", &offline).unwrap_err();
    assert!(
        matches!(
            err,
            DownloadError::Absent {
                miss: HubMiss::Offline,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(server.requests().len(), before);
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn progress_is_told_for_each_file_from_its_first_byte_to_its_end() {
    let server = HubServer::start(vec![HubRepo::tiny("org/told")]);
    let cache = scratch_cache("told");
    // (file, bytes so far, size, done) of every call.
    type Told = Vec<(String, u64, Option<u64>, bool)>;
    let seen: Arc<Mutex<Told>> = Arc::default();
    let log = Arc::clone(&seen);
    let hub = HubSettings {
        progress: Some(Arc::new(move |t| {
            log.lock()
                .unwrap()
                .push((t.file.to_owned(), t.have, t.size, t.done));
        })),
        ..settings(&server, &cache)
    };
    download("org/told", &hub).unwrap();
    let seen = seen.lock().unwrap();
    let size = weights_size();
    let weights: Vec<_> = seen.iter().filter(|t| t.0 == "model.safetensors").collect();
    assert_eq!(weights.first().map(|t| (t.1, t.3)), Some((0, false)));
    assert_eq!(weights.last().map(|t| (t.1, t.3)), Some((size, true)));
    assert!(weights.iter().all(|t| t.2 == Some(size)));
    assert!(weights.windows(2).all(|w| w[0].1 <= w[1].1));
    assert_eq!(weights.iter().filter(|t| t.3).count(), 1);
    // Every file fetched ends with one `done`.
    let mut ended: Vec<&str> = seen.iter().filter(|t| t.3).map(|t| t.0.as_str()).collect();
    ended.sort();
    assert_eq!(
        ended,
        [
            "config.json",
            "model.safetensors",
            "tokenizer.json",
            "tokenizer_config.json"
        ]
    );
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn a_renamed_model_is_followed_within_the_hub_and_cached_under_the_name_asked() {
    let server = HubServer::start(vec![HubRepo::tiny("google-bert/tiny").renamed_from("tiny")]);
    let cache = scratch_cache("renamed");
    let snapshot = download("tiny", &settings(&server, &cache)).unwrap();
    assert_eq!(snapshot, cache.join("models--tiny/snapshots").join(COMMIT));
    assert!(snapshot.join("model.safetensors").is_file());
    let requests = server.requests();
    assert_eq!(requests[0].path, "/tiny/resolve/main/config.json");
    assert_eq!(
        requests[1].path,
        "/google-bert/tiny/resolve/main/config.json"
    );
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn a_transfer_cut_halfway_resumes_with_a_range_request() {
    let server = HubServer::start(vec![HubRepo::tiny("org/cut").cut_once("model.safetensors")]);
    let cache = scratch_cache("cut");
    let hub = settings(&server, &cache);
    let size = weights_size();

    let err = download("org/cut", &hub).unwrap_err();
    let message = error_chain(&err);
    // ureq sees the early close as a read error (fewer bytes than Content-Length).
    assert!(
        matches!(
            hub_error(&err),
            HubError::Interrupted {
                source: Stall::Read(_) | Stall::ClosedEarly,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(!message.contains('\n'), "{message}");
    assert!(
        message.contains(&format!("interrupted after {} of {size} bytes", size / 2)),
        "{message}"
    );
    let root = cache.join("models--org--cut");
    // Half a file, under its temporary name; no snapshot yet.
    let partial: Vec<_> = files_under(&root.join("blobs"))
        .into_iter()
        .filter(|f| f.ends_with(".incomplete"))
        .collect();
    assert_eq!(partial.len(), 1, "{partial:?}");
    assert_eq!(
        std::fs::metadata(root.join("blobs").join(&partial[0]))
            .unwrap()
            .len(),
        size / 2
    );
    assert!(!root.join("snapshots").exists());

    let snapshot = download("org/cut", &hub).unwrap();
    let gets: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.host == Host::Cdn)
        .collect();
    assert_eq!(gets.len(), 2, "{gets:?}");
    assert_eq!(gets[0].range, None);
    assert_eq!(
        gets[1].range.as_deref(),
        Some(format!("bytes={}-", size / 2).as_str())
    );
    assert_eq!(
        std::fs::read(snapshot.join("model.safetensors")).unwrap(),
        std::fs::read(lmbias_testing::model_dir("tiny-bert-mlm").join("model.safetensors"))
            .unwrap()
    );
    assert!(!root.join("blobs").join(&partial[0]).exists());
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn a_trickling_transfer_is_abandoned_under_the_minimum_speed_and_resumes() {
    let server = HubServer::start(vec![
        HubRepo::tiny("org/slow").trickle_once("model.safetensors"),
    ]);
    let cache = scratch_cache("trickle");
    // The trickle sends 80 bytes/s after its first half; the rule asks 1000 over 1 s.
    assert!(TRICKLE_BYTES as f64 / TRICKLE_EVERY.as_secs_f64() < 1000.0);
    let hub = HubSettings {
        min_speed: 1000,
        min_speed_time: Duration::from_secs(1),
        ..settings(&server, &cache)
    };
    let size = weights_size();
    let start = Instant::now();
    let err = download("org/slow", &hub).unwrap_err();
    // Without the rule the ~100 KB left would take 20 minutes at 80 bytes/s.
    assert!(start.elapsed() < Duration::from_secs(10), "{err}");
    let message = error_chain(&err);
    assert!(
        matches!(
            hub_error(&err),
            HubError::Interrupted {
                source: Stall::TooSlow {
                    min_speed: 1000,
                    ..
                },
                ..
            }
        ),
        "{err:?}"
    );
    assert!(!message.contains('\n'), "{message}");
    let root = cache.join("models--org--slow");
    let partial: Vec<_> = files_under(&root.join("blobs"))
        .into_iter()
        .filter(|f| f.ends_with(".incomplete"))
        .collect();
    assert_eq!(partial.len(), 1, "{partial:?}");
    let partial = root.join("blobs").join(&partial[0]);
    let have = std::fs::metadata(&partial).unwrap().len();
    // At least the fast half, far from all of it.
    assert!(have >= size / 2 && have < size, "{have} of {size}");
    assert!(
        message.contains(&format!(
            "model.safetensors interrupted after {have} of {size} bytes; run again to resume \
             from {}: ",
            partial.display()
        )) && message.ends_with(
            "under the minimum of 1000 bytes/s over 1 s (LMBIAS_HUB_MIN_SPEED, LMBIAS_HUB_MIN_SPEED_TIME)"
        ),
        "{message}"
    );
    assert!(!root.join("snapshots").exists());

    // The next run resumes from the bytes kept.
    let snapshot = download("org/slow", &hub).unwrap();
    let gets: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.host == Host::Cdn)
        .collect();
    assert_eq!(gets.len(), 2, "{gets:?}");
    assert_eq!(
        gets[1].range.as_deref(),
        Some(format!("bytes={have}-").as_str())
    );
    assert_eq!(
        std::fs::read(snapshot.join("model.safetensors")).unwrap(),
        std::fs::read(lmbias_testing::model_dir("tiny-bert-mlm").join("model.safetensors"))
            .unwrap()
    );
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn a_hub_answering_garbage_is_a_bad_answer_not_an_unreachable_hub() {
    let endpoint = garbage_endpoint();
    let cache = scratch_cache("garbage");
    let hub = HubSettings::new(&endpoint, &cache);
    let err = download("org/garbage", &hub).unwrap_err();
    let message = error_chain(&err);
    assert!(
        matches!(hub_error(&err), HubError::NotHttp { .. }),
        "{err:?}"
    );
    assert!(!message.contains('\n'), "{message}");
    // The error names the URL, its cause says what answered, ureq's reason comes last.
    assert_eq!(
        err.to_string(),
        format!(
            "model \"org/garbage\": downloading {endpoint}/org/garbage/resolve/main/config.json \
             failed"
        )
    );
    assert!(
        message.starts_with(&format!(
            "{err}: the answer is not HTTP: is {endpoint} a Hugging Face hub (HF_ENDPOINT)?: "
        )),
        "{message}"
    );
    assert!(!message.contains("could not be reached"), "{message}");
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn a_corrupt_file_is_rejected_and_leaves_nothing_in_snapshots() {
    let server = HubServer::start(vec![
        HubRepo::tiny("org/corrupt").corrupt("model.safetensors"),
    ]);
    let cache = scratch_cache("corrupt");
    let hub = settings(&server, &cache);
    let err = download("org/corrupt", &hub).unwrap_err();
    let message = error_chain(&err);
    assert!(
        matches!(hub_error(&err), HubError::Corrupt { .. }),
        "{err:?}"
    );
    assert!(!message.contains('\n'), "{message}");
    assert!(
        message.contains("model.safetensors is corrupt: its sha256 is")
            && message.contains("the download was removed"),
        "{message}"
    );
    let root = cache.join("models--org--corrupt");
    assert!(!root.join("snapshots").exists());
    assert!(!root.join("refs").exists());
    // The small files are kept as blobs (they were right); the bad one is gone.
    let blobs = files_under(&root.join("blobs"));
    assert!(
        blobs
            .iter()
            .all(|f| !f.ends_with(".incomplete") && f.len() == 40),
        "{blobs:?}"
    );
    assert_eq!(cached_snapshot(&cache, "org/corrupt"), None);
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn a_gated_model_needs_a_token_with_access() {
    let server = HubServer::start(vec![HubRepo::tiny("org/gated").gated("hf_secret")]);
    let cache = scratch_cache("gated");
    let hub = settings(&server, &cache);

    let err = download("org/gated", &hub).unwrap_err();
    assert!(
        matches!(
            err,
            DownloadError::Gated {
                token_sent: false,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "model \"org/gated\" is gated or private and HF_TOKEN is not set: accept its licence on \
             {}/org/gated with your account, then set HF_TOKEN to an access token of that account \
             (huggingface.co/settings/tokens)",
            server.endpoint()
        )
    );
    let wrong = HubSettings {
        token: Some("hf_wrong".to_owned()),
        ..settings(&server, &cache)
    };
    let err = download("org/gated", &wrong).unwrap_err();
    assert!(
        err.to_string()
            .contains("is gated or private and HF_TOKEN has no access to it"),
        "{err}"
    );
    assert!(!cache.join("models--org--gated/snapshots").exists());

    let right = HubSettings {
        token: Some("hf_secret".to_owned()),
        ..settings(&server, &cache)
    };
    let snapshot = download("org/gated", &right).unwrap();
    assert!(snapshot.join("model.safetensors").is_file());
    // The token went to the hub, never to the host the weights redirect to.
    let requests = server.requests();
    assert!(
        requests
            .iter()
            .filter(|r| r.host == Host::Cdn)
            .all(|r| r.authorization.is_none())
    );
    assert!(
        requests
            .iter()
            .any(|r| r.authorization.as_deref() == Some("Bearer hf_secret"))
    );
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn offline_makes_no_request_and_says_so() {
    let server = HubServer::start(vec![HubRepo::tiny("org/tiny")]);
    let cache = scratch_cache("offline");
    let hub = HubSettings {
        offline: true,
        ..settings(&server, &cache)
    };
    let err = download("org/tiny", &hub).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "model \"org/tiny\" could not be downloaded into {}, and fetching is off \
             (HF_HUB_OFFLINE, TRANSFORMERS_OFFLINE, LMBIAS_OFFLINE or --offline), so the hub was \
             not asked",
            cache.display()
        )
    );
    assert!(server.requests().is_empty());
}

#[test]
fn a_model_the_hub_does_not_have_is_not_found() {
    let server = HubServer::start(vec![HubRepo::tiny("org/tiny")]);
    let cache = scratch_cache("absent");
    let err = download("org/absent", &settings(&server, &cache)).unwrap_err();
    assert!(matches!(err, DownloadError::Absent { .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains(&format!(
            ", and the hub at {} has no such model (if it is private, set HF_TOKEN",
            server.endpoint()
        )),
        "{message}"
    );
    assert!(!cache.join("models--org--absent").exists());
}

#[test]
fn weights_fall_back_to_pytorch_model_bin_and_a_model_without_any_is_refused() {
    let bin = lmbias_testing::model_dir("tiny-bert-mlm-bin");
    let server = HubServer::start(vec![
        HubRepo::from_folder("org/bin", COMMIT, &bin),
        HubRepo::tiny("org/noweights").without("model.safetensors"),
    ]);
    let cache = scratch_cache("weights");
    let hub = settings(&server, &cache);
    let snapshot = download("org/bin", &hub).unwrap();
    assert!(snapshot.join("pytorch_model.bin").is_file());
    assert!(!snapshot.join("model.safetensors").exists());

    let err = download("org/noweights", &hub).unwrap_err();
    assert!(
        error_chain(&err)
            .ends_with("failed: the model has none of model.safetensors, pytorch_model.bin"),
        "{err}"
    );
    assert!(!cache.join("models--org--noweights/snapshots").exists());
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn two_fetches_of_one_model_download_each_blob_once() {
    let server = Arc::new(HubServer::start(vec![HubRepo::tiny("org/shared")]));
    let cache = scratch_cache("shared");
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let hub = settings(&server, &cache);
            std::thread::spawn(move || download("org/shared", &hub).unwrap())
        })
        .collect();
    let dirs: Vec<PathBuf> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(dirs[0], dirs[1]);
    // The second waited for the first's lock and found the blob: one GET each.
    let gets = |host: Host| {
        server
            .requests()
            .into_iter()
            .filter(|r| r.host == host && r.method == "GET")
            .count()
    };
    assert_eq!(gets(Host::Cdn), 1);
    assert_eq!(
        gets(Host::Hub),
        3,
        "config.json, tokenizer.json, tokenizer_config.json"
    );
    assert!(dirs[0].join("model.safetensors").is_file());
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn an_unreachable_hub_fails_fast_and_is_asked_once_per_process() {
    // Accepts each connection and closes it at once: the hub is not there.
    let (endpoint, connections) = closing_endpoint();
    let cache = scratch_cache("unreachable");
    let hub = HubSettings::new(&endpoint, &cache);
    let err = download("org/first", &hub).unwrap_err();
    assert!(matches!(err, DownloadError::Absent { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&format!(
            ", and the hub at {endpoint} could not be reached ("
        )),
        "{err}"
    );
    assert!(
        err.to_string().contains("set HF_HUB_OFFLINE=1 not to try"),
        "{err}"
    );
    assert_eq!(connections.load(Ordering::SeqCst), 1);
    // The next model is not sent to the network again.
    let err = download("org/second", &hub).unwrap_err();
    assert!(
        err.to_string()
            .contains("could not be reached earlier in this run"),
        "{err}"
    );
    assert_eq!(connections.load(Ordering::SeqCst), 1);
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn a_hub_that_never_answers_is_given_up_after_the_timeout() {
    // Bound but never accepting: the connection opens (the kernel's backlog) and
    // no answer ever comes, as behind a black-holing firewall.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let hub = HubSettings {
        read_timeout: Duration::from_secs(1),
        ..HubSettings::new(&endpoint, scratch_cache("silent"))
    };
    let start = Instant::now();
    let err = download("org/silent", &hub).unwrap_err();
    // A hang would stop here; the bound is ten times the timeout.
    assert!(start.elapsed() < Duration::from_secs(10), "{err}");
    assert!(err.to_string().contains("could not be reached"), "{err}");
    drop(listener);
}

#[test]
fn only_hub_ids_go_to_the_hub() {
    for id in [
        "bert-base-uncased",
        "google/mt5-base",
        "emanjavacas/MacBERTh",
        "Livingwithmachines/bert_1760_1850",
        "sentence-transformers/all-MiniLM-L6-v2",
    ] {
        assert!(is_hub_id(id), "{id}");
    }
    for path in [
        "./models/x",
        "/abs/model",
        "~/m",
        "a/b/c",
        "",
        "   ",
        "org/ name",
        "org/a--b",
        "org/x.",
        &"x".repeat(97),
    ] {
        assert!(!is_hub_id(path), "{path:?}");
    }
}

#[test]
fn hub_download_of_odd_names_is_an_error() {
    // A port nobody listens on: every request is refused at once.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let endpoint = format!("http://127.0.0.1:{port}");
    let cache = std::env::temp_dir().join(format!("lmbias-odd-names-{}", std::process::id()));
    for name in ["", "   ", "x".repeat(300).as_str()] {
        let err = download(name, &HubSettings::new(&endpoint, &cache)).unwrap_err();
        assert!(!err.to_string().contains('\n'), "{err}");
    }
    let _ = std::fs::remove_dir_all(&cache);
}
