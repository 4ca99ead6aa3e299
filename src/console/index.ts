/**
 * The browser console served at /console: the page, its esbuild-bundled
 * script (app/, which speaks Connect to the hub with connect-web), and the
 * catalog of the agents a token may use.
 */
export { CONSOLE_PATH, createConsoleRoute, type ConsoleRoute, type ConsoleRouteOptions } from "./console-route.js";
export { consoleBundle, type ConsoleBundle } from "./console-bundle.js";
