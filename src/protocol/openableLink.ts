/**
 * The addresses a link in tape text may open, checked by both sides of the inspector: the page
 * makes a link only of these (any other is shown as text), and the host opens only these, whatever
 * a page asks. Everything else (`javascript:`, `data:`, `file:`, `command:`, `vscode:`, a relative
 * path) would run something or reach into the machine, not show a page.
 */
export const OPENABLE_SCHEMES: readonly string[] = ['http:', 'https:', 'mailto:'];

/** Longer than any address a browser takes; a page asking with more is not showing a link. */
export const MAX_LINK_LENGTH = 8192;

/**
 * The address as the WHATWG URL parser reads it (so both sides judge the same string), when its
 * scheme is one of `OPENABLE_SCHEMES`; null otherwise.
 */
export function openableUrl(href: string): string | null {
  if (href.length > MAX_LINK_LENGTH) return null;
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  return OPENABLE_SCHEMES.includes(url.protocol) ? url.href : null;
}
