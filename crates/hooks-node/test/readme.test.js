'use strict';
// The README's example runs, unchanged, and prints what its comment says.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

test('the README example runs', () => {
  const readme = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
  const example = readme.split('```js\n')[1].split('```')[0];
  assert.ok(example.split('\n').length < 40);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hooks-node-readme-'));
  fs.mkdirSync(path.join(root, 'home'));
  // `require('hooks-node')` resolves to this package, as after `npm install`.
  const modules = path.join(root, 'node_modules');
  fs.mkdirSync(modules);
  fs.symlinkSync(path.resolve(__dirname, '..'), path.join(modules, 'hooks-node'));
  fs.writeFileSync(path.join(root, 'example.js'), example);
  const env = { PATH: '/usr/bin:/bin', HOME: root, DEEPAGENTS_HOME: path.join(root, 'home') };
  const out = spawnSync(process.execPath, ['example.js'], { cwd: root, env, encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  assert.equal(out.stdout, 'true Cannot modify .env files\n');
});
