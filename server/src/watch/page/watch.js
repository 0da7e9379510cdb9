// Cohort's watch page: one WebTransport session to the server, which writes the match's view
// frames on one unidirectional stream (docs/PROTOCOL.md, "Watching in a browser"). No sim
// runs here: every frame is the server's own view of a turn it has released to spectators.
"use strict";

const OWNER_COLOURS = ["#2f5bd8", "#d82f2f", "#2fa84a", "#e0d020", "#20c0c0", "#a040c0", "#909090", "#e08020"];
const INTRO = 0, RESOURCES = 1, TURN = 2, NOTICE = 3;
const MAX_CANVAS_SIDE = 960;

const config = JSON.parse(document.getElementById("config").textContent);
const canvas = document.getElementById("map");
const ctx = canvas.getContext("2d");
const status = (text) => { document.getElementById("status").textContent = text; };
const report = { turn: null, delay_secs: null, turn_ms: null, frames: 0, turns_drawn: 0, bytes: 0,
                 first_turn_ms: null, last_turn_ms: null, bytes_at_first_turn: null,
                 counts: [], units: [], probe: null, notice: null, error: null };
const publish = () => { document.getElementById("report").textContent = JSON.stringify(report); };

let map = null;          // the intro: size, palettes, players
let terrain = null;      // an offscreen canvas, a pixel a tile
let resources = null;    // an offscreen canvas of the resources, a pixel a tile

function hexBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
  return out;
}

// A little-endian reader over one frame's payload.
class Reader {
  constructor(bytes) { this.v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength); this.b = bytes; this.at = 0; }
  u8() { return this.v.getUint8(this.at++); }
  u16() { const x = this.v.getUint16(this.at, true); this.at += 2; return x; }
  u32() { const x = this.v.getUint32(this.at, true); this.at += 4; return x; }
  bytes(n) { const x = this.b.subarray(this.at, this.at + n); this.at += n; return x; }
  text() { return new TextDecoder().decode(this.bytes(this.u8())); }
  rgb() { const [r, g, b] = this.bytes(3); return [r, g, b]; }
}

function onIntro(r) {
  const version = r.u8();
  const id = r.text();
  const delay = r.u32(), turnMs = r.u32();
  const width = r.u16(), height = r.u16();
  const terrains = []; for (let n = r.u8(), i = 0; i < n; i++) terrains.push(r.rgb());
  const tiles = r.bytes(width * height);
  const resourceKinds = []; for (let n = r.u8(), i = 0; i < n; i++) resourceKinds.push(r.rgb());
  const radii = []; for (let n = r.u8(), i = 0; i < n; i++) radii.push(r.u8() / 16);
  const players = []; for (let n = r.u8(), i = 0; i < n; i++) players.push({ slot: r.u8(), name: r.text() });
  const scale = Math.max(2, Math.floor(MAX_CANVAS_SIDE / Math.max(width, height)));
  map = { version, id, delay, turnMs, width, height, resourceKinds, radii, players, scale };
  canvas.width = width * scale; canvas.height = height * scale;
  terrain = document.createElement("canvas"); terrain.width = width; terrain.height = height;
  const img = terrain.getContext("2d").createImageData(width, height);
  for (let i = 0; i < tiles.length; i++) {
    const [cr, cg, cb] = terrains[tiles[i]] || [128, 128, 128];
    img.data.set([cr, cg, cb, 255], 4 * i);
  }
  terrain.getContext("2d").putImageData(img, 0, 0);
  document.getElementById("delay").textContent = delay + " s";
  report.delay_secs = delay; report.turn_ms = turnMs;
  status("waiting for the first turn spectators may see");
  drawBackground();
}

function onResources(r) {
  r.u32();
  const n = r.u32();
  resources = document.createElement("canvas"); resources.width = map.width; resources.height = map.height;
  const img = resources.getContext("2d").createImageData(map.width, map.height);
  for (let i = 0; i < n; i++) {
    const x = r.u16(), y = r.u16(), kind = r.u8();
    if (x >= map.width || y >= map.height) continue;
    const [cr, cg, cb] = map.resourceKinds[kind] || [255, 255, 255];
    img.data.set([cr, cg, cb, 255], 4 * (y * map.width + x));
  }
  resources.getContext("2d").putImageData(img, 0, 0);
}

function drawBackground() {
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(terrain, 0, 0, canvas.width, canvas.height);
  if (resources) ctx.drawImage(resources, 0, 0, canvas.width, canvas.height);
}

function onTurn(r) {
  const turn = r.u32();
  const counts = []; for (let n = r.u8(), i = 0; i < n; i++) counts.push(r.u16());
  const s = map.scale;
  drawBackground();
  const nUnits = r.u32();
  const units = new Array(nUnits);
  for (let i = 0; i < nUnits; i++) units[i] = [r.u8(), r.u8(), r.u16(), r.u16()];
  const nBuildings = r.u16();
  for (let i = 0; i < nBuildings; i++) {
    const owner = r.u8(), complete = r.u8(), x = r.u16(), y = r.u16(), w = r.u8(), h = r.u8();
    ctx.globalAlpha = complete ? 1 : 0.45;
    ctx.fillStyle = OWNER_COLOURS[owner % 8];
    ctx.fillRect(x * s, y * s, w * s, h * s);
    ctx.globalAlpha = 1;
    ctx.strokeStyle = "#000"; ctx.lineWidth = 1;
    ctx.strokeRect(x * s + 0.5, y * s + 0.5, w * s - 1, h * s - 1);
  }
  for (const [owner, kind, x, y] of units) {
    const radius = Math.max(3, (map.radii[kind] || 0.3) * s);
    ctx.beginPath();
    ctx.arc(x / 16 * s, y / 16 * s, radius, 0, 2 * Math.PI);
    ctx.fillStyle = OWNER_COLOURS[owner % 8];
    ctx.fill();
    ctx.lineWidth = 1; ctx.strokeStyle = "rgba(0,0,0,0.6)"; ctx.stroke();
  }
  // What the last unit drawn (nothing covers it) shows at its centre, read back from the canvas.
  if (units.length > 0) {
    const [owner, , x, y] = units[units.length - 1];
    const px = Math.floor(x / 16 * s), py = Math.floor(y / 16 * s);
    const d = ctx.getImageData(px, py, 1, 1).data;
    report.probe = { owner, px, py, rgb: "#" + [d[0], d[1], d[2]].map((c) => c.toString(16).padStart(2, "0")).join(""),
                     expected: OWNER_COLOURS[owner % 8] };
  }
  document.getElementById("turn").textContent = turn;
  document.getElementById("players").innerHTML = map.players.map((p, i) =>
    `<span class="player"><span class="swatch" style="background:${OWNER_COLOURS[p.slot % 8]}"></span>` +
    `${escapeHtml(p.name)}: ${counts[i] ?? 0} units</span>`).join("");
  status("live, " + map.delay + " s behind the match");
  report.turn = turn; report.counts = counts; report.turns_drawn++;
  report.last_turn_ms = Math.round(performance.now());
  if (report.first_turn_ms === null) { report.first_turn_ms = report.last_turn_ms; report.bytes_at_first_turn = report.bytes; }
  report.units = units.map(([owner, , x, y]) => [owner, x, y]);
}

function escapeHtml(t) {
  return t.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

function onFrame(payload) {
  const r = new Reader(payload);
  const kind = r.u8();
  report.frames++;
  if (kind === INTRO) onIntro(r);
  else if (kind === RESOURCES && map) onResources(r);
  else if (kind === TURN && map) onTurn(r);
  else if (kind === NOTICE) { report.notice = r.text(); status(report.notice); }
  publish();
}

async function watch() {
  if (!("WebTransport" in window)) throw new Error("this browser has no WebTransport (a secure context is needed: https, or localhost)");
  const options = config.fingerprint
    ? { serverCertificateHashes: [{ algorithm: "sha-256", value: hexBytes(config.fingerprint) }] }
    : {};
  const wt = new WebTransport(config.url, options);
  await wt.ready;
  status("connected");
  const streams = wt.incomingUnidirectionalStreams.getReader();
  const { value: stream, done } = await streams.read();
  if (done) throw new Error("the server opened no stream");
  const reader = stream.getReader();
  let buf = new Uint8Array(0);
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    report.bytes += value.length;
    const joined = new Uint8Array(buf.length + value.length);
    joined.set(buf); joined.set(value, buf.length); buf = joined;
    while (buf.length >= 4) {
      const len = new DataView(buf.buffer, buf.byteOffset).getUint32(0, false);
      if (buf.length < 4 + len) break;
      onFrame(buf.subarray(4, 4 + len));
      buf = buf.slice(4 + len);
    }
  }
  status(report.notice ? report.notice : "the stream ended");
  report.ended = true; publish();
}

watch().catch((e) => { report.error = String(e); publish(); status("error: " + e); });
