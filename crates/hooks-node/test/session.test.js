'use strict';
// The Node host API: callbacks and file hooks in one reduction, SDK-shaped outputs,
// failures as outcomes, timeouts and aborts, concurrency, the audit and reload, bad
// input, secrets.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const { World, group, sh, prints, bash, preToolUse, alive, sleep } = require('./world');

const STOP = { last_assistant_message: 'done' };

test('callbacks and file hooks reduce in configuration order', async () => {
  // The file hooks finish last (one after 0.3 s), the callbacks first, the first callback
  // after the second: the order is the configuration's all the same.
  const w = new World();
  w.writeProject(group('PreToolUse', [prints(preToolUse({ additionalContext: 'project' }), 0.3)]));
  w.writeUser(group('PreToolUse', [prints(preToolUse({ additionalContext: 'user' }), 0.1)]));
  const finished = [];
  const slow = async () => {
    await sleep(50);
    finished.push('slow');
    return preToolUse({ additionalContext: 'callback 1' });
  };
  const fast = async () => {
    finished.push('fast');
    return preToolUse({ additionalContext: 'callback 2' });
  };
  const plain = () => preToolUse({ additionalContext: 'callback 3' });
  const s = w.session({
    trustProjectHooks: true,
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [slow, fast] }, { hooks: [plain] }] },
  });
  const r = await s.fire('PreToolUse', bash('ls'));
  assert.deepEqual(finished, ['fast', 'slow']);
  assert.deepEqual(r.matched, [
    'PreToolUse:0:0', 'PreToolUse:1:0',
    'PreToolUse:callback:0:0', 'PreToolUse:callback:0:1', 'PreToolUse:callback:1:0',
  ]);
  assert.deepEqual(r.decision.context, ['project', 'user', 'callback 1', 'callback 2', 'callback 3']);
  assert.deepEqual(r.decision.diagnostics, []);
  assert.equal(r.blocking, false);
});

test('a callback deny beats a file hook allow', async () => {
  const w = new World();
  w.writeUser(group('PreToolUse', [prints(preToolUse({ permissionDecision: 'allow', permissionDecisionReason: 'fine' }))]));
  const denyRm = async (input) => (input.tool_input.command.includes('rm')
    ? preToolUse({ permissionDecision: 'deny', permissionDecisionReason: 'no rm' })
    : {});
  const s = w.session({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [denyRm] }] } });
  const denied = await s.fire('PreToolUse', bash('rm -rf /'));
  assert.equal(denied.blocking, true);
  assert.deepEqual(denied.decision.permission, { behavior: 'deny', reason: 'no rm', interrupt: false });
  assert.equal(denied.effect.outcome, 'deny');
  const allowed = await s.fire('PreToolUse', bash('ls'));
  assert.equal(allowed.blocking, false);
  assert.equal(allowed.decision.permission.behavior, 'allow');
  assert.equal(allowed.effect.outcome, 'allow');
});

test('callbacks get the wire input, the tool use id and a context with a signal', async () => {
  const w = new World();
  w.writeUser(group('PreToolUse', [sh('cat > "$CLAUDE_PROJECT_DIR/stdin.json"')]));
  const seen = [];
  const record = async (input, toolUseId, context) => {
    seen.push({ input, toolUseId, context });
    return {};
  };
  const s = w.session({ hooks: { PreToolUse: [{ hooks: [record], timeout: 7 }] } });
  await s.fire('PreToolUse', bash('ls', 'toolu_42'));
  assert.equal(seen.length, 1);
  const [{ input, toolUseId, context }] = seen;
  assert.deepEqual(input, JSON.parse(fs.readFileSync(path.join(w.project, 'stdin.json'), 'utf8')));
  assert.equal(input.hook_event_name, 'PreToolUse');
  assert.deepEqual(input.tool_input, { command: 'ls' });
  assert.equal(toolUseId, 'toolu_42');
  assert.ok(context.signal instanceof AbortSignal);
  assert.equal(context.signal.aborted, false);
  assert.equal(context.timeout, 7);
});

test('SDK-shaped outputs', async () => {
  const w = new World();
  const ask = async () => ({
    systemMessage: 'careful',
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'ask',
      permissionDecisionReason: 'check this',
      additionalContext: 'the repo is frozen',
    },
  });
  const stop = async () => ({ continue: false, stopReason: 'enough', async: false });
  const s = w.session({ hooks: { PreToolUse: [{ hooks: [ask] }], UserPromptSubmit: [{ hooks: [stop] }] } });
  const r = await s.fire('PreToolUse', bash('git push'));
  assert.equal(r.decision.permission.behavior, 'ask');
  assert.equal(r.decision.permission.reason, 'check this');
  assert.deepEqual(r.decision.context, ['the repo is frozen']);
  assert.deepEqual(r.decision.notices, ['careful']);
  assert.equal(r.effect.outcome, 'ask');
  assert.deepEqual(r.decision.diagnostics, []);
  const p = await s.fire('UserPromptSubmit', { prompt: 'hi' });
  assert.equal(p.decision.continue, false);
  assert.equal(p.decision.stop_reason, 'enough');
  assert.equal(p.blocking, true);
  // `async` reached the engine (Deep Agents Code does not apply it).
  assert.deepEqual(p.decision.diagnostics.map((d) => [d.code, d.field]), [['unsupported_field', 'async']]);
});

test('a throwing or rejecting callback is a non-blocking failure with its message', async () => {
  const w = new World();
  const rejects = async () => { throw new RangeError('boom'); };
  const throws = () => { throw new Error('sync boom'); };
  const notAnObject = () => 'yes';
  const ok = async () => preToolUse({ additionalContext: 'still counted' });
  const s = w.session({ hooks: { PreToolUse: [{ hooks: [rejects, throws, notAnObject, ok] }] } });
  const r = await s.fire('PreToolUse', bash('ls'));
  assert.equal(r.blocking, false);
  assert.deepEqual(r.decision.context, ['still counted']);
  const failed = Object.fromEntries(r.decision.diagnostics
    .filter((d) => d.code === 'callback_failed').map((d) => [d.handler_id, d.message]));
  assert.deepEqual(failed, {
    'PreToolUse:callback:0:0': 'callback threw RangeError: boom',
    'PreToolUse:callback:0:1': 'callback threw Error: sync boom',
    'PreToolUse:callback:0:2': 'callback returned string, expected an object',
  });
});

test('a slow callback past its timeout has its signal aborted', async () => {
  const w = new World();
  let reason = null;
  const slow = (input, id, { signal }) => new Promise((resolve) => {
    const timer = setTimeout(() => resolve({}), 30000);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reason = signal.reason;
      resolve({});
    });
  });
  const s = w.session({ hooks: { Stop: [{ hooks: [slow], timeout: 0.2 }] } });
  const started = Date.now();
  const r = await s.fire('Stop', STOP);
  assert.ok(Date.now() - started < 10000);
  assert.deepEqual(r.decision.diagnostics.map((d) => [d.code, d.handler_id]), [['timeout', 'Stop:callback:0:0']]);
  assert.equal(r.handlers[0].timed_out, true);
  assert.equal(r.blocking, false);
  for (let i = 0; i < 1000 && reason === null; i++) await sleep(1);
  assert.ok(reason instanceof DOMException);
  assert.equal(reason.name, 'TimeoutError');
});

test('aborting a fire kills its handler and grandchild and aborts its callbacks', async () => {
  const w = new World();
  const pids = path.join(w.root, 'pids');
  // The handler and a grandchild in its process group both record their pid.
  w.writeUser(group('PreToolUse', [sh(`sleep 30 & echo $! >> ${pids}; echo $$ >> ${pids}; wait`)]));
  const state = {};
  const waits = (input, id, { signal }) => new Promise((resolve) => {
    state.started = true;
    signal.addEventListener('abort', () => {
      state.aborted = signal.reason.name;
      resolve({});
    });
  });
  const s = w.session({ hooks: { PreToolUse: [{ hooks: [waits] }] } });
  const controller = new AbortController();
  const fired = s.fire('PreToolUse', bash('ls'), { signal: controller.signal });
  const recorded = () => (fs.existsSync(pids) ? fs.readFileSync(pids, 'utf8').split(/\s+/).filter(Boolean).map(Number) : []);
  for (let i = 0; i < 5000 && !(recorded().length === 2 && state.started); i++) await sleep(2);
  const both = recorded();
  assert.equal(both.length, 2);
  assert.ok(both.every(alive), 'the handler and its grandchild run');
  const why = new Error('the user pressed Esc');
  controller.abort(why);
  await assert.rejects(fired, (err) => err === why);
  // SIGKILL went to the handler's group before the promise rejected; the kernel takes its
  // moment to deliver it (a 3 s deadline, as the Rust tests).
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline && (both.some(alive) || !state.aborted)) await sleep(5);
  assert.deepEqual(both.filter(alive), []);
  assert.equal(state.aborted, 'AbortError');
  // A signal aborted before the fire rejects at once, without running anything.
  await assert.rejects(s.fire('PreToolUse', bash('ls'), { signal: AbortSignal.abort() }), { name: 'AbortError' });
});

test('the event loop runs while handlers run', async () => {
  const w = new World();
  w.writeUser(group('Stop', [sh('cat >/dev/null; sleep 0.5')]));
  const s = w.session();
  let ticks = 0;
  const timer = setInterval(() => { ticks += 1; }, 10);
  await s.fire('Stop', STOP);
  clearInterval(timer);
  assert.ok(ticks >= 10, `the loop ticked ${ticks} times during a 0.5 s handler`);
});

test('a hundred concurrent fires', async () => {
  const w = new World();
  w.writeUser(group('PreToolUse', [{ type: 'command', command: 'x', argv: ['/bin/sh', '-c', "cat >/dev/null; echo '{}'"] }]));
  const echo = async (input, toolUseId) => {
    await sleep(1);
    return preToolUse({ additionalContext: `${input.tool_input.command} ${toolUseId}` });
  };
  const s = w.session({ hooks: { PreToolUse: [{ hooks: [echo] }] } });
  const results = await Promise.all(Array.from({ length: 100 }, (_, i) => s.fire('PreToolUse', bash(`echo ${i}`, `t${i}`))));
  assert.deepEqual(results.map((r) => r.decision.context), results.map((_, i) => [`echo ${i} t${i}`]));
  assert.ok(results.every((r) => r.decision.diagnostics.length === 0));
  assert.ok(results.every((r) => r.handlers[0].exit_code === 0));
});

test('host handlers answer prompt and mcp_tool handlers', async () => {
  const w = new World();
  w.writeUser({ hooks: {
    Stop: [{ hooks: [{ type: 'prompt', prompt: 'Finished? $ARGUMENTS', model: 'fast' }] }],
    PostToolUse: [{ matcher: 'Write', hooks: [{ type: 'mcp_tool', server: 'sec', tool: 'scan', input: { file: '${tool_input.file_path}' } }] }],
  } });
  const asked = [];
  const s = w.session({ hostHandlers: {
    prompt: async (request, { signal }) => {
      assert.ok(signal instanceof AbortSignal);
      asked.push(request);
      return { ok: false, reason: 'run the tests first' };
    },
    mcp_tool: async (request) => {
      assert.deepEqual(request.arguments, { file: '/p/a.ts' });
      return { content: [{ type: 'text', text: '{"decision": "block", "reason": "secret in a.ts"}' }], isError: false };
    },
  } });
  const r = await s.fire('Stop', { last_assistant_message: 'Done.' });
  assert.equal(r.decision.continue_loop, true);
  assert.deepEqual(r.decision.feedback, ['run the tests first']);
  assert.equal(asked.length, 1);
  const [request] = asked;
  assert.deepEqual([request.kind, request.handler_id, request.event], ['prompt', 'Stop:0:0', 'Stop']);
  assert.equal(request.model, 'fast');
  assert.equal(request.timeout_ms, 30000);
  assert.ok(request.prompt.startsWith('Finished? {') && request.prompt.includes('"last_assistant_message":"Done."'));
  const t = await s.fire('PostToolUse', { tool_name: 'Write', tool_input: { file_path: '/p/a.ts' }, tool_response: {}, tool_use_id: 't1' });
  assert.deepEqual(t.decision.feedback, ['secret in a.ts']);
});

test('host handler failures, timeouts and kinds not answered', async () => {
  const w = new World();
  w.writeUser({ hooks: { Stop: [{ hooks: [
    { type: 'prompt', prompt: 'p' },
    { type: 'agent', prompt: 'a' },
    { type: 'mcp_tool', server: 's', tool: 't', timeout: 0.3 },
  ] }] } });
  let aborted = null;
  const s = w.session({ hostHandlers: {
    prompt: () => { throw new Error('model offline'); },
    mcp_tool: (request, { signal }) => new Promise((resolve) => {
      signal.addEventListener('abort', () => { aborted = signal.reason.name; resolve({}); });
    }),
  } });
  const r = await s.fire('Stop', STOP);
  for (let i = 0; i < 1000 && aborted === null; i++) await sleep(1);
  const codes = Object.fromEntries(r.decision.diagnostics.map((d) => [d.handler_id, d.code]));
  assert.deepEqual(codes, { 'Stop:0:0': 'host_handler_failed', 'Stop:0:1': 'handler_needs_host', 'Stop:0:2': 'timeout' });
  assert.ok(r.decision.diagnostics.find((d) => d.code === 'host_handler_failed').message.includes('model offline'));
  assert.equal(aborted, 'TimeoutError');
  assert.equal(r.blocking, false);
});

test('list is the audit, with a payload the plan, and reload takes a new snapshot', async () => {
  const w = new World();
  w.writeUser(group('PreToolUse', [sh('exit 0', { if: 'Bash(git commit:*)' }), sh('exit 0 # b')], 'Bash'));
  w.writeProject(group('Stop', [sh('exit 0')]));
  const s = w.session({ hooks: { Stop: [{ hooks: [async () => ({})] }] } });
  const listing = s.list();
  const rows = listing.handlers.map((h) => [h.id, h.layer, h.status]);
  assert.deepEqual(rows.filter((r) => r[1] === 'user'), [['PreToolUse:0:0', 'user', 'active'], ['PreToolUse:0:1', 'user', 'active']]);
  assert.ok(rows.some((r) => r[0] === 'Stop:callback:0:0' && r[1] === 'callback' && r[2] === 'active'));
  assert.deepEqual(listing.handlers.filter((h) => h.layer === 'project').map((h) => h.status), ['untrusted']);
  assert.ok(listing.diagnostics.some((d) => d.code === 'project_untrusted'));
  assert.equal(listing.project_root, w.project);
  const plan = s.list('PreToolUse', bash('git push origin main'));
  assert.deepEqual(plan.handlers.map((h) => [h.id, h.fate]), [['PreToolUse:0:0', 'if_false'], ['PreToolUse:0:1', 'runs']]);
  assert.deepEqual((await s.fire('PreToolUse', bash('git push origin main'))).matched, ['PreToolUse:0:1']);
  w.writeUser(group('PreToolUse', [sh('exit 0'), sh('exit 1'), sh('exit 0 # c')], 'Bash'));
  // The snapshot taken at start still decides: its first handler's rule does not admit `ls`.
  assert.deepEqual((await s.fire('PreToolUse', bash('ls'))).matched, ['PreToolUse:0:1']);
  s.reload();
  assert.notEqual(s.list().snapshot_id, listing.snapshot_id);
  assert.deepEqual((await s.fire('PreToolUse', bash('ls'))).matched, ['PreToolUse:0:0', 'PreToolUse:0:1', 'PreToolUse:0:2']);
});

test('bad input: wrong types are a TypeError naming the field, bad values an Error', async () => {
  const w = new World();
  const cases = [
    [{ home: 3 }, /^home: expected a string, got number$/],
    [{ trustProjectHooks: 'yes' }, /^trustProjectHooks: expected a boolean, got string$/],
    [{ env: { PATH: 1 } }, /^env\.PATH: expected a string, got number$/],
    [{ allowEnv: [1] }, /^allowEnv\[0\]: expected a string, got number$/],
    [{ capabilities: {} }, /^capabilities: expected an array of strings, got object$/],
    [{ hooks: { PreToolUse: {} } }, /^hooks\.PreToolUse: expected an array/],
    [{ hooks: { PreToolUse: [{ hooks: ['x'] }] } }, /^hooks\.PreToolUse\[0\]\.hooks\[0\]: expected a function, got string$/],
    [{ hooks: { PreToolUse: [{ matcher: 1, hooks: [] }] } }, /^hooks\.PreToolUse\[0\]\.matcher: expected a string, got number$/],
    [{ hooks: { PreToolUse: [{ hooks: [], timeout: '1' }] } }, /^hooks\.PreToolUse\[0\]\.timeout: expected a number of seconds, got string$/],
    [{ hostHandlers: { prompt: 'x' } }, /^hostHandlers\.prompt: expected a function, got string$/],
    [{ hostHandlers: { model: () => ({}) } }, /^hostHandlers\.model: unknown kind/],
    [{ projct: '.' }, /^options\.projct: unknown option/],
  ];
  for (const [options, message] of cases) {
    assert.throws(() => w.session(options), (err) => err instanceof TypeError && message.test(err.message), JSON.stringify(options));
  }
  assert.throws(() => w.session({ profile: 'nope' }), /unknown profile 'nope'/);
  assert.throws(() => w.session({ capabilities: ['nope'] }), /unknown capability 'nope'.*defer/);
  assert.throws(() => w.session({ hooks: { PreToolUse: [{ matcher: '(', hooks: [() => ({})] }] } }), /Invalid hook matcher/);
  assert.throws(() => w.session({ hooks: { PreToolUs: [{ hooks: [() => ({})] }] } }), /did you mean 'PreToolUse'/);
  for (const name of ['updated-input', 'pre-tool-use-updated-input', 'permission-request-updated-input', 'defer']) {
    w.session({ capabilities: [name] });
  }
  const s = w.session();
  await assert.rejects(s.fire(1, {}), { name: 'TypeError', message: 'event: expected a string, got number' });
  await assert.rejects(s.fire('Stop', 'x'), { name: 'TypeError', message: 'payload: expected an object, got string' });
  await assert.rejects(s.fire('Stop', STOP, { signal: 1 }), { name: 'TypeError', message: 'options.signal: expected an AbortSignal, got number' });
  await assert.rejects(s.fire('Stop', STOP, { stopContinuations: -1 }), { name: 'TypeError' });
  await assert.rejects(s.fire('PreToolUs', bash('ls')), /did you mean 'PreToolUse'/);
  await assert.rejects(s.fire('UserPromptSubmit', {}), /prompt/);
  // docs/claude-code-contract.md#cc-F86: a PreToolUse payload that cannot be matched is
  // denied, not thrown.
  const denied = await s.fire('PreToolUse', { tool_input: {} });
  assert.equal(denied.blocking, true);
  assert.deepEqual(denied.matched, []);
  assert.ok(denied.decision.permission.reason.startsWith('Hook matching failed: '));
  assert.deepEqual(denied.decision.diagnostics.map((d) => d.code), ['invalid_payload']);
});

test('secrets stay out of handler environments unless allowed', async () => {
  const w = new World();
  w.writeUser(group('Stop', [sh('env > "$CLAUDE_PROJECT_DIR/env.txt"')]));
  const env = { ...w.env, API_TOKEN: 's3cret', OTHER_TOKEN: 'x' };
  const file = path.join(w.project, 'env.txt');
  await w.session({ env }).fire('Stop', STOP);
  assert.ok(!fs.readFileSync(file, 'utf8').includes('s3cret'));
  await w.session({ env, allowEnv: ['API_TOKEN'] }).fire('Stop', STOP);
  const text = fs.readFileSync(file, 'utf8');
  assert.ok(text.includes('API_TOKEN=s3cret'));
  assert.ok(!text.includes('OTHER_TOKEN'));
});

test('plugin dirs join the snapshot, receipts can be turned off', async () => {
  const w = new World();
  const plugin = path.join(w.root, 'plugin');
  fs.mkdirSync(path.join(plugin, '.claude-plugin'), { recursive: true });
  fs.writeFileSync(path.join(plugin, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'demo', version: '1.0.0' }));
  fs.mkdirSync(path.join(plugin, 'hooks'));
  fs.writeFileSync(path.join(plugin, 'hooks', 'hooks.json'), JSON.stringify(group('Stop', [prints({ systemMessage: 'from the plugin' })])));
  const s = w.session({ pluginDirs: [plugin] });
  const r = await s.fire('Stop', STOP);
  assert.deepEqual(r.decision.notices, ['from the plugin']);
  assert.deepEqual(s.list().handlers.map((h) => h.layer), ['plugin']);
  assert.equal(typeof r.receipt.seq, 'number');
  const quiet = await w.session({ pluginDirs: [plugin], receipts: false }).fire('Stop', STOP);
  assert.equal(quiet.receipt, null);
});

test('a callback-only fire keeps Node alive until its callback times out', () => {
  // The fire runs on the JavaScript thread; a callback that never settles leaves nothing
  // else on the event loop, and the engine's timer (on its own thread) must still end it.
  const w = new World();
  const script = `
    const { Session } = require(${JSON.stringify(path.resolve(__dirname, '..'))});
    const s = new Session({ project: ${JSON.stringify(w.project)}, home: ${JSON.stringify(w.home)},
      env: { PATH: '/usr/bin:/bin' }, hooks: { Stop: [{ hooks: [() => new Promise(() => {})], timeout: 0.3 }] } });
    s.fire('Stop', { last_assistant_message: 'done' })
      .then((r) => console.log(r.decision.diagnostics.map((d) => d.code).join()));`;
  const out = require('node:child_process').spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20000 });
  assert.equal(out.status, 0, out.stderr);
  assert.equal(out.stdout, 'timeout\n');
});

test('aborting a callback-only fire aborts its callbacks and rejects at once', async () => {
  const w = new World();
  let reason = null;
  let started = false;
  const waits = (input, id, { signal }) => new Promise((resolve) => {
    started = true;
    signal.addEventListener('abort', () => { reason = signal.reason.name; resolve({}); });
  });
  const s = w.session({ hooks: { PreToolUse: [{ hooks: [waits] }] } });
  const controller = new AbortController();
  const fired = s.fire('PreToolUse', bash('ls'), { signal: controller.signal });
  for (let i = 0; i < 1000 && !started; i++) await sleep(1);
  assert.ok(started);
  controller.abort();
  await assert.rejects(fired, { name: 'AbortError' });
  for (let i = 0; i < 1000 && reason === null; i++) await sleep(1);
  assert.equal(reason, 'AbortError');
  // The session goes on: the next fire is answered.
  const fast = w.session({ hooks: { PreToolUse: [{ hooks: [async () => preToolUse({ additionalContext: 'ok' })] }] } });
  assert.deepEqual((await fast.fire('PreToolUse', bash('ls'))).decision.context, ['ok']);
});

test('the cursor profile fires Cursor\'s own event names', async () => {
  // Cursor's flat user file; beforeShellExecution runs as PreToolUse and answers only
  // that event's entries (docs/cursor.md, "Events").
  const w = new World();
  const deny = "cat >/dev/null; echo 'no network' >&2; exit 2";
  w.writeUser({ version: 1, hooks: {
    beforeShellExecution: [{ command: deny, matcher: 'curl|wget' }],
    preToolUse: [{ command: deny }],
  } });
  const s = w.session({ profile: 'cursor' });
  const payload = { conversation_id: 'c1', hook_event_name: 'beforeShellExecution',
    command: 'curl https://x', cwd: w.project, sandbox: false };
  const r = await s.fire('beforeShellExecution', payload);
  assert.deepEqual([r.event, r.host_event], ['PreToolUse', 'beforeShellExecution']);
  assert.deepEqual(r.matched, ['beforeShellExecution:0:0']);
  assert.deepEqual(r.decision.permission, { behavior: 'deny', reason: 'no network', interrupt: false });
  assert.deepEqual((await s.fire('beforeShellExecution', { ...payload, command: 'ls' })).matched, []);
  await assert.rejects(s.fire('beforeShellExecutio', payload), /did you mean 'beforeShellExecution'/);
});

test('cursor callbacks name Cursor events and answer with Cursor outputs', async () => {
  // A callback group under profile 'cursor' names a Cursor event, answers only it, gets
  // Cursor's payload and answers with Cursor's flat output (docs/cursor.md, "Callbacks").
  const w = new World();
  const seen = [];
  const noRm = async (input) => {
    seen.push(input);
    return { permission: 'deny', agent_message: 'no rm -rf' };
  };
  const s = w.session({ profile: 'cursor', hooks: { beforeShellExecution: [{ matcher: 'rm -rf', hooks: [noRm] }] } });
  const payload = { conversation_id: 'c1', hook_event_name: 'beforeShellExecution',
    command: 'rm -rf /tmp/x', cwd: w.project, sandbox: false };
  const r = await s.fire('beforeShellExecution', payload);
  assert.deepEqual(r.matched, ['beforeShellExecution:callback:0:0']);
  assert.deepEqual(r.decision.permission, { behavior: 'deny', reason: 'no rm -rf', interrupt: false });
  assert.deepEqual(seen, [payload]);
  assert.deepEqual((await s.fire('beforeShellExecution', { ...payload, command: 'ls' })).matched, []);
  const tool = { conversation_id: 'c1', tool_name: 'Shell', tool_input: { command: 'rm -rf /' },
    tool_use_id: 't', cwd: w.project };
  assert.deepEqual((await s.fire('preToolUse', tool)).matched, []);
  assert.throws(() => w.session({ profile: 'cursor', hooks: { PreToolUse: [{ hooks: [noRm] }] } }),
    /did you mean 'preToolUse'/);
});

test('a cursor cloud agent runs the project hooks and not the user\'s', async () => {
  // docs/cursor.md, "Cloud agents": the enterprise, team and project command hooks only.
  const w = new World();
  w.writeUser({ version: 1, hooks: { beforeShellExecution: [{ command: "cat >/dev/null; echo user >&2; exit 2" }] } });
  fs.mkdirSync(path.join(w.project, '.cursor'), { recursive: true });
  fs.writeFileSync(path.join(w.project, '.cursor', 'hooks.json'), JSON.stringify({ version: 1, hooks: {
    beforeShellExecution: [{ command: 'cat >/dev/null; exit 0' }] } }));
  const payload = { conversation_id: 'c1', command: 'ls', cwd: w.project, sandbox: false };
  const local = w.session({ profile: 'cursor', trustProjectHooks: true });
  assert.equal((await local.fire('beforeShellExecution', payload)).decision.permission.reason, 'user');
  const cloud = w.session({ profile: 'cursor', trustProjectHooks: true, cloud: true });
  const r = await cloud.fire('beforeShellExecution', payload);
  assert.equal(r.decision.permission.behavior, 'none');
  assert.deepEqual(r.matched, ['beforeShellExecution:0:0']);
  assert.throws(() => w.session({ cloud: true }), /cloud: true needs profile 'cursor'/);
});

test('cursor\'s third-party setting runs Claude Code\'s settings files', async () => {
  // docs/cursor.md, "Claude Code files": the host fires their Claude Code events.
  const w = new World();
  fs.mkdirSync(path.join(w.project, '.claude'), { recursive: true });
  fs.writeFileSync(path.join(w.project, '.claude', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [
    { matcher: 'Bash', hooks: [{ type: 'command', command: 'cat >/dev/null; echo claude >&2; exit 2' }] }] } }));
  const s = w.session({ profile: 'cursor', trustProjectHooks: true, thirdParty: true });
  assert.equal((await s.fire('PreToolUse', bash('ls'))).decision.permission.reason, 'claude');
  await assert.rejects(w.session({ profile: 'cursor' }).fire('PreToolUse', bash('ls')), /did you mean 'preToolUse'/);
  assert.throws(() => w.session({ thirdParty: true }), /thirdParty: true needs profile 'cursor'/);
});
