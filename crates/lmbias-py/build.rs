//! An extension module leaves Python's symbols undefined for the interpreter to provide;
//! macOS's linker must be told so (`-undefined dynamic_lookup`), other platforms need nothing.

fn main() {
    pyo3_build_config::add_extension_module_link_args();
}
