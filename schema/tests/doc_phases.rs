//! The phase table of `docs/phases.md` states what `when` addresses on each phase:
//! the capability table's subjects ([`hooks_schema::Capabilities::subjects`]),
//! in the same order, so the two cannot drift apart.

use hooks_schema::Phase;

#[test]
fn the_phase_table_states_each_phases_subjects() {
    let chapter =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/phases.md"))
            .expect("docs/phases.md is readable");
    let start = chapter
        .find("| phase | rig `StepEvent` |")
        .expect("the phase table");
    let table = &chapter[start..];
    let table = &table[..table.find("\n\n").unwrap_or(table.len())];
    let ticked = |cell: &str| -> Vec<String> {
        cell.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    };
    let mut seen = Vec::new();
    for row in table.lines().skip(2) {
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").collect();
        let phases = ticked(cells[0]);
        let stated: Vec<String> = ticked(cells[cells.len() - 1])
            .into_iter()
            .filter(|w| !phases.contains(w) && w != "subject: args")
            .collect();
        let mut wanted = Vec::new();
        for name in &phases {
            let phase = Phase::from_name(name).expect("a phase name");
            seen.push(phase);
            for kind in phase.capabilities().subjects() {
                if !wanted.contains(&kind.name().to_owned()) {
                    wanted.push(kind.name().to_owned());
                }
            }
        }
        assert_eq!(stated, wanted, "{row}");
    }
    seen.sort_by_key(|p| p.index());
    assert_eq!(seen, Phase::ALL, "every phase has a row");
}

/// The picture of one agent run (`docs/img/agent-turn.svg`) names every
/// phase, so a new phase cannot be left out of it.
#[test]
fn the_agent_turn_picture_names_every_phase() {
    let svg = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/img/agent-turn.svg"
    ))
    .expect("docs/img/agent-turn.svg is readable");
    let missing: Vec<&str> = Phase::ALL
        .iter()
        .map(|p| p.as_str())
        .filter(|name| !svg.contains(name))
        .collect();
    assert!(missing.is_empty(), "not in the picture: {missing:?}");
}
