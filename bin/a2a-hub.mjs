#!/usr/bin/env node
// The package's bin: runs the TypeScript sources under tsx, so that a clean
// clone works without a build step.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
