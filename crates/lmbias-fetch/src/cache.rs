//! The one rule for cache folders. Every lmbias crate and the Python tools agree on it, so a
//! model fetched by one is found by the others.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::error::FetchError;

/// lmbias's own cache: `$XDG_CACHE_HOME/lmbias`, else `~/.cache/lmbias`. MiniLM, GloVe, the
/// Bible corpora and the period models are kept there.
///
/// An empty or relative `$XDG_CACHE_HOME` counts as unset, as the XDG base directory
/// specification says. Without it, the home folder comes from `$HOME`, else from the user
/// database. With neither, the error says so.
pub fn cache_dir() -> Result<PathBuf, FetchError> {
    cache_home(var)
        .map(|home| home.join("lmbias"))
        .ok_or(FetchError::NoCacheDir)
}

/// The Hugging Face folder, as huggingface_hub computes it: `$HF_HOME`, else
/// `$XDG_CACHE_HOME/huggingface`, else `~/.cache/huggingface`. The token file
/// `huggingface-cli login` writes is kept there.
///
/// With no home folder at all, this is `.cache/huggingface` under the working folder, where
/// huggingface_hub would leave an unexpanded `~`. The Hugging Face cache is then only
/// missing, never an error.
pub fn hf_home() -> PathBuf {
    hf_home_with(var)
}

/// The Hugging Face hub cache, as huggingface_hub computes it: `$HF_HUB_CACHE`, else
/// [`hf_home`]`/hub`. Checkpoints are `models--ORG--NAME/snapshots/REV/` in it.
pub fn hf_cache_dir() -> PathBuf {
    hf_cache_dir_with(var)
}

/// A set, non-empty environment variable.
fn var(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// `$XDG_CACHE_HOME` if absolute, else `HOME/.cache` (`var` reads the environment).
fn cache_home(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let absolute = |path: PathBuf| path.is_absolute().then_some(path);
    var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .and_then(absolute)
        .or_else(|| {
            // `$HOME` when set (then it must be absolute), else the user database.
            let home = match var("HOME") {
                Some(home) => PathBuf::from(home),
                None => std::env::home_dir()?,
            };
            absolute(home).map(|h| h.join(".cache"))
        })
}

fn hf_home_with(var: impl Fn(&str) -> Option<OsString> + Copy) -> PathBuf {
    match var("HF_HOME") {
        Some(home) => PathBuf::from(home),
        None => cache_home(var)
            .unwrap_or_else(|| PathBuf::from(".cache"))
            .join("huggingface"),
    }
}

fn hf_cache_dir_with(var: impl Fn(&str) -> Option<OsString> + Copy) -> PathBuf {
    match var("HF_HUB_CACHE") {
        Some(dir) => PathBuf::from(dir),
        None => hf_home_with(var).join("hub"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An environment holding `vars` only, empty values kept out as [`var`] keeps them.
    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + Copy + 'a {
        move |name| {
            vars.iter()
                .find(|(n, v)| *n == name && !v.is_empty())
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn xdg_cache_home_wins_when_absolute() {
        let both = env(&[("XDG_CACHE_HOME", "/xdg"), ("HOME", "/home/u")]);
        assert_eq!(cache_home(both), Some(PathBuf::from("/xdg")));
        for ignored in ["", "relative/cache"] {
            let vars = [("XDG_CACHE_HOME", ignored), ("HOME", "/home/u")];
            assert_eq!(
                cache_home(env(&vars)),
                Some(PathBuf::from("/home/u/.cache")),
                "{ignored:?}"
            );
        }
        // A relative HOME is no home either.
        assert_eq!(cache_home(env(&[("HOME", "u")])), None);
    }

    #[test]
    fn the_hugging_face_folders_follow_huggingface_hub() {
        let vars = [("XDG_CACHE_HOME", "/xdg"), ("HOME", "/home/u")];
        assert_eq!(hf_home_with(env(&vars)), PathBuf::from("/xdg/huggingface"));
        assert_eq!(
            hf_cache_dir_with(env(&vars)),
            PathBuf::from("/xdg/huggingface/hub")
        );
        let vars = [("HF_HOME", "/hf"), ("HOME", "/home/u")];
        assert_eq!(hf_cache_dir_with(env(&vars)), PathBuf::from("/hf/hub"));
        let vars = [("HF_HOME", "/hf"), ("HF_HUB_CACHE", "/cache")];
        assert_eq!(hf_cache_dir_with(env(&vars)), PathBuf::from("/cache"));
        assert_eq!(hf_home_with(env(&vars)), PathBuf::from("/hf"));
        let vars = [("HOME", "/home/u")];
        assert_eq!(
            hf_cache_dir_with(env(&vars)),
            PathBuf::from("/home/u/.cache/huggingface/hub")
        );
    }
}
