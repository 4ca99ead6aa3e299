#!/usr/bin/env node
// `npm start`: the server (src/main.ts), compiled at start (compiled-entry.mjs says why).
import { runCompiled } from "./compiled-entry.mjs";

await runCompiled("src/main.ts");
