/**
 * The one check of a model server's base URL, for the CLI's `--base-url` and the setting
 * `agentTape.provider.baseUrl`. The API key goes with every request to this address, so:
 * - no user name or password in it: those would travel with each request, and land in logs and
 *   error messages that show the address; the key has its own place;
 * - plain http only to this machine, where nobody on the network can read the key; https elsewhere.
 */
export type BaseUrlCheck = { ok: true; url: string; host: string } | { ok: false; reason: string };

export function checkBaseUrl(raw: string): BaseUrlCheck {
  const text = raw.trim().replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: `"${shownUrl(text)}" is not an http(s) URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: `"${shownUrl(text)}" is not an http(s) URL` };
  if (url.username !== '' || url.password !== '') {
    return {
      ok: false,
      reason: `"${shownUrl(text)}" holds a user name or password, which would go with every request and into logs; give the address without them (the API key is set on its own)`,
    };
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    return {
      ok: false,
      reason: `"${text}" uses plain http to ${url.host}, which anyone on the network can read, API key included; use https (plain http is allowed only for localhost, 127.0.0.0/8 and ::1)`,
    };
  }
  return { ok: true, url: text, host: url.host };
}

/** The WHATWG parser has already normalised `127.1`, `0x7f.1` or `[0:0::1]`, so the canonical forms are all there is to match. */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** The address for a message, without what sits before an `@` in its authority (a password, perhaps), parsed or not. */
function shownUrl(text: string): string {
  return text.replace(/^((?:[^:/?#]+:)?\/\/)?[^/?#]*@/, '$1…@');
}
