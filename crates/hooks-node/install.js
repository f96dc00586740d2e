'use strict';
// Builds the addon from this checkout with cargo and copies it to `hooks.node` beside
// index.js. Nothing is downloaded but crates from crates.io.
//
//   HOOKS_NODE_PROFILE  cargo profile (default `wheel`: release optimisation without the
//                       fat-LTO single unit, the profile the Python wheel uses)
//   CARGO               the cargo to run (default `cargo` on PATH)
//   CARGO_TARGET_DIR    honoured as cargo honours it

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const here = __dirname;
const manifest = path.join(here, 'Cargo.toml');
const profile = process.env.HOOKS_NODE_PROFILE || 'wheel';
const cargo = process.env.CARGO || 'cargo';
const args = ['build', '--manifest-path', manifest, '-p', 'hooks-node', '--profile', profile,
  '--message-format=json-render-diagnostics'];
if (process.env.HOOKS_NODE_LOCKED !== '0' && fs.existsSync(path.join(here, '..', '..', 'Cargo.lock'))) {
  args.push('--locked');
}
const run = spawnSync(cargo, args, { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 1 << 28 });
if (run.error) {
  console.error(`hooks-node: cannot run ${cargo}: ${run.error.message} (a Rust toolchain is needed to build the addon)`);
  process.exit(1);
}
if (run.status !== 0) {
  console.error(`hooks-node: cargo build failed (exit ${run.status})`);
  process.exit(run.status || 1);
}
let built = null;
for (const line of run.stdout.split('\n')) {
  if (!line.startsWith('{')) continue;
  const msg = JSON.parse(line);
  if (msg.reason === 'compiler-artifact' && msg.target && msg.target.name === 'hooks_node'
      && msg.target.kind.includes('cdylib')) {
    built = msg.filenames.find((f) => /\.(so|dylib|dll)$/.test(f));
  }
}
if (!built) {
  console.error('hooks-node: cargo did not report the addon it built');
  process.exit(1);
}
const dest = path.join(here, 'hooks.node');
const tmp = `${dest}.${process.pid}.tmp`;
fs.copyFileSync(built, tmp);
fs.renameSync(tmp, dest);
console.error(`hooks-node: ${path.relative(process.cwd(), dest) || dest} built from ${built} (profile ${profile})`);
