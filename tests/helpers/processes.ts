import { readdirSync, readFileSync } from 'node:fs';

/**
 * A child of process `pid` (the embedded database's process under `npm start`), found in /proc by
 * its parent pid; null when it has none.
 */
export function childOf(pid: number): number | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}
