import * as http2 from "node:http2";
import type * as net from "node:net";

/**
 * What the one port admits before any request is read: connections in all
 * and per client address, and each HTTP/2 session's streams, memory and
 * header size. Every value is set explicitly rather than left to Node's
 * defaults (Node advertises no SETTINGS_MAX_CONCURRENT_STREAMS at all).
 */
export interface DoorLimits {
  /** Connections open at once on the port, from everyone. */
  readonly maxConnections: number;
  /**
   * Connections open at once from one client address (the TCP peer). Behind
   * a proxy every client has the proxy's address, so peers listed in
   * `trustedProxies` are exempt; the proxy's own limits apply there.
   */
  readonly maxConnectionsPerAddress: number;
  /**
   * HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS: streams a client may have open
   * on one connection, long-lived ones (SendStreamingMessage,
   * SubscribeToTask) included.
   */
  readonly maxStreamsPerConnection: number;
  /** Memory an HTTP/2 session may hold (MiB: its streams, buffers, header tables) before new streams are refused. */
  readonly maxSessionMemoryMiB: number;
  /** Largest header section of a request (bytes), HTTP/2 (SETTINGS_MAX_HEADER_LIST_SIZE) and HTTP/1.1 alike. */
  readonly maxHeaderBytes: number;
  /**
   * Sessions one client address may have ended for misbehaving (a flood, a
   * protocol error, a slow start) in REFUSAL_WINDOW_MS; past it the
   * address's new connections are refused until the window ends, so a
   * client that reconnects to attack again costs a closed socket each time.
   * Trusted proxies are exempt.
   */
  readonly maxRefusalsPerAddress: number;
}

export const DEFAULT_DOOR_LIMITS: DoorLimits = {
  maxConnections: 4096,
  maxConnectionsPerAddress: 512,
  maxStreamsPerConnection: 100,
  maxSessionMemoryMiB: 32,
  maxHeaderBytes: 32 * 1024,
  maxRefusalsPerAddress: 5,
};

/** Strikes are counted in twentieths: a session ended counts 20, one refused request (401) 1. */
const SESSION_WEIGHT = 20;
export const REFUSED_REQUEST_WEIGHT = 1;
/** The window `maxRefusalsPerAddress` counts in. */
export const REFUSAL_WINDOW_MS = 10_000;
/** Addresses remembered for their refusals at most; past it, those whose window ended are forgotten. */
const REMEMBERED_ADDRESSES = 10_000;

/**
 * Node's HTTP/2 flood defences, pinned here so that a Node release that
 * changes a default does not change the hub (RFC 9113 §10.5; CVE-2019-9512
 * PING, -9515 SETTINGS, -9518 empty frames, CVE-2023-44487 rapid reset,
 * CVE-2024-27316 CONTINUATION, which nghttp2 caps by itself). A session
 * that trips one ends with GOAWAY ENHANCE_YOUR_CALM (calmOnFlood).
 */
const FLOOD_DEFENCES = {
  /** PINGs and SETTINGS the client sent that still wait for our ACK. */
  maxOutstandingPings: 10,
  maxOutstandingSettings: 10,
  /** Entries in one SETTINGS frame. */
  maxSettings: 32,
  /** Header fields in one request. */
  maxHeaderListPairs: 128,
  /** Invalid or empty frames (e.g. zero-length DATA without END_STREAM) a session may send. */
  maxSessionInvalidFrames: 100,
  /** Streams refused (over the limit or the session's memory) before the session is. */
  maxSessionRejectedStreams: 100,
  /** Rapid reset: RST_STREAM frames a client may send in a burst (Node: 1000), then per second. */
  streamResetBurst: 100,
  streamResetRate: 33,
} as const;

/** The options of the HTTP/2 servers (cleartext and TLS) under `limits`. */
export function http2Limits(limits: DoorLimits): http2.ServerOptions {
  return {
    ...FLOOD_DEFENCES,
    maxSessionMemory: limits.maxSessionMemoryMiB,
    settings: {
      maxConcurrentStreams: limits.maxStreamsPerConnection,
      maxHeaderListSize: limits.maxHeaderBytes,
      // RFC 7541's default, pinned. A table of 0 would make an HPACK bomb cost its sender
      // every byte, but proxies that never send the table-size update it requires (§4.2;
      // HAProxy 2.6) then fail every request. The bomb is bounded instead: a header block
      // past maxHeaderListSize ends its session, and maxRefusalsPerAddress bars the sender.
      headerTableSize: 4096,
      enablePush: false,
    },
  } as http2.ServerOptions;
}

/** Why a connection or a session was ended at the door: the `reason` label of a2a_refusals_total. */
export type DoorRefusal =
  | "limits.maxConnections"
  | "limits.maxConnectionsPerAddress"
  | "limits.maxRefusalsPerAddress"
  | "limits.headersTimeoutMs"
  | "limits.maxHeaderBytes"
  | "h2.flood"
  | "h2.protocolError";

/**
 * Counts connections per client address and decides, as each one arrives,
 * whether it is admitted. Admitted connections are forgotten when they close.
 */
export class ConnectionGate {
  private open = 0;
  private readonly byAddress = new Map<string, number>();
  /** Refusals per address in the current window: its start and count. */
  private readonly strikes = new Map<string, { since: number; count: number }>();

  constructor(
    private readonly limits: DoorLimits,
    /** Peers not held to the per-address limit (trusted proxies). */
    private readonly exempt: (address: string) => boolean = () => false,
  ) {}

  /** Admits `socket` (and arranges to forget it at its close), or says which limit refuses it. */
  admit(socket: net.Socket): DoorRefusal | undefined {
    if (this.open >= this.limits.maxConnections) return "limits.maxConnections";
    const address = socket.remoteAddress ?? "";
    const struck = this.strikes.get(address);
    if (struck && struck.count >= this.limits.maxRefusalsPerAddress * SESSION_WEIGHT && Date.now() - struck.since < REFUSAL_WINDOW_MS && !this.exempt(address)) return "limits.maxRefusalsPerAddress";
    const mine = this.byAddress.get(address) ?? 0;
    if (mine >= this.limits.maxConnectionsPerAddress && !this.exempt(address)) return "limits.maxConnectionsPerAddress";
    this.open++;
    this.byAddress.set(address, mine + 1);
    socket.once("close", () => {
      this.open--;
      const n = (this.byAddress.get(address) ?? 1) - 1;
      if (n === 0) this.byAddress.delete(address);
      else this.byAddress.set(address, n);
    });
    return undefined;
  }

  /**
   * Records that a session from `address` was ended for misbehaving
   * (`weight` SESSION_WEIGHT), or that one of its requests was refused for want of
   * credentials (REFUSED_REQUEST_WEIGHT). Once the count reaches
   * `maxRefusalsPerAddress` within the window, admit() refuses the address
   * until the window ends; returns true at the strike that got it there.
   */
  strike(address: string | undefined, weight = SESSION_WEIGHT): boolean {
    if (!address || this.exempt(address)) return false;
    const now = Date.now();
    const s = this.strikes.get(address);
    const max = this.limits.maxRefusalsPerAddress * SESSION_WEIGHT;
    if (s && now - s.since < REFUSAL_WINDOW_MS) {
      const was = s.count;
      s.count += weight;
      return was < max && s.count >= max;
    }
    if (this.strikes.size >= REMEMBERED_ADDRESSES) {
      for (const [a, v] of this.strikes) if (now - v.since >= REFUSAL_WINDOW_MS) this.strikes.delete(a);
      // Still full: that many addresses misbehaving at once are not each remembered (the memory stays bounded).
      if (this.strikes.size >= REMEMBERED_ADDRESSES) return false;
    }
    this.strikes.set(address, { since: now, count: weight });
    return weight >= max;
  }
}

/** nghttp2's and Node's words for a session that flooded us (see FLOOD_DEFENCES). */
const FLOOD = /flood|too many|user callback/i;

/**
 * Ends a session that tripped a flood defence with GOAWAY ENHANCE_YOUR_CALM
 * (RFC 9113 §7) instead of the INTERNAL_ERROR Node would send, and
 * destroys its socket even when the client stopped reading (a PING flood
 * whose sender never reads our ACKs would otherwise hold it). `refused`
 * hears each session ended so.
 */
export function calmOnFlood(session: http2.ServerHttp2Session, socket: net.Socket | undefined, refused: (reason: DoorRefusal) => void): void {
  const destroy = session.destroy;
  session.destroy = function (this: http2.ServerHttp2Session, error?: Error, code?: number) {
    // Only nghttp2's and Node's protocol verdicts: a reset socket is not a refusal.
    const kind = (error as { code?: string } | undefined)?.code;
    if (error && code === undefined && !this.destroyed && (kind === "ERR_HTTP2_ERROR" || kind === "ERR_HTTP2_TOO_MANY_INVALID_FRAMES")) {
      const flood = FLOOD.test(error.message);
      refused(flood ? "h2.flood" : "h2.protocolError");
      if (flood) code = http2.constants.NGHTTP2_ENHANCE_YOUR_CALM;
      if (socket) setTimeout(() => socket.destroy(), 1_000).unref();
    }
    return destroy.call(this, error, code);
  } as typeof session.destroy;
}
