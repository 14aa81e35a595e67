//! Facade build script.

fn main() {}
