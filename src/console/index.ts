/**
 * The browser console served at /console: the page, its esbuild-bundled
 * script (app/, which speaks Connect to the hub with connect-web) and its style.
 */
export { CONSOLE_PATH, createConsoleRoute, FAVICON_PATH, type ConsoleOptions, type ConsoleRoute } from "./console-route.js";
export { bundleConsoleApp, consoleBundle, PREBUILT_APP, type ConsoleBundle } from "./console-bundle.js";
