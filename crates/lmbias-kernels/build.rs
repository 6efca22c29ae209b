//! Without the `onednn` feature: nothing (no C, no oneDNN).
//!
//! With it: compiles src/bf16/onednn.c, the shim over oneDNN's C API, and links oneDNN: found with
//! pkg-config (`dnnl`) where a `.pc` file is installed, else `-ldnnl` from the system's
//! library path (Debian's libdnnl-dev ships no `.pc` file). A warning says so when
//! `oneapi/dnnl/dnnl.h` is in none of the include directories searched.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    #[cfg(feature = "onednn")]
    onednn::build();
}

#[cfg(feature = "onednn")]
mod onednn {
    use std::path::{Path, PathBuf};

    /// Where compilers look for headers when told nothing (Debian's libdnnl-dev: /usr/include).
    const SYSTEM_INCLUDE: [&str; 2] = ["/usr/local/include", "/usr/include"];

    pub(super) fn build() {
        println!("cargo::rerun-if-changed=src/bf16/onednn.c");
        // Include directories and link flags from pkg-config, printed after the shim's own
        // archive below so that the linker meets the shim's references to oneDNN first.
        let found = pkg_config::Config::new()
            .cargo_metadata(false)
            .env_metadata(true)
            .probe("dnnl");
        let include: Vec<PathBuf> = match &found {
            Ok(library) => library.include_paths.clone(),
            Err(_) => Vec::new(),
        };
        let header = include
            .iter()
            .map(PathBuf::as_path)
            .chain(SYSTEM_INCLUDE.iter().map(Path::new))
            .any(|dir| dir.join("oneapi/dnnl/dnnl.h").is_file());
        if !header {
            println!(
                "cargo::warning=lmbias-kernels' `onednn` feature needs oneDNN 2.x (oneapi/dnnl/dnnl.h \
                 and libdnnl): not found with pkg-config (dnnl) nor in /usr/include or \
                 /usr/local/include. On Debian or Ubuntu: apt install libdnnl-dev; else set \
                 PKG_CONFIG_PATH to a dnnl.pc, or CFLAGS/LIBRARY_PATH to oneDNN's directories."
            );
        }
        cc::Build::new()
            .file("src/bf16/onednn.c")
            .includes(&include)
            .std("c11")
            .warnings(true)
            .extra_warnings(true)
            .compile("lmbias_onednn");
        match found {
            Ok(library) => {
                for dir in &library.link_paths {
                    println!("cargo::rustc-link-search=native={}", dir.display());
                }
                for lib in &library.libs {
                    println!("cargo::rustc-link-lib={lib}");
                }
            }
            Err(_) => println!("cargo::rustc-link-lib=dnnl"),
        }
    }
}
