/** The server: one port for every binding, and its lifecycle. */
export { defaultAgents, SERVED_INTERFACES, startHub, type Hub, type HubContext, type HubOptions } from "./hub.js";
export { parseCliOptions, type CliOptions } from "./cli-options.js";
export { createOnePortServer, type OnePortServer } from "./one-port.js";
export { requestBaseUrl, WELL_KNOWN_CARD_PATH, type HttpHandler, type HttpRequest, type HttpResponse } from "./http-routes.js";
