#!/usr/bin/env node
// agent-memory: one entry point for the service and its administration
// (src/cli/program.ts), run as this process, with its streams and environment.
import { runProgram } from "./program.js";

process.exitCode = await runProgram(process.argv);
