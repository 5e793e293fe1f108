//! The insight views against hostile and extreme requests: every view, every built-in
//! scenario, cursors before, inside and far past the run, parameters at their bounds and
//! beyond, garbage. An answer must always come back whole (a panic kills the worker); bad
//! values must come back as notices naming them.
#![cfg(not(target_arch = "wasm32"))]

use outbox_lab::insight::{answer, VIEWS};
use outbox_lab::sim::scenario::IDS;

fn whole(a: &str) -> bool {
    a.split('\u{1}').count() == 3 && a.contains("class=insight-body")
}

#[test]
fn every_view_answers_every_scenario_at_any_cursor() {
    for (view, _, _) in VIEWS {
        for id in IDS {
            for step in ["0", "7", "18446744073709551615"] {
                let request = format!("insight={view}\n?scenario={id}&seed=3&step={step}&lang=en");
                let a = answer(&request);
                assert!(whole(&a), "{request:?}");
                assert!(!a.contains("data-testid=insight-notices") || step.len() > 5, "{request:?}: {a}");
            }
        }
    }
}

#[test]
fn parameters_at_their_bounds_answer_and_beyond_them_are_named_in_a_notice() {
    let bounds: &[(&str, &[&str])] = &[
        ("dashboard", &["backlog=0&p99=0&fail=0", "backlog=10000000&p99=2592000000&fail=100"]),
        ("twopc", &["p=0.9&n=2&crash=0&rounds=500", "p=0.9999&n=50&crash=1&rounds=2000&replay=1000000"]),
        ("lanes", &["from=lab", "from=builtin"]),
        (
            "scale",
            &[
                "part=runners&relays=8&lock=cas",
                "part=shards&shards=1&hot=0",
                "part=shards&shards=16&hot=1",
                "part=fullscan&index=1&rows=0",
                "part=archive&archive=0&aidx=1",
            ],
        ),
        ("reconcile", &[""]),
    ];
    for (view, cases) in bounds {
        for params in *cases {
            let a = answer(&format!("insight={view}&{params}\n?scenario=happy-path&step=40&lang=zh"));
            assert!(whole(&a) && !a.contains("data-testid=insight-notices"), "{view} {params}: {a}");
        }
    }
    let beyond: &[(&str, &str, &str)] = &[
        ("dashboard", "backlog=-1", "backlog=\"-1\""),
        ("dashboard", "fail=NaN", "fail=\"NaN\""),
        ("twopc", "p=1.5", "p=\"1.5\""),
        ("twopc", "n=51", "n=\"51\""),
        ("twopc", "rounds=7", "rounds=\"7\""),
        ("lanes", "from=nowhere", "from=\"nowhere\""),
        ("scale", "part=roof", "part=\"roof\""),
        ("scale", "part=runners&relays=99", "relays=\"99\""),
        ("scale", "part=fullscan&rows=99999999", "rows=\"99999999\""),
        ("scale", "part=archive&archive=yes", "archive=\"yes\""),
    ];
    for (view, params, named) in beyond {
        let a = answer(&format!("insight={view}&{params}\n?lang=en"));
        let named = named.replace('"', "&quot;");
        assert!(whole(&a) && a.contains("data-testid=insight-notices") && a.contains(&named), "{view} {params}: {a}");
    }
}

#[test]
fn garbage_requests_answer_with_notices() {
    for request in [
        "insight=<script>\n?scenario=<script>",
        "insight=twopc&p=%00&n=\u{0}\n?cfg=orders:99999999999&x=!!!",
        "\n\n\n",
        "insight=dashboard&backlog=1&backlog=2&backlog=3\n?step=-4",
        "insight=reconcile\n?scenario=reconcile-compensate&x=3:reconcile,3:reconcile,999999:reconcile",
    ] {
        let a = answer(request);
        assert!(whole(&a), "{request:?}");
        assert!(!a.contains("<script>"), "markup from the request was not escaped: {a}");
    }
}
