'use strict';
// The golden cases decide the same through Node as through `hooks run`.
//
// Each golden case that runs a handler becomes a real project: its configuration files on
// disk, its programs scripts on PATH replaying the recorded outputs (as
// crates/hooks-py/tests/test_golden.py and crates/hooks-cli/tests/it/core_host.rs do).
// The case is fired once by the `hooks` binary and once through a Session; matched ids,
// decision, effect and the blocking verdict (the binary's exit 2) must be identical.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const { REPO } = require('./world');
const { Session } = require('..');

const CASES = path.join(REPO, 'crates/hooks-core/tests/golden/cases');
const BIN = process.env.HOOKS_BIN
  || path.join(process.env.CARGO_TARGET_DIR ? path.resolve(REPO, process.env.CARGO_TARGET_DIR) : path.join(REPO, 'target'), 'debug/hooks');

const portable = (p) => Boolean(p) && p !== '.' && p !== '..' && /^[A-Za-z0-9_.-]+$/.test(p);

function writePrograms(c, binDir) {
  fs.mkdirSync(binDir, { recursive: true });
  const programs = new Map();
  for (const handlers of Object.values(c.expected.handlers)) {
    for (const h of handlers) {
      let program = null;
      if (h.legacy && typeof h.legacy === 'object') program = h.legacy.argv[0];
      else if (Array.isArray(h.argv)) program = h.argv.length ? h.argv[0] : null;
      else if (typeof h.command === 'string') program = h.command.trim();
      if (h.id && program !== null && program !== undefined) {
        const output = c.outputs[h.id];
        if (output !== undefined && output !== null) programs.set(program, output);
        else if (!programs.has(program)) programs.set(program, null);
      }
    }
  }
  for (const [program, recorded] of programs) {
    if (!portable(program)) continue;
    const output = recorded || {};
    const out = path.join(binDir, `${program}.stdout`);
    const err = path.join(binDir, `${program}.stderr`);
    fs.writeFileSync(out, output.stdout || '');
    fs.writeFileSync(err, output.stderr || '');
    let ending;
    if (output.timeout !== undefined && output.timeout !== null) ending = `sleep ${output.timeout + 3}\nexit 0`;
    else if (output.signal !== undefined && output.signal !== null) ending = `kill -${output.signal} $$\nsleep 5`;
    else ending = `exit ${output.exit || 0}`;
    const file = path.join(binDir, program);
    fs.writeFileSync(file, `#!/bin/sh\ncat > /dev/null\ncat '${out}'\ncat '${err}' >&2\n${ending}\n`);
    fs.chmodSync(file, 0o755);
  }
}

async function compare(c, root) {
  const project = path.join(root, 'project');
  const home = path.join(root, 'home');
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
  fs.mkdirSync(home);
  for (const f of c.files) {
    if (typeof f.text !== 'string') return null;
    const file = f.layer === 'project' ? path.join(project, '.deepagents/hooks.json') : path.join(home, 'hooks.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, f.text);
  }
  writePrograms(c, path.join(root, 'bin'));
  const env = { PATH: `${path.join(root, 'bin')}:/usr/bin:/bin`, HOME: root };
  const payload = { ...c.payload };
  const count = c.continuation_count;
  if (count !== undefined && count !== null) delete payload.stop_hook_active;

  const args = ['--home', home, '--project', project, '--trust-project-hooks', 'run', c.event, '--payload', JSON.stringify(payload)];
  if (count !== undefined && count !== null) args.push('--stop-continuations', String(count));
  const out = spawnSync(BIN, args, { env, cwd: project, encoding: 'utf8' });
  const ran = JSON.parse(out.stdout);
  const theirs = { matched: ran.matched, decision: ran.decision, effect: ran.effect, blocking: out.status === 2 };

  const session = new Session({ project, home, trustProjectHooks: true, env });
  const r = await session.fire(c.event, payload, { stopContinuations: count ?? undefined });
  const ours = { matched: r.matched, decision: r.decision, effect: r.effect, blocking: r.blocking };
  return { ours, theirs };
}

test('Node and hooks run decide the same on every golden case', async () => {
  assert.ok(fs.existsSync(BIN), `${BIN} is not built: run \`cargo build -p hooks-cli\` (or set HOOKS_BIN)`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hooks-node-golden-'));
  let compared = 0;
  const failures = [];
  for (const name of fs.readdirSync(CASES).filter((n) => n.endsWith('.json')).sort()) {
    const c = JSON.parse(fs.readFileSync(path.join(CASES, name), 'utf8'));
    if (!c.expected.matched || c.expected.matched.length === 0) continue;
    const result = await compare(c, path.join(tmp, path.basename(name, '.json')));
    if (result === null) continue;
    compared += 1;
    try {
      assert.deepEqual(result.ours, result.theirs);
    } catch {
      failures.push(`${name}:\n  node:      ${JSON.stringify(result.ours)}\n  hooks run: ${JSON.stringify(result.theirs)}`);
    }
  }
  console.log(`Node and hooks run compared on ${compared} golden cases`);
  assert.ok(compared >= 20, `only ${compared} golden cases compared`);
  assert.deepEqual(failures, []);
});
