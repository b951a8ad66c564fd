// A warm TypeScript compiler: one Node process that keeps the TypeScript compiler loaded and JIT-compiled
// and runs one `tsc` command line per request, so that a program does not pay tsc's start-up (loading
// and compiling 9 MB of JavaScript: 0.75 s idle, over 2 s on a busy 2-core machine) for each compile.
// It is CompileServer.java's counterpart for Node, with the same protocol, and runs inside the sandbox
// like any compile (evaluators/sandbox/core.py, _WarmCompiler, starts it and owns its limits).
//
// Usage: node <the compile's own Node flags> compile-server.js <path of the tsc script> <idle seconds>
//
// Protocol on stdin/stdout, frames of a 4-byte big-endian length and UTF-8 bytes:
//   request:  tsc's arguments, separated by NUL characters
//   reply:    "<exit code>\n<what tsc printed, at most OUTPUT_CAP bytes>", or "!\n<the stack trace>"
//             when the compiler threw (the caller then compiles cold, and this server exits)
// The server exits at end of input, after <idle seconds> without a request, and after a compile that
// threw. Each compile is tsc's own executeCommandLine, given a copy of tsc's system whose output goes to
// the reply and whose exit ends the compile, so the messages and exit codes are the command line's.
"use strict";

const path = require("path");

const OUTPUT_CAP = 64 * 1024;
const REQUEST_CAP = 1 << 20;

const [tscScript, idleArg] = process.argv.slice(2);
// bin/tsc belongs to the typescript package, whose main module is the compiler's API
const ts = require(path.resolve(path.dirname(tscScript), ".."));
const idleMillis = Number(idleArg) * 1000;

class Exit {
  constructor(code) {
    this.code = code;
  }
}

function compile(args) {
  let output = "";
  const system = Object.assign(Object.create(ts.sys), {
    args,
    write(text) {
      if (output.length < OUTPUT_CAP) output += text;
    },
    writeOutputIsTTY: () => false, // a compile's stdout is a pipe: no colours, as on the command line
    exit(code) {
      throw new Exit(code === undefined ? 0 : code);
    },
  });
  try {
    ts.executeCommandLine(system, () => {}, args);
    return { head: "!", text: "tsc returned without an exit status", fatal: true };
  } catch (thrown) {
    if (thrown instanceof Exit) return { head: String(thrown.code), text: output, fatal: false };
    return { head: "!", text: String((thrown && thrown.stack) || thrown), fatal: true };
  }
}

function reply(head, text) {
  const body = Buffer.from(`${head}\n${text}`, "utf8").subarray(0, OUTPUT_CAP + 32);
  const frame = Buffer.alloc(4 + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, 4);
  process.stdout.write(frame);
}

let idle = setTimeout(() => process.exit(0), idleMillis);
let pending = Buffer.alloc(0);

process.stdin.on("data", (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  while (pending.length >= 4) {
    const length = pending.readUInt32BE(0);
    if (length > REQUEST_CAP) process.exit(3);
    if (pending.length < 4 + length) return;
    const args = pending.subarray(4, 4 + length).toString("utf8").split("\0");
    pending = pending.subarray(4 + length);
    clearTimeout(idle);
    const { head, text, fatal } = compile(args);
    reply(head, text);
    if (fatal) {
      process.stdout.write("", () => process.exit(4));
      return;
    }
    idle = setTimeout(() => process.exit(0), idleMillis);
  }
});
process.stdin.on("end", () => process.exit(0));
