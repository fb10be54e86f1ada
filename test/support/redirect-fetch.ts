/** A fetch that sends every provider URL to the emulator instead (same path and query). */
import { fetch as undiciFetch } from 'undici';

/** Rewrites `https://host/...` to `${base}/...` and calls undici's fetch. */
export function redirectFetch(base: string): typeof fetch {
  const redirected = (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    return undiciFetch(url.replace(/^https?:\/\/[^/]+/, base), init as never) as unknown as Promise<Response>;
  };
  return redirected as typeof fetch;
}
