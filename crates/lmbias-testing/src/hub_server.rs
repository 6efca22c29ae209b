//! A Hugging Face hub on loopback, for the download tests (these machines reach no
//! real hub): it answers `HEAD`/`GET {endpoint}/{id}/resolve/{main|commit}/{file}` as
//! huggingface.co does — `X-Repo-Commit`, `ETag`, and for LFS files (weights,
//! SentencePiece models) a `302` to a second listener (another host:port, the CDN)
//! with `X-Linked-Etag` (the sha256) and `X-Linked-Size` — and the hub's refusals
//! (`X-Error-Code` `RepoNotFound`, `GatedRepo`, `EntryNotFound`). The CDN honours
//! `Range`, and can cut a transfer halfway, trickle it, or serve corrupt bytes once
//! asked to; [`garbage_endpoint`] answers anything with bytes that are not HTTP.
//! Every request is logged, so a test can assert what was (not) asked.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use sha2::{Digest, Sha256};

/// The commit every repository of the download tests is at.
pub const COMMIT: &str = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c";

/// An empty Hugging Face cache folder for test `tag`, unique to this process.
pub fn scratch_cache(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lmbias-hub-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// One model repository on the loopback hub.
#[derive(Debug, Clone)]
pub struct HubRepo {
    id: String,
    commit: String,
    files: Vec<(String, Vec<u8>)>,
    token: Option<String>,
    cut_once: Vec<String>,
    trickle_once: Vec<String>,
    corrupt: Vec<String>,
    renamed_from: Vec<String>,
}

impl HubRepo {
    /// An empty repository `id` (`org/name`) whose `main` is at `commit`.
    pub fn new(id: &str, commit: &str) -> Self {
        Self {
            id: id.to_owned(),
            commit: commit.to_owned(),
            files: Vec::new(),
            token: None,
            cut_once: Vec::new(),
            trickle_once: Vec::new(),
            corrupt: Vec::new(),
            renamed_from: Vec::new(),
        }
    }

    /// Repository `id` holding every file of `folder` (a fixture model).
    pub fn from_folder(id: &str, commit: &str, folder: &Path) -> Self {
        let mut repo = Self::new(id, commit);
        let mut entries: Vec<_> = std::fs::read_dir(folder)
            .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            repo = repo.file(&name, std::fs::read(&path).unwrap());
        }
        repo
    }

    /// Repository `id` at [`COMMIT`] holding the tiny BERT fixture (`tiny-bert-mlm`).
    pub fn tiny(id: &str) -> Self {
        Self::from_folder(id, COMMIT, &crate::model_dir("tiny-bert-mlm"))
    }

    /// Adds (or replaces) a file.
    pub fn file(mut self, name: &str, bytes: Vec<u8>) -> Self {
        self.files.retain(|(n, _)| n != name);
        self.files.push((name.to_owned(), bytes));
        self
    }

    /// Without a file (to make a fixture lack one).
    pub fn without(mut self, name: &str) -> Self {
        self.files.retain(|(n, _)| n != name);
        self
    }

    /// Gated: only requests with `Authorization: Bearer {token}` get its files.
    pub fn gated(mut self, token: &str) -> Self {
        self.token = Some(token.to_owned());
        self
    }

    /// The first `GET` of LFS file `name` sends half its bytes, then closes.
    pub fn cut_once(mut self, name: &str) -> Self {
        self.cut_once.push(name.to_owned());
        self
    }

    /// The first `GET` of LFS file `name` sends half its bytes at once, then
    /// [`TRICKLE_BYTES`] every [`TRICKLE_EVERY`] until the client hangs up: a server
    /// that never stalls long enough for a read timeout, and never finishes.
    pub fn trickle_once(mut self, name: &str) -> Self {
        self.trickle_once.push(name.to_owned());
        self
    }

    /// LFS file `name` is served with one byte changed (its etag stays the true sha256).
    pub fn corrupt(mut self, name: &str) -> Self {
        self.corrupt.push(name.to_owned());
        self
    }

    /// Also asked for by an older id, which the hub redirects (`307`, a relative
    /// `Location`) to this one, as huggingface.co does `bert-base-uncased`.
    pub fn renamed_from(mut self, old_id: &str) -> Self {
        self.renamed_from.push(old_id.to_owned());
        self
    }

    /// The sha256 of file `name`, as lower-case hex (the blob name of an LFS file).
    pub fn sha256(&self, name: &str) -> String {
        let bytes = &self.files.iter().find(|(n, _)| n == name).unwrap().1;
        format!("{:x}", Sha256::digest(bytes))
    }
}

/// Which listener a request reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    /// The hub (`endpoint`).
    Hub,
    /// The host LFS files redirect to.
    Cdn,
}

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Request {
    /// The listener.
    pub host: Host,
    /// `HEAD` or `GET`.
    pub method: String,
    /// The path, e.g. `/org/tiny/resolve/main/config.json`.
    pub path: String,
    /// The `Range` header, if any.
    pub range: Option<String>,
    /// The `Authorization` header, if any.
    pub authorization: Option<String>,
}

/// A running loopback hub; its threads live until the test process ends.
pub struct HubServer {
    endpoint: String,
    log: Arc<Mutex<Vec<Request>>>,
}

/// Whether the hub stores `name` in LFS (and redirects it to the CDN), as
/// huggingface.co's default `.gitattributes` does.
fn is_lfs(name: &str) -> bool {
    [".safetensors", ".bin", ".model", ".h5", ".msgpack"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

struct State {
    repos: Vec<HubRepo>,
    cdn: String,
    /// LFS blobs by sha256: bytes, and whether to corrupt / cut them.
    blobs: HashMap<String, Blob>,
    log: Arc<Mutex<Vec<Request>>>,
}

struct Blob {
    bytes: Vec<u8>,
    corrupt: bool,
    cut_pending: bool,
    trickle_pending: bool,
}

/// What a trickling transfer sends per [`TRICKLE_EVERY`] after its first half.
pub const TRICKLE_BYTES: usize = 8;
/// How often a trickling transfer sends [`TRICKLE_BYTES`].
pub const TRICKLE_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

impl HubServer {
    /// Starts the hub and its CDN on two loopback ports.
    pub fn start(repos: Vec<HubRepo>) -> Self {
        let hub = TcpListener::bind("127.0.0.1:0").unwrap();
        let cdn = TcpListener::bind("127.0.0.1:0").unwrap();
        let endpoint = format!("http://{}", hub.local_addr().unwrap());
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut blobs = HashMap::new();
        for repo in &repos {
            for (name, bytes) in &repo.files {
                if is_lfs(name) {
                    blobs.insert(
                        format!("{:x}", Sha256::digest(bytes)),
                        Blob {
                            bytes: bytes.clone(),
                            corrupt: repo.corrupt.contains(name),
                            cut_pending: repo.cut_once.contains(name),
                            trickle_pending: repo.trickle_once.contains(name),
                        },
                    );
                }
            }
        }
        let state = Arc::new(Mutex::new(State {
            repos,
            cdn: format!("http://{}", cdn.local_addr().unwrap()),
            blobs,
            log: Arc::clone(&log),
        }));
        for (listener, host) in [(hub, Host::Hub), (cdn, Host::Cdn)] {
            let state = Arc::clone(&state);
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    let Ok(stream) = stream else { continue };
                    let state = Arc::clone(&state);
                    std::thread::spawn(move || {
                        let _ = serve(stream, host, &state);
                    });
                }
            });
        }
        Self { endpoint, log }
    }

    /// The hub's address, for `HF_ENDPOINT`.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Every request so far, in order of arrival.
    pub fn requests(&self) -> Vec<Request> {
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Answers one request, then closes the connection.
fn serve(stream: TcpStream, host: Host, state: &Mutex<State>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    let path = parts.next().unwrap_or("").to_owned();
    let mut headers = HashMap::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = header.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
        }
    }
    let request = Request {
        host,
        method: method.clone(),
        path: path.clone(),
        range: headers.get("range").cloned(),
        authorization: headers.get("authorization").cloned(),
    };
    let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
    state
        .log
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(request.clone());
    let answer = match host {
        Host::Hub => hub_answer(&state, &request),
        Host::Cdn => cdn_answer(&mut state, &request),
    };
    drop(state);
    let mut out = stream;
    let mut head = format!("HTTP/1.1 {}\r\nConnection: close\r\n", answer.status);
    for (k, v) in &answer.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", answer.length));
    out.write_all(head.as_bytes())?;
    if method == "HEAD" {
        return out.flush();
    }
    if answer.trickle {
        let (fast, slow) = answer.body.split_at(answer.body.len() / 2);
        out.write_all(fast)?;
        for piece in slow.chunks(TRICKLE_BYTES) {
            out.flush()?;
            std::thread::sleep(TRICKLE_EVERY);
            // Fails once the client has hung up, which ends this thread.
            out.write_all(piece)?;
        }
        return out.flush();
    }
    out.write_all(&answer.body)?;
    out.flush()
}

struct Answer {
    status: &'static str,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
    /// The Content-Length announced: the body's, or (a cut transfer) more.
    length: usize,
    /// Send the body's second half slowly (see [`HubRepo::trickle_once`]).
    trickle: bool,
}

fn answer(status: &'static str, headers: Vec<(&'static str, String)>, body: Vec<u8>) -> Answer {
    let length = body.len();
    Answer {
        status,
        headers,
        body,
        length,
        trickle: false,
    }
}

fn refusal(status: &'static str, code: &str, message: &str) -> Answer {
    answer(
        status,
        vec![
            ("X-Error-Code", code.to_owned()),
            ("X-Error-Message", message.to_owned()),
        ],
        Vec::new(),
    )
}

fn hub_answer(state: &State, request: &Request) -> Answer {
    let Some((id, rest)) = request.path.trim_start_matches('/').split_once("/resolve/") else {
        return refusal("404 Not Found", "EntryNotFound", "not a resolve URL");
    };
    if let Some(repo) = state
        .repos
        .iter()
        .find(|r| r.renamed_from.iter().any(|old| old == id))
    {
        return answer(
            "307 Temporary Redirect",
            vec![("Location", format!("/{}/resolve/{rest}", repo.id))],
            Vec::new(),
        );
    }
    let Some(repo) = state.repos.iter().find(|r| r.id == id) else {
        // huggingface.co answers 401 for a model it does not have (it might be private).
        return refusal("401 Unauthorized", "RepoNotFound", "Repository not found");
    };
    if let Some(token) = &repo.token {
        match &request.authorization {
            None => {
                return refusal(
                    "401 Unauthorized",
                    "GatedRepo",
                    "Access to model is restricted. You must have access to it and be authenticated.",
                );
            }
            Some(auth) if *auth != format!("Bearer {token}") => {
                return refusal(
                    "403 Forbidden",
                    "GatedRepo",
                    "Access to model is restricted and you are not in the authorized list.",
                );
            }
            Some(_) => {}
        }
    }
    let Some((revision, file)) = rest.split_once('/') else {
        return refusal("404 Not Found", "EntryNotFound", "no file");
    };
    if revision != "main" && revision != repo.commit {
        return refusal("404 Not Found", "RevisionNotFound", "Invalid rev id");
    }
    let Some((_, bytes)) = repo.files.iter().find(|(n, _)| n == file) else {
        return refusal("404 Not Found", "EntryNotFound", "Entry not found");
    };
    let commit = ("X-Repo-Commit", repo.commit.clone());
    if is_lfs(file) {
        let sha = format!("{:x}", Sha256::digest(bytes));
        answer(
            "302 Found",
            vec![
                commit,
                ("X-Linked-Etag", format!("\"{sha}\"")),
                ("X-Linked-Size", bytes.len().to_string()),
                ("ETag", format!("\"{}\"", git_id(bytes))),
                ("Location", format!("{}/lfs/{sha}?file={file}", state.cdn)),
            ],
            Vec::new(),
        )
    } else {
        answer(
            "200 OK",
            vec![commit, ("ETag", format!("\"{}\"", git_id(bytes)))],
            bytes.clone(),
        )
    }
}

/// A stand-in for the git blob id the hub sends as a small file's ETag: any
/// digest of the content does (the client only names the blob by it).
fn git_id(bytes: &[u8]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(format!("blob {}\0", bytes.len()));
    hasher.update(bytes);
    format!("{:x}", hasher.finalize())[..40].to_owned()
}

fn cdn_answer(state: &mut State, request: &Request) -> Answer {
    let sha = request
        .path
        .trim_start_matches("/lfs/")
        .split('?')
        .next()
        .unwrap_or("");
    let Some(blob) = state.blobs.get_mut(sha) else {
        return answer("404 Not Found", Vec::new(), Vec::new());
    };
    let mut bytes = blob.bytes.clone();
    if blob.corrupt
        && let Some(b) = bytes.get_mut(0)
    {
        *b ^= 0xff;
    }
    let start = request
        .range
        .as_deref()
        .and_then(|r| r.strip_prefix("bytes="))
        .and_then(|r| r.strip_suffix('-'))
        .and_then(|s| s.parse::<usize>().ok());
    let total = bytes.len();
    let (status, mut headers, body) = match start {
        Some(start) if start < total => (
            "206 Partial Content",
            vec![(
                "Content-Range",
                format!("bytes {start}-{}/{total}", total - 1),
            )],
            bytes.split_off(start),
        ),
        Some(_) => {
            return answer(
                "416 Range Not Satisfiable",
                vec![("Content-Range", format!("bytes */{total}"))],
                Vec::new(),
            );
        }
        None => ("200 OK", Vec::new(), bytes),
    };
    headers.push(("Accept-Ranges", "bytes".to_owned()));
    if blob.cut_pending && request.method == "GET" {
        blob.cut_pending = false;
        let length = body.len();
        let half = body[..length / 2].to_vec();
        return Answer {
            status,
            headers,
            body: half,
            length,
            trickle: false,
        };
    }
    if blob.trickle_pending && request.method == "GET" {
        blob.trickle_pending = false;
        return Answer {
            trickle: true,
            ..answer(status, headers, body)
        };
    }
    answer(status, headers, body)
}

/// An address where no hub answers: each connection is accepted and closed at
/// once. Returns the endpoint and the count of connections made so far.
pub fn closing_endpoint() -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let listener = TcpListener::bind("127.0.0.1:0").expect("binding a loopback port");
    let endpoint = format!(
        "http://{}",
        listener.local_addr().expect("a bound listener's address")
    );
    let connections = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&connections);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            counter.fetch_add(1, Ordering::SeqCst);
            drop(stream);
        }
    });
    (endpoint, connections)
}

/// An address that answers every request with bytes that are not HTTP (a
/// misconfigured `HF_ENDPOINT`: some other service on that port).
pub fn garbage_endpoint() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("binding a loopback port");
    let endpoint = format!(
        "http://{}",
        listener.local_addr().expect("a bound listener's address")
    );
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 1024];
            let _ = std::io::Read::read(&mut stream, &mut request);
            let _ = stream.write_all(b"SSH-2.0-OpenSSH_9.6\r\nProtocol mismatch.\r\n\r\n");
        }
    });
    endpoint
}
