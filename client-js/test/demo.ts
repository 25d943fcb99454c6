import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import type { Stack } from "./stack.js";

/** Where the screenshot goes (the README shows a copy of it: docs/demo.png). */
const SCREENSHOT = resolve(fileURLToPath(new URL(".", import.meta.url)), "..", "demo.png");

/** Debian's chromium (or $PLAYLINE_CHROMIUM): puppeteer-core downloads no browser. */
function chromium(): string | undefined {
  if (process.env.PLAYLINE_CHROMIUM) {
    return process.env.PLAYLINE_CHROMIUM;
  }
  for (const name of ["chromium", "chromium-browser", "google-chrome"]) {
    try {
      return execFileSync("which", [name], { encoding: "utf8" }).trim();
    } catch {
      // not this one
    }
  }
  return undefined;
}

const text = (page: Page, selector: string) => page.$eval(selector, (e) => e.textContent ?? "");
const shown = (page: Page, selector: string) => page.$eval(selector, (e) => getComputedStyle(e).display !== "none");
const value = (page: Page, selector: string) => page.$eval(selector, (e) => (e as HTMLInputElement).value);

async function waitFor(page: Page, what: string, fn: string): Promise<void> {
  try {
    await page.waitForFunction(fn, { timeout: 30_000, polling: 50 });
  } catch (e) {
    const state = await text(page, "#state").catch(() => "?");
    throw new Error(`${what}: not within 30 s (page state: ${state}): ${String(e)}`);
  }
}

const connected = (page: Page) => waitFor(page, "connected", `document.getElementById("state").textContent === "connected"`);

/** Moves the seek bar as a user's drag ends: the page reports and flushes at once. */
async function seek(page: Page, ms: number): Promise<void> {
  await page.$eval("#seek", (e, v) => {
    (e as HTMLInputElement).value = String(v);
    e.dispatchEvent(new Event("change"));
  }, ms);
}

/**
 * The demo web player served by the standalone under test, driven in headless Chromium: play,
 * pause, seek and see each ack; the first-today moment; a second page of the same user (another
 * device) resumes where the first is and follows its seek through ProgressSync; a reload restores
 * the position and the history; delete removes the item from the page.
 */
export function demoTests(stack: () => Stack, uids: () => bigint): void {
  describe("the demo web player in headless Chromium", () => {
    const executable = chromium();
    const skip = executable === undefined && process.env.PLAYLINE_SKIP_BROWSER === "1"
      ? "no Chromium and PLAYLINE_SKIP_BROWSER=1" : false;
    let browser: Browser | undefined;

    before(async () => {
      if (skip) {
        return;
      }
      assert.ok(executable, "no Chromium found: install Debian's chromium, set PLAYLINE_CHROMIUM, "
        + "or PLAYLINE_SKIP_BROWSER=1 to skip the browser test");
      browser = await puppeteer.launch({
        executablePath: executable,
        headless: true,
        // As root (CI) Chromium's sandbox cannot start; /dev/shm may be tiny in containers.
        args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run"],
      });
    }, { timeout: 60_000 });

    after(async () => {
      await browser?.close();
    });

    it("plays, seeks, syncs a second device, restores after a reload, deletes", { skip, timeout: 180_000 }, async () => {
      const b = browser!;
      const uid = uids();
      const base = stack().wsUrl.replace(/^ws/, "http").replace("/v1/stream", "/demo/");
      const a = await b.newPage();
      await a.setViewport({ width: 1000, height: 720 });
      const problems: string[] = [];
      a.on("pageerror", (e) => problems.push(String(e)));
      a.on("console", (m) => {
        if (m.type() === "error") {
          problems.push(m.text());
        }
      });
      await a.goto(`${base}?uid=${uid}&device=tab-a`);
      await connected(a);

      // Play: the page reports every 250 ms and the SDK sends the latest at the 1 s interval.
      await a.click("#play");
      await waitFor(a, "an ack", `Number(document.getElementById("ack-count").textContent) > 0`);
      await waitFor(a, "the first-today moment", `getComputedStyle(document.getElementById("first-today")).display !== "none"`);
      assert.match(await text(a, "#first-today"), /First play today \(\d{4}-\d{2}-\d{2}\)/);
      assert.match(await text(a, "#ack-log li"), /^video 1 at \d+:\d\d written/);

      // Pause, then seek to 5:00: sent at once, acked with that position.
      await a.click("#play");
      await seek(a, 300_000);
      await waitFor(a, "the ack of the seek", `document.querySelector("#ack-log li").dataset.progress === "300000"`);

      // A second device of the same user resumes at 5:00.
      const other = await b.newPage();
      await other.setViewport({ width: 1000, height: 720 });
      await other.goto(`${base}?uid=${uid}&device=tab-b`);
      await connected(other);
      await waitFor(other, "the resumed position", `document.getElementById("seek").value === "300000"`);
      assert.match(await text(other, "#resumed"), /Resumed at 5:00 \(last played on tab-a\)/);
      // It plays a moment too: acked, but the user was counted today on the first device already.
      await other.click("#play");
      await waitFor(other, "the second device's ack", `Number(document.getElementById("ack-count").textContent) > 0`);
      await other.click("#play");
      await waitFor(other, "the second device's pause", `document.getElementById("play").textContent === "Play"`);
      assert.equal(await shown(other, "#first-today"), false, "no second first-today moment on the same day");

      // The first device seeks to 7:00: the second page's bar follows (ProgressSync).
      await seek(a, 420_000);
      await waitFor(other, "the synced position", `document.getElementById("seek").value === "420000"`);
      assert.match(await text(other, "#sync-note"), /Another device \(tab-a\) moved video 1 to 7:00/);
      // The first page as a user sees it: acks, the first-today banner, the history.
      await waitFor(a, "the history after the seek", `document.querySelector('#history li[data-oid="1"]')?.dataset.progress === "420000"`);
      mkdirSync(dirname(SCREENSHOT), { recursive: true });
      await a.screenshot({ path: SCREENSHOT as `${string}.png` });
      await other.close();

      // Reload: the position and the history come back from the server.
      await a.reload();
      await connected(a);
      await waitFor(a, "the restored position", `document.getElementById("seek").value === "420000"`);
      await waitFor(a, "the history entry", `document.querySelector('#history li[data-oid="1"]')?.dataset.progress === "420000"`);
      assert.equal(await value(a, "#seek"), "420000");
      assert.match(await text(a, "#history li"), /video 1 · 7:00 \/ 10:00 · tab-a/);

      assert.equal(await shown(a, "#login"), false, "standalone hands out tokens: no token form");

      // Delete the item: the history is empty again.
      await a.click('#history li[data-oid="1"] button');
      await waitFor(a, "the deletion", `document.querySelectorAll("#history li").length === 0`);
      assert.deepEqual(problems, [], "no script errors on the page");
    });
  });
}
