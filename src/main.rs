//! The `agent-hooks` command-line tool.

fn main() {}
