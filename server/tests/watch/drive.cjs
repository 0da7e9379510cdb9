// Drives Debian's headless Chromium (through playwright-core) to Cohort's watch page for
// server/tests/watch_browser.rs, and prints what it saw as one JSON object on stdout.
//
//   node drive.cjs <playwright-core dir> <chromium> <page url> <admin base url> <admin token>
//                  <match id> <screenshot path> <timeout ms>
//
// Every 200 ms it reads the page's own report of what it drew (#report) and then the match's
// live turn from the admin API (GET /v1/matches/<id>), so each sample's live turn is at least
// the one in force when the page drew its turn. It stops when the page says the stream ended,
// or at the timeout (bounded whatever happens), takes the screenshot and prints the samples.
"use strict";

const [dir, chromiumPath, pageUrl, adminBase, adminToken, matchId, screenshot, timeoutMs] =
  process.argv.slice(2);
const { chromium } = require(require("path").join(dir, "node_modules", "playwright-core"));

async function liveTurn() {
  const r = await fetch(`${adminBase}/v1/matches/${matchId}`, {
    headers: { authorization: `Bearer ${adminToken}` },
  });
  const view = await r.json();
  return { turn: view.turn, state: view.state };
}

async function main() {
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  const out = { samples: [], console: [], last: null, screenshot };
  try {
    const page = await browser.newPage({ viewport: { width: 1000, height: 1060 } });
    page.on("console", (m) => out.console.push(m.text()));
    page.on("pageerror", (e) => out.console.push("page error: " + e.message));
    await page.goto(pageUrl);
    const deadline = Date.now() + Number(timeoutMs);
    let shotTaken = false;
    while (Date.now() < deadline) {
      const text = await page.textContent("#report");
      const report = text ? JSON.parse(text) : null;
      const live = await liveTurn();
      if (report) {
        out.last = report;
        if (report.turn !== null) {
          out.samples.push({ shown: report.turn, live_open_turn: live.turn, live_state: live.state,
                             units: report.units, probe: report.probe, counts: report.counts });
          // The screenshot mid-match, once a good many turns are drawn.
          if (!shotTaken && report.turns_drawn >= 40) {
            await page.screenshot({ path: screenshot, type: "png" });
            shotTaken = true;
          }
        }
        if (report.ended || report.error) break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    if (!shotTaken) await page.screenshot({ path: screenshot, type: "png" });
  } finally {
    await browser.close();
  }
  // Only the samples' heads, and the units of a few, to keep the output small.
  out.samples = out.samples.map((s, i) => (i % 10 === 0 ? s : { ...s, units: undefined }));
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + "\n");
  process.exit(1);
});
