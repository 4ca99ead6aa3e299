import { silentLogger, type A2AServiceApi } from "../../src/core/index.js";
import type { HttpRequest, HttpResponse, HubContext, HubOptions } from "../../src/server/index.js";
import { startTestHub, type TestHub } from "./test-hub.js";

/** What a test mounts ahead of the hub's own routes: hub options, the binding handler's options, and a wrapped service. */
export interface HandlerMount<Options> {
  readonly hub?: HubOptions;
  readonly handler?: Partial<Options>;
  readonly wrap?: (service: A2AServiceApi) => A2AServiceApi;
}

/** A binding handler as a route: true or nothing when it answered, false when the request is not its own. */
export type MountedHandler = (req: HttpRequest, res: HttpResponse) => Promise<boolean | void>;

/** The options every binding handler is built from: the hub's (possibly wrapped) service, its cards and a silent logger. */
export function handlerBase(hub: HubContext, wrap?: (service: A2AServiceApi) => A2AServiceApi) {
  return { service: wrap ? wrap(hub.core.service) : hub.core.service, card: (r: HttpRequest) => hub.cardFor(r), logger: silentLogger };
}

/** A test hub whose requests that `claims` are answered by the handler `build` makes (once, on first use). */
export async function startMountedHub(hub: HubOptions | undefined, claims: (req: HttpRequest) => boolean, build: (hub: HubContext) => MountedHandler): Promise<TestHub> {
  let handler: MountedHandler | undefined;
  return startTestHub({
    ...hub,
    routes: [
      async (req, res, ctx) => {
        if (!claims(req)) return false;
        handler ??= build(ctx);
        return (await handler(req, res)) ?? true;
      },
    ],
  });
}
