import type { ConnectRouter, HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { A2AService } from "../../../../gen/a2a/v1/a2a_pb.js";
import type { A2AServiceApi, Logger } from "../../../core/index.js";
import { deadlineOf, toConnectError } from "../call/index.js";

/**
 * Registers the one service on a connect router (Connect, gRPC and gRPC-Web
 * alike), translating A2AError into status details on the way out.
 */
export function connectRoutes(service: A2AServiceApi, logger: Logger): (router: ConnectRouter) => void {
  const unary =
    <Req, Res>(fn: (req: Req, ctx: HandlerContext) => Promise<Res>) =>
    async (req: Req, ctx: HandlerContext): Promise<Res> => {
      try {
        return await fn(req, ctx);
      } catch (e) {
        throw toConnectError(e, logger);
      }
    };
  const streaming = <Req, Res>(fn: (req: Req, ctx: HandlerContext) => AsyncIterable<Res>) =>
    async function* (req: Req, ctx: HandlerContext): AsyncGenerator<Res> {
      try {
        yield* fn(req, ctx);
      } catch (e) {
        throw toConnectError(e, logger);
      }
      // The service's stream ends quietly when the call's signal aborts; one
      // the deadline (grpc-timeout) ended is DEADLINE_EXCEEDED, not OK.
      const deadline = deadlineOf(ctx);
      if (deadline) throw deadline;
    };
  const impl: ServiceImpl<typeof A2AService> = {
    sendMessage: unary(service.sendMessage),
    sendStreamingMessage: streaming(service.sendStreamingMessage),
    getTask: unary(service.getTask),
    listTasks: unary(service.listTasks),
    cancelTask: unary(service.cancelTask),
    subscribeToTask: streaming(service.subscribeToTask),
    createTaskPushNotificationConfig: unary(service.createTaskPushNotificationConfig),
    getTaskPushNotificationConfig: unary(service.getTaskPushNotificationConfig),
    listTaskPushNotificationConfigs: unary(service.listTaskPushNotificationConfigs),
    getExtendedAgentCard: unary(service.getExtendedAgentCard),
    deleteTaskPushNotificationConfig: unary(service.deleteTaskPushNotificationConfig),
  };
  return (router) => router.service(A2AService, impl);
}
