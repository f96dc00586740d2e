'use strict';
// Per-event dispatch from Node, interleaved in one run (see BENCHMARKS.md).
//
// Rows, each a PreToolUse event fired sequentially from one event loop:
// - `child_process.spawn /bin/true`: Node's own spawn of the handler with stdin, stdout and
//   stderr piped, awaited until 'close' (the floor for one handler process from Node);
// - `fire, argv /bin/true`: `await session.fire(...)` with one user-layer handler
//   `argv: ['/bin/true']` (receipts on, the default; and a row with receipts off);
// - `fire, one callback`: one JavaScript callback (`async () => ({})`), no process
//   (receipts on, and off).
// With `--python PY` (a Python with hooks_py installed), crates/hooks-py/bench/bench.py
// runs after these rows in the same invocation, with the same rounds and events.
//
// Rounds alternate the rows (so load drifts hit all of them alike); each figure is the
// median over rounds of the mean per-event time within a round.
//
//   node crates/hooks-node/bench/bench.js [--rounds 15] [--events 200] [--quick] [--python PY]

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');

const { Session } = require('..');

const PAYLOAD = { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_1' };
const CONFIG = { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [
  { type: 'command', command: '/bin/true', argv: ['/bin/true'] }] }] } };

function options() {
  const args = process.argv.slice(2);
  const o = { rounds: 15, events: 200, python: null };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--quick') Object.assign(o, { rounds: 2, events: 10 });
    else if (args[i] === '--rounds') o.rounds = Number(args[++i]);
    else if (args[i] === '--events') o.events = Number(args[++i]);
    else if (args[i] === '--python') o.python = args[++i];
    else throw new Error(`bench.js: unknown option '${args[i]}'`);
  }
  return o;
}

function direct() {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/true', [], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end();
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function main() {
  const o = options();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hooks-node-bench-'));
  fs.mkdirSync(path.join(root, 'project', '.git'), { recursive: true });
  fs.mkdirSync(path.join(root, 'home'));
  fs.writeFileSync(path.join(root, 'home', 'hooks.json'), JSON.stringify(CONFIG));
  const env = { PATH: '/usr/bin:/bin', HOME: root };
  const project = path.join(root, 'project');
  const files = new Session({ project, home: path.join(root, 'home'), env });
  const quiet = new Session({ project, home: path.join(root, 'home'), env, receipts: false });
  const hooks = { PreToolUse: [{ matcher: 'Bash', hooks: [async () => ({})] }] };
  const callbacks = new Session({ project, home: path.join(root, 'empty-home'), env, hooks });
  const quietCallbacks = new Session({ project, home: path.join(root, 'empty-home'), env, hooks, receipts: false });

  const r = await files.fire('PreToolUse', PAYLOAD);
  if (r.matched.join() !== 'PreToolUse:0:0' || r.handlers[0].exit_code !== 0) throw new Error(JSON.stringify(r));
  const c = await callbacks.fire('PreToolUse', PAYLOAD);
  if (c.matched.join() !== 'PreToolUse:callback:0:0' || c.decision.diagnostics.length) throw new Error(JSON.stringify(c));

  const rows = [
    ['child_process.spawn /bin/true (pipes)', direct],
    ['hooks-node fire, argv /bin/true', () => files.fire('PreToolUse', PAYLOAD)],
    ['hooks-node fire, argv /bin/true, receipts off', () => quiet.fire('PreToolUse', PAYLOAD)],
    ['hooks-node fire, one JS callback', () => callbacks.fire('PreToolUse', PAYLOAD)],
    ['hooks-node fire, one JS callback, receipts off', () => quietCallbacks.fire('PreToolUse', PAYLOAD)],
  ];
  for (const [, f] of rows) for (let i = 0; i < 20; i++) await f(); // warm-up
  const times = new Map(rows.map(([name]) => [name, []]));
  for (let round = 0; round < o.rounds; round++) {
    for (const [name, f] of rows) {
      const started = process.hrtime.bigint();
      for (let i = 0; i < o.events; i++) await f();
      times.get(name).push(Number(process.hrtime.bigint() - started) / 1e3 / o.events);
    }
  }
  const [load1, load5] = os.loadavg();
  console.log(`node ${process.version}, ${os.cpus().length} cpus, load average ${load1.toFixed(2)} ${load5.toFixed(2)}, `
    + `${o.rounds} rounds x ${o.events} events, median of round means`);
  const base = median(times.get(rows[0][0]));
  for (const [name] of rows) {
    const m = median(times.get(name));
    console.log(`${name.padEnd(48)} ${m.toFixed(1).padStart(9)} us/event  ${(m / base).toFixed(2).padStart(5)}x spawn`);
  }
  fs.rmSync(root, { recursive: true, force: true });
  if (o.python) {
    const script = path.join(__dirname, '..', '..', 'hooks-py', 'bench', 'bench.py');
    const py = spawnSync(o.python, [script, '--rounds', String(o.rounds), '--events', String(o.events)], { stdio: 'inherit' });
    if (py.status !== 0) throw new Error(`the Python rows failed (${o.python}: exit ${py.status})`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
