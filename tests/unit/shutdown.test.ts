import { expect, it, vi } from 'vitest';
import { onShutdown, runShutdownHooks, shutdownBegun } from '../../src/lib/server/shutdown.ts';

it('runs each hook once, those registered meanwhile too, whatever one of them throws', async () => {
  const ran: string[] = [];
  const error = vi.spyOn(console, 'error').mockImplementation(() => {});
  const removed = onShutdown(async () => void ran.push('quitado'));
  removed();
  onShutdown(async () => {
    ran.push('archivo');
    // An archive that finishes opening while the others stop registers its own hook now.
    onShutdown(async () => void ran.push('tardío'));
  });
  onShutdown(async () => {
    ran.push('fallido');
    throw new Error('no se pudo');
  });
  expect(shutdownBegun()).toBe(false);

  await runShutdownHooks();
  expect(shutdownBegun()).toBe(true);
  expect(ran.sort()).toEqual(['archivo', 'fallido', 'tardío']);
  expect(error).toHaveBeenCalledWith('Al detener el servidor:', expect.objectContaining({ message: 'no se pudo' }));
  await runShutdownHooks();
  expect(ran).toHaveLength(3);
  error.mockRestore();
});
