//! Real-agent scenarios of Factory Droid: not run. Droid 0.225.2 installs from the npm
//! registry (`@factory/cli`, whose `@factory/cli-linux-x64` binary package must be named
//! on its own: the launcher's pinned 0.225.1 was never published) and runs offline in
//! `droid exec` against a scripted OpenAI Chat Completions endpoint, but its interactive
//! mode — the one with an approval dialog, which every scenario needs — shows "Please
//! login with your Factory account to continue." before it sends any request, and no
//! documented setting skips that sign-in (docs/adapters.md, "Factory Droid"). The
//! adapter rests on the payloads `droid exec` wrote and on the documented interactive
//! ones (`tests/fixtures/droid/0.225.2/`, mapped by `tests/integration/adapters_hooks.rs`).

/// Scenarios 1–4 for Droid (docs/real-agents.md): a prompt ends done/unread with the
/// model's text; a shell tool that needs approval blocks with the command and `attend
/// answer allow` runs it; review then quit leaves done/none with one notification; `kill
/// -9` at the gate drops the decision and the pane shows the crash.
#[test]
#[ignore = "needs a signed-in Factory account: droid's interactive mode asks for a sign-in before any request, and the machines this runs on have no network to Factory"]
fn droid_scenarios_1_to_4_need_a_factory_sign_in() {
    panic!(
        "Factory Droid's interactive mode needs a Factory account (\"Please login with your \
         Factory account to continue.\"); run the scenarios of tests/real_agents/real_qwen.rs with \
         Cli::Droid once a signed-in home and network to Factory are available"
    );
}
