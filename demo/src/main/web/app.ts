// The demo web player: a fake 10-minute video whose progress goes through the JavaScript SDK to
// the gateway that served this page. Query parameters: uid (default: one kept in localStorage),
// device (default: a new one per tab), item (1..3). The token is fetched from ./token (only
// standalone answers it) or pasted into the page.
import { Business, type Cursor, type HistoryRecord, PlaylineClient, type PlaylineError } from "../../../../client-js/src/index.js";

const DURATION_MS = 600_000;
const TICK_MS = 250;
const ACKS_SHOWN = 8;
const HISTORY_PAGE = 5;
const TOKEN_KEY = "playline.demo.token";

const params = new URLSearchParams(location.search);
const el = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

const uid = params.get("uid") ?? storedUid();
const deviceId = params.get("device") || `web-${Math.random().toString(36).slice(2, 6)}`;
let oid = Number(params.get("item") ?? "1");
if (!(oid >= 1 && oid <= 3)) {
  oid = 1;
}
let position = 0;
let playing = false;
let lastTick = 0;
let acks = 0;
let next: Cursor | undefined;
let historyTimer: ReturnType<typeof setTimeout> | undefined;

/** A flush fails only when the client closes (e.g. the page is being left): nothing to show. */
function ignore(): void {}

function storedUid(): string {
  const key = "playline.demo.uid";
  let value = localStorage.getItem(key);
  if (value === null) {
    value = String(100_000 + Math.floor(Math.random() * 900_000));
    localStorage.setItem(key, value);
  }
  return value;
}

function clock(ms: number | bigint): string {
  const s = Math.floor(Number(ms) / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

async function token(): Promise<string> {
  // Never from the URL: a crafted link would log the visitor in as someone else (and keep the token in history).
  const given = sessionStorage.getItem(TOKEN_KEY) ?? "";
  if (given !== "") {
    return given;
  }
  const r = await fetch(`token?uid=${encodeURIComponent(uid)}`);
  if (r.ok) {
    return ((await r.json()) as { token: string }).token;
  }
  el("login").hidden = false;
  throw new Error("no token: paste one");
}

const client = new PlaylineClient({
  url: `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/v1/stream`,
  token,
  deviceId,
  platform: "web",
});

function render(): void {
  el<HTMLInputElement>("seek").value = String(position);
  el("position").textContent = clock(position);
  el("clock").textContent = `${clock(position)} / ${clock(DURATION_MS)}`;
  el("title").textContent = `Demo video ${oid}`;
  el("play").textContent = playing ? "Pause" : "Play";
  const hue = 220 + Math.round((position / DURATION_MS) * 120);
  el("screen").style.background = `linear-gradient(135deg, hsl(${hue} 60% 35%), hsl(${hue + 60} 60% 30%))`;
}

/** Hands the SDK the current position; it sends the latest per item at the gateway's interval. */
function report(): void {
  client.report(Business.VIDEO, oid, position >= DURATION_MS ? -1 : position, DURATION_MS);
}

function tick(): void {
  if (!playing) {
    return;
  }
  const now = performance.now();
  position = Math.min(DURATION_MS, position + (now - lastTick));
  lastTick = now;
  if (position >= DURATION_MS) {
    playing = false;
    report();
    void client.flush().catch(ignore);
  } else {
    report();
  }
  render();
}

function togglePlay(): void {
  playing = !playing;
  lastTick = performance.now();
  report();
  if (!playing) {
    void client.flush().catch(ignore); // a pause is sent at once, not at the next interval
  }
  render();
}

function seekTo(ms: number): void {
  position = Math.max(0, Math.min(DURATION_MS, ms));
  lastTick = performance.now();
  report();
  void client.flush().catch(ignore);
  render();
}

async function restore(): Promise<void> {
  const [record] = await client.progress([{ business: Business.VIDEO, oid }]);
  const note = el("resumed");
  if (record === undefined) {
    position = 0;
    note.hidden = true;
  } else {
    position = record.progressMs < 0n ? DURATION_MS : Number(record.progressMs);
    note.textContent = `Resumed at ${clock(position)} (last played on ${record.deviceId || "an unknown device"}).`;
    note.hidden = false;
  }
  render();
}

function historyItem(r: HistoryRecord): HTMLLIElement {
  const li = document.createElement("li");
  li.dataset.oid = String(r.oid);
  li.dataset.progress = String(r.progressMs);
  const text = document.createElement("span");
  const at = r.progressMs < 0n ? "finished" : `${clock(r.progressMs)} / ${clock(r.durationMs)}`;
  text.textContent = `${Business[r.business].toLowerCase()} ${r.oid} · ${at} · ${r.deviceId} · `
    + new Date(Number(r.viewTimeMs)).toLocaleTimeString();
  const remove = document.createElement("button");
  remove.type = "button";
  remove.textContent = "Delete";
  remove.addEventListener("click", () => {
    void client.delete([{ business: r.business, oid: r.oid }]).then(() => loadHistory(false)).catch(showError);
  });
  li.append(text, remove);
  return li;
}

async function loadHistory(more: boolean): Promise<void> {
  const page = await client.history({ limit: HISTORY_PAGE, after: more ? next : undefined });
  const list = el("history");
  if (!more) {
    list.replaceChildren();
  }
  list.append(...page.records.map(historyItem));
  next = page.hasMore ? page.next : undefined;
  el("more").hidden = !page.hasMore;
}

/** Reloads the first history page shortly after writes settle. */
function historySoon(): void {
  clearTimeout(historyTimer);
  historyTimer = setTimeout(() => void loadHistory(false).catch(showError), 400);
}

function showError(e: unknown): void {
  el("state").textContent = `error: ${(e as Error).message}`;
}

client.on("state", (state) => {
  const badge = el("state");
  badge.textContent = state;
  badge.className = `state ${state}`;
  if (state === "connected" && !playing) {
    void restore().then(() => loadHistory(false)).catch(showError);
  }
});
client.on("ack", (ack) => {
  for (const { event, firstView } of ack.events) {
    acks++;
    const li = document.createElement("li");
    li.dataset.progress = String(event.progressMs);
    li.textContent = `video ${event.oid} at ${event.progressMs < 0n ? "the end" : clock(event.progressMs)} written`
      + (firstView ? " (first view)" : "");
    const log = el("ack-log");
    log.prepend(li);
    while (log.children.length > ACKS_SHOWN) {
      log.lastElementChild?.remove();
    }
  }
  el("ack-count").textContent = String(acks);
  historySoon();
});
client.on("firstToday", (date) => {
  const banner = el("first-today");
  banner.textContent = `First play today (${date}): counted once for this user across all devices.`;
  banner.hidden = false;
});
client.on("sync", (record) => {
  if (record.business === Business.VIDEO && Number(record.oid) === oid && !playing) {
    position = record.progressMs < 0n ? DURATION_MS : Number(record.progressMs);
    render();
  }
  const note = el("sync-note");
  note.textContent = `Another device (${record.deviceId}) moved video ${record.oid} to `
    + `${record.progressMs < 0n ? "the end" : clock(record.progressMs)}.`;
  note.hidden = false;
  historySoon();
});
client.on("error", (e: PlaylineError) => showError(e));

el("play").addEventListener("click", togglePlay);
const seek = el<HTMLInputElement>("seek");
seek.addEventListener("input", () => (el("position").textContent = clock(Number(seek.value))));
seek.addEventListener("change", () => seekTo(Number(seek.value)));
el<HTMLSelectElement>("item").addEventListener("change", (e) => {
  report();
  void client.flush().catch(ignore);
  playing = false;
  oid = Number((e.target as HTMLSelectElement).value);
  void restore().catch(showError);
});
el("refresh").addEventListener("click", () => void loadHistory(false).catch(showError));
el("more").addEventListener("click", () => void loadHistory(true).catch(showError));
el("clear").addEventListener("click", () => void client.clearAll().then(() => loadHistory(false)).catch(showError));
el("login").addEventListener("submit", (e) => {
  e.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, el<HTMLInputElement>("token-input").value.trim());
  el("login").hidden = true;
  client.close().finally(() => location.reload());
});

el<HTMLSelectElement>("item").value = String(oid);
el("uid").textContent = uid;
el("device").textContent = deviceId;
el<HTMLAnchorElement>("other-device").href = `?uid=${encodeURIComponent(uid)}&item=${oid}`;
render();
setInterval(tick, TICK_MS);
client.start();
