import type { SubscribeToTaskRequest } from "../../gen/a2a/v1/a2a_pb.js";
import { serviceParamsKey, type A2AServiceApi, type SequencedEvent, type ServiceParams } from "../../src/core/index.js";

/** A subscribeSequenced call seen by the service: its signal, and whether its stream has finished (to observe what a disconnect does server-side). */
export interface ObservedSubscription {
  signal: AbortSignal;
  finished: boolean;
}

/** Wraps a service so every subscribeSequenced call is pushed onto `into`; `afterEvent` (called after the nth event) may throw to fail the stream. */
export function observeSubscriptions(
  into: ObservedSubscription[],
  afterEvent?: (req: SubscribeToTaskRequest, n: number) => void,
): (s: A2AServiceApi) => A2AServiceApi {
  return (s) => ({
    ...s,
    subscribeSequenced: (req, ctx, afterSeq) => {
      const o: ObservedSubscription = { signal: ctx.signal, finished: false };
      into.push(o);
      const inner = s.subscribeSequenced(req, ctx, afterSeq);
      return (async function* (): AsyncGenerator<SequencedEvent> {
        try {
          let n = 0;
          for await (const e of inner) {
            yield e;
            afterEvent?.(req, ++n);
          }
        } finally {
          o.finished = true;
        }
      })();
    },
  });
}

/** Wraps a service so getTask records the ServiceParams of each call in `seen`, and fails with a secret-laden internal error for the id "explode". */
export function spyOnGetTask(seen: ServiceParams[]): (s: A2AServiceApi) => A2AServiceApi {
  return (s) => ({
    ...s,
    getTask: (req, ctx) => {
      seen.push(ctx.values.get(serviceParamsKey));
      if (req.id === "explode") throw new Error("secret: db password is hunter2 at /srv/store.ts:42");
      return s.getTask(req, ctx);
    },
  });
}
