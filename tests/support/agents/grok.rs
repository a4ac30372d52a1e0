//! Grok CLI's offline launch for the real-agent tests (docs/real-agents.md,
//! docs/adapters.md "Grok CLI"): its OpenAI-compatible client pointed at the scripted
//! model by environment variables; nothing to write in its home.

use super::FAKE_KEY;

/// The model Grok is given, shown in its status row (`≋ grok-scripted`).
pub const MODEL: &str = "grok-scripted";

/// The launch's variables: the scripted model's base URL, a key and the model.
pub fn env(server_url: &str) -> Vec<(String, String)> {
    vec![
        ("GROK_BASE_URL".into(), format!("{server_url}/v1")),
        ("GROK_API_KEY".into(), FAKE_KEY.into()),
        ("GROK_MODEL".into(), MODEL.into()),
    ]
}
