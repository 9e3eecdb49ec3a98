/** Facts about other processes on this machine, for locks and leftovers that carry a pid. */

/** Whether a process with `pid` is running (EPERM: it exists, but belongs to someone else). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
