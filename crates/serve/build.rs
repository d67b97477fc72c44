//! Embeds an rpath to libtorch so binaries and tests run without LD_LIBRARY_PATH.
fn main() {
    // torch-sys (links = "tch") exports the directory it linked against.
    if let Ok(dir) = std::env::var("DEP_TCH_LIBTORCH_LIB") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
}
