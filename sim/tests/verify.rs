//! The movement spec's self-checks, one test each: the same functions `cohort verify` runs.

use cohort_sim::verify::run_one;

fn holds(name: &str) {
    let o = run_one(name).expect("a check of that name");
    assert!(o.passed, "{name} failed: {:?}", o.figures);
}

#[test]
fn planner() {
    holds("planner");
}

#[test]
fn march() {
    holds("march");
}

#[test]
fn sharedwalk() {
    holds("sharedwalk");
}

#[test]
fn crowdgoal() {
    holds("crowdgoal");
}

#[test]
fn replanspread() {
    holds("replanspread");
}

#[test]
fn arrive50() {
    holds("arrive50");
}

#[test]
fn goldmine() {
    holds("goldmine");
}

#[test]
fn shore() {
    holds("shore");
}

#[test]
fn gap() {
    holds("gap");
}

#[test]
fn formation() {
    holds("formation");
}

#[test]
fn chasetable() {
    holds("chasetable");
}
