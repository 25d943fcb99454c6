/**
 * The page's hide events in a browser: calls back on `pagehide` and on `visibilitychange` (the
 * callback checks whether the page is still visible), so the client can flush before a tab is
 * frozen or closed. Nothing outside a browser. Single-threaded.
 */

/** Registers `listener` for the page's hide events; returns what unregisters it. */
export function watchPageHide(listener: () => void): () => void {
  const w = globalThis as { addEventListener?: (t: string, f: () => void) => void;
    removeEventListener?: (t: string, f: () => void) => void;
    document?: { addEventListener(t: string, f: () => void): void; removeEventListener(t: string, f: () => void): void } };
  const doc = w.document;
  if (typeof w.addEventListener !== "function" || typeof w.removeEventListener !== "function" || doc === undefined) {
    return () => undefined;
  }
  w.addEventListener("pagehide", listener);
  doc.addEventListener("visibilitychange", listener);
  return () => {
    w.removeEventListener?.("pagehide", listener);
    doc.removeEventListener("visibilitychange", listener);
  };
}

/** Whether the page is hidden (true outside a browser). */
export function pageHidden(): boolean {
  const doc = (globalThis as { document?: { visibilityState?: string } }).document;
  return doc === undefined || doc.visibilityState !== "visible";
}
