/**
 * Token refresh on a live connection: sends a Refresh with a fresh token between 75 % and 90 % of
 * the time left until the credential expires (where in between: the client's RandomSource), and
 * again when the gateway answers with a new expiry; retries after a failing token supplier or an
 * UNAVAILABLE answer. Timers on the client's Clock. Single-threaded.
 */
import type { Clock, RandomSource, Scheduled } from "./clock.js";
import { Error_Code } from "./gen/playline/v1/stream_pb.js";
import type { FrameBody } from "./transport.js";
import { PlaylineError } from "./types.js";

/** A Refresh is sent between these fractions of the time left until the credential expires. */
const REFRESH_AT = [0.75, 0.9] as const;
const TOKEN_RETRY_MS = 5_000;
const MAX_UNAVAILABLE_RETRY_MS = 30_000;

/** What a refresh needs of the client. */
export interface RefreshHost {
  connected(): boolean;
  token(): string | Promise<string>;
  nextSeq(): number;
  send(body: FrameBody, seq: number): void;
  error(error: PlaylineError): void;
}

export class TokenRefresh {
  private seq = 0;
  private timer?: Scheduled;

  constructor(
    private readonly host: RefreshHost,
    private readonly clock: Clock,
    private readonly random: RandomSource,
  ) {}

  /** Plans the next Refresh for a credential valid until `expiresAtMs` (0: it does not expire). */
  schedule(expiresAtMs: bigint, serverTimeMs: bigint): void {
    this.cancel();
    if (expiresAtMs === 0n) {
      return; // the credential does not expire
    }
    const left = Number(expiresAtMs - serverTimeMs);
    const fraction = REFRESH_AT[0] + this.random() * (REFRESH_AT[1] - REFRESH_AT[0]);
    this.timer = this.clock.schedule(() => void this.run(), Math.max(0, Math.floor(left * fraction)));
  }

  /** Whether `seq` is the Refresh that awaits its answer. */
  awaits(seq: number): boolean {
    return seq !== 0 && seq === this.seq;
  }

  /** The gateway accepted the Refresh. */
  accepted(expiresAtMs: bigint): void {
    this.seq = 0;
    this.schedule(expiresAtMs, BigInt(this.clock.now()));
  }

  /** The gateway answered the Refresh with `error`; returns whether it refused the token (it closes next). */
  refused(error: PlaylineError, heartbeatIntervalMs: number): boolean {
    this.seq = 0;
    this.host.error(error);
    if (error.code === Error_Code.UNAVAILABLE) {
      this.timer = this.clock.schedule(() => void this.run(), Math.min(MAX_UNAVAILABLE_RETRY_MS, heartbeatIntervalMs));
      return false;
    }
    return true;
  }

  /** The connection was lost: no answer will come. */
  lost(): void {
    this.seq = 0;
  }

  cancel(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    if (!this.host.connected()) {
      return;
    }
    let token: string;
    try {
      token = await this.host.token();
    } catch (e) {
      this.host.error(new PlaylineError(Error_Code.UNAUTHENTICATED, `token supplier failed: ${String(e)}`));
      this.timer = this.clock.schedule(() => void this.run(), TOKEN_RETRY_MS);
      return;
    }
    if (!this.host.connected()) {
      return;
    }
    this.seq = this.host.nextSeq();
    this.host.send({ case: "refresh", value: { token } }, this.seq);
  }
}
