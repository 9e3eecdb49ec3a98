/**
 * What a serving process must do before it ends on SIGTERM or SIGINT: the archive it opened
 * registers here how to stop its background work and close (`archive.ts`), and `scripts/start.ts`
 * runs it once the web server has stopped taking requests. Without this, a server stopped the usual
 * way (systemd, Kubernetes, Ctrl-C) left its row in `server_instances` and its jobs leased for a
 * minute, which kept the next version from migrating and the captures waiting.
 *
 * The hooks are process-wide (a registered symbol on `globalThis`), like `http/node-request.ts`:
 * `scripts/start.ts` and the built server bundle each load their own copy of this module.
 */

type Hook = () => Promise<void>;

const KEY = Symbol.for('archivo-abierto.shutdown');

interface Shutdown {
  hooks: Set<Hook>;
  begun: boolean;
}

function state(): Shutdown {
  const global = globalThis as { [KEY]?: Shutdown };
  return (global[KEY] ??= { hooks: new Set<Hook>(), begun: false });
}

/** Runs `hook` when the process shuts down; the function returned unregisters it. */
export function onShutdown(hook: Hook): () => void {
  state().hooks.add(hook);
  return () => state().hooks.delete(hook);
}

/** Whether the process has begun to shut down: work started now would only have to be handed back. */
export function shutdownBegun(): boolean {
  return state().begun;
}

/** Marks the process as shutting down, before the hooks run: no new work is started from now on. */
export function beginShutdown(): void {
  state().begun = true;
}

/**
 * Runs every registered hook at once and resolves when all have ended, including those registered
 * while they ran (an archive that finished opening meanwhile); a hook's failure is logged and does
 * not keep the others from running. Each hook runs once.
 */
export async function runShutdownHooks(): Promise<void> {
  const shutdown = state();
  shutdown.begun = true;
  while (shutdown.hooks.size > 0) {
    const registered = [...shutdown.hooks];
    shutdown.hooks.clear();
    await Promise.all(
      registered.map((hook) => hook().catch((error: unknown) => console.error('Al detener el servidor:', error))),
    );
  }
}
