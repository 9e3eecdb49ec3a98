/** Waiting for what a server does in its own time, polled and bounded. */

/** Polls `condition` every `everyMs` until it holds; throws, naming `what`, after `timeoutMs`. */
export async function until(what: string, condition: () => Promise<boolean>, timeoutMs = 20_000, everyMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs / 1000} s waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
