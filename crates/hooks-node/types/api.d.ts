// The package's API (crates/hooks-node/types/api.d.ts, appended by `cargo xtask codegen`).

/** The fields `fire` fills when the payload lacks them. */
type FilledFields = 'session_id' | 'transcript_path' | 'cwd' | 'permission_mode' | 'hook_event_name';

/** What the host passes to `fire` for event `E`: its input, the common fields optional. */
export type FirePayload<E extends HookEvent> =
  Omit<HookInputs[E], FilledFields> & Partial<Pick<HookInputs[E], Extract<FilledFields, keyof HookInputs[E]>>>;

/** The third argument of a callback. */
export interface HookCallbackOptions {
  /** Aborted when the callback passes its timeout (reason: a `TimeoutError`) or its fire is aborted (an `AbortError`). */
  signal: AbortSignal;
  /** The callback's timeout, in seconds. */
  timeout: number;
}

/** A hook callback, as in the Claude Agent SDK: its answer is the event's output object. */
export type HookCallback<E extends HookEvent = HookEvent> = (
  input: HookInputs[E],
  toolUseID: string | undefined,
  options: HookCallbackOptions,
) => HookOutputs[E] | Promise<HookOutputs[E]>;

/** Callbacks for what `matcher` matches (tool names, sources, ...; absent or `*`: everything). */
export interface HookCallbackMatcher<E extends HookEvent = HookEvent> {
  matcher?: string;
  hooks: HookCallback<E>[];
  /** Per callback, in seconds (default 60). */
  timeout?: number;
}

/** A callback of a Cursor event (profile `cursor`): it gets Cursor's payload and answers with Cursor's flat output (`{ permission: 'deny', agent_message }`, docs/cursor.md "Callbacks"). */
export type CursorCallback = (
  input: Record<string, unknown>,
  toolUseID: string | undefined,
  options: HookCallbackOptions,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** Callbacks of a Cursor event for what `matcher` matches (that event's target, docs/cursor.md "Events"). */
export interface CursorCallbackMatcher {
  matcher?: string;
  hooks: CursorCallback[];
  /** Per callback, in seconds (default 60). */
  timeout?: number;
}

/** A request of a `prompt`, `agent` or `mcp_tool` handler to the host (docs/claude-code-contract.md 8.2). */
export type HostHandlerCall = HostHandlerRequest['params'];

/** Answers host-delegated handlers of one kind: `{ ok: true }`, `{ ok: false, reason }`, or for `mcp_tool` the tool's `{ content, isError }`. */
export type HostHandler = (request: HostHandlerCall, options: { signal: AbortSignal }) => unknown | Promise<unknown>;

export interface SessionOptions {
  /** The folder the session starts in (the project root is its nearest ancestor with `.git`); default `.`. */
  project?: string;
  /** The hooks home (default `$DEEPAGENTS_HOME`, else `~/.deepagents`; claude-code: `$CLAUDE_CONFIG_DIR`, else `~/.claude`). */
  home?: string;
  /** The hook contract, as `hooks --profile` names it (default `deepagents`). */
  profile?: Profile;
  /** Load the project file present at start without a trust-store entry (headless trust). */
  trustProjectHooks?: boolean;
  /** The environment handlers inherit (default: this process's), scrubbed of credentials except `allowEnv`. */
  env?: Record<string, string>;
  allowEnv?: string[];
  /** Optional outputs the host applies beyond the profile's, as `hooks run --capability` names them. */
  capabilities?: Capability[] | Capability;
  /** Plugin folders loaded as installed. */
  pluginDirs?: Array<string | { path: string; id?: string }>;
  /** Keep only verified installed plugins. */
  requireVerified?: boolean;
  /** Callbacks by event, as the Agent SDK's `options.hooks`; under profile `cursor`, by Cursor event. */
  hooks?: { [E in HookEvent]?: HookCallbackMatcher<E>[] } & { [E in CursorEvent]?: CursorCallbackMatcher[] };
  /** Functions answering host-delegated handlers, by kind. */
  hostHandlers?: { prompt?: HostHandler; agent?: HostHandler; mcp_tool?: HostHandler };
  /** One hash-chained record per handler of each fire in the session's journal (default true). */
  receipts?: boolean;
  /** Kill every descendant of a handler with it, also after a normal exit (default: `HOOKS_STRICT_CONTAINMENT`). */
  strictContainment?: boolean;
  /** A Cursor cloud agent (profile `cursor` only): only the command hooks of the enterprise file, the team document and the project file run (docs/cursor.md, "Cloud agents"). */
  cloud?: boolean;
  /** Cursor's third-party setting (profile `cursor` only): Claude Code's settings files load too, and `fire` takes Claude Code's event names for them (docs/cursor.md, "Claude Code files"). */
  thirdParty?: boolean;
}

export interface FireOptions {
  /** Aborting it kills the handlers' process groups and aborts the callbacks; `fire` rejects with its reason. */
  signal?: AbortSignal;
  /** The loop's count of consecutive Stop continuations. */
  stopContinuations?: number;
  /** PreModelSwitch, PostModelSwitch: the target model's canonical name the matchers are tested against. */
  matchTarget?: string;
}

/** A fired event, as `hooks run` prints it, plus `blocking` (what `hooks run` reports with exit 2). */
export type FireResult = Omit<RunResult, 'load_diagnostics' | 'async_results' | 'rewakes'> & {
  blocking: boolean;
};

/** A hook session: the snapshot of every layer taken at start, the turn state between events. */
export declare class Session {
  constructor(options?: SessionOptions);
  /** Fires `event`: every matching handler runs at once, the results reduced in configuration order. */
  fire<E extends HookEvent>(event: E, payload: FirePayload<E>, options?: FireOptions): Promise<FireResult>;
  /** Fires a Cursor event (profile `cursor`) with Cursor's payload: the entries of that event run as its canonical event. */
  fire(event: CursorEvent, payload: Record<string, unknown>, options?: FireOptions): Promise<FireResult>;
  /** The audit; with an event and its payload, the plan (each handler's `fate` and `why`). */
  list<E extends HookEvent>(event?: E, payload?: FirePayload<E>, options?: { matchTarget?: string }): Listing;
  /** The plan of a Cursor event (profile `cursor`). */
  list(event: CursorEvent, payload?: Record<string, unknown>, options?: { matchTarget?: string }): Listing;
  /** Takes a new snapshot from the files as they are now. */
  reload(): void;
  /** The main loop's count of consecutive Stop continuations so far. */
  readonly stopContinuations: number;
}
