#!/usr/bin/env node
'use strict';
// Example resident hook: deny Bash commands that contain `rm -rf` (PreToolUse).
const { serve } = require('./resident');

serve((event, payload) => {
  const command = (payload.tool_input && payload.tool_input.command) || '';
  if (command.includes('rm -rf')) {
    return [0, {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'rm -rf is not allowed',
      },
    }];
  }
  return 0;
});
