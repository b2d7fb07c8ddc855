/** Polls until `probe` returns a value: the workbench applies UI changes, log writes and chat requests asynchronously. */
export async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 10_000): Promise<T> {
  for (const end = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 100))) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
  }
}
