/**
 * The first-today date of the authenticated user: loaded from and kept in the FlagStore, echoed
 * in Auth and every heartbeat so the gateway skips its lookup, and told to listeners once per
 * date. Single-threaded.
 */
import type { FlagStore } from "./flags.js";

export class FirstToday {
  private uid = 0n;
  private flagDate = "";
  private notifiedDay = "";

  constructor(private readonly flags: FlagStore) {}

  /** The authenticated user (0n before the first AuthOk). */
  get user(): bigint {
    return this.uid;
  }

  /** The date to echo in heartbeats ("" while unknown). */
  get date(): string {
    return this.flagDate;
  }

  /** The date to echo in Auth: none before a user is known. */
  authDate(): string {
    return this.uid === 0n ? "" : this.flagDate || this.flags.load(this.uid);
  }

  /** AuthOk named `uid` and echoed `date`. */
  authenticated(uid: bigint, date: string): void {
    if (uid !== this.uid) {
      this.uid = uid;
      this.flagDate = this.flags.load(uid);
      this.notifiedDay = "";
    }
    this.remember(date);
  }

  /** Keeps a date the gateway echoed. */
  remember(date: string): void {
    if (date === "" || date === this.flagDate || this.uid === 0n) {
      return;
    }
    this.flagDate = date;
    this.flags.store(this.uid, date);
  }

  /** Whether an ack saying `firstToday` for `date` is the first listeners hear of that date. */
  firstNotice(firstToday: boolean, date: string): boolean {
    if (!firstToday || date === this.notifiedDay) {
      return false;
    }
    this.notifiedDay = date;
    return true;
  }
}
