import { readdirSync, readFileSync } from 'node:fs';

/** Fields 3 onwards of /proc/<pid>/stat (state, parent pid, ...), or null when the process is gone. */
function statOf(pid: number | string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The children of process `pid`, found in /proc by their parent pid. */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (/^\d+$/.test(entry) && Number(statOf(entry)?.[1]) === pid) children.push(Number(entry));
  }
  return children;
}

/**
 * A child of process `pid` (the embedded database's process under `npm start`), found in /proc by
 * its parent pid; null when it has none.
 */
export function childOf(pid: number): number | null {
  return childrenOf(pid)[0] ?? null;
}

/**
 * Whether process `pid` still runs. `process.kill(pid, 0)` alone also answers yes for a zombie (a
 * process that has ended but that its parent, or init once the parent is gone, has not reaped yet).
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = statOf(pid)?.[0];
  return state !== undefined && state !== 'Z';
}

/**
 * Waits, polling every 50 ms, until none of `pids` runs; what still runs after `timeoutMs` gets
 * SIGKILL, and is waited for a second more. Answers the pids it had to kill.
 */
export async function waitForExit(pids: number[], timeoutMs: number): Promise<number[]> {
  const pause = () => new Promise((resolve) => setTimeout(resolve, 50));
  const deadline = Date.now() + timeoutMs;
  while (pids.some(isRunning) && Date.now() < deadline) await pause();
  const killed = pids.filter(isRunning);
  for (const pid of killed) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ended meanwhile
    }
  }
  const killedBy = Date.now() + 1000;
  while (killed.some(isRunning) && Date.now() < killedBy) await pause();
  return killed;
}
