/** Failures of this process rather than of the provider: no file descriptor left for a new connection. */
import { AdapterError } from './adapter-error.ts';

/**
 * The socket errors that say this process (EMFILE: its open-files limit) or the machine (ENFILE)
 * has no file descriptor left: a new connection to any upstream fails the same way, however
 * healthy the upstream is.
 */
const localResourceCodes: ReadonlySet<string> = new Set(['EMFILE', 'ENFILE']);

/** True for a network error whose cause is this process's descriptor exhaustion, not the provider. */
export function isLocalResourceFailure(error: unknown): error is AdapterError {
  return (
    AdapterError.isInstance(error) &&
    error.errorClass === 'network' &&
    localResourceCodes.has(error.providerCode ?? '')
  );
}
