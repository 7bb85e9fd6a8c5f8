//! Rebuild when the embedded web page changes: rust-embed reads `web/`
//! at compile time in release builds, and cargo does not know that.
fn main() {
    println!("cargo:rerun-if-changed=../../web");
}
