//! The ladder's read side: the taxonomy projection and diagnoses of a pane, the parts it
//! adds to a pane's wire shape, and `Explain`'s ladder part.
use super::{LadderHost, PaneSources};
use crate::client::wire::{to_value, Dict, DictBuilder};
use crate::client::wire::{
    WireDiagnoses, WireHold, WireNeedsInput, WirePane, WireTask, WireTaxonomy,
};
use crate::engine::ladder::{inventory, Evidence, HealthChange, Trust};
use crate::engine::machine::PaneMachine;
use crate::engine::taxonomy::{Diagnoses, Taxonomy};
use crate::model::{Rung, Timestamp};
use crate::service::processes::procfs;
use std::collections::HashMap;

impl LadderHost {
    /// The taxonomy projection and diagnoses of `m`'s pane now, from its machine's
    /// verdict (`docs/taxonomy.md#axes`, `docs/taxonomy.md#diagnoses`); this module only
    /// says whether an external pane's process is known.
    pub fn taxonomy(&self, m: &PaneMachine, now: Timestamp) -> (Taxonomy, Diagnoses) {
        let st = self.panes.get(&m.id);
        let process_known =
            st.is_some_and(|s| s.self_report.is_some() || s.agent_proc.is_some_and(procfs::alive));
        m.taxonomy(process_known, now)
    }

    /// The taxonomy and diagnoses of `p`'s pane now in their wire shapes
    /// (`docs/dbus-api.md#pane-getpane-listpanes`).
    pub fn wire_taxonomy(&self, p: &PaneMachine, now: Timestamp) -> (WireTaxonomy, WireDiagnoses) {
        let (t, d) = self.taxonomy(p, now);
        let taxonomy = WireTaxonomy {
            session: t.session.as_str().to_string(),
            activity: t.activity.as_str().to_string(),
            needs_input: WireNeedsInput {
                count: t.needs_input.count,
                reason: t.needs_input.reason.clone(),
            },
            display: t.display.clone(),
            resumability: t.resumability.as_str().to_string(),
        };
        let diagnoses = WireDiagnoses {
            parked: d.parked,
            held: d.held,
            done_unseen: d.done_unseen,
        };
        (taxonomy, diagnoses)
    }

    /// Sets the parts of `w` (the wire shape of `p`'s pane) the ladder computes at read
    /// time: `taxonomy`, `diagnoses`, `tasks` and `hold` (with `armed` as of `now`).
    pub fn read_time_parts(&self, p: &PaneMachine, now: Timestamp, w: &mut WirePane) {
        let (taxonomy, diagnoses) = self.wire_taxonomy(p, now);
        w.taxonomy = Some(taxonomy);
        w.diagnoses = Some(diagnoses);
        w.tasks = Some(
            p.tasks
                .iter()
                .map(|task| WireTask {
                    id: task.id,
                    pane: task.pane.to_string(),
                    text: task.text.clone(),
                    state: task.state.as_str().to_string(),
                    message: task.message.clone(),
                    created_at: task.created_at.0,
                    updated_at: task.updated_at.0,
                })
                .collect(),
        );
        w.hold = p.hold.as_ref().map(|h| WireHold {
            owner: h.owner.clone(),
            wake_at: h.wake.0,
            reason: h.reason.clone(),
            armed: h.is_armed(now),
        });
    }

    /// `Explain`'s ladder part (docs/taxonomy.md "explain"): `agent`, `activity`,
    /// `display`, `needs_input_count`, `needs_input_reason?`, `activity_evidence?` and
    /// `needs_input_evidence?` (the evidence that decided each: rung, source, note,
    /// observed_at, age_ms, trust, claim), `rungs` (every rung: coverage, trust, latest
    /// evidence), `chrome` (manifest, matched rule, nearest rule with its satisfied and
    /// total gates, the rule whose closed screen shows, evaluated_at), `self_report?` (pid, path), `health` (rung-health
    /// history: rung, from, to, reason, at), `taxonomy`, `diagnoses`.
    pub fn explain(&self, p: &PaneMachine, now: Timestamp) -> Dict {
        let fresh;
        let st = match self.panes.get(&p.id) {
            Some(st) => st,
            None => {
                fresh = PaneSources::new(p.agent);
                &fresh
            }
        };
        let ladder = p.ladder();
        let verdict = p.verdict(now);
        let (t, _) = self.taxonomy(p, now);
        let mut b = DictBuilder::new()
            .str("agent", p.agent.as_str())
            .str("activity", verdict.activity.as_str())
            .str("display", &t.display)
            .put("needs_input_count", t.needs_input.count)
            .opt_str("needs_input_reason", t.needs_input.reason.as_deref());
        if let Some(ev) = &verdict.activity_by {
            b = b.dict(
                "activity_evidence",
                evidence_dict(ev, ladder.trust(ev.rung), now),
            );
        }
        if let Some(ev) = &verdict.needs_input_by {
            b = b.dict(
                "needs_input_evidence",
                evidence_dict(ev, ladder.trust(ev.rung), now),
            );
        }
        let coverage: HashMap<Rung, _> = inventory(p.agent)
            .into_iter()
            .map(|(r, c, _)| (r, c))
            .collect();
        let rungs: Vec<Dict> = ladder
            .rungs
            .iter()
            .map(|(rung, rs)| {
                let mut d = DictBuilder::new()
                    .str("rung", rung.as_str())
                    .str(
                        "coverage",
                        coverage.get(rung).unwrap_or(&rs.coverage).as_str(),
                    )
                    .str("trust", rs.trust.as_str())
                    .build();
                if let Some(ev) = &rs.last {
                    d.extend(evidence_dict(ev, rs.trust, now));
                }
                d
            })
            .collect();
        let r = &st.chrome.result;
        let mut chrome = DictBuilder::new()
            .opt_str("manifest", self.manifests.origin(p.agent))
            .time("evaluated_at", st.chrome.evaluated_at);
        if let Some(m) = &r.matched {
            chrome = chrome
                .str("matched_rule", &m.rule)
                .str("matched_reason", &m.reason);
        }
        if let Some(c) = &r.closed {
            chrome = chrome.str("closed_rule", c);
        }
        if let Some(n) = &r.nearest {
            chrome = chrome
                .str("nearest_rule", &n.rule)
                .put("nearest_satisfied", n.satisfied as u32)
                .put("nearest_total", n.total as u32);
        }
        let health: Vec<Dict> = ladder.health.iter().map(health_dict).collect();
        b = b
            .put("rungs", rungs)
            .dict("chrome", chrome.build())
            .put("health", health);
        if let Some(binding) = &st.self_report {
            b = b.dict(
                "self_report",
                DictBuilder::new()
                    .put("pid", binding.pid)
                    .str("path", &binding.path.display().to_string())
                    .build(),
            );
        }
        let (taxonomy, diagnoses) = self.wire_taxonomy(p, now);
        b.put("taxonomy", to_value(&taxonomy))
            .put("diagnoses", to_value(&diagnoses))
            .build()
    }
}

fn evidence_dict(ev: &Evidence, trust: Trust, now: Timestamp) -> Dict {
    let mut b = DictBuilder::new()
        .str("rung", ev.rung.as_str())
        .str("source", &ev.source_id)
        .put("seq", ev.seq)
        .str("note", &ev.note)
        .time("observed_at", Some(ev.observed_at))
        .put("age_ms", now.millis_since(ev.observed_at))
        .str("trust", trust.as_str());
    if let Some(a) = ev.claim.activity {
        b = b.str("claims_activity", a.as_str());
    }
    if let Some(n) = &ev.claim.needs_input {
        b = b
            .put("claims_needs_input", n.count)
            .opt_str("claims_reason", n.reason.as_deref());
    }
    b.build()
}

fn health_dict(h: &HealthChange) -> Dict {
    DictBuilder::new()
        .str("rung", h.rung.as_str())
        .str("from", h.from.as_str())
        .str("to", h.to.as_str())
        .str("reason", &h.reason)
        .time("at", Some(h.at))
        .build()
}
