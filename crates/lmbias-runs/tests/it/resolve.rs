//! Resolution against a hub served on loopback (lmbias-testing's `hub_server`): a hub id
//! resolves through the cache, then a download (lmbias-fetch's, tested there), to a
//! checkpoint pinned by its commit; a half-made snapshot is completed or said to be; what
//! the hub refused is said as resolution says it. Here, not in lmbias-model, because this
//! crate is the one that compiles the hub client in (lmbias-fetch's `download` feature).

use std::path::Path;

use lmbias_model::{
    Architecture, Checkpoint, DownloadError, HubError, HubSettings, ModelError, Origin,
};
use lmbias_testing::error_chain;
use lmbias_testing::hub_server::{
    COMMIT, HubRepo, HubServer, closing_endpoint, garbage_endpoint, scratch_cache,
};

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
    let server = HubServer::start(vec![HubRepo::tiny("org/tiny")]);
    let cache = scratch_cache("pinned");
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
    let cache = scratch_cache("weights");
    let checkpoint = Checkpoint::resolve_with("org/bin", &settings(&server, &cache)).unwrap();
    assert!(checkpoint.dir().join("pytorch_model.bin").is_file());
    assert!(!checkpoint.dir().join("model.safetensors").exists());
    assert_eq!(checkpoint.architecture(), Architecture::BertMaskedLm);
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn a_half_made_snapshot_and_an_unreachable_hub_say_both() {
    let (endpoint, _) = closing_endpoint();
    let cache = scratch_cache("halfunreachable");
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
    let server = HubServer::start(vec![HubRepo::tiny("org/tiny")]);
    let cache = scratch_cache("offline");
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
             and fetching is off (HF_HUB_OFFLINE, TRANSFORMERS_OFFLINE, LMBIAS_OFFLINE or --offline), so the hub was not asked; run `huggingface-cli download \
             org/tiny` where the hub is reachable and copy its models--* folder into {0}, or give \
             the model folder's path instead",
            cache.display()
        )
    );
    assert!(server.requests().is_empty());
}

#[test]
fn a_half_made_snapshot_in_the_cache_is_completed() {
    let server = HubServer::start(vec![HubRepo::tiny("org/half")]);
    let cache = scratch_cache("half");
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

/// What the download refused comes through resolution as it is, typed and worded by
/// lmbias-fetch (whose tests cover each refusal): a gated model, a hub answering garbage; a
/// model the hub does not have is not found.
#[test]
fn a_refused_download_is_passed_on_as_the_hub_said_it() {
    let server = HubServer::start(vec![HubRepo::tiny("org/gated").gated("hf_secret")]);
    let cache = scratch_cache("refused");
    let err = Checkpoint::resolve_with("org/gated", &settings(&server, &cache)).unwrap_err();
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
    assert!(
        err.to_string()
            .starts_with("model \"org/gated\" is gated or private"),
        "{err}"
    );
    assert_eq!(err.io_kind(), None);
    let garbage = HubSettings::new(garbage_endpoint(), &cache);
    let err = Checkpoint::resolve_with("org/garbage", &garbage).unwrap_err();
    assert!(
        matches!(hub_error(&err), HubError::NotHttp { .. }),
        "{err:?}"
    );
    assert!(!error_chain(&err).contains('\n'), "{err}");
    let _ = std::fs::remove_dir_all(&cache);
}
