'use strict';
// Fixtures: a fresh project (with `.git`) and home per test, and file hooks written into them.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const REPO = path.resolve(__dirname, '..', '..', '..');

class World {
  constructor() {
    this.root = fs.mkdtempSync(path.join(os.tmpdir(), 'hooks-node-test-'));
    this.project = path.join(this.root, 'project');
    this.home = path.join(this.root, 'home');
    fs.mkdirSync(path.join(this.project, '.git'), { recursive: true });
    fs.mkdirSync(this.home);
    this.env = { PATH: '/usr/bin:/bin', HOME: this.root };
  }

  writeUser(config) {
    fs.writeFileSync(path.join(this.home, 'hooks.json'), JSON.stringify(config));
  }

  writeProject(config) {
    const dir = path.join(this.project, '.deepagents');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'hooks.json'), JSON.stringify(config));
  }

  session(options = {}) {
    const { Session } = require('..');
    return new Session({ project: this.project, home: this.home, env: this.env, ...options });
  }
}

function group(event, handlers, matcher) {
  const g = { hooks: handlers };
  if (matcher !== undefined) g.matcher = matcher;
  return { hooks: { [event]: [g] } };
}

/** A command handler running `script` with /bin/sh. */
function sh(script, extra = {}) {
  return { type: 'command', command: script, ...extra };
}

/** A handler that reads its stdin, waits `delay` seconds and prints `output`. */
function prints(output, delay = 0) {
  const text = JSON.stringify(output).replace(/'/g, "'\\''");
  return sh(`cat >/dev/null; sleep ${delay}; printf '%s' '${text}'`);
}

function bash(command, toolUseId = 'toolu_1') {
  return { tool_name: 'Bash', tool_input: { command }, tool_use_id: toolUseId };
}

function preToolUse(fields) {
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', ...fields } };
}

/** True while `pid` runs (a zombie waiting for its parent has ended). */
function alive(pid) {
  let stat;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  return !stat.slice(stat.lastIndexOf(') ') + 2).startsWith('Z');
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

module.exports = { REPO, World, group, sh, prints, bash, preToolUse, alive, sleep };
