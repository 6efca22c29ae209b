//! Resolution against a hub served on loopback (lmbias-testing's `hub_server`): a hub id
//! resolves through the cache, then a download (lmbias-fetch's, tested there), to a
//! checkpoint pinned by its commit; a half-made snapshot is completed or said to be; what
//! the hub refused is said as resolution says it.

use std::path::{Path, PathBuf};

use lmbias_model::{
    Architecture, Checkpoint, DownloadError, HubError, HubSettings, ModelError, Origin,
};
use lmbias_testing::hub_server::{Host, HubRepo, HubServer, closing_endpoint, garbage_endpoint};

const COMMIT: &str = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c";

fn tiny(id: &str) -> HubRepo {
    HubRepo::from_folder(id, COMMIT, &lmbias_testing::model_dir("tiny-bert-mlm"))
}

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lmbias-hub-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The error and its causes on one line, as the CLI prints them (`{:#}`).
fn chain(err: &dyn std::error::Error) -> String {
    let mut line = err.to_string();
    let mut cause = err.source();
    while let Some(e) = cause {
        line.push_str(&format!(": {e}"));
        cause = e.source();
    }
    line
}

/// The hub's reason for a failed download.
fn hub_error(err: &ModelError) -> &HubError {
    match err {
        ModelError::Download(DownloadError::Failed { source, .. }) => source,
        other => panic!("not a hub error: {other:?}"),
    }
}

fn settings(server: &HubServer, cache: &Path) -> HubSettings {
    HubSettings::new(server.endpoint(), cache)
}

#[test]
fn a_downloaded_model_resolves_from_the_cache_pinned_by_its_commit() {
    let server = HubServer::start(vec![tiny("org/tiny")]);
    let cache = scratch("pinned");
    let checkpoint = Checkpoint::resolve_with("org/tiny", &settings(&server, &cache)).unwrap();
    let snapshot = cache.join("models--org--tiny/snapshots").join(COMMIT);
    assert_eq!(checkpoint.dir(), snapshot);
    // Next time the cache answers, with no network at all.
    let offline = HubSettings {
        offline: true,
        ..settings(&server, &cache)
    };
    let before = server.requests().len();
    let checkpoint = Checkpoint::resolve_with("org/tiny", &offline).unwrap();
    assert_eq!(checkpoint.dir(), snapshot);
    assert_eq!(checkpoint.architecture(), Architecture::BertMaskedLm);
    // Pinned by the commit it is a snapshot of, for provenance.
    assert_eq!(
        checkpoint.origin(),
        &Origin::HfCache {
            repo: "org/tiny".to_owned(),
            revision: COMMIT.to_owned(),
        }
    );
    assert_eq!(server.requests().len(), before);
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn weights_fall_back_to_pytorch_model_bin() {
    let bin = lmbias_testing::model_dir("tiny-bert-mlm-bin");
    let server = HubServer::start(vec![HubRepo::from_folder("org/bin", COMMIT, &bin)]);
    let cache = scratch("weights");
    let checkpoint = Checkpoint::resolve_with("org/bin", &settings(&server, &cache)).unwrap();
    assert!(checkpoint.dir().join("pytorch_model.bin").is_file());
    assert!(!checkpoint.dir().join("model.safetensors").exists());
    assert_eq!(checkpoint.architecture(), Architecture::BertMaskedLm);
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn a_half_made_snapshot_and_an_unreachable_hub_say_both() {
    let (endpoint, _) = closing_endpoint();
    let cache = scratch("halfunreachable");
    let stale = cache.join("models--org--halfway/snapshots").join(COMMIT);
    std::fs::create_dir_all(&stale).unwrap();
    std::fs::copy(
        lmbias_testing::model_dir("tiny-bert-mlm").join("config.json"),
        stale.join("config.json"),
    )
    .unwrap();
    let hub = HubSettings::new(&endpoint, &cache);
    let err = Checkpoint::resolve_with("org/halfway", &hub).unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, ModelError::Incomplete { .. }), "{err:?}");
    assert!(!message.contains('\n'), "{message}");
    assert!(
        message.starts_with(&format!(
            "model \"org/halfway\": its snapshot in the Hugging Face cache, {}, lacks its weights \
             (model.safetensors or pytorch_model.bin) (a download cut short), and the hub at \
             {endpoint} could not be reached (",
            stale.display()
        )),
        "{message}"
    );
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn offline_makes_no_request_and_says_how_to_provide_the_model() {
    let server = HubServer::start(vec![tiny("org/tiny")]);
    let cache = scratch("offline");
    let hub = HubSettings {
        offline: true,
        ..settings(&server, &cache)
    };
    let err = Checkpoint::resolve_with("org/tiny", &hub).unwrap_err();
    assert!(matches!(err, ModelError::NotFound { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "model \"org/tiny\" not found: it is neither a folder nor in the Hugging Face cache {0}, \
             and HF_HUB_OFFLINE is set, so the hub was not asked; run `huggingface-cli download \
             org/tiny` where the hub is reachable and copy its models--* folder into {0}, or give \
             the model folder's path instead",
            cache.display()
        )
    );
    assert!(server.requests().is_empty());
}

#[test]
fn a_model_the_hub_does_not_have_is_not_found() {
    let server = HubServer::start(vec![tiny("org/tiny")]);
    let cache = scratch("absent");
    let err = Checkpoint::resolve_with("org/absent", &settings(&server, &cache)).unwrap_err();
    assert!(matches!(err, ModelError::NotFound { .. }), "{err:?}");
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
fn a_half_made_snapshot_in_the_cache_is_completed() {
    let server = HubServer::start(vec![tiny("org/half")]);
    let cache = scratch("half");
    // As if a download elsewhere had linked config.json and stopped.
    let stale = cache.join("models--org--half/snapshots").join(COMMIT);
    std::fs::create_dir_all(&stale).unwrap();
    std::fs::copy(
        lmbias_testing::model_dir("tiny-bert-mlm").join("config.json"),
        stale.join("config.json"),
    )
    .unwrap();
    let checkpoint = Checkpoint::resolve_with("org/half", &settings(&server, &cache)).unwrap();
    assert!(checkpoint.dir().join("model.safetensors").is_file());
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn a_gated_model_needs_a_token_with_access() {
    let server = HubServer::start(vec![tiny("org/gated").gated("hf_secret")]);
    let cache = scratch("gated");
    let hub = settings(&server, &cache);

    let err = Checkpoint::resolve_with("org/gated", &hub).unwrap_err();
    assert!(
        matches!(
            err,
            ModelError::Download(DownloadError::Gated {
                token_sent: false,
                ..
            })
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
    let err = Checkpoint::resolve_with("org/gated", &wrong).unwrap_err();
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
    let checkpoint = Checkpoint::resolve_with("org/gated", &right).unwrap();
    assert_eq!(checkpoint.architecture(), Architecture::BertMaskedLm);
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
fn a_hub_answering_garbage_is_a_bad_answer_not_an_unreachable_hub() {
    let endpoint = garbage_endpoint();
    let cache = scratch("garbage");
    let hub = HubSettings::new(&endpoint, &cache);
    let err = Checkpoint::resolve_with("org/garbage", &hub).unwrap_err();
    let message = chain(&err);
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
