/**
 * URIs of media and files as the adapters name them: a part given by one the host does not read
 * is left out with the projection WARN (`warnDroppedPart`), which names the scheme only — the rest
 * of a URI may carry tokens or personal data. The gateway never fetches a client's URL itself.
 */

/** The URI's scheme, lower-cased (`https`, `s3`, `data`), or undefined when it has none. */
export function uriScheme(uri: string): string | undefined {
  return /^([a-z][a-z0-9+.-]*):/i.exec(uri)?.[1]?.toLowerCase();
}

/** Whether the scheme is http or https: a URL the provider would have to fetch. */
export function isWebScheme(scheme: string | undefined): boolean {
  return scheme === 'http' || scheme === 'https';
}

/**
 * The reason of the WARN for `what` (`an image`) given by a URI of `scheme` that `host` does not
 * read, saying what it takes instead: `an image is a https: URL; Converse takes …`.
 */
export function unreadUriReason(what: string, scheme: string | undefined, takes: string): string {
  const named =
    scheme === undefined
      ? 'a URI without a scheme'
      : isWebScheme(scheme)
        ? `a ${scheme}: URL`
        : `a ${scheme}: URI`;
  return `${what} is ${named}; ${takes}`;
}
