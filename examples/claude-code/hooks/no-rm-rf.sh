#!/bin/sh
# Runs only for `rm -rf ...` subcommands (the handler's `if` rule); exit 2 denies the call,
# and stderr is the reason the model sees.
echo "rm -rf is not allowed here; delete the files one by one" >&2
exit 2
