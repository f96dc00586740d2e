'use strict';
// Turn a one-shot hook function into a resident handler (hooks' `"resident": true`).
//
// hooks sends one line per event, {"id": N, "event": "PreToolUse", "payload": {...}}, and
// the handler answers one line per event, {"id": N, "exit_code": 0, "stdout": {...} or
// "text", "stderr": "text"}. Answers may come in any order, so an async hook function
// can await without holding the others up.
//
//   const { serve } = require('./resident');
//   serve(async (event, payload) => {
//     if ((payload.tool_input?.command ?? '').includes('rm -rf')) return [2, '', 'no rm -rf'];
//     return 0;
//   });
//
// The function (sync or async) gets the event name and the payload object and returns an
// exit code, [exitCode, stdout, stderr?], an object (stdout, exit 0) or undefined (exit 0).
// A thrown error answers exit 1 with its message on stderr (a non-blocking failure).
//
// Without hooks' resident mode (Claude Code ignores the field and runs the command once
// per event), the first line is not a framed event: serve answers that one payload the
// one-shot way and exits.

const readline = require('readline');

function normalize(result) {
  if (result === undefined || result === null) return [0, '', ''];
  if (typeof result === 'number') return [result, '', ''];
  if (Array.isArray(result)) return [result[0] | 0, result[1] ?? '', result[2] ?? ''];
  if (typeof result === 'object') return [0, result, ''];
  throw new TypeError(`unexpected hook result ${String(result)}`);
}

async function call(fn, event, payload) {
  try {
    return normalize(await fn(event, payload));
  } catch (err) {
    return [1, '', String(err && err.message ? err.message : err)];
  }
}

function serve(fn) {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  let framed = null;
  const oneShot = [];
  rl.on('line', (line) => {
    if (framed === null) {
      try {
        const m = JSON.parse(line);
        framed = m !== null && typeof m === 'object' && 'id' in m && 'payload' in m;
      } catch (_) {
        framed = false;
      }
    }
    if (!framed) {
      oneShot.push(line);
      return;
    }
    if (!line.trim()) return;
    const m = JSON.parse(line);
    call(fn, m.event ?? '', m.payload).then(([code, out, err]) => {
      process.stdout.write(
        JSON.stringify({ id: m.id, exit_code: code, stdout: out, stderr: err }) + '\n');
    });
  });
  rl.on('close', async () => {
    if (framed) return;
    const text = oneShot.join('\n');
    const payload = text.trim() ? JSON.parse(text) : {};
    const [code, out, err] = await call(fn, payload.hook_event_name ?? '', payload);
    if (out) process.stdout.write(typeof out === 'string' ? out : JSON.stringify(out));
    if (err) process.stderr.write(err);
    process.exitCode = code;
  });
}

module.exports = { serve };
