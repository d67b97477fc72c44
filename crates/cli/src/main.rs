//! The `dama` binary.
fn main() {
    println!("dama {}", env!("CARGO_PKG_VERSION"));
}
