/** A wallet's own uploads, as the browser reads them (SPEC §7, the admin host's `/alexandrias`). */
import { LIMITS } from '../domain/constants.ts';

export interface LastFile {
  id: number;
  cid: string | null;
  title: string;
  status: string;
  createdAt: string;
}

/** The wallet's latest files, newest first: the last-files table (3). */
export async function fetchLastFiles(walletAddress: string, limit: number = LIMITS.lastFiles): Promise<LastFile[]> {
  const query = new URLSearchParams({ wallet_address: walletAddress.toLowerCase(), _limit: String(limit), _sort: 'createdAt:desc' });
  const response = await fetch(`/alexandrias?${query}`);
  if (!response.ok) throw new Error(`GET /alexandrias answered ${response.status}`);
  return (await response.json()) as LastFile[];
}
