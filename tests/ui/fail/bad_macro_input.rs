// unknown key in the macro input
agent_hooks::hooks!(colour = Blue, "unknown_phase.yaml");

fn main() {}
